//! Python submissions through the bundled driver: correct samples score full marks, and
//! every way a submission can misbehave ends as a named fault on the scenarios it affects,
//! in bounded time, never as a harness error.

use broadside::play::run_all;
use broadside::report::{ScenarioResult, Status};
use broadside::spec::SpecSet;
use broadside::target::{FaultKind, Process, python};
use std::time::{Duration, Instant};

fn scenarios(assignment: &str) -> Vec<broadside::scenario::Scenario> {
    broadside::published::load(assignment, &SpecSet::builtin()).expect("published scenarios load")
}

fn target(path: &str) -> Process {
    let mut t = python::target(camino::Utf8Path::new(path)).unwrap();
    t.limits.request_timeout = Duration::from_secs(2);
    t
}

fn run(assignment: &str, path: &str) -> Vec<ScenarioResult> {
    run_all(&scenarios(assignment), &mut target(path))
}

fn faults(results: &[ScenarioResult]) -> Vec<FaultKind> {
    results
        .iter()
        .filter_map(|r| r.fault.as_ref().map(|f| f.kind))
        .collect()
}

#[test]
fn correct_colab_sample_scores_full_marks() {
    let results = run("colab-6x6", "fixtures/submissions/colab-6x6/correct");
    let bad: Vec<_> = results
        .iter()
        .filter(|r| r.status != Status::Passed)
        .map(|r| (&r.path, &r.divergence, &r.fault))
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn prints_and_input_at_import_do_not_disturb_the_protocol() {
    let results = run("colab-6x6", "tests/fixtures/python/prints_everything.py");
    assert!(
        results.iter().all(|r| r.status == Status::Passed),
        "{:#?}",
        results.iter().map(|r| &r.fault).collect::<Vec<_>>()
    );
}

#[test]
fn a_hang_at_import_is_one_timeout_per_scenario_in_bounded_time() {
    let start = Instant::now();
    let results = run("colab-6x6", "tests/fixtures/python/hangs_at_import.py");
    assert!(faults(&results).iter().all(|k| *k == FaultKind::Timeout));
    assert_eq!(faults(&results).len(), results.len());
    // The start-up timeout is paid once, not once per scenario.
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "took {:?}",
        start.elapsed()
    );
    assert!(
        results[1]
            .fault
            .as_ref()
            .unwrap()
            .message
            .contains("did not start")
    );
}

#[test]
fn exit_at_import_is_a_module_that_does_not_import_naming_system_exit() {
    let results = run("colab-6x6", "tests/fixtures/python/exits_at_import.py");
    let f = results[0].fault.as_ref().expect("a fault");
    // Nothing of a module that does not import can be graded (issue 36): `setup`.
    assert_eq!(f.kind, FaultKind::Setup);
    assert!(f.message.contains("SystemExit"), "{}", f.message);
    assert!(results.iter().all(|r| r.status == Status::Error));
}

#[test]
fn a_misnamed_function_fails_only_what_needs_it() {
    let results = run("colab-6x6", "tests/fixtures/python/misnamed_fire.py");
    let missing: Vec<_> = results
        .iter()
        .filter_map(|r| r.fault.as_ref())
        .filter(|f| f.kind == FaultKind::Missing)
        .collect();
    assert!(!missing.is_empty());
    assert!(
        missing[0]
            .message
            .contains("`fire` is not defined in misnamed_fire.py"),
        "{}",
        missing[0].message
    );
    // Scenarios that never fire (the new-game checks) still pass.
    assert!(results.iter().any(|r| r.status == Status::Passed));
}

#[test]
fn a_wrong_return_type_is_the_students_fault_with_the_value() {
    let results = run(
        "colab-6x6",
        "tests/fixtures/python/fire_returns_a_number.py",
    );
    // A wrong kind of value fails that check, with the value; the game goes on (no fault).
    assert!(faults(&results).is_empty(), "{:?}", faults(&results));
    let d = results
        .iter()
        .flat_map(|r| r.divergence.iter().chain(&r.later))
        .find(|d| d.actual.contains("`fire` returned 1 (int)"))
        .expect("a failed check naming the value");
    assert_eq!(d.check, "outcome");
}

