//! Third-party packages in Python submissions (issue 36, section 2): a package the course does
//! not allow is the student's finding, named; one `suite.toml` allows (`python_packages`) is
//! installed by broadside once, before grading, outside the jail, and given to the child; one
//! that cannot be installed is the grader's failure (exit 3, nothing graded).
//!
//! No test needs a network: pip runs with `PIP_NO_INDEX=1` and `PIP_FIND_LINKS` pointing at a
//! folder holding a wheel the test writes itself (a zip with the package's one module and its
//! `dist-info`: the whole of a pure-Python wheel), so the install path runs as it does for
//! `numpy`, on a fresh machine with nothing but Python and pip. broadside's cache goes to a
//! temporary folder (`BROADSIDE_CACHE_DIR`).

mod common;
use common::broadside;
use std::path::Path;

/// A scenario suite of colab-6x6's handout example, with `suite.toml` saying `extra`.
fn suite(dir: &Path, extra: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::copy(
        "fixtures/scenarios/colab-6x6/01-handout-example.toml",
        dir.join("01-handout-example.toml"),
    )
    .unwrap();
    std::fs::write(
        dir.join("suite.toml"),
        format!("assignment = \"colab-6x6\"\n{extra}\n"),
    )
    .unwrap();
}

/// The correct colab-6x6 sample, with `is_valid_position` taken from the package `package`.
fn submission(dir: &Path, package: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let correct =
        std::fs::read_to_string("fixtures/submissions/colab-6x6/correct/battleship.py").unwrap();
    let (head, tail) = correct.split_once("def is_valid_position").unwrap();
    let rest = tail.split_once("\n\n\n").unwrap().1;
    std::fs::write(
        dir.join("battleship.py"),
        format!(
            "{head}from {package} import on_board\n\n\ndef is_valid_position(game, position):\n    return on_board(game[\"size\"], position)\n\n\n{rest}"
        ),
    )
    .unwrap();
}

/// `broadside run SUITE --target python:SUB --format text`, pip kept off the network.
fn run(tmp: &Path, suite: &Path, sub: &Path) -> assert_cmd::assert::Assert {
    broadside()
        .env("BROADSIDE_CACHE_DIR", tmp.join("cache"))
        .env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", tmp.join("links"))
        .env_remove("BROADSIDE_PYTHON_PACKAGES_DIR")
        .args([
            "run",
            suite.to_str().unwrap(),
            "--format",
            "text",
            "--target",
        ])
        .arg(format!("python:{}", sub.display()))
        .assert()
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stdout).into_owned()
}

#[test]
fn a_package_the_course_does_not_allow_is_the_students_finding_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let sub = tmp.path().join("sub");
    // A package that exists nowhere: the grader certainly does not have it.
    submission(&sub, "broadside_no_such_package_36");
    suite(&tmp.path().join("suite"), "");
    let a = run(tmp.path(), &tmp.path().join("suite"), &sub).code(1);
    let out = stdout(&a);
    assert!(
        out.contains("battleship.py imports `broadside_no_such_package_36`, a package the course does not allow (suite.toml's python_packages lists none)"),
        "{out}"
    );
    assert!(!out.contains("raised ModuleNotFoundError"), "{out}");
    // Allowing another package does not allow this one; the finding names what is allowed.
    common::tidewater_wheel(&tmp.path().join("links"));
    suite(
        &tmp.path().join("suite2"),
        "python_packages = [\"tidewater\"]",
    );
    let a = run(tmp.path(), &tmp.path().join("suite2"), &sub).code(1);
    assert!(
        stdout(&a).contains(
            "the course does not allow (suite.toml's python_packages lists only tidewater)"
        ),
        "{}",
        stdout(&a)
    );
}

#[test]
fn a_package_the_suite_allows_is_installed_once_and_given_to_the_child() {
    let tmp = tempfile::tempdir().unwrap();
    let sub = tmp.path().join("sub");
    submission(&sub, "tidewater");
    common::tidewater_wheel(&tmp.path().join("links"));
    // Without the suite's word, tidewater is the student's finding...
    suite(&tmp.path().join("plain"), "");
    let a = run(tmp.path(), &tmp.path().join("plain"), &sub).code(1);
    assert!(stdout(&a).contains("imports `tidewater`"), "{}", stdout(&a));
    // ...with it, broadside installs it (offline, from the wheel) and the module imports.
    suite(
        &tmp.path().join("allowed"),
        "python_packages = [\"tidewater\"]",
    );
    let a = run(tmp.path(), &tmp.path().join("allowed"), &sub).code(0);
    assert!(
        stdout(&a).contains("1 passed, 0 failed, 0 errors"),
        "{}",
        stdout(&a)
    );
    let cache = tmp.path().join("cache/python-packages");
    let installed: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(installed.len(), 1, "{installed:?}");
    assert!(installed[0].join("tidewater/__init__.py").is_file());
    assert!(installed[0].join(".complete").is_file());
    // Installed once: a second run takes the cache even with the wheel gone.
    std::fs::remove_dir_all(tmp.path().join("links")).unwrap();
    run(tmp.path(), &tmp.path().join("allowed"), &sub).code(0);
}

