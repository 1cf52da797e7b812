//! The `broadside` command line: `run` scenarios against a target, `check` inputs.

use anyhow::Context;
use broadside::load;
use broadside::report::Audience;
use broadside::report::{self, Report};
use broadside::suite::{SuiteLimits, ranges};
use broadside::target::limits::{self, Limits};
use camino::Utf8PathBuf;
use clap::{Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

mod cli;

/// Exit codes, documented in `--help` and the README.
mod exit {
    /// Every scenario passed (or every input checked).
    pub const PASSED: u8 = 0;
    /// At least one scenario failed or errored.
    pub const FAILED: u8 = 1;
    /// The inputs themselves are wrong: bad TOML, an unknown spec, a missing file.
    pub const BAD_INPUT: u8 = 2;
    /// broadside could not do its own part: a tool it needs is missing or broken (the
    /// Python interpreter), or a report could not be written. Nothing was graded wrongly.
    pub const GRADER: u8 = 3;
}

/// An error on broadside's own side, not the inputs' ([`exit::GRADER`]).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct GraderSide(pub(crate) String);

/// The exit code for an error: [`exit::GRADER`] when broadside's own side failed, else
/// [`exit::BAD_INPUT`].
fn exit_code_of(e: &anyhow::Error) -> u8 {
    let own = e.chain().any(|c| {
        c.is::<GraderSide>()
            || matches!(
                c.downcast_ref::<broadside::target::TargetError>(),
                Some(broadside::target::TargetError::Grader(_))
            )
    });
    if own { exit::GRADER } else { exit::BAD_INPUT }
}

/// `broadside run`'s arguments.
#[derive(clap::Args)]
struct RunArgs {
    /// Scenario files or folders of them (searched for *.toml); none with --assignment.
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
    #[command(flatten)]
    limits: LimitArgs,
}

#[derive(Parser)]
#[command(
    name = "broadside",
    version,
    about = "Autograder and scenario test harness for Battleship assignments"
)]
#[command(
    after_help = "Examples:\n  broadside run --assignment solo-10x10 --target python:battleships.py   # a student's self-check\n  broadside run fixtures/scenarios                                        # the reference against every scenario\n  broadside grade --suite published --suite hidden --submissions class --out graded\n  broadside fuzz --assignment colab-6x6 --target python:battleship.py\n  broadside list                                                          # the assignments\n\nExit codes: 0 all passed, 1 some scenario failed, 2 the inputs are wrong, 3 broadside's own side failed (a missing Python, a report it could not write)."
)]
struct Cli {
    /// When to colour the output: `auto` colours a terminal unless NO_COLOR is set.
    #[arg(long, value_enum, global = true, default_value_t = ColorWhen::Auto)]
    color: ColorWhen,
    #[command(subcommand)]
    command: Command,
}

