//! Who a report is for: staff see everything; students never see a hidden scenario's steps.
//!
//! The student view is a [`Report`] too, so every format can show it. A hidden scenario keeps
//! its title, points and status (when the suite allows, [`HiddenResults::Status`]) but loses
//! its divergence and fault message; with [`HiddenResults::None`] it is left out of the list
//! while the summary still counts it, so the score is the same in both views.

use super::{Report, ScenarioResult};
use crate::fault::Fault;
use crate::scenario::Visibility;
use serde::{Deserialize, Serialize};

/// What students may see of a hidden scenario (`hidden_results` in `suite.toml`).
///
/// Ordered from strictest. Suites of one run that give it differently are refused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HiddenResults {
    /// Nothing: the scenario is counted in the score but not listed.
    #[default]
    None,
    /// Its title, points and whether it passed; never its steps or expectations.
    Status,
}

/// The student view of `report`: scenarios that are not [`Visibility::Visible`] lose their
/// details; hidden ones are dropped entirely under [`HiddenResults::None`]. After-due-date
/// scenarios always keep their status (they become visible later anyway).
///
/// The summary keeps the whole score (hidden scenarios count toward it) but counts only the
/// scenarios listed, so no count gives away how a hidden scenario went. Notes on how the
/// submission was contained are for staff and left out.
///
/// It names no folder of the grader's ([`without_grader_paths`]).
pub fn for_students(report: &Report, hidden: HiddenResults) -> Report {
    let report = &without_grader_paths(report);
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
    // What the submission's code could see may be in what it left running (a command line
    // holding a hidden scenario's ships): with anything hidden, staff alone see the list.
    if report
        .scenarios
        .iter()
        .any(|r| r.visibility != Visibility::Visible)
    {
        for f in &mut out.faults {
            f.message = student_fault_message(f);
        }
        // The parts keep their scores (the grade, as the total is), not how many checks
        // judged them: that would count a hidden scenario's checks.
        for p in &mut out.rubric {
            p.checks = 0.0;
            p.passed = 0.0;
        }
        // No timing of a hidden scenario, not even as the total less the listed ones: a
        // submission that sleeps in proportion to a hidden cell would read it back.
        out.elapsed_ms = out
            .scenarios
            .iter()
            .filter(|r| r.visibility == Visibility::Visible)
            .map(|r| r.elapsed_ms)
            .sum();
    }
    let listed = super::Summary::of(&out.scenarios);
    out.summary = super::Summary {
        points: report.summary.points,
        max_points: report.summary.max_points,
        score: report.summary.score,
        max_score: report.summary.max_score,
        gradable: report.summary.gradable,
        not_gradable: report.summary.not_gradable.clone(),
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

/// `report` naming no folder of the grader's, for the views that leave the course staff's
/// hands (the student views, the class report): each scenario's `path` is its file as named
/// within its suite, without the folder every scenario of the report shares
/// (`/srv/grading/suite/hidden/b.toml` reads `hidden/b.toml`; the ids every view names
/// scenarios by, `.toml` kept), and each path in `target` is cut to its last part
/// (`python:/srv/grading/class/alice` reads `python:alice`). So `grade --suite /abs/path`
/// and PrairieLearn's `run /grade/tests/...` say "line 12 of 01-perfect-game.toml". The
/// staff files (`report.json`, `junit.xml`, the summary) keep the paths as given, which is
/// where the instructor's files are.
pub fn without_grader_paths(report: &Report) -> Report {
    let mut out = report.clone();
    let paths = super::model::relative_paths(report.scenarios.iter().map(|r| r.path.as_str()));
    for (r, path) in out.scenarios.iter_mut().zip(paths) {
        r.path = path;
    }
    out.target = last_parts(&report.target);
    out
}

/// `target` with each path in it cut to its last part: a word (between spaces, quotes and
/// `=`) holding a `/` keeps what follows its last `/`, and a `KIND:` before it
/// (`python:/srv/class/alice` reads `python:alice`; `cmd:"python3 /srv/driver.py"` reads
/// `cmd:"python3 driver.py"`).
fn last_parts(target: &str) -> String {
    fn cut(word: &str) -> String {
        if !word.contains('/') {
            return word.to_string();
        }
        let (kind, path) = match word.split_once(':') {
            Some((kind, path)) if !kind.contains('/') => (&word[..=kind.len()], path),
            _ => ("", word),
        };
        let trimmed = path.trim_end_matches('/');
        match trimmed.rsplit('/').next() {
            Some(last) if !last.is_empty() => format!("{kind}{last}"),
            _ => word.to_string(),
        }
    }
    let mut out = String::new();
    let mut word = String::new();
    for c in target.chars() {
        if c.is_whitespace() || matches!(c, '\'' | '"' | '=') {
            out.push_str(&cut(&word));
            word.clear();
            out.push(c);
        } else {
            word.push(c);
        }
    }
    out.push_str(&cut(&word));
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
        elapsed_ms: 0,
        details_hidden: true,
        ..r.clone()
    }
}

/// A fault of the whole submission as a student may read it when some scenario is hidden:
/// its kind and what it means, without what the submission's processes carried.
fn student_fault_message(f: &Fault) -> String {
    match f.kind {
        crate::fault::FaultKind::Leak => "processes the submission started were still running after it was done and were killed (course staff see their command lines; a submission must not leave processes behind)".into(),
        _ => f.message.lines().next().unwrap_or_default().chars().take(200).collect(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_target_keeps_the_last_part_of_each_path() {
        use super::last_parts;
        assert_eq!(last_parts("python:/srv/class/alice"), "python:alice");
        assert_eq!(last_parts("python:/srv/class/alice/"), "python:alice");
        assert_eq!(last_parts("python:battleships.py"), "python:battleships.py");
        assert_eq!(last_parts("reference"), "reference");
        assert_eq!(
            last_parts("cmd:\"python3 /srv/driver.py '/srv/class/bob' --x=/opt/y\""),
            "cmd:\"python3 driver.py 'bob' --x=y\""
        );
    }
}
