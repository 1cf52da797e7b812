//! The class summary: one row per submission and each scenario's failure rate across the
//! class, as `summary.csv` and `summary.json`, built only from the per-submission reports
//! (so a summary always matches them, and `merge` rebuilds it from shards' reports).

use super::GradeError;
use crate::report::{FORMAT_VERSION, Report, Status, round_to, scenario_ids};
use camino::Utf8Path;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The summary of a class (or of one shard of it).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct ClassSummary {
    pub format_version: u32,
    /// `broadside <version>`.
    pub tool: String,
    /// The suite's title, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `K/N` when this summary covers one shard of the class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// One row per submission, sorted by id.
    pub submissions: Vec<SubmissionRow>,
    /// Submissions this run was to grade but has no report for (it was interrupted, or a
    /// report could not be written); `merge` refuses a shard with any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_graded: Vec<String>,
    /// Every scenario with how the class did on it, hardest first.
    pub scenarios: Vec<ScenarioRate>,
}

/// One submission's line in the summary.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct SubmissionRow {
    pub id: String,
    /// The submission folder the id stands for, spelled so that no two names read alike
    /// (`\` doubled, control characters as `\u{1b}`, bytes that are not UTF-8 as `\xNN`);
    /// only when that is not the id itself (a name with any of those, or two folders that
    /// read the same and got `~2`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    pub score: f64,
    pub max_score: f64,
    #[serde(serialize_with = "crate::report::points2")]
    pub points: f64,
    pub max_points: u32,
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
    /// The kinds of fault the submission met, each once, in the order `fault_summary` tells
    /// of them: those that ended a scenario in the order first met, then those of the
    /// submission as a whole (`["missing", "exception", "leak"]`; in `summary.csv`, joined
    /// by spaces). Empty exactly when `fault_summary` is: a column to filter on, where
    /// `fault_summary` is the sentence to read.
    pub faults: Vec<String>,
    /// Why the submission has errors, in one line an instructor can read in a spreadsheet:
    /// each fault kind with the number of scenarios it ended and, when they all say the
    /// same, the first line of its message (`setup in 63 scenarios: SyntaxError: invalid
    /// syntax (battleships.py, line 12)`), then the faults of the submission as a whole.
    /// Empty when nothing faulted.
    #[serde(default)]
    pub fault_summary: String,
    /// False when nothing of the submission could be graded (its module does not import,
    /// it does not compile: the report's `summary.gradable`); `fault_summary` then begins
    /// `not gradable: `. Left out when true.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub gradable: bool,
    /// Each scenario's status, by scenario id.
    pub scenarios: BTreeMap<String, Status>,
    /// `grade --marking`: the marking sheet's columns, in the scheme's order (each
    /// criterion's mark, blank for the marker's; the automatic total and the cap; each
    /// figure's state and numbers).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marking: Vec<(String, String)>,
    /// The score per handout function or group of rules, by the suite's rubric (the
    /// report's `rubric`), in the rubric's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rubric: Vec<PartRow>,
}

/// One part of the rubric in a submission's row.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct PartRow {
    /// The part (`is_sunk`, `penalties`); prefixed `ASSIGNMENT:` when the run grades several.
    pub part: String,
    pub score: f64,
    pub max_score: f64,
}

/// How the class did on one scenario.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct ScenarioRate {
    pub id: String,
    pub title: String,
    pub path: String,
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
    /// (failed + errors) / submissions, rounded to 4 decimals.
    pub failure_rate: f64,
}

