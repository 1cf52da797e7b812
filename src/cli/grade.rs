//! `broadside grade` and `broadside merge`: the command-line edge of [`broadside::grade`]
//! (flags, Ctrl-C, the progress bar, the summary files).

use super::limits::LimitArgs;
use super::{joined, plural};
use crate::{Error, exit};
use broadside::grade::{
    ClassSummary, GradeError, Graded, Plan, Progress, Shard, Submission, Written, discover,
    read_graded, write_atomic,
};
use broadside::load;
use camino::{Utf8Path, Utf8PathBuf};
use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The flags of `broadside grade`.
#[derive(clap::Args)]
pub struct GradeArgs {
    /// A folder of scenarios, with an optional suite.toml; may repeat (e.g. published and
    /// hidden).
    #[arg(long = "suite", required = true)]
    suites: Vec<Utf8PathBuf>,
    /// The class: every sub-folder is one submission, named by the folder.
    #[arg(long)]
    submissions: Utf8PathBuf,
    /// Where the reports and the summary go (created if missing).
    #[arg(long)]
    out: Utf8PathBuf,
    /// How to run a submission: a target with `{}` where the submission's folder goes, e.g.
    /// `python:{}` or `exec:./{}/game` [default: `python:{}`, `haskell:{}` or `java:{}` by
    /// the assignment's language].
    #[arg(long)]
    target: Option<String>,
    /// Submissions graded at once, 1 to 256 [default: the number of cores].
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    jobs: Option<u16>,
    /// Files written per submission (report.json is always written).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "json,gradescope,junit,text"
    )]
    formats: Vec<Written>,
    /// Skip submissions whose report.json is already in --out for the same scenarios.
    #[arg(long)]
    resume: bool,
    /// Delete the report folders in --out of submissions that are not in the class (left
    /// by an earlier run); without it such folders stop the run, so no summary sits beside
    /// reports it does not count.
    #[arg(long)]
    clean: bool,
    /// Grade only the K-th of N deterministic parts of the class (`broadside merge` joins
    /// them); `auto` (or `auto/N`) reads K, and N where it is set, from the job engine: a
    /// Kubernetes indexed Job, a Slurm array, GitLab, CircleCI or Buildkite parallel jobs.
    #[arg(long)]
    shard: Option<Shard>,
    /// Extra spec files that scenarios may name; may repeat.
    #[arg(long = "spec")]
    specs: Vec<Utf8PathBuf>,
    /// Seconds the submissions being graded get to finish after a Ctrl-C (or SIGTERM) before
    /// they are stopped and left not graded.
    #[arg(long, default_value_t = 10.0, value_parser = grace_secs)]
    stop_grace: f64,
    /// Also fill each submission's marking sheet (`marking.json`, `marking.txt`, columns in
    /// summary.csv): the handout's whole marking scheme (the one beside a --spec file, in
    /// `marking/<assignment>.toml` there, else the bundled one), behaviour marked, the marker's
    /// criteria left blank beside the figures measured for them (the student's own tests
    /// against correct and buggy implementations, a linter, compiler warnings, required
    /// files and comments, the commit history).
    #[arg(long)]
    marking: bool,
    /// Staff only: write each dialogue's whole conversation (every line sent and printed,
    /// under a marker of its move) to a file of its own in this folder,
    /// `SUBMISSION--SCENARIO.txt`, at most 1 MiB each; never into the reports in --out. A
    /// submission skipped by --resume is not played and writes none.
    #[arg(long, value_name = "DIR")]
    transcript: Option<Utf8PathBuf>,
    #[command(flatten)]
    limits: LimitArgs,
}

