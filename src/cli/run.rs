//! `broadside run`: plays scenarios against one target and writes the report.

use super::limits::LimitArgs;
use super::{color_for, joined, specs_or_diagnostics, warn_readable_hidden};
use crate::{Error, exit};
use broadside::load;
use broadside::report::{self, Report};
use broadside::spec::SpecSet;
use broadside::target::TargetSpec;
use broadside::target::limits;
use camino::{Utf8Path, Utf8PathBuf};
use clap::ValueEnum;
use std::io::{IsTerminal, Write};

/// Who a report view is for (`--audience`): which of the core's views `run` prints.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
enum Audience {
    /// Course staff: every scenario in full.
    #[default]
    Staff,
    /// A student: hidden and after-due-date scenarios without their details
    /// ([`report::for_students`]).
    Student,
}

/// `broadside run`'s arguments.
#[derive(clap::Args)]
pub(crate) struct RunArgs {
    /// Scenario files or folders of them (searched for *.toml); with --assignment, played
    /// beside its published ones (a published scenario also named here is played once).
    paths: Vec<Utf8PathBuf>,
    /// Run the published scenarios of this assignment, embedded in broadside (no checkout
    /// needed); `broadside list` shows them.
    #[arg(long)]
    assignment: Option<String>,
    /// What to grade: `reference` (the bundled engine), `python:PATH` (a student's .py file
    /// or folder), `haskell:PATH` (a Battleship.hs or its folder, compiled with GHC),
    /// `native:PATH` (a .so, or a folder with a Cargo crate, a Makefile or C sources,
    /// implementing specs/abi/broadside.h), `cmd:COMMAND` (any program that speaks the
    /// protocol), `java:PATH` (a Java program's sources, compiled with javac) or
    /// `exec:COMMAND` (any interactive program); the last two play dialogue scenarios.
    #[arg(long, default_value = "reference")]
    target: String,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Write the report here instead of standard output.
    #[arg(long)]
    out: Option<Utf8PathBuf>,
    /// Extra spec files (a course's own variant); may repeat.
    #[arg(long = "spec")]
    specs: Vec<Utf8PathBuf>,
    /// Who the report is for: `student` leaves out the steps and expectations of hidden
    /// and after-due-date scenarios (the Gradescope format always does).
    #[arg(long, value_enum, default_value_t = Audience::Staff)]
    audience: Audience,
    /// Staff only: write each dialogue's whole conversation (every line sent and printed,
    /// under a marker of its move) to a file of its own in this folder,
    /// `TARGET--SCENARIO.txt`, at most 1 MiB each; never in the report. Refused with a
    /// student view (`--audience student`, `--format gradescope|prairielearn`).
    #[arg(long, value_name = "DIR")]
    transcript: Option<Utf8PathBuf>,
    #[command(flatten)]
    limits: LimitArgs,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum Format {
    /// The full report as JSON (`format_version` 1).
    Json,
    /// Text for a terminal.
    Text,
    /// Gradescope's `results.json` (student view).
    Gradescope,
    /// PrairieLearn's external-grader `results.json` (student view).
    Prairielearn,
    /// JUnit XML for CI systems.
    Junit,
}

/// What is wrong when `run` has no scenarios to load (no paths, no `--assignment`) or is
/// handed a student's source file where scenarios go, with the command meant.
pub(crate) fn misplaced_paths(
    paths: &[Utf8PathBuf],
    assignment: Option<&str>,
    target: &str,
    specs: &broadside::spec::SpecSet,
) -> Option<String> {
    use super::hints;
    if paths.is_empty() && assignment.is_none() {
        let published = broadside::published::assignments().join(", ");
        return Some(format!(
            "no scenarios to run: name scenario files or folders, or `--assignment ID` for the published scenarios of one of: {published}\n  e.g. {}",
            hints::self_check_command(target, specs)
        ));
    }
    // A submission's folder where scenarios go: no TOML in it, a source file that is.
    if let Some(folder) = paths
        .iter()
        .find(|p| p.is_dir() && hints::is_submission_folder(p))
    {
        let command = hints::self_check_command(&hints::target_for_folder(folder)?, specs);
        return Some(format!(
            "{folder} holds a submission, not scenarios: scenarios are TOML files, and a submission is named with --target\n  to check it against the published scenarios: {command}"
        ));
    }
    let source = paths
        .iter()
        .find(|p| p.is_file() && broadside::target::kind_of_source(p).is_some())?;
    let command = hints::self_check_command(&hints::target_for_source(source)?, specs);
    Some(format!(
        "{source} is a submission's source, not a scenario: scenarios are TOML files, and a submission is named with --target\n  to check it against the published scenarios: {command}"
    ))
}

/// `broadside run`: loads the scenarios (and any suites among the paths), plays them against
/// one target and writes the report.
pub(crate) fn run(args: RunArgs) -> Result<u8, Error> {
    let RunArgs {
        paths,
        assignment,
        target,
        format,
        out,
        specs,
        audience,
        transcript,
        limits: limit_args,
    } = args;
    // A transcript names the plan's moves and shows hidden scenarios' play: staff only.
    if transcript.is_some()
        && (audience == Audience::Student
            || matches!(format, Format::Gradescope | Format::Prairielearn))
    {
        return Err(Error::Input(
            "--transcript is for staff: it shows every scenario's whole game, hidden ones too, so it cannot go with a student view (--audience student, --format gradescope or prairielearn)".into(),
        ));
    }
    let specs = specs_or_diagnostics(&specs)?;
    if let Some(message) = misplaced_paths(&paths, assignment.as_deref(), &target, &specs) {
        return Err(Error::Input(message));
    }
    // Parsed once here, after the hints above (which mend a misspelt kind together with
    // what else is missing, in one command to copy).
    let target: TargetSpec = target.parse().map_err(Error::Input)?;
    broadside::target::check_ahead(&target);
    let (loaded, suites) = scenarios_to_run(&paths, assignment.as_deref(), &specs)?;
    let mut limits = limit_args.limits(&suites.limits());
    super::limits::provide_python_packages(
        &suites,
        matches!(target, broadside::target::TargetSpec::Python(_)),
        &mut limits,
    )?;
    let start = std::time::Instant::now();
    let (users, uid) = submission_user()?;
    let mut target = broadside::target::from_spec(&target, limits, uid)?;
    let transcripts = transcript
        .map(|dir| super::transcript_sink(&dir))
        .transpose()?;
    if let Some(sink) = &transcripts {
        target.keep_transcripts(&sink.for_submission(&target.name()));
    }
    if !loaded
        .scenarios
        .iter()
        .any(|s| broadside::harness::plays(target.as_ref(), s))
    {
        return Err(Error::Input(format!(
            "none of the {} scenarios can be played by `{}`: {}",
            loaded.scenarios.len(),
            target.name(),
            broadside::harness::skipped_note(&loaded.scenarios, target.as_ref())
                .unwrap_or_default()
        )));
    }
    let played = loaded
        .scenarios
        .iter()
        .filter(|s| broadside::harness::plays(target.as_ref(), s))
        .count();
    let mut progress = RunProgress::new(played, color_for(std::io::stderr().is_terminal()));
    let (results, mut faults) =
        broadside::play::run_submission(&loaded.scenarios, target.as_mut(), &mut progress);
    let mut report = Report::graded(target.name(), &loaded.scenarios, results);
    report.notes = target.notes();
    report.notes.extend(broadside::harness::skipped_note(
        &loaded.scenarios,
        target.as_ref(),
    ));
    drop(target);
    if users.is_some() {
        faults.extend(broadside::target::process::sweep_user(uid));
    }
    report.faults = faults;
    report.elapsed_ms = broadside::harness::millis(start.elapsed());
    let hidden = suites.hidden_results();
    let view = match audience {
        Audience::Staff => report.clone(),
        Audience::Student => report::for_students(&report, hidden),
    };
    write_report(&report, &view, format, out.as_deref(), hidden)?;
    if let Some(sink) = &transcripts {
        super::warn_transcripts(sink);
    }
    // A report with scenarios broadside itself failed to play is no grade (exit 3).
    if let Some(why) = report.not_graded() {
        return Err(Error::Grader(format!(
            "{why}; nothing was scored, fix the machine and run again"
        )));
    }
    Ok(if report.all_passed() {
        exit::PASSED
    } else {
        exit::FAILED
    })
}

/// The scenarios `run` plays: those under `paths` and, with `--assignment`, the published
/// ones (a published scenario a path also names is played once, as the path gives it).
///
/// Errors: no published scenarios for the assignment, scenarios that do not load
/// (file:line:col), or none at all (exit 2).
fn scenarios_to_run(
    paths: &[Utf8PathBuf],
    assignment: Option<&str>,
    specs: &SpecSet,
) -> Result<(load::Loaded, broadside::suite::Suites), Error> {
    let (mut loaded, suites) = load::load_suites(paths, specs);
    if let Some(id) = assignment {
        if broadside::published::files(id).is_empty() {
            let known = broadside::published::assignments().join(", ");
            return Err(Error::Input(format!(
                "no published scenarios for `{id}`; expected one of: {known}"
            )));
        }
        match broadside::published::load(id, specs) {
            // A published scenario also named by a path (`--assignment solo-10x10
            // fixtures/scenarios/solo-10x10`) is played once, as the path gives it.
            Ok(s) => {
                let given: Vec<&str> = loaded.scenarios.iter().map(|g| &*g.source.text).collect();
                let new: Vec<_> = s
                    .into_iter()
                    .filter(|p| !given.contains(&&*p.source.text))
                    .collect();
                loaded.scenarios.extend(new);
            }
            Err(errors) => loaded.errors.extend(errors),
        }
    }
    if !loaded.errors.is_empty() {
        return Err(Error::Diagnostics(loaded.errors));
    }
    warn_readable_hidden(&loaded.scenarios);
    if loaded.scenarios.is_empty() {
        return Err(Error::Input(format!(
            "no scenarios found under {}",
            joined(paths)
        )));
    }
    Ok((loaded, suites))
}

/// The user the submission runs as. As root, a user of its own (a block claimed as `grade`
/// claims its slots'), with anything still running as it killed, so whatever the
/// submission leaves running, however it sheds broadside's mark, is found by its user
/// afterwards, killed and reported, and never meets the next run; otherwise `nobody`'s
/// number, unused.
///
/// Errors: no user could be claimed (exit 3).
fn submission_user() -> Result<(Option<limits::UidBlock>, u32), Error> {
    let users = if limits::running_as_root() {
        Some(
            limits::claim_uid_block()
                .map_err(|e| Error::grader("failed to claim a user for the submission", &e))?,
        )
    } else {
        None
    };
    let uid = users.as_ref().map_or(limits::NOBODY, |b| b.base);
    if users.is_some() {
        broadside::target::process::kill_user(uid);
    }
    Ok((users, uid))
}

/// Writes `view` (the report as its audience sees it) in `format` to `out`, or to standard
/// output; the Gradescope and PrairieLearn formats hide from `report` what `hidden` says.
/// Written to a file, one line on standard error counts the scenarios as students see them.
///
/// Errors: the report cannot be written (exit 3).
fn write_report(
    report: &Report,
    view: &Report,
    format: Format,
    out: Option<&Utf8Path>,
    hidden: report::HiddenResults,
) -> Result<(), Error> {
    let text = match (format, out) {
        (Format::Json, _) => report::to_json(view),
        (Format::Gradescope, _) => report::to_gradescope(report, hidden),
        (Format::Prairielearn, _) => report::to_prairielearn(report, hidden),
        (Format::Junit, _) => report::to_junit(view),
        (Format::Text, Some(_)) => report::to_text(view, false),
        (Format::Text, None) => report::to_text(view, color_for(std::io::stdout().is_terminal())),
    };
    match out {
        Some(path) => {
            // `/autograder/results` or `/grade/results` need not exist yet.
            if let Some(dir) = path.parent().filter(|d| !d.as_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| {
                    Error::Grader(format!(
                        "failed to create the folder {dir} for the report: {e}"
                    ))
                })?;
            }
            broadside::grade::write_atomic(path, &text)
                .map_err(|e| Error::Grader(format!("failed to write the report: {e}")))?;
            // One line for whoever watches the run (a Gradescope or PrairieLearn job log),
            // counted as students may see them.
            let s = report::for_students(report, hidden).summary;
            let _ = writeln!(
                anstream::stderr(),
                "{} scenarios listed: {} passed, {} failed, {} errors; score {}/{}; report in {path}",
                s.scenarios,
                s.passed,
                s.failed,
                s.errors,
                s.score,
                s.max_score
            );
        }
        None => write!(anstream::stdout(), "{text}")?,
    }
    Ok(())
}

