//! Playing one scenario on a target and judging every check of it: the steps in one batch,
//! each answer compared, divergences marked as the same bug again or a consequence, the
//! checks charged to the rubric's parts.

use super::compare::{
    describe_answer, describe_expect, describe_expected, describe_observed, matches_answer,
    matches_state,
};
use super::target::{Call, GivenState, Replied, Reply, Target};
use crate::engine::Game;
use crate::fault::{Fault, FaultKind};
use crate::report::rubric::Tally;
use crate::report::{Divergence, Follows, ScenarioResult, Status};
use crate::scenario::{Action, Check, Credit, Scenario};
use crate::spec::{Given, StateKey};
use std::collections::BTreeMap;

/// Plays one scenario on `target`: a dialogue scenario with a fresh run of the target's
/// program ([`Target::play_dialogue`]), a step scenario through the protocol's calls. Under
/// the scenario's `credit`, a scenario not passed earns the share of its checks it passed
/// (`check`) or nothing (`scenario`); one that broadside itself failed to play (a
/// [`FaultKind::Harness`] fault) is not graded.
pub fn run_scenario(scenario: &Scenario, target: &mut dyn Target) -> ScenarioResult {
    let r = if scenario.dialogue.is_some() {
        target.play_dialogue(scenario)
    } else {
        play_steps(scenario, target)
    };
    let r = match scenario.credit {
        Credit::Scenario if r.status != Status::Passed => r.credited(0.0),
        _ => r,
    };
    // broadside's own side failed: the scenario says nothing of the submission.
    if r.fault
        .as_ref()
        .is_some_and(|f| f.kind == FaultKind::Harness)
    {
        r.not_graded()
    } else {
        r
    }
}

/// How many checks a step scenario has: each `expect`, each `state` key, each `[end]` key.
pub fn count_checks(scenario: &Scenario) -> usize {
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
    /// Checks passed that no student code answered (the driver decided them alone, or
    /// the target does not observe the key): they earn no credit and stand in neither the
    /// checks passed nor the checks counted.
    unanswered: usize,
    divergences: Vec<Divergence>,
    /// Each check's function and kind where nothing more precise is known (the `[checks]`
    /// row of its kind), in the scenario's order: the checks a fault left unreached are
    /// charged by it.
    order: Vec<(Option<String>, String)>,
    /// How many checks were judged (passed, failed or unanswered).
    seen: usize,
    /// The checks by rubric part (empty without a rubric).
    tally: Tally,
    rubric: Option<std::sync::Arc<crate::spec::rubric::Rubric>>,
}

impl Marks {
    fn new(scenario: &Scenario) -> Marks {
        let rules = &scenario.rules;
        // Only a rubric charges the checks a fault left unreached.
        let order = if rules.rubric.is_some() {
            check_rows(scenario)
        } else {
            Vec::new()
        };
        Marks {
            total: count_checks(scenario),
            passed: 0,
            unanswered: 0,
            divergences: Vec::new(),
            order,
            seen: 0,
            tally: Tally::default(),
            rubric: rules.rubric.clone(),
        }
    }

    /// Charges one check to the rubric's parts: those judging `function`, else the one
    /// claiming checks of `kind`.
    fn charge(&mut self, function: Option<&str>, kind: &str, passed: bool) {
        if let Some(rubric) = &self.rubric {
            let parts = if passed {
                rubric.parts_credited(function, kind)
            } else {
                rubric.parts_of(function, kind)
            };
            self.tally.check(&parts, passed);
        }
    }

    /// A check passed, decided by `function` (the driver's word, else its `[checks]` row).
    fn pass(&mut self, function: Option<&str>, kind: &str) {
        self.passed += 1;
        self.seen += 1;
        self.charge(function, kind, true);
    }

    /// A check passed that no student code answered: it earns nothing (issue 36: a module
    /// that does not import, or a file left as `# TODO`, scored on the driver's answers).
    fn unanswered(&mut self) {
        self.unanswered += 1;
        self.seen += 1;
    }

