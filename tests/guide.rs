//! The guide's quick starts do what they show, and every link of the documents resolves.
//!
//! The commands in `docs/guide/*.md`'s `console` blocks are run from the repository's root by
//! trycmd and their output compared (`...` stands for lines left out, `[..]` for part of a
//! line, `? 1` for the exit status).

use std::path::{Path, PathBuf};

#[test]
fn the_guides_commands_do_what_it_shows() {
    trycmd::TestCases::new().case("docs/guide/*.md");
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

fn documents() -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from("README.md")];
    for e in walkdir::WalkDir::new("docs").into_iter().flatten() {
        if e.path().extension().is_some_and(|x| x == "md") {
            out.push(e.path().to_path_buf());
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