/// The marking scheme of the suites' one assignment (`--marking`): the one beside the
/// `--spec` file whose spec is in use (the last given of that id; in
/// `marking/<assignment>.toml` in its folder), else the bundled one, with a warning when a
/// spec of the course's own has none beside it.
///
/// Errors: the scenarios span several assignments, the assignment has no scheme, or the one
/// beside its spec is broken.
fn marking_scheme(
    scenarios: &[broadside::scenario::Scenario],
    specs: &broadside::spec::SpecSet,
) -> Result<broadside::marking::Scheme, Error> {
    let ids: std::collections::BTreeSet<&str> =
        scenarios.iter().map(|s| s.assignment.as_str()).collect();
    let [id] = ids.iter().copied().collect::<Vec<_>>()[..] else {
        return Err(Error::Input(format!(
            "--marking needs suites of one assignment; these hold {}",
            ids.iter().copied().collect::<Vec<_>>().join(", ")
        )));
    };
    let own = specs.file(id);
    if let Some(spec) = own
        && let Some(scheme) = broadside::marking::scheme::beside(spec, id)
            .map_err(|e| Error::Input(format!("--marking: {e}")))?
    {
        return Ok(scheme);
    }
    let looked = own.map(|spec| broadside::marking::scheme::beside_paths(spec, id).0);
    match (broadside::marking::bundled(id), looked) {
        (Some(scheme), Some(path)) => {
            let _ = writeln!(
                anstream::stderr(),
                "warning: --marking: no {path} beside the spec of {id}: its bundled marking scheme is used"
            );
            Ok(scheme)
        }
        (Some(scheme), None) => Ok(scheme),
        (None, Some(path)) => Err(Error::Input(format!(
            "--marking: no marking scheme for {id}: none at {path}, beside its spec, and none bundled"
        ))),
        (None, None) => Err(Error::Input(format!(
            "--marking: no marking scheme for {id}: specs/marking/ has the bundled ones, and a spec given with --spec may have one beside it, in marking/{id}.toml"
        ))),
    }
}

/// `--stop-grace`: 0 to 3600 seconds.
// A string error: a clap value parser's, shown by clap as the flag's error.
fn grace_secs(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=3600.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "`{s}` is not a grace; expected seconds from 0 to 3600"
        )),
    }
}

/// `broadside grade`.
pub fn grade(args: GradeArgs) -> Result<u8, Error> {
    let (specs, loaded, suites) = load_suites_checked(&args.suites, &args.specs)?;
    super::warn_readable_hidden(&loaded.scenarios);
    if loaded.scenarios.is_empty() {
        return Err(Error::Input(format!(
            "no scenarios found under {}",
            joined(&args.suites)
        )));
    }
    let (template, template_spec) = template_of(&args, &loaded.scenarios, &specs)?;
    // The links to folders whose names are not UTF-8 (made as the class is discovered) go
    // when grading ends, however it ends.
    let _aliases = scopeguard(broadside::grade::drop_aliases);
    let submissions = class_to_grade(&args)?;
    let users = broadside::target::limits::claim_uid_block()
        .map_err(|e| Error::grader("failed to claim users for the job slots", &e))?;
    let limits = limits_for(&args, &suites, &template_spec)?;
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    let stop = install_ctrl_c(
        std::time::Duration::from_secs_f64(args.stop_grace),
        users.base,
        jobs,
    );
    let scheme = if args.marking {
        Some(marking_for(&loaded.scenarios, &specs, &limits, users.base)?)
    } else {
        None
    };
    let plan = Plan {
        marking: scheme.as_ref(),
        scenarios: &loaded.scenarios,
        submissions,
        out: args.out.clone(),
        formats: args.formats.clone(),
        hidden: suites.hidden_results(),
        jobs,
        resume: args.resume,
        stop,
        slot_users: Some(users.base),
        settings: settings(&template, &limits, &suites, scheme.as_ref(), &args.specs),
    };
    let transcripts = args
        .transcript
        .as_deref()
        .map(super::transcript_sink)
        .transpose()?;
    let targets = Targets {
        template: &template,
        command: template_spec.is_command(),
        limits: &limits,
        base: users.base,
        transcripts: transcripts.as_ref(),
    };
    let make = |sub: &Submission, slot: usize| targets.make(sub, slot);
    let progress = Reporter::new(plan.submissions.len());
    let start = std::time::Instant::now();
    let results = broadside::grade::grade(&plan, &make, &progress);
    progress.done();
    warn_strays(&args.submissions);
    let Tally {
        graded,
        resumed,
        not_started,
        write_errors,
        not_graded,
    } = Tally::of(results, &plan.submissions);
    if let Some(sink) = &transcripts {
        super::warn_transcripts(sink);
    }
    let summary = ClassSummary::build(
        suites.title(),
        args.shard.map(|s| s.to_string()),
        &graded,
        not_graded,
    )?;
    let html = args.formats.contains(&Written::Html);
    write_summary(&args.out, &summary, html.then_some(graded.as_slice()))?;
    say_graded(
        &args.out,
        &summary,
        &graded,
        &plan,
        &Said {
            start,
            resumed,
            not_started,
            html,
        },
    );
    Ok(if not_started > 0 || write_errors > 0 {
        exit::FAILED
    } else {
        exit::PASSED
    })
}

