//! Who a report is for: staff see everything; students never see a hidden scenario's steps.
//!
//! The student view is a [`Report`] too, so every format can show it. A hidden scenario keeps
//! its title, points and status (when the suite allows, [`HiddenResults::Status`]) but loses
//! its divergence and fault message; with [`HiddenResults::None`] it is left out of the list
//! while the summary still counts it, so the score is the same in both views.

use super::{Report, ScenarioResult};
use crate::scenario::Visibility;
use crate::target::Fault;
use serde::{Deserialize, Serialize};

/// What students may see of a hidden scenario (`hidden_results` in `suite.toml`).
///
/// Ordered from strictest: several suites together use the strictest setting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HiddenResults {
    /// Nothing: the scenario is counted in the score but not listed.
    #[default]
    None,
    /// Its title, points and whether it passed; never its steps or expectations.
    Status,
}

/// Who a report view is for (`--audience`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Audience {
    /// Course staff: every scenario in full.
    #[default]
    Staff,
    /// A student: hidden and after-due-date scenarios without their details.
    Student,
}

/// The student view of `report`: scenarios that are not [`Visibility::Visible`] lose their
/// details; hidden ones are dropped entirely under [`HiddenResults::None`]. After-due-date
/// scenarios always keep their status (they become visible later anyway).
///
/// The summary keeps the whole score (hidden scenarios count toward it) but counts only the
/// scenarios listed, so no count gives away how a hidden scenario went. Notes on how the
/// submission was contained are for staff and left out.
pub fn for_students(report: &Report, hidden: HiddenResults) -> Report {
    let mut out = report.clone();
    out.notes.clear();
    let dropped = out
        .scenarios
        .iter()
        .filter(|r| r.visibility == Visibility::Hidden && hidden == HiddenResults::None)
        .count();
    out.scenarios = report
        .scenarios
        .iter()
        .filter(|r| !(r.visibility == Visibility::Hidden && hidden == HiddenResults::None))
        .map(|r| {
            if r.visibility == Visibility::Visible {
                r.clone()
            } else {
                redacted(r)
            }
        })
        .collect();
    let listed = super::Summary::of(&out.scenarios);
    out.summary = super::Summary {
        points: report.summary.points,
        max_points: report.summary.max_points,
        score: report.summary.score,
        max_score: report.summary.max_score,
        ..listed
    };
    if dropped > 0 {
        out.notes.push(format!(
            "{dropped} hidden {} counted in the score but not listed",
            if dropped == 1 {
                "scenario is"
            } else {
                "scenarios are"
            }
        ));
    }
    out
}

/// `r` without its steps, expectations, divergence, fault message or tags (a tag such as
/// `function:ship_type` says what a hidden scenario tests).
pub fn redacted(r: &ScenarioResult) -> ScenarioResult {
    ScenarioResult {
        divergence: None,
        later: Vec::new(),
        checks: 0,
        checks_passed: 0,
        rules: Vec::new(),
        conventions: Vec::new(),
        tags: Vec::new(),
        steps: 0,
        fault: r.fault.as_ref().map(|f| Fault {
            kind: f.kind,
            message: String::new(),
        }),
        steps_run: 0,
        details_hidden: true,
        ..r.clone()
    }
}
