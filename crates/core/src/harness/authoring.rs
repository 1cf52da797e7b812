//! Authoring mistakes are the author's (issue 37): a step scenario played on the reference
//! engine, in process, with each expectation the reference does not meet reported as an
//! error in the scenario file, at the line and column of that expectation.
//!
//! `broadside check` calls [`check`] for every scenario it loads. Without it, a wrong
//! expectation (`expect = "hit"` where the setup sinks the Submarine) would load, and every
//! student would then be told that their function is at fault. The comparison is the
//! harness's own ([`matches_answer`], [`matches_state`]): a scenario [`check`] accepts is one
//! `broadside run --target reference` passes, and the other way round (a test below holds the
//! two to the same checks). Nothing is loosened for it: a scenario whose expectation the
//! handout allows either way lists both readings under a spec decision with `accept_also`,
//! as a graded run needs anyway.
//!
//! **Dialogue scenarios** are checked for their shape only (the loader's checks: the moves
//! are the assignment's and in an order that can be played). Their file holds no expected
//! values to compare: a dialogue is a plan of moves, turned into lines at run time from what
//! the program shows, and judged as a marking sheet of handout rules against the reference
//! playing the same game. The reference is not a whole program and has no conversation to
//! play, so there is nothing in the file it could fail.

use super::reference;
use super::{describe_answer, describe_expect, describe_expected, describe_observed};
use super::{matches_answer, matches_state, target::Observed};
use crate::diag::Diagnostic;
use crate::fault::Fault;
use crate::scenario::{Check, Expected, Scenario};
use std::ops::Range;

/// One expectation of a scenario that the reference does not meet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mistake {
    /// The step (1-based) whose `expect` or `state` it is; `None` for an `[end]` check.
    pub step: Option<usize>,
    /// The step's action in the assignment's notation (`fire B3`); `None` for `[end]`.
    pub action: Option<String>,
    /// What is checked: `outcome` (a step's `expect`) or a state key (`shots`, `board`, …),
    /// as reports name a divergence's check.
    pub check: String,
    /// Byte range of the expectation in the file (`None` for a scenario built in memory).
    pub span: Option<Range<usize>>,
    /// The scenario's expectation, written as reports write it (`hit`, `2`).
    pub expected: String,
    /// What the reference answers or observes there, written the same way.
    pub reference: String,
    /// For a `board`: the first row where the two drawings part.
    pub row: Option<RowApart>,
}

/// The first row where the reference's board and the scenario's part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowApart {
    /// 1-based, from the top.
    pub row: usize,
    /// The row as the reference draws it, trailing spaces trimmed (`None`: it has no such row).
    pub reference: Option<String>,
    /// The row as the scenario writes it (`None`: it has no such row).
    pub expected: Option<String>,
}

impl Mistake {
    /// The mistake as an error in the scenario file, at the expectation: `the reference
    /// answers sunk (ship: Submarine) here; the scenario expects hit`.
    pub fn diagnostic(&self, scenario: &Scenario) -> Diagnostic {
        let when = match (&self.step, &self.action) {
            (Some(n), Some(a)) => format!("after step {n} ({a})"),
            (Some(n), None) => format!("after step {n}"),
            _ => "at the end".to_string(),
        };
        let message = match (self.check.as_str(), &self.row) {
            ("outcome", _) => format!(
                "the reference answers {} here; the scenario expects {}",
                self.reference, self.expected
            ),
            ("board", Some(apart)) => {
                let n = apart.row;
                let reference = match apart.reference.as_deref() {
                    None => format!("no row {n}"),
                    Some("") => format!("a blank row {n}"),
                    Some(r) => format!("`{r}` in row {n}"),
                };
                let expected = match apart.expected.as_deref() {
                    None => "no such row".to_string(),
                    Some("") => "a blank row".to_string(),
                    Some(r) => format!("`{r}`"),
                };
                format!(
                    "{when}, the reference's board has {reference}; the scenario expects {expected}"
                )
            }
            (key, _) => format!(
                "{when}, the reference has {key} = {}; the scenario expects {}",
                self.reference, self.expected
            ),
        };
        Diagnostic::new(&scenario.source, self.span.clone(), message)
    }
}

/// Every expectation of `scenario` the reference does not meet, in the order played: each
/// step's `expect`, then its `state` keys, then the `[end]` keys. Play goes on after a
/// mistake, as a run does (the reference's game never departs from itself), so each wrong
/// value is reported, not only the first. A dialogue scenario has none ([module docs](self)).
///
/// Errors: the reference cannot start the scenario's game (its setup is not legal for the
/// engine; the loader refuses such a setup first, so this is broadside's own inconsistency).
pub fn mistakes(scenario: &Scenario) -> Result<Vec<Mistake>, Fault> {
    if scenario.dialogue.is_some() {
        return Ok(Vec::new());
    }
    let rules = &scenario.rules;
    let mut game = reference::Reference::start(rules, &scenario.setup)?;
    let mut out = Vec::new();
    for (i, step) in scenario.steps.iter().enumerate() {
        let answer = reference::act(&mut game, &step.action);
        let action = step.action.describe(rules);
        if let Some(expect) = &step.expect
            && !matches_answer(expect, &answer)
        {
            out.push(Mistake {
                step: Some(i + 1),
                action: Some(action.clone()),
                check: "outcome".into(),
                span: step.expect_span.clone(),
                expected: describe_expect(expect, rules),
                reference: describe_answer(&answer, rules),
                row: None,
            });
        }
        for (check, observed) in unmet(&step.checks, &game) {
            out.push(state_mistake(
                check,
                &observed,
                Some(i + 1),
                Some(action.clone()),
                rules,
            ));
        }
    }
    for (check, observed) in unmet(&scenario.end, &game) {
        out.push(state_mistake(check, &observed, None, None, rules));
    }
    Ok(out)
}