/// `--color`.
#[derive(Clone, Copy, ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Command {
    /// Play scenarios against a target and report.
    #[command(
        after_help = "Examples:\n  broadside run fixtures/scenarios\n  broadside run fixtures/scenarios/solo-10x10 --target python:fixtures/submissions/solo-10x10/correct\n  broadside run --assignment solo-10x10 --target python:battleships.py\n  broadside run fixtures/scenarios/colab-6x6 --format json --out report.json\n\nExit codes: 0 all passed, 1 some scenario failed, 2 the inputs are wrong, 3 broadside's own side failed (a missing Python, a report it could not write)."
    )]
    Run(RunArgs),
    /// Grade a class: every sub-folder of --submissions against the suites, in parallel.
    #[command(
        after_help = "Examples:\n  broadside grade --suite fixtures/scenarios/solo-10x10 --submissions fixtures/submissions/solo-10x10 --out graded\n  broadside grade --suite published --suite hidden --submissions class --out graded --jobs 4 --resume\n  broadside grade --suite s --submissions class --out graded-2 --shard 2/4   # then: broadside merge graded-* --out graded\n\nWrites OUT/<submission>/report.json (staff), results.json (Gradescope), junit.xml and report.txt (student view), then OUT/summary.csv and OUT/summary.json.\n\nExit codes: 0 every submission graded, 1 the run was interrupted or a submission could not be set up or its report written (left not graded), 2 the inputs are wrong, 3 the output folder or the summary could not be written."
    )]
    Grade(cli::grade::GradeArgs),
    /// Build a Gradescope autograder zip: this binary, the suites, setup.sh and
    /// run_autograder.
    #[command(
        after_help = "Example:\n  broadside autograder --suite published --suite hidden --out autograder.zip\n\nThe zip holds broadside, setup.sh (installs python3, ghc or a JDK as the assignment needs), run_autograder (writes /autograder/results/results.json) and the suites.\nExit codes: 0 written, 2 the inputs are wrong."
    )]
    Autograder(cli::autograder::AutograderArgs),
    /// Combine the reports of `grade --shard` runs into one class summary.
    #[command(
        after_help = "Example:\n  broadside merge shard-1 shard-2 shard-3 --out graded\n\nExit codes: 0 merged, 2 the shards are incomplete or inconsistent."
    )]
    Merge {
        /// The --out folders of the shards' `grade` runs.
        #[arg(required = true)]
        shards: Vec<Utf8PathBuf>,
        /// Where summary.csv and summary.json go.
        #[arg(long)]
        out: Utf8PathBuf,
    },
    /// Differential testing: random cases against the reference, the first divergence
    /// shrunk to a short scenario file that `run` replays.
    #[command(
        after_help = "Examples:\n  broadside fuzz --assignment colab-6x6 --target python:battleship.py\n  broadside fuzz --assignment solo-10x10 --target python:fixtures/submissions/solo-10x10/hits-kept-as-count --seed 7 --out found.toml\n  broadside fuzz --assignment battleboats --mode expert --time 30\n\nThe counterexample is printed and written to --out (default fuzz-ASSIGNMENT-SEED.toml).\nExit codes: 0 no divergence, 1 a divergence was found, 2 the inputs are wrong."
    )]
    Fuzz(FuzzArgs),
    /// List the bundled assignments and their published scenarios.
    #[command(after_help = "Example:\n  broadside list")]
    List,
    /// Print a published scenario, as reports name it (`ASSIGNMENT/NAME`), its lines
    /// numbered as reports cite them.
    #[command(
        after_help = "Examples:\n  broadside show colab-6x6/01-handout-example\n  broadside show solo-10x10/04-played-game --raw > my-copy.toml\n\nExit codes: 0 shown, 2 no such scenario."
    )]
    Show {
        /// `ASSIGNMENT/NAME`, e.g. `colab-6x6/01-handout-example`.
        name: String,
        /// The file as it is, without line numbers (to save and edit).
        #[arg(long)]
        raw: bool,
    },
    /// Validate specs and scenarios without running a target.
    #[command(
        after_help = "Examples:\n  broadside check specs fixtures/scenarios\n  broadside check my-scenario.toml --spec my-7x7.toml\n\nExit codes: 0 all valid, 2 some input is wrong."
    )]
    Check {
        /// Spec or scenario files, or folders of them.
        #[arg(required = true)]
        paths: Vec<Utf8PathBuf>,
        /// Extra spec files that scenarios may name; may repeat.
        #[arg(long = "spec")]
        specs: Vec<Utf8PathBuf>,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) for broadside.
    #[command(
        after_help = "Examples:\n  broadside completions bash > ~/.local/share/bash-completion/completions/broadside\n  broadside completions zsh > ~/.zfunc/_broadside"
    )]
    Completions {
        /// The shell to complete in.
        shell: clap_complete::Shell,
    },
    /// Print broadside's man page (roff), or a command's (`broadside-run(1)`), made from the
    /// same definitions as `--help`.
    #[command(
        after_help = "Examples:\n  broadside man > broadside.1 && man ./broadside.1\n  for c in run grade merge fuzz list show check completions; do broadside man $c > broadside-$c.1; done"
    )]
    Man {
        /// A command, e.g. `run`; none for the page of broadside itself.
        command: Option<String>,
    },
    /// Internal: load a native submission's library and serve the protocol on stdin/stdout
    /// (the child that `--target native:PATH` starts).
    #[command(name = "__native-worker", hide = true)]
    NativeWorker { library: std::path::PathBuf },
}

