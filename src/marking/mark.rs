//! A submission's marking sheet from its scheme, and the check that the tools a scheme needs
//! run here.

use super::scheme::Scheme;
use super::sheet::{self, Figure, FigureState, Sheet};
use crate::report::Report;
use std::path::Path;

/// Why broadside could not measure a figure, or cannot mark at all: its own side (a tool
/// missing or failing in the containment, a scratch folder it could not make), never the
/// student's. A figure shows it as `not measured: …` and is never charged; from
/// [`check_tools`] it stops `grade --marking` before it starts, as the grader's error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct MeasureError(pub String);

impl From<String> for MeasureError {
    fn from(why: String) -> MeasureError {
        MeasureError(why)
    }
}

impl From<&str> for MeasureError {
    fn from(why: &str) -> MeasureError {
        MeasureError(why.to_string())
    }
}

/// The marking sheet of the submission at `root` (a folder, or one file), whose behaviour
/// `report` graded; its tools run as `uid` (as root). A figure the grader could not measure
/// (a tool failed) is `not-measured`, never charged.
pub fn mark(scheme: &Scheme, root: &Path, report: &Report, uid: u32) -> Sheet {
    let figures: Vec<Figure> = scheme
        .figures
        .iter()
        .map(|spec| {
            let measured = match (&spec.kind, &scheme.tests) {
                (super::scheme::FigureKind::StudentTests, Some(tests)) => super::pytest::figure(
                    spec,
                    tests,
                    super::scheme::wheat(&scheme.assignment),
                    root,
                    uid,
                ),
                (super::scheme::FigureKind::Extension, _) => {
                    super::extension::figure(spec, root, uid)
                }
                (super::scheme::FigureKind::Doctests, tests) => super::measure::doctests(
                    spec,
                    tests
                        .as_ref()
                        .map(|t| (t, super::scheme::wheat(&scheme.assignment))),
                    root,
                    uid,
                ),
                _ => super::measure::figure(spec, root, uid),
            };
            measured.unwrap_or_else(|e| {
                spec.figure(FigureState::NotMeasured, format!("not measured: {e}"))
            })
        })
        .collect();
    let share = if report.summary.max_score > 0.0 {
        report.summary.score / report.summary.max_score
    } else {
        0.0
    };
    let criteria: Vec<sheet::CriterionMark> = scheme
        .criteria
        .iter()
        .map(|c| {
            let (mark, how) = match c.mark {
                Some(super::scheme::Automatic::Behaviour) => (
                    Some(crate::report::round_to(f64::from(c.weight) * share, 2)),
                    format!(
                        "automatic: {} of the behaviour suite's {} ({:.1} %)",
                        report.summary.score,
                        report.summary.max_score,
                        share * 100.0
                    ),
                ),
                None => (None, String::new()),
            };
            sheet::CriterionMark {
                id: c.id.clone(),
                title: c.title.clone(),
                weight: c.weight,
                clause: c.clause.clone(),
                mark,
                how,
                figures: c.figures.clone(),
            }
        })
        .collect();
    let caps: Vec<sheet::CapResult> = scheme
        .caps
        .iter()
        .map(|cap| sheet::CapResult {
            id: cap.id.clone(),
            max: cap.max,
            clause: cap.clause.clone(),
            applies: figures
                .iter()
                .any(|f| f.id == cap.when_missing && f.state == FigureState::Missing),
        })
        .collect();
    Sheet {
        assignment: scheme.assignment.clone(),
        handout: format!("{}, {}", scheme.handout, scheme.section),
        out_of: scheme.out_of,
        automatic: crate::report::round_to(criteria.iter().filter_map(|c| c.mark).sum(), 2),
        for_the_marker: criteria
            .iter()
            .filter(|c| c.mark.is_none())
            .map(|c| c.weight)
            .sum(),
        capped_at: caps.iter().filter(|c| c.applies).map(|c| c.max).min(),
        criteria,
        caps,
        figures,
    }
}

/// Checks, before grading starts, that the tools `scheme` needs run here in the containment
/// the submissions get (so a missing tool is the instructor's setup error, never a student's
/// zero).
///
/// Errors: what is missing and how to install it.
pub fn check_tools(scheme: &Scheme, uid: u32) -> Result<(), MeasureError> {
    use super::scheme::FigureKind as K;
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a scratch folder: {e}"))?;
    let copy = super::tools::Copy::new(dir.path(), uid, &crate::target::haskell::ghc_folders())?;
    let timeout = std::time::Duration::from_secs(60);
    let has = |kind: K| scheme.figures.iter().any(|f| f.kind == kind);
    let mut missing = Vec::new();
    let tool = |program: String, args: &[&str], env: Vec<(String, String)>, install: &str| {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let ok = copy
            .run(&program, &args, &env, timeout)
            .is_ok_and(|b| b.code == Some(0));
        (!ok).then(|| {
            format!(
                "`{program} {}` fails in the submissions' containment (install it: {install})",
                shlex::try_join(args.iter().map(String::as_str)).unwrap_or_else(|_| args.join(" "))
            )
        })
    };
    let python = crate::target::python::interpreter();
    let pytest = scheme
        .tests
        .as_ref()
        .is_some_and(|t| t.style == super::scheme::TestsStyle::Pytest);
    if has(K::StudentTests) && pytest {
        missing.extend(tool(
            python.clone(),
            &["-c", "import pytest"],
            vec![],
            "apt-get install python3-pytest",
        ));
    }
    if has(K::Pycodestyle) {
        missing.extend(tool(
            python,
            &["-c", "import pycodestyle"],
            vec![],
            "apt-get install python3-pycodestyle",
        ));
    }
    if has(K::GhcWall) || has(K::Doctests) {
        missing.extend(tool(
            crate::target::haskell::compiler(),
            &["--version"],
            crate::target::haskell::ghc_library_path(),
            "apt-get install ghc",
        ));
    }
    if has(K::Javac) {
        let javac = crate::target::program::javac();
        let env = crate::target::program::jdk_library_path(&javac);
        missing.extend(tool(
            javac,
            &["-J-Xmx64m", "-version"],
            env,
            "apt-get install openjdk-17-jdk-headless",
        ));
    }
    if has(K::History) {
        missing.extend(tool(
            "git".into(),
            &["--version"],
            vec![],
            "apt-get install git",
        ));
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "--marking needs tools the grader lacks:\n  {}",
            missing.join("\n  ")
        )
        .into())
    }
}
