//! Playing a suite on one target, as `run` and `grade` do: the visible scenarios first, each
//! timed on the wall clock, the submission's time budget kept, and a run cut short on
//! request ([`ABORT`]). The core's harness plays one scenario ([`run_scenario`]) and reads no
//! clock; the time, the order and the stop are this shell's.

use crate::fault::{Fault, FaultKind};
use crate::harness::target::Target;
use crate::harness::{count_checks, millis, plays, run_scenario};
use crate::report::ScenarioResult;
use crate::scenario::Scenario;

/// Plays every scenario in order on `target` (the target stays open for more).
///
/// Each result's `elapsed_ms` is the wall-clock time its scenario took.
pub fn run_all(scenarios: &[Scenario], target: &mut dyn Target) -> Vec<ScenarioResult> {
    scenarios.iter().map(|s| run_timed(s, target)).collect()
}

/// Told of each scenario as [`run_submission`] plays it, in the order played (visible
/// scenarios first), so a view can show a run while it goes on (`run`'s live lines on a
/// terminal), then of the run's end. The results themselves are also returned at the end, in
/// the scenarios' order: the report formats are views of the whole report, since each leads
/// with the causes found across every scenario and totals the points.
pub trait Reporter {
    /// `scenario` is about to be played.
    fn scenario_started(&mut self, _scenario: &Scenario) {}
    /// `scenario` has been played (or not run, past the submission's time budget).
    fn scenario_finished(&mut self, _scenario: &Scenario, _result: &ScenarioResult) {}
    /// Every scenario has been played: `results` in the scenarios' order, and the faults of
    /// the submission as a whole ([`Target::finish`]).
    fn run_finished(&mut self, _results: &[ScenarioResult], _faults: &[Fault]) {}
}

/// A reporter that shows nothing (every result is in the report).
pub struct Quiet;

impl Reporter for Quiet {}

/// [`run_scenario`], with the wall-clock time it took in `elapsed_ms`, less what the
/// target did not charge to the submission ([`Target::uncharged`]), which is also returned.
fn run_timed(scenario: &Scenario, target: &mut dyn Target) -> ScenarioResult {
    run_charged(scenario, target).0
}

fn run_charged(
    scenario: &Scenario,
    target: &mut dyn Target,
) -> (ScenarioResult, std::time::Duration) {
    let start = std::time::Instant::now();
    let mut result = run_scenario(scenario, target);
    let uncharged = target.uncharged();
    result.elapsed_ms = millis(start.elapsed().saturating_sub(uncharged));
    (result, uncharged)
}

/// A scenario not played because the submission used up its time `budget`: no points, and
/// why.
fn not_run(scenario: &Scenario, budget: std::time::Duration) -> ScenarioResult {
    let mut r = ScenarioResult::new(scenario).errored(
        Fault {
            kind: FaultKind::NotRun,
            message: format!(
                "not run: the submission had used up its time ({} s for the whole suite, the suite's submission_timeout_secs) before this scenario",
                budget.as_secs_f64()
            ),
        },
        None,
    );
    r.checks = count_checks(scenario);
    r
}

/// Set when a run is cut short (`grade`'s second Ctrl-C, or its grace after the first ran
/// out): no further scenario starts, and what was played is thrown away, not graded.
pub static ABORT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Grades a submission: every scenario it [`plays`], then [`Target::finish`], whose faults
/// (a `leak`) belong to the submission as a whole. Results come back in the scenarios'
/// order, without the scenarios it does not play ([`skipped_note`](crate::harness::skipped_note) says which).
///
/// The visible scenarios are played first and the hidden and after-due-date ones after them:
/// one child plays them all, and state a submission keeps between scenarios (a module-level
/// list of every call) must never carry a hidden scenario's steps into a visible one's
/// output.
pub fn run_submission(
    scenarios: &[Scenario],
    target: &mut dyn Target,
    reporter: &mut dyn Reporter,
) -> (Vec<ScenarioResult>, Vec<Fault>) {
    let visible = |s: &Scenario| s.visibility == crate::scenario::Visibility::Visible;
    let played: Vec<usize> = (0..scenarios.len())
        .filter(|&i| plays(&*target, &scenarios[i]))
        .collect();
    let order: Vec<usize> = played
        .iter()
        .copied()
        .filter(|&i| visible(&scenarios[i]))
        .chain(played.iter().copied().filter(|&i| !visible(&scenarios[i])))
        .collect();
    let mut results: Vec<Option<ScenarioResult>> = vec![None; scenarios.len()];
    let start = std::time::Instant::now();
    let budget = target.budget();
    // Time the target did not charge to the submission (games thrown away) is not spent
    // from its budget either.
    let mut uncharged = std::time::Duration::ZERO;
    for i in order {
        if ABORT.load(std::sync::atomic::Ordering::SeqCst) {
            break;
        }
        reporter.scenario_started(&scenarios[i]);
        let result = match budget {
            Some(b) if start.elapsed().saturating_sub(uncharged) >= b => not_run(&scenarios[i], b),
            _ => {
                let (result, thrown) = run_charged(&scenarios[i], target);
                uncharged += thrown;
                result
            }
        };
        reporter.scenario_finished(&scenarios[i], &result);
        results[i] = Some(result);
    }
    let results: Vec<ScenarioResult> = results.into_iter().flatten().collect();
    let faults = target.finish();
    reporter.run_finished(&results, &faults);
    (results, faults)
}