impl ClassSummary {
    /// The summary of `graded` (submission id, its report).
    ///
    /// Errors: two reports were graded against different scenarios (shards or resumed
    /// reports of another suite), naming the first submission that differs.
    pub fn build(
        title: Option<String>,
        shard: Option<String>,
        graded: &[(String, Report)],
        not_graded: Vec<String>,
    ) -> Result<ClassSummary, GradeError> {
        let mut graded: Vec<&(String, Report)> = graded.iter().collect();
        graded.sort_by(|a, b| a.0.cmp(&b.0));
        let paths =
            |r: &Report| -> Vec<String> { r.scenarios.iter().map(|s| s.path.clone()).collect() };
        let first = graded.first().map(|(_, r)| paths(r)).unwrap_or_default();
        if let Some((id, _)) = graded.iter().find(|(_, r)| paths(r) != first) {
            return Err(GradeError::Input(format!(
                "the report of `{id}` was graded against other scenarios than the report of `{}`; grade them against the same suites",
                graded[0].0
            )));
        }
        let ids = scenario_ids(first.iter().map(String::as_str));
        let mut rates: Vec<ScenarioRate> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| {
                let count = |st: Status| {
                    graded
                        .iter()
                        .filter(|(_, r)| r.scenarios[i].status == st)
                        .count()
                };
                let (passed, failed, errors) = (
                    count(Status::Passed),
                    count(Status::Failed),
                    count(Status::Error),
                );
                let n = graded.len().max(1) as f64;
                ScenarioRate {
                    id: id.clone(),
                    title: graded[0].1.scenarios[i].title.clone(),
                    path: first[i].clone(),
                    passed,
                    failed,
                    errors,
                    failure_rate: round_to((failed + errors) as f64 / n, 4),
                }
            })
            .collect();
        rates.sort_by(|a, b| {
            b.failure_rate
                .total_cmp(&a.failure_rate)
                .then_with(|| a.id.cmp(&b.id))
        });
        let submissions = graded
            .iter()
            .map(|(id, r)| SubmissionRow {
                id: id.clone(),
                folder: r.folder.clone().filter(|f| f != id),
                score: r.summary.score,
                max_score: r.summary.max_score,
                points: r.summary.points,
                max_points: r.summary.max_points,
                passed: r.summary.passed,
                failed: r.summary.failed,
                errors: r.summary.errors,
                faults: fault_kinds(r),
                fault_summary: match &r.summary.not_gradable {
                    Some(why) => format!("not gradable: {}", headline(why)),
                    None => fault_summary(r),
                },
                gradable: r.summary.gradable,
                scenarios: ids
                    .iter()
                    .cloned()
                    .zip(r.scenarios.iter().map(|s| s.status))
                    .collect(),
                marking: r.marking.as_ref().map(marking_columns).unwrap_or_default(),
                rubric: part_rows(r),
            })
            .collect();
        Ok(ClassSummary {
            format_version: FORMAT_VERSION,
            tool: format!("broadside {}", env!("CARGO_PKG_VERSION")),
            title,
            shard,
            submissions,
            not_graded,
            scenarios: rates,
        })
    }

    /// `summary.json`: pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a summary always serializes");
        s.push('\n');
        s
    }

    /// `summary.csv`: a header, then one row per submission (an id a spreadsheet would read as
    /// a formula gets a leading `'`): `submission`, then `folder` when any row has one (see
    /// [`SubmissionRow::folder`]; blank for the others), `score, max_score,
    /// points, max_points, passed, failed, errors, faults, fault_summary`, then the marking
    /// sheet's columns (`--marking`), each rubric part's score (`rubric:PART`), then each
    /// scenario's status (`passed`, `failed` or `error`), one column per scenario id in path
    /// order.
    pub fn to_csv(&self) -> String {
        let columns: Vec<String> = self
            .submissions
            .first()
            .map(|_| self.scenario_order())
            .unwrap_or_default();
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header: Vec<String> = [
            "submission",
            "score",
            "max_score",
            "points",
            "max_points",
            "passed",
            "failed",
            "errors",
            "faults",
            "fault_summary",
        ]
        .map(String::from)
        .to_vec();
        // Every submission's columns, in the order they first come: a figure's numbers are
        // there only when it measured something (no tests file: no `figure:tests.caught`).
        let mut marking: Vec<String> = Vec::new();
        for row in &self.submissions {
            for (c, _) in &row.marking {
                if !marking.contains(c) {
                    let at = marking
                        .iter()
                        .position(|m| m.split('.').next() == c.split('.').next())
                        .map_or(marking.len(), |i| {
                            i + marking[i..]
                                .iter()
                                .take_while(|m| m.split('.').next() == c.split('.').next())
                                .count()
                        });
                    marking.insert(at, c.clone());
                }
            }
        }
        let folders = self.submissions.iter().any(|r| r.folder.is_some());
        if folders {
            header.insert(1, "folder".to_string());
        }
        header.extend(marking.iter().cloned());
        // The rubric's parts, in the order they first come.
        let mut parts: Vec<&str> = Vec::new();
        for row in &self.submissions {
            for p in &row.rubric {
                if !parts.contains(&p.part.as_str()) {
                    parts.push(&p.part);
                }
            }
        }
        header.extend(parts.iter().map(|p| format!("rubric:{p}")));
        header.extend(columns.iter().cloned());
        w.write_record(&header).expect("writing to memory");
        for row in &self.submissions {
            let mut rec = vec![
                spreadsheet_safe(&row.id),
                row.score.to_string(),
                row.max_score.to_string(),
                row.points.to_string(),
                row.max_points.to_string(),
                row.passed.to_string(),
                row.failed.to_string(),
                row.errors.to_string(),
                row.faults.join(" "),
                spreadsheet_safe(&row.fault_summary),
            ];
            if folders {
                rec.insert(
                    1,
                    spreadsheet_safe(row.folder.as_deref().unwrap_or_default()),
                );
            }
            rec.extend(marking.iter().map(|c| {
                row.marking
                    .iter()
                    .find(|(k, _)| k == c)
                    .map_or(String::new(), |(_, v)| spreadsheet_safe(v))
            }));
            rec.extend(parts.iter().map(|p| {
                row.rubric
                    .iter()
                    .find(|r| r.part == *p)
                    .map_or(String::new(), |r| r.score.to_string())
            }));
            rec.extend(columns.iter().map(|c| {
                row.scenarios
                    .get(c)
                    .map_or(String::new(), |s| status_word(*s).to_string())
            }));
            w.write_record(&rec).expect("writing to memory");
        }
        String::from_utf8(w.into_inner().expect("writing to memory")).expect("CSV of UTF-8 text")
    }

    /// Scenario ids in path order (not the hardest-first order of `scenarios`).
    fn scenario_order(&self) -> Vec<String> {
        let mut by_path: Vec<&ScenarioRate> = self.scenarios.iter().collect();
        by_path.sort_by(|a, b| a.path.cmp(&b.path));
        by_path.into_iter().map(|s| s.id.clone()).collect()
    }
}