    /// Records a failed check, marked with how it stands to the earlier ones: the same
    /// check failing again (for an outcome, the same answer expected) is the same bug again;
    /// after an action answered otherwise than the reference, the target's game has departed
    /// and this may follow from it.
    /// `fault`: the message of a fault that stood for the answer (a value of the wrong
    /// kind); the function it names is charged rather than the divergence's.
    fn fail(&mut self, mut d: Divergence, kind: &str, fault: Option<&str>) {
        self.seen += 1;
        let named = fault.and_then(crate::report::causes::faulting_function);
        self.charge(named.or(d.function.as_deref()), kind, false);
        if !self.divergences.is_empty() {
            let again = self.divergences.iter().find(|e| {
                e.check == d.check
                    && (e.check != "outcome" || first_word(&e.expected) == first_word(&d.expected))
            });
            // An action answered otherwise: earlier, at this very step (for a state check
            // after it), or at any step (for an `[end]` check).
            let departed = self.divergences.iter().any(|e| {
                e.check == "outcome"
                    && (d.step.is_none()
                        || e.step < d.step
                        || (e.step == d.step && d.check != "outcome"))
            });
            d.follows = if let Some(e) = again {
                // The same again, of a consequence, is a consequence still.
                Some(match e.follows {
                    Some(Follows::Consequence) => Follows::Consequence,
                    _ => Follows::Again,
                })
            } else if departed && !d.given {
                Some(Follows::Consequence)
            } else {
                None
            };
        }
        self.divergences.push(d);
    }

    /// The result: passed when every check passed, else failed with its first divergence
    /// in full and the later ones after it, credited with the share passed.
    fn finish(mut self, mut result: ScenarioResult) -> ScenarioResult {
        // The checks a fault left unreached fail, charged to the function the fault names
        // (`hit` raised, `is_sunk` is not defined): the bug is that function's, not the
        // others' the scenario would have judged; else each by its kind's row.
        let at_fault = result
            .fault
            .as_ref()
            .and_then(|f| crate::report::causes::faulting_function(&f.message))
            .map(String::from);
        for (function, kind) in std::mem::take(&mut self.order).iter().skip(self.seen) {
            self.charge(at_fault.as_deref().or(function.as_deref()), kind, false);
        }
        result.judged = std::mem::take(&mut self.tally).into_rows();
        let total = self.total - self.unanswered;
        result.checks = total;
        result.checks_passed = self.passed;
        // A scenario none of whose checks student code answered earns nothing.
        let share = match (total, self.unanswered) {
            (0, 0) => 1.0,
            (0, _) => 0.0,
            _ => self.passed as f64 / total as f64,
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

/// Which checks of a scenario hand the student's function the reference's state: the
/// spec's `[checks]` decides per kind, unless the scenario plays end to end (`given =
/// "own"`) or the target cannot take it.
struct Handing<'a> {
    rules: &'a crate::spec::Rules,
    on: bool,
}

impl Handing<'_> {
    fn new<'a>(scenario: &'a Scenario, target: &dyn Target) -> Handing<'a> {
        Handing {
            rules: &scenario.rules,
            on: scenario.given.is_none() && target.takes_given(),
        }
    }

    fn hands(&self, kind: &str) -> bool {
        self.on && self.rules.given(kind) == Given::Reference
    }
}

