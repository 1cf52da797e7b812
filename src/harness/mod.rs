//! Plays scenarios against a target, step by step, and compares with the expectations.
//!
//! The whole scenario goes to the target at once ([`Target::play`], one `batch` for child
//! targets); the answers are then compared in order. A scenario stops at its first
//! divergence; the result records expected vs actual, what the student's code printed during
//! that step, and the board at that moment as the reference plays it (ships shown).

mod compare;

pub use compare::{
    describe_answer, describe_expect, describe_expected, describe_observed, matches_answer,
    matches_state,
};

use crate::engine::Game;
use crate::report::{Divergence, ScenarioResult};
use crate::scenario::{Check, Scenario};
use crate::spec::StateKey;
use crate::target::{Call, Fault, Replied, Reply, Target, reference};
use std::collections::BTreeMap;

/// Plays one scenario on `target`: a dialogue scenario with a fresh run of the target's
/// program ([`crate::dialogue::run`]), a step scenario through the protocol's calls.
pub fn run_scenario(scenario: &Scenario, target: &mut dyn Target) -> ScenarioResult {
    if scenario.dialogue.is_some() {
        return crate::dialogue::run(scenario, target);
    }
    let rules = &scenario.rules;
    let mut result = ScenarioResult::new(scenario);
    // The reference plays alongside to draw the board at a divergence.
    let mut shadow = match crate::target::Reference::start(rules, &scenario.setup) {
        Ok(g) => g,
        Err(f) => return result.errored(f, None),
    };
    if let Err(f) = target.new_game(rules, &scenario.setup) {
        return result.errored(f, None);
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
        let replied = match next(Some(number)) {
            Ok(r) => r,
            Err(stop) => return stop.finish(result),
        };
        reference::act(&mut shadow, &step.action);
        let action = step.action.describe(rules);
        let Reply::Answer(answer) = &replied.reply else {
            return Stop::protocol(Some(number)).finish(result);
        };
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
                }
            };
        if let Some(expect) = &step.expect
            && !matches_answer(expect, answer)
        {
            let d = divergence(
                "outcome".into(),
                describe_expect(expect, rules),
                describe_answer(answer, rules),
                &replied.output,
                &shadow,
            );
            return result.failed(d);
        }
        if step.checks.is_empty() {
            continue;
        }
        let state = match next(Some(number)) {
            Ok(Replied {
                reply: Reply::State(s),
                ..
            }) => s,
            Ok(_) => return Stop::protocol(Some(number)).finish(result),
            Err(stop) => return stop.finish(result),
        };
        if let Some((check, observed)) = first_mismatch(&step.checks, &state) {
            let d = divergence(
                check.key.name().to_string(),
                describe_expected(&check.expected, rules),
                describe_observed(observed, rules),
                &replied.output,
                &shadow,
            );
            return result.failed(Divergence {
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
            Ok(_) => return Stop::protocol(None).finish(result),
            Err(Stop::Faulted(f, _)) => return result.errored_at_end(f),
        };
        if let Some((check, observed)) = first_mismatch(&scenario.end, &state) {
            return result.failed(Divergence {
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
            });
        }
    }
    result.passed()
}

/// The first check whose observed value differs, with that value.
fn first_mismatch<'a>(
    checks: &'a [Check],
    state: &'a BTreeMap<StateKey, crate::target::Observed>,
) -> Option<(&'a Check, &'a crate::target::Observed)> {
    checks.iter().find_map(|c| match state.get(&c.key) {
        Some(o) if matches_state(&c.expected, o) => None,
        Some(o) => Some((c, o)),
        None => None,
    })
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
