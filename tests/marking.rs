//! `grade --marking`: each handout's whole marking scheme. The samples in `fixtures/marking/`
//! and the correct behaviour samples are graded, one class per assignment; each sheet is
//! checked against `fixtures/marking/expected.toml` (figures' states and numbers, the
//! functions with rules no test checks) and pinned whole as a snapshot. Needs pytest and
//! pycodestyle for the Python the submissions run under (`.ci/run` installs them), GHC, a JDK
//! and git.

mod common;
use common::broadside;

use camino::{Utf8Path, Utf8PathBuf};
use serde_json::Value;
use std::collections::BTreeMap;

const SUITE: &str = "fixtures/scenarios/solo-10x10";

#[derive(serde::Deserialize)]
struct Expected {
    path: String,
    why: String,
    automatic: f64,
    capped_at: Option<u32>,
    figures: BTreeMap<String, String>,
    numbers: BTreeMap<String, f64>,
    #[serde(default)]
    untested: Vec<String>,
}

/// The pinned sheets, by `<assignment>/<sample>`.
fn expected() -> BTreeMap<String, Expected> {
    toml::from_str(&std::fs::read_to_string("fixtures/marking/expected.toml").unwrap()).unwrap()
}

fn copy_dir(from: &Utf8Path, to: &Utf8Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&from.join(&name), &to.join(&name));
        } else {
            std::fs::copy(e.path(), to.join(&name)).unwrap();
        }
    }
}

