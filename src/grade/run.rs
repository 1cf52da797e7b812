//! The grading loop: submissions in parallel (rayon), each report written the moment it is
//! done, atomically, so an interrupted run keeps every report already written.

use super::GradeError;
use super::Submission;
use crate::harness::millis;
use crate::play::run_submission;
use crate::report::{
    HiddenResults, Report, for_students, to_gradescope, to_json, to_junit, to_text,
};
use crate::scenario::Scenario;
use crate::target::Target;
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
    /// `class-report.html` beside the summary: the class report (staff view), one
    /// self-contained page with a chart, failure rates and a page per submission.
    Html,
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
    /// When each job slot runs its children as a user of its own (`base + slot`, as root):
    /// every process of that user is killed before and after each submission, and those left
    /// after one are its `leak`, however they hid from the leak check.
    pub slot_users: Option<u32>,
    /// What else the reports depend on (target, limits, what students may see), so
    /// `--resume` regrades when it changes.
    pub settings: String,
    /// Fill each submission's marking sheet with this scheme (`--marking`).
    pub marking: Option<&'a crate::marking::Scheme>,
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
    fn finished(&self, graded: &Result<Graded, GradeError>);
}

/// Builds a target for a submission; `slot` is the grading thread's index (0-based, below
/// `jobs`), so each slot can run its children as a user of its own. An error is the grader's
/// (no compiler, an unreadable folder): the submission is left ungraded. A submission's own
/// failure to build is a target whose scenarios fail at setup, not an error.
pub type MakeTarget<'a> =
    dyn Fn(&Submission, usize) -> Result<Box<dyn Target>, GradeError> + Sync + 'a;

/// Grades every submission of `plan` with `jobs` threads, writing each one's files as soon as
/// it is done. Returns one entry per submission in order: `None` for those not started
/// because `stop` was set or stopped half-way by [`crate::play::ABORT`] (neither has
/// files written), `Err` when its target could not be made, broadside failed while playing
/// it (a scenario `not-graded` by a `harness` fault: nothing is written) or its files could
/// not be written.
pub fn grade(
    plan: &Plan<'_>,
    make: &MakeTarget<'_>,
    progress: &dyn Progress,
) -> Vec<Option<Result<Graded, GradeError>>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(plan.jobs.max(1))
        .thread_name(|i| format!("broadside-grade-{i}"))
        .build()
        .expect("a thread pool of plain threads");
    let digest = plan_digest(plan);
    pool.install(|| {
        plan.submissions
            .par_iter()
            .with_max_len(1)
            .map(|sub| {
                if plan.stop.load(Ordering::SeqCst) {
                    return None;
                }
                let graded = grade_one(plan, &digest, make, sub)?;
                progress.finished(&graded);
                Some(graded)
            })
            .collect()
    })
}

/// Grades one submission; `digest` is [`plan_digest`] of `plan`, computed once per run.
/// `None` when the run was aborted while it played: nothing is written, it is not graded.
fn grade_one(
    plan: &Plan<'_>,
    digest: &str,
    make: &MakeTarget<'_>,
    sub: &Submission,
) -> Option<Result<Graded, GradeError>> {
    let dir = plan.out.join(&sub.id);
    if plan.resume
        && let Some(report) = already_graded(&dir, digest, &plan.formats, &sub.folder)
    {
        return Some(Ok(Graded {
            id: sub.id.clone(),
            report,
            resumed: true,
        }));
    }
    let aborted = || crate::play::ABORT.load(Ordering::SeqCst);
    if aborted() {
        return None;
    }
    let start = std::time::Instant::now();
    let slot = rayon::current_thread_index().unwrap_or(0);
    let user = plan
        .slot_users
        .filter(|_| crate::target::limits::running_as_root())
        .map(|base| base + u32::try_from(slot).unwrap_or(0));
    if let Some(uid) = user {
        crate::target::process::kill_user(uid);
    }
    // A target that cannot be made is the grader's problem (no compiler, a folder it cannot
    // read): the submission is left ungraded, to be retried with --resume, never charged.
    let mut target = match make(sub, slot) {
        Ok(t) => t,
        Err(e) => return Some(Err(GradeError::NotGraded(format!("{}: {e}", sub.id)))),
    };
    let (results, mut faults) =
        run_submission(plan.scenarios, target.as_mut(), &mut crate::play::Quiet);
    let name = target.name();
    let mut notes = target.notes();
    notes.extend(crate::harness::skipped_note(
        plan.scenarios,
        target.as_ref(),
    ));
    drop(target);
    if let Some(uid) = user {
        faults.extend(crate::target::process::sweep_user(uid));
    }
    // Cut short: its children were killed under it, so what it answered is not its own.
    if aborted() {
        return None;
    }
    let mut report = Report::graded(name, plan.scenarios, results);
    // broadside's own side failed in a scenario: no grade, nothing written; retried with
    // --resume.
    if let Some(e) = report.not_graded() {
        return Some(Err(GradeError::NotGraded(format!("{}: {e}", sub.id))));
    }
    if let Some(scheme) = plan.marking {
        let uid = user.unwrap_or(crate::target::limits::NOBODY);
        report.marking = Some(crate::marking::mark(
            scheme,
            sub.path.as_std_path(),
            &report,
            uid,
        ));
        if let Some(uid) = user {
            faults.extend(crate::target::process::sweep_user(uid));
        }
        if aborted() {
            return None;
        }
    }
    report.faults = faults;
    report.notes = notes;
    report.elapsed_ms = millis(start.elapsed());
    report.scenarios_digest = Some(digest.to_string());
    report.folder = Some(sub.folder.clone());
    if let Err(e) = write_reports(&dir, &report, &plan.formats, plan.hidden) {
        return Some(Err(e));
    }
    Some(Ok(Graded {
        id: sub.id.clone(),
        report,
        resumed: false,
    }))
}