/// `--target`'s template (or the assignment's default), and the target kind it names.
///
/// Errors: no template for the suites' assignment, or one that does not parse (exit 2).
fn template_of(
    args: &GradeArgs,
    scenarios: &[broadside::scenario::Scenario],
    specs: &broadside::spec::SpecSet,
) -> Result<(String, broadside::target::TargetSpec), Error> {
    let template = template_or_default(args.target.as_deref(), scenarios, specs)?;
    let spec = template
        .parse()
        .map_err(|e: String| Error::Input(format!("--target: {e}")))?;
    Ok((template, spec))
}

/// The children's limits: `--limits` over the suites', with the suites' Python packages
/// for a Python target.
///
/// Errors: a package cannot be installed (broadside's failure: nothing is graded).
fn limits_for(
    args: &GradeArgs,
    suites: &broadside::suite::Suites,
    target: &broadside::target::TargetSpec,
) -> Result<broadside::target::limits::Limits, Error> {
    let mut limits = args.limits.limits(&suites.limits());
    super::limits::provide_python_packages(
        suites,
        matches!(target, broadside::target::TargetSpec::Python(_)),
        &mut limits,
    )?;
    Ok(limits)
}

/// What else the reports depend on (target, limits, what students may see, marking), so
/// `--resume` regrades when it changes.
fn settings(
    template: &str,
    limits: &broadside::target::limits::Limits,
    suites: &broadside::suite::Suites,
    marking: Option<&broadside::marking::Scheme>,
    specs: &[Utf8PathBuf],
) -> String {
    let mut out = format!(
        "target {template}; limits {limits:?}; hidden results {:?}",
        suites.hidden_results(),
    );
    if let Some(scheme) = marking {
        out.push_str("; marking");
        // Only a scheme of the course's own: a bundled one is the binary's, and the
        // reports of a run without --spec keep the digest they had.
        if !specs.is_empty() {
            out.push_str(&format!(" {}", scheme.source));
        }
    }
    // The course's own specs, as written: one edited since regrades.
    for spec in specs {
        let text = std::fs::read_to_string(spec).unwrap_or_default();
        out.push_str(&format!("; spec {spec} {text}"));
    }
    out
}

/// Names the loose files of the class folder on standard error, never skipped in silence.
/// They stay out of the summary's `not_graded`, which lists submissions to finish with
/// `--resume` (and must be empty for `merge`).
fn warn_strays(class: &Utf8Path) {
    for f in broadside::grade::strays(class) {
        let _ = writeln!(
            anstream::stderr(),
            "warning: {} in {} is a file, not a submission folder: not graded",
            printable(&f),
            class
        );
    }
}

/// The marking scheme of the suites' assignment, its student-tests figure given the suites'
/// Python packages, once the tools it needs are checked.
///
/// Errors: no scheme for the assignment (exit 2), or a tool it needs missing (exit 3).
fn marking_for(
    scenarios: &[broadside::scenario::Scenario],
    specs: &broadside::spec::SpecSet,
    limits: &broadside::target::limits::Limits,
    base: u32,
) -> Result<broadside::marking::Scheme, Error> {
    let mut scheme = marking_scheme(scenarios, specs)?;
    if let Some(tests) = scheme.tests.as_mut() {
        tests.python_packages = limits.python_packages.clone();
    }
    broadside::marking::check_tools(&scheme, base).map_err(|e| Error::Grader(e.0))?;
    Ok(scheme)
}

/// How `grade` makes each submission's target: `--target`'s template with the folder in
/// place of `{}`, run as the job slot's user.
struct Targets<'a> {
    template: &'a str,
    /// A `cmd:` or `exec:` template, which goes through `sh -c`.
    command: bool,
    limits: &'a broadside::target::limits::Limits,
    /// The first job slot's user.
    base: u32,
    transcripts: Option<&'a broadside::dialogue::transcript::TranscriptSink>,
}