/// A report's rubric table as a row's parts, scores rounded to 2 decimals.
fn part_rows(r: &crate::report::Report) -> Vec<PartRow> {
    let several = crate::report::rubric::spans_assignments(&r.rubric);
    let round2 = |v: f64| crate::report::round_to(v, 2);
    r.rubric
        .iter()
        .map(|p| PartRow {
            part: if several {
                format!("{}:{}", p.assignment, p.part)
            } else {
                p.part.clone()
            },
            score: round2(p.score),
            max_score: round2(p.max_score),
        })
        .collect()
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// A marking sheet as summary columns: `mark:<criterion>/<weight>` (blank for the marker to
/// fill), `mark:automatic`, `mark:capped_at`, then `figure:<id>` (its state) and
/// `figure:<id>.<number>`.
fn marking_columns(sheet: &crate::marking::Sheet) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for c in &sheet.criteria {
        out.push((
            format!("mark:{}/{}", c.id, c.weight),
            c.mark.map(|m| m.to_string()).unwrap_or_default(),
        ));
    }
    out.push(("mark:automatic".into(), sheet.automatic.to_string()));
    out.push((
        "mark:capped_at".into(),
        sheet.capped_at.map(|c| c.to_string()).unwrap_or_default(),
    ));
    for f in &sheet.figures {
        let state = serde_json::to_value(f.state)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        out.push((format!("figure:{}", f.id), state));
        for (name, v) in &f.numbers {
            out.push((format!("figure:{}.{name}", f.id), v.to_string()));
        }
    }
    out
}

/// [`SubmissionRow::faults`] of `r`.
fn fault_kinds(r: &Report) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    let scenarios = r.scenarios.iter().filter_map(|s| s.fault.as_ref());
    for f in scenarios.chain(&r.faults) {
        let kind = f.kind.word();
        if !kinds.iter().any(|k| k == kind) {
            kinds.push(kind.to_string());
        }
    }
    kinds
}

