//! The command line as a user meets it: exit codes, formats, errors.

mod common;
use common::broadside;

#[test]
fn run_on_the_published_scenarios_exits_0_and_json_counts_them() {
    let out = broadside()
        .args(["run", "fixtures/scenarios", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format_version"], 1);
    let n = v["scenarios"].as_array().unwrap().len();
    assert!(n >= 60, "only {n} scenarios published");
    assert_eq!(v["summary"]["scenarios"], n);
    assert_eq!(v["summary"]["passed"], n);
}

#[test]
fn a_failing_scenario_exits_1() {
    broadside()
        .args(["run", "tests/fixtures/failing"])
        .assert()
        .code(1);
}

#[test]
fn a_broken_scenario_exits_2_naming_file_line_col() {
    let out = broadside()
        .args(["run", "tests/fixtures/broken/overlapping-ships.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("tests/fixtures/broken/overlapping-ships.toml:5:13"),
        "{err}"
    );
    assert!(err.contains("expected"), "{err}");
}

#[test]
fn check_reports_every_broken_file_and_exits_2() {
    let out = broadside()
        .args(["check", "tests/fixtures/broken"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let files = std::fs::read_dir("tests/fixtures/broken").unwrap().count();
    for entry in std::fs::read_dir("tests/fixtures/broken").unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(err.contains(&name), "check said nothing about {name}");
    }
    assert!(files >= 15);
}

#[test]
fn check_passes_the_specs_and_published_scenarios() {
    let out = broadside()
        .args(["check", "specs", "fixtures/scenarios"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("5 specs"));
    // The example grading repository's suites too: every step scenario is played on the
    // reference, and it meets every expectation.
    let out = broadside()
        .args(["check", "examples/grading-repo/suites"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("6 scenarios"));
}

/// Issue 37, "authoring mistakes are the author's": a wrong expectation used to pass `check`
/// and was then charged to every student's function. `check` plays the scenario on the
/// reference and refuses it at the expectation, naming both answers.
#[test]
fn check_refuses_an_expectation_the_reference_fails_at_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let good =
        std::fs::read_to_string("fixtures/scenarios/colab-6x6/01-handout-example.toml").unwrap();
    let file = dir.path().join("wrong.toml");
    std::fs::write(&file, &good).unwrap();
    let ok = broadside().arg("check").arg(&file).output().unwrap();
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");
    // Line 19 `state = { shots = 1 }`, line 23 the sinking: both written wrong.
    let wrong = good
        .replace("state = { shots = 1 }", "state = { shots = 2 }")
        .replace(
            "expect = { outcome = \"sunk\", ship = \"Submarine\" }",
            "expect = \"hit\"",
        );
    assert_ne!(wrong, good);
    std::fs::write(&file, &wrong).unwrap();
    let out = broadside().arg("check").arg(&file).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let shown = file.to_str().unwrap();
    for want in [
        format!(
            "{shown}:19:19: after step 2 (fire B2), the reference has shots = 1; the scenario expects 2"
        ),
        format!(
            "{shown}:23:10: the reference answers sunk (ship: Submarine) here; the scenario expects hit"
        ),
        "2 problems found".to_string(),
    ] {
        assert!(err.contains(&want), "{want}\nnot in\n{err}");
    }
    // Beside a file that does not load, it is still played: every problem is told at once.
    let broken = dir.path().join("broken.toml");
    std::fs::write(&broken, "assignment = \"no-such-assignment\"\n").unwrap();
    let out = broadside().arg("check").arg(dir.path()).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("broken.toml:1:14: unknown assignment")
            && err.contains(&format!("{shown}:23:10: the reference answers sunk"))
            && err.contains("3 problems found"),
        "{err}"
    );
    std::fs::remove_file(&broken).unwrap();
    // `run` on the reference fails the same file: the check above is what keeps it from
    // being charged to a student.
    broadside()
        .args(["run", "--target", "reference"])
        .arg(&file)
        .assert()
        .code(1);
}

#[test]
fn a_missing_path_exits_2() {
    broadside().args(["run", "no/such/folder"]).assert().code(2);
}

#[test]
fn an_unknown_target_exits_2() {
    broadside()
        .args([
            "run",
            "fixtures/scenarios/colab-6x6",
            "--target",
            "python:x.py",
        ])
        .assert()
        .code(2);
}

#[test]
fn out_writes_the_report_to_a_file() {
    let dir = std::env::temp_dir().join(format!("broadside-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("report.json");
    broadside()
        .args([
            "run",
            "fixtures/scenarios/colab-6x6",
            "--format",
            "json",
            "--out",
        ])
        .arg(&file)
        .assert()
        .code(0);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["summary"]["failed"], 0);
}

#[test]
fn a_course_spec_variant_can_be_passed_with_spec() {
    // A course copies colab-6x6 and makes it 7×7: G7 is then on the board.
    let dir = std::env::temp_dir().join(format!("broadside-spec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = std::fs::read_to_string("specs/colab-6x6.toml")
        .unwrap()
        .replace("id = \"colab-6x6\"", "id = \"colab-7x7\"")
        .replace("rows = 6\ncols = 6", "rows = 7\ncols = 7");
    std::fs::write(dir.join("colab-7x7.toml"), spec).unwrap();
    let scenario = "assignment = \"colab-7x7\"\n[setup.ships]\nSubmarine = [\"G6\", \"G7\"]\n[[steps]]\nfire = \"G7\"\nexpect = \"hit\"\n";
    std::fs::write(dir.join("s.toml"), scenario).unwrap();
    broadside()
        .args(["run"])
        .arg(dir.join("s.toml"))
        .arg("--spec")
        .arg(dir.join("colab-7x7.toml"))
        .assert()
        .code(0);
    broadside()
        .args(["run"])
        .arg(dir.join("s.toml"))
        .assert()
        .code(2);
}

/// Standard error of `broadside ARGS`, which must exit 2.
fn refused(args: &[&str]) -> String {
    let out = broadside().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    err
}

#[test]
fn the_natural_first_mistakes_are_answered_with_the_command_meant() {
    let solo = "fixtures/submissions/solo-10x10/correct";
    // The student's file where scenarios go: not parsed as TOML.
    let err = refused(&["run", &format!("{solo}/battleships.py")]);
    assert!(!err.contains("key with no value"), "{err}");
    assert!(
        err.contains(&format!(
            "broadside run --assignment solo-10x10 --target python:{solo}/battleships.py"
        )),
        "{err}"
    );
    // A Java program is named by its folder; its assignment is told by its own words (a
    // `GrenadeWar` class, a `drone` command).
    for (file, assignment) in [
        ("battleboats/correct/BattleBoatsGame.java", "battleboats"),
        (
            "grenades-8x8/eof-flood-loop/GrenadeWar.java",
            "grenades-8x8",
        ),
    ] {
        let err = refused(&["run", &format!("fixtures/submissions/{file}")]);
        let folder = file.rsplit_once('/').unwrap().0;
        assert!(
            err.contains(&format!(
                "--assignment {assignment} --target java:fixtures/submissions/{folder}\n"
            )),
            "{err}"
        );
    }
    // A submission's folder where scenarios go.
    let err = refused(&["run", "fixtures/submissions/colab-6x6/correct"]);
    assert!(
        err.contains("holds a submission, not scenarios")
            && err.contains(
                "--assignment colab-6x6 --target python:fixtures/submissions/colab-6x6/correct"
            ),
        "{err}"
    );
    // A target kind spelt `py:`.
    let err = refused(&[
        "run",
        "--assignment",
        "solo-10x10",
        "--target",
        &format!("py:{solo}"),
    ]);
    assert!(
        err.contains(&format!("did you mean `--target python:{solo}`?")),
        "{err}"
    );
    // A bare folder as the target.
    let err = refused(&[
        "run",
        "--assignment",
        "colab-6x6",
        "--target",
        "fixtures/submissions/colab-6x6/correct",
    ]);
    assert!(
        err.contains("did you mean `--target python:fixtures/submissions/colab-6x6/correct`?"),
        "{err}"
    );
    // Neither scenarios nor --assignment: the assignment read from the submission.
    let err = refused(&[
        "run",
        "--target",
        "hs:fixtures/submissions/move-limit-10x10/correct",
    ]);
    assert!(
        err.contains("no scenarios to run") && err.contains("colab-6x6, grenades-8x8"),
        "{err}"
    );
    assert!(
        err.contains("e.g. broadside run --assignment move-limit-10x10 --target haskell:fixtures/submissions/move-limit-10x10/correct"),
        "{err}"
    );
}

#[test]
fn color_always_colours_a_report_off_a_terminal_and_never_leaves_it_plain() {
    let scenario = "fixtures/scenarios/solo-10x10/01-perfect-game.toml";
    let coloured = broadside()
        .args(["--color", "always", "run", scenario])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&coloured.stdout).contains("\u{1b}["));
    let plain = broadside()
        .args(["run", scenario, "--color", "never"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&plain.stdout).contains('\u{1b}'));
    assert_eq!(plain.status.code(), Some(0));
}

#[test]
fn help_has_an_example_for_each_command() {
    let top = broadside().arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&top.stdout);
    assert!(
        text.contains("Examples:") && text.contains("--color"),
        "{text}"
    );
    for cmd in ["run", "check", "fuzz"] {
        let out = broadside().args([cmd, "--help"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("Examples:") && text.contains(&format!("broadside {cmd} ")),
            "{text}"
        );
    }
}

#[test]
fn a_suite_toml_sets_the_limits_and_a_flag_overrides_it() {
    let dir = std::env::temp_dir().join(format!("broadside-suite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        "fixtures/scenarios/colab-6x6/01-handout-example.toml",
        dir.join("01.toml"),
    )
    .unwrap();
    std::fs::write(
        dir.join("suite.toml"),
        "[limits]\ntimeout_secs = 0.5\nscenario_timeout_secs = 1\n",
    )
    .unwrap();
    let hostile = "python:fixtures/submissions/hostile/sleep_past_timeout.py";
    let start = std::time::Instant::now();
    let out = broadside()
        .args(["run", "--format", "json", "--target", hostile])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        start.elapsed() < std::time::Duration::from_secs(5),
        "the suite's timeout was not used"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["scenarios"][0]["fault"]["kind"], "timeout");
    assert!(
        v["scenarios"][0]["fault"]["message"]
            .as_str()
            .unwrap()
            .contains("1.0 s"),
        "{v}"
    );
    // suite.toml is settings, not a scenario, and a flag beats it.
    assert_eq!(v["summary"]["scenarios"], 1);
    let out = broadside()
        .args([
            "run",
            "--format",
            "json",
            "--scenario-timeout",
            "0.3",
            "--target",
            hostile,
        ])
        .arg(&dir)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["scenarios"][0]["fault"]["message"]
            .as_str()
            .unwrap()
            .contains("0.3 s"),
        "{v}"
    );
}

#[test]
fn two_suites_share_their_settings_and_a_setting_they_disagree_on_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let suite = |name: &str, toml: &str| {
        let dir = root.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(
            "fixtures/scenarios/colab-6x6/01-handout-example.toml",
            dir.join(format!("{name}.toml")),
        )
        .unwrap();
        std::fs::write(dir.join("suite.toml"), toml).unwrap();
        dir
    };
    let published = suite("published", "title = \"published\"\n");
    let hidden = suite(
        "hidden",
        "hidden = [\".\"]\n[limits]\nscenario_timeout_secs = 1\n",
    );
    // The second suite's limit holds although the first says nothing of limits.
    let hostile = "python:fixtures/submissions/hostile/sleep_past_timeout.py";
    let out = broadside()
        .args(["run", "--format", "json", "--target", hostile])
        .args([&published, &hidden])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let message = v["scenarios"][0]["fault"]["message"].as_str().unwrap();
    assert!(message.contains("1.0 s"), "{v}");
    // Two values for one limit, or two hidden_results: refused, pointing at the second.
    std::fs::write(
        published.join("suite.toml"),
        "[limits]\nscenario_timeout_secs = 2\n",
    )
    .unwrap();
    for cmd in ["check", "run"] {
        let out = broadside()
            .arg(cmd)
            .args([&published, &hidden])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("hidden/suite.toml:3:25"), "{err}");
        assert!(
            err.contains("`scenario_timeout_secs = 1` disagrees with `scenario_timeout_secs = 2`"),
            "{err}"
        );
    }
    std::fs::write(
        published.join("suite.toml"),
        "hidden_results = \"status\"\n",
    )
    .unwrap();
    std::fs::write(
        hidden.join("suite.toml"),
        "hidden = [\".\"]\nhidden_results = \"none\"\n",
    )
    .unwrap();
    let out = broadside()
        .arg("check")
        .args([&published, &hidden])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`hidden_results = \"none\"` disagrees with `hidden_results = \"status\"`"),
        "{err}"
    );
    assert!(err.contains("hidden/suite.toml:2:18"), "{err}");
}

#[test]
fn a_suite_toml_with_an_unknown_limit_is_bad_input() {
    let dir = std::env::temp_dir().join(format!("broadside-suite-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        "fixtures/scenarios/colab-6x6/01-handout-example.toml",
        dir.join("01.toml"),
    )
    .unwrap();
    std::fs::write(dir.join("suite.toml"), "[limits]\nmemory_gb = 2\n").unwrap();
    let out = broadside().arg("check").arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("suite.toml:2:1"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    broadside()
        .args(["run", "--target", "reference"])
        .arg(&dir)
        .assert()
        .code(2);
}

#[test]
fn without_namespaces_a_python_submission_is_still_graded_and_the_report_says_so() {
    // As on Gradescope: root in a container that refuses new namespaces.
    let out = broadside()
        .env("BROADSIDE_NO_NAMESPACES", "1")
        .args([
            "run",
            "fixtures/scenarios/colab-6x6",
            "--target",
            "python:fixtures/submissions/colab-6x6/correct",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{v}");
    assert_eq!(v["summary"]["passed"], v["summary"]["scenarios"]);
    let running_as_root = nix::unistd::geteuid().is_root();
    let notes = v["notes"].to_string();
    if running_as_root {
        assert!(notes.contains("no namespaces"), "{notes}");
    } else {
        assert!(notes.contains("not running as root"), "{notes}");
    }
}

#[test]
fn run_writes_gradescope_and_junit_and_a_student_view() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results.json");
    let out = broadside()
        .args([
            "run",
            "tests/fixtures/suite",
            "--format",
            "gradescope",
            "--out",
        ])
        .arg(&results)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "the fixture suite fails on purpose"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    // 5 points passed, 1.5 of a 3-point scenario's and 2/3 of a 1-point one's checks: 7.17
    // of 9 points, scaled to 18.
    assert_eq!(v["score"], 14.33, "7.17 of 9 points scaled to 18");
    let out = broadside()
        .args(["run", "tests/fixtures/suite", "--format", "junit"])
        .output()
        .unwrap();
    quick_junit::Report::deserialize_from_str(&String::from_utf8(out.stdout).unwrap()).unwrap();
    let out = broadside()
        .args(["run", "tests/fixtures/suite", "--audience", "student"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("details hidden"), "{text}");
    assert!(!text.contains("expected hit"), "{text}");
}

#[test]
fn a_module_that_cannot_be_imported_is_explained_once_not_sixty_times() {
    let target = "python:fixtures/submissions/solo-10x10/main-runs-at-import";
    // The step scenarios (the dialogue ones run main() on purpose and fail their own way).
    let mut steps: Vec<String> = std::fs::read_dir("fixtures/scenarios/solo-10x10")
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".toml"))
        .collect();
    steps.sort();
    let out = broadside()
        .arg("run")
        .args(&steps)
        .args(["--target", target])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("EOFError").count(), 1, "{text}");
    // Nothing of a module that does not import can be graded (issue 36): `setup`.
    assert!(text.contains("setup: the same as above"), "{text}");
    let out = broadside()
        .arg("run")
        .args(&steps)
        .args(["--target", target])
        .args(["--format", "gradescope"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let top = v["output"].as_str().unwrap();
    assert!(
        top.contains("Every scenario failed the same way (setup)")
            && top.contains("Not gradable: nothing of the submission could be graded"),
        "{top}"
    );
    assert!(top.contains("EOFError"), "{top}");
}

#[test]
fn check_validates_a_suite_toml_named_outright() {
    let out = broadside()
        .args(["check", "tests/fixtures/suite/suite.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 suite checked"));
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite.toml");
    std::fs::write(&suite, "hidden_results = \"maybe\"\n").unwrap();
    let out = broadside().arg("check").arg(&suite).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("suite.toml:1:18"), "{err}");
}

#[test]
fn student_code_never_sees_the_graders_environment() {
    let out = broadside()
        .env("MY_SECRET_TOKEN", "hunter2")
        .args([
            "run",
            "tests/fixtures/spy-suite/visible-fails.toml",
            "--target",
            "python:tests/fixtures/python/env",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("ENV [("), "the output is shown: {text}");
    assert!(text.contains("'PATH'"), "{text}");
    assert!(
        !text.contains("MY_SECRET_TOKEN") && !text.contains("hunter2"),
        "{text}"
    );
}

#[test]
fn a_hidden_scenario_run_from_inside_its_folder_stays_hidden() {
    let out = broadside()
        .current_dir("tests/fixtures/spy-suite/hidden")
        .args(["run", ".", "--format", "gradescope"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tests"][0]["visibility"], "hidden", "{v}");
}

/// `credit = "scenario"` in a suite keeps all-or-nothing scenarios: the two the fixture fails
/// on purpose earn nothing (5 of 9 points), where credit per check gives them their share.
#[test]
fn a_suite_can_keep_all_or_nothing_scenarios() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("suite");
    std::fs::create_dir_all(copy.join("hidden")).unwrap();
    for f in [
        "01-handout-example.toml",
        "wrong-end-after-due-date.toml",
        "hidden/wrong-outcome.toml",
    ] {
        std::fs::copy(format!("tests/fixtures/suite/{f}"), copy.join(f)).unwrap();
    }
    let suite = std::fs::read_to_string("tests/fixtures/suite/suite.toml").unwrap();
    let points = |suite: &str| -> serde_json::Value {
        std::fs::write(copy.join("suite.toml"), suite).unwrap();
        let out = broadside()
            .args(["run", copy.to_str().unwrap(), "--format", "json"])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["summary"]["points"].clone()
    };
    assert_eq!(points(&suite), 7.17);
    assert_eq!(points(&format!("credit = \"scenario\"\n{suite}")), 5);
    // A wrong value is refused with the file and what is accepted.
    std::fs::write(
        copy.join("suite.toml"),
        format!("credit = \"rule\"\n{suite}"),
    )
    .unwrap();
    let out = broadside()
        .args(["run", copy.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(err.contains("suite.toml") && err.contains("check"), "{err}");
}

/// Three format faults found by scenarios written from the handouts alone: raw `[row, col]`
/// pairs in a grenades-8x8 player's setup, several accepted values for `lost` and `next`
/// under an `accept_also` decision, and a second ship of a length placed (solo-10x10's
/// placement-counts), which the reference and a correct student both accept.
#[test]
fn raw_pairs_boolean_and_player_lists_and_a_second_ship_of_a_length_load_and_pass() {
    for target in [
        "reference",
        "python:fixtures/submissions/solo-10x10/correct",
    ] {
        let mut args = vec!["run", "tests/fixtures/formats", "--target", target];
        if target != "reference" {
            args[1] = "tests/fixtures/formats/solo-second-ship-of-a-length.toml";
        }
        let out = broadside().args(&args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{target}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A list without a decision is still refused, at its place in the file.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("tests/fixtures/formats/move-limit-lost-either-way.toml")
        .unwrap()
        .replace("decision = \"lost-when\"\n", "");
    let file = dir.path().join("no-decision.toml");
    std::fs::write(&file, text).unwrap();
    let out = broadside()
        .args(["check", file.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no-decision.toml:") && err.contains("need a recorded ambiguity"),
        "{err}"
    );
}

#[test]
fn show_prints_a_published_scenario_as_reports_name_it() {
    let out = broadside()
        .args(["show", "colab-6x6/01-handout-example"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let file =
        std::fs::read_to_string("fixtures/scenarios/colab-6x6/01-handout-example.toml").unwrap();
    // Numbered as reports cite lines: line 1 is the file's first line.
    assert!(text.contains(&format!("   1 | {}", file.lines().next().unwrap())));
    let raw = broadside()
        .args(["show", "colab-6x6/01-handout-example", "--raw"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(raw.stdout).unwrap(), file);
    // A dialogue scenario by its name, its folder left out.
    broadside()
        .args(["show", "solo-10x10/04-played-game"])
        .assert()
        .success();
    let wrong = broadside()
        .args(["show", "colab-6x6/99-nothing"])
        .output()
        .unwrap();
    assert_eq!(wrong.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("colab-6x6/01-handout-example"));
}

/// Issue 37 item 9: `broadside show 03-off-board-calls` said "not a scenario name" though
/// only solo-10x10 publishes a scenario of that name.
#[test]
fn show_finds_a_name_without_its_assignment_or_names_the_assignments_that_have_it() {
    let out = broadside()
        .args(["show", "03-off-board-calls"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("# fixtures/scenarios/solo-10x10/03-off-board-calls.toml\n"),
        "{text}"
    );
    // `.toml` and the dialogue folder are taken as reports and paths spell them.
    for path in [
        "fixtures/scenarios/solo-10x10/dialogue/04-played-game.toml",
        "solo-10x10/dialogue/04-played-game",
    ] {
        let out = broadside().args(["show", path, "--raw"]).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{path}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            std::fs::read_to_string("fixtures/scenarios/solo-10x10/dialogue/04-played-game.toml")
                .unwrap(),
            "{path}"
        );
    }
    // Several assignments publish `01-handout-example`: none is guessed, each is named.
    let several = broadside()
        .args(["show", "01-handout-example"])
        .output()
        .unwrap();
    assert_eq!(several.status.code(), Some(2));
    assert!(several.stdout.is_empty());
    let err = String::from_utf8_lossy(&several.stderr);
    for assignment in [
        "battleboats",
        "colab-6x6",
        "grenades-8x8",
        "move-limit-10x10",
    ] {
        assert!(
            err.contains(&format!("{assignment}/01-handout-example")),
            "{assignment}: {err}"
        );
    }
    assert!(!err.contains("solo-10x10/01-handout-example"), "{err}");
    // Part of a name: the names that hold it are suggested, none is guessed.
    let part = broadside()
        .args(["show", "off-board-calls"])
        .output()
        .unwrap();
    assert_eq!(part.status.code(), Some(2));
    let err = String::from_utf8_lossy(&part.stderr);
    assert!(err.contains("solo-10x10/03-off-board-calls"), "{err}");
    // A name no assignment has: how names are spelled.
    let none = broadside().args(["show", "99-nothing"]).output().unwrap();
    assert_eq!(none.status.code(), Some(2));
    let err = String::from_utf8_lossy(&none.stderr);
    assert!(
        err.contains("`99-nothing`") && err.contains("ASSIGNMENT/NAME"),
        "{err}"
    );
}

#[test]
fn the_report_opens_with_the_function_at_fault_and_names_published_scenarios() {
    let out = broadside()
        .args([
            "run",
            "--assignment",
            "colab-6x6",
            "--target",
            "python:fixtures/submissions/colab-6x6/remaining-sorted",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("remaining_ships fails"), "{first}");
    assert!(first.contains("Step 6: \"Return a list"), "{first}");
    assert!(
        text.contains("FAIL  colab-6x6/01-handout-example"),
        "{text}"
    );
    assert!(text.contains("remaining (remaining_ships): expected"));
    assert!(text.contains("legend: ■ ship, × hit, ✓ sunk, · miss, . untried"));
    assert!(text.contains("`broadside show NAME`"));
}

#[test]
fn a_suite_below_the_path_given_is_read_and_a_linked_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let tests = dir.path().join("tests");
    let hidden = tests.join("hidden");
    std::fs::create_dir_all(&hidden).unwrap();
    std::fs::write(
        tests.join("suite.toml"),
        "title = \"published and hidden\"\n",
    )
    .unwrap();
    std::fs::write(hidden.join("suite.toml"), "hidden = [\".\"]\n").unwrap();
    let scenario =
        std::fs::read_to_string("fixtures/scenarios/colab-6x6/01-handout-example.toml").unwrap();
    std::fs::write(tests.join("visible.toml"), &scenario).unwrap();
    std::fs::write(hidden.join("secret.toml"), &scenario).unwrap();
    let out = broadside()
        .args([
            "run",
            tests.to_str().unwrap(),
            "--audience",
            "student",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed: Vec<&str> = v["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert!(
        listed.iter().all(|p| !p.contains("secret")),
        "the hidden folder's own suite.toml hides it: {listed:?}"
    );
    assert_eq!(
        v["summary"]["max_points"], 10,
        "the hidden scenario still counts"
    );
    // A hidden folder that is a link would never run: refused, by name.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("linked.toml"), &scenario).unwrap();
    std::os::unix::fs::symlink(&elsewhere, tests.join("linked")).unwrap();
    let out = broadside()
        .args(["check", tests.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("linked") && err.contains("symbolic link"),
        "{err}"
    );
}

#[test]
fn prairielearn_results_go_to_a_results_folder_that_does_not_exist_yet() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("grade/results/results.json");
    broadside()
        .args([
            "run",
            "--assignment",
            "colab-6x6",
            "--target",
            "python:fixtures/submissions/colab-6x6/has-won-inverted",
            "--format",
            "prairielearn",
            "--out",
        ])
        .arg(&file)
        .assert()
        .code(1);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["gradable"], true);
    let score = v["score"].as_f64().unwrap();
    assert!(score > 0.0 && score < 1.0, "{score}");
    assert_eq!(v["tests"].as_array().unwrap().len(), 28);
}

#[test]
fn shell_completions_load_in_bash_and_the_man_page_lists_every_command() {
    let out = broadside().args(["completions", "bash"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let script = String::from_utf8(out.stdout).unwrap();
    assert!(
        script.contains("--stop-grace") && script.contains("prairielearn"),
        "{script}"
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broadside.bash");
    std::fs::write(&file, &script).unwrap();
    // Sourced by a real bash, it registers a completion for `broadside`.
    let bash = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source {} && complete -p broadside",
            file.display()
        ))
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&bash.stdout).contains("_broadside"),
        "{}",
        String::from_utf8_lossy(&bash.stderr)
    );
    let out = broadside().arg("man").output().unwrap();
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(
        page.starts_with(".ie") && page.contains(".TH broadside 1"),
        "{page}"
    );
    // Every page the main page refers to exists.
    for cmd in [
        "run",
        "grade",
        "merge",
        "fuzz",
        "list",
        "show",
        "check",
        "completions",
        "autograder",
        "help",
    ] {
        assert!(page.contains(&format!("broadside\\-{cmd}(1)")), "{cmd}");
        let out = broadside().args(["man", cmd]).output().unwrap();
        let sub = String::from_utf8(out.stdout).unwrap();
        assert!(sub.contains(&format!(".TH broadside-{cmd} 1")), "{sub}");
    }
    let grade = broadside().args(["man", "grade"]).output().unwrap();
    assert!(String::from_utf8_lossy(&grade.stdout).contains("stop\\-grace"));
    broadside().args(["man", "nosuch"]).assert().code(2);
    assert!(
        !page.contains("native\\-worker"),
        "the internal command stays out"
    );
}

#[test]
fn a_java_compiler_that_cannot_run_is_the_graders_error_not_the_inputs() {
    // A missing JDK was once exit 2 (bad input) through a default conversion; it is
    // broadside's side, as a missing Python interpreter is.
    let out = broadside()
        .env("BROADSIDE_JAVAC", "/nonexistent/javac")
        .env("BROADSIDE_BUILD_CACHE", "off")
        .args([
            "run",
            "fixtures/scenarios/battleboats/dialogue/01-hits-and-sinking.toml",
            "--target",
            "java:fixtures/submissions/battleboats/correct",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("install a JDK"), "{err}");
}

#[test]
fn a_python_that_cannot_run_stops_run_and_grade_and_scores_nobody() {
    // broadside's own interpreter missing is broadside's failure (exit 3): no student gets
    // a crash.
    let out = broadside()
        .env("BROADSIDE_PYTHON", "/nonexistent/python3")
        .args([
            "run",
            "fixtures/scenarios/solo-10x10/01-perfect-game.toml",
            "--target",
            "python:fixtures/submissions/solo-10x10/correct",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("could not run the Python interpreter `/nonexistent/python3`"),
        "{err}"
    );
    assert!(err.contains("BROADSIDE_PYTHON"), "{err}");
    let class = tempfile::tempdir().unwrap();
    let sub = class.path().join("ada");
    std::fs::create_dir(&sub).unwrap();
    std::fs::copy(
        "fixtures/submissions/solo-10x10/correct/battleships.py",
        sub.join("battleships.py"),
    )
    .unwrap();
    let results_dir = tempfile::tempdir().unwrap();
    let results = results_dir.path().join("out");
    let out = broadside()
        .env("BROADSIDE_PYTHON", "/nonexistent/python3")
        .args([
            "grade",
            "--suite",
            "fixtures/scenarios/solo-10x10",
            "--submissions",
        ])
        .arg(class.path())
        .arg("--out")
        .arg(&results)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ada: could not run the Python interpreter"),
        "{err}"
    );
    let summary = std::fs::read_to_string(results.join("summary.csv")).unwrap_or_default();
    assert!(!summary.contains("ada"), "{summary}");
}

#[test]
fn a_report_that_cannot_be_written_is_broadsides_failure_exit_3() {
    let out = broadside()
        .args([
            "run",
            "fixtures/scenarios/colab-6x6/01-handout-example.toml",
            "--out",
            "/proc/no-such-folder/report.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("for the report"), "{err}");
}

#[test]
fn a_driver_the_grader_cannot_start_leaves_the_scenario_not_graded_not_zero() {
    // No `sh` on the PATH: broadside cannot start the `cmd:` target's shell, which is the
    // grader's failure (a `harness` fault), never the student's crash or zero.
    let empty = tempfile::tempdir().unwrap();
    let out = broadside()
        .env("PATH", empty.path())
        .args([
            "run",
            "fixtures/scenarios/colab-6x6/01-handout-example.toml",
            "--target",
            "cmd:true",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("1 scenario not graded"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let scenario = &v["scenarios"][0];
    assert_eq!(scenario["status"], "not-graded", "{v}");
    assert_eq!(scenario["fault"]["kind"], "harness", "{v}");
    assert_eq!(v["summary"]["not_graded"], 1, "{v}");
    assert_eq!(v["summary"]["errors"], 0, "{v}");
}

#[test]
fn fuzz_reports_a_grader_that_cannot_start_the_target_as_its_own_failure() {
    // A `harness` fault is no divergence of the target: exit 3 and no counterexample.
    let empty = tempfile::tempdir().unwrap();
    let out_file = empty.path().join("found.toml");
    let out = broadside()
        .env("PATH", empty.path())
        .args([
            "fuzz",
            "--assignment",
            "colab-6x6",
            "--target",
            "cmd:true",
            "--cases",
            "2",
            "--seed",
            "1",
            "--out",
        ])
        .arg(&out_file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("broadside's own side failed"), "{err}");
    assert!(!out_file.exists());
}

/// The files of a `--transcript` folder: (name, text).
fn transcripts(dir: &std::path::Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().into_string().unwrap(),
                std::fs::read_to_string(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn transcript_holds_the_whole_game_with_its_moves_beyond_the_reports_tail() {
    common::needs_jdk();
    let dir = tempfile::tempdir().unwrap();
    // A program broadside loses track of in its third move: the report keeps the last
    // lines, the transcript the whole game.
    let out = broadside()
        .args([
            "run",
            "fixtures/scenarios/grenades-8x8/dialogue/01-full-game.toml",
            "--target",
            "java:fixtures/submissions/grenades-8x8/grenade-skip-wrong-player",
            "--transcript",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    let files = transcripts(dir.path());
    assert_eq!(files.len(), 1, "{files:?}");
    let (name, text) = &files[0];
    // A stable, safe name: the target and the scenario, nothing a shell or a folder tree
    // would read otherwise.
    assert!(name.ends_with("--grenades-8x8.01-full-game.txt"), "{name}");
    assert!(
        name.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
        "{name}"
    );
    // Every move under its marker, the lines sent and printed beneath.
    for marker in [
        "== before the first move",
        "== move 1 (line 11): place",
        "== move 3 (line 11): sweep",
    ] {
        assert!(text.contains(marker), "{marker} missing:\n{text}");
    }
    assert!(text.contains("\n> "), "{text}");
    // The whole game: far more than the report's last lines, from the program's first
    // question, which the report no longer shows.
    assert!(report.contains("FAIL"), "{report}");
    let lines = text.lines().count();
    assert!(lines > 60, "{lines} lines:\n{text}");
    assert!(text.contains("Ship 1 position?"), "{text}");
    assert!(!report.contains("Ship 1 position?"), "{report}");
    assert!(text.contains("result: failed"), "{text}");
    assert!(!text.contains("transcript cut"), "{text}");
    // Never in the report.
    assert!(!report.contains("== move"), "{report}");
    assert!(!report.contains(&text[..200]), "{report}");
    // Refused with a student view: it shows hidden scenarios' games.
    for view in [
        ["--audience", "student"],
        ["--format", "gradescope"],
        ["--format", "prairielearn"],
    ] {
        let refused = broadside()
            .args([
                "run",
                "fixtures/scenarios/grenades-8x8/dialogue/01-full-game.toml",
                "--target",
                "exec:python3 -u tests/fixtures/programs/grenades/letter-rows.py",
                "--transcript",
            ])
            .arg(dir.path())
            .args(view)
            .output()
            .unwrap();
        assert_eq!(refused.status.code(), Some(2), "{view:?}");
        assert!(
            String::from_utf8_lossy(&refused.stderr).contains("--transcript is for staff"),
            "{view:?}"
        );
    }
}

#[test]
fn transcript_of_a_program_that_prints_without_end_is_bounded_and_says_it_was_cut() {
    let dir = tempfile::tempdir().unwrap();
    let out = broadside()
        .args([
            "run",
            "fixtures/scenarios/battleboats/dialogue/01-hits-and-sinking.toml",
            "--target",
            "exec:python3 -u tests/fixtures/programs/floods-lines.py",
            "--format",
            "json",
            "--transcript",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["scenarios"][0]["fault"]["kind"], "limit", "{v}");
    let files = transcripts(dir.path());
    assert_eq!(files.len(), 1);
    let text = &files[0].1;
    // 1 MiB of the game and a header, not the 4 MiB the program printed.
    assert!(text.len() <= 1024 * 1024 + 2048, "{} bytes", text.len());
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("== transcript cut at 1024 KiB:") && last.ends_with("not written"),
        "{last}"
    );
}

#[test]
fn grade_writes_a_transcript_per_submission_and_scenario_outside_the_reports() {
    let class = tempfile::tempdir().unwrap();
    for name in ["ada", "bob"] {
        let sub = class.path().join(name);
        std::fs::create_dir(&sub).unwrap();
        std::fs::copy(
            "tests/fixtures/programs/grenades/letter-rows.py",
            sub.join("game.py"),
        )
        .unwrap();
    }
    let out = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let status = broadside()
        .args([
            "grade",
            "--suite",
            "fixtures/scenarios/grenades-8x8/dialogue",
            "--target",
            "exec:python3 -u {}/game.py",
            "--jobs",
            "2",
            "--submissions",
        ])
        .arg(class.path())
        .arg("--out")
        .arg(out.path())
        .arg("--transcript")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        status.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let files = transcripts(dir.path());
    let scenarios = std::fs::read_dir("fixtures/scenarios/grenades-8x8/dialogue")
        .unwrap()
        .count();
    assert_eq!(
        files.len(),
        2 * scenarios,
        "{:?}",
        files.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert!(
        files
            .iter()
            .any(|(n, _)| n.starts_with("ada--grenades-8x8."))
    );
    assert!(
        files
            .iter()
            .any(|(n, _)| n.starts_with("bob--grenades-8x8."))
    );
    // Nothing of it in what a student is handed.
    for sub in ["ada", "bob"] {
        for f in ["report.txt", "results.json"] {
            let shown = std::fs::read_to_string(out.path().join(sub).join(f)).unwrap();
            assert!(!shown.contains("== move"), "{sub}/{f}");
        }
    }
}

/// Issue 36: solo-10x10's ok_to_place_ship_at has no kind to count by, so a second ship of
/// length 4 clear of the first is legal (decision placement-counts). The reference answered
/// "rejected (is already placed)" where a correct student answers ok; now `check`, the
/// reference and the correct sample agree.
#[test]
fn a_second_battleship_placed_legally_is_ok_for_the_reference_and_a_correct_student() {
    let file = "tests/fixtures/honest/solo-second-battleship.toml";
    let out = broadside().args(["check", file]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    for target in [
        "reference",
        "python:fixtures/submissions/solo-10x10/correct",
    ] {
        let out = broadside()
            .args(["run", file, "--target", target])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{target}: {text}");
        assert!(!text.contains("already placed"), "{target}: {text}");
    }
}

/// `--assignment` with the published scenarios' own folder plays each scenario once, not
/// twice (once from the binary, once from the path).
#[test]
fn a_published_scenario_also_named_by_a_path_is_played_once() {
    let count = |args: &[&str]| -> u64 {
        let out = broadside()
            .args(["run", "--target", "reference", "--format", "json"])
            .args(args)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["summary"]["scenarios"].as_u64().unwrap()
    };
    let published = count(&["--assignment", "colab-6x6"]);
    assert!(published > 10);
    assert_eq!(
        count(&["--assignment", "colab-6x6", "fixtures/scenarios/colab-6x6"]),
        published
    );
    // A scenario of the course's own beside them is played too.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("extra.toml"),
        "assignment = \"colab-6x6\"\n[[steps]]\nfire = \"A1\"\nexpect = \"miss\"\n",
    )
    .unwrap();
    assert_eq!(
        count(&["--assignment", "colab-6x6", dir.path().to_str().unwrap()]),
        published + 1
    );
}