/// The checks whose value the reference's `game` does not have, each with the value it has.
fn unmet<'a>(checks: &'a [Check], game: &crate::engine::Game) -> Vec<(&'a Check, Observed)> {
    checks
        .iter()
        .map(|c| (c, reference::observe(game, c.key)))
        .filter(|(c, o)| !matches_state(&c.expected, o))
        .collect()
}

fn state_mistake(
    check: &Check,
    observed: &Observed,
    step: Option<usize>,
    action: Option<String>,
    rules: &crate::spec::Rules,
) -> Mistake {
    let row = match (&check.expected, observed) {
        (Expected::Board(e), Observed::Board(o)) => row_apart(e, o),
        _ => None,
    };
    Mistake {
        step,
        action,
        check: check.key.name().to_string(),
        span: check.span.clone(),
        expected: describe_expected(&check.expected, rules),
        reference: describe_observed(observed, rules),
        row,
    }
}

/// The first row where `expected` and `drawn` part, trailing spaces aside.
fn row_apart(expected: &[String], drawn: &[String]) -> Option<RowApart> {
    let trimmed = |v: &[String], i: usize| v.get(i).map(|r| r.trim_end().to_string());
    (0..expected.len().max(drawn.len()))
        .map(|i| (i, trimmed(drawn, i), trimmed(expected, i)))
        .find(|(_, d, e)| d != e)
        .map(|(i, reference, expected)| RowApart {
            row: i + 1,
            reference,
            expected,
        })
}