/// `run`'s live view on standard error while scenarios play, so a submission that hangs is
/// seen hanging and a long suite shows its results as they come: on a terminal only (a job
/// log or a test gets the report alone), the scenario under way by its title (a hidden one
/// as "a hidden scenario") and, above it, each visible scenario's report line the moment it
/// finishes. Cleared at the end, when the whole report follows (it leads with the causes
/// found across every scenario, so it cannot be written before the last one).
pub(crate) struct RunProgress {
    bar: Option<indicatif::ProgressBar>,
    color: bool,
}

impl RunProgress {
    fn new(total: usize, color: bool) -> RunProgress {
        if !std::io::stderr().is_terminal() || total < 2 {
            return RunProgress { bar: None, color };
        }
        let bar = indicatif::ProgressBar::new(total as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{pos}/{len} {wide_msg}") {
            bar.set_style(style);
        }
        RunProgress {
            bar: Some(bar),
            color,
        }
    }
}

impl broadside::play::Reporter for RunProgress {
    fn scenario_started(&mut self, scenario: &broadside::scenario::Scenario) {
        if let Some(bar) = &self.bar {
            bar.set_message(if visible(scenario) {
                format!("playing: {}", scenario.title)
            } else {
                "playing: a hidden scenario".to_string()
            });
        }
    }

