//! The published scenarios compiled into the binary, so a student can self-check from any
//! folder: `broadside run --assignment solo-10x10 --target python:battleships.py`.

use crate::diag::{Diagnostic, Source};
use crate::scenario::{self, Scenario};
use crate::spec::SpecSet;
use include_dir::{Dir, include_dir};

static SCENARIOS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/fixtures/scenarios");

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

/// The embedded scenario named `name` (`ASSIGNMENT/STEM`, or a path ending in one), as
/// `(path, text)`. Errors: what names exist for that assignment, or which assignments
/// exist.
pub fn show(name: &str) -> Result<(String, &'static str), String> {
    let name = name.trim_end_matches(".toml");
    let (assignment, stem) = name.split_once('/').ok_or_else(|| {
        format!(
            "`{name}` is not a scenario name; expected ASSIGNMENT/NAME, e.g. colab-6x6/01-handout-example"
        )
    })?;
    let stem = stem.rsplit('/').next().unwrap_or(stem);
    let files = files(assignment);
    if files.is_empty() {
        return Err(format!(
            "no published scenarios for `{assignment}`; expected one of: {}",
            assignments().join(", ")
        ));
    }
    let wanted = format!("{assignment}/{stem}");
    let found = files.iter().find(|(path, _)| {
        path.strip_prefix("fixtures/scenarios/")
            .is_some_and(|rest| self::name(assignment, rest) == wanted)
    });
    match found {
        Some((path, text)) => Ok((path.clone(), text)),
        None => {
            let names: Vec<String> = files
                .iter()
                .filter_map(|(p, _)| p.strip_prefix("fixtures/scenarios/"))
                .map(|rest| self::name(assignment, rest))
                .collect();
            Err(format!(
                "no published scenario `{wanted}`; {assignment} has: {}",
                names.join(", ")
            ))
        }
    }
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