impl Targets<'_> {
    /// The target of `sub` in job slot `slot`. Errors: the target could not be made; the
    /// submission is then not graded (listed with why, retried by `--resume`).
    fn make(
        &self,
        sub: &Submission,
        slot: usize,
    ) -> Result<Box<dyn broadside::target::Target>, GradeError> {
        // Through `sh -c`, the folder is quoted as one word.
        let path = if self.command {
            shlex::try_quote(sub.path.as_str())
                .map(|q| q.into_owned())
                .unwrap_or_else(|_| sub.path.to_string())
        } else {
            sub.path.to_string()
        };
        let spec = self.template.replace("{}", &path);
        let uid = self.base + u32::try_from(slot).unwrap_or(0);
        let spec: broadside::target::TargetSpec = spec.parse().map_err(GradeError::NotGraded)?;
        let mut target = broadside::target::from_spec(&spec, self.limits.clone(), uid)
            .map_err(|e| GradeError::NotGraded(e.to_string()))?;
        if let Some(sink) = self.transcripts {
            target.keep_transcripts(&sink.for_submission(&sub.id));
        }
        Ok(target)
    }
}

/// The submissions `grade` grades (its shard of the class), once the class folder and
/// `--out` are checked and `--out` is made.
///
/// Errors: no submissions, one named as a file of the class summary, stale reports in
/// `--out` (without `--clean`), `--out` a file (exit 2); `--out` cannot be made (exit 3).
fn class_to_grade(args: &GradeArgs) -> Result<Vec<Submission>, Error> {
    check_out_folder(&args.out, &args.submissions, &args.suites)?;
    let mut submissions = discover(&args.submissions)?;
    if let Some(s) = submissions
        .iter()
        .find(|s| ["summary.json", "summary.csv", CLASS_REPORT].contains(&s.id.as_str()))
    {
        return Err(Error::Input(format!(
            "a submission folder is named `{}`, which the class summary needs in --out; rename it",
            s.id
        )));
    }
    let class_size = submissions.len();
    stale_reports(&args.out, &submissions, args.clean)?;
    if let Some(shard) = args.shard {
        submissions = shard.select(submissions);
    }
    if class_size == 0 {
        return Err(Error::Input(format!(
            "no submissions in {}: expected one sub-folder per submission",
            args.submissions
        )));
    }
    if args.out.exists() && !args.out.is_dir() {
        return Err(Error::Input(format!(
            "--out {} is a file; expected a folder for the reports",
            args.out
        )));
    }
    std::fs::create_dir_all(&args.out).map_err(|e| {
        Error::Grader(format!(
            "failed to create the output folder {}: {e}",
            args.out
        ))
    })?;
    Ok(submissions)
}

/// How the class's grading went, submission by submission.
#[derive(Default)]
struct Tally {
    graded: Vec<(String, broadside::report::Report)>,
    /// Reports kept from an earlier run (`--resume`).
    resumed: usize,
    /// Submissions an interrupt left unstarted.
    not_started: usize,
    /// Reports that could not be written.
    write_errors: usize,
    /// Every submission without a report: to finish with `--resume`.
    not_graded: Vec<String>,
}

impl Tally {
    /// Tallies `results` (one per submission, in order); a report that could not be
    /// written is said on standard error.
    fn of(
        results: Vec<Option<Result<Graded, broadside::grade::GradeError>>>,
        submissions: &[Submission],
    ) -> Tally {
        let mut t = Tally::default();
        for (r, sub) in results.into_iter().zip(submissions) {
            if !matches!(r, Some(Ok(_))) {
                t.not_graded.push(sub.id.clone());
            }
            match r {
                Some(Ok(Graded {
                    id,
                    report,
                    resumed: again,
                })) => {
                    t.resumed += usize::from(again);
                    t.graded.push((id, report));
                }
                Some(Err(e)) => {
                    t.write_errors += 1;
                    let _ = writeln!(anstream::stderr(), "error: {e}");
                }
                None => t.not_started += 1,
            }
        }
        t
    }
}

/// What [`say_graded`] says besides the summary.
struct Said {
    start: std::time::Instant,
    resumed: usize,
    not_started: usize,
    html: bool,
}

/// The run's last lines on standard error: how many were graded and how fast, where the
/// summary is, the hardest scenarios, and how to finish an interrupted run.
fn say_graded(
    out: &Utf8Path,
    summary: &ClassSummary,
    graded: &[(String, broadside::report::Report)],
    plan: &Plan,
    said: &Said,
) {
    let mut err = anstream::stderr();
    let _ = writeln!(
        err,
        "graded {} of {} in {:.1} s ({} resumed); summary in {}",
        graded.len(),
        plural(plan.submissions.len(), "submission", "submissions"),
        said.start.elapsed().as_secs_f64(),
        said.resumed,
        out.join("summary.csv")
    );
    if said.html {
        let _ = writeln!(err, "  class report: {}", out.join(CLASS_REPORT));
    }
    for s in summary
        .scenarios
        .iter()
        .take(3)
        .filter(|s| s.failure_rate > 0.0)
    {
        let _ = writeln!(
            err,
            "  hardest: {} ({:.0}% of the class did not pass)",
            s.id,
            s.failure_rate * 100.0
        );
    }
    if said.not_started > 0 {
        let _ = writeln!(
            err,
            "interrupted: {} not graded; run again with --resume to finish",
            said.not_started
        );
    }
}

