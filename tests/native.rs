//! Native submissions (`--target native:PATH`): the header compiles cleanly, every sample in
//! `fixtures/submissions/colab-6x6-native/` is built with the machine's `cc` and `cargo` and
//! gets exactly the verdict `expected.toml` pins (the scenarios it fails and the kind of
//! every fault), the grading process survives each one, and the ABI covers solo-10x10 and
//! battleboats: a C sample of each passes every published scenario.

mod common;
use common::{fail_sets, file};

use broadside::play::run_all;
use broadside::report::{ScenarioResult, Status};
use broadside::spec::SpecSet;
use broadside::target::limits::Limits;
use broadside::target::native;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

const SAMPLES: &str = "fixtures/submissions/colab-6x6-native";
const WORKER: &str = env!("CARGO_BIN_EXE_broadside");

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    bug: String,
    /// Scenario files that do not pass.
    fails: Vec<String>,
    /// Those among them that end in a fault (status `error`).
    #[serde(default)]
    faults: Vec<String>,
    /// The kind of every fault, e.g. `crash`.
    #[serde(default)]
    fault: Option<String>,
    /// Words every fault's message contains.
    #[serde(default)]
    message: Vec<String>,
}

/// Generous time limits, so a loaded machine never turns a right answer into a timeout.
fn limits() -> Limits {
    Limits {
        request_timeout: Duration::from_secs(5),
        scenario_timeout: Duration::from_secs(20),
        ..Limits::default()
    }
}

/// Short time limits, for the sample whose endless loop times out seven scenarios.
fn short_limits() -> Limits {
    Limits {
        request_timeout: Duration::from_millis(800),
        scenario_timeout: Duration::from_millis(2000),
        ..Limits::default()
    }
}

fn grade(sample: &str) -> Vec<ScenarioResult> {
    grade_against("colab-6x6", &format!("{SAMPLES}/{sample}"))
}

fn grade_against(assignment: &str, path: &str) -> Vec<ScenarioResult> {
    let specs = SpecSet::builtin();
    let loaded =
        broadside::load::load(&[format!("fixtures/scenarios/{assignment}").into()], &specs);
    assert!(loaded.errors.is_empty());
    let sample = path;
    let mut target = native::target(
        camino::Utf8Path::new(path),
        Path::new(WORKER),
        limits_for(path),
    )
    .unwrap();
    // A library has functions, not a whole program: the step scenarios only.
    let steps: Vec<_> = loaded
        .scenarios
        .into_iter()
        .filter(|s| s.dialogue.is_none())
        .collect();
    let results = run_all(&steps, target.as_mut());
    assert!(target.finish().is_empty(), "{sample}: a leak");
    results
}

fn limits_for(path: &str) -> Limits {
    if path.ends_with("loop-in-fire") {
        short_limits()
    } else {
        limits()
    }
}

fn expected() -> BTreeMap<String, Expected> {
    let text = std::fs::read_to_string(format!("{SAMPLES}/expected.toml")).unwrap();
    toml::from_str(&text).unwrap()
}

/// Compares one sample's results with its entry; a sentence per difference.
fn verdict(name: &str, want: &Expected, results: &[ScenarioResult]) -> Vec<String> {
    let mut problems: Vec<String> = fail_sets(name, &want.bug, &want.fails, &want.faults, results)
        .into_iter()
        .collect();
    for r in results {
        let Some(f) = &r.fault else { continue };
        if want.fault.as_deref() != Some(f.kind.word()) {
            problems.push(format!(
                "{name}: {} has a `{}` fault, wanted {:?}: {}",
                file(r),
                f.kind.word(),
                want.fault,
                f.message
            ));
        }
        for word in &want.message {
            if !f.message.contains(word.as_str()) {
                problems.push(format!(
                    "{name}: {}'s fault does not say {word:?}: {}",
                    file(r),
                    f.message
                ));
            }
        }
    }
    problems
}

