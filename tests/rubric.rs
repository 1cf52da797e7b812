//! Every bundled assignment has a rubric (issue 36 §3) that covers what its scenarios judge:
//! each rule a whole-program driver can judge is in a part, each function a `[checks]` row
//! names is a part's or listed as unweighted, and the suite's grade is shared by it (a
//! function broken everywhere costs its weight once).

use broadside::spec::SpecSet;

#[test]
fn every_bundled_spec_has_a_rubric_with_a_clause_per_part() {
    let specs = SpecSet::builtin();
    for id in specs.ids() {
        let spec = specs.get(id).unwrap();
        for (mode, rules) in &spec.modes {
            let rubric = rules
                .rubric
                .as_ref()
                .unwrap_or_else(|| panic!("{id} ({mode}) has no [rubric]"));
            assert!(!rubric.why.is_empty(), "{id}: the rubric says why");
            for p in &rubric.parts {
                assert!(
                    !p.clause.is_empty(),
                    "{id}: part {} cites no clause",
                    p.name
                );
                assert!(p.weight > 0.0, "{id}: part {} weighs nothing", p.name);
            }
        }
    }
}

#[test]
fn every_rule_a_whole_program_driver_judges_is_in_a_part_of_its_rubric() {
    let specs = SpecSet::builtin();
    for id in broadside::dialogue::assignments() {
        let driver = broadside::dialogue::driver(id).unwrap();
        let rules = specs.get(id).unwrap().rules(None).unwrap();
        let rubric = rules.rubric.as_ref().unwrap();
        for rule in driver.rules() {
            let part = rubric.part_of_rule(rule.id);
            assert!(
                part.is_some(),
                "{id}: rule `{}` is in no part of the rubric",
                rule.id
            );
        }
    }
}

#[test]
fn every_function_a_checks_row_names_is_weighed_or_said_unweighted() {
    let specs = SpecSet::builtin();
    for id in specs.ids() {
        let rules = specs.get(id).unwrap().rules(None).unwrap();
        let rubric = rules.rubric.as_ref().unwrap();
        let named = rules
            .checks
            .iter()
            .map(|c| c.function.as_str())
            .chain(rules.queries.iter().map(|q| q.function.as_str()))
            .chain(rules.random_layout.as_deref())
            .chain(
                rules
                    .probes
                    .iter()
                    .flat_map(|p| p.functions.iter().map(String::as_str)),
            );
        for list in named.filter(|f| *f != "the query's function") {
            for f in list.split(", ") {
                assert!(
                    rubric.knows_function(f),
                    "{id}: `{f}` is in no part of the rubric"
                );
            }
        }
    }
}

/// A function that fails everywhere costs its weight once: solo-10x10's `hit` part, broken
/// in every scenario that fires, loses its share of the grade and no more, while the
/// functions it does not touch keep theirs.
#[test]
fn a_function_broken_everywhere_costs_its_weight_once() {
    let specs = SpecSet::builtin();
    let loaded = broadside::load::load(&["fixtures/scenarios/solo-10x10".into()], &specs);
    assert!(loaded.errors.is_empty());
    let steps: Vec<_> = loaded
        .scenarios
        .iter()
        .filter(|s| s.dialogue.is_none())
        .cloned()
        .collect();
    let mut target = broadside::target::from_spec(
        &"python:fixtures/submissions/solo-10x10/hits-kept-as-count"
            .parse()
            .unwrap(),
        Default::default(),
        broadside::target::limits::NOBODY,
    )
    .unwrap();
    let results = broadside::play::run_all(&steps, target.as_mut());
    let report = broadside::report::Report::graded("t".into(), &steps, results);
    let part = |name: &str| report.rubric.iter().find(|p| p.part == name).unwrap();
    let (hit, is_open_sea) = (part("hit"), part("is_open_sea"));
    // hit() raises on every shot that lands: its share is lost, and only its share.
    assert!(hit.score < 0.05 * hit.max_score, "{hit:?}");
    assert!(
        (is_open_sea.score - is_open_sea.max_score).abs() < 1e-6,
        "{is_open_sea:?}"
    );
    let lost: f64 = report.rubric.iter().map(|p| p.max_score - p.score).sum();
    assert!(
        lost <= hit.max_score + 1e-6,
        "only hit's share is lost: {lost}"
    );
    // The parts judged share the grade by weight (all alike here); ship_type, whose
    // checks all come after a sinking hit() never reaches, is neither credited nor charged.
    assert!(report.rubric.iter().all(|p| p.part != "ship_type"));
    let total: f64 = report.rubric.iter().map(|p| p.max_score).sum();
    let n = report.rubric.len() as f64;
    assert!(
        (hit.max_score - total / n).abs() < 0.01,
        "{hit:?} of {total}"
    );
    // The report's total is unchanged by the rubric: it shares the grade, not adds to it.
    let before: f64 = steps.iter().map(|s| s.max_score).sum();
    assert!((report.summary.max_score - before).abs() < 0.01);
}

fn run_json(dir: &std::path::Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_broadside"))
        .args(["run", "--target", "reference", "--format", "json"])
        .arg(dir)
        .output()
        .unwrap()
}