/// `broadside fuzz` flags.
#[derive(clap::Args)]
struct FuzzArgs {
    /// The assignment (spec id) to fuzz; `broadside list` shows them.
    #[arg(long)]
    assignment: String,
    /// The spec mode (e.g. `expert`); default the spec's own.
    #[arg(long)]
    mode: Option<String>,
    /// What to test: `reference`, `python:PATH`, `native:PATH` or `cmd:COMMAND`, as for `run`.
    #[arg(long, default_value = "reference")]
    target: String,
    /// At most this many cases [default: 2000, or unlimited with --time].
    #[arg(long)]
    cases: Option<u64>,
    /// At most this many seconds of cases (shrinking comes on top).
    #[arg(long)]
    time: Option<f64>,
    /// Seed of the case generator [default: a random one, printed]; the same seed and
    /// target give the same counterexample, byte for byte.
    #[arg(long)]
    seed: Option<u64>,
    /// Where to write the counterexample [default: fuzz-ASSIGNMENT-SEED.toml].
    #[arg(long)]
    out: Option<Utf8PathBuf>,
    /// Extra spec files (a course's own variant); may repeat.
    #[arg(long = "spec")]
    specs: Vec<Utf8PathBuf>,
    /// Seconds one request to a child target may take [default: 5]; a hang found by fuzzing
    /// costs this much for every shrinking candidate that still hangs.
    #[arg(long)]
    timeout: Option<f64>,
    /// Workers, each with a target of its own: worker i draws its share of the cases from
    /// seed SEED+i, and a counterexample names its worker's seed and share, so `--jobs 1`
    /// with them replays it byte for byte [default: 1].
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    jobs: u32,
}

/// Runs `jobs` fuzz workers, worker i from seed `options.seed + i` with its share of the
/// cases, each against a target of its own; once one finds a divergence the others stop
/// drawing cases. Returns the cases of all and the divergence of the lowest-numbered worker
/// that found one, with that worker's seed.
fn fuzz_jobs(
    specs: &broadside::spec::SpecSet,
    target: &str,
    limits: &broadside::target::limits::Limits,
    options: &broadside::fuzz::Options,
    jobs: u32,
) -> anyhow::Result<(broadside::fuzz::Outcome, u64)> {
    let stop = std::sync::atomic::AtomicBool::new(false);
    let worker = |i: u32| -> anyhow::Result<(broadside::fuzz::Outcome, u64)> {
        let mut mine = options.clone();
        mine.seed = options.seed.wrapping_add(u64::from(i));
        // The cases split as evenly as they go, the first workers taking one more.
        mine.cases = options.cases.or(options
            .time
            .is_none()
            .then_some(broadside::fuzz::DEFAULT_CASES));
        if let Some(c) = mine.cases {
            mine.cases = Some(c / u64::from(jobs) + u64::from(u64::from(i) < c % u64::from(jobs)));
        }
        if jobs == 1 {
            mine.cases = options.cases;
        }
        let mut t = broadside::target::from_spec(target, limits.clone(), limits::NOBODY)?;
        if !t.plays().steps {
            anyhow::bail!(
                "`{target}` is a whole program: fuzz plays random function calls, which only python:, haskell:, native:, cmd: and the reference answer"
            );
        }
        let outcome = broadside::fuzz::fuzz_until(specs, t.as_mut(), &mine, &stop);
        if matches!(&outcome, Ok(o) if o.found.is_some()) || outcome.is_err() {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        let _ = t.finish();
        Ok((outcome?, mine.seed))
    };
    if jobs == 1 {
        return worker(0);
    }
    let results: Vec<anyhow::Result<(broadside::fuzz::Outcome, u64)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..jobs).map(|i| s.spawn(move || worker(i))).collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a fuzz worker panicked")))
            })
            .collect()
    });
    let mut cases = 0;
    let mut elapsed = std::time::Duration::ZERO;
    let mut found = None;
    for r in results {
        let (o, seed) = r?;
        cases += o.cases;
        elapsed = elapsed.max(o.elapsed);
        if found.is_none() {
            found = o.found.map(|f| (f, seed));
        }
    }
    let seed = found.as_ref().map_or(options.seed, |(_, s)| *s);
    let found = found.map(|(f, _)| f);
    Ok((
        broadside::fuzz::Outcome {
            cases,
            elapsed,
            found,
        },
        seed,
    ))
}