#[test]
fn header_compiles_cleanly_as_c11() {
    common::needs_cc();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("use.c");
    std::fs::write(
        &src,
        "#include \"broadside.h\"\nint main(void) { return BS_ABI_VERSION == 1u ? 0 : 1; }\n",
    )
    .unwrap();
    let out = std::process::Command::new("cc")
        .args(["-Wall", "-Wextra", "-pedantic", "-std=c11", "-Werror", "-I"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/abi"))
        .arg(&src)
        .arg("-o")
        .arg(dir.path().join("use"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_sample_gets_its_pinned_verdict() {
    common::needs_cc();
    let expected = expected();
    let folders: BTreeSet<String> = std::fs::read_dir(SAMPLES)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        folders,
        expected.keys().cloned().collect(),
        "a sample without an entry, or an entry without a sample"
    );
    assert!(expected["correct-c"].fails.is_empty());
    assert!(expected["correct-rust"].fails.is_empty());
    let mut problems = Vec::new();
    for (name, want) in &expected {
        assert!(!want.bug.is_empty());
        if !name.starts_with("correct") {
            assert!(
                !want.fails.is_empty(),
                "{name}: a buggy sample must fail something"
            );
        }
        let results = grade(name);
        assert_eq!(
            results.len(),
            28,
            "{name}: every published scenario has a result"
        );
        problems.extend(verdict(name, want, &results));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_abi_covers_solo_10x10_and_battleboats() {
    for (assignment, scenarios) in [("solo-10x10", 60), ("battleboats", 22)] {
        let results = grade_against(
            assignment,
            &format!("fixtures/submissions/{assignment}-native/correct-c"),
        );
        assert_eq!(results.len(), scenarios);
        let failed: Vec<String> = results
            .iter()
            .filter(|r| r.status != Status::Passed)
            .map(|r| format!("{}: {:?} {:?}", file(r), r.divergence, r.fault))
            .collect();
        assert!(failed.is_empty(), "{assignment}: {failed:#?}");
    }
}

#[test]
fn a_prebuilt_library_is_graded_as_it_is() {
    common::needs_cc();
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("libboats.so");
    let header = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/abi");
    let out = std::process::Command::new("cc")
        .args(["-std=c11", "-shared", "-fPIC", "-I"])
        .arg(&header)
        .arg(format!("{SAMPLES}/correct-c/battleship.c"))
        .arg("-o")
        .arg(&lib)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let specs = SpecSet::builtin();
    let loaded = broadside::load::load(&["fixtures/scenarios/colab-6x6".into()], &specs);
    let path = camino::Utf8PathBuf::try_from(lib).unwrap();
    let mut target = native::target(&path, Path::new(WORKER), limits()).unwrap();
    let results = run_all(&loaded.scenarios, target.as_mut());
    let failed: Vec<String> = results
        .iter()
        .filter(|r| r.status != Status::Passed)
        .map(file)
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
}

#[test]
fn a_missing_path_is_an_error_of_the_run_not_of_the_student() {
    let Err(broadside::target::TargetError::Input(e)) = native::target(
        camino::Utf8Path::new("no/such/submission"),
        Path::new(WORKER),
        limits(),
    ) else {
        panic!("a missing submission must be refused as the input's error");
    };
    assert!(e.contains("no/such/submission"), "{e}");
}

#[test]
fn the_cli_grades_a_native_submission_end_to_end() {
    common::needs_cc();
    let out = std::process::Command::new(WORKER)
        .args([
            "run",
            "fixtures/scenarios/colab-6x6",
            "--format",
            "json",
            "--target",
        ])
        .arg(format!("native:{SAMPLES}/correct-c"))
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["target"], format!("native:{SAMPLES}/correct-c"));
    assert_eq!(report["summary"]["passed"], 28, "{report}");
    assert_eq!(report["summary"]["points"], report["summary"]["max_points"]);
    assert_eq!(out.status.code(), Some(0));

    // A crash in the library is a fault in the report; broadside itself exits normally.
    let out = std::process::Command::new(WORKER)
        .args([
            "run",
            "fixtures/scenarios/colab-6x6/09-won-on-last-sinking.toml",
        ])
        .args(["--format", "json", "--target"])
        .arg(format!("native:{SAMPLES}/crash-on-last-ship"))
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fault = &report["scenarios"][0]["fault"];
    assert_eq!(fault["kind"], "crash", "{report}");
    assert!(
        fault["message"].as_str().unwrap().contains("in `bs_fire`"),
        "{fault}"
    );
    assert_eq!(out.status.code(), Some(1));
}

/// The setup fault every scenario of `path`'s grading gets, with the scenario count.
fn setup_fault(path: &Path) -> String {
    let path = camino::Utf8PathBuf::try_from(path.to_path_buf()).unwrap();
    let specs = SpecSet::builtin();
    let loaded = broadside::load::load(&["fixtures/scenarios/colab-6x6".into()], &specs);
    let mut target = native::target(&path, Path::new(WORKER), limits()).unwrap();
    let results = run_all(&loaded.scenarios[..3], target.as_mut());
    let faults: Vec<_> = results.iter().map(|r| r.fault.clone().unwrap()).collect();
    assert!(
        faults.iter().all(|f| f.kind.word() == "setup"),
        "{faults:?}"
    );
    faults[0].message.clone()
}

#[test]
fn a_file_that_is_not_a_library_is_a_setup_fault_with_the_loaders_words() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("libfake.so");
    std::fs::write(&fake, "not a library\n").unwrap();
    let message = setup_fault(&fake);
    assert!(message.contains("could not be loaded"), "{message}");
    assert!(message.contains("file too short"), "{message}");
}

#[test]
fn a_folder_with_nothing_to_build_is_a_setup_fault() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello\n").unwrap();
    let message = setup_fault(dir.path());
    assert!(
        message.contains("no Cargo.toml, Makefile, .c file or .so"),
        "{message}"
    );
}

#[test]
fn makefile_builds_as_root_run_as_nobody_in_a_jail() {
    common::needs_cc();
    if !broadside::target::limits::running_as_root() {
        eprintln!("skipped: only root can drop builds to nobody");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = env!("CARGO_MANIFEST_DIR");
    std::fs::write(
        dir.path().join("Makefile"),
        format!("lib.so:\n\t@echo \"uid=$$(id -u)\"; ls /root {repo}; false\n"),
    )
    .unwrap();
    let message = setup_fault(dir.path());
    assert!(message.contains("uid=65534"), "{message}");
    assert!(message.contains("ls: cannot access '/root'"), "{message}");
    assert!(
        message.contains(&format!("ls: cannot access '{repo}'")),
        "the grader's checkout must be out of sight: {message}"
    );
}

#[test]
fn a_build_past_its_time_limit_is_stopped_with_its_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Makefile"),
        // A duration no other test or sample uses, so the check below sees only these.
        "lib.so:\n\t@echo compiling; sleep 3141 & sleep 3141\n",
    )
    .unwrap();
    let path = camino::Utf8PathBuf::try_from(dir.path().to_path_buf()).unwrap();
    let start = std::time::Instant::now();
    let mut target = native::target_with_build_timeout(
        &path,
        Path::new(WORKER),
        limits(),
        Duration::from_millis(500),
    )
    .unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    let specs = SpecSet::builtin();
    let loaded = broadside::load::load(&["fixtures/scenarios/colab-6x6".into()], &specs);
    let result = &run_all(&loaded.scenarios[..1], target.as_mut())[0];
    let fault = result.fault.as_ref().unwrap();
    assert_eq!(fault.kind.word(), "setup");
    assert!(
        fault.message.contains("did not build within 0.5 s"),
        "{}",
        fault.message
    );
    assert!(fault.message.contains("compiling"), "{}", fault.message);
    // Neither `sleep` outlived the build.
    let ps = std::process::Command::new("ps")
        .args(["-eo", "args"])
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&ps.stdout)
            .lines()
            .any(|l| l.trim() == "sleep 3141"),
        "a build process outlived the build"
    );
}

