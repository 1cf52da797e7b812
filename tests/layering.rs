//! The pure core is a crate of its own, `broadside-core` (`crates/core`): spec, engine,
//! scenario, harness, report, and the cell, fault, diag and published files beside them. The
//! compiler keeps it from the shell (it cannot name `broadside`'s modules); these tests keep
//! what the compiler cannot see: that none of its dependencies, however deep, starts
//! processes, drives a terminal or parses a command line, and that its own code reads no
//! clock, starts no process and keeps no global state (docs/guide/development.md, "Layout").

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Crates of the shell's kind: processes, terminals, command lines, threads, the file system.
const SHELL_CRATES: &[&str] = &[
    "anstream",
    "clap",
    "clap_builder",
    "clap_complete",
    "clap_derive",
    "clap_mangen",
    "console",
    "ctrlc",
    "indicatif",
    "libloading",
    "nix",
    "process-wrap",
    "procfs",
    "rayon",
    "tempfile",
    "walkdir",
];

/// What the core's own code must not do, as text: start a process, read a clock or the
/// environment, keep state for the whole program.
const SHELL_CODE: &[&str] = &[
    "std::process",
    "Instant::now",
    "SystemTime::now",
    "std::env::var",
    "thread_local!",
    "static mut",
    "std::thread::spawn",
];

/// The names of every package `broadside-core` depends on for building its library on this
/// machine (normal dependencies, transitively), from `cargo tree`: it reads the lock file and
/// the packages the build downloaded, so it needs no network.
fn core_dependencies() -> BTreeSet<String> {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "tree",
            "--package",
            "broadside-core",
            "--edges",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p}",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "broadside-core")
        .map(String::from)
        .collect()
}

#[test]
fn the_core_depends_on_no_process_terminal_or_command_line_crate() {
    let deps = core_dependencies();
    // The walk is real: the core's own data crates are found.
    for expected in ["serde", "toml", "rand_chacha", "include_dir"] {
        assert!(deps.contains(expected), "{expected} missing from {deps:?}");
    }
    let wrong: Vec<&&str> = SHELL_CRATES.iter().filter(|c| deps.contains(**c)).collect();
    assert!(
        wrong.is_empty(),
        "broadside-core pulls in {wrong:?}; its dependencies: {deps:?}"
    );
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `SHELL_CODE` phrase a line of code uses (comments aside).
fn shell_code(code: &str) -> Vec<&'static str> {
    code.lines()
        .map(|line| line.find("//").map_or(line, |i| &line[..i]))
        .flat_map(|line| SHELL_CODE.iter().filter(|p| line.contains(**p)))
        .copied()
        .collect()
}

#[test]
fn the_scanner_finds_shell_code_and_ignores_comments() {
    assert_eq!(
        shell_code("let t = std::time::Instant::now();"),
        ["Instant::now"]
    );
    assert_eq!(shell_code("thread_local! {"), ["thread_local!"]);
    assert!(shell_code("// a clock: Instant::now").is_empty());
    assert!(shell_code("let d = std::time::Duration::ZERO;").is_empty());
}

#[test]
fn the_cores_code_reads_no_clock_starts_no_process_and_keeps_no_global_state() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/core/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(
        files.len() > 30,
        "the core's files were not found: {files:?}"
    );
    let mut wrong = Vec::new();
    for file in &files {
        let code = std::fs::read_to_string(file).unwrap();
        for phrase in shell_code(&code) {
            wrong.push(format!(
                "{} uses {phrase}",
                file.strip_prefix(&src).unwrap().display()
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "the core does the shell's work:\n{}",
        wrong.join("\n")
    );
}
