//! `broadside check` (validate specs, scenarios and suites without running a target) and
//! `broadside list` (the bundled assignments).

use super::{joined, plural, specs_or_diagnostics};
use crate::{Error, exit};
use broadside::load;
use camino::Utf8PathBuf;
use std::io::Write;

/// `broadside check PATHS --spec FILE...`: every input loaded and checked, each problem
/// printed with its file:line:col; then every step scenario played on the reference, each
/// expectation the reference does not meet refused as the author's mistake at its place
/// (`broadside::harness::authoring`; dialogue scenarios are checked for their shape only).
pub(crate) fn check(paths: &[Utf8PathBuf], specs: &[Utf8PathBuf]) -> Result<u8, Error> {
    let specs_given = specs.len();
    let specs = specs_or_diagnostics(specs)?;
    let extra = specs_given;
    let (mut loaded, suites) = load::load_suites(paths, &specs);
    // The scenarios that loaded are played even beside files that did not, so every
    // problem is told at once.
    let mistakes = loaded
        .scenarios
        .iter()
        .flat_map(broadside::harness::authoring::check);
    loaded.errors.extend(mistakes);
    if !loaded.errors.is_empty() {
        return Err(Error::Diagnostics(loaded.errors));
    }
    if loaded.files == 0 && suites.0.is_empty() {
        return Err(Error::Input(format!(
            "no spec, scenario or suite.toml files found under {}",
            joined(paths)
        )));
    }
    let n_specs = loaded.specs_checked + extra;
    let marking = match loaded.marking_checked {
        0 => String::new(),
        n => format!(", {}", plural(n, "marking file", "marking files")),
    };
    println!(
        "ok: {}{marking}, {} and {} checked",
        plural(n_specs, "spec", "specs"),
        plural(loaded.scenarios.len(), "scenario", "scenarios"),
        plural(suites.0.len(), "suite", "suites")
    );
    Ok(exit::PASSED)
}

/// `broadside list`: each bundled assignment with its published scenarios and points.
pub(crate) fn list() -> Result<u8, Error> {
    let specs = broadside::spec::SpecSet::builtin();
    let mut out = anstream::stdout();
    writeln!(
        out,
        "{:<18} {:>9} {:>7}  title",
        "assignment", "scenarios", "points"
    )?;
    for id in specs.ids() {
        let spec = specs.get(id).expect("listed");
        let scenarios = broadside::published::load(id, &specs).unwrap_or_default();
        let points: u32 = scenarios.iter().map(|s| s.points).sum();
        let modes: Vec<&str> = spec.modes.keys().map(String::as_str).collect();
        let title = if modes.len() > 1 {
            format!("{} (modes: {})", spec.title, modes.join(", "))
        } else {
            spec.title.clone()
        };
        writeln!(out, "{id:<18} {:>9} {points:>7}  {title}", scenarios.len())?;
    }
    Ok(exit::PASSED)
}