#[test]
fn what_a_library_prints_never_reaches_the_protocol() {
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(format!("{SAMPLES}/correct-c/battleship.c")).unwrap();
    let noisy = source
        .replace(
            "#include <stdlib.h>",
            "#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>",
        )
        .replace(
            "    if (!on_board(g, row, col)) {\n        return BS_INVALID;",
            "    printf(\"{\\\"id\\\": 1, \\\"ok\\\": true}\\n\");\n    fflush(stdout);\n    \
             (void)!write(1, \"garbage\\n\", 8);\n    if (!on_board(g, row, col)) {\n        return BS_INVALID;",
        );
    assert_ne!(noisy, source);
    std::fs::write(dir.path().join("battleship.c"), noisy).unwrap();
    let path = camino::Utf8PathBuf::try_from(dir.path().to_path_buf()).unwrap();
    let specs = SpecSet::builtin();
    let loaded = broadside::load::load(&["fixtures/scenarios/colab-6x6".into()], &specs);
    let mut target = native::target(&path, Path::new(WORKER), limits()).unwrap();
    let results = run_all(&loaded.scenarios, target.as_mut());
    let failed: Vec<String> = results
        .iter()
        .filter(|r| r.status != Status::Passed)
        .map(|r| format!("{}: {:?} {:?}", file(r), r.divergence, r.fault))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
}

/// The correct C sample with `code` run at the top of `bs_fire`, graded against one scenario.
fn hostile(code: &str) -> ScenarioResult {
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(format!("{SAMPLES}/correct-c/battleship.c")).unwrap();
    let anchor = "    if (!on_board(g, row, col)) {\n        return BS_INVALID;";
    let hostile = format!(
        "#define _DEFAULT_SOURCE\n#include <unistd.h>\n{}",
        source.replace(anchor, &format!("{code}\n{anchor}"))
    );
    std::fs::write(dir.path().join("battleship.c"), hostile).unwrap();
    let path = camino::Utf8PathBuf::try_from(dir.path().to_path_buf()).unwrap();
    let specs = SpecSet::builtin();
    let loaded = broadside::load::load(
        &["fixtures/scenarios/colab-6x6/01-handout-example.toml".into()],
        &specs,
    );
    let mut target = native::target(&path, Path::new(WORKER), limits()).unwrap();
    let result = run_all(&loaded.scenarios, target.as_mut()).remove(0);
    assert!(target.finish().is_empty(), "a leak");
    result
}