/// The digest of what a plan's reports depend on besides the submission.
fn plan_digest(plan: &Plan<'_>) -> String {
    digest(plan.scenarios, &plan.settings)
}

/// The report in `dir` if it was graded under the same [`digest`], from the submission
/// folder spelled `folder` (an id may stand for another folder than last time: one added
/// or removed that read the same), and every file `formats` asks for is there.
fn already_graded(dir: &Utf8Path, want: &str, formats: &[Written], folder: &str) -> Option<Report> {
    let text = std::fs::read_to_string(dir.join("report.json")).ok()?;
    let report: Report = serde_json::from_str(&text).ok()?;
    let files_there = formats
        .iter()
        .all(|f| file_name(*f).is_none_or(|name| dir.join(name).is_file()));
    let same = report.scenarios_digest.as_deref() == Some(want)
        && report.folder.as_deref() == Some(folder);
    (same && files_there).then_some(report)
}

/// SHA-256 (hex) over each scenario's path, file text, score and visibility, and `settings`
/// (the target, limits and student view): what a report depends on besides the submission.
pub(crate) fn digest(scenarios: &[Scenario], settings: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update((settings.len() as u64).to_le_bytes());
    h.update(settings.as_bytes());
    for s in scenarios {
        for part in [s.source.path.as_bytes(), s.source.text.as_bytes()] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part);
        }
        h.update(s.max_score.to_bits().to_le_bytes());
        h.update([s.visibility as u8]);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The file a format writes besides `report.json`.
fn file_name(f: Written) -> Option<&'static str> {
    match f {
        Written::Json => None,
        Written::Gradescope => Some("results.json"),
        Written::Junit => Some("junit.xml"),
        Written::Text => Some("report.txt"),
        Written::Html => None,
    }
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
) -> Result<(), GradeError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| GradeError::Write(format!("cannot create {dir}: {e}")))?;
    for f in formats {
        let Some(name) = file_name(*f) else { continue };
        let text = match f {
            Written::Json | Written::Html => continue,
            Written::Gradescope => to_gradescope(report, hidden),
            Written::Junit => to_junit(report),
            Written::Text => {
                let mut text = to_text(&for_students(report, hidden), false);
                if let Some(sheet) = &report.marking {
                    text.push('\n');
                    text.push_str(&crate::marking::to_text(sheet));
                }
                text
            }
        };
        write_atomic(&dir.join(name), &text)?;
    }
    if let Some(sheet) = &report.marking {
        let json = serde_json::to_string_pretty(sheet).expect("a sheet always serializes") + "\n";
        write_atomic(&dir.join("marking.json"), &json)?;
        write_atomic(&dir.join("marking.txt"), &crate::marking::to_text(sheet))?;
    }
    write_atomic(&dir.join("report.json"), &to_json(report))
}

/// Writes `text` to `path` through a temporary file in the same folder and a rename, so the
/// file is either complete or absent.
///
/// Errors: the folder is not writable, or the disk is full (the message names the file).
pub fn write_atomic(path: &Utf8Path, text: &str) -> Result<(), GradeError> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let dir = path.parent().unwrap_or(Utf8Path::new("."));
    let fail = |e: std::io::Error| GradeError::Write(format!("cannot write {path}: {e}"));
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
