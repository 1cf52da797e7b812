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

/// Fails the test, naming the tool and how to install it, unless `program` (or the program
/// the variable `env` names, when set) runs. A missing tool fails, never skips: `.ci/run`
/// installs every tool the tests need.
pub fn needs(program: &str, env: Option<&str>, install: &str) {
    let named = env.and_then(|e| std::env::var(e).ok());
    let run = named.clone().unwrap_or_else(|| program.to_string());
    let runs = std::process::Command::new(&run)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok();
    let by = match (env, named) {
        (Some(e), Some(_)) => format!(" (named by {e})"),
        (Some(e), None) => format!(" (or another named by {e})"),
        _ => String::new(),
    };
    assert!(
        runs,
        "this test needs `{run}`{by}, which does not run on this machine: {install} (.ci/run installs it)"
    );
}

/// nbclient and ipykernel, to run a notebook in a real kernel with no browser.
pub fn needs_notebook_kernel() {
    let runs = std::process::Command::new("python3")
        .args(["-c", "import nbclient, nbformat, ipykernel"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        runs,
        "this test needs nbclient, nbformat and ipykernel for python3: python3 -m pip install nbclient nbformat ipykernel (.ci/run installs them)"
    );
}

/// GHC, for `haskell:` targets.
pub fn needs_ghc() {
    needs("ghc", Some("BROADSIDE_GHC"), "apt-get install ghc");
}

/// A JDK's `javac` and `java`, for `java:` targets.
pub fn needs_jdk() {
    needs(
        "javac",
        Some("BROADSIDE_JAVAC"),
        "apt-get install openjdk-17-jdk-headless",
    );
    needs(
        "java",
        Some("BROADSIDE_JAVA"),
        "apt-get install openjdk-17-jdk-headless",
    );
}

/// A C compiler and make, for `native:` targets built from C sources.
pub fn needs_cc() {
    needs("cc", None, "apt-get install gcc make");
    needs("make", None, "apt-get install make");
}

/// The bundled assignments whose students submit in `language` (all of them for `None`), from
/// the registry: a new assignment is covered without a change to the test.
pub fn assignments(language: Option<broadside::spec::Language>) -> Vec<String> {
    let specs = broadside::spec::SpecSet::builtin();
    specs
        .ids()
        .into_iter()
        .filter(|id| language.is_none_or(|l| specs.get(id).unwrap().language == l))
        .map(str::to_string)
        .collect()
}

/// Runs `check` on each of `ids`, two at a time (as the test runner runs two tests on this
/// project's 2-core machines: the dialogue and fuzz checks are judged against timeouts, which
/// a machine loaded past its cores could miss), and fails naming each id whose check
/// panicked (its panic's message is printed above).
pub fn each_two_at_a_time(ids: &[String], check: impl Fn(&str) + Sync) {
    assert!(!ids.is_empty(), "no assignment to check");
    let queue = std::sync::Mutex::new(ids.iter());
    let failed = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                while let Some(id) = { queue.lock().unwrap().next() } {
                    let run = std::panic::AssertUnwindSafe(|| check(id));
                    if std::panic::catch_unwind(run).is_err() {
                        failed.lock().unwrap().push(id.clone());
                    }
                }
            });
        }
    });
    let failed = failed.into_inner().unwrap();
    assert!(
        failed.is_empty(),
        "failed for {failed:?} (each panic is above)"
    );
}

/// A wheel of the pure-Python package `tidewater` (its `on_board(size, position)`), written
/// into `links`: with `PIP_NO_INDEX=1 PIP_FIND_LINKS=links`, pip installs it with no network.
pub fn tidewater_wheel(links: &std::path::Path) {
    std::fs::create_dir_all(links).unwrap();
    let file = std::fs::File::create(links.join("tidewater-1.0-py3-none-any.whl")).unwrap();
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default();
    for (name, text) in [
        (
            "tidewater/__init__.py",
            "def on_board(size, position):\n    row, col = position\n    return 0 <= row < size and 0 <= col < size\n",
        ),
        (
            "tidewater-1.0.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: tidewater\nVersion: 1.0\n",
        ),
        (
            "tidewater-1.0.dist-info/WHEEL",
            "Wheel-Version: 1.0\nGenerator: broadside-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        ),
        (
            "tidewater-1.0.dist-info/RECORD",
            "tidewater/__init__.py,,\ntidewater-1.0.dist-info/METADATA,,\ntidewater-1.0.dist-info/WHEEL,,\ntidewater-1.0.dist-info/RECORD,,\n",
        ),
    ] {
        zip.start_file(name, options).unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
}
