//! The report views beyond JSON and text: Gradescope `results.json`, JUnit XML and the
//! student view, over a suite with a hidden, an after-due-date and a scaled scenario
//! (`tests/fixtures/suite`). Snapshots pin each format; the Gradescope results are checked
//! against the field list of Gradescope's autograder specification; the JUnit XML is parsed.

use broadside::play::run_all;
use broadside::report::{
    HiddenResults, Report, Status, for_students, gradescope, scenario_line, to_gradescope,
    to_junit, to_prairielearn, to_text,
};
use broadside::scenario::Visibility;
use broadside::spec::SpecSet;
use broadside::target::Reference;
use quick_junit::NonSuccessKind;

const SUITE: &str = "tests/fixtures/suite";

fn suite_report() -> (Report, HiddenResults) {
    let (loaded, suites) = broadside::load::load_suites(&[SUITE.into()], &SpecSet::builtin());
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let report = Report::new(
        "reference".into(),
        run_all(&loaded.scenarios, &mut Reference::new()),
    );
    (report, suites.hidden_results())
}

fn hidden(report: &Report) -> &broadside::report::ScenarioResult {
    report
        .scenarios
        .iter()
        .find(|r| r.path.contains("hidden/"))
        .expect("the fixture has a hidden scenario")
}

#[test]
fn a_suite_scales_points_to_its_total_and_hides_its_hidden_folder() {
    let (report, policy) = suite_report();
    assert_eq!(policy, HiddenResults::Status);
    // 5 + 3 + 1 points scaled to 18: every point is worth 2.
    assert_eq!(report.summary.max_points, 9);
    assert_eq!(report.summary.max_score, 18.0);
    // Credit per check: 5 for the scenario passed, half of the hidden 3-point one's checks
    // and two thirds of the 1-point one's.
    assert_eq!(report.summary.points, 7.17);
    assert_eq!(report.summary.score, 14.33);
    assert_eq!(hidden(&report).visibility, Visibility::Hidden);
    assert_eq!(hidden(&report).max_score, 6.0);
    assert_eq!(hidden(&report).status, Status::Failed);
}

#[test]
fn the_student_view_never_shows_a_hidden_scenarios_steps() {
    let (report, _) = suite_report();
    assert!(
        hidden(&report).divergence.is_some(),
        "staff see the divergence"
    );
    let student = for_students(&report, HiddenResults::Status);
    let h = hidden(&student);
    assert!(h.divergence.is_none() && h.details_hidden);
    assert_eq!(h.status, Status::Failed, "the suite allows the status");
    let text = to_text(&student, false);
    assert!(!text.contains("expected"), "{text}");
    assert!(text.contains("details hidden"), "{text}");
    // With `hidden_results = "none"` the scenario is not listed and no count gives its status
    // away, yet its share of the score still counts.
    let none = for_students(&report, HiddenResults::None);
    assert!(none.scenarios.iter().all(|r| !r.path.contains("hidden/")));
    assert_eq!(
        (none.summary.scenarios, none.summary.failed),
        (2, 1),
        "the listed scenarios only"
    );
    assert_eq!(none.summary.score, report.summary.score);
    assert_eq!(none.summary.max_score, report.summary.max_score);
    assert!(none.notes.iter().any(|n| n.contains("1 hidden scenario")));
    // Tags say what a hidden scenario tests: gone from the student's view.
    assert!(h.tags.is_empty() && h.steps == 0);
}

/// Gradescope's documented results.json fields (Autograder Specifications).
const TOP_FIELDS: [&str; 11] = [
    "score",
    "execution_time",
    "output",
    "output_format",
    "test_output_format",
    "test_name_format",
    "visibility",
    "stdout_visibility",
    "extra_data",
    "tests",
    "leaderboard",
];
const TEST_FIELDS: [&str; 12] = [
    "score",
    "max_score",
    "status",
    "name",
    "name_format",
    "number",
    "output",
    "output_format",
    "tags",
    "visibility",
    "extra_data",
    "field",
];
const VISIBILITIES: [&str; 4] = ["hidden", "after_due_date", "after_published", "visible"];

