//! A sixth assignment from files alone. `tests/toy/` (its README says what each file is) holds
//! toy-4x4: a spec, its marking scheme, published scenarios, a course's own driver speaking
//! broadside's protocol, and a class of samples with `expected.toml`. broadside bundles
//! nothing of it, yet checks it, plays it against the reference, and grades the class with
//! its marking sheet, every sample as `expected.toml` pins it. What a course adds for an
//! assignment broadside does not bundle is these files, and no change to broadside.

mod common;

use broadside::report::Report;
use std::collections::{BTreeMap, BTreeSet};

const SPEC: &str = "tests/toy/specs/toy-4x4.toml";
const SCENARIOS: &str = "tests/toy/scenarios";
const CLASS: &str = "tests/toy/submissions";

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    bug: String,
    fails: Vec<String>,
    /// The marking sheet's automatic criterion `functions` (of 80).
    functions: f64,
    /// Whether the `readme` figure finds README.txt.
    readme: bool,
}

fn expected() -> BTreeMap<String, Expected> {
    toml::from_str(&std::fs::read_to_string(format!("{CLASS}/expected.toml")).unwrap()).unwrap()
}

/// The course's driver, run with the Python the tests use.
fn target() -> String {
    let driver = std::fs::canonicalize("tests/toy/driver.py").unwrap();
    format!("cmd:python3 {} {{}}", driver.display())
}

#[test]
fn nothing_of_the_toy_is_bundled() {
    let specs = broadside::spec::SpecSet::builtin();
    assert!(specs.get("toy-4x4").is_none());
    assert!(broadside::marking::bundled("toy-4x4").is_none());
    // broadside does not know it without its spec.
    common::broadside()
        .args(["check", SCENARIOS])
        .assert()
        .code(2);
}

#[test]
fn the_toy_is_checked_and_the_reference_passes_it() {
    let checked = common::broadside()
        .args(["check", "--spec", SPEC, SCENARIOS])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&checked.get_output().stdout).to_string();
    assert!(stdout.contains("1 spec, 4 scenarios"), "{stdout}");
    // The folder as a whole: the spec, and its marking scheme beside it.
    let checked = common::broadside()
        .args(["check", "tests/toy/specs", SCENARIOS])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&checked.get_output().stdout).to_string();
    assert!(
        stdout.contains("1 spec, 1 marking file, 4 scenarios"),
        "{stdout}"
    );
    let out = common::broadside()
        .args(["run", "--spec", SPEC, SCENARIOS, "--format", "json"])
        .assert()
        .success();
    let report: Report = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(report.scenarios.len(), 4);
    assert!(
        report.summary.failed == 0 && report.summary.errors == 0,
        "{:?}",
        report.summary
    );
}

#[test]
fn the_toy_class_is_graded_with_its_marking_sheet() {
    let expected = expected();
    let folders: BTreeSet<String> = std::fs::read_dir(CLASS)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    assert_eq!(folders, expected.keys().cloned().collect());
    let out = tempfile::tempdir().unwrap();
    let target = target();
    common::broadside()
        .args(["grade", "--spec", SPEC, "--suite", SCENARIOS, "--marking"])
        .args([
            "--target",
            &target,
            "--formats",
            "json",
            "--submissions",
            CLASS,
        ])
        .arg("--out")
        .arg(out.path())
        .assert()
        .success();
    let mut problems = Vec::new();
    for (name, want) in &expected {
        let dir = out.path().join(name);
        let report: Report =
            serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap())
                .unwrap();
        problems.extend(common::fail_sets(
            name,
            &want.bug,
            &want.fails,
            &[],
            &report.scenarios,
        ));
        let sheet: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("marking.json")).unwrap())
                .unwrap();
        assert_eq!(sheet["assignment"], "toy-4x4");
        let functions = sheet["criteria"][0]["mark"].as_f64().unwrap();
        if (functions - want.functions).abs() > 0.005 {
            problems.push(format!(
                "{name}: functions {functions}, wanted {}",
                want.functions
            ));
        }
        let readme = &sheet["figures"][0];
        assert_eq!(readme["id"], "readme");
        if (readme["state"] == "ok") != want.readme {
            problems.push(format!("{name}: README.txt figure {}", readme["state"]));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `grade --marking` of the toy class through the course's driver; the caller adds `--spec`
/// and `--out`.
fn marking_grade() -> assert_cmd::Command {
    let mut cmd = common::broadside();
    cmd.args([
        "grade",
        "--suite",
        SCENARIOS,
        "--marking",
        "--target",
        &target(),
    ])
    .args(["--submissions", CLASS]);
    cmd
}

/// Standard error of `grade --marking` of the toy class with `--spec spec` into `out`, which
/// must refuse to grade (exit 2).
fn refused_grade(spec: &std::path::Path, out: &std::path::Path) -> String {
    let run = marking_grade()
        .arg("--spec")
        .arg(spec)
        .arg("--out")
        .arg(out)
        .assert()
        .code(2);
    String::from_utf8_lossy(&run.get_output().stderr).to_string()
}

#[test]
fn a_broken_scheme_beside_the_spec_is_the_authors_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("marking")).unwrap();
    let spec = dir.path().join("toy-4x4.toml");
    std::fs::copy(SPEC, &spec).unwrap();
    let scheme = std::fs::read_to_string("tests/toy/specs/marking/toy-4x4.toml").unwrap();
    let broken = dir.path().join("marking/toy-4x4.toml");
    std::fs::write(&broken, scheme.replace("weight = 80", "weight = 70")).unwrap();
    let out = tempfile::tempdir().unwrap();
    let stderr = refused_grade(&spec, out.path());
    assert!(
        stderr.contains(&broken.display().to_string())
            && stderr.contains("the criteria's weights add up to 90, not out_of = 100"),
        "{stderr}"
    );
    // Nothing was graded.
    assert!(!out.path().join("summary.csv").exists());
}

