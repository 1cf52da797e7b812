//! The PrairieLearn view: the `results.json` an external grader writes to
//! `/grade/results/results.json`.
//!
//! Fields follow PrairieLearn's "External Grading" documentation (Grading results): top level
//! `gradable`, `score` (0 to 1), `message`, `output`, `tests`; each test `name`,
//! `description`, `points`, `max_points`, `message`, `output`; `format_errors` when not
//! gradable. PrairieLearn shows every test to the student and has no visibility of its own, so
//! this is the student view: a hidden scenario is listed with its title, points and status
//! only under `hidden_results = "status"` and left out under `"none"` (its points still
//! count in `score`); an after-due-date scenario is listed without its details, since nothing
//! in PrairieLearn would hold them back until the date.
//!
//! `gradable` is false only where PrairieLearn's documentation puts it, "the input was
//! invalid or formatted incorrectly, for example if it has a syntax error that prevented
//! compilation": the report's summary says nothing of the submission could be graded (it
//! does not compile, its Python module does not import or defines none of the handout's
//! functions; [`super::Summary::gradable`]). PrairieLearn then
//! awards and takes no points and does not count the attempt; the compiler's message is in
//! `format_errors`. Any other fault (a crash, a timeout) is graded as it is everywhere else.

use super::text::{checked, details, one_line};
use super::view::{HiddenResults, for_students};
use super::{Report, Status};
use serde::Serialize;

/// A PrairieLearn `results.json`.
#[derive(Debug, Serialize)]
pub struct Results {
    pub gradable: bool,
    /// The score in [0, 1]; absent when not gradable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    pub message: String,
    pub output: String,
    /// Why the submission could not be graded (only when `gradable` is false).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub format_errors: Vec<String>,
    pub tests: Vec<Test>,
}

/// One PrairieLearn test: one scenario.
#[derive(Debug, Serialize)]
pub struct Test {
    pub name: String,
    pub description: String,
    pub points: f64,
    pub max_points: f64,
    /// One line: `passed`; for a wrong answer its first divergence as the text report says
    /// it, `CHECK (FUNCTION): expected X, got Y` (a board's rows joined by ` / `); for a
    /// fault its kind (`timeout`); `failed` when the details are not the student's to see.
    pub message: String,
    pub output: String,
}

/// The report as PrairieLearn results (see the module doc).
pub fn prairielearn(report: &Report, hidden: HiddenResults) -> Results {
    let student = for_students(report, hidden);
    let ids = super::scenario_ids(student.scenarios.iter().map(|r| r.path.as_str()));
    let tests: Vec<Test> = student
        .scenarios
        .iter()
        .zip(ids)
        .map(|(r, id)| Test {
            name: format!("{id}: {}", r.title),
            description: r.title.clone(),
            points: super::model::round_to(r.score, 4),
            max_points: super::model::round_to(r.max_score, 4),
            message: match (r.status, &r.divergence, &r.fault) {
                (Status::Passed, ..) => "passed".into(),
                // As the text report's line for a later divergence says it: the check with
                // the function it judges, what was expected and what the submission answered.
                (_, Some(d), _) => format!(
                    "{}: expected {}, got {}",
                    checked(d),
                    one_line(&d.expected),
                    one_line(&d.actual)
                ),
                (_, _, Some(f)) => f.kind.word().to_string(),
                _ => "failed".into(),
            },
            output: match r.status {
                Status::Passed => String::new(),
                _ => details(r).trim_end().to_string(),
            },
        })
        .collect();
    let output = super::gradescope::student_output(report, &student);
    let format_errors = not_gradable(report);
    let s = &student.summary;
    let harness = report.summary.not_graded > 0;
    let message = if harness {
        "broadside failed on its own side while grading, so the submission was not graded and the attempt does not count".into()
    } else if format_errors.is_empty() {
        format!("{} of {} scenarios passed", s.passed, s.scenarios)
    } else {
        "the submission could not be built or imported, so it was not graded and the attempt does not count"
            .into()
    };
    let gradable = format_errors.is_empty() && !harness;
    Results {
        gradable,
        score: gradable.then(|| {
            if s.max_score > 0.0 {
                super::model::round_to(s.score / s.max_score, 4)
            } else {
                0.0
            }
        }),
        message,
        output,
        format_errors,
        tests,
    }
}

/// The compiler's or interpreter's message when nothing of the submission could be graded
/// ([`super::Summary::gradable`]); empty when it is gradable.
fn not_gradable(report: &Report) -> Vec<String> {
    report.summary.not_gradable.iter().cloned().collect()
}

/// The PrairieLearn results as pretty JSON with a trailing newline.
pub fn to_prairielearn(report: &Report, hidden: HiddenResults) -> String {
    let mut s = serde_json::to_string_pretty(&prairielearn(report, hidden))
        .expect("PrairieLearn results always serialize");
    s.push('\n');
    s
}
