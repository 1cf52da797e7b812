//! Plays scenarios against a target, step by step, and compares with the expectations.
//!
//! The whole scenario goes to the target at once ([`Target::play`], one `batch` for child
//! targets); the answers are then compared in order. Every check is judged: a divergence does
//! not stop the scenario (only a fault does, and the checks not reached count as failed), and
//! the points are shared among the checks passed. The result records the first divergence in
//! full (expected vs actual, what the student's code printed during that step, the board as
//! the reference plays it, ships shown) and the later ones after it, each marked as the same
//! bug again or a consequence of an earlier action answered otherwise.

mod compare;

pub use compare::{
    describe_answer, describe_expect, describe_expected, describe_observed, matches_answer,
    matches_state,
};

use crate::engine::Game;
use crate::report::{Divergence, Follows, ScenarioResult, Status};
use crate::scenario::{Check, Credit, Scenario};
use crate::spec::StateKey;
use crate::target::{Call, Fault, FaultKind, Replied, Reply, Target, reference};
use std::collections::BTreeMap;

/// Plays one scenario on `target`: a dialogue scenario with a fresh run of the target's
/// program ([`crate::dialogue::run`]), a step scenario through the protocol's calls. Under
/// the scenario's `credit`, a scenario not passed earns the share of its checks it passed
/// (`check`) or nothing (`scenario`).
pub fn run_scenario(scenario: &Scenario, target: &mut dyn Target) -> ScenarioResult {
    let r = if scenario.dialogue.is_some() {
        crate::dialogue::run(scenario, target)
    } else {
        play_steps(scenario, target)
    };
    match scenario.credit {
        Credit::Scenario if r.status != Status::Passed => r.credited(0.0),
        _ => r,
    }
}

/// How many checks a step scenario has: each `expect`, each `state` key, each `[end]` key.
fn count_checks(scenario: &Scenario) -> usize {
    scenario
        .steps
        .iter()
        .map(|s| usize::from(s.expect.is_some()) + s.checks.len())
        .sum::<usize>()
        + scenario.end.len()
}

/// The checks of a step scenario as played: every divergence, in order.
struct Marks {
    total: usize,
    passed: usize,
    divergences: Vec<Divergence>,
}

impl Marks {
    fn pass(&mut self) {
        self.passed += 1;
    }

    /// Records a failed check, marked with how it stands to the earlier ones: the same
    /// check failing again (for an outcome, the same answer expected) is the same bug again;
    /// after an action answered otherwise than the reference, the target's game has departed
    /// and this may follow from it.
    fn fail(&mut self, mut d: Divergence) {
        if !self.divergences.is_empty() {
            let again = self.divergences.iter().any(|e| {
                e.check == d.check
                    && (e.check != "outcome" || first_word(&e.expected) == first_word(&d.expected))
            });
            let departed = self
                .divergences
                .iter()
                .any(|e| e.check == "outcome" && e.step < d.step);
            d.follows = if again {
                Some(Follows::Again)
            } else if departed {
                Some(Follows::Consequence)
            } else {
                None
            };
        }
        self.divergences.push(d);
    }

    /// The result: passed when every check passed, else failed with its first divergence
    /// in full and the later ones after it, credited with the share passed.
    fn finish(self, mut result: ScenarioResult) -> ScenarioResult {
        result.checks = self.total;
        result.checks_passed = self.passed;
        let share = if self.total == 0 {
            1.0
        } else {
            self.passed as f64 / self.total as f64
        };
        let mut ds = self.divergences.into_iter();
        let r = match (result.fault.is_some(), ds.next()) {
            (false, None) => return result.passed(),
            (true, first) => {
                result.divergence = first;
                result
            }
            (false, Some(first)) => result.failed(first),
        };
        let mut r = r.credited(share);
        r.later = ds.collect();
        r
    }
}

/// The first word of an expectation (`sunk` of `sunk (ship: Submarine)`).
fn first_word(s: &str) -> Option<&str> {
    s.split_whitespace().next()
}

