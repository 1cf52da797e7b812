//! The documents' commands do what they show, no document shows a command that no test runs,
//! and every link of the documents resolves.
//!
//! The commands in the `console` blocks of `README.md` and of every page under `docs/` are run
//! from the repository's root by trycmd (which finds `broadside` through Cargo: the binary of
//! this package, built for the tests) and their output compared (`...` stands for lines left
//! out, `[..]` for part of a line, `? 1` for the exit status).
//!
//! Any other block that shows shell commands (```` ```sh ````, `bash`, `shell`, `zsh`, a
//! `console` block trycmd would skip, or `$ ` lines anywhere else) fails
//! [`no_document_shows_a_command_that_no_test_runs`] unless the line just above it says why it
//! cannot run here: `<!-- not run: REASON -->`. The marker sits in the document rather than in
//! a list in this file so that the reason moves with the block, is read by whoever edits the
//! block, and cannot go stale on a line number; the test prints every such block and reason.
//! The policy for authors is in `docs/guide/development.md` ("Commands in the documents").

use std::path::{Path, PathBuf};

/// The documents: `README.md` and every Markdown page under `docs/` (the guide).
fn documents() -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from("README.md")];
    for e in walkdir::WalkDir::new("docs")
        .sort_by_file_name()
        .into_iter()
        .flatten()
    {
        if e.path().extension().is_some_and(|x| x == "md") {
            out.push(e.path().to_path_buf());
        }
    }
    out
}

#[test]
fn the_documents_commands_do_what_they_show() {
    // The cases write into target/guide/ (development.md's policy); with CARGO_TARGET_DIR
    // elsewhere a fresh clone has no target/, and `fuzz --out` does not make its folder.
    std::fs::create_dir_all("target/guide").unwrap();
    let cases = trycmd::TestCases::new();
    for doc in documents() {
        cases.case(doc);
    }
}

/// A block (or a lone `$ ` line) of shell commands that a document shows.
#[derive(Debug, PartialEq)]
struct Shown {
    /// 1-based line of the opening fence (or of the `$ ` line).
    line: usize,
    /// What the block is: its fence's info string, or "a `$ ` line".
    kind: String,
    /// Its first command, for the messages.
    first: String,
    /// Whether trycmd runs it as a case (a `console` block at the line's start, not `ignore`).
    runs: bool,
    /// The reason given by a `<!-- not run: REASON -->` marker just above it.
    not_run: Option<String>,
}

/// The languages whose blocks show shell commands.
const SHELL: [&str; 6] = ["sh", "bash", "shell", "zsh", "console", "trycmd"];

/// Every block of shell commands in `text`, and every misplaced marker as an error.
fn shown_commands(text: &str) -> (Vec<Shown>, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut shown = Vec::new();
    let mut errors = Vec::new();
    // The reason of a marker waiting for its block, with the marker's line.
    let mut marker: Option<(usize, String)> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        let n = i + 1;
        if let Some(rest) = trimmed.strip_prefix("<!-- not run:") {
            let reason = rest.trim_end().trim_end_matches("-->").trim().to_string();
            if reason.is_empty() {
                errors.push(format!("line {n}: a `not run` marker without a reason"));
            }
            if let Some((m, _)) = marker.replace((n, reason)) {
                errors.push(format!(
                    "line {m}: a `not run` marker followed by no command block"
                ));
            }
            i += 1;
            continue;
        }
        if trimmed.is_empty() {
            i += 1;
            continue;
        }
        let ticks = trimmed.len() - trimmed.trim_start_matches('`').len();
        let tildes = trimmed.len() - trimmed.trim_start_matches('~').len();
        let fence_len = ticks.max(tildes);
        let waiting = marker.take();
        if fence_len >= 3 {
            let fence = &trimmed[..fence_len];
            let info = trimmed[fence_len..].trim();
            let mut parts = info.split(',').map(str::trim);
            let lang = parts.next().unwrap_or("");
            let ignore = parts.any(|p| p == "ignore");
            let mut j = i + 1;
            let mut body = Vec::new();
            while j < lines.len() && !lines[j].trim_start().starts_with(fence) {
                body.push(lines[j]);
                j += 1;
            }
            let dollar = body.iter().any(|l| l.trim_start().starts_with("$ "));
            // trycmd reads a block whose fence starts its line and whose info is `console`,
            // `trycmd` or nothing at all, unless it says `ignore`.
            let runs = ticks >= 3
                && line.starts_with('`')
                && matches!(lang, "console" | "trycmd" | "")
                && !ignore;
            if SHELL.contains(&lang) || dollar || runs {
                let first = body
                    .iter()
                    .map(|l| l.trim())
                    .find(|l| !l.is_empty() && !l.starts_with('#'))
                    .unwrap_or("")
                    .trim_start_matches("$ ")
                    .to_string();
                shown.push(Shown {
                    line: n,
                    kind: format!("```{info}"),
                    first,
                    runs,
                    not_run: waiting.map(|(_, r)| r),
                });
            } else if let Some((m, _)) = waiting {
                errors.push(format!(
                    "line {m}: a `not run` marker followed by no command block"
                ));
            }
            i = j + 1;
            continue;
        }
        if let Some(command) = trimmed.strip_prefix("$ ") {
            shown.push(Shown {
                line: n,
                kind: "a `$ ` line".to_string(),
                first: command.trim().to_string(),
                runs: false,
                not_run: waiting.map(|(_, r)| r),
            });
        } else if let Some((m, _)) = waiting {
            errors.push(format!(
                "line {m}: a `not run` marker followed by no command block"
            ));
        }
        i += 1;
    }
    if let Some((m, _)) = marker {
        errors.push(format!(
            "line {m}: a `not run` marker followed by no command block"
        ));
    }
    (shown, errors)
}