/// The calls of a step scenario, each with the reference's state where it is handed over:
/// before an action, the state the action starts from; for questions, the state after it.
fn plan_calls<'a>(scenario: &'a Scenario, handing: &Handing) -> Result<Vec<Call<'a>>, Fault> {
    let mut pre = super::reference::Reference::start(&scenario.rules, &scenario.setup)?;
    let observe = |checks: &[Check], pre: &Game| {
        let keys: Vec<StateKey> = checks.iter().map(|c| c.key).collect();
        let given_keys: Vec<StateKey> = keys
            .iter()
            .copied()
            .filter(|k| handing.hands(k.name()))
            .collect();
        Call::Observe {
            keys,
            given: (!given_keys.is_empty()).then(|| GivenState::of(pre)),
            given_keys,
        }
    };
    let mut calls = Vec::new();
    for step in &scenario.steps {
        let given = handing
            .hands(step.action.kind())
            .then(|| GivenState::of(&pre));
        super::reference::act(&mut pre, &step.action);
        calls.push(Call::Act {
            action: &step.action,
            given,
        });
        if !step.checks.is_empty() {
            calls.push(observe(&step.checks, &pre));
        }
    }
    if !scenario.end.is_empty() {
        calls.push(observe(&scenario.end, &pre));
    }
    Ok(calls)
}

/// The student function an action's answer judges, and the handout's words for the answer
/// the reference gave. For a shot: the function the driver says decided it, else the one
/// the spec names for where the answers part (a hit told from a sinking: `[checks.fire]`'s
/// `sinking`; the right word with the wrong ship: `[checks.ship]`), else the spec's
/// `function`. The clause is the one of the row naming the function at fault, else the
/// event's the reference answered.
fn judged_action(
    rules: &crate::spec::Rules,
    action: &Action,
    by: Option<&str>,
    reference: &crate::engine::Answer,
    expect: &crate::scenario::Expect,
    actual: Option<&crate::engine::Answer>,
) -> (Option<String>, Option<String>) {
    use crate::engine::Outcome::{Hit, Sunk};
    let row = rules.check_rule(action.kind());
    let event_clause = reference
        .event
        .and_then(|e| rules.event(e))
        .map(|r| r.clause.clone());
    let fallback = static_function(rules, action);
    match action {
        Action::Query { name, .. } => (fallback, rules.query(name).map(|q| q.clause.clone())),
        Action::Probe { name } => {
            let p = rules.probes.iter().find(|p| &p.name == name);
            (fallback, p.map(|p| p.clause.clone()))
        }
        Action::RandomLayouts { .. } => (fallback, row.map(|r| r.clause.clone())),
        _ => {
            // Where the answers part: a hit told from a sinking, or the right word with
            // the wrong detail (the ship a sinking names, `[checks.ship]`).
            let wanted = |o| expect.outcomes.contains(&o);
            let named = match actual.map(|a| a.outcome) {
                Some(got) if wanted(got) => rules.check_rule("ship").map(|r| r.function.clone()),
                Some(Sunk) if wanted(Hit) => row.and_then(|r| r.sinking.clone()),
                Some(Hit) if wanted(Sunk) => row.and_then(|r| r.sinking.clone()),
                _ => None,
            };
            let function = by.map(String::from).or(named).or(fallback);
            // The clause of the row that names the function at fault, if it is another's.
            let own = function
                .as_deref()
                .filter(|f| Some(*f) != row.map(|r| r.function.as_str()))
                .and_then(|f| {
                    let checks = rules.checks.iter().find(|c| c.function == f);
                    let queries = rules.queries.iter().find(|q| q.function == f);
                    checks
                        .map(|c| c.clause.clone())
                        .or_else(|| queries.map(|q| q.clause.clone()))
                });
            let clause = own
                .or(event_clause)
                .or_else(|| row.map(|r| r.clause.clone()));
            (function, clause)
        }
    }
}

/// Each check of a step scenario, in order, with the function and kind its `[checks]` row
/// gives it (see [`Marks::order`]).
fn check_rows(scenario: &Scenario) -> Vec<(Option<String>, String)> {
    let rules = &scenario.rules;
    let state = |c: &Check| (judged_state(rules, c.key).0, c.key.name().to_string());
    let mut rows = Vec::new();
    for step in &scenario.steps {
        if step.expect.is_some() {
            rows.push((
                static_function(rules, &step.action),
                step.action.kind().to_string(),
            ));
        }
        rows.extend(step.checks.iter().map(state));
    }
    rows.extend(scenario.end.iter().map(state));
    rows
}