#[test]
fn a_child_that_garbles_the_protocol_is_a_protocol_fault() {
    let mut t = Process::command("echo this is not json; sleep 5");
    t.limits.request_timeout = Duration::from_secs(2);
    let results = run_all(&scenarios("colab-6x6")[..2], &mut t);
    assert_eq!(
        faults(&results),
        vec![FaultKind::Protocol, FaultKind::Protocol]
    );
    assert!(
        results[0]
            .fault
            .as_ref()
            .unwrap()
            .message
            .contains("not JSON")
    );
}

#[test]
fn a_child_that_dies_is_a_crash_with_its_last_words() {
    let mut t = Process::command("echo goodbye >&2; exit 3");
    let results = run_all(&scenarios("colab-6x6")[..1], &mut t);
    let f = results[0].fault.as_ref().unwrap();
    assert_eq!(f.kind, FaultKind::Crash);
    assert!(f.message.contains("goodbye"), "{}", f.message);
}

#[test]
fn the_driver_also_runs_as_a_cmd_target() {
    let driver = concat!(env!("CARGO_MANIFEST_DIR"), "/drivers/python_driver.py");
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/submissions/colab-6x6/correct"
    );
    let mut t = Process::command(&format!("python3 {driver} {sample}"));
    let results = run_all(&scenarios("colab-6x6"), &mut t);
    assert!(results.iter().all(|r| r.status == Status::Passed));
}

#[test]
fn runtime_profiles_bound_data_size_instead_of_address_space() {
    use broadside::target::limits::{Limits, Profile};
    let mut t = Process::command("echo v=$(ulimit -v) d=$(ulimit -d) n=$(ulimit -n) >&2; exit 1");
    t.limits = Limits::for_profile(Profile::Ghc);
    let results = run_all(&scenarios("colab-6x6")[..1], &mut t);
    let message = &results[0].fault.as_ref().unwrap().message;
    assert!(message.contains("v=unlimited d=1048576 n=64"), "{message}");
    let mut t = Process::command("echo v=$(ulimit -v) d=$(ulimit -d) >&2; exit 1");
    t.limits = Limits::for_profile(Profile::Python);
    let results = run_all(&scenarios("colab-6x6")[..1], &mut t);
    assert!(
        results[0]
            .fault
            .as_ref()
            .unwrap()
            .message
            .contains("v=1048576 d=unlimited")
    );
}

/// The student's module is found the way a TA would find it: by the handout's file name in
/// any case, one folder down too (with the helper module beside it importing), else as the
/// one file that defines the handout's functions; the report says which file was graded, and
/// when none fits, what was looked for.
#[test]
fn the_module_is_found_by_its_name_one_folder_down_or_by_its_functions() {
    use broadside::target::Target;
    let graded = |path: &str| {
        let mut t = target(path);
        let results = run_all(&scenarios("colab-6x6"), &mut t);
        (results, t.notes())
    };
    let (results, notes) = graded("tests/fixtures/python/layouts/folder-down");
    assert!(
        results.iter().all(|r| r.status == Status::Passed),
        "{results:#?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("Battleship-main/Battleship.py: the handout's file name")),
        "{notes:?}"
    );
    let (results, notes) = graded("tests/fixtures/python/layouts/two-files");
    assert!(
        results.iter().all(|r| r.status == Status::Passed),
        "{results:#?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("game.py: of game.py, utils.py, the one that defines")),
        "{notes:?}"
    );
    let (results, _) = graded("tests/fixtures/python/layouts/no-functions");
    let f = results[0].fault.as_ref().expect("a fault");
    assert_eq!(f.kind, FaultKind::Missing);
    assert!(
        f.message
            .contains("looked for a module named battleship.py")
            && f.message
                .contains("none of notes.py, scratch.py defines any"),
        "{}",
        f.message
    );
}

