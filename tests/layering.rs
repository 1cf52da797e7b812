//! The pure core (spec, engine, scenario, harness, report, and the cell, fault, diag and
//! published files beside them) imports nothing from the shell: no module that starts
//! processes (target, dialogue), reads the file system for a command (load, suite), grades a
//! class (grade, marking), fuzzes (fuzz), speaks the wire protocol (protocol) or parses the
//! command line (cli). The harness reaches a submission only through the core's `Target`
//! trait (docs/guide/development.md, "Layout").

use std::path::{Path, PathBuf};

const CORE_DIRS: [&str; 5] = ["spec", "engine", "scenario", "harness", "report"];
const CORE_FILES: [&str; 4] = ["cell.rs", "fault.rs", "diag.rs", "published.rs"];
const SHELL: [&str; 10] = [
    "target", "dialogue", "grade", "cli", "marking", "fuzz", "protocol", "load", "suite", "main",
];

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

/// Every `crate::SHELL` path a line of code names (comments aside), as `module`.
fn shell_uses(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in code.lines() {
        let line = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let word: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if SHELL.contains(&word.as_str()) {
                found.push(word);
            }
        }
        // `use crate::{target::X, ...}`: the names inside the braces.
        if let Some(i) = line.find("crate::{") {
            for part in line[i + "crate::{".len()..].split([',', '{', '}', ' ']) {
                let first = part.split("::").next().unwrap_or("");
                if SHELL.contains(&first) {
                    found.push(first.to_string());
                }
            }
        }
    }
    found
}

#[test]
fn the_scanner_finds_a_shell_import_and_ignores_comments() {
    assert_eq!(shell_uses("use crate::target::Target;"), ["target"]);
    assert_eq!(
        shell_uses("use crate::{engine::Game, dialogue::run};"),
        ["dialogue"]
    );
    assert_eq!(shell_uses("    let x = crate::grade::run(a);"), ["grade"]);
    assert!(shell_uses("//! see [`crate::target`]").is_empty());
    assert!(shell_uses("use crate::engine::Game; // not crate::target").is_empty());
    assert!(shell_uses("use crate::targets_like_name::X;").is_empty());
}

#[test]
fn the_core_modules_import_nothing_from_the_shell() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for dir in CORE_DIRS {
        rust_files(&src.join(dir), &mut files);
    }
    files.extend(CORE_FILES.iter().map(|f| src.join(f)));
    assert!(
        files.len() > 30,
        "the core's files were not found: {files:?}"
    );
    let mut wrong = Vec::new();
    for file in &files {
        let code = std::fs::read_to_string(file).unwrap();
        for module in shell_uses(&code) {
            wrong.push(format!(
                "{} uses crate::{module}",
                file.strip_prefix(&src).unwrap().display()
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "the core reaches into the shell:\n{}",
        wrong.join("\n")
    );
}
