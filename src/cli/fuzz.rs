//! `broadside fuzz`: random cases against a target, the first divergence shrunk and written.

use super::specs_or_diagnostics;
use crate::{Error, exit};
use broadside::target::TargetSpec;
use broadside::target::limits;
use camino::Utf8PathBuf;
use std::io::Write;

/// `broadside fuzz` flags.
#[derive(clap::Args)]
pub(crate) struct FuzzArgs {
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
    /// with them replays it byte for byte.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    jobs: u32,
}

/// Runs `jobs` fuzz workers, worker i from seed `options.seed + i` with its share of the
/// cases, each against a target of its own; once one finds a divergence the others stop
/// drawing cases. Returns the cases of all and the divergence of the lowest-numbered worker
/// that found one, with that worker's seed.
pub(crate) fn fuzz_jobs(
    specs: &broadside::spec::SpecSet,
    target: &TargetSpec,
    limits: &broadside::target::limits::Limits,
    options: &broadside::fuzz::Options,
    jobs: u32,
) -> Result<(broadside::fuzz::Outcome, u64), Error> {
    let stop = std::sync::atomic::AtomicBool::new(false);
    let worker = |i: u32| -> Result<(broadside::fuzz::Outcome, u64), Error> {
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
            return Err(Error::Input(format!(
                "`{target}` is a whole program: fuzz plays random function calls, which only python:, haskell:, native:, cmd: and the reference answer"
            )));
        }
        let outcome = broadside::fuzz::fuzz_until(specs, t.as_mut(), &mine, &stop);
        if matches!(&outcome, Ok(o) if o.found.is_some()) || outcome.is_err() {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        let _ = t.finish();
        // An unknown assignment or mode, or a scenario broadside cannot load back.
        let outcome = outcome.map_err(|e| match e {
            broadside::fuzz::FuzzError::Unknown(_) => Error::Input(e.to_string()),
            broadside::fuzz::FuzzError::Internal(_)
            | broadside::fuzz::FuzzError::Harness { .. } => Error::Grader(e.to_string()),
        })?;
        Ok((outcome, mine.seed))
    };
    if jobs == 1 {
        return worker(0);
    }
    let results: Vec<Result<(broadside::fuzz::Outcome, u64), Error>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..jobs).map(|i| s.spawn(move || worker(i))).collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(Error::Grader(
                        "a fuzz worker panicked (a bug in broadside)".into(),
                    ))
                })
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
pub(crate) fn fuzz(args: FuzzArgs) -> Result<u8, Error> {
    let specs = specs_or_diagnostics(&args.specs)?;
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
    let target: TargetSpec = args.target.parse().map_err(Error::Input)?;
    let (outcome, seed) = fuzz_jobs(&specs, &target, &limits, &options, args.jobs)?;
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
    std::fs::write(&path, &found.text).map_err(|e| {
        Error::grader(
            format_args!("failed to write the counterexample to {path}"),
            &e,
        )
    })?;
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
