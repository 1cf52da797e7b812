//! The published scenarios compiled into the binary, so a student can self-check from any
//! folder: `broadside run --assignment solo-10x10 --target python:battleships.py`.

use crate::diag::{Diagnostic, Source};
use crate::scenario::{self, Scenario};
use crate::spec::SpecSet;
use include_dir::{Dir, include_dir};

static SCENARIOS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../../fixtures/scenarios");

/// The embedded scenario files of `assignment`, its `dialogue` folder included, as
/// `(path, text)`, sorted by path; paths read `fixtures/scenarios/<assignment>/<file>` as in
/// a checkout.
pub fn files(assignment: &str) -> Vec<(String, &'static str)> {
    let Some(dir) = SCENARIOS.get_dir(assignment) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    collect(dir, &mut out);
    out.sort();
    out
}

/// The `.toml` files under `dir`, folders walked.
fn collect(dir: &'static Dir<'static>, out: &mut Vec<(String, &'static str)>) {
    for f in dir.files() {
        if f.path().extension().is_some_and(|e| e == "toml")
            && let Some(text) = f.contents_utf8()
        {
            let path = format!(
                "fixtures/scenarios/{}",
                f.path().to_string_lossy().replace('\\', "/")
            );
            out.push((path, text));
        }
    }
    for d in dir.dirs() {
        collect(d, out);
    }
}

/// The published name (`ASSIGNMENT/STEM`) of the scenario at `path` with `text`, if it is
/// one of the embedded files, unchanged.
pub fn name_of(path: &str, text: &str) -> Option<String> {
    let rest = path.strip_prefix("fixtures/scenarios/")?;
    let assignment = rest.split('/').next()?;
    let dir = SCENARIOS.get_dir(assignment)?;
    let file = find(dir, rest)?;
    (file.contents_utf8()? == text).then(|| name(assignment, rest))
}

/// `ASSIGNMENT/STEM` for an embedded file at `rest` (`colab-6x6/01-x.toml`), folders
/// between dropped (`solo-10x10/dialogue/04-played-game.toml` is `solo-10x10/04-played-game`).
fn name(assignment: &str, rest: &str) -> String {
    let stem = rest
        .rsplit('/')
        .next()
        .unwrap_or(rest)
        .trim_end_matches(".toml");
    format!("{assignment}/{stem}")
}

fn find(dir: &'static Dir<'static>, path: &str) -> Option<&'static include_dir::File<'static>> {
    dir.get_file(path)
}

/// No published scenario answers to a name: the sentence says why and which names do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotPublished(pub String);

/// The embedded scenario named `name`, as `(path, text)`. `name` is `ASSIGNMENT/NAME` as
/// reports give it (`colab-6x6/01-handout-example`), a path ending in one
/// (`fixtures/scenarios/solo-10x10/dialogue/04-played-game.toml`: the assignment is the last
/// folder that names one), or `NAME` alone when exactly one assignment publishes a scenario
/// of that name (`03-off-board-calls`); `.toml` may end any of them.
///
/// Errors: a `NAME` that several assignments publish (each `ASSIGNMENT/NAME` is listed, none
/// is guessed); a `NAME` none publishes (the names that contain it, if any); an unknown
/// assignment (which exist); an unknown name for an assignment (its names).
pub fn show(name: &str) -> Result<(String, &'static str), NotPublished> {
    let name = name.trim_end_matches(".toml");
    let Some((folders, stem)) = name.rsplit_once('/') else {
        return unqualified(name);
    };
    let known = assignments();
    let assignment = folders
        .rsplit('/')
        .find(|f| known.iter().any(|k| k == f))
        .unwrap_or_else(|| folders.split('/').next().unwrap_or(folders));
    let files = files(assignment);
    if files.is_empty() {
        return Err(NotPublished(format!(
            "no published scenarios for `{assignment}`; expected one of: {}",
            known.join(", ")
        )));
    }
    let wanted = format!("{assignment}/{stem}");
    let found = files.iter().find(|(path, _)| {
        path.strip_prefix("fixtures/scenarios/")
            .is_some_and(|rest| self::name(assignment, rest) == wanted)
    });
    match found {
        Some((path, text)) => Ok((path.clone(), text)),
        None => Err(NotPublished(format!(
            "no published scenario `{wanted}`; {assignment} has: {}",
            names(assignment).join(", ")
        ))),
    }
}

/// [`show`] of a `NAME` without its assignment.
fn unqualified(stem: &str) -> Result<(String, &'static str), NotPublished> {
    let all: Vec<String> = assignments().iter().flat_map(|a| names(a)).collect();
    let exact: Vec<&String> = all
        .iter()
        .filter(|n| n.rsplit('/').next() == Some(stem))
        .collect();
    match exact.as_slice() {
        [one] => show(one),
        [] => {
            let lower = stem.to_lowercase();
            let near: Vec<&str> = all
                .iter()
                .filter(|n| !lower.is_empty() && n.to_lowercase().contains(&lower))
                .map(String::as_str)
                .take(8)
                .collect();
            let hint = if near.is_empty() {
                String::new()
            } else {
                format!("; did you mean {}?", near.join(", "))
            };
            Err(NotPublished(format!(
                "no published scenario is named `{stem}`; expected ASSIGNMENT/NAME, e.g. colab-6x6/01-handout-example{hint}"
            )))
        }
        several => Err(NotPublished(format!(
            "`{stem}` is published by several assignments; name one as ASSIGNMENT/NAME: {}",
            several
                .iter()
                .map(|n| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The published names (`ASSIGNMENT/NAME`) of `assignment`'s scenarios, in path order.
fn names(assignment: &str) -> Vec<String> {
    files(assignment)
        .iter()
        .filter_map(|(p, _)| p.strip_prefix("fixtures/scenarios/"))
        .map(|rest| name(assignment, rest))
        .collect()
}

/// The assignments with embedded scenarios, sorted.
pub fn assignments() -> Vec<String> {
    let mut out: Vec<String> = SCENARIOS
        .dirs()
        .map(|d| d.path().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// Loads the embedded scenarios of `assignment`. Errors: every problem, as for files (a
/// release never ships broken scenarios; the published-scenario test rules it out).
pub fn load(assignment: &str, specs: &SpecSet) -> Result<Vec<Scenario>, Vec<Diagnostic>> {
    let mut scenarios = Vec::new();
    let mut errors = Vec::new();
    for (path, text) in files(assignment) {
        match scenario::parse(&Source::new(path, text), specs) {
            Ok(s) => scenarios.push(s),
            Err(ds) => errors.extend(ds),
        }
    }
    if errors.is_empty() {
        Ok(scenarios)
    } else {
        Err(errors)
    }
}