    fn scenario_finished(
        &mut self,
        scenario: &broadside::scenario::Scenario,
        result: &broadside::report::ScenarioResult,
    ) {
        if let Some(bar) = &self.bar {
            if let Some(line) = live_line(scenario, result, self.color) {
                bar.println(line);
            }
            bar.inc(1);
        }
    }

    fn run_finished(
        &mut self,
        _: &[broadside::report::ScenarioResult],
        _: &[broadside::target::Fault],
    ) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

fn visible(scenario: &broadside::scenario::Scenario) -> bool {
    scenario.visibility == broadside::scenario::Visibility::Visible
}

/// The line printed live when `scenario` finishes: its report line, for a visible scenario
/// only (a hidden or after-due-date one is never named or scored while the run goes on).
fn live_line(
    scenario: &broadside::scenario::Scenario,
    result: &broadside::report::ScenarioResult,
    color: bool,
) -> Option<String> {
    visible(scenario).then(|| report::scenario_line(result, color))
}

#[cfg(test)]
mod tests {
    use super::live_line;
    use broadside::scenario::Visibility;

    #[test]
    fn only_a_visible_scenario_is_printed_live() {
        let specs = broadside::spec::SpecSet::builtin();
        let (loaded, _) = broadside::load::load_suites(&["tests/fixtures/suite".into()], &specs);
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        let results =
            broadside::play::run_all(&loaded.scenarios, &mut broadside::target::Reference::new());
        let mut kinds = std::collections::BTreeSet::new();
        for (s, r) in loaded.scenarios.iter().zip(&results) {
            let line = live_line(s, r, false);
            assert_eq!(
                line.is_some(),
                s.visibility == Visibility::Visible,
                "{}",
                s.title
            );
            if let Some(line) = line {
                assert!(line.contains(&s.title), "{line}");
            }
            kinds.insert(format!("{:?}", s.visibility));
        }
        assert!(
            kinds.len() >= 2,
            "the suite has visible and other scenarios: {kinds:?}"
        );
    }
}