fn play_steps(scenario: &Scenario, target: &mut dyn Target) -> ScenarioResult {
    let rules = &scenario.rules;
    let mut result = ScenarioResult::new(scenario);
    let mut marks = Marks {
        total: count_checks(scenario),
        passed: 0,
        divergences: Vec::new(),
    };
    // The reference plays alongside to draw the board at a divergence.
    let mut shadow = match crate::target::Reference::start(rules, &scenario.setup) {
        Ok(g) => g,
        Err(f) => return marks.finish(result.errored(f, None)),
    };
    if let Err(f) = target.new_game(rules, &scenario.setup) {
        return marks.finish(result.errored(f, None));
    }
    let keys = |checks: &[Check]| -> Vec<StateKey> { checks.iter().map(|c| c.key).collect() };
    let mut calls = Vec::new();
    for step in &scenario.steps {
        calls.push(Call::Act(&step.action));
        if !step.checks.is_empty() {
            calls.push(Call::Observe(keys(&step.checks)));
        }
    }
    if !scenario.end.is_empty() {
        calls.push(Call::Observe(keys(&scenario.end)));
    }
    let mut replies = target.play(&calls).into_iter();
    let mut next = |step: Option<usize>| -> Result<Replied, Stop> {
        match replies.next() {
            Some(Ok(r)) => Ok(r),
            Some(Err(f)) => Err(Stop::Faulted(f, step)),
            None => Err(Stop::Faulted(
                Fault {
                    kind: crate::target::FaultKind::Protocol,
                    message: "the target stopped answering".into(),
                },
                step,
            )),
        }
    };
    for (i, step) in scenario.steps.iter().enumerate() {
        let number = i + 1;
        result.steps_run = number;
        // A value of the wrong kind (`fire` returned None) fails that check alone: the
        // student's code ran and the game goes on. Any other fault ends the scenario.
        let (answer, output) = match next(Some(number)) {
            Ok(Replied {
                reply: Reply::Answer(a),
                output,
            }) => (Ok(a), output),
            Ok(_) => return marks.finish(Stop::protocol(Some(number)).finish(result)),
            Err(Stop::Faulted(f, _)) if f.kind == FaultKind::Type => (Err(f), String::new()),
            Err(stop) => return marks.finish(stop.finish(result)),
        };
        reference::act(&mut shadow, &step.action);
        let action = step.action.describe(rules);
        let divergence =
            |check: String, expected: String, actual: String, output: &str, shadow: &Game| {
                Divergence {
                    step: Some(number),
                    line: step.line,
                    action: action.clone(),
                    check,
                    expected,
                    actual,
                    note: step.note.clone(),
                    output: (!output.is_empty()).then(|| output.to_string()),
                    conversation: false,
                    board: shadow.render(true),
                    follows: None,
                }
            };
        if let Some(expect) = &step.expect {
            match &answer {
                Ok(a) if matches_answer(expect, a) => marks.pass(),
                Ok(a) => marks.fail(divergence(
                    "outcome".into(),
                    describe_expect(expect, rules),
                    describe_answer(a, rules),
                    &output,
                    &shadow,
                )),
                Err(f) => marks.fail(divergence(
                    "outcome".into(),
                    describe_expect(expect, rules),
                    f.message.clone(),
                    "",
                    &shadow,
                )),
            }
        }
        if step.checks.is_empty() {
            continue;
        }
        let state = match next(Some(number)) {
            Ok(Replied {
                reply: Reply::State(s),
                ..
            }) => s,
            Ok(_) => return marks.finish(Stop::protocol(Some(number)).finish(result)),
            Err(Stop::Faulted(f, _)) if f.kind == FaultKind::Type => {
                for check in &step.checks {
                    marks.fail(Divergence {
                        line: check.line,
                        ..divergence(
                            check.key.name().to_string(),
                            describe_expected(&check.expected, rules),
                            f.message.clone(),
                            "",
                            &shadow,
                        )
                    });
                }
                continue;
            }
            Err(stop) => return marks.finish(stop.finish(result)),
        };
        for (check, observed) in judge(&step.checks, &state, &mut marks) {
            let d = divergence(
                check.key.name().to_string(),
                describe_expected(&check.expected, rules),
                describe_observed(observed, rules),
                &output,
                &shadow,
            );
            marks.fail(Divergence {
                line: check.line,
                ..d
            });
        }
    }
    if !scenario.end.is_empty() {
        let state = match next(None) {
            Ok(Replied {
                reply: Reply::State(s),
                ..
            }) => s,
            Ok(_) => return marks.finish(Stop::protocol(None).finish(result)),
            Err(Stop::Faulted(f, _)) => return marks.finish(result.errored_at_end(f)),
        };
        for (check, observed) in judge(&scenario.end, &state, &mut marks) {
            marks.fail(Divergence {
                step: None,
                line: check.line,
                action: "end of scenario".into(),
                check: check.key.name().to_string(),
                expected: describe_expected(&check.expected, rules),
                actual: describe_observed(observed, rules),
                note: None,
                output: None,
                conversation: false,
                board: shadow.render(true),
                follows: None,
            });
        }
    }
    marks.finish(result)
}

