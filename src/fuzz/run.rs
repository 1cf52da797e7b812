//! The fuzz loop: proptest's [`TestRunner`] draws cases from a seeded ChaCha generator, each
//! case is played against the target as an ordinary scenario built in memory (expected
//! outcomes from the reference; one `new_game` and one `batch` for a child target), and the
//! first divergence is shrunk by proptest's own shrinking, keeping the same kind of
//! divergence; the shrunk case is written as a file and loaded back, as `broadside run` will.

use super::build::{Plan, Provenance, resolve, scenario_text};
use super::generate;
use crate::diag::Source;
use crate::harness::run_scenario;
use crate::report::{ScenarioResult, Status};
use crate::scenario::Scenario;
use crate::spec::{Rules, Spec, SpecSet};
use crate::target::{FaultKind, Reference, Target};
use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What a fuzz run may spend, and where its randomness comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The assignment (spec id) to fuzz.
    pub assignment: String,
    /// The spec mode; `None` for the spec's default.
    pub mode: Option<String>,
    /// How reports and the counterexample name the target, e.g. `python:battleship.py`.
    pub target_name: String,
    /// At most this many cases (`None`: until `time` runs out).
    pub cases: Option<u64>,
    /// At most this much wall-clock time for generating and playing cases (shrinking comes on
    /// top). With neither `cases` nor `time`, [`DEFAULT_CASES`].
    pub time: Option<Duration>,
    /// The seed of the case generator: the same seed and target give the same cases and the
    /// same counterexample, byte for byte.
    pub seed: u64,
    /// At most this many shrinking steps (each plays one candidate case).
    pub max_shrink_iters: u32,
}

/// Cases tried when neither a case count nor a time is given.
pub const DEFAULT_CASES: u64 = 2000;

impl Options {
    /// Options for `assignment` with the default budget and shrinking.
    pub fn new(assignment: &str, target_name: &str, seed: u64) -> Options {
        Options {
            assignment: assignment.to_string(),
            mode: None,
            target_name: target_name.to_string(),
            cases: None,
            time: None,
            seed,
            max_shrink_iters: 4096,
        }
    }
}

/// How a fuzz run ended.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Cases played before the divergence (it included) or before the budget ran out.
    pub cases: u64,
    /// Wall-clock time spent generating and playing cases, shrinking excluded.
    pub elapsed: Duration,
    /// The shrunk divergence, if the target diverged.
    pub found: Option<Counterexample>,
}

/// A shrunk divergence, written as a scenario.
#[derive(Debug, Clone)]
pub struct Counterexample {
    /// 1-based number of the case that first diverged.
    pub case: u64,
    /// Cases played while shrinking.
    pub shrink_runs: u64,
    /// The shrunk case resolved to concrete steps, each of which the divergence needs.
    pub plan: Plan,
    /// The scenario file's text (a header comment names the seed and broadside's version).
    pub text: String,
    /// The scenario as loaded from `text`.
    pub scenario: Scenario,
    /// The scenario replayed on the target: failed or errored.
    pub result: ScenarioResult,
    /// Whether the replay failed the same way the fuzz loop saw (false: a flaky target).
    pub reproduced: bool,
}

/// Why a fuzz run could not run at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FuzzError {
    /// The assignment or its mode is not known.
    #[error("{0}")]
    Unknown(String),
    /// broadside wrote a scenario it cannot load (a bug in broadside, with the loader's words).
    #[error("broadside generated a scenario it cannot load (a bug in broadside): {0}")]
    Internal(String),
    /// broadside's own side failed while playing a case (a `harness` fault, such as a target
    /// it could not start): nothing was learnt of the target, and no case is shrunk or
    /// written.
    #[error(
        "broadside's own side failed while playing case {case} ({message}); the run stops there, nothing is written: fix the machine and run again"
    )]
    Harness { case: u64, message: String },
}

/// The kind of a divergence; shrinking keeps it, so the minimal case fails the same way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A wrong answer or state: the check that differed (`outcome`, `won`, …).
    Failed(String),
    /// No answer: the fault's kind.
    Error(FaultKind),
}

impl Kind {
    /// The kind of a result that did not pass.
    pub fn of(result: &ScenarioResult) -> Option<Kind> {
        match result.status {
            Status::Passed => None,
            Status::Failed => Some(Kind::Failed(
                result
                    .divergence
                    .as_ref()
                    .map_or_else(String::new, |d| d.check.clone()),
            )),
            Status::Error | Status::NotGraded => Some(Kind::Error(
                result
                    .fault
                    .as_ref()
                    .map_or(FaultKind::Protocol, |f| f.kind),
            )),
        }
    }
}

/// Loads a generated scenario's text.
///
/// Errors: [`FuzzError::Internal`] with the loader's diagnostics, `; ` between them: broadside
/// wrote a scenario it cannot load.
pub fn load_text(text: &str, path: &str, specs: &SpecSet) -> Result<Scenario, FuzzError> {
    crate::scenario::parse(&Source::new(path, text), specs).map_err(|errors| {
        FuzzError::Internal(
            errors
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("; "),
        )
    })
}

