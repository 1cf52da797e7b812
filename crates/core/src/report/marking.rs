//! A submission's marking sheet: every criterion of its assignment's marking scheme, the
//! automatic ones marked and the marker's left blank, with the figures broadside measured.
//! Plain data (JSON in `marking.json` and in the report) and its text view.

use serde::{Deserialize, Serialize};

/// The marking sheet of one submission.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Sheet {
    pub assignment: String,
    /// The handout and its section the scheme comes from.
    pub handout: String,
    pub out_of: u32,
    pub criteria: Vec<CriterionMark>,
    /// Caps on the whole mark and whether each applies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub caps: Vec<CapResult>,
    pub figures: Vec<Figure>,
    /// The automatic criteria's marks added up.
    pub automatic: f64,
    /// The weight left for the marker.
    pub for_the_marker: u32,
    /// The lowest cap that applies, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capped_at: Option<u32>,
}

/// One criterion on the sheet.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct CriterionMark {
    pub id: String,
    pub title: String,
    pub weight: u32,
    pub clause: String,
    /// The mark when broadside computes it; `None`: the marker's, left blank.
    pub mark: Option<f64>,
    /// How the mark was computed (automatic criteria).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub how: String,
    /// Ids of the figures shown beside it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub figures: Vec<String>,
}

/// A cap of the scheme, and whether it applies to this submission.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct CapResult {
    pub id: String,
    pub max: u32,
    pub clause: String,
    pub applies: bool,
}

/// How a figure came out.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum FigureState {
    /// Measured, and nothing is short of the handout's rule.
    Ok,
    /// Measured, and something is short of it (warnings, too few tests, a gap).
    Short,
    /// What it looks for is not in the submission.
    Missing,
    /// Not measured: the submission does not allow it (not a git repository, no module).
    NotApplicable,
    /// Not measured because of the grader (a tool failed): nothing is charged for it.
    NotMeasured,
}

/// A measurement for the marker.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Figure {
    pub id: String,
    pub title: String,
    pub clause: String,
    pub state: FigureState,
    /// One line.
    pub summary: String,
    /// More lines, each one fact.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
    /// The figure's numbers, by name (summary.csv shows them).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub numbers: std::collections::BTreeMap<String, f64>,
    /// The student-tests figure: one row per testable function.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<FunctionTests>,
}

/// A testable function and the student's tests of it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct FunctionTests {
    pub function: String,
    /// Tests that call it themselves and pass on a correct implementation.
    pub tests: usize,
    pub chaffs: usize,
    pub caught: usize,
    /// For each chaff no test caught: what no test checks, and the handout's rule.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub untested: Vec<String>,
}

/// A mark with at most two decimals, written without trailing zeros.
fn mark(m: f64) -> String {
    let s = format!("{m:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The sheet as text, for the student's feedback and the marker.
pub fn to_text(sheet: &Sheet) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Marking sheet: {} ({}), out of {}",
        sheet.assignment, sheet.handout, sheet.out_of
    );
    for c in &sheet.criteria {
        let m = match c.mark {
            Some(m) => format!("{} / {}", mark(m), c.weight),
            None => format!("__ / {}  (for the marker)", c.weight),
        };
        let _ = writeln!(out, "  {:<48} {m}", c.title);
        if !c.how.is_empty() {
            let _ = writeln!(out, "      {}", c.how);
        }
        if !c.figures.is_empty() {
            let _ = writeln!(out, "      figures: {}", c.figures.join(", "));
        }
    }
    for cap in &sheet.caps {
        let state = if cap.applies {
            "APPLIES"
        } else {
            "does not apply"
        };
        let _ = writeln!(out, "  cap at {}: {state} — {}", cap.max, cap.clause);
    }
    let _ = writeln!(
        out,
        "  automatic: {} of {}; for the marker: {}",
        mark(sheet.automatic),
        sheet.out_of - sheet.for_the_marker,
        sheet.for_the_marker
    );
    let _ = writeln!(out, "\nFigures");
    for f in &sheet.figures {
        let state = match f.state {
            FigureState::Ok => "ok",
            FigureState::Short => "short",
            FigureState::Missing => "missing",
            FigureState::NotApplicable => "n/a",
            FigureState::NotMeasured => "not measured",
        };
        let _ = writeln!(out, "  {} [{state}]: {}", f.id, f.summary);
        for row in &f.functions {
            let _ = writeln!(
                out,
                "      {:<24} {:>2} test{}  chaffs caught {}/{}",
                row.function,
                row.tests,
                if row.tests == 1 { " " } else { "s" },
                row.caught,
                row.chaffs
            );
        }
        for row in &f.functions {
            for u in &row.untested {
                let _ = writeln!(out, "      untested: {}: {u}", row.function);
            }
        }
        for l in &f.lines {
            let _ = writeln!(out, "      {l}");
        }
    }
    out
}