#[test]
fn a_bundled_driver_is_refused_for_the_toy_before_anything_is_graded() {
    // Without --target, grade would pick `python:{}` from the spec's language; broadside's
    // Python driver grades only the bundled assignments, so the whole class would fail.
    for target in [None, Some("python:{}")] {
        let out = tempfile::tempdir().unwrap();
        let mut cmd = common::broadside();
        cmd.args([
            "grade",
            "--spec",
            SPEC,
            "--suite",
            SCENARIOS,
            "--submissions",
            CLASS,
        ])
        .arg("--out")
        .arg(out.path());
        if let Some(t) = target {
            cmd.args(["--target", t]);
        }
        let run = cmd.assert().code(2);
        let stderr = String::from_utf8_lossy(&run.get_output().stderr).to_string();
        let default = if target.is_none() {
            " (the default for the spec's language)"
        } else {
            ""
        };
        assert!(
            stderr.contains(&format!(
                "`python:{{}}`{default}: broadside's python driver grades the bundled assignments, not toy-4x4"
            ))
                && stderr.contains("cmd:python3 driver.py {}"),
            "{target:?}: {stderr}"
        );
        assert!(!out.path().join("summary.csv").exists());
    }
}

/// A copy of the toy's spec and scheme in a folder of its own (`<dir>/toy-4x4.toml` and
/// `<dir>/marking/toy-4x4.toml`), the scheme's weights `functions` and 100 − `functions`.
fn spec_folder(dir: &std::path::Path, functions: u32) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.join("marking")).unwrap();
    let spec = dir.join("toy-4x4.toml");
    std::fs::copy(SPEC, &spec).unwrap();
    let scheme = std::fs::read_to_string("tests/toy/specs/marking/toy-4x4.toml")
        .unwrap()
        .replace("weight = 80", &format!("weight = {functions}"))
        .replace("weight = 20", &format!("weight = {}", 100 - functions));
    std::fs::write(dir.join("marking/toy-4x4.toml"), scheme).unwrap();
    spec
}

/// `grade --marking` of the toy class with these `--spec` files into `out`: its standard
/// error, and the correct sample's `functions` weight on its sheet.
fn grade_with(specs: &[&std::path::Path], out: &std::path::Path, resume: bool) -> (String, u64) {
    let mut cmd = marking_grade();
    cmd.args(["--formats", "json"]).arg("--out").arg(out);
    for spec in specs {
        cmd.arg("--spec").arg(spec);
    }
    if resume {
        cmd.arg("--resume");
    }
    let run = cmd.assert().success();
    let stderr = String::from_utf8_lossy(&run.get_output().stderr).to_string();
    let sheet: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("correct/marking.json")).unwrap())
            .unwrap();
    (stderr, sheet["criteria"][0]["weight"].as_u64().unwrap())
}

#[test]
fn the_scheme_is_the_one_beside_the_spec_in_use_and_resume_sees_it_change() {
    let dir = tempfile::tempdir().unwrap();
    let first = spec_folder(&dir.path().join("first"), 60);
    let second = spec_folder(&dir.path().join("second"), 70);
    let out = dir.path().join("out");
    // The last --spec defines toy-4x4, so its scheme marks, never the first's.
    let (_, weight) = grade_with(&[&first, &second], &out, false);
    assert_eq!(weight, 70);
    let (_, weight) = grade_with(&[&second, &first], &out, false);
    assert_eq!(weight, 60);
    // Resumed with nothing changed: nothing is graded again.
    let (stderr, weight) = grade_with(&[&second, &first], &out, true);
    assert!(stderr.contains("(4 resumed)"), "{stderr}");
    assert_eq!(weight, 60);
    // The scheme edited: every submission is marked again with it.
    spec_folder(&dir.path().join("first"), 90);
    let (stderr, weight) = grade_with(&[&second, &first], &out, true);
    assert!(stderr.contains("(0 resumed)"), "{stderr}");
    assert_eq!(weight, 90);
}

#[test]
fn a_student_tests_file_without_its_scheme_is_refused_and_a_misnamed_scheme_is_found_by_check() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_folder(dir.path(), 80);
    std::fs::rename(
        dir.path().join("marking/toy-4x4.toml"),
        dir.path().join("marking/toy_4x4.toml"),
    )
    .unwrap();
    std::fs::copy(
        "specs/marking/solo-10x10.tests.toml",
        dir.path().join("marking/toy-4x4.tests.toml"),
    )
    .unwrap();
    let out = dir.path().join("out");
    let stderr = refused_grade(&spec, &out);
    assert!(
        stderr.contains("toy-4x4.tests.toml has no scheme beside it"),
        "{stderr}"
    );
    // check names both: the misnamed scheme (grade would never find it) and the
    // student-tests file with no scheme beside it.
    let run = common::broadside()
        .arg("check")
        .arg(dir.path())
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&run.get_output().stderr).to_string();
    assert!(
        stderr.contains("the scheme is for `toy-4x4` but the file is `toy_4x4.toml`")
            && stderr.contains("a student-tests file with no scheme beside it")
            && stderr.contains("2 problems found"),
        "{stderr}"
    );
}