/// A suite with two published colab-6x6 scenarios and `suite.toml` text `suite`.
fn suite_with(suite: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in ["01-handout-example.toml", "17-valid-edges-and-corners.toml"] {
        std::fs::copy(
            format!("fixtures/scenarios/colab-6x6/{f}"),
            dir.path().join(f),
        )
        .unwrap();
    }
    std::fs::write(dir.path().join("suite.toml"), suite).unwrap();
    dir
}

#[test]
fn a_suite_may_change_the_weights_or_turn_the_rubric_off() {
    let parts = |out: &std::process::Output| -> Vec<(String, f64)> {
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["rubric"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|p| {
                        (
                            p["part"].as_str().unwrap().to_string(),
                            p["max_score"].as_f64().unwrap(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let share = |ps: &[(String, f64)], name: &str| ps.iter().find(|p| p.0 == name).unwrap().1;
    let spec = parts(&run_json(suite_with("").path()));
    let heavier = parts(&run_json(
        suite_with("[rubric]\nweights = { is_valid_position = 10 }\n").path(),
    ));
    assert!(
        share(&heavier, "is_valid_position") > share(&spec, "is_valid_position") + 1.0,
        "{spec:?} {heavier:?}"
    );
    assert!(share(&heavier, "fire") < share(&spec, "fire"));
    assert!(parts(&run_json(suite_with("[rubric]\noff = true\n").path())).is_empty());
}

#[test]
fn a_weight_for_a_part_the_rubric_lacks_is_refused_at_its_line() {
    let dir = suite_with("title = \"t\"\n[rubric]\nweights = { fires = 2 }\n");
    let out = run_json(dir.path());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("suite.toml:3:"), "{err}");
    assert!(err.contains("no part `fires`"), "{err}");
    assert!(err.contains("create_game, is_valid_position"), "{err}");
}

/// The score per part in every view: the text report's table, Gradescope's output, and the
/// class summary (JSON row and a `rubric:PART` CSV column); a student view with hidden
/// scenarios keeps the parts' scores but not their counts of checks.
#[test]
fn the_score_per_part_is_in_the_text_report_gradescope_and_the_class_summary() {
    let bin = env!("CARGO_BIN_EXE_broadside");
    let sample = "python:fixtures/submissions/solo-10x10/ship-type-wrong-length";
    let scenarios = "fixtures/scenarios/solo-10x10";
    let text = std::process::Command::new(bin)
        .args(["run", "--target", sample, scenarios])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    let table = text
        .split("score by the handout's functions and rules (the rubric):\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no rubric table:\n{text}"));
    let line = |name: &str| {
        table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no `{name}` line:\n{table}"))
            .to_string()
    };
    // ship_type fails some of its checks; is_open_sea none.
    assert!(line("ship_type").contains("checks passed"), "{table}");
    let is_open_sea = line("is_open_sea");
    let words: Vec<&str> = is_open_sea.split_whitespace().collect();
    assert_eq!(words[1], words[3], "is_open_sea earns its share: {table}");
    let dir = tempfile::tempdir().unwrap();
    let gs = dir.path().join("results.json");
    std::process::Command::new(bin)
        .args([
            "run",
            "--target",
            sample,
            scenarios,
            "--format",
            "gradescope",
            "--out",
        ])
        .arg(&gs)
        .output()
        .unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&gs).unwrap()).unwrap();
    assert!(
        v["output"].as_str().unwrap().contains("ship_type"),
        "{}",
        v["output"]
    );
    // A class of one, graded: the summary's row and CSV column.
    let class = dir.path().join("class");
    std::fs::create_dir_all(class.join("ana")).unwrap();
    std::fs::copy(
        "fixtures/submissions/solo-10x10/ship-type-wrong-length/battleships.py",
        class.join("ana/battleships.py"),
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = std::process::Command::new(bin)
        .args(["grade", "--suite", scenarios, "--submissions"])
        .arg(&class)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        out.join("summary.json").exists(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let parts = summary["submissions"][0]["rubric"].as_array().unwrap();
    let ship_type = parts.iter().find(|p| p["part"] == "ship_type").unwrap();
    assert!(
        ship_type["score"].as_f64() < ship_type["max_score"].as_f64(),
        "{ship_type}"
    );
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(
        csv.lines().next().unwrap().contains("rubric:ship_type"),
        "{csv}"
    );
}

#[test]
fn a_student_view_with_hidden_scenarios_gives_no_counts_of_checks() {
    let dir = suite_with("hidden = [\".\"]\nhidden_results = \"status\"\n");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_broadside"))
        .args([
            "run",
            "--target",
            "reference",
            "--format",
            "json",
            "--audience",
            "student",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let parts = v["rubric"].as_array().unwrap();
    assert!(!parts.is_empty());
    for p in parts {
        assert!(
            p.get("checks").is_none() && p.get("passed").is_none(),
            "{p}"
        );
        assert!(p["score"].as_f64().is_some(), "{p}");
    }
    let staff = run_json(dir.path());
    let v: serde_json::Value = serde_json::from_slice(&staff.stdout).unwrap();
    assert!(v["rubric"][0]["checks"].as_f64().unwrap() > 0.0, "{v}");
}