#[test]
fn gradescope_results_use_only_documented_fields_and_values() {
    let (report, policy) = suite_report();
    let v: serde_json::Value = serde_json::from_str(&to_gradescope(&report, policy)).unwrap();
    let top = v.as_object().unwrap();
    for key in top.keys() {
        assert!(
            TOP_FIELDS.contains(&key.as_str()),
            "undocumented field {key}"
        );
    }
    assert!(VISIBILITIES.contains(&top["visibility"].as_str().unwrap()));
    assert!(VISIBILITIES.contains(&top["stdout_visibility"].as_str().unwrap()));
    let tests = top["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 3);
    let mut sum = 0.0;
    for t in tests {
        for key in t.as_object().unwrap().keys() {
            assert!(
                TEST_FIELDS.contains(&key.as_str()),
                "undocumented field {key}"
            );
        }
        assert!(["passed", "failed"].contains(&t["status"].as_str().unwrap()));
        assert!(VISIBILITIES.contains(&t["visibility"].as_str().unwrap()));
        assert!(t["score"].as_f64().unwrap() <= t["max_score"].as_f64().unwrap());
        sum += t["score"].as_f64().unwrap();
    }
    // The total is rounded to 2 decimals, each test's score to 4.
    let top = top["score"].as_f64().unwrap();
    assert!((top - sum).abs() < 0.005, "{top} against {sum}");
}

#[test]
fn gradescope_never_carries_a_hidden_scenarios_steps() {
    let (report, _) = suite_report();
    for policy in [HiddenResults::Status, HiddenResults::None] {
        let g = gradescope(&report, policy);
        let t = g
            .tests
            .iter()
            .find(|t| t.name.starts_with("hidden/"))
            .unwrap();
        assert_eq!(t.status, "failed");
        assert!(!t.output.contains("expected"), "{}", t.output);
        let want = match policy {
            HiddenResults::Status => "visible",
            HiddenResults::None => "hidden",
        };
        assert_eq!(t.visibility, want);
        // After-due-date details are left to Gradescope's own visibility.
        let late = g.tests.iter().find(|t| t.name.contains("after")).unwrap();
        assert_eq!(late.visibility, "after_due_date");
        assert!(late.output.contains("expected"), "{}", late.output);
    }
}

/// PrairieLearn's documented fields ("External Grading", Grading results).
const PL_TOP_FIELDS: [&str; 7] = [
    "gradable",
    "score",
    "message",
    "output",
    "images",
    "tests",
    "format_errors",
];
const PL_TEST_FIELDS: [&str; 7] = [
    "name",
    "description",
    "points",
    "max_points",
    "message",
    "output",
    "images",
];

#[test]
fn prairielearn_results_have_the_documented_shape_and_hide_what_students_may_not_see() {
    let (report, _) = suite_report();
    for policy in [HiddenResults::Status, HiddenResults::None] {
        let v: serde_json::Value = serde_json::from_str(&to_prairielearn(&report, policy)).unwrap();
        let top = v.as_object().unwrap();
        for key in top.keys() {
            assert!(
                PL_TOP_FIELDS.contains(&key.as_str()),
                "undocumented field {key}"
            );
        }
        assert_eq!(top["gradable"], true);
        // The score is a fraction of the whole score, hidden scenarios included.
        let score = top["score"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&score));
        assert!((score - report.summary.score / report.summary.max_score).abs() < 1e-4);
        let tests = top["tests"].as_array().unwrap();
        for t in tests {
            for key in t.as_object().unwrap().keys() {
                assert!(
                    PL_TEST_FIELDS.contains(&key.as_str()),
                    "undocumented field {key}"
                );
            }
            assert!(t["name"].is_string() && t["message"].is_string() && t["output"].is_string());
            assert!(t["points"].as_f64().unwrap() <= t["max_points"].as_f64().unwrap());
        }
        let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
        let hidden = tests
            .iter()
            .find(|t| t["name"].as_str().unwrap().starts_with("hidden/"));
        match policy {
            HiddenResults::Status => {
                assert_eq!(tests.len(), 3);
                assert!(
                    !hidden.unwrap()["output"]
                        .as_str()
                        .unwrap()
                        .contains("expected")
                );
            }
            HiddenResults::None => assert!(hidden.is_none(), "{names:?}"),
        }
        // PrairieLearn would show an after-due-date scenario at once: no details.
        let late = tests
            .iter()
            .find(|t| t["name"].as_str().unwrap().contains("after"))
            .unwrap();
        assert!(
            !late["output"].as_str().unwrap().contains("expected"),
            "{late}"
        );
    }
}