/// `broadside fuzz`: exit 0 without a divergence, 1 with one (written and printed).
fn fuzz(args: FuzzArgs) -> anyhow::Result<u8> {
    let specs = match specs_or_diagnostics(&args.specs) {
        Ok(s) => s,
        Err(code) => return Ok(code),
    };
    // A fresh seed from the operating system's generator, short enough to type back.
    let seed = args
        .seed
        .unwrap_or_else(|| rand::random::<u64>() % 1_000_000_000);
    let mut options = broadside::fuzz::Options::new(&args.assignment, &args.target, seed);
    options.mode = args.mode;
    options.cases = args.cases;
    options.time = args
        .time
        .filter(|t| t.is_finite() && *t > 0.0)
        .map(std::time::Duration::from_secs_f64);
    let mut limits = broadside::target::limits::Limits::default();
    if let Some(t) = args.timeout.filter(|t| t.is_finite()) {
        limits.request_timeout = std::time::Duration::from_secs_f64(t.clamp(0.05, 3600.0));
    }
    let (outcome, seed) = fuzz_jobs(&specs, &args.target, &limits, &options, args.jobs)?;
    let mut err = anstream::stderr();
    let rate = outcome.cases as f64 / outcome.elapsed.as_secs_f64().max(1e-9);
    let Some(found) = outcome.found else {
        let seeds = if args.jobs > 1 {
            format!(
                "seeds {seed}–{}, {} workers",
                seed.wrapping_add(u64::from(args.jobs) - 1),
                args.jobs
            )
        } else {
            format!("seed {seed}")
        };
        writeln!(
            err,
            "no divergence in {} cases ({seeds}, {:.1} s, {rate:.0} cases/s)",
            outcome.cases,
            outcome.elapsed.as_secs_f64()
        )?;
        return Ok(exit::PASSED);
    };
    let path = args
        .out
        .unwrap_or_else(|| format!("fuzz-{}-{seed}.toml", args.assignment).into());
    std::fs::write(&path, &found.text)
        .with_context(|| format!("failed to write the counterexample to {path}"))?;
    write!(anstream::stdout(), "{}", found.text)?;
    let how = match (&found.result.divergence, &found.result.fault) {
        (Some(d), _) => format!(
            "step {}: {}: {} expected {}, got {}",
            d.step.map_or("end".to_string(), |s| s.to_string()),
            d.action,
            d.check,
            d.expected,
            d.actual
        ),
        (None, Some(f)) => format!("fault {f}"),
        _ => "it passed on replay".to_string(),
    };
    writeln!(
        err,
        "divergence at case {} (seed {seed}), shrunk to {} step{} in {} runs; written to {path}\n  {how}",
        found.case,
        found.scenario.steps.len(),
        if found.scenario.steps.len() == 1 {
            ""
        } else {
            "s"
        },
        found.shrink_runs
    )?;
    if !found.reproduced {
        writeln!(
            err,
            "warning: replaying the counterexample did not fail the same way; the target may not be deterministic"
        )?;
    }
    Ok(exit::FAILED)
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
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

/// Limits of a child target; a flag wins over the suite's `[limits]`, which wins over the
/// defaults. Values outside `broadside::suite::ranges` are refused.
#[derive(clap::Args)]
struct LimitArgs {
    /// Seconds one request to a child target may take, 0.05 to 3600 [default: 5, or the
    /// suite's].
    #[arg(long, value_parser = secs)]
    timeout: Option<f64>,
    /// Seconds one scenario may take in a child target, 0.05 to 3600 [default: 30, or the
    /// suite's].
    #[arg(long, value_parser = secs)]
    scenario_timeout: Option<f64>,
    /// Seconds a whole submission may take, 1 to 86400; the scenarios not played by then are
    /// not run [default: 600, or the suite's].
    #[arg(long, value_parser = submission_secs)]
    submission_timeout: Option<f64>,
    /// Memory of a child target, in MiB [default: 1024, or the suite's].
    #[arg(long, value_parser = in_range(ranges::MEMORY_MIB))]
    memory_mib: Option<u64>,
    /// CPU seconds of a child target over its whole life [default: 60, or the suite's].
    #[arg(long, value_parser = in_range(ranges::CPU_SECS))]
    cpu_secs: Option<u64>,
    /// Open files of a child target [default: 64, or the suite's].
    #[arg(long, value_parser = in_range(ranges::OPEN_FILES))]
    open_files: Option<u64>,
    /// Largest file a child target may write, in MiB [default: 16, or the suite's].
    #[arg(long, value_parser = in_range(ranges::FILE_SIZE_MIB))]
    file_size_mib: Option<u64>,
    /// Processes a child target may run [default: 64, or the suite's].
    #[arg(long, value_parser = in_range(ranges::PROCESSES))]
    processes: Option<u64>,
}

/// A clap parser for a whole number in `lo..=hi`.
fn in_range((lo, hi): (u64, u64)) -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(lo..=hi)
}

