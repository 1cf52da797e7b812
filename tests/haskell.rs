//! The `haskell:` target beyond the samples (tests/samples.rs): a submission that loops is a
//! timeout in a complete report, and a machine without GHC gets a clear error, not a crash.
//! Needs GHC (`.ci/run` installs it).

mod common;
use common::broadside;

#[test]
fn a_transition_that_loops_forever_is_a_timeout_and_the_rest_is_graded() {
    common::needs_ghc();
    let out = broadside()
        .args([
            "run",
            "fixtures/scenarios/move-limit-10x10/02-hit-costs-nothing.toml",
            "fixtures/scenarios/move-limit-10x10/22-show-board.toml",
            "fixtures/scenarios/move-limit-10x10/21-coord-in-bound.toml",
            "--target",
            "haskell:tests/fixtures/haskell/loops",
            "--timeout",
            "1",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let status = |i: usize| v["scenarios"][i]["status"].as_str().unwrap().to_string();
    assert_eq!(status(0), "passed", "{v}");
    assert_eq!(status(1), "error", "{v}");
    assert_eq!(v["scenarios"][1]["fault"]["kind"], "timeout", "{v}");
    assert_eq!(status(2), "passed", "a fresh child after the timeout: {v}");
}

#[test]
fn without_ghc_the_error_says_how_to_install_it() {
    let out = broadside()
        .env("BROADSIDE_GHC", "/nonexistent/ghc")
        .args([
            "run",
            "fixtures/scenarios/move-limit-10x10/02-hit-costs-nothing.toml",
            "--target",
            "haskell:fixtures/submissions/move-limit-10x10/correct",
        ])
        .output()
        .unwrap();
    // A compiler broadside needs is broadside's side (exit 3), as the Python interpreter is.
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("apt-get install ghc"), "{err}");
}

#[test]
fn a_folder_without_battleship_hs_fails_every_scenario_saying_so() {
    let out = broadside()
        .args([
            "run",
            "fixtures/scenarios/move-limit-10x10/02-hit-costs-nothing.toml",
            "--target",
            "haskell:fixtures/submissions/solo-10x10/correct",
        ])
        .output()
        .unwrap();
    // The student's fault: every scenario fails at setup, saying what was expected.
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("no Battleship.hs"), "{text}");
}

#[test]
fn a_process_started_while_compiling_is_a_leak_and_is_killed() {
    let out = broadside()
        .args([
            "run",
            "fixtures/scenarios/move-limit-10x10/02-hit-costs-nothing.toml",
            "--target",
            "haskell:tests/fixtures/haskell/th-daemon",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["scenarios"][0]["fault"]["kind"], "leak", "{v}");
    let ps = std::process::Command::new("ps")
        .args(["-eo", "args"])
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&ps.stdout)
            .lines()
            .any(|l| l.contains("sleep 3333")),
        "the daemon outlived the compile"
    );
}