/// Every command a document shows is run by a test: trycmd runs its `console` block, or the
/// line above says why it cannot run here. A marker on a block that runs, or on nothing, is an
/// error too (a stale reason is how documents drift).
#[test]
fn no_document_shows_a_command_that_no_test_runs() {
    let mut problems = Vec::new();
    let mut not_run = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let (shown, errors) = shown_commands(&text);
        for e in errors {
            problems.push(format!("{}: {e}", doc.display()));
        }
        for s in shown {
            let at = format!("{}:{}: {} `{}`", doc.display(), s.line, s.kind, s.first);
            match (s.runs, s.not_run) {
                (true, None) => {}
                (true, Some(_)) => problems.push(format!(
                    "{at}: trycmd runs this block; drop its `not run` marker"
                )),
                (false, Some(reason)) => not_run.push(format!("{at}\n    not run: {reason}")),
                (false, None) => problems.push(format!(
                    "{at}: no test runs this; make it a ```console block (`$ broadside …` and \
                     its output) or say why it cannot run here with `<!-- not run: REASON -->` \
                     on the line above"
                )),
            }
        }
    }
    println!(
        "blocks not run, with their reasons:\n{}",
        not_run.join("\n")
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_command_scan_finds_what_trycmd_skips() {
    let doc = "\
# A page
```console
$ broadside list
...
```
```sh
cargo test
```
  ```console
  $ broadside list
  ```
```console,ignore
$ broadside list
```
```text
$ broadside list
```
$ broadside list
<!-- not run: needs the network -->
```bash
pip install broadside
```
<!-- not run: stale -->
Prose.
<!-- not run: -->
```console
$ broadside list
```
";
    let (shown, errors) = shown_commands(doc);
    let summary: Vec<(usize, bool, Option<&str>)> = shown
        .iter()
        .map(|s| (s.line, s.runs, s.not_run.as_deref()))
        .collect();
    assert_eq!(
        summary,
        [
            (2, true, None),
            (6, false, None),
            (9, false, None),
            (12, false, None),
            (15, false, None),
            (18, false, None),
            (20, false, Some("needs the network")),
            (26, true, Some("")),
        ]
    );
    assert_eq!(shown[1].first, "cargo test");
    assert_eq!(shown[5].first, "broadside list");
    assert_eq!(
        errors,
        [
            "line 23: a `not run` marker followed by no command block",
            "line 25: a `not run` marker without a reason",
        ]
    );
}

/// GitHub's anchor of a heading.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == ' ' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    let mut fence = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fence = !fence;
        }
        if !fence && line.starts_with('#') {
            out.push(slug(line.trim_start_matches('#')));
        }
    }
    out
}

#[test]
fn every_link_between_the_documents_resolves() {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut broken = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let dir = doc.parent().unwrap_or(Path::new(""));
        let mut fence = false;
        for line in text.lines() {
            if line.starts_with("```") {
                fence = !fence;
            }
            if fence {
                continue;
            }
            for m in link.captures_iter(line) {
                let target = &m[1];
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
                let path = if file.is_empty() {
                    doc.clone()
                } else {
                    dir.join(file)
                };
                if !path.exists() {
                    broken.push(format!(
                        "{}: {target} (no {})",
                        doc.display(),
                        path.display()
                    ));
                    continue;
                }
                if !anchor.is_empty() && path.extension().is_some_and(|x| x == "md") {
                    let there = std::fs::read_to_string(&path).unwrap();
                    if !anchors(&there).iter().any(|a| a == anchor) {
                        broken.push(format!(
                            "{}: {target} (no heading #{anchor})",
                            doc.display()
                        ));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// Every guide page leads back to the guide's index, and a link called "The guide" anywhere
/// goes there (the guide pages once sent it to the repository's README, which the link check
/// cannot see: that file exists too).
#[test]
fn the_guide_links_lead_to_the_guides_index() {
    let index = Path::new("docs/guide/README.md").canonicalize().unwrap();
    let link = regex::Regex::new(r"\[The guide\]\(([^)\s#]+)[^)]*\)").unwrap();
    let mut wrong = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let dir = doc.parent().unwrap_or(Path::new(""));
        let targets: Vec<PathBuf> = link.captures_iter(&text).map(|m| dir.join(&m[1])).collect();
        let in_guide = doc.parent() == Some(Path::new("docs/guide")) && !doc.ends_with("README.md");
        if in_guide && targets.is_empty() {
            wrong.push(format!("{}: no [The guide](README.md) link", doc.display()));
        }
        for t in targets {
            if t.canonicalize().ok().as_deref() != Some(index.as_path()) {
                wrong.push(format!(
                    "{}: [The guide] points at {}, not docs/guide/README.md",
                    doc.display(),
                    t.display()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