/// A module in a package of the submission's own (issue 36, section 2): `game/battleship.py`
/// importing its helper relatively (`from .rules import on_board`), or absolutely from the
/// submission's root (`from game.board import on_board`, no `__init__.py`), imports as it does
/// on the student's machine; before, both raised at import (0/85). Of two candidates (an old
/// draft `battleship.py` at the top, `game/battleship.py` below), the one the student's own
/// tests import is graded.
#[test]
fn a_module_in_a_package_imports_its_helpers_and_the_tested_one_is_graded() {
    use broadside::target::Target;
    for layout in ["package-relative", "package-absolute"] {
        let mut t = target(&format!("tests/fixtures/python/layouts/{layout}"));
        let results = run_all(&scenarios("colab-6x6"), &mut t);
        assert!(
            results.iter().all(|r| r.status == Status::Passed),
            "{layout}: {results:#?}"
        );
        let want = if layout == "package-relative" {
            "game/battleship.py: the module the student's own tests import (from game.battleship import in test_battleship.py); not battleship.py"
        } else {
            "game/battleship.py: the handout's file name"
        };
        assert!(
            t.notes().iter().any(|n| n.contains(want)),
            "{layout}: {:?}",
            t.notes()
        );
    }
    // A folder Python cannot import by name (`Battleship-main`) is no package even with an
    // `__init__.py`: the module is imported from inside it, as before.
    let tmp = tempfile::tempdir().unwrap();
    let inner = tmp.path().join("Battleship-main");
    std::fs::create_dir(&inner).unwrap();
    for entry in
        std::fs::read_dir("tests/fixtures/python/layouts/folder-down/Battleship-main").unwrap()
    {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), inner.join(entry.file_name())).unwrap();
    }
    std::fs::write(inner.join("__init__.py"), "").unwrap();
    let results = run_all(
        &scenarios("colab-6x6"),
        &mut target(tmp.path().to_str().unwrap()),
    );
    assert!(
        results.iter().all(|r| r.status == Status::Passed),
        "{results:#?}"
    );
}