/// Fuzzes `target` against the reference under `options`.
///
/// Errors: an unknown assignment or mode, or a generated scenario that does not load.
pub fn fuzz(
    specs: &SpecSet,
    target: &mut dyn Target,
    options: &Options,
) -> Result<Outcome, FuzzError> {
    fuzz_until(specs, target, options, &AtomicBool::new(false))
}

/// The spec of `options`' assignment and the rules of its mode.
///
/// Errors: an unknown assignment, or a mode it does not have.
fn spec_and_rules(
    specs: &SpecSet,
    options: &Options,
) -> Result<(Arc<Spec>, Arc<Rules>), FuzzError> {
    let spec = specs.get(&options.assignment).ok_or_else(|| {
        FuzzError::Unknown(format!(
            "unknown assignment `{}`; expected one of: {}",
            options.assignment,
            specs.ids().join(", ")
        ))
    })?;
    let rules = spec
        .rules(options.mode.as_deref())
        .ok_or_else(|| {
            FuzzError::Unknown(format!(
                "{} has no mode `{}`",
                spec.id,
                options.mode.as_deref().unwrap_or_default()
            ))
        })?
        .clone();
    Ok((spec.clone(), rules))
}

/// `plan` without every written step, then every ship of the setup, that its divergence
/// does not need (`diverges`: whether a plan diverges the same way), so that each one left
/// is necessary. proptest shrank the symbolic case, but a resolved step's cell can depend
/// on the steps before it (a repeat, the next unhit cell), so a step shrinking kept may no
/// longer be needed once written out.
fn drop_unneeded(mut plan: Plan, diverges: &dyn Fn(&Plan) -> bool) -> Plan {
    let mut changed = true;
    while changed {
        changed = false;
        let mut i = 0;
        while i < plan.steps.len() {
            let shorter = plan.without(i);
            if diverges(&shorter) {
                plan = shorter;
                changed = true;
            } else {
                i += 1;
            }
        }
    }
    // Likewise every ship of the setup: drop those the divergence does not need.
    let mut i = 0;
    while i < plan.setup.len() {
        let mut smaller = plan.clone();
        smaller.setup.remove(i);
        if diverges(&smaller) {
            plan = smaller;
        } else {
            i += 1;
        }
    }
    plan
}

/// proptest's runner for `options`: seeded by the run's seed, shrinking as far as
/// `options` allows, with no failure file.
fn runner(options: &Options) -> TestRunner {
    let config = Config {
        cases: u32::MAX,
        max_shrink_iters: options.max_shrink_iters,
        max_shrink_time: 0,
        failure_persistence: None,
        verbose: 0,
        timeout: 0,
        ..Config::default()
    };
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&options.seed.to_le_bytes());
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed))
}

/// Plays plans against the target and says whether each diverges the way the first
/// divergence did (any way, before the first); shared by the search and the shrinking,
/// which proptest calls back.
struct Judge<'a, 't> {
    rules: &'a Arc<Rules>,
    target: RefCell<&'t mut dyn Target>,
    /// How the first divergence diverged.
    first: RefCell<Option<Kind>>,
    /// A `harness` fault met while playing: the run stops at it (no more cases are played).
    harness: RefCell<Option<String>>,
    /// Plans played.
    runs: RefCell<u64>,
}

impl Judge<'_, '_> {
    /// Whether `plan` diverges the way the first divergence did (any way, before the
    /// first). A `harness` fault counts as one, and is kept to stop the run.
    fn diverges(&self, plan: &Plan) -> bool {
        *self.runs.borrow_mut() += 1;
        // Built in memory: the scenario its file would load to (tests/fuzz.rs holds them
        // equal); only the shrunk counterexample is written and loaded.
        let Some(scenario) = super::build::scenario(plan, self.rules) else {
            return false;
        };
        if self.harness.borrow().is_some() {
            return false;
        }
        let mut result = run_scenario(&scenario, &mut **self.target.borrow_mut());
        // One child plays thousands of cases, and its CPU seconds (and memory) add up: a
        // limit met here may be the run's, not this case's. The target starts a fresh child
        // after it, and the case is played again there; a case that passes then is no
        // divergence (a case that meets the limit on its own meets it again).
        if result
            .fault
            .as_ref()
            .is_some_and(|f| f.kind == FaultKind::Limit)
        {
            result = run_scenario(&scenario, &mut **self.target.borrow_mut());
        }
        if result.status == Status::NotGraded {
            let why = result.fault.as_ref().map_or("", |f| f.message.as_str());
            *self.harness.borrow_mut() = Some(why.to_string());
            return true;
        }
        let Some(this) = Kind::of(&result) else {
            return false;
        };
        let mut first = self.first.borrow_mut();
        first.get_or_insert_with(|| this.clone()) == &this
    }
}