/// The folders in `out` that hold a `report.json` but are no submission of the class (a
/// student who left, a folder renamed since the last run): deleted with `--clean`, otherwise
/// an error naming them. Other files in `out` are never touched.
fn stale_reports(out: &Utf8Path, class: &[Submission], clean: bool) -> Result<(), Error> {
    let Ok(entries) = out.read_dir_utf8() else {
        return Ok(()); // not there yet (or not a folder: refused just after)
    };
    let ids: std::collections::HashSet<&str> = class.iter().map(|s| s.id.as_str()).collect();
    let mut stale: Vec<Utf8PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().join("report.json").is_file() && !ids.contains(e.file_name()))
        .map(|e| e.path().to_owned())
        .collect();
    stale.sort();
    if stale.is_empty() {
        return Ok(());
    }
    // An earlier version wrote folders named with control characters: never printed raw.
    let names: Vec<String> = stale
        .iter()
        .filter_map(|p| p.file_name())
        .map(printable)
        .collect();
    if !clean {
        let shown = names.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
        let more = names.len().saturating_sub(5);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        return Err(Error::Input(format!(
            "--out {out} holds the reports of {} that are not in the class ({shown}{more}), left by an earlier run; pass --clean to delete them, or write to another --out",
            plural(names.len(), "submission", "submissions")
        )));
    }
    for dir in &stale {
        std::fs::remove_dir_all(dir)
            .map_err(|e| Error::input(format_args!("failed to delete {dir}"), &e))?;
    }
    eprintln!(
        "deleted the reports of {} not in the class: {}",
        plural(names.len(), "submission", "submissions"),
        names.join(", ")
    );
    Ok(())
}

/// Refuses an `--out` folder inside the submissions (it would be graded as a student, and
/// staff reports copied into the next student's jail) or inside a suite.
fn check_out_folder(
    out: &Utf8Path,
    submissions: &Utf8Path,
    suites: &[Utf8PathBuf],
) -> Result<(), Error> {
    // `out` may not exist yet: compare what exists of it.
    let absolute = |p: &Utf8Path| -> Option<std::path::PathBuf> {
        let p = p.as_std_path();
        let mut existing = p;
        let mut rest = Vec::new();
        while !existing.exists() {
            rest.push(existing.file_name()?.to_owned());
            existing = existing
                .parent()
                .filter(|x| !x.as_os_str().is_empty())
                .unwrap_or(std::path::Path::new("."));
        }
        let mut base = std::fs::canonicalize(existing).ok()?;
        for part in rest.iter().rev() {
            base.push(part);
        }
        Some(base)
    };
    let Some(out_abs) = absolute(out) else {
        return Ok(());
    };
    let inside = |dir: &Utf8Path| absolute(dir).is_some_and(|d| out_abs.starts_with(&d));
    if inside(submissions) {
        return Err(Error::Input(format!(
            "--out {out} is inside the submissions folder {submissions}: it would be graded as a submission; write the reports elsewhere"
        )));
    }
    if let Some(suite) = suites.iter().find(|s| s.is_dir() && inside(s)) {
        return Err(Error::Input(format!(
            "--out {out} is inside the suite {suite}; write the reports elsewhere"
        )));
    }
    Ok(())
}

/// `python:{}`, `haskell:{}` or `java:{}` when every scenario is for an assignment students
/// write in that language.
/// The specs (`specs` files beside the bundled ones) and the scenarios and settings of
/// `suites`.
///
/// Errors: [`Error::Diagnostics`] of every spec, scenario or suite file that does not load.
pub fn load_suites_checked(
    suites: &[Utf8PathBuf],
    specs: &[Utf8PathBuf],
) -> Result<
    (
        broadside::spec::SpecSet,
        load::Loaded,
        broadside::suite::Suites,
    ),
    Error,