/// Issue 37 item 9: a failed test's `message` said what was expected (`outcome: expected
/// ok`) but not what the submission answered, which the text report says.
#[test]
fn a_prairielearn_message_says_what_the_submission_answered() {
    let (mut report, policy) = suite_report();
    // Both deliberately wrong scenarios made visible, so their details may be shown.
    for r in &mut report.scenarios {
        r.visibility = Visibility::Visible;
    }
    let v: serde_json::Value = serde_json::from_str(&to_prairielearn(&report, policy)).unwrap();
    let message = |name: &str| {
        v["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"].as_str().unwrap().starts_with(name))
            .unwrap()["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        message("wrong-end"),
        "won (has_won): expected true, got false"
    );
    assert_eq!(
        message("hidden/wrong-outcome"),
        "outcome (fire): expected hit, got sunk (ship: Submarine)"
    );
    assert_eq!(message("01-handout-example"), "passed");
}

#[test]
fn prairielearn_does_not_grade_a_submission_that_does_not_build_and_grades_a_crash() {
    let (report, policy) = suite_report();
    let with_fault = |kind, message: &str| {
        let mut r = report.clone();
        r.scenarios = r
            .scenarios
            .into_iter()
            .map(|s| {
                let mut s = s.errored(
                    broadside::target::Fault {
                        kind,
                        message: message.into(),
                    },
                    None,
                );
                s.divergence = None;
                s.score = 0.0;
                s
            })
            .collect();
        r.summary = broadside::report::Summary::of(&r.scenarios);
        r
    };
    use broadside::target::FaultKind;
    let unbuilt = with_fault(
        FaultKind::Setup,
        "Main.java:3: error: ';' expected\n1 error",
    );
    let v: serde_json::Value = serde_json::from_str(&to_prairielearn(&unbuilt, policy)).unwrap();
    assert_eq!(v["gradable"], false);
    assert!(v.get("score").is_none());
    assert_eq!(
        v["format_errors"][0],
        "Main.java:3: error: ';' expected\n1 error"
    );
    let syntax = with_fault(
        FaultKind::Exception,
        "importing battleship.py raised SyntaxError: expected ':' (battleship.py, line 12)",
    );
    let v: serde_json::Value = serde_json::from_str(&to_prairielearn(&syntax, policy)).unwrap();
    assert_eq!(v["gradable"], false);
    // A crash in play is the student's to lose marks for, as everywhere else.
    let crash = with_fault(FaultKind::Crash, "killed by signal 11");
    let v: serde_json::Value = serde_json::from_str(&to_prairielearn(&crash, policy)).unwrap();
    assert_eq!(v["gradable"], true);
    assert_eq!(v["score"], 0.0);
    assert!(v.get("format_errors").is_none());
}

#[test]
fn prairielearn_snapshot() {
    let (report, policy) = suite_report();
    let v: serde_json::Value = serde_json::from_str(&to_prairielearn(&report, policy)).unwrap();
    insta::assert_json_snapshot!(v, {
        ".output" => insta::dynamic_redaction(|value, _| {
            insta::internals::Content::from(value.as_str().unwrap().replace(env!("CARGO_PKG_VERSION"), "[version]"))
        }),
    });
}

#[test]
fn gradescope_snapshot() {
    let (report, policy) = suite_report();
    let v: serde_json::Value = serde_json::from_str(&to_gradescope(&report, policy)).unwrap();
    insta::assert_json_snapshot!(v, {
        ".execution_time" => "[execution_time]",
        ".output" => insta::dynamic_redaction(|value, _| {
            insta::internals::Content::from(value.as_str().unwrap().replace(env!("CARGO_PKG_VERSION"), "[version]"))
        }),
    });
}

