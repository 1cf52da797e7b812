//! `broadside autograder` builds a Gradescope autograder zip; its `run_autograder` runs in a
//! scratch root laid out as Gradescope lays it out (`source/` the unpacked zip,
//! `submission/` the student's files, no `results/` yet), as the harness would run it.

mod common;
use std::path::Path;

/// Unpacks `zip` into `dir`, keeping each file's mode.
fn unpack(zip: &Path, dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut archive = zip::ZipArchive::new(std::fs::File::open(zip).unwrap()).unwrap();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let to = dir.join(entry.enclosed_name().unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        let mut file = std::fs::File::create(&to).unwrap();
        std::io::copy(&mut entry, &mut file).unwrap();
        if let Some(mode) = entry.unix_mode() {
            std::fs::set_permissions(&to, std::fs::Permissions::from_mode(mode)).unwrap();
        }
    }
}

/// Builds the example repository's autograder zip in `scratch`; it must succeed.
fn build_zip(scratch: &Path) -> std::path::PathBuf {
    let zip = scratch.join("autograder.zip");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_broadside"))
        .args([
            "autograder",
            "--suite",
            "examples/grading-repo/suites",
            "--out",
        ])
        .arg(&zip)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    zip
}

#[test]
fn the_built_autograder_grades_a_submission_in_gradescopes_layout() {
    let scratch = tempfile::tempdir().unwrap();
    let zip = build_zip(scratch.path());
    for (submission, full) in [
        ("fixtures/submissions/colab-6x6/correct/battleship.py", true),
        (
            "fixtures/submissions/colab-6x6/has-won-inverted/battleship.py",
            false,
        ),
    ] {
        let root = tempfile::tempdir().unwrap();
        let autograder = root.path().join("autograder");
        unpack(&zip, &autograder.join("source"));
        let setup = std::fs::read_to_string(autograder.join("source/setup.sh")).unwrap();
        assert!(
            setup.contains("install -y --no-install-recommends python3"),
            "{setup}"
        );
        std::fs::create_dir_all(autograder.join("submission")).unwrap();
        std::fs::copy(submission, autograder.join("submission/battleship.py")).unwrap();
        let run = std::process::Command::new(autograder.join("source/run_autograder"))
            .env("AUTOGRADER_ROOT", &autograder)
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&run.stderr);
        assert_eq!(
            run.status.code(),
            Some(0),
            "a failing student is a score: {log}"
        );
        // The instructors' "Autograder Output" box gets one line.
        assert!(
            log.contains("scenarios listed:") && log.contains("results.json"),
            "{log}"
        );
        let results: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(autograder.join("results/results.json")).unwrap(),
        )
        .unwrap();
        let score = results["score"].as_f64().unwrap();
        assert_eq!(score == 100.0, full, "{results}");
        assert!(score > 0.0);
        assert_eq!(results["tests"].as_array().unwrap().len(), 6);
        // A hidden scenario's steps stay out of what students see.
        let hidden = results["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"].as_str().unwrap().contains("hidden/"))
            .unwrap();
        assert!(
            !hidden["output"].as_str().unwrap().contains("fire "),
            "{hidden}"
        );
    }
}

#[test]
fn a_grader_side_failure_is_an_autograder_error_not_a_zero() {
    let scratch = tempfile::tempdir().unwrap();
    let zip = build_zip(scratch.path());
    let autograder = scratch.path().join("autograder");
    unpack(&zip, &autograder.join("source"));
    // No submission folder at all: broadside refuses the target (exit 2), and so does the
    // script, so Gradescope reports its own failure instead of scoring the student 0.
    let run = std::process::Command::new(autograder.join("source/run_autograder"))
        .env("AUTOGRADER_ROOT", &autograder)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(!autograder.join("results/results.json").exists());
}