/// The student function an action's check judges where no answer says more: a query's or
/// probe's functions, the random layout's, else its kind's `[checks]` row.
fn static_function(rules: &crate::spec::Rules, action: &Action) -> Option<String> {
    match action {
        Action::Query { name, .. } => rules.query(name).map(|q| q.function.clone()),
        Action::Probe { name } => rules
            .probes
            .iter()
            .find(|p| &p.name == name)
            .map(|p| p.functions.join(", ")),
        Action::RandomLayouts { .. } => rules.random_layout.clone(),
        _ => rules.check_rule(action.kind()).map(|r| r.function.clone()),
    }
}

/// The student function a state check judges and its clause (`[checks.KEY]`).
fn judged_state(rules: &crate::spec::Rules, key: StateKey) -> (Option<String>, Option<String>) {
    let row = rules.check_rule(key.name());
    (
        row.map(|r| r.function.clone()),
        row.map(|r| r.clause.clone()),
    )
}

/// Plays a step scenario: each step's call and its checks' question, judged against the
/// reference playing alongside, then the end's checks.
fn play_steps(scenario: &Scenario, target: &mut dyn Target) -> ScenarioResult {
    let rules = &scenario.rules;
    let mut result = ScenarioResult::new(scenario);
    let mut marks = Marks::new(scenario);
    // The reference plays alongside to draw the board at a divergence.
    let mut shadow = match super::reference::Reference::start(rules, &scenario.setup) {
        Ok(g) => g,
        Err(f) => return marks.finish(result.errored(f, None)),
    };
    if let Err(f) = target.new_game(rules, &scenario.setup) {
        return marks.finish(result.errored(f, None));
    }
    let handing = Handing::new(scenario, &*target);
    let legend = rules.display.legend(rules.items.iter().any(|i| i.grenade));
    let calls = match plan_calls(scenario, &handing) {
        Ok(c) => c,
        Err(f) => return marks.finish(result.errored(f, None)),
    };
    let mut replies = target.play(&calls).into_iter();
    let mut next = |step: Option<usize>| -> Result<Replied, Stop> {
        match replies.next() {
            Some(Ok(r)) => Ok(r),
            Some(Err(f)) => Err(Stop::Faulted(f, step)),
            None => Err(Stop::Faulted(
                Fault {
                    kind: crate::fault::FaultKind::Protocol,
                    message: "the target stopped answering".into(),
                },
                step,
            )),
        }
    };
    for (i, step) in scenario.steps.iter().enumerate() {
        let number = i + 1;
        result.steps_run = number;
        let replied = match answered(next(Some(number)), number) {
            Ok(a) => a,
            Err(stop) => return marks.finish(stop.finish(result)),
        };
        let expected_answer = super::reference::act(&mut shadow, &step.action);
        let at = StepAt {
            rules,
            number,
            step,
            action: step.action.describe(rules),
            shadow: &shadow,
            legend: &legend,
        };
        if let Some(expect) = &step.expect {
            judge_answer(
                &at,
                expect,
                &expected_answer,
                &replied,
                &handing,
                &mut marks,
            );
        }
        if step.checks.is_empty() {
            continue;
        }
        let state = match next(Some(number)) {
            Ok(Replied {
                reply: Reply::State(s),
                unanswered,
                ..
            }) => Ok((s, unanswered)),
            Ok(_) => return marks.finish(Stop::protocol(Some(number)).finish(result)),
            Err(Stop::Faulted(f, _)) if f.kind == FaultKind::Type => Err(f),
            Err(stop) => return marks.finish(stop.finish(result)),
        };
        judge_step_checks(&at, &state, &replied.output, &handing, &mut marks);
    }
    if !scenario.end.is_empty() {
        let state = match next(None) {
            Ok(Replied {
                reply: Reply::State(s),
                unanswered,
                ..
            }) => (s, unanswered),
            Ok(_) => return marks.finish(Stop::protocol(None).finish(result)),
            Err(Stop::Faulted(f, _)) => return marks.finish(result.errored_at_end(f)),
        };
        judge_end(scenario, &state, &shadow, &legend, &handing, &mut marks);
    }
    marks.finish(result)
}

