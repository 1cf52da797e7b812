//! `expect`: the outcome (or outcomes, under a decision) and details a step should answer.

use super::{Cx, board_range, on_board};
use crate::cell::{Cell, RawCell};
use crate::engine::{Outcome, QueryValue};
use crate::scenario::model::{Action, Expect};
use crate::scenario::raw::{Atom, Detail, ExpectInput, ExpectTable, Loose};
use crate::spec::{Meaning, Rules};
use std::collections::BTreeSet;
use std::ops::Range;
use toml::Spanned;

/// An expectation with no outcome and no detail yet.
fn blank() -> Expect {
    Expect {
        outcomes: vec![],
        ship: None,
        owner: None,
        count: None,
        cells: None,
        value: None,
    }
}

/// The outcomes an action can answer in this assignment.
fn allowed(action: &Action, rules: &Rules) -> Vec<Outcome> {
    match action {
        Action::Fire { .. } => rules.fire_outcomes(),
        Action::Drone { .. } => vec![
            Outcome::Drone,
            Outcome::UsedUp,
            Outcome::Invalid,
            Outcome::GameOver,
        ],
        Action::Missile { .. } => vec![
            Outcome::Missile,
            Outcome::UsedUp,
            Outcome::Invalid,
            Outcome::GameOver,
        ],
        Action::Place { .. }
        | Action::Probe { .. }
        | Action::RandomLayouts { .. }
        | Action::Query { .. } => vec![Outcome::Ok, Outcome::Rejected],
    }
}

/// Whether the details given are ones `action` reports (`ship`/`owner` with `fire`, `count`
/// with `drone`, `cells` with `missile`, none with the others).
fn details_fit(out: &Expect, action: &Action) -> bool {
    let (ship, count, cells) = (
        out.ship.is_some() || out.owner.is_some(),
        out.count.is_some(),
        out.cells.is_some(),
    );
    match action {
        Action::Fire { .. } => !count && !cells,
        Action::Drone { .. } => !ship && !cells,
        Action::Missile { .. } => !ship && !count,
        _ => !ship && !count && !cells,
    }
}