/// Passes the checks whose observed value matches (or that the target does not observe);
/// returns the others with the value observed.
fn judge<'a>(
    checks: &'a [Check],
    state: &'a BTreeMap<StateKey, crate::target::Observed>,
    marks: &mut Marks,
) -> Vec<(&'a Check, &'a crate::target::Observed)> {
    let mut failed = Vec::new();
    for c in checks {
        match state.get(&c.key) {
            Some(o) if !matches_state(&c.expected, o) => failed.push((c, o)),
            _ => marks.pass(),
        }
    }
    failed
}

enum Stop {
    Faulted(Fault, Option<usize>),
}

impl Stop {
    fn protocol(step: Option<usize>) -> Stop {
        Stop::Faulted(
            Fault {
                kind: crate::target::FaultKind::Protocol,
                message: "an answer of the wrong kind".into(),
            },
            step,
        )
    }

    fn finish(self, result: ScenarioResult) -> ScenarioResult {
        match self {
            Stop::Faulted(f, step) => result.errored(f, step),
        }
    }
}

/// Plays every scenario in order on `target` (the target stays open for more).
///
/// Each result's `elapsed_ms` is the wall-clock time its scenario took.
pub fn run_all(scenarios: &[Scenario], target: &mut dyn Target) -> Vec<ScenarioResult> {
    scenarios.iter().map(|s| run_timed(s, target)).collect()
}

/// Whether `target` plays `scenario`: dialogue scenarios need a whole program, step
/// scenarios the protocol's calls.
pub fn plays(target: &dyn Target, scenario: &Scenario) -> bool {
    let p = target.plays();
    if scenario.dialogue.is_some() {
        p.dialogues
            && target.program().map_or(true, |prog| {
                prog.language.is_none_or(|l| l == scenario.rules.language)
            })
    } else {
        p.steps
    }
}

/// The report note for the scenarios `target` does not play, if any.
pub fn skipped_note(scenarios: &[Scenario], target: &dyn Target) -> Option<String> {
    let dialogues = scenarios
        .iter()
        .filter(|s| s.dialogue.is_some() && !plays(target, s))
        .count();
    let steps = scenarios
        .iter()
        .filter(|s| s.dialogue.is_none() && !plays(target, s))
        .count();
    let mut parts = Vec::new();
    if dialogues > 0 {
        parts.push(format!(
            "{dialogues} dialogue scenario{} (they run a whole program: java:, exec:, or python: for solo-10x10's main())",
            if dialogues == 1 { "" } else { "s" }
        ));
    }
    if steps > 0 {
        parts.push(format!(
            "{steps} step scenario{} (they call the handout's functions; a whole program has none)",
            if steps == 1 { "" } else { "s" }
        ));
    }
    (!parts.is_empty()).then(|| {
        format!(
            "not played, and not counted, for this target: {}",
            parts.join("; ")
        )
    })
}

/// [`run_scenario`], with the wall-clock time it took in `elapsed_ms`.
fn run_timed(scenario: &Scenario, target: &mut dyn Target) -> ScenarioResult {
    let start = std::time::Instant::now();
    let mut result = run_scenario(scenario, target);
    result.elapsed_ms = millis(start.elapsed());
    result
}

/// A duration in whole milliseconds (saturating).
pub fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Grades a submission: every scenario it [`plays`], then [`Target::finish`], whose faults
/// (a `leak`) belong to the submission as a whole. Results come back in the scenarios'
/// order, without the scenarios it does not play ([`skipped_note`] says which).
///
/// The visible scenarios are played first and the hidden and after-due-date ones after them:
/// one child plays them all, and state a submission keeps between scenarios (a module-level
/// list of every call) must never carry a hidden scenario's steps into a visible one's
/// output.
pub fn run_submission(
    scenarios: &[Scenario],
    target: &mut dyn Target,
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
    for i in order {
        results[i] = Some(run_timed(&scenarios[i], target));
    }
    let results = results.into_iter().flatten().collect();
    (results, target.finish())
}