/// Step `number`'s answer as the target gave it. A value of the wrong kind (`fire`
/// returned None) fails that check alone: the student's code ran and the game goes on.
/// `Err`: how the scenario stops (any other fault, or a reply that is no answer).
fn answered(replied: Result<Replied, Stop>, number: usize) -> Result<Answered, Stop> {
    match replied {
        Ok(Replied {
            reply: Reply::Answer(a),
            output,
            by,
            unanswered,
        }) => Ok(Answered {
            answer: Ok(a),
            output,
            by,
            unanswered,
        }),
        Ok(_) => Err(Stop::protocol(Some(number))),
        Err(Stop::Faulted(f, _)) if f.kind == FaultKind::Type => Ok(Answered {
            answer: Err(f),
            output: String::new(),
            by: None,
            unanswered: Vec::new(),
        }),
        Err(stop) => Err(stop),
    }
}

/// A step's answer as the target gave it: the answer, or a value of the wrong kind.
struct Answered {
    answer: Result<crate::engine::Answer, Fault>,
    /// What the student's code printed.
    output: String,
    /// The student function that decided it, where the driver says.
    by: Option<String>,
    /// The checks no student code answered.
    unanswered: Vec<String>,
}

/// The step being judged, for its divergences: the reference's board (drawn only when a
/// divergence needs it) and the board's legend.
struct StepAt<'a> {
    rules: &'a crate::spec::Rules,
    number: usize,
    step: &'a crate::scenario::Step,
    /// The step's action, described.
    action: String,
    shadow: &'a Game,
    legend: &'a str,
}

impl StepAt<'_> {
    /// A divergence at this step on `check`.
    fn divergence(
        &self,
        check: String,
        expected: String,
        actual: String,
        output: &str,
    ) -> Divergence {
        Divergence {
            step: Some(self.number),
            line: self.step.line,
            action: self.action.clone(),
            check,
            expected,
            actual,
            note: self.step.note.clone(),
            output: (!output.is_empty()).then(|| output.to_string()),
            board: self.shadow.render(true),
            legend: Some(self.legend.to_string()),
            ..Divergence::default()
        }
    }
}

/// Judges a step's answer against `expect` (the reference answered `reference`): passed
/// (to the function that decided it), failed (with the function and the clause at
/// fault), or earning nothing where no student code answered it.
fn judge_answer(
    at: &StepAt,
    expect: &crate::scenario::Expect,
    reference: &crate::engine::Answer,
    replied: &Answered,
    handing: &Handing,
    marks: &mut Marks,
) {
    let rules = at.rules;
    let (function, clause) = judged_action(
        rules,
        &at.step.action,
        replied.by.as_deref(),
        reference,
        expect,
        replied.answer.as_ref().ok(),
    );
    let given = handing.hands(at.step.action.kind());
    let d = match &replied.answer {
        Ok(a) if matches_answer(expect, a) => None,
        Ok(a) => Some(at.divergence(
            "outcome".into(),
            describe_expect(expect, rules),
            describe_answer(a, rules),
            &replied.output,
        )),
        Err(f) => Some(at.divergence(
            "outcome".into(),
            describe_expect(expect, rules),
            f.message.clone(),
            "",
        )),
    };
    let kind = at.step.action.kind();
    match d {
        None if replied.unanswered.iter().any(|c| c == "outcome") => marks.unanswered(),
        None => {
            let decided = replied
                .by
                .clone()
                .or_else(|| static_function(rules, &at.step.action));
            marks.pass(decided.as_deref(), kind)
        }
        Some(d) => marks.fail(
            Divergence {
                function,
                clause,
                given,
                ..d
            },
            kind,
            replied.answer.as_ref().err().map(|f| f.message.as_str()),
        ),
    }
}

