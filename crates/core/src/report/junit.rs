//! The JUnit XML view (quick-junit), for CI systems: one testsuite per assignment, one
//! testcase per scenario; a wrong answer is a `failure`, a fault an `error`, and faults of
//! the submission as a whole an `error` testcase of their own.
//!
//! Every `testsuite` carries its `time` (the sum of its cases': CI report actions divide by
//! it), and every `testcase` its scenario `file` and, when a check diverged, the `line` of
//! that check, so an annotation lands on the scenario. An `error` says what happened in its
//! message (`timeout: no answer within 5 s`), not only the fault's kind.

use super::text::details;
use super::{Report, Status, scenario_ids};
use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};
use std::collections::BTreeMap;
use std::time::Duration;

/// The report as JUnit XML. Times come from `elapsed_ms` (timing: redacted in snapshots).
pub fn to_junit(report: &Report) -> String {
    let mut out = quick_junit::Report::new("broadside");
    out.set_time(Duration::from_millis(report.elapsed_ms));
    let ids = scenario_ids(report.scenarios.iter().map(|r| r.path.as_str()));
    let mut suites: BTreeMap<&str, TestSuite> = BTreeMap::new();
    for (r, id) in report.scenarios.iter().zip(ids) {
        let status = match (r.status, &r.divergence, &r.fault) {
            (Status::Passed, _, _) => TestCaseStatus::success(),
            (Status::Failed, d, _) => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                if let Some(d) = d {
                    s.set_message(format!(
                        "{}: expected {} but got {}",
                        d.check,
                        one_line(&d.expected),
                        one_line(&d.actual)
                    ));
                }
                s.set_type("wrong answer").set_description(details(r));
                s
            }
            (Status::Error | Status::NotGraded, _, f) => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
                if let Some(f) = f {
                    s.set_message(fault_message(f)).set_type(f.kind.word());
                }
                s.set_description(details(r));
                s
            }
        };
        let mut case = TestCase::new(id, status);
        case.set_classname(format!("{}.{}", r.assignment, r.mode))
            .set_time(Duration::from_millis(r.elapsed_ms));
        case.extra.insert("file".into(), r.path.as_str().into());
        if let Some(d) = &r.divergence {
            case.extra.insert("line".into(), d.line.to_string().into());
        }
        let suite = suites
            .entry(r.assignment.as_str())
            .or_insert_with(|| TestSuite::new(r.assignment.clone()));
        let time = suite.time.unwrap_or_default() + Duration::from_millis(r.elapsed_ms);
        suite.set_time(time).add_test_case(case);
    }
    out.add_test_suites(suites.into_values());
    if !report.faults.is_empty() {
        let mut suite = TestSuite::new("submission");
        suite.set_time(Duration::ZERO);
        for f in &report.faults {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
            s.set_message(fault_message(f))
                .set_type(f.kind.word())
                .set_description(f.message.clone());
            suite.add_test_case(TestCase::new(format!("submission {}", f.kind.word()), s));
        }
        out.add_test_suite(suite);
    }
    out.to_string().expect("a JUnit report always serializes")
}

/// `kind: first line of the message`, at most 200 characters of it: the one line a CI
/// annotation shows. The description keeps the whole message.
fn fault_message(f: &crate::fault::Fault) -> String {
    let first: String = f
        .message
        .lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(200)
        .collect();
    if first.is_empty() {
        f.kind.word().to_string()
    } else {
        format!("{}: {first}", f.kind.word())
    }
}

/// Multi-line values (boards) folded onto one line for a failure message.
fn one_line(s: &str) -> String {
    s.lines().collect::<Vec<_>>().join(" / ")
}
