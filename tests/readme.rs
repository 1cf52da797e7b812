//! The README's first two commands are the ones a newcomer should run and CI runs, and the
//! guide's scenario example (docs/guide/scenarios.md) loads and passes, so the documents stay
//! in step with the tool.
//!
//! The README opens with two commands in a `sh` block that trycmd cannot run (`cargo run
//! --release` builds the release profile for minutes; `cargo test` is the suite this test is a
//! part of). Instead, [`the_readmes_first_command_grades_a_bundled_sample_with_full_marks`]
//! runs the first one's arguments with the `broadside` binary built for the tests (the same
//! program, another profile) and [`the_readmes_second_command_is_what_ci_runs`] checks the
//! second against `.ci/run`.

mod common;

use broadside::diag::Source;
use broadside::report::Status;
use broadside::spec::SpecSet;

#[test]
fn readme_scenario_example_passes_on_the_reference() {
    let readme = std::fs::read_to_string("docs/guide/scenarios.md").unwrap();
    let start = readme
        .find("```toml\n")
        .expect("the README shows a TOML scenario")
        + "```toml\n".len();
    let end = start + readme[start..].find("```").unwrap();
    let source = Source::new(
        "docs/guide/scenarios.md (scenario example)",
        &readme[start..end],
    );
    let scenario = broadside::scenario::parse(&source, &SpecSet::builtin()).unwrap_or_else(|ds| {
        panic!(
            "{}",
            ds.iter()
                .map(|d| d.render(false))
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    let result =
        broadside::harness::run_scenario(&scenario, &mut broadside::target::Reference::new());
    assert_eq!(result.status, Status::Passed, "{:?}", result.divergence);
}

/// The README's first fenced block (its first lines, before anything else but the title), as
/// its commands.
fn readme_first_commands() -> Vec<String> {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let mut lines = readme.lines();
    assert!(
        lines.next().is_some_and(|l| l.starts_with("# ")),
        "README.md opens with its title"
    );
    let opening = lines
        .by_ref()
        .find(|l| !l.trim().is_empty() && !l.starts_with("<!--"))
        .unwrap();
    assert_eq!(
        opening, "```sh",
        "README.md's first block, right under the title, is the two commands (```sh)"
    );
    lines
        .take_while(|l| !l.starts_with("```"))
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// The first command's words after `cargo run --release --`.
fn first_command_args() -> Vec<String> {
    let commands = readme_first_commands();
    assert_eq!(
        commands.len(),
        2,
        "README.md opens with two commands: {commands:?}"
    );
    let args = commands[0]
        .strip_prefix("cargo run --release -- ")
        .unwrap_or_else(|| panic!("the first command runs the release build: {}", commands[0]));
    args.split_whitespace().map(str::to_string).collect()
}

#[test]
fn the_readmes_first_command_grades_a_bundled_sample_with_full_marks() {
    let args = first_command_args();
    assert_eq!(
        args,
        [
            "run",
            "fixtures/scenarios/solo-10x10",
            "--target",
            "python:fixtures/submissions/solo-10x10/correct"
        ],
        "the README's first command is `run` of the bundled solo-10x10 scenarios on the \
         correct sample, which a fresh clone holds and needs nothing but Rust and python3"
    );
    let out = common::broadside().args(&args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = stdout.lines().last().unwrap_or("");
    assert!(
        regex::Regex::new(
            r"^(\d+) scenarios: (\d+) passed, 0 failed, 0 errors; (\d+)/(\d+) points"
        )
        .unwrap()
        .captures(last)
        .is_some_and(|c| c[1] == c[2] && c[3] == c[4]),
        "full marks, as the README says: {last}"
    );
}

#[test]
fn the_readmes_buggy_sample_fails_as_it_says() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let buggy = "fixtures/submissions/solo-10x10/hits-kept-as-count";
    assert!(
        readme.contains(&format!("`{buggy}`")),
        "the README points at {buggy}"
    );
    let mut args = first_command_args();
    let target = args.last_mut().unwrap();
    *target = format!("python:{buggy}");
    let out = common::broadside().args(&args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn the_readmes_second_command_is_what_ci_runs() {
    let commands = readme_first_commands();
    assert_eq!(commands.get(1).map(String::as_str), Some("cargo test"));
    let ci = std::fs::read_to_string(".ci/run").unwrap();
    let last = ci
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap();
    assert_eq!(
        last, "cargo test",
        ".ci/run ends with the README's test command, as it says"
    );
    assert!(
        !ci.contains("cargo test "),
        ".ci/run runs `cargo test` with no filter or flags, as a newcomer would"
    );
}

#[test]
fn the_readmes_reference_command_passes_every_published_scenario() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let shown = "`cargo run --release -- run fixtures/scenarios` grades the reference itself";
    assert!(readme.contains(shown), "the README says: {shown}");
    let out = common::broadside()
        .args(["run", "fixtures/scenarios"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