/// Judges a step's checks on the state the target answered (or the value of the wrong kind
/// it gave instead): each check that fails is charged, with `output` where the state came.
fn judge_step_checks(
    at: &StepAt,
    state: &Result<(BTreeMap<StateKey, super::target::Observed>, Vec<String>), Fault>,
    output: &str,
    handing: &Handing,
    marks: &mut Marks,
) {
    let rules = at.rules;
    let failed: Vec<(&Check, String)> = match &state {
        Ok((state, unanswered)) => judge(rules, &at.step.checks, state, unanswered, marks)
            .into_iter()
            .map(|(c, o)| (c, describe_observed(o, rules)))
            .collect(),
        Err(f) => at
            .step
            .checks
            .iter()
            .map(|c| (c, f.message.clone()))
            .collect(),
    };
    for (check, actual) in failed {
        let (function, clause) = judged_state(rules, check.key);
        let shown = if state.is_ok() { output } else { "" };
        marks.fail(
            Divergence {
                line: check.line,
                function,
                clause,
                given: handing.hands(check.key.name()),
                ..at.divergence(
                    check.key.name().to_string(),
                    describe_expected(&check.expected, rules),
                    actual,
                    shown,
                )
            },
            check.key.name(),
            state.as_ref().err().map(|f| f.message.as_str()),
        );
    }
}

/// Judges the scenario's end checks on the state the target answered.
fn judge_end(
    scenario: &Scenario,
    state: &(BTreeMap<StateKey, super::target::Observed>, Vec<String>),
    shadow: &Game,
    legend: &str,
    handing: &Handing,
    marks: &mut Marks,
) {
    let rules = &scenario.rules;
    for (check, observed) in judge(rules, &scenario.end, &state.0, &state.1, marks) {
        let (function, clause) = judged_state(rules, check.key);
        marks.fail(
            Divergence {
                step: None,
                line: check.line,
                action: "end of scenario".into(),
                check: check.key.name().to_string(),
                expected: describe_expected(&check.expected, rules),
                actual: describe_observed(observed, rules),
                board: shadow.render(true),
                legend: Some(legend.to_string()),
                function,
                clause,
                given: handing.hands(check.key.name()),
                ..Divergence::default()
            },
            check.key.name(),
            None,
        );
    }
}

/// Passes the checks whose observed value matches, unless no student code answered them
/// (`unanswered`: they earn nothing); returns the others with the value observed. A key the
/// target does not observe fails nothing and earns nothing.
fn judge<'a>(
    rules: &crate::spec::Rules,
    checks: &'a [Check],
    state: &'a BTreeMap<StateKey, super::target::Observed>,
    unanswered: &[String],
    marks: &mut Marks,
) -> Vec<(&'a Check, &'a super::target::Observed)> {
    let mut failed = Vec::new();
    for c in checks {
        match state.get(&c.key) {
            Some(o) if !matches_state(&c.expected, o) => failed.push((c, o)),
            Some(_) if !unanswered.iter().any(|k| k == c.key.name()) => {
                let function = judged_state(rules, c.key).0;
                marks.pass(function.as_deref(), c.key.name())
            }
            _ => marks.unanswered(),
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
                kind: crate::fault::FaultKind::Protocol,
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

/// Whether `target` plays `scenario`: dialogue scenarios need a whole program, step
/// scenarios the protocol's calls.
pub fn plays(target: &dyn Target, scenario: &Scenario) -> bool {
    let p = target.plays();
    if scenario.dialogue.is_some() {
        p.dialogues && p.language.is_none_or(|l| l == scenario.rules.language)
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

/// A duration in whole milliseconds (saturating).
pub fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