#[test]
fn junit_parses_and_tells_failures_from_errors() {
    let (mut report, _) = suite_report();
    // Make the after-due-date scenario a fault to see an `error`.
    let late = report
        .scenarios
        .iter_mut()
        .find(|r| r.visibility == Visibility::AfterDueDate)
        .unwrap();
    late.divergence = None;
    *late = late.clone().errored(
        broadside::target::Fault {
            kind: broadside::target::FaultKind::Timeout,
            message: "no answer within 5 s".into(),
        },
        Some(1),
    );
    let xml = to_junit(&report);
    let parsed = quick_junit::Report::deserialize_from_str(&xml).expect("valid JUnit XML");
    assert_eq!(parsed.test_suites.len(), 1);
    let suite = &parsed.test_suites[0];
    assert_eq!(suite.name.as_str(), "colab-6x6");
    assert_eq!((suite.tests, suite.failures, suite.errors), (3, 1, 1));
    // A report action divides by the suite's time and annotates the case's file:line.
    assert!(suite.time.is_some(), "a testsuite without time");
    for case in &suite.test_cases {
        let file = case.extra.get("file").map(|f| f.as_str());
        assert!(file.is_some_and(|f| f.ends_with(".toml")), "{case:?}");
    }
    let failed = suite
        .test_cases
        .iter()
        .find(|c| {
            matches!(
                c.status,
                quick_junit::TestCaseStatus::NonSuccess {
                    kind: NonSuccessKind::Failure,
                    ..
                }
            )
        })
        .unwrap();
    assert!(
        failed
            .extra
            .get("line")
            .is_some_and(|l| l.as_str().parse::<usize>().unwrap() > 1)
    );
    assert!(
        xml.contains(r#"message="timeout: no answer within 5 s""#),
        "{xml}"
    );
    let settings = insta::Settings::clone_current();
    let mut settings = settings;
    settings.add_filter(r#"time="[0-9.]+""#, r#"time="[time]""#);
    settings.bind(|| insta::assert_snapshot!(xml));
}

#[test]
fn student_text_snapshot() {
    let (report, policy) = suite_report();
    insta::assert_snapshot!(to_text(&for_students(&report, policy), false));
}

#[test]
fn a_scenario_left_not_graded_costs_nothing_in_any_view_and_prairielearn_does_not_grade_it() {
    let (report, policy) = suite_report();
    let full = report.summary.clone();
    let mut results = report.scenarios.clone();
    let lost = results[0].max_score;
    results[0] = results[0].clone().not_graded();
    let report = Report::new("reference".into(), results);
    assert_eq!(report.summary.not_graded, 1);
    assert!(
        (report.summary.max_score - (full.max_score - lost)).abs() < 1e-9,
        "{:?}",
        report.summary
    );
    assert!(report.not_graded().is_some());
    let gs: serde_json::Value = serde_json::from_str(&to_gradescope(&report, policy)).unwrap();
    let left: Vec<&serde_json::Value> = gs["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["score"] == 0.0 && t["max_score"] == 0.0)
        .collect();
    assert_eq!(left.len(), 1, "{gs}");
    let pl: serde_json::Value = serde_json::from_str(&to_prairielearn(&report, policy)).unwrap();
    assert_eq!(pl["gradable"], false, "{pl}");
    assert!(
        pl.get("score").is_none_or(serde_json::Value::is_null),
        "{pl}"
    );
}

#[test]
fn the_line_run_prints_live_as_a_scenario_finishes_is_its_line_in_the_text_report() {
    let (report, policy) = suite_report();
    let student = for_students(&report, policy);
    let text = to_text(&student, false);
    let lines: Vec<&str> = text.lines().collect();
    for r in &student.scenarios {
        let line = scenario_line(r, false);
        assert!(lines.contains(&line.as_str()), "{line:?} not in\n{text}");
    }
    assert!(scenario_line(&student.scenarios[0], true).contains("\u{1b}["));
}

#[test]
fn class_summary_snapshot() {
    use broadside::grade::ClassSummary;
    use broadside::target::{Fault, FaultKind, Unbuildable};
    let (loaded, suites) = broadside::load::load_suites(&[SUITE.into()], &SpecSet::builtin());
    let alice = Report::new(
        "reference".into(),
        run_all(&loaded.scenarios, &mut Reference::new()),
    );
    let mut broken = Unbuildable {
        name: "python:bob".into(),
        fault: Fault {
            kind: FaultKind::Setup,
            message: "does not compile".into(),
        },
        plays: broadside::target::Plays::STEPS,
    };
    let bob = Report::new("python:bob".into(), run_all(&loaded.scenarios, &mut broken));
    let summary = ClassSummary::build(
        suites.title(),
        None,
        &[("bob".into(), bob), ("alice".into(), alice)],
        Vec::new(),
    )
    .unwrap();
    assert_eq!(summary.submissions[0].id, "alice", "sorted by id");
    let json: serde_json::Value = serde_json::from_str(&summary.to_json()).unwrap();
    insta::assert_json_snapshot!(json, { ".tool" => "[tool]" });
    insta::assert_snapshot!(summary.to_csv());
}