/// Makes `dir` a git repository of three commits, all on 2026-10-20 (a weak history).
fn one_day_history(dir: &Utf8Path) {
    let git = |args: &[&str], when: &str| {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.name=Student", "-c", "user.email=s@example.org"])
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_DATE", when)
            .env("GIT_COMMITTER_DATE", when)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .unwrap_or_else(|e| panic!("this test needs git (apt-get install git): {e}"))
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"], "2026-10-20T09:00:00Z");
    git(&["add", "battleships.py"], "2026-10-20T09:00:00Z");
    git(
        &["commit", "-q", "-m", "battleships"],
        "2026-10-20T09:00:00Z",
    );
    git(&["add", "test_battleships.py"], "2026-10-20T21:00:00Z");
    git(&["commit", "-q", "-m", "tests"], "2026-10-20T21:00:00Z");
    git(
        &["commit", "-q", "--allow-empty", "-m", "final"],
        "2026-10-20T23:30:00Z",
    );
}

fn json(path: &Utf8Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Grades the class folder `class` of `assignment` with `--marking` into `out`.
fn grade_marking(assignment: &str, class: &Utf8Path, out: &Utf8Path) {
    let o = broadside()
        .args([
            "grade",
            "--suite",
            &format!("fixtures/scenarios/{assignment}"),
        ])
        .args(["--submissions", class.as_str()])
        .args(["--out", out.as_str(), "--marking"])
        .args(["--formats", "json,text,gradescope"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{assignment}: {stderr}");
}

/// Grades the samples with `--marking` once; the output folder.
fn graded() -> &'static Utf8PathBuf {
    static OUT: std::sync::OnceLock<(tempfile::TempDir, Utf8PathBuf)> = std::sync::OnceLock::new();
    &OUT.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
        for (key, e) in expected() {
            copy_dir(Utf8Path::new(&e.path), &root.join("class").join(&key));
        }
        one_day_history(&root.join("class/solo-10x10/weak-tests"));
        let out = root.join("out");
        let assignments: std::collections::BTreeSet<String> = expected()
            .keys()
            .map(|k| k.split_once('/').unwrap().0.to_string())
            .collect();
        for a in assignments {
            grade_marking(&a, &root.join("class").join(&a), &out.join(&a));
        }
        (dir, out)
    })
    .1
}

#[test]
fn each_sheet_is_the_one_a_ta_would_sign() {
    let out = graded();
    let mut wrong = Vec::new();
    for (name, e) in expected() {
        let sheet = json(&out.join(&name).join("marking.json"));
        let mut got = Vec::new();
        if sheet["automatic"].as_f64() != Some(e.automatic) {
            got.push(format!("automatic {}", sheet["automatic"]));
        }
        if sheet["capped_at"].as_u64().map(|c| c as u32) != e.capped_at {
            got.push(format!("capped_at {}", sheet["capped_at"]));
        }
        let figures = sheet["figures"].as_array().unwrap();
        let figure = |id: &str| figures.iter().find(|f| f["id"] == id).unwrap();
        for (id, state) in &e.figures {
            if figure(id)["state"] != state.as_str() {
                got.push(format!(
                    "{id} is {} ({})",
                    figure(id)["state"],
                    figure(id)["summary"]
                ));
            }
        }
        for (key, want) in &e.numbers {
            let (id, number) = key.split_once('.').unwrap();
            if figure(id)["numbers"][number].as_f64() != Some(*want) {
                got.push(format!("{key} = {}", figure(id)["numbers"][number]));
            }
        }
        let untested: Vec<String> = figures
            .iter()
            .find(|f| f.get("functions").is_some())
            .and_then(|f| f["functions"].as_array())
            .map(|rows| {
                rows.iter()
                    .filter(|r| {
                        r.get("untested")
                            .is_some_and(|u| !u.as_array().unwrap().is_empty())
                    })
                    .map(|r| r["function"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default();
        if untested != e.untested {
            got.push(format!("untested {untested:?}"));
        }
        // The marker's criteria are left blank; the automatic ones add up to `automatic`.
        let criteria = sheet["criteria"].as_array().unwrap();
        let marked: f64 = criteria.iter().filter_map(|c| c["mark"].as_f64()).sum();
        let blank: u64 = criteria
            .iter()
            .filter(|c| c["mark"].is_null())
            .map(|c| c["weight"].as_u64().unwrap())
            .sum();
        if marked != e.automatic || Some(blank) != sheet["for_the_marker"].as_u64() {
            got.push(format!("criteria marked {marked}, blank weight {blank}"));
        }
        if !got.is_empty() {
            wrong.push(format!("{name} ({}):\n  {}", e.why, got.join("\n  ")));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn the_sheets_read_as_pinned() {
    let out = graded();
    for name in expected().keys() {
        let text = std::fs::read_to_string(out.join(name).join("marking.txt")).unwrap();
        insta::assert_snapshot!(format!("sheet-{}", name.replace('/', "-")), text);
        let report = std::fs::read_to_string(out.join(name).join("report.txt")).unwrap();
        assert!(report.ends_with(&text), "report.txt ends with the sheet");
    }
}

#[test]
fn the_summary_has_a_column_per_criterion_the_markers_blank() {
    let out = graded();
    let mut rd = csv::Reader::from_path(out.join("solo-10x10/summary.csv")).unwrap();
    let header: Vec<String> = rd.headers().unwrap().iter().map(String::from).collect();
    for col in [
        "mark:correctness/30",
        "mark:completeness/30",
        "mark:style/10",
        "mark:extension/30",
        "mark:automatic",
        "mark:capped_at",
        "figure:tests.caught",
        // Only weak-tests is a git repository: every sheet's columns are there.
        "figure:history.commits",
        "figure:extension.kinds_apart",
    ] {
        assert!(header.contains(&col.to_string()), "{col} in {header:?}");
    }
    let at = |c: &str| header.iter().position(|h| h == c).unwrap();
    for row in rd.records() {
        let row = row.unwrap();
        assert_eq!(&row[at("mark:correctness/30")], "30", "{row:?}");
        assert_eq!(&row[at("mark:completeness/30")], "", "{row:?}");
        let no_extension = &row[at("figure:extension")] == "missing";
        let cap = if no_extension { "70" } else { "" };
        assert_eq!(&row[at("mark:capped_at")], cap, "{row:?}");
    }
}

#[test]
fn gradescope_shows_the_figures_as_tests_worth_nothing() {
    let out = graded();
    let results = json(&out.join("solo-10x10/weak-tests/results.json"));
    let tests = results["tests"].as_array().unwrap();
    let t = tests
        .iter()
        .find(|t| t["name"] == "marking: the student's tests (test_battleships.py)")
        .expect("a test for the tests figure");
    assert_eq!(t["max_score"], 0.0);
    assert_eq!(t["status"], "failed");
    assert!(
        t["output"]
            .as_str()
            .unwrap()
            .contains("untested: is_open_sea"),
        "{t}"
    );
    // The score is still the behaviour suite's alone.
    assert_eq!(results["score"], 192.0);
}

#[test]
fn a_grader_without_pytest_is_told_before_anything_is_graded() {
    let dir = tempfile::tempdir().unwrap();
    let out = Utf8PathBuf::from_path_buf(dir.path().join("out")).unwrap();
    let o = broadside()
        .args([
            "grade",
            "--suite",
            SUITE,
            "--submissions",
            "fixtures/marking/solo-10x10",
        ])
        .args(["--out", out.as_str(), "--marking"])
        .env("BROADSIDE_PYTHON", "/nonexistent/python3")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    // A tool broadside needs is broadside's side (exit 3), not the inputs'.
    assert_eq!(o.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("apt-get install python3-pytest"),
        "{stderr}"
    );
    assert!(
        !out.join("weak-tests/report.json").exists(),
        "nothing graded"
    );
}

#[test]
fn marking_needs_one_assignment_with_a_scheme() {
    let dir = tempfile::tempdir().unwrap();
    let out = Utf8PathBuf::from_path_buf(dir.path().join("out")).unwrap();
    let o = broadside()
        .args([
            "grade",
            "--suite",
            SUITE,
            "--suite",
            "fixtures/scenarios/colab-6x6",
        ])
        .args([
            "--submissions",
            "fixtures/marking/solo-10x10",
            "--out",
            out.as_str(),
            "--marking",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_ne!(o.status.code(), Some(0), "{stderr}");
}

/// A student who lays tests out as a package, leaves a test that never ends, and tries to
/// read the correct implementation out through test names and failure messages: the
/// package's tests are run against the wheat (not the student's own module), the endless
/// test fails once and is left out after, and nothing of the wheat reaches a student view.
#[test]
fn a_hostile_or_odd_test_suite_is_judged_and_leaks_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
    let sub = root.join("class/odd");
    std::fs::create_dir_all(sub.join("tests")).unwrap();
    // The student's module has the diagonal bug; their test of it is right.
    std::fs::copy(
        "fixtures/submissions/solo-10x10/open-sea-ignores-diagonals/battleships.py",
        sub.join("battleships.py"),
    )
    .unwrap();
    std::fs::write(sub.join("tests/__init__.py"), "").unwrap();
    std::fs::write(
        sub.join("tests/test_battleships.py"),
        r#"import pytest
from battleships import *

SOURCE = open(__import__("battleships").__file__).read().splitlines()


def test_diagonal_is_not_open_sea():
    assert not is_open_sea(5, 7, [(4, 3, True, 4, set())])


def test_never_ends():
    while True:
        pass


@pytest.mark.parametrize("line", SOURCE[:30])
def test_names_carry_the_source(line):
    assert "def" not in line


def test_message_carries_the_source():
    pytest.fail("LEAK " + " ".join(SOURCE), pytrace=False)
"#,
    )
    .unwrap();
    let out = root.join("out");
    let o = broadside()
        .args([
            "grade",
            "--suite",
            SUITE,
            "--submissions",
            root.join("class").as_str(),
        ])
        .args(["--out", out.as_str(), "--marking"])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let sheet = json(&out.join("odd/marking.json"));
    let tests = sheet["figures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "tests")
        .unwrap();
    let lines: Vec<&str> = tests["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let text = lines.join("\n");
    // Tests are named by file and line: line 7 is the right test, line 11 the endless one.
    assert!(
        !text.contains("tests/test_battleships.py:7 "),
        "the right test ran against the student's own module:\n{text}"
    );
    assert!(
        tests["numbers"]["caught"].as_f64().unwrap() >= 1.0,
        "the diagonal test catches the diagonal chaff: {tests}"
    );
    assert!(
        text.contains("tests/test_battleships.py:11 fails") && text.contains("did not finish"),
        "{text}"
    );
    assert!(text.contains("reads source files"), "{text}");
    for file in ["marking.txt", "report.txt", "results.json", "marking.json"] {
        let shown = std::fs::read_to_string(out.join("odd").join(file)).unwrap();
        for secret in ["LEAK", "def is_sunk", "squares_of"] {
            assert!(!shown.contains(secret), "{file} shows `{secret}`:\n{shown}");
        }
    }
}

/// A broken marking scheme is refused by `broadside check` at its line and column, and one
/// whose weights do not add up says so.
#[test]
fn a_broken_scheme_is_refused_where_it_is_broken() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string("specs/marking/grenades-8x8.toml").unwrap();
    // Each named for its assignment, as grade finds it (a misnamed one is refused first).
    for d in ["bad-kind", "bad-weights"] {
        std::fs::create_dir(dir.path().join(d)).unwrap();
    }
    let bad_kind = dir.path().join("bad-kind/grenades-8x8.toml");
    std::fs::write(
        &bad_kind,
        good.replace("mark = \"behaviour\"", "mark = \"style\""),
    )
    .unwrap();
    let bad_weights = dir.path().join("bad-weights/grenades-8x8.toml");
    std::fs::write(&bad_weights, good.replace("weight = 100", "weight = 90")).unwrap();
    for (file, want) in [
        (&bad_kind, "unknown variant `style`"),
        (&bad_weights, "weights add up to 90, not out_of = 100"),
    ] {
        let o = broadside().arg("check").arg(file).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        let line_col = regex::Regex::new(&format!(
            "{}:[0-9]+:[0-9]+: .*{}",
            regex::escape(&file.to_string_lossy()),
            regex::escape(want)
        ))
        .unwrap();
        assert!(line_col.is_match(&stderr), "{stderr}");
    }
}

/// The hostile test suites of `fixtures/marking/hostile/`, graded once: the output folder.
fn hostile_graded() -> &'static Utf8PathBuf {
    static OUT: std::sync::OnceLock<(tempfile::TempDir, Utf8PathBuf)> = std::sync::OnceLock::new();
    &OUT.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = Utf8PathBuf::from_path_buf(dir.path().join("out")).unwrap();
        for a in ["solo-10x10", "colab-6x6"] {
            let class = Utf8PathBuf::from(format!("fixtures/marking/hostile/{a}"));
            grade_marking(a, &class, &out.join(a));
        }
        (dir, out)
    })
    .1
}

/// The tests figure of a hostile sample, and every student view of it as one text.
fn hostile_sheet(sample: &str) -> (Value, String) {
    let dir = hostile_graded().join(sample);
    let sheet = json(&dir.join("marking.json"));
    let tests = sheet["figures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "tests")
        .unwrap()
        .clone();
    let mut views = String::new();
    for file in ["marking.txt", "report.txt", "results.json", "marking.json"] {
        views.push_str(&std::fs::read_to_string(dir.join(file)).unwrap());
    }
    (tests, views)
}

/// Tests made at collection and named after each line of the module under test (hex), and
/// parametrised cases with such ids: no view names them, so the wheat cannot be read back;
/// and cases that follow the module's source (missing on a buggy version) catch nothing.
#[test]
fn tests_named_after_the_wheat_reach_no_view() {
    let (tests, views) = hostile_sheet("solo-10x10/generated-names");
    // "def " in hex: every line of the wheat that defines a function starts with it.
    assert!(!views.contains("64656620"), "{views}");
    assert!(!views.contains("test_every_line"), "{views}");
    let lines = tests["lines"].to_string();
    assert!(lines.contains("made at collection"), "{lines}");
    assert!(
        lines.contains("test_battleships.py:31 calls none"),
        "{lines}"
    );
    assert_eq!(tests["numbers"]["caught"], 0.0, "{tests}");
}

/// A helper module the student ships calls the plugin's own writer: 41 forged passing tests
/// that call every function and fail on every buggy version (told apart by reading the
/// source), a forged failure and a forged collection error carrying the source. The tests
/// figure stays short and catches nothing; no view shows the forged text; the marker is
/// told where the helper reads the source and ends its own process.
#[test]
fn the_plugins_writer_called_from_a_helper_module_decides_nothing() {
    let (tests, views) = hostile_sheet("solo-10x10/forged-results");
    assert!(!views.contains("LEAK"), "{views}");
    assert_eq!(tests["state"], "short", "{tests}");
    assert_eq!(tests["numbers"]["caught"], 0.0, "{tests}");
    assert_eq!(tests["numbers"]["passing"], 0.0, "{tests}");
    let lines = tests["lines"].to_string();
    // The run claims tests pytest cannot find: nothing it says is counted.
    assert!(
        tests["summary"]
            .as_str()
            .unwrap()
            .contains("ran tests that pytest does not find in it"),
        "{tests}"
    );
    assert!(
        lines.contains("helpers.py reads source files")
            && lines.contains("helpers.py ends its own process"),
        "{lines}"
    );
}

/// The notebook style: the checks reach the runner's writer through `__main__` and claim 30
/// passing checks and a failing check as passing. Claims for checks that are not written
/// in the file are not counted, the false claim is found by the run that confirms, and no
/// view shows the text the checks wrote.
#[test]
fn the_script_runners_writer_called_from_the_notebook_decides_nothing() {
    let (tests, views) = hostile_sheet("colab-6x6/forged-checks");
    assert!(!views.contains("LEAK"), "{views}");
    assert_eq!(tests["numbers"]["tests"], 2.0, "{tests}");
    assert_eq!(tests["numbers"]["caught"], 0.0, "{tests}");
    let lines = tests["lines"].to_string();
    assert!(lines.contains("31 tests made at collection"), "{lines}");
    assert!(lines.contains("did not all pass when run again"), "{lines}");
    assert!(
        lines.contains("battleship.py ends its own process, changes how pytest reports"),
        "{lines}"
    );
}

/// The tests figure of a solo-10x10 submission of the correct functions and `tests` as its
/// `test_battleships.py`, graded with `--marking`.
fn solo_tests_figure(tests: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
    let sub = root.join("class/sample");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::copy(
        "fixtures/submissions/solo-10x10/correct/battleships.py",
        sub.join("battleships.py"),
    )
    .unwrap();
    std::fs::write(sub.join("test_battleships.py"), tests).unwrap();
    let out = root.join("out");
    grade_marking("solo-10x10", &root.join("class"), &out);
    let sheet = json(&out.join("sample/marking.json"));
    sheet["figures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "tests")
        .unwrap()
        .clone()
}

/// A suite written as a `unittest.TestCase` class whose name does not start with `Test`
/// (pytest collects it): its methods are tests written in the file, counted and named by
/// line like pytest functions, not taken for tests made at collection.
#[test]
fn a_unittest_class_of_any_name_is_counted_as_written_tests() {
    let tests = solo_tests_figure(
        r#"import unittest

from battleships import *


class BattleshipTests(unittest.TestCase):
    def test_sunk(self):
        self.assertTrue(is_sunk((2, 3, False, 2, {(2, 3), (3, 3)})))
        self.assertFalse(is_sunk((2, 3, False, 2, {(2, 3)})))

    def test_wrong(self):
        self.assertEqual(ship_type((0, 0, True, 4, set())), "Battleship")


if __name__ == "__main__":
    unittest.main()
"#,
    );

    assert_eq!(tests["numbers"]["tests"], 2.0, "{tests}");
    assert_eq!(tests["numbers"]["passing"], 1.0, "{tests}");
    assert_eq!(tests["numbers"]["caught"], 2.0, "{tests}");
    let lines = tests["lines"].to_string();
    assert!(
        lines.contains("test_battleships.py:11 fails on a correct implementation"),
        "{lines}"
    );
    assert!(!lines.contains("made at collection"), "{lines}");
}

/// Honest shapes a student writes: cases drawn with `random` at collection, functions
/// imported under another name, a helper method of the test class. Each test is counted,
/// credited with the function it tests, and confirmed (the plugin seeds `random` before
/// collection, so the runs that confirm find the same cases).
#[test]
fn random_cases_aliases_and_helper_methods_are_honest_tests() {
    let tests = solo_tests_figure(
        r#"import random

import pytest

from battleships import place_ship_at
from battleships import is_open_sea as open_sea

CASES = [(random.randint(0, 9), random.randint(0, 9)) for _ in range(5)]


@pytest.mark.parametrize("row,column", CASES)
def test_empty_ocean_is_open_sea(row, column):
    assert open_sea(row, column, [])


class TestPlacing:
    def make_fleet(self, *ships):
        fleet = []
        for s in ships:
            fleet = place_ship_at(s[0], s[1], s[2], s[3], fleet)
        return fleet

    def test_one(self):
        assert self.make_fleet((0, 0, True, 4)) == [(0, 0, True, 4, set())]
"#,
    );

    assert_eq!(tests["numbers"]["tests"], 6.0, "{tests}");
    assert_eq!(tests["numbers"]["passing"], 6.0, "{tests}");
    let rows = tests["functions"].as_array().unwrap();
    let row = |f: &str| rows.iter().find(|r| r["function"] == f).unwrap().clone();
    assert_eq!(row("is_open_sea")["tests"], 5, "{tests}");
    assert_eq!(row("place_ship_at")["tests"], 1, "{tests}");
    assert!(
        !tests["lines"].to_string().contains("calls none"),
        "{tests}"
    );
}

/// A Colab notebook's Step 9 cells are the student's tests (issue 36), as the same cells in
/// Colab's `.py` export are: the same checks, the same chaffs caught; the sheet names each
/// place by its cell, never by a line of a script the student never saw.
#[test]
fn a_notebooks_step_9_cells_are_its_tests_as_its_py_exports_are() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
    for sample in ["notebook-remaining-sorted", "colab-export-remaining-sorted"] {
        copy_dir(
            &Utf8Path::new("fixtures/submissions/colab-6x6").join(sample),
            &root.join("class").join(sample),
        );
    }
    let out = root.join("out");
    grade_marking("colab-6x6", &root.join("class"), &out);
    let tests = |sample: &str| {
        let sheet = json(&out.join(sample).join("marking.json"));
        sheet["figures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["id"] == "tests")
            .unwrap()
            .clone()
    };
    let (notebook, export) = (
        tests("notebook-remaining-sorted"),
        tests("colab-export-remaining-sorted"),
    );
    assert_ne!(notebook["state"], "missing", "{notebook}");
    assert_eq!(
        notebook["numbers"], export["numbers"],
        "{notebook}\n{export}"
    );
    assert_eq!(notebook["numbers"]["tests"], 1.0, "{notebook}");
    let lines = notebook["lines"].to_string();
    assert!(
        lines.contains("(cell 4, `def on_board(n, size):`, line 9;"),
        "{lines}"
    );
    assert!(!lines.contains("reads source files"), "{lines}");
}

/// The stretch goals are found in a notebook's cells as in a `.py` (the probe runs the cells
/// as "Restart and run all" does), and pycodestyle, which reads `.py` files only, says the
/// notebook is the marker's to read rather than that there is no Python.
#[test]
fn a_notebooks_stretch_goals_are_found_in_its_cells() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
    let source =
        std::fs::read_to_string("fixtures/marking/colab-6x6/stretch-goals/battleship.py").unwrap();
    let notebook = serde_json::json!({
        "nbformat": 4, "nbformat_minor": 0, "metadata": {"colab": {"provenance": []}},
        "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1,
             "source": ["!pip install ipywidgets\n"]},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 2,
             "source": [source]},
        ]
    });
    let sub = root.join("class/stretch-notebook");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("Battleship.ipynb"), notebook.to_string()).unwrap();
    let out = root.join("out");
    grade_marking("colab-6x6", &root.join("class"), &out);
    let sheet = json(&out.join("stretch-notebook/marking.json"));
    let figure = |id: &str| {
        sheet["figures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["id"] == id)
            .unwrap()
            .clone()
    };
    let stretch = figure("stretch-goals");
    assert_eq!(stretch["state"], "ok", "{stretch}");
    assert_eq!(stretch["numbers"]["found"], 2.0, "{stretch}");
    let style = figure("pycodestyle");
    assert!(
        style["summary"]
            .as_str()
            .unwrap()
            .contains("Battleship.ipynb is a notebook"),
        "{style}"
    );
}