> {
    let specs = super::specs_or_diagnostics(specs)?;
    let (loaded, suites) = load::load_suites(suites, &specs);
    if !loaded.errors.is_empty() {
        return Err(Error::Diagnostics(loaded.errors));
    }
    Ok((specs, loaded, suites))
}

/// `--target` as given, or the default for the scenarios' language; refused without the
/// `{}` where a submission's folder goes.
pub fn template_or_default(
    target: Option<&str>,
    scenarios: &[broadside::scenario::Scenario],
    specs: &broadside::spec::SpecSet,
) -> Result<String, Error> {
    let template = match target {
        Some(t) => t.to_string(),
        None => default_template(scenarios, specs)?,
    };
    if !template.contains("{}") {
        return Err(Error::Input(format!(
            "--target `{template}` has no `{{}}` where the submission's folder goes; expected e.g. `python:{{}}`"
        )));
    }
    bundled_driver_grades(&template, target.is_none(), scenarios)?;
    Ok(template)
}

/// broadside's own drivers (`python:`, `haskell:`) grade the bundled assignments alone; an
/// assignment a course brings with `--spec` is graded through the course's own driver
/// (`cmd:`, docs/adding-an-assignment.md). Refused before anything runs, so a class is not
/// failed in full for a target that cannot grade it (a grader's mistake, never a zero).
///
/// Errors: the template names a bundled driver and a scenario is of an assignment not bundled.
fn bundled_driver_grades(
    template: &str,
    default: bool,
    scenarios: &[broadside::scenario::Scenario],
) -> Result<(), Error> {
    let Some(kind) = ["python", "haskell"]
        .into_iter()
        .find(|k| template.starts_with(&format!("{k}:")))
    else {
        return Ok(());
    };
    let bundled = broadside::spec::SpecSet::builtin();
    let foreign: std::collections::BTreeSet<&str> = scenarios
        .iter()
        .map(|s| s.assignment.as_str())
        .filter(|id| bundled.get(id).is_none())
        .collect();
    if foreign.is_empty() {
        return Ok(());
    }
    Err(Error::Input(format!(
        "--target `{template}`{}: broadside's {kind} driver grades the bundled assignments, not {}; name the course's own driver, e.g. --target 'cmd:python3 driver.py {{}}' (docs/adding-an-assignment.md)",
        if default {
            " (the default for the spec's language)"
        } else {
            ""
        },
        foreign.into_iter().collect::<Vec<_>>().join(", ")
    )))
}

fn default_template(
    scenarios: &[broadside::scenario::Scenario],
    specs: &broadside::spec::SpecSet,
) -> Result<String, Error> {
    let languages: std::collections::BTreeSet<&str> = scenarios
        .iter()
        .filter_map(|s| specs.get(&s.assignment).map(|spec| spec.language.name()))
        .collect();
    match languages.into_iter().collect::<Vec<_>>().as_slice() {
        ["python"] => Ok("python:{}".to_string()),
        ["haskell"] => Ok("haskell:{}".to_string()),
        ["java"] => Ok("java:{}".to_string()),
        other => Err(Error::Input(format!(
            "say how to run a submission with --target (e.g. `exec:./{{}}/game` or `native:{{}}`, with `{{}}` for its folder): broadside picks Python, Haskell and Java by itself, and these scenarios are for {}",
            other.join(", ")
        ))),
    }
}