/// [`mistakes`] as errors in the scenario's file, each at its expectation; empty when the
/// reference meets every one. A reference that cannot start the game is one error naming
/// the file.
pub fn check(scenario: &Scenario) -> Vec<Diagnostic> {
    match mistakes(scenario) {
        Ok(found) => found.iter().map(|m| m.diagnostic(scenario)).collect(),
        Err(fault) => vec![Diagnostic::new(
            &scenario.source,
            None,
            format!("the reference cannot start this game: {}", fault.message),
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Source;
    use crate::spec::SpecSet;

    /// colab-6x6's handout example: B2 and B3 make the Submarine.
    const SETUP: &str = r#"assignment = "colab-6x6"

[setup.ships]
Submarine = ["B2", "B3"]
Destroyer = ["D3", "E3", "F3"]
Cruiser   = ["A4", "A5", "A6"]
"#;

    fn load(steps: &str) -> Scenario {
        let text = format!("{SETUP}{steps}");
        crate::scenario::parse(&Source::new("wrong.toml", text), &SpecSet::builtin())
            .unwrap_or_else(|e| panic!("{e:?}"))
    }

    fn one_lines(s: &Scenario) -> Vec<String> {
        check(s).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_scenario_the_reference_passes_has_no_mistake() {
        let s = load(
            r#"
[[steps]]
fire = "B2"
expect = "hit"

[[steps]]
fire = "B3"
expect = { outcome = "sunk", ship = "Submarine" }
state = { remaining = ["Destroyer", "Cruiser"], shots = 2 }

[end]
won = false
"#,
        );
        assert_eq!(mistakes(&s), Ok(Vec::new()));
        assert!(check(&s).is_empty());
    }

    #[test]
    fn a_wrong_outcome_is_refused_at_its_expect_with_both_answers() {
        let s = load(
            r#"
[[steps]]
fire = "B2"
expect = "hit"

[[steps]]
fire = "B3"
expect = "hit"
"#,
        );
        // Line 14 is `expect = "hit"` of the second step; its value starts at column 10.
        assert_eq!(
            one_lines(&s),
            [
                "wrong.toml:14:10: the reference answers sunk (ship: Submarine) here; the scenario expects hit"
            ]
        );
        let m = &mistakes(&s).unwrap()[0];
        assert_eq!((m.step, m.check.as_str()), (Some(2), "outcome"));
        assert_eq!(m.action.as_deref(), Some("fire B3"));
    }

    #[test]
    fn a_wrong_detail_is_refused_though_the_outcome_is_right() {
        let s = load(
            r#"
[[steps]]
fire = "B2"

[[steps]]
fire = "B3"
expect = { outcome = "sunk", ship = "Destroyer" }
"#,
        );
        assert_eq!(
            one_lines(&s),
            [
                "wrong.toml:13:10: the reference answers sunk (ship: Submarine) here; the scenario expects sunk (ship: Destroyer)"
            ]
        );
    }

    #[test]
    fn a_wrong_counter_is_refused_at_its_value_and_play_goes_on() {
        let s = load(
            r#"
[[steps]]
fire = "B2"
state = { shots = 2 }

[[steps]]
fire = "A1"
expect = "hit"

[end]
won = true
"#,
        );
        assert_eq!(
            one_lines(&s),
            [
                "wrong.toml:10:19: after step 1 (fire B2), the reference has shots = 1; the scenario expects 2",
                "wrong.toml:14:10: the reference answers miss here; the scenario expects hit",
                "wrong.toml:17:7: at the end, the reference has won = false; the scenario expects true",
            ]
        );
    }

    #[test]
    fn a_wrong_board_names_the_first_row_that_differs() {
        let s = load(
            r#"
[[steps]]
fire = "A1"
state = { board = """
× . . . . .
. . . . . .
. . . . . .
. . . . . .
. . . . . .
. . . . . .
""" }
"#,
        );
        let lines = one_lines(&s);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0]
                == "wrong.toml:10:19: after step 1 (fire A1), the reference's board has `· . . . . .` in row 1; the scenario expects `× . . . . .`",
            "{lines:?}"
        );
    }

    #[test]
    fn rows_part_where_their_text_differs_trailing_spaces_aside() {
        let rows = |v: &[&str]| v.iter().map(|r| r.to_string()).collect::<Vec<_>>();
        assert_eq!(row_apart(&rows(&["a ", "b"]), &rows(&["a", "b  "])), None);
        assert_eq!(
            row_apart(&rows(&["a", "b"]), &rows(&["a", "c"])),
            Some(RowApart {
                row: 2,
                reference: Some("c".into()),
                expected: Some("b".into()),
            })
        );
        // A drawing one row taller: the row the scenario lacks.
        assert_eq!(
            row_apart(&rows(&["a"]), &rows(&["a", "  "])),
            Some(RowApart {
                row: 2,
                reference: Some(String::new()),
                expected: None,
            })
        );
    }

    #[test]
    fn a_list_of_readings_passes_when_the_reference_gives_one_of_them() {
        // battleboats records both readings of a skipped turn (`skipped-turn-counted`).
        let text = r#"assignment = "battleboats"

[setup]
rows = 5
cols = 5
fleet = [{ name = "boat", length = 3 }]

[setup.ships]
boat = ["(0, 0)", "(0, 1)", "(0, 2)"]

[[steps]]
fire = "(0, 0)"

[[steps]]
fire = "(0, 0)"
expect = "penalty"
decision = "skipped-turn-counted"
state = { turns = [4, 3] }

[[steps]]
fire = "(0, 1)"
decision = "skipped-turn-counted"
state = { turns = [9, 8] }
"#;
        let s = crate::scenario::parse(&Source::new("b.toml", text), &SpecSet::builtin())
            .unwrap_or_else(|e| panic!("{e:?}"));
        let found = mistakes(&s).unwrap();
        // The first list holds the reference's count; the second holds neither reading.
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].step, found[0].check.as_str()), (Some(3), "turns"));
        assert_eq!(found[0].expected, "9 or 8");
    }

    #[test]
    fn the_mistakes_are_the_checks_a_run_on_the_reference_fails() {
        // The harness plays the same scenario on the reference target: the same checks
        // fail, with the same values, in the same order.
        let s = load(
            r#"
[[steps]]
fire = "B2"
expect = "miss"
state = { shots = 1, remaining = ["Destroyer"] }

[[steps]]
fire = "B3"
expect = "sunk"

[[steps]]
fire = "B3"
expect = "hit"

[end]
won = true
shots = 3
"#,
        );
        let found = mistakes(&s).unwrap();
        let run = super::super::run_scenario(&s, &mut reference::Reference::new());
        let failed: Vec<_> = run
            .divergence
            .iter()
            .chain(&run.later)
            .map(|d| {
                (
                    d.step,
                    d.check.clone(),
                    d.expected.clone(),
                    d.actual.clone(),
                )
            })
            .collect();
        let ours: Vec<_> = found
            .iter()
            .map(|m| {
                (
                    m.step,
                    m.check.clone(),
                    m.expected.clone(),
                    m.reference.clone(),
                )
            })
            .collect();
        assert_eq!(ours.len(), 5, "{ours:?}");
        assert_eq!(ours, failed);
    }

    #[test]
    fn a_dialogue_scenario_is_checked_for_its_shape_only() {
        let text = "assignment = \"solo-10x10\"\n\n[dialogue]\nmoves = [\"play\"]\n";
        let s = crate::scenario::parse(&Source::new("d.toml", text), &SpecSet::builtin());
        let s = s.unwrap_or_else(|e| panic!("{e:?}"));
        assert!(s.dialogue.is_some());
        assert_eq!(mistakes(&s), Ok(Vec::new()));
    }
}