#[test]
fn setup_fails_the_image_when_the_packed_binary_cannot_run_there() {
    let scratch = tempfile::tempdir().unwrap();
    let zip = build_zip(scratch.path());
    let autograder = scratch.path().join("autograder");
    unpack(&zip, &autograder.join("source"));
    // setup.sh without its package installs (this machine is not Gradescope's image), in the
    // scratch root.
    let setup = std::fs::read_to_string(autograder.join("source/setup.sh")).unwrap();
    let check: String = setup
        .lines()
        .filter(|l| !l.starts_with("apt-get") && !l.contains("apt-get install"))
        .map(|l| l.replace("/autograder", autograder.to_str().unwrap()) + "\n")
        .collect();
    let script = scratch.path().join("check.sh");
    std::fs::write(&script, check).unwrap();
    let run = || {
        std::process::Command::new("sh")
            .arg(&script)
            .output()
            .unwrap()
    };
    let ok = run();
    assert!(
        ok.status.success() && String::from_utf8_lossy(&ok.stdout).contains("is ready"),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    // A binary the image's loader refuses, as a glibc build newer than the image's is.
    std::fs::write(
        autograder.join("source/broadside"),
        "#!/bin/sh\necho \"broadside: /lib/x86_64-linux-gnu/libc.so.6: version \\`GLIBC_2.34' not found\" >&2\nexit 1\n",
    )
    .unwrap();
    let refused = run();
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{said}");
    assert!(
        said.contains("cannot run on this image") && said.contains("GLIBC_2.34"),
        "{said}"
    );
}

/// A suite's `python_packages` (issue 36, section 2): `setup.sh` installs them with pip into
/// `source/python-packages` when the image is built, and `run_autograder` gives them to the
/// student's code without installing anything. Offline: the test runs setup.sh's own pip line
/// (rooted in the scratch folder) against a wheel it wrote (`PIP_NO_INDEX`, `PIP_FIND_LINKS`).
#[test]
fn the_suites_python_packages_are_installed_by_setup_and_given_to_the_submission() {
    let scratch = tempfile::tempdir().unwrap();
    let suite = scratch.path().join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    std::fs::copy(
        "fixtures/scenarios/colab-6x6/01-handout-example.toml",
        suite.join("01-handout-example.toml"),
    )
    .unwrap();
    std::fs::write(
        suite.join("suite.toml"),
        "assignment = \"colab-6x6\"\npython_packages = [\"tidewater\"]\n",
    )
    .unwrap();
    let zip = scratch.path().join("autograder.zip");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_broadside"))
        .args(["autograder", "--suite", suite.to_str().unwrap(), "--out"])
        .arg(&zip)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let autograder = scratch.path().join("autograder");
    let source = autograder.join("source");
    unpack(&zip, &source);
    let setup = std::fs::read_to_string(source.join("setup.sh")).unwrap();
    assert!(setup.contains("python3 python3-pip"), "{setup}");
    let pip = setup
        .lines()
        .find(|l| l.starts_with("python3 -m pip install"))
        .unwrap_or_else(|| panic!("no pip line in {setup}"));
    assert!(
        pip.ends_with("--target /autograder/source/python-packages -- tidewater"),
        "{pip}"
    );
    let links = scratch.path().join("links");
    common::tidewater_wheel(&links);
    let installed = std::process::Command::new("sh")
        .args([
            "-c",
            &pip.replace("/autograder/source", source.to_str().unwrap()),
        ])
        .env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", &links)
        .output()
        .unwrap();
    assert!(installed.status.success(), "{installed:?}");
    // The student's module takes is_valid_position's arithmetic from tidewater.
    let correct =
        std::fs::read_to_string("fixtures/submissions/colab-6x6/correct/battleship.py").unwrap();
    std::fs::create_dir_all(autograder.join("submission")).unwrap();
    std::fs::write(
        autograder.join("submission/battleship.py"),
        correct.replacen(
            "def is_valid_position(game, position):\n    row, col = position\n    return 0 <= row < game[\"size\"] and 0 <= col < game[\"size\"]",
            "from tidewater import on_board\n\n\ndef is_valid_position(game, position):\n    return on_board(game[\"size\"], position)",
            1,
        ),
    )
    .unwrap();
    // No index, no wheel, no cache: whatever the submission gets, setup.sh installed.
    std::fs::remove_dir_all(&links).unwrap();
    let run = std::process::Command::new(source.join("run_autograder"))
        .env("AUTOGRADER_ROOT", &autograder)
        .env("PIP_NO_INDEX", "1")
        .env("BROADSIDE_CACHE_DIR", scratch.path().join("no-cache"))
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let results: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(autograder.join("results/results.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(results["score"].as_f64(), Some(5.0), "{results}");
    assert!(!scratch.path().join("no-cache").exists());
}

/// Runs the unpacked autograder on one uploaded file (`name` in `submission/`); its results.
fn grade_upload(zip: &Path, file: &str, name: &str) -> serde_json::Value {
    let root = tempfile::tempdir().unwrap();
    let autograder = root.path().join("autograder");
    unpack(zip, &autograder.join("source"));
    std::fs::create_dir_all(autograder.join("submission")).unwrap();
    std::fs::copy(file, autograder.join("submission").join(name)).unwrap();
    let run = std::process::Command::new(autograder.join("source/run_autograder"))
        .env("AUTOGRADER_ROOT", &autograder)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{file}: {log}");
    serde_json::from_str(&std::fs::read_to_string(autograder.join("results/results.json")).unwrap())
        .unwrap()
}

/// colab-6x6's students "upload the completed notebook": an uploaded `.ipynb` grades as its
/// `.py` twin does (issue 36), its cells run as "Restart and run all" runs them.
#[test]
fn an_uploaded_notebook_grades_as_its_py_twin() {
    let scratch = tempfile::tempdir().unwrap();
    let zip = build_zip(scratch.path());
    let dir = "fixtures/submissions/colab-6x6";
    for (notebook, twin, full) in [
        ("notebook-correct", "correct", true),
        ("notebook-remaining-sorted", "remaining-sorted", false),
    ] {
        let got = grade_upload(
            &zip,
            &format!("{dir}/{notebook}/Battleship.ipynb"),
            "Battleship.ipynb",
        );
        let want = grade_upload(
            &zip,
            &format!("{dir}/{twin}/battleship.py"),
            "battleship.py",
        );
        let score = got["score"].as_f64().unwrap();
        assert_eq!(score, want["score"].as_f64().unwrap(), "{notebook}: {got}");
        assert_eq!(score == 100.0, full, "{notebook}: {got}");
        assert!(score > 0.0, "{notebook}: {got}");
    }
}