/// [`fuzz`], which also stops drawing cases once `stop` is set (another worker of the same
/// run found a divergence); a divergence found is shrunk all the same.
///
/// Errors: as [`fuzz`].
pub fn fuzz_until(
    specs: &SpecSet,
    target: &mut dyn Target,
    options: &Options,
    stop: &AtomicBool,
) -> Result<Outcome, FuzzError> {
    let (spec, rules) = spec_and_rules(specs, options)?;
    let with_mode = spec.modes.len() > 1;
    let mut runner = runner(options);
    let strategy = generate::case(&rules);
    let cases = match (options.cases, options.time) {
        (None, None) => Some(DEFAULT_CASES),
        (c, _) => c,
    };
    let judge = Judge {
        rules: &rules,
        target: RefCell::new(target),
        first: RefCell::new(None),
        harness: RefCell::new(None),
        runs: RefCell::new(0),
    };
    let test = |case: generate::Case| -> Result<(), TestCaseError> {
        if judge.diverges(&resolve(&case, &rules)) {
            Err(TestCaseError::fail(
                "the target diverged from the reference",
            ))
        } else {
            Ok(())
        }
    };
    let start = Instant::now();
    let mut n = 0u64;
    let mut minimal = None;
    while cases.is_none_or(|c| n < c)
        && options.time.is_none_or(|t| start.elapsed() < t)
        && !stop.load(Ordering::Relaxed)
    {
        n += 1;
        let tree = strategy
            .new_tree(&mut runner)
            .map_err(|e| FuzzError::Internal(format!("case generation failed: {e}")))?;
        let result = runner.run_one(tree, test);
        if let Some(message) = judge.harness.borrow_mut().take() {
            return Err(FuzzError::Harness { case: n, message });
        }
        if let Err(TestError::Fail(_, case)) = result {
            minimal = Some(case);
            break;
        }
    }
    let elapsed = start.elapsed();
    let Some(case) = minimal else {
        return Ok(Outcome {
            cases: n,
            elapsed,
            found: None,
        });
    };
    // Each written step and ship necessary to the same kind of divergence.
    let plan = drop_unneeded(resolve(&case, &rules), &|p| judge.diverges(p));
    let shrink_runs = *judge.runs.borrow() - n;
    let found = written(
        Shrunk {
            plan,
            case: n,
            shrink_runs,
            first: judge.first.into_inner(),
            with_mode,
        },
        &rules,
        specs,
        options,
        judge.target.into_inner(),
    )?;
    Ok(Outcome {
        cases: n,
        elapsed,
        found: Some(found),
    })
}

/// A divergence shrunk, before it is written.
struct Shrunk {
    plan: Plan,
    /// The case that first diverged.
    case: u64,
    shrink_runs: u64,
    /// How it diverged.
    first: Option<Kind>,
    /// Whether the scenario names its mode (the spec has several).
    with_mode: bool,
}

/// The shrunk divergence written as a scenario file, loaded back and played again against
/// `target` (does it diverge the same way?) and against the reference (which must pass
/// it).
///
/// Errors: a `harness` fault replaying it (`Harness`), or a file that does not load or
/// that the reference fails (`Internal`: a bug of the fuzzer's).
fn written(
    shrunk: Shrunk,
    rules: &Arc<Rules>,
    specs: &SpecSet,
    options: &Options,
    target: &mut dyn Target,
) -> Result<Counterexample, FuzzError> {
    let Shrunk {
        plan,
        case: n,
        shrink_runs,
        first,
        with_mode,
    } = shrunk;
    let from = Provenance {
        seed: options.seed,
        case: n,
        target: options.target_name.clone(),
        cases: options.cases,
        mode: options.mode.clone(),
    };
    let text = scenario_text(&plan, rules, with_mode, Some(&from))
        .expect("a diverging plan has something to check");
    let scenario = load_text(&text, "fuzz-counterexample.toml", specs).map_err(|e| match e {
        FuzzError::Internal(why) => FuzzError::Internal(format!("{why}\n{text}")),
        other => other,
    })?;
    let result = run_scenario(&scenario, target);
    if result.status == Status::NotGraded {
        let why = result.fault.as_ref().map_or("", |f| f.message.as_str());
        return Err(FuzzError::Harness {
            case: n,
            message: why.to_string(),
        });
    }
    let reproduced = Kind::of(&result) == first;
    // The reference passes its own expectations; anything else is a bug in the fuzzer.
    let check = run_scenario(&scenario, &mut Reference::new());
    if check.status != Status::Passed {
        return Err(FuzzError::Internal(format!(
            "the reference fails the counterexample it produced: {:?}\n{text}",
            check.divergence
        )));
    }
    Ok(Counterexample {
        case: n,
        shrink_runs,
        plan,
        text,
        scenario,
        result,
        reproduced,
    })
}
