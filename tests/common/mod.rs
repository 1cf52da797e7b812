//! Helpers shared by the integration tests (each test file that needs them says `mod common;`).

#![allow(dead_code)] // each test file uses its own share of these

use broadside::report::{ScenarioResult, Status};
use std::collections::BTreeSet;

/// The `broadside` binary, with colour off.
pub fn broadside() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("broadside").unwrap();
    c.env("NO_COLOR", "1");
    c
}

/// A scenario result's file name, as `expected.toml` files name scenarios.
pub fn file(r: &ScenarioResult) -> String {
    r.path.rsplit('/').next().unwrap().to_string()
}

/// Compares a sample's results with its `expected.toml` entry: the scenarios that do not pass
/// (`fails`) and those among them that end in a fault (`faults`). `None` when both match,
/// else a paragraph naming the sample, its bug and both sets.
pub fn fail_sets(
    name: &str,
    bug: &str,
    fails: &[String],
    faults: &[String],
    results: &[ScenarioResult],
) -> Option<String> {
    let got = |keep: &dyn Fn(&ScenarioResult) -> bool| -> BTreeSet<String> {
        results.iter().filter(|r| keep(r)).map(file).collect()
    };
    let got_fails = got(&|r| r.status != Status::Passed);
    let got_faults = got(&|r| r.status == Status::Error);
    let want_fails: BTreeSet<String> = fails.iter().cloned().collect();
    let want_faults: BTreeSet<String> = faults.iter().cloned().collect();
    (got_fails != want_fails || got_faults != want_faults).then(|| {
        format!(
            "{name} ({bug}):\n  fails  {got_fails:?}\n  wanted {want_fails:?}\n  faults {got_faults:?}\n  wanted {want_faults:?}"
        )
    })
}
