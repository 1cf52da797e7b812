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