/// [`SubmissionRow::fault_summary`] of `r`.
fn fault_summary(r: &Report) -> String {
    // Kinds in the order a scenario first met them, each with its messages' headlines.
    let mut kinds: Vec<(&str, Vec<String>)> = Vec::new();
    for f in r.scenarios.iter().filter_map(|s| s.fault.as_ref()) {
        let line = headline(&f.message);
        match kinds.iter_mut().find(|(k, _)| *k == f.kind.word()) {
            Some((_, lines)) => lines.push(line),
            None => kinds.push((f.kind.word(), vec![line])),
        }
    }
    let mut parts: Vec<String> = kinds
        .into_iter()
        .map(|(kind, lines)| {
            let n = lines.len();
            let scenarios = if n == 1 { "scenario" } else { "scenarios" };
            let said = most_said(&lines);
            match said.as_slice() {
                [] => format!("{kind} in {n} {scenarios}"),
                [(one, _)] => format!("{kind} in {n} {scenarios}: {one}"),
                many => {
                    let shown: Vec<String> = many
                        .iter()
                        .take(2)
                        .map(|(l, c)| format!("{l} ({c})"))
                        .collect();
                    let more = match many.len() {
                        0..=2 => String::new(),
                        m => format!(", {} more", m - 2),
                    };
                    format!("{kind} in {n} {scenarios}: {}{more}", shown.join(", "))
                }
            }
        })
        .collect();
    parts.extend(r.faults.iter().map(|f| match headline(&f.message) {
        l if l.is_empty() => f.kind.word().to_string(),
        l => format!("{}: {l}", f.kind.word()),
    }));
    parts.join("; ")
}

/// The distinct non-empty `lines` with how often each comes, most frequent first (ties in
/// the order they first came).
fn most_said(lines: &[String]) -> Vec<(&str, usize)> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for l in lines.iter().filter(|l| !l.is_empty()) {
        match counts.iter_mut().find(|(s, _)| *s == l.as_str()) {
            Some((_, c)) => *c += 1,
            None => counts.push((l.as_str(), 1)),
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    counts
}

/// The line of a fault message that says what went wrong, at most 120 characters of it:
/// after a Python traceback its exception line (`TypeError: …`), otherwise the first
/// line. "while reading the state at the end: " is dropped, so the same fault at the end
/// of a scenario and in its middle read alike.
fn headline(message: &str) -> String {
    let mut lines = crate::report::core_message(message).lines();
    let first = lines.clone().find(|l| !l.trim().is_empty()).unwrap_or("");
    let line = match lines.position(|l| l.starts_with("Traceback (most recent call last)")) {
        Some(_) => lines
            .find(|l| !l.starts_with(char::is_whitespace) && !l.is_empty())
            .unwrap_or(first),
        None => first,
    };
    let line = line.trim();
    let mut out: String = line.chars().take(120).collect();
    if line.chars().count() > 120 {
        out.push('…');
    }
    out
}

/// A submission id as a CSV cell a spreadsheet shows as text: one starting with `=`, `+`,
/// `-` or `@` (read as a formula) gets a leading `'`.
fn spreadsheet_safe(id: &str) -> String {
    if id.starts_with(['=', '+', '-', '@']) {
        format!("'{id}")
    } else {
        id.to_string()
    }
}

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Passed => "passed",
        Status::Failed => "failed",
        Status::Error => "error",
        Status::NotGraded => "not graded",
    }
}

/// The reports of the submissions `ids` under `dir` (`<id>/report.json`), in that order.
/// Other folders there (a report left from an older run) are not read.
///
/// Errors: a report that is missing, cannot be read or is not a broadside report.
pub fn read_graded(dir: &Utf8Path, ids: &[String]) -> Result<Vec<(String, Report)>, GradeError> {
    ids.iter()
        .map(|id| {
            let file = dir.join(id).join("report.json");
            let text = std::fs::read_to_string(&file)
                .map_err(|e| GradeError::Input(format!("cannot read {file}: {e}")))?;
            let report: Report = serde_json::from_str(&text)
                .map_err(|e| GradeError::Input(format!("{file} is not a broadside report: {e}")))?;
            Ok((id.clone(), report))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_fault_headline_is_the_exception_line_after_a_traceback() {
        let crash = "the program ended with an error:\nTraceback (most recent call last):\n  File \"battleships.py\", line 144, in main\n    shot = read_shot()\nValueError: invalid literal for int() with base 10: 'abc'\nThe conversation's last lines:\nFire!";
        assert_eq!(
            super::headline(crash),
            "ValueError: invalid literal for int() with base 10: 'abc'"
        );
        assert_eq!(
            super::headline(
                "while reading the state at the end: `ship_type` is not defined in battleships.py\n"
            ),
            "`ship_type` is not defined in battleships.py"
        );
        assert_eq!(super::headline(&"x".repeat(300)).chars().count(), 121);
    }

    #[test]
    fn ids_that_look_like_formulas_stay_text() {
        assert_eq!(super::spreadsheet_safe("=cmd|x"), "'=cmd|x");
        assert_eq!(super::spreadsheet_safe("-leading-dash"), "'-leading-dash");
        assert_eq!(super::spreadsheet_safe("alice"), "alice");
    }
}