impl Cx<'_> {
    /// The expectation of a step whose action is `action`: outcome words the action can
    /// answer, details the assignment reports, several words only under a decision.
    pub(super) fn expect(
        &mut self,
        e: &Spanned<ExpectInput>,
        action: &Action,
        rules: &Rules,
        has_decision: bool,
    ) -> Option<Expect> {
        let span = e.span();
        if let Action::Query { meaning, .. } = action {
            return self.query_value(e, *meaning, rules, has_decision);
        }
        let mut out = blank();
        let words: Vec<Atom> = match e.get_ref() {
            ExpectInput::Word(w) => vec![Atom::Word(w.clone())],
            ExpectInput::List(a) => a.clone(),
            ExpectInput::Table(t) => self.table(t, &mut out, span.clone(), rules)?,
            ExpectInput::Bool(_) | ExpectInput::Other => {
                self.err(
                    span,
                    "`expect` must be an outcome word, a list of them, or a table",
                    "e.g. `expect = \"hit\"`",
                );
                return None;
            }
        };
        if words.is_empty() {
            self.err(
                span,
                "`expect` lists no outcome",
                "at least one outcome word",
            );
            return None;
        }
        self.details(&out, action, span.clone(), rules)?;
        out.outcomes = self.outcomes(&words, action, span, rules, has_decision)?;
        Some(out)
    }

    /// Reads an expectation table's details into `out`; returns its outcome words (`drone`
    /// or `missile` implied by `count` or `cells`).
    fn table(
        &mut self,
        t: &ExpectTable,
        out: &mut Expect,
        span: Range<usize>,
        rules: &Rules,
    ) -> Option<Vec<Atom>> {
        for detail in &t.details {
            self.detail(detail, out, span.clone(), rules)?;
        }
        match &t.outcome {
            Some(words) => Some(words.clone()),
            None if out.count.is_some() => Some(vec![Atom::Word("drone".into())]),
            None if out.cells.is_some() => Some(vec![Atom::Word("missile".into())]),
            None => {
                self.err(
                    span,
                    "an expectation table needs `outcome`",
                    "e.g. `{ outcome = \"sunk\", ship = \"Submarine\" }`",
                );
                None
            }
        }
    }

    /// One detail of an expectation table, into `out`.
    fn detail(
        &mut self,
        detail: &Detail,
        out: &mut Expect,
        span: Range<usize>,
        rules: &Rules,
    ) -> Option<()> {
        let wrong = |k: &str, v: &toml::Value| format!("`{k} = {v}` has the wrong kind of value");
        let message = match detail {
            Detail::Ship(Loose::Fit(s)) => {
                out.ship = Some(s.clone());
                return Some(());
            }
            Detail::Owner(Loose::Fit(s)) if rules.player(s).is_some() => {
                out.owner = Some(s.clone());
                return Some(());
            }
            Detail::Count(Loose::Fit(n)) => {
                out.count = Some(*n);
                return Some(());
            }
            Detail::Cells(Loose::Fit(cells)) => {
                out.cells = Some(self.missile_cells(cells, span, rules)?);
                return Some(());
            }
            Detail::Owner(owner) => {
                let shown = match owner {
                    Loose::Fit(s) => s.clone(),
                    Loose::Misfit(v) => v.to_string(),
                };
                self.err(
                    span,
                    format!("`{shown}` is not a player of {}", rules.id),
                    format!("`owner` one of: {}", rules.players.join(", ")),
                );
                return None;
            }
            Detail::Ship(Loose::Misfit(v)) => wrong("ship", v),
            Detail::Count(Loose::Misfit(v)) => wrong("count", v),
            Detail::Cells(Loose::Misfit(v)) => wrong("cells", v),
            Detail::Unknown(k) => {
                self.err(span, format!("`{k}` is not a valid detail here"), "`outcome`, `ship` (a name), `owner` (a player), `count` (a whole number) or `cells` (a table of cell = outcome)");
                return None;
            }
        };
        self.err(
            span,
            message,
            "`ship` a name, `count` a whole number, `cells` a table of cell = outcome",
        );
        None
    }

    /// A missile's `cells = { CELL = OUTCOME, … }`: cells on the board, each with `miss`,
    /// `hit`, `sunk` or `repeated`; sorted by cell.
    fn missile_cells(
        &mut self,
        cells: &[(String, Atom)],
        span: Range<usize>,
        rules: &Rules,
    ) -> Option<Vec<(Cell, Outcome)>> {
        let mut list = Vec::new();
        for (c, o) in cells {
            let input = crate::scenario::raw::CellInput::Notation(c.clone());
            let raw = self.cell(&input, span.clone(), rules)?;
            let Some(cell) = on_board(rules, raw) else {
                self.err(
                    span,
                    format!("missile cell `{c}` is off the board"),
                    board_range(rules),
                );
                return None;
            };
            let Some(o) = o.word().and_then(Outcome::from_word).filter(|o| {
                matches!(
                    o,
                    Outcome::Miss | Outcome::Hit | Outcome::Sunk | Outcome::Repeated
                )
            }) else {
                self.err(
                    span,
                    format!("missile cell `{c}` has no valid outcome"),
                    "\"miss\", \"hit\", \"sunk\" or \"repeated\"",
                );
                return None;
            };
            list.push((cell, o));
        }
        list.sort();
        Some(list)
    }

    /// Checks the details against the action and the assignment: each one the action
    /// reports and the assignment gives, missile cells the missile strikes, a known ship.
    fn details(
        &mut self,
        out: &Expect,
        action: &Action,
        span: Range<usize>,
        rules: &Rules,
    ) -> Option<()> {
        if !details_fit(out, action) {
            self.err(span, "this expectation has a detail its action never reports", "`ship`/`owner` with `fire`, `count` with `drone`, `cells` with `missile`, none with `place`");
            return None;
        }
        for (detail, given) in [
            ("ship", out.ship.is_some()),
            ("owner", out.owner.is_some()),
            ("count", out.count.is_some()),
            ("cells", out.cells.is_some()),
        ] {
            if given && !rules.details.iter().any(|d| d == detail) {
                let shown = if rules.details.is_empty() {
                    "none".to_string()
                } else {
                    rules.details.join(", ")
                };
                self.err(
                    span,
                    format!("{} does not report a `{detail}` with its answers", rules.id),
                    format!("only these details: {shown}"),
                );
                return None;
            }
        }
        if let (Action::Missile { at }, Some(cells)) = (action, &out.cells) {
            self.missile_square(*at, cells, span.clone(), rules)?;
        }
        match &out.ship {
            Some(ship) => self.known_ship(ship, span, rules),
            None => Some(()),
        }
    }

    /// The cells listed for a missile at `at` are the on-board cells of its 3×3 square.
    fn missile_square(
        &mut self,
        at: RawCell,
        cells: &[(Cell, Outcome)],
        span: Range<usize>,
        rules: &Rules,
    ) -> Option<()> {
        let struck: BTreeSet<Cell> = (-1..=1)
            .flat_map(|dr| (-1..=1).map(move |dc| (dr, dc)))
            .filter_map(|(dr, dc)| {
                on_board(
                    rules,
                    RawCell {
                        row: at.row.saturating_add(dr),
                        col: at.col.saturating_add(dc),
                    },
                )
            })
            .collect();
        let listed: BTreeSet<Cell> = cells.iter().map(|(c, _)| *c).collect();
        if listed == struck {
            return Some(());
        }
        let show = |set: BTreeSet<&Cell>| {
            set.into_iter()
                .map(|c| rules.notation.format(RawCell::from(*c)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let missing = show(struck.difference(&listed).collect());
        let extra = show(listed.difference(&struck).collect());
        let message = match (missing.is_empty(), extra.is_empty()) {
            (false, true) => format!("missile `cells` leaves out {missing}"),
            (true, false) => {
                format!("missile `cells` lists {extra}, which the missile does not strike")
            }
            _ => format!("missile `cells` leaves out {missing} and lists {extra}"),
        };
        self.err(
            span,
            message,
            format!(
                "every on-board cell of the 3×3 square around the centre: {}",
                show(struck.iter().collect())
            ),
        );
        None
    }

    /// `ship = NAME` names a ship (by name or kind) of the fleet.
    fn known_ship(&mut self, ship: &str, span: Range<usize>, rules: &Rules) -> Option<()> {
        let ships = || rules.items.iter().filter(|i| !i.grenade);
        if ships().any(|i| i.kind == ship || i.name == ship) {
            return Some(());
        }
        let kinds: BTreeSet<&str> = ships().map(|i| i.kind.as_str()).collect();
        self.err(
            span,
            format!("`{ship}` is not a ship of {}", rules.id),
            format!(
                "one of: {}",
                kinds.into_iter().collect::<Vec<_>>().join(", ")
            ),
        );
        None
    }

    /// The outcome words as outcomes `action` can answer; several only under a decision.
    fn outcomes(
        &mut self,
        words: &[Atom],
        action: &Action,
        span: Range<usize>,
        rules: &Rules,
        has_decision: bool,
    ) -> Option<Vec<Outcome>> {
        let allowed = allowed(action, rules);
        let allowed_words: Vec<&str> = allowed.iter().map(|o| o.word()).collect();
        let mut outcomes = Vec::new();
        for w in words {
            match w.word().and_then(Outcome::from_word) {
                Some(o) if allowed.contains(&o) => outcomes.push(o),
                _ => {
                    self.err(
                        span,
                        format!(
                            "`{}` is not an outcome {} can answer here",
                            w.shown(),
                            rules.id
                        ),
                        format!("one of: {}", allowed_words.join(", ")),
                    );
                    return None;
                }
            }
        }
        if outcomes.len() > 1 && !has_decision {
            self.err(
                span,
                "several accepted outcomes need a recorded ambiguity",
                "`decision = \"<id>\"` naming a spec decision with `accept_also = true`",
            );
            return None;
        }
        Some(outcomes)
    }

    /// The expected answer of a query: `true`/`false`, or a ship name or `"none"`.
    fn query_value(
        &mut self,
        e: &Spanned<ExpectInput>,
        meaning: Meaning,
        rules: &Rules,
        has_decision: bool,
    ) -> Option<Expect> {
        let value = match (meaning, e.get_ref()) {
            (Meaning::ShipAt, ExpectInput::Word(s)) if s == "none" => QueryValue::Ship(None),
            (Meaning::ShipAt, ExpectInput::Word(s))
                if (0..rules.items.len())
                    .any(|i| !rules.items[i].grenade && rules.label(i) == *s) =>
            {
                QueryValue::Ship(Some(s.clone()))
            }
            (Meaning::ShipAt, _) => {
                let names: Vec<String> = (0..rules.items.len())
                    .filter(|&i| !rules.items[i].grenade)
                    .map(|i| rules.label(i))
                    .collect();
                self.err(
                    e.span(),
                    "this query answers with a ship name",
                    format!("one of: {}, or \"none\"", names.join(", ")),
                );
                return None;
            }
            (_, ExpectInput::Bool(b)) => QueryValue::Bool(*b),
            // Both truth values, under an accept_also decision: any true/false answer passes.
            (_, ExpectInput::List(a)) if has_decision && both_truth_values(a) => {
                return Some(Expect {
                    outcomes: vec![Outcome::Ok],
                    ..blank()
                });
            }
            _ => {
                self.err(
                    e.span(),
                    "this query answers true or false",
                    "`expect = true` or `expect = false`",
                );
                return None;
            }
        };
        Some(Expect {
            outcomes: vec![Outcome::Ok],
            value: Some(value),
            ..blank()
        })
    }
}

/// `[true, false]` or `[false, true]`.
fn both_truth_values(list: &[Atom]) -> bool {
    matches!(list, [Atom::Bool(a), Atom::Bool(b)] if a != b)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{COLAB, load, problems};

    fn expect(value: &str) -> Vec<String> {
        problems(&format!(
            "{COLAB}[[steps]]\nfire = \"B2\"\nexpect = {value}\n"
        ))
    }

    #[test]
    fn an_expectation_reads_its_outcome_and_ship() {
        let text = format!(
            "{COLAB}[[steps]]\nfire = \"B2\"\nexpect = \"hit\"\n[[steps]]\nfire = \"B3\"\nexpect = {{ outcome = \"sunk\", ship = \"Submarine\" }}\n"
        );
        let s = load(&text).expect("loads");
        let e = s.steps[1].expect.as_ref().expect("an expectation");
        assert_eq!(e.ship.as_deref(), Some("Submarine"));
        assert_eq!(e.outcomes, [crate::engine::Outcome::Sunk]);
    }

    #[test]
    fn a_detail_of_the_wrong_kind_names_its_value() {
        assert_eq!(
            expect("{ outcome = \"hit\", ship = 3 }"),
            ["`ship = 3` has the wrong kind of value @ { outcome = \"hit\", ship = 3 }"]
        );
    }

    #[test]
    fn an_outcome_that_is_no_word_is_shown_as_written() {
        assert_eq!(
            expect("[\"hit\", 3]"),
            ["`3` is not an outcome colab-6x6 can answer here @ [\"hit\", 3]"]
        );
        assert_eq!(
            expect("true"),
            ["`expect` must be an outcome word, a list of them, or a table @ true"]
        );
    }

    #[test]
    fn a_table_without_outcome_or_an_implied_one_is_reported() {
        assert_eq!(
            expect("{ ship = \"Submarine\" }"),
            ["an expectation table needs `outcome` @ { ship = \"Submarine\" }"]
        );
    }

    #[test]
    fn a_query_answers_true_or_false() {
        let text = "assignment = \"solo-10x10\"\n[[steps]]\nquery = \"ok-to-place\"\nat = \"(0, 0)\"\nexpect = \"hit\"\n";
        let found = problems(text);
        assert!(
            found == ["this query answers true or false @ \"hit\""]
                || found.iter().any(|p| p.contains("has no query")),
            "{found:?}"
        );
    }
}