/// Handing each function the reference's state (the spec's `[checks]`, `given =
/// "reference"`): a `fire` that forgets to record a shot that hits fails its sinking shots
/// alone (each judged on the reference's game), while the same scenario played end to end
/// (`given = "own"`) also fails `remaining` and `sunk`, which follow from the shots it lost.
#[test]
fn a_function_handed_the_reference_state_fails_alone() {
    let specs = SpecSet::builtin();
    let (path, text) = broadside::published::files("colab-6x6")
        .into_iter()
        .find(|(p, _)| p.ends_with("08-remaining-fleet-order.toml"))
        .unwrap();
    let independent =
        broadside::scenario::parse(&broadside::diag::Source::new(path.clone(), text), &specs)
            .unwrap();
    let own_text = text.replacen("\ntags = ", "\ngiven = \"own\"\ntags = ", 1);
    assert_ne!(
        own_text, text,
        "the scenario has a tags line to put `given` before"
    );
    let own = broadside::scenario::parse(
        &broadside::diag::Source::new(path, own_text.as_str()),
        &specs,
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("broadside-given-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let correct =
        std::fs::read_to_string("fixtures/submissions/colab-6x6/correct/battleship.py").unwrap();
    // Records a shot only when it misses.
    let forgetful = correct.replacen(
        "    game[\"shots\"].add(position)\n    name = ship_at(game, position)\n    if name is None:\n",
        "    name = ship_at(game, position)\n    if name is None:\n        game[\"shots\"].add(position)\n",
        1,
    );
    assert_ne!(
        forgetful, correct,
        "the correct sample's fire() has the lines to change"
    );
    std::fs::write(dir.join("battleship.py"), forgetful).unwrap();
    let results = run_all(&[independent, own], &mut target(dir.to_str().unwrap()));
    let _ = std::fs::remove_dir_all(&dir);
    let failed = |r: &ScenarioResult| -> Vec<(String, bool)> {
        r.divergence
            .iter()
            .chain(&r.later)
            .map(|d| (d.check.clone(), d.given))
            .collect()
    };
    let alone = failed(&results[0]);
    assert!(!alone.is_empty(), "the bug must show");
    assert!(
        alone
            .iter()
            .all(|(check, given)| check == "outcome" && *given),
        "judged on the reference's game, only fire's sinking shots fail: {alone:?}"
    );
    let end_to_end = failed(&results[1]);
    assert!(
        end_to_end.iter().any(|(check, _)| check == "remaining"),
        "on the student's own game the lost shots also fail the state checks: {end_to_end:?}"
    );
    assert!(end_to_end.iter().all(|(_, given)| !given));
    assert!(results[0].points > results[1].points);
    // Every failure names the function it judges.
    for r in &results {
        for d in r.divergence.iter().chain(&r.later) {
            assert!(d.function.is_some(), "{}: {d:?}", r.path);
        }
    }
}

/// `run --format prairielearn` on a solo-10x10 submission: (gradable, points earned, the
/// first format error).
fn solo_prairielearn(file: &str) -> (bool, f64, Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.json");
    let status = assert_cmd::Command::cargo_bin("broadside")
        .unwrap()
        .args(["run", "--assignment", "solo-10x10", "--target"])
        .arg(format!("python:tests/fixtures/python/honest/{file}"))
        .args(["--format", "prairielearn", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(out.exists(), "{status:?}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let points = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["points"].as_f64().unwrap())
        .sum();
    let why = v["format_errors"][0].as_str().map(String::from);
    (v["gradable"].as_bool().unwrap(), points, why)
}

/// Issue 36: a module that does not import scored 2.86/192 on solo-10x10 (the driver's own
/// answers to off-board calls and its shot counter passed 15 checks of
/// `03-off-board-calls`) and PrairieLearn called it gradable.
#[test]
fn a_module_that_does_not_import_earns_nothing_and_is_not_gradable() {
    let (gradable, points, why) = solo_prairielearn("solo_syntax_error.py");
    assert_eq!((gradable, points), (false, 0.0));
    let why = why.expect("a format error");
    assert!(
        why.contains("does not import") && why.contains("SyntaxError"),
        "{why}"
    );
}

/// Issue 36: a file left as `# TODO` defines none of the handout's functions: nothing to
/// grade, not 2.86/192 for the driver's answers.
#[test]
fn a_module_left_as_todo_earns_nothing_and_is_not_gradable() {
    let (gradable, points, why) = solo_prairielearn("solo_todo.py");
    assert_eq!((gradable, points), (false, 0.0));
    assert!(
        why.as_deref()
            .is_some_and(|w| w.contains("defines none of the handout's functions")),
        "{why:?}"
    );
}

/// Issue 36: a check no student code answered earns nothing, but what the student's code
/// did answer keeps its credit: two honest functions (is_sunk, ship_type) earn at most their
/// two shares of the rubric (1 of 11 each, of 192), and the off-board checks of
/// `03-off-board-calls` (the driver's answers) earn nothing.
#[test]
fn an_honest_partial_submission_keeps_only_what_its_code_answered() {
    let (gradable, points, _) = solo_prairielearn("solo_two_functions.py");
    assert!(gradable);
    assert!(
        points > 1.0 && points <= 192.0 * 2.0 / 11.0 + 1e-6,
        "{points}"
    );
    let results = run(
        "solo-10x10",
        "tests/fixtures/python/honest/solo_two_functions.py",
    );
    let off_board = results
        .iter()
        .find(|r| r.path.ends_with("03-off-board-calls.toml"))
        .unwrap();
    assert_eq!(off_board.points, 0.0, "{off_board:?}");
}

/// The first divergence of `scenario` (a file name) in `results`.
fn first_divergence<'a>(
    results: &'a [ScenarioResult],
    scenario: &str,
) -> &'a broadside::report::Divergence {
    let r = results.iter().find(|r| r.path.ends_with(scenario)).unwrap();
    r.divergence
        .as_ref()
        .unwrap_or_else(|| panic!("{scenario} passed: {r:?}"))
}

/// Issue 36: a has_won that removes shots from the game kept full marks on its checks, each
/// handing it a fresh copy of the reference's game. Every call of a function that only
/// looks (`[looks_only]`) is now compared before and after, and a change fails its check,
/// quoting Step 8.
#[test]
fn a_has_won_that_changes_the_game_fails_its_checks_quoting_the_handout() {
    let results = run(
        "colab-6x6",
        "fixtures/submissions/colab-6x6/has-won-ticks-off-shots",
    );
    let d = first_divergence(&results, "26-has-won-false-until-last-sinks.toml");
    assert_eq!(d.function.as_deref(), Some("has_won"), "{d:?}");
    assert!(
        d.actual.contains("`has_won` changed what it was given")
            && d.actual.contains("has_won() must not change the game"),
        "{}",
        d.actual
    );
}

/// Issue 36: solo-10x10's checking functions take the fleet and answer; one that throws sunk
/// ships out of the fleet it is given fails its checks (decision looks-only-checkers).
#[test]
fn a_checking_function_that_changes_the_fleet_fails_its_checks() {
    let results = run(
        "solo-10x10",
        "fixtures/submissions/solo-10x10/unsunk-left-drops-sunk-ships",
    );
    let d = first_divergence(&results, "56-are-unsunk-one-submarine.toml");
    assert_eq!(
        d.function.as_deref(),
        Some("are_unsunk_ships_left"),
        "{d:?}"
    );
    assert!(
        d.actual
            .contains("`are_unsunk_ships_left` changed what it was given"),
        "{}",
        d.actual
    );
}

/// The notebook fixture: magics in cells 1, 2 and 6 (an empty cell after 2, not counted), a
/// scratch cell (3) calling `fire` before its definition, an `input()` cell (6), `has_won`
/// (cell 8) dividing by zero, and a widget cell (9) with no ipywidgets installed.
const NOTEBOOK: &str = "tests/fixtures/python/notebook/Battleship.ipynb";

#[test]
fn a_notebook_runs_its_code_cells_in_order_and_a_failing_cell_stops_nothing_after_it() {
    use broadside::harness::target::Target;
    for path in [NOTEBOOK, "tests/fixtures/python/notebook"] {
        let mut t = target(path);
        let results = run_all(&scenarios("colab-6x6"), &mut t);
        // Every function but has_won came from cells after the failing ones.
        let passed = results
            .iter()
            .filter(|r| r.status == Status::Passed)
            .count();
        assert!(passed >= 10, "{path}: only {passed} passed");
        let notes = t.notes().join("\n");
        for want in [
            "Battleship.ipynb: a notebook, its 9 code cells run in order",
            "skipped IPython magics and shell lines: cell 1 `%matplotlib inline`; cell 2 `%%capture`; cell 6 `!echo never`",
            "cell 3, `print(fire(game, (1, 1)))",
            "raised NameError: name 'fire' is not defined",
            "cell 6, `answer = input(\"Shoot where? \")` raised EOFError",
            "stand-ins that draw nothing",
        ] {
            assert!(notes.contains(want), "{path}: no {want:?} in {notes}");
        }
    }
}

#[test]
fn a_notebook_traceback_quotes_the_cell_as_the_student_sees_it() {
    let results = run("colab-6x6", NOTEBOOK);
    let f = results
        .iter()
        .filter_map(|r| r.fault.as_ref())
        .find(|f| f.message.contains("has_won"))
        .expect("has_won's fault");
    assert!(
        f.message
            .contains("cell 8, `def has_won(game):`, line 3, in has_won"),
        "{}",
        f.message
    );
    assert!(!f.message.contains("line 3, in <module>"), "{}", f.message);
}

#[test]
fn colabs_py_export_grades_as_the_notebook_it_came_from() {
    let dir = "fixtures/submissions/colab-6x6";
    let scores = |path: &str| -> Vec<(String, f64)> {
        run("colab-6x6", path)
            .iter()
            .map(|r| (r.path.clone(), r.score))
            .collect()
    };
    let export = scores(&format!("{dir}/colab-export-remaining-sorted"));
    assert_eq!(
        export,
        scores(&format!("{dir}/notebook-remaining-sorted/Battleship.ipynb"))
    );
    let total: f64 = export.iter().map(|(_, s)| s).sum();
    assert!(total > 70.0, "the export scored {total}");
}

#[test]
fn a_solo_notebook_grades_as_its_py_including_its_main() {
    // solo-10x10's correct sample, pasted into a notebook's cells after a magic and a cell
    // whose main() crash a TA would see; the whole-program scenarios call its main().
    let source =
        std::fs::read_to_string("fixtures/submissions/solo-10x10/correct/battleships.py").unwrap();
    let notebook = serde_json::json!({
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1,
             "source": ["%load_ext autoreload\n"]},
            {"cell_type": "markdown", "metadata": {}, "source": ["# My battleships\n"]},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 2,
             "source": [source]},
        ]
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Battleships.ipynb");
    std::fs::write(&path, notebook.to_string()).unwrap();
    let total = |path: &str| -> (f64, f64) {
        let all = run("solo-10x10", path);
        (
            all.iter().map(|r| r.score).sum(),
            all.iter().map(|r| r.max_score).sum(),
        )
    };
    let (got, max) = total(path.to_str().unwrap());
    assert_eq!(got, max, "the notebook scored {got}/{max}");
    assert_eq!(
        (got, max),
        total("fixtures/submissions/solo-10x10/correct/battleships.py")
    );
}

#[test]
fn a_notebook_that_is_not_json_is_said_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Battleship.ipynb");
    // Saved half-way: the JSON stops in the middle of a cell.
    std::fs::write(
        &path,
        "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"source\": [\"def fire(",
    )
    .unwrap();
    let results = run("colab-6x6", path.to_str().unwrap());
    let f = results[0].fault.as_ref().expect("a fault");
    // A module that does not import (issue 36 §2): the submission did not start.
    assert_eq!(f.kind, FaultKind::Setup);
    assert!(
        f.message
            .contains("Battleship.ipynb is not a notebook Jupyter can open"),
        "{}",
        f.message
    );
}

#[test]
fn a_notebook_mains_crash_quotes_its_cell() {
    // solo-10x10's correct functions in one cell, a main() that crashes in the next.
    let source =
        std::fs::read_to_string("fixtures/submissions/solo-10x10/correct/battleships.py").unwrap();
    let notebook = serde_json::json!({
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1,
             "source": [source]},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 2,
             "source": ["def main():\n", "    print('Welcome')\n", "    raise ValueError('boom')\n"]},
        ]
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Battleships.ipynb");
    std::fs::write(&path, notebook.to_string()).unwrap();
    let results = run("solo-10x10", path.to_str().unwrap());
    let shown = format!("{results:?}");
    assert!(
        shown.contains("File \\\"Battleships.ipynb\\\", cell 2, `def main():`, line 3, in main"),
        "{shown}"
    );
}

/// One place per assignment (issue 38 item 5): the Python driver's `ASSIGNMENTS` table has a
/// class for exactly the bundled specs whose language is Python, so a new Python assignment
/// cannot be bundled without its class, nor a class kept for an assignment that is gone.
#[test]
fn the_python_drivers_assignments_are_the_python_specs() {
    let driver = std::fs::read_to_string("drivers/python_driver.py").unwrap();
    let table = driver
        .lines()
        .find_map(|l| l.strip_prefix("ASSIGNMENTS = {"))
        .expect("drivers/python_driver.py has an `ASSIGNMENTS = {...}` line");
    let mut in_driver: Vec<String> = table
        .split(',')
        .filter_map(|entry| {
            Some(
                entry
                    .split(':')
                    .next()?
                    .trim()
                    .trim_matches('"')
                    .to_string(),
            )
        })
        .filter(|id| !id.is_empty() && !id.starts_with('}'))
        .collect();
    in_driver.sort();
    let specs = broadside::spec::SpecSet::builtin();
    let python: Vec<String> = specs
        .ids()
        .into_iter()
        .filter(|id| specs.get(id).unwrap().language == broadside::spec::Language::Python)
        .map(String::from)
        .collect();
    assert_eq!(in_driver, python);
}
