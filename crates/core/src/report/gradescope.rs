//! The Gradescope view: the `results.json` a Gradescope autograder's `run_autograder` writes.
//!
//! Fields follow Gradescope's "Autograder Specifications" (results.json): top level `score`,
//! `execution_time` (seconds), `output`, `output_format`, `visibility`, `stdout_visibility`,
//! `tests`; each test `name`, `score`, `max_score`, `status` (`passed` | `failed`),
//! `visibility` (`visible` | `hidden` | `after_due_date` | `after_published`), `tags`,
//! `output`, `output_format`. This view is what students see, so hidden scenarios never carry
//! their steps: under `hidden_results = "status"` they are listed as visible tests with their
//! status only, otherwise as Gradescope `hidden` tests (staff see them, students do not).
//! After-due-date scenarios keep their details with Gradescope's own `after_due_date`, which
//! Gradescope enforces.

use super::text::{details, scaled};
use super::view::{HiddenResults, redacted};
use super::{Report, Status};
use crate::scenario::Visibility;
use serde::Serialize;

/// A Gradescope `results.json`.
#[derive(Debug, Serialize)]
pub struct Results {
    pub score: f64,
    /// Whole seconds the run took (timing: redacted in snapshots).
    pub execution_time: u64,
    pub output: String,
    pub output_format: &'static str,
    pub visibility: &'static str,
    pub stdout_visibility: &'static str,
    pub tests: Vec<Test>,
}

/// One Gradescope test: one scenario.
#[derive(Debug, Serialize)]
pub struct Test {
    pub name: String,
    pub score: f64,
    pub max_score: f64,
    pub status: &'static str,
    pub visibility: &'static str,
    pub tags: Vec<String>,
    pub output: String,
    pub output_format: &'static str,
}

/// The report as Gradescope results (see the module doc for how visibility maps).
pub fn gradescope(report: &Report, hidden: HiddenResults) -> Results {
    // Students read it: no folder of the grader's (`line 12 of 01-perfect-game.toml`).
    let report = &super::view::without_grader_paths(report);
    let ids = super::scenario_ids(report.scenarios.iter().map(|r| r.path.as_str()));
    let tests = report
        .scenarios
        .iter()
        .zip(ids)
        .map(|(r, id)| {
            let (visibility, shown) = match (r.visibility, hidden) {
                (Visibility::Visible, _) => ("visible", r.clone()),
                (Visibility::AfterDueDate, _) => ("after_due_date", r.clone()),
                (Visibility::Hidden, HiddenResults::Status) => ("visible", redacted(r)),
                (Visibility::Hidden, HiddenResults::None) => ("hidden", redacted(r)),
            };
            let mut tags = vec![r.assignment.clone()];
            tags.extend(shown.tags.iter().cloned());
            let output = match r.status {
                Status::Passed => String::new(),
                _ => details(&shown).trim_end().to_string(),
            };
            // Left not graded by broadside's own failure: worth nothing either way.
            let max_score = if r.status == Status::NotGraded {
                0.0
            } else {
                r.max_score
            };
            Test {
                name: format!("{id}: {}", r.title),
                score: super::model::round_to(r.score, 4),
                max_score: super::model::round_to(max_score, 4),
                status: if r.status == Status::Passed {
                    "passed"
                } else {
                    "failed"
                },
                visibility,
                tags,
                output,
                output_format: "text",
            }
        })
        .collect::<Vec<Test>>();
    let mut tests = tests;
    if let Some(sheet) = &report.marking {
        tests.extend(marking_tests(sheet));
    }
    let student = super::view::for_students(report, hidden);
    let output = student_output(report, &student);
    Results {
        score: student.summary.score,
        execution_time: student.elapsed_ms.div_ceil(1000),
        output,
        output_format: "text",
        visibility: "visible",
        stdout_visibility: "hidden",
        tests,
    }
}

/// The text a student reads first, above the tests (Gradescope's `output`, PrairieLearn's
/// `output`): the counts as `student` (the student view of `report`) may show them, one line
/// per student function at fault, a fault every scenario shares said once, the faults of
/// the submission as a whole and the notes.
pub(super) fn student_output(report: &Report, student: &Report) -> String {
    let s = &student.summary;
    let mut output = format!(
        "{}: {} of {} scenarios passed, {}/{} points{}.\n",
        report.tool,
        s.passed,
        s.scenarios,
        s.points,
        s.max_points,
        scaled(s)
    );
    let table = super::rubric::table(&student.rubric);
    if !table.is_empty() {
        output.push_str(&format!("\n{table}"));
    }
    // Nothing could be graded (the module does not import): that, before anything else.
    if let Some(why) = &report.summary.not_gradable {
        output.push_str(&format!(
            "\nNot gradable: nothing of the submission could be graded, so it scores 0.\n{why}\n"
        ));
    }
    // The cause first: one line per student function at fault (visible failures only).
    let causes = super::causes::causes(student);
    if !causes.is_empty() {
        output.push('\n');
    }
    for c in &causes {
        output.push_str(&super::causes::line(c, c.scenario.name()));
        output.push('\n');
    }
    // A submission that fails every scenario the same way (it cannot be imported or built):
    // say so once at the top, where a student looks first.
    let faults: Vec<&crate::fault::Fault> = report
        .scenarios
        .iter()
        .filter_map(|r| r.fault.as_ref())
        .collect();
    if !report.scenarios.is_empty()
        && faults.len() == report.scenarios.len()
        && faults.windows(2).all(|w| {
            w[0].kind == w[1].kind
                && super::text::core_message(&w[0].message)
                    == super::text::core_message(&w[1].message)
        })
        && !faults[0].message.is_empty()
        && report
            .scenarios
            .iter()
            .all(|r| r.visibility == Visibility::Visible)
    {
        output.push_str(&format!(
            "\nEvery scenario failed the same way ({}):\n{}\n",
            faults[0].kind.word(),
            super::text::core_message(&faults[0].message)
        ));
    }
    for f in &student.faults {
        output.push_str(&format!(
            "\nThe submission as a whole: {}\n{}\n",
            f.kind.word(),
            f.message
        ));
    }
    for n in &student.notes {
        output.push_str(&format!("\nnote: {n}\n"));
    }
    output
}

/// The Gradescope results as pretty JSON with a trailing newline.
pub fn to_gradescope(report: &Report, hidden: HiddenResults) -> String {
    let mut s = serde_json::to_string_pretty(&gradescope(report, hidden))
        .expect("gradescope results always serialize");
    s.push('\n');
    s
}

/// The marking sheet's figures as Gradescope tests worth no points (the score stays the
/// behaviour suite's): each passes when nothing is short of the handout's rule.
fn marking_tests(sheet: &super::marking::Sheet) -> Vec<Test> {
    use super::marking::FigureState;
    sheet
        .figures
        .iter()
        .map(|f| {
            let mut output = f.summary.clone();
            for row in &f.functions {
                for u in &row.untested {
                    output.push_str(&format!("\nuntested: {}: {u}", row.function));
                }
            }
            for l in &f.lines {
                output.push('\n');
                output.push_str(l);
            }
            Test {
                name: format!("marking: {}", f.title),
                score: 0.0,
                max_score: 0.0,
                status: if matches!(f.state, FigureState::Short | FigureState::Missing) {
                    "failed"
                } else {
                    "passed"
                },
                visibility: "visible",
                tags: vec![sheet.assignment.clone(), "marking".to_string()],
                output,
                output_format: "text",
            }
        })
        .collect()
}