#[test]
fn a_package_that_cannot_be_installed_is_the_graders_failure_not_a_zero() {
    let tmp = tempfile::tempdir().unwrap();
    let sub = tmp.path().join("sub");
    submission(&sub, "tidewater");
    std::fs::create_dir_all(tmp.path().join("links")).unwrap();
    suite(
        &tmp.path().join("suite"),
        "python_packages = [\"broadside-no-such-package-36\"]",
    );
    let a = run(tmp.path(), &tmp.path().join("suite"), &sub).code(3);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains(
            "could not install the Python packages the suite allows (broadside-no-such-package-36)"
        ) && err.contains("No matching distribution found"),
        "{err}"
    );
    assert!(stdout(&a).is_empty(), "nothing graded: {}", stdout(&a));
}

#[test]
fn a_python_packages_entry_that_is_not_a_package_name_points_at_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    suite(
        &tmp.path().join("suite"),
        "python_packages = [\"numpy\", \"--index-url=http://example.org\"]",
    );
    let a = broadside()
        .args(["check", tmp.path().join("suite").to_str().unwrap()])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains("suite.toml:2:")
            && err.contains(
                "python_packages: `--index-url=http://example.org` is not a package name"
            ),
        "{err}"
    );
}

/// `grade` installs the suite's packages once for the whole class, before any submission:
/// one that uses an allowed package is graded on its functions, one that imports a package
/// the course does not allow gets the finding, both in the same run.
#[test]
fn grade_provides_the_allowed_packages_to_every_submission_of_the_class() {
    let tmp = tempfile::tempdir().unwrap();
    common::tidewater_wheel(&tmp.path().join("links"));
    suite(
        &tmp.path().join("suite"),
        "python_packages = [\"tidewater\"]",
    );
    submission(&tmp.path().join("class/allowed"), "tidewater");
    submission(
        &tmp.path().join("class/not-allowed"),
        "broadside_no_such_package_36",
    );
    let out = tmp.path().join("out");
    broadside()
        .env("BROADSIDE_CACHE_DIR", tmp.path().join("cache"))
        .env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", tmp.path().join("links"))
        .env_remove("BROADSIDE_PYTHON_PACKAGES_DIR")
        .args(["grade", "--jobs", "1", "--suite"])
        .arg(tmp.path().join("suite"))
        .arg("--submissions")
        .arg(tmp.path().join("class"))
        .arg("--out")
        .arg(&out)
        .assert()
        .code(0);
    let score = |who: &str| -> f64 {
        let report: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.join(who).join("report.json")).unwrap(),
        )
        .unwrap();
        report["summary"]["score"].as_f64().unwrap()
    };
    assert_eq!(score("allowed"), 5.0);
    assert_eq!(score("not-allowed"), 0.0);
    let text = std::fs::read_to_string(out.join("not-allowed/report.txt")).unwrap();
    assert!(
        text.contains("imports `broadside_no_such_package_36`, a package the course does not allow (suite.toml's python_packages lists only tidewater)"),
        "{text}"
    );
}

/// `grade --marking` runs the student's own tests with the suite's packages too: a pytest
/// file that imports an allowed package is collected and run against the correct and buggy
/// implementations, as on the student's machine.
#[test]
fn the_students_own_tests_get_the_allowed_packages_under_marking() {
    let tmp = tempfile::tempdir().unwrap();
    common::tidewater_wheel(&tmp.path().join("links"));
    let suite = tmp.path().join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    std::fs::copy(
        "fixtures/scenarios/solo-10x10/01-perfect-game.toml",
        suite.join("01-perfect-game.toml"),
    )
    .unwrap();
    std::fs::write(
        suite.join("suite.toml"),
        "assignment = \"solo-10x10\"\npython_packages = [\"tidewater\"]\n",
    )
    .unwrap();
    let sub = tmp.path().join("class/uses-tidewater");
    std::fs::create_dir_all(&sub).unwrap();
    let correct = "fixtures/submissions/solo-10x10/correct";
    std::fs::copy(
        format!("{correct}/battleships.py"),
        sub.join("battleships.py"),
    )
    .unwrap();
    let tests = std::fs::read_to_string(format!("{correct}/test_battleships.py")).unwrap();
    std::fs::write(
        sub.join("test_battleships.py"),
        format!("from tidewater import on_board\n{tests}\n\ndef test_ok_to_place_stays_on_board():\n    assert on_board(10, (0, 9))\n    assert not ok_to_place_ship_at(0, 9, True, 2, [])\n"),
    )
    .unwrap();
    let out = tmp.path().join("out");
    broadside()
        .env("BROADSIDE_CACHE_DIR", tmp.path().join("cache"))
        .env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", tmp.path().join("links"))
        .env_remove("BROADSIDE_PYTHON_PACKAGES_DIR")
        .args(["grade", "--jobs", "1", "--marking", "--suite"])
        .arg(&suite)
        .arg("--submissions")
        .arg(tmp.path().join("class"))
        .arg("--out")
        .arg(&out)
        .assert()
        .code(0);
    let sheet: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("uses-tidewater/marking.json")).unwrap(),
    )
    .unwrap();
    let figures = sheet["figures"].as_array().unwrap();
    let tests = figures.iter().find(|f| f["id"] == "tests").unwrap();
    // The correct sample's eleven tests and the one that uses tidewater, all passing.
    assert_eq!(tests["numbers"]["tests"].as_f64(), Some(12.0), "{tests}");
    assert_eq!(tests["numbers"]["passing"].as_f64(), Some(12.0), "{tests}");
}