#[test]
fn the_grader_survives_hostile_libraries_and_says_where_they_ended() {
    let crash = |code: &str, words: &str| {
        let r = hostile(code);
        let f = r
            .fault
            .as_ref()
            .unwrap_or_else(|| panic!("{code}: no fault"));
        assert_eq!(f.kind.word(), "crash", "{code}: {}", f.message);
        assert!(f.message.contains(words), "{code}: {}", f.message);
    };
    crash("    exit(3);", "exited with status 3");
    crash("    exit(3);", "the library called exit() in `bs_fire`");
    crash("    abort();", "abort in `bs_fire`");
    crash(
        "    { int *p = malloc((size_t)4 << 30); p[1 << 20] = 1; }",
        "signal 11",
    );
    // A forked copy that returns into the worker ends there; the real worker answers.
    let r = hostile("    static int forked; if (!forked) { forked = 1; (void)!fork(); }");
    assert_eq!(r.status, Status::Passed, "{:?}", r.fault);
    // A forked copy that stays in the library is stopped with the worker's process group.
    let r = hostile("    if (fork() == 0) { for (;;) { pause(); } }");
    assert_eq!(r.status, Status::Passed, "{:?}", r.fault);
}

#[test]
fn grade_builds_and_grades_a_class_of_native_submissions() {
    common::needs_cc();
    let class = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    for sample in ["correct-c", "off-by-one-bounds", "does-not-compile"] {
        let dir = class.path().join(sample);
        std::fs::create_dir(&dir).unwrap();
        for entry in std::fs::read_dir(format!("{SAMPLES}/{sample}")).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
    }
    let run = std::process::Command::new(WORKER)
        .args([
            "grade",
            "--suite",
            "fixtures/scenarios/colab-6x6",
            "--target",
            "native:{}",
        ])
        .arg("--submissions")
        .arg(class.path())
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        run.status.code().is_some(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let csv = std::fs::read_to_string(out.path().join("summary.csv")).unwrap();
    let points = |name: &str| -> String {
        let line = csv
            .lines()
            .find(|l| l.starts_with(&format!("{name},")))
            .unwrap();
        line.split(',').nth(3).unwrap().to_string()
    };
    assert_eq!(points("correct-c"), "85", "{csv}");
    // Credit per check: the eight scenarios it fails still earn the checks they pass.
    assert_eq!(points("off-by-one-bounds"), "77.47", "{csv}");
    assert_eq!(points("does-not-compile"), "0", "{csv}");
}

#[test]
fn without_namespaces_a_native_submission_is_still_graded_and_contained() {
    let run = std::process::Command::new(WORKER)
        .env("BROADSIDE_NO_NAMESPACES", "1")
        .args([
            "run",
            "fixtures/scenarios/colab-6x6",
            "--format",
            "json",
            "--target",
        ])
        .arg(format!("native:{SAMPLES}/crash-on-last-ship"))
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(report["summary"]["passed"], 21, "{report}");
    assert_eq!(report["summary"]["errors"], 7, "{report}");
    let notes = report["notes"].to_string();
    if broadside::target::limits::running_as_root() {
        assert!(notes.contains("no namespaces"), "{notes}");
    }
}

#[test]
fn fuzzing_finds_the_off_by_one_sample_and_shrinks_it_to_one_shot() {
    common::needs_cc();
    let out = tempfile::tempdir().unwrap();
    let case = out.path().join("case.toml");
    let run = std::process::Command::new(WORKER)
        .args([
            "fuzz",
            "--assignment",
            "colab-6x6",
            "--cases",
            "500",
            "--seed",
            "1",
        ])
        .arg("--target")
        .arg(format!("native:{SAMPLES}/off-by-one-bounds"))
        .arg("--out")
        .arg(&case)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let written = std::fs::read_to_string(&case).unwrap();
    assert_eq!(written.matches("[[steps]]").count(), 1, "{written}");
    assert!(written.contains("expect = \"invalid\""), "{written}");
    // The correct sample survives the same cases.
    let run = std::process::Command::new(WORKER)
        .args([
            "fuzz",
            "--assignment",
            "colab-6x6",
            "--cases",
            "500",
            "--seed",
            "1",
        ])
        .arg("--target")
        .arg(format!("native:{SAMPLES}/correct-c"))
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
}