/// Ctrl-C (or SIGTERM, as a cancelled CI job sends): the first lets no new submission start
/// and gives those being graded `grace` to finish; when it runs out, or at a second Ctrl-C,
/// the rest are stopped (their children killed, by mark and by the slots' users
/// `base..base+jobs` when running as root) and left not graded, and the summary of what was
/// graded is written all the same. A third Ctrl-C quits at once.
fn install_ctrl_c(grace: std::time::Duration, base: u32, jobs: usize) -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    static PRESSED: AtomicUsize = AtomicUsize::new(0);
    let abort = move || {
        if broadside::play::ABORT.swap(true, Ordering::SeqCst) {
            return;
        }
        // Kill for a while: a grading thread may be starting a child as the first go lands.
        std::thread::spawn(move || {
            for _ in 0..20 {
                broadside::target::process::kill_every_marked();
                if broadside::target::limits::running_as_root() {
                    for slot in 0..jobs {
                        let uid = base + u32::try_from(slot).unwrap_or(0);
                        broadside::target::process::kill_user(uid);
                    }
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        });
    };
    let _ = ctrlc::set_handler(move || match PRESSED.fetch_add(1, Ordering::SeqCst) {
        0 => {
            STOP.store(true, Ordering::SeqCst);
            let _ = writeln!(
                std::io::stderr(),
                "\nstopping: no new submission starts; those being graded get {:.0} s to finish, then are stopped and left not graded (Ctrl-C again to stop them now)",
                grace.as_secs_f64()
            );
            std::thread::spawn(move || {
                std::thread::sleep(grace);
                abort();
            });
        }
        1 => {
            let _ = writeln!(
                std::io::stderr(),
                "\nstopping the submissions being graded now; the summary of those graded is still written (Ctrl-C again to quit at once)"
            );
            abort();
        }
        _ => std::process::exit(130),
    });
    &STOP
}

/// `summary.json` and `summary.csv` in `out`, and with `graded` the class report
/// (`class-report.html`) of those reports; without, an earlier run's class report goes.
fn write_summary(
    out: &Utf8Path,
    summary: &ClassSummary,
    graded: Option<&[(String, broadside::report::Report)]>,
) -> Result<(), Error> {
    // A summary that cannot be written is broadside's side (exit 3).
    let own = |e: GradeError| Error::Grader(format!("failed to write the summary: {e}"));
    write_atomic(&out.join("summary.json"), &summary.to_json()).map_err(own)?;
    write_atomic(&out.join("summary.csv"), &summary.to_csv()).map_err(own)?;
    let file = out.join(CLASS_REPORT);
    match graded {
        Some(graded) => {
            let html = broadside::grade::class_report(summary, graded);
            write_atomic(&file, &html).map_err(own)?;
        }
        // An earlier run's class report would not match this summary.
        None => match std::fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::Input(format!(
                    "cannot remove the earlier run's {file}: {e}"
                )));
            }
            _ => {}
        },
    }
    Ok(())
}

/// The class report's file name in `--out` (`--formats html`).
const CLASS_REPORT: &str = "class-report.html";

/// `s` with its control characters escaped (`\u{1b}`), so a folder name cannot drive the
/// terminal.
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() && c != '\n' {
                c.escape_default().collect()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Progress on standard error: an indicatif bar on a terminal, a plain line per submission
/// otherwise (CI logs).
struct Reporter {
    bar: Option<indicatif::ProgressBar>,
    total: usize,
    done: AtomicUsize,
    failing: AtomicUsize,
    lines: Mutex<()>,
}

impl Reporter {
    fn new(total: usize) -> Reporter {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} submissions  {msg}  ETA {eta}",
                )
                .expect("a valid progress template"),
            );
            bar.enable_steady_tick(std::time::Duration::from_millis(200));
            bar
        });
        Reporter {
            bar,
            total,
            done: AtomicUsize::new(0),
            failing: AtomicUsize::new(0),
            lines: Mutex::new(()),
        }
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Progress for Reporter {
    fn finished(&self, graded: &Result<Graded, GradeError>) {
        let n = self.done.fetch_add(1, Ordering::SeqCst) + 1;
        let line = match graded {
            Ok(g) => {
                let s = &g.report.summary;
                if !g.report.all_passed() {
                    self.failing.fetch_add(1, Ordering::SeqCst);
                }
                let marking = g.report.marking.as_ref().map_or(String::new(), |m| {
                    let short: Vec<&str> = m
                        .figures
                        .iter()
                        .filter(|f| {
                            use broadside::marking::FigureState as S;
                            matches!(f.state, S::Short | S::Missing | S::NotMeasured)
                        })
                        .map(|f| f.id.as_str())
                        .collect();
                    format!(
                        "; marking {}/{} automatic, {} for the marker{}{}",
                        m.automatic,
                        m.out_of - m.for_the_marker,
                        m.for_the_marker,
                        m.capped_at
                            .map_or(String::new(), |c| format!(", capped at {c}")),
                        if short.is_empty() {
                            String::new()
                        } else {
                            format!(", short: {}", short.join(" "))
                        }
                    )
                });
                format!(
                    "{}: {}/{} points, {} failed, {} errors{marking}{}",
                    printable(&g.id),
                    s.score,
                    s.max_score,
                    s.failed,
                    s.errors,
                    if g.resumed { " (resumed)" } else { "" }
                )
            }
            Err(e) => {
                self.failing.fetch_add(1, Ordering::SeqCst);
                format!("error: {}", printable(&e.to_string()))
            }
        };
        match &self.bar {
            Some(bar) => {
                bar.set_message(format!(
                    "{} not full marks",
                    self.failing.load(Ordering::SeqCst)
                ));
                bar.inc(1);
            }
            None => {
                let _guard = self.lines.lock().unwrap_or_else(|p| p.into_inner());
                let _ = writeln!(std::io::stderr(), "[{n}/{}] {line}", self.total);
            }
        }
    }
}

