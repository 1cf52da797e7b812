//! Plays scenarios against a target, step by step, and compares with the expectations.
//!
//! A scenario stops at its first divergence; the result records expected vs actual and the
//! board at that moment as the reference plays it (ships shown). Then the next scenario runs.

mod compare;

pub use compare::{
    describe_answer, describe_expect, describe_expected, describe_observed, matches_answer,
    matches_state,
};

use crate::report::{Divergence, ScenarioResult, Status};
use crate::scenario::{Check, Scenario};
use crate::target::{Fault, Target, reference};

/// Plays one scenario on `target`.
pub fn run_scenario(scenario: &Scenario, target: &mut dyn Target) -> ScenarioResult {
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
    for (i, step) in scenario.steps.iter().enumerate() {
        let number = i + 1;
        result.steps_run = number;
        let answer = match target.act(&step.action) {
            Ok(a) => a,
            Err(f) => return result.errored(f, Some(number)),
        };
        reference::act(&mut shadow, &step.action);
        let action = step.action.describe(rules);
        if let Some(expect) = &step.expect
            && !matches_answer(expect, &answer)
        {
            return result.failed(Divergence {
                step: Some(number),
                line: step.line,
                action,
                check: "outcome".into(),
                expected: describe_expect(expect, rules),
                actual: describe_answer(&answer, rules),
                note: step.note.clone(),
                board: shadow.render(true),
            });
        }
        if let Err(outcome) = check_all(
            &step.checks,
            target,
            Some(number),
            step.note.as_ref(),
            &action,
            &shadow,
        ) {
            return outcome.finish(result);
        }
    }
    if let Err(outcome) = check_all(
        &scenario.end,
        target,
        None,
        None,
        "end of scenario",
        &shadow,
    ) {
        return outcome.finish(result);
    }
    result.status = Status::Passed;
    result.points = result.max_points;
    result
}

enum Stop {
    Diverged(Box<Divergence>),
    Faulted(Fault, Option<usize>),
}

impl Stop {
    fn finish(self, result: ScenarioResult) -> ScenarioResult {
        match self {
            Stop::Diverged(d) => result.failed(*d),
            Stop::Faulted(f, step) => result.errored(f, step),
        }
    }
}

fn check_all(
    checks: &[Check],
    target: &mut dyn Target,
    step: Option<usize>,
    note: Option<&String>,
    action: &str,
    shadow: &crate::engine::Game,
) -> Result<(), Stop> {
    let rules = shadow.rules();
    for check in checks {
        let observed = target
            .observe(check.key)
            .map_err(|f| Stop::Faulted(f, step))?;
        if !matches_state(&check.expected, &observed) {
            return Err(Stop::Diverged(Box::new(Divergence {
                step,
                line: check.line,
                action: action.to_string(),
                check: check.key.name().to_string(),
                expected: describe_expected(&check.expected, rules),
                actual: describe_observed(&observed, rules),
                note: note.cloned(),
                board: shadow.render(true),
            })));
        }
    }
    Ok(())
}

/// Plays every scenario in order on `target`.
pub fn run_all(scenarios: &[Scenario], target: &mut dyn Target) -> Vec<ScenarioResult> {
    scenarios.iter().map(|s| run_scenario(s, target)).collect()
}