/// Seconds in `ranges::SUBMISSION_SECS`.
fn submission_secs(s: &str) -> Result<f64, String> {
    secs_in(s, ranges::SUBMISSION_SECS)
}

/// Seconds in `ranges::SECS`.
fn secs(s: &str) -> Result<f64, String> {
    secs_in(s, ranges::SECS)
}

/// Seconds from `lo` to `hi`.
fn secs_in(s: &str, (lo, hi): (f64, f64)) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (lo..=hi).contains(&v) => Ok(v),
        _ => Err(format!("expected seconds from {lo} to {hi}")),
    }
}

impl LimitArgs {
    /// The limits to use: these flags, else the suite's, else the defaults (both already
    /// checked against their ranges).
    fn limits(&self, suite: &SuiteLimits) -> Limits {
        let base = Limits::default();
        let get = |v: &Option<toml::Spanned<u64>>| v.as_ref().map(|v| *v.get_ref());
        let getf = |v: &Option<toml::Spanned<f64>>| v.as_ref().map(|v| *v.get_ref());
        let secs = |s: Option<f64>, default: std::time::Duration| {
            s.map_or(default, std::time::Duration::from_secs_f64)
        };
        Limits {
            request_timeout: secs(
                self.timeout.or(getf(&suite.timeout_secs)),
                base.request_timeout,
            ),
            scenario_timeout: secs(
                self.scenario_timeout.or(getf(&suite.scenario_timeout_secs)),
                base.scenario_timeout,
            ),
            submission_timeout: secs(
                self.submission_timeout
                    .or(getf(&suite.submission_timeout_secs)),
                base.submission_timeout,
            ),
            memory_mib: self
                .memory_mib
                .or(get(&suite.memory_mib))
                .unwrap_or(base.memory_mib),
            cpu_secs: self
                .cpu_secs
                .or(get(&suite.cpu_secs))
                .unwrap_or(base.cpu_secs),
            open_files: self
                .open_files
                .or(get(&suite.open_files))
                .unwrap_or(base.open_files),
            file_size_mib: self
                .file_size_mib
                .or(get(&suite.file_size_mib))
                .unwrap_or(base.file_size_mib),
            processes: self
                .processes
                .or(get(&suite.processes))
                .unwrap_or(base.processes),
            ..base
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    anstream::ColorChoice::write_global(match cli.color {
        ColorWhen::Auto => anstream::ColorChoice::Auto,
        ColorWhen::Always => anstream::ColorChoice::Always,
        ColorWhen::Never => anstream::ColorChoice::Never,
    });
    match real_main(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            let _ = writeln!(anstream::stderr(), "error: {e:#}");
            ExitCode::from(exit_code_of(&e))
        }
    }
}

/// Whether output to a stream is coloured: as `--color` says, or with `auto` on a terminal
/// when NO_COLOR is unset or empty.
fn color_for(stream_is_terminal: bool) -> bool {
    match anstream::ColorChoice::global() {
        anstream::ColorChoice::Always | anstream::ColorChoice::AlwaysAnsi => true,
        anstream::ColorChoice::Never => false,
        anstream::ColorChoice::Auto => {
            stream_is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}

/// The bundled specs with `extra` spec files added; `Err(exit::BAD_INPUT)` once a broken
/// one's diagnostics are printed.
fn specs_or_diagnostics(extra: &[Utf8PathBuf]) -> Result<broadside::spec::SpecSet, u8> {
    load::specs(extra).map_err(|errors| {
        print_diagnostics(&errors);
        exit::BAD_INPUT
    })
}

fn print_diagnostics(errors: &[broadside::diag::Diagnostic]) {
    let color = color_for(std::io::stderr().is_terminal());
    let mut err = anstream::stderr();
    for d in errors {
        let _ = writeln!(err, "{}", d.render(color));
    }
    let _ = writeln!(err, "{} found", plural(errors.len(), "problem", "problems"));
}

/// Warns about hidden scenarios that other users can read: a child runs as another user, and
/// a file it can read is a file it can search for expected outcomes.
fn warn_readable_hidden(scenarios: &[broadside::scenario::Scenario]) {
    use std::os::unix::fs::PermissionsExt;
    for s in scenarios
        .iter()
        .filter(|s| s.visibility != broadside::scenario::Visibility::Visible)
    {
        let path = std::path::Path::new(&s.source.path);
        // Readable by others: the file has the others-read bit and every folder above it the
        // others-search bit.
        let Ok(abs) = std::fs::canonicalize(path) else {
            continue;
        };
        let mode = |p: &std::path::Path| std::fs::metadata(p).map_or(0, |m| m.permissions().mode());
        let open = mode(&abs) & 0o004 != 0 && abs.ancestors().skip(1).all(|d| mode(d) & 0o001 != 0);
        if open {
            let jailed = if broadside::target::limits::namespaces_available() {
                "python:, haskell:, native: and java: targets run jailed, but a cmd: or exec: program sees what other users may read"
            } else {
                "this machine gives broadside no namespaces, so no target is jailed: student code sees what other users may read"
            };
            let _ = writeln!(
                anstream::stderr(),
                "warning: hidden scenario {} is readable by other users; {jailed}: keep hidden suites in a folder only the grader can read (chmod 700)",
                s.source.path
            );
        }
    }
}

fn joined(paths: &[Utf8PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `1 spec`, `2 specs`.
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What is wrong when `run` has no scenarios to load (no paths, no `--assignment`) or is
/// handed a student's source file where scenarios go, with the command meant.
fn misplaced_paths(
    paths: &[Utf8PathBuf],
    assignment: Option<&str>,
    target: &str,
    specs: &broadside::spec::SpecSet,
) -> Option<String> {
    use cli::hints;
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
fn run(args: RunArgs) -> anyhow::Result<u8> {
    let RunArgs {
        paths,
        assignment,
        target,
        format,
        out,
        specs,
        audience,
        limits: limit_args,
    } = args;
    let specs = match specs_or_diagnostics(&specs) {
        Ok(s) => s,
        Err(code) => return Ok(code),
    };
    if let Some(message) = misplaced_paths(&paths, assignment.as_deref(), &target, &specs) {
        eprintln!("error: {message}");
        return Ok(exit::BAD_INPUT);
    }
    let (mut loaded, suites) = load::load_suites(&paths, &specs);
    if let Some(id) = &assignment {
        if broadside::published::files(id).is_empty() {
            let known = broadside::published::assignments().join(", ");
            anyhow::bail!("no published scenarios for `{id}`; expected one of: {known}");
        }
        match broadside::published::load(id, &specs) {
            Ok(s) => loaded.scenarios.extend(s),
            Err(errors) => loaded.errors.extend(errors),
        }
    }
    if !loaded.errors.is_empty() {
        print_diagnostics(&loaded.errors);
        return Ok(exit::BAD_INPUT);
    }
    warn_readable_hidden(&loaded.scenarios);
    if loaded.scenarios.is_empty() {
        anyhow::bail!("no scenarios found under {}", joined(&paths));
    }
    let limits = limit_args.limits(&suites.limits());
    let start = std::time::Instant::now();
    // As root, the submission runs as a user of its own (a block claimed as `grade` claims
    // its slots'), so whatever it leaves running, however it sheds broadside's mark, is
    // found by its user afterwards, killed and reported, and never meets the next run.
    let users = if limits::running_as_root() {
        Some(limits::claim_uid_block().context("failed to claim a user for the submission")?)
    } else {
        None
    };
    let uid = users.as_ref().map_or(limits::NOBODY, |b| b.base);
    if users.is_some() {
        broadside::target::process::kill_user(uid);
    }
    let mut target = broadside::target::from_spec(&target, limits, uid)?;
    if !loaded
        .scenarios
        .iter()
        .any(|s| broadside::harness::plays(target.as_ref(), s))
    {
        anyhow::bail!(
            "none of the {} scenarios can be played by `{}`: {}",
            loaded.scenarios.len(),
            target.name(),
            broadside::harness::skipped_note(&loaded.scenarios, target.as_ref())
                .unwrap_or_default()
        );
    }
    let played = loaded
        .scenarios
        .iter()
        .filter(|s| broadside::harness::plays(target.as_ref(), s))
        .count();
    let mut progress = RunProgress::new(played);
    let (results, mut faults) =
        broadside::harness::run_submission(&loaded.scenarios, target.as_mut(), &mut progress);
    progress.done();
    let mut report = Report::new(target.name(), results);
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
    let text = match (format, &out) {
        (Format::Json, _) => report::to_json(&view),
        (Format::Gradescope, _) => report::to_gradescope(&report, hidden),
        (Format::Prairielearn, _) => report::to_prairielearn(&report, hidden),
        (Format::Junit, _) => report::to_junit(&view),
        (Format::Text, Some(_)) => report::to_text(&view, false),
        (Format::Text, None) => report::to_text(&view, color_for(std::io::stdout().is_terminal())),
    };
    match &out {
        Some(path) => {
            // `/autograder/results` or `/grade/results` need not exist yet.
            if let Some(dir) = path.parent().filter(|d| !d.as_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| {
                    GraderSide(format!(
                        "failed to create the folder {dir} for the report: {e}"
                    ))
                })?;
            }
            broadside::grade::write_atomic(path, &text)
                .map_err(|e| GraderSide(format!("failed to write the report: {e}")))?;
            // One line for whoever watches the run (a Gradescope or PrairieLearn job log),
            // counted as students may see them.
            let s = report::for_students(&report, hidden).summary;
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
    Ok(if report.all_passed() {
        exit::PASSED
    } else {
        exit::FAILED
    })
}

/// `run`'s progress on standard error while scenarios play, so a submission that hangs
/// is seen hanging: on a terminal only (a job log or a test gets the report alone), the
/// scenario under way by its title (a hidden one as "a hidden scenario"), cleared at the end.
struct RunProgress(Option<indicatif::ProgressBar>);

impl RunProgress {
    fn new(total: usize) -> RunProgress {
        if !std::io::stderr().is_terminal() || total < 2 {
            return RunProgress(None);
        }
        let bar = indicatif::ProgressBar::new(total as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{pos}/{len} {wide_msg}") {
            bar.set_style(style);
        }
        RunProgress(Some(bar))
    }

    fn done(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

impl broadside::harness::Reporter for RunProgress {
    fn scenario_started(&mut self, scenario: &broadside::scenario::Scenario) {
        if let Some(bar) = &self.0 {
            bar.set_message(
                if scenario.visibility == broadside::scenario::Visibility::Visible {
                    format!("playing: {}", scenario.title)
                } else {
                    "playing: a hidden scenario".to_string()
                },
            );
        }
    }

    fn scenario_finished(
        &mut self,
        _: &broadside::scenario::Scenario,
        _: &broadside::report::ScenarioResult,
    ) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }
}

fn real_main(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::NativeWorker { library } => {
            Ok(broadside::target::native::worker::serve(&library) as u8)
        }
        Command::Run(args) => run(args),
        Command::Grade(args) => cli::grade::grade(args),
        Command::Autograder(args) => cli::autograder::autograder(args),
        Command::Merge { shards, out } => cli::grade::merge(&shards, &out),
        Command::Fuzz(args) => fuzz(args),
        Command::Show { name, raw } => match broadside::published::show(&name) {
            Ok((path, text)) => {
                let mut out = anstream::stdout();
                if raw {
                    write!(out, "{text}")?;
                } else {
                    writeln!(out, "# {path}")?;
                    for (i, line) in text.lines().enumerate() {
                        writeln!(out, "{:>4} | {line}", i + 1)?;
                    }
                }
                Ok(exit::PASSED)
            }
            Err(e) => {
                eprintln!("error: {e}");
                Ok(exit::BAD_INPUT)
            }
        },
        Command::Completions { shell } => {
            let mut cli = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cli, "broadside", &mut std::io::stdout());
            Ok(exit::PASSED)
        }
        Command::Man { command } => {
            let mut cli = <Cli as clap::CommandFactory>::command();
            cli.build(); // adds the `help` command the main page lists
            let cmd = match &command {
                None => cli,
                Some(name) => {
                    let Some(sub) = cli
                        .get_subcommands()
                        .find(|c| c.get_name() == name && !c.is_hide_set())
                    else {
                        anyhow::bail!("no command `{name}`; `broadside --help` lists them");
                    };
                    sub.clone()
                        .name(format!("broadside-{name}"))
                        .version(env!("CARGO_PKG_VERSION"))
                }
            };
            let mut page = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut page)?;
            std::io::stdout().write_all(&page)?;
            Ok(exit::PASSED)
        }
        Command::List => {
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
        Command::Check { paths, specs } => {
            let specs_given = specs.len();
            let specs = match specs_or_diagnostics(&specs) {
                Ok(s) => s,
                Err(code) => return Ok(code),
            };
            let extra = specs_given;
            let (loaded, suites) = load::load_suites(&paths, &specs);
            if !loaded.errors.is_empty() {
                print_diagnostics(&loaded.errors);
                return Ok(exit::BAD_INPUT);
            }
            if loaded.files == 0 && suites.0.is_empty() {
                anyhow::bail!(
                    "no spec, scenario or suite.toml files found under {}",
                    joined(&paths)
                );
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
    }
}