/// `broadside merge`: one summary from the reports of every shard.
pub fn merge(shards: &[Utf8PathBuf], out: &Utf8Path) -> Result<u8, Error> {
    let mut all: Vec<(String, broadside::report::Report)> = Vec::new();
    let mut seen_shards: Vec<Shard> = Vec::new();
    let mut title = None;
    for dir in shards {
        let summary_file = dir.join("summary.json");
        let summary: ClassSummary = match std::fs::read_to_string(&summary_file) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                Error::input(
                    format_args!("{summary_file} is not a broadside class summary"),
                    &e,
                )
            })?,
            Err(e) => {
                return Err(Error::Input(format!(
                    "cannot read {summary_file}: {e}; expected the --out folder of a finished `broadside grade` run (a run killed before its summary is finished with `--resume`)"
                )));
            }
        };
        title = title.or(summary.title.clone());
        if let Some(s) = &summary.shard {
            seen_shards.push(s.parse()?);
        }
        if !summary.not_graded.is_empty() {
            return Err(Error::Input(format!(
                "{dir} is incomplete: {} not graded ({}); finish it with `broadside grade … --resume`",
                plural(summary.not_graded.len(), "submission", "submissions"),
                summary.not_graded.join(", ")
            )));
        }
        let ids: Vec<String> = summary.submissions.iter().map(|r| r.id.clone()).collect();
        let reports = read_graded(dir, &ids)?;
        for (id, report) in reports {
            if shards.iter().filter(|s| *s == dir).count() > 1 {
                return Err(Error::Input(format!("{dir} is given more than once")));
            }
            if all.iter().any(|(other, _)| *other == id) {
                return Err(Error::Input(format!(
                    "submission `{id}` is in more than one shard ({dir} and an earlier one)"
                )));
            }
            all.push((id, report));
        }
    }
    if let Some(missing) = missing_shards(&seen_shards) {
        return Err(Error::Input(missing));
    }
    if shards
        .iter()
        .any(|s| std::fs::canonicalize(s).ok() == std::fs::canonicalize(out).ok())
    {
        return Err(Error::Input(format!(
            "--out {out} is one of the shards; write the merged summary elsewhere"
        )));
    }
    let summary = ClassSummary::build(title, None, &all, Vec::new())?;
    std::fs::create_dir_all(out)
        .map_err(|e| Error::input(format_args!("failed to create {out}"), &e))?;
    // The merged folder has a class report when the shards were graded with one.
    let html = shards.iter().any(|s| s.join(CLASS_REPORT).is_file());
    write_summary(out, &summary, html.then_some(all.as_slice()))?;
    let _ = writeln!(
        anstream::stderr(),
        "merged {} from {}; summary in {}",
        plural(all.len(), "submission", "submissions"),
        plural(shards.len(), "folder", "folders"),
        out.join("summary.csv")
    );
    Ok(exit::PASSED)
}

/// What is wrong with a set of shards: counts that disagree, a shard twice, or one missing.
fn missing_shards(seen: &[Shard]) -> Option<String> {
    let first = seen.first()?;
    if let Some(other) = seen.iter().find(|s| s.count != first.count) {
        return Some(format!(
            "the shards were cut differently ({first} and {other}); merge the shards of one run"
        ));
    }
    let mut indexes: Vec<usize> = seen.iter().map(|s| s.index).collect();
    indexes.sort_unstable();
    if let Some(w) = indexes.windows(2).find(|w| w[0] == w[1]) {
        return Some(format!("shard {}/{} is given twice", w[0], first.count));
    }
    let missing: Vec<String> = (1..=first.count)
        .filter(|k| !indexes.contains(k))
        .map(|k| format!("{k}/{}", first.count))
        .collect();
    (!missing.is_empty()).then(|| format!("shard {} missing", missing.join(", ")))
}

/// Runs `f` when the value returned is dropped.
fn scopeguard(f: fn()) -> impl Drop {
    struct Guard(fn());
    impl Drop for Guard {
        fn drop(&mut self) {
            (self.0)()
        }
    }
    Guard(f)
}
