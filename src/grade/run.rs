//! The grading loop: submissions in parallel (rayon), each report written the moment it is
//! done, atomically, so an interrupted run keeps every report already written.

use super::Submission;
use crate::harness::{millis, run_submission};
use crate::report::{
    HiddenResults, Report, ScenarioResult, for_students, to_gradescope, to_json, to_junit, to_text,
};
use crate::scenario::Scenario;
use crate::target::{Fault, FaultKind, Target};
use camino::{Utf8Path, Utf8PathBuf};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// A file written per submission besides `report.json` (which is always written, last).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Written {
    /// `report.json`: the full report (staff view). Always written.
    Json,
    /// `results.json`: Gradescope results (student view).
    Gradescope,
    /// `junit.xml`: JUnit XML (staff view).
    Junit,
    /// `report.txt`: the text report (student view), to hand back as feedback.
    Text,
}

/// What to grade and where to write it.
pub struct Plan<'a> {
    pub scenarios: &'a [Scenario],
    pub submissions: Vec<Submission>,
    /// One sub-folder per submission goes here.
    pub out: Utf8PathBuf,
    pub formats: Vec<Written>,
    /// What students may see of hidden scenarios (student views).
    pub hidden: HiddenResults,
    /// Submissions graded at once.
    pub jobs: usize,
    /// Skip a submission whose `report.json` is already there for the same scenarios.
    pub resume: bool,
    /// Set (by Ctrl-C) to start no more submissions; those running finish.
    pub stop: &'a AtomicBool,
}

/// One submission graded (or found graded, with `resume`).
#[derive(Debug, Clone)]
pub struct Graded {
    pub id: String,
    pub report: Report,
    /// Its report was already written by an earlier run.
    pub resumed: bool,
}

/// Hears about each submission as it finishes (a progress bar, log lines). Called from the
/// grading threads.
pub trait Progress: Sync {
    fn finished(&self, graded: &Result<Graded, String>);
}

/// Builds a target for a submission; `slot` is the grading thread's index (0-based, below
/// `jobs`), so each slot can run its children as a user of its own. Errors are the
/// submission's fault (e.g. no such file) and fail its scenarios at setup.
pub type MakeTarget<'a> = dyn Fn(&Submission, usize) -> Result<Box<dyn Target>, String> + Sync + 'a;

/// Grades every submission of `plan` with `jobs` threads, writing each one's files as soon as
/// it is done. Returns one entry per submission in order: `None` for those not started
/// because `stop` was set, `Err` when its files could not be written.
pub fn grade(
    plan: &Plan<'_>,
    make: &MakeTarget<'_>,
    progress: &dyn Progress,
) -> Vec<Option<Result<Graded, String>>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(plan.jobs.max(1))
        .thread_name(|i| format!("broadside-grade-{i}"))
        .build()
        .expect("a thread pool of plain threads");
    pool.install(|| {
        plan.submissions
            .par_iter()
            .with_max_len(1)
            .map(|sub| {
                if plan.stop.load(Ordering::SeqCst) {
                    return None;
                }
                let graded = grade_one(plan, make, sub);
                progress.finished(&graded);
                Some(graded)
            })
            .collect()
    })
}

fn grade_one(plan: &Plan<'_>, make: &MakeTarget<'_>, sub: &Submission) -> Result<Graded, String> {
    let dir = plan.out.join(&sub.id);
    if plan.resume
        && let Some(report) = already_graded(&dir, plan.scenarios)
    {
        return Ok(Graded {
            id: sub.id.clone(),
            report,
            resumed: true,
        });
    }
    let start = std::time::Instant::now();
    let slot = rayon::current_thread_index().unwrap_or(0);
    let mut report = match make(sub, slot) {
        Ok(mut target) => {
            let (results, faults) = run_submission(plan.scenarios, target.as_mut());
            let mut report = Report::new(target.name(), results);
            report.faults = faults;
            report.notes = target.notes();
            report
        }
        Err(message) => {
            let fault = Fault {
                kind: FaultKind::Setup,
                message,
            };
            let results = plan
                .scenarios
                .iter()
                .map(|s| ScenarioResult::new(s).errored(fault.clone(), None))
                .collect();
            Report::new(sub.path.to_string(), results)
        }
    };
    report.elapsed_ms = millis(start.elapsed());
    write_reports(&dir, &report, &plan.formats, plan.hidden)?;
    Ok(Graded {
        id: sub.id.clone(),
        report,
        resumed: false,
    })
}

/// The report in `dir` if it is a broadside report over exactly `scenarios`.
fn already_graded(dir: &Utf8Path, scenarios: &[Scenario]) -> Option<Report> {
    let text = std::fs::read_to_string(dir.join("report.json")).ok()?;
    let report: Report = serde_json::from_str(&text).ok()?;
    let same = report.scenarios.len() == scenarios.len()
        && report
            .scenarios
            .iter()
            .zip(scenarios)
            .all(|(r, s)| r.path == s.source.path);
    same.then_some(report)
}

/// Writes a submission's files into `dir`, `report.json` last so that its presence means the
/// others are complete.
///
/// Errors: a file could not be written (the message names it).
pub fn write_reports(
    dir: &Utf8Path,
    report: &Report,
    formats: &[Written],
    hidden: HiddenResults,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {dir}: {e}"))?;
    for f in formats {
        match f {
            Written::Json => {}
            Written::Gradescope => {
                write_atomic(&dir.join("results.json"), &to_gradescope(report, hidden))?;
            }
            Written::Junit => write_atomic(&dir.join("junit.xml"), &to_junit(report))?,
            Written::Text => write_atomic(
                &dir.join("report.txt"),
                &to_text(&for_students(report, hidden), false),
            )?,
        }
    }
    write_atomic(&dir.join("report.json"), &to_json(report))
}

/// Writes `text` to `path` through a temporary file in the same folder and a rename, so the
/// file is either complete or absent.
///
/// Errors: the folder is not writable, or the disk is full (the message names the file).
pub fn write_atomic(path: &Utf8Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let dir = path.parent().unwrap_or(Utf8Path::new("."));
    let fail = |e: std::io::Error| format!("cannot write {path}: {e}");
    let mut tmp = tempfile::Builder::new()
        .prefix(".broadside-")
        .tempfile_in(dir)
        .map_err(fail)?;
    tmp.write_all(text.as_bytes()).map_err(fail)?;
    tmp.as_file().sync_all().map_err(fail)?;
    // A report is an ordinary file (the temporary file was private).
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644)).map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}
