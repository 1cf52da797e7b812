//! The report data model every format is a view of.

use crate::scenario::{Scenario, Visibility};
use crate::target::Fault;
use serde::Serialize;

/// The JSON report's `format_version`; bumped on any incompatible change of shape.
pub const FORMAT_VERSION: u32 = 1;

/// A whole run: one target against a list of scenarios.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub format_version: u32,
    /// `broadside <version>`.
    pub tool: String,
    pub target: String,
    pub summary: Summary,
    pub scenarios: Vec<ScenarioResult>,
    /// Faults of the submission as a whole, outside any scenario (a `leak`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<Fault>,
    /// How the target was contained, where it matters (e.g. no network isolation).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Counts over the scenarios of a report.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Summary {
    pub scenarios: usize,
    pub passed: usize,
    pub failed: usize,
    /// Scenarios the target could not finish (a fault, not a wrong answer).
    pub errors: usize,
    pub points: u32,
    pub max_points: u32,
}

/// How a scenario ended.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Passed,
    /// The target answered, but not as expected.
    Failed,
    /// The target did not answer (a fault).
    Error,
}

/// One scenario's result.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioResult {
    /// The scenario file, as given on the command line.
    pub path: String,
    pub assignment: String,
    pub mode: String,
    pub title: String,
    pub status: Status,
    pub points: u32,
    pub max_points: u32,
    pub visibility: Visibility,
    pub tags: Vec<String>,
    /// Steps in the scenario.
    pub steps: usize,
    /// Steps played before it ended (all of them when it passed).
    pub steps_run: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
}

/// Where and how a target first differed from the scenario.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Divergence {
    /// 1-based step number; `None` for the `[end]` checks.
    pub step: Option<usize>,
    /// 1-based line in the scenario file.
    pub line: usize,
    /// The action, in the assignment's notation (e.g. `fire B3`).
    pub action: String,
    /// `outcome`, or the state key that differed.
    pub check: String,
    pub expected: String,
    pub actual: String,
    /// The scenario author's note on the step, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// What the student's code printed during the step, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The board after the step as the reference plays it, ships shown, row 0 first.
    pub board: Vec<String>,
}

impl ScenarioResult {
    /// A result not yet decided (status `error` until the harness says otherwise).
    pub fn new(s: &Scenario) -> ScenarioResult {
        ScenarioResult {
            path: s.source.path.clone(),
            assignment: s.assignment.clone(),
            mode: s.rules.mode.clone(),
            title: s.title.clone(),
            status: Status::Error,
            points: 0,
            max_points: s.points,
            visibility: s.visibility,
            tags: s.tags.clone(),
            steps: s.steps.len(),
            steps_run: 0,
            divergence: None,
            fault: None,
        }
    }

    pub fn failed(mut self, d: Divergence) -> ScenarioResult {
        self.status = Status::Failed;
        self.divergence = Some(d);
        self
    }

    /// A fault while reading the `[end]` state, after every step was played.
    pub fn errored_at_end(mut self, f: Fault) -> ScenarioResult {
        let message = format!("while reading the state at the end: {}", f.message);
        self.status = Status::Error;
        self.steps_run = self.steps;
        self.fault = Some(Fault { message, ..f });
        self
    }

    pub fn errored(mut self, f: Fault, step: Option<usize>) -> ScenarioResult {
        self.status = Status::Error;
        self.steps_run = step.unwrap_or(0);
        self.fault = Some(f);
        self
    }
}

impl Report {
    /// A report over `results` for the target named `target`.
    pub fn new(target: String, results: Vec<ScenarioResult>) -> Report {
        let count = |st: Status| results.iter().filter(|r| r.status == st).count();
        let summary = Summary {
            scenarios: results.len(),
            passed: count(Status::Passed),
            failed: count(Status::Failed),
            errors: count(Status::Error),
            points: results.iter().map(|r| r.points).sum(),
            max_points: results.iter().map(|r| r.max_points).sum(),
        };
        Report {
            format_version: FORMAT_VERSION,
            tool: format!("broadside {}", env!("CARGO_PKG_VERSION")),
            target,
            summary,
            scenarios: results,
            faults: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Whether every scenario passed and the submission left nothing behind.
    pub fn all_passed(&self) -> bool {
        self.summary.passed == self.summary.scenarios && self.faults.is_empty()
    }
}
