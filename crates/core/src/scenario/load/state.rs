//! `state = { … }` and `[end]`: the observable keys checked after a step or at the end.

use super::{Cx, board_range, on_board};
use crate::scenario::model::{Check, Expected};
use crate::scenario::raw::{CellInput, Loose, OneOrMany, RawState, StateValue};
use crate::spec::{Rules, StateKey};
use std::collections::BTreeSet;
use std::ops::Range;
use toml::Spanned;

/// The message and hint for several accepted values without an `accept_also` decision.
const NEEDS_DECISION: (&str, &str) = (
    "several accepted values need a recorded ambiguity",
    "`decision = \"<id>\"` naming a spec decision with `accept_also = true`",
);

impl Cx<'_> {
    /// The checks of a `state` or `[end]` table, in key order; a key the assignment cannot
    /// observe, or a value it cannot take, is reported and left out.
    pub(super) fn checks(
        &mut self,
        st: &RawState,
        rules: &Rules,
        decision: Option<String>,
    ) -> Vec<Check> {
        let mut checks = Vec::new();
        for (key, value) in &st.entries {
            let span = value.span();
            if !rules.observes(*key) {
                let keys: Vec<&str> = rules.observe.iter().map(|k| k.name()).collect();
                self.err(
                    span,
                    format!("{} cannot observe `{key}`", rules.id),
                    format!("one of: {}", keys.join(", ")),
                );
                continue;
            }
            let line = self.line(&span);
            if let Some(expected) = self.state_value(*key, value, rules, decision.is_some()) {
                checks.push(Check {
                    key: *key,
                    expected,
                    line,
                    span: Some(span),
                });
            }
        }
        checks
    }

    /// The expected value of one state key, checked against the spec.
    fn state_value(
        &mut self,
        key: StateKey,
        value: &Spanned<StateValue>,
        rules: &Rules,
        has_decision: bool,
    ) -> Option<Expected> {
        let span = value.span();
        match value.get_ref() {
            StateValue::Names(names) => self.names(key, names, span, rules),
            StateValue::Flags(flags) => self.flags(key, flags, span, has_decision),
            StateValue::Counts(counts) => self.counts(key, counts, span, has_decision),
            StateValue::Players(players) => self.players(key, players, span, rules, has_decision),
            StateValue::Cells(cells) => self.targeted(cells, span, rules),
            StateValue::Board(board) => self.board(board, span, rules),
        }
    }

    /// Several accepted values need a decision; reports it and returns `false` if missing.
    fn alternatives_allowed(
        &mut self,
        len: usize,
        has_decision: bool,
        span: &Range<usize>,
    ) -> bool {
        if len > 1 && !has_decision {
            self.err(span.clone(), NEEDS_DECISION.0, NEEDS_DECISION.1);
            return false;
        }
        true
    }

    /// `remaining`, `sunk`: distinct names of the fleet's ships.
    fn names(
        &mut self,
        key: StateKey,
        names: &Loose<Vec<String>>,
        span: Range<usize>,
        rules: &Rules,
    ) -> Option<Expected> {
        let Loose::Fit(names) = names else {
            self.err(
                span,
                format!("`{key}` must be a list of ship names"),
                "e.g. [\"Destroyer\", \"Cruiser\"]",
            );
            return None;
        };
        let labels: Vec<String> = (0..rules.items.len())
            .filter(|&i| !rules.items[i].grenade)
            .map(|i| rules.label(i))
            .collect();
        let distinct: BTreeSet<&String> = names.iter().collect();
        if distinct.len() != names.len() {
            self.err(
                span,
                format!("`{key}` names a ship twice"),
                "each ship at most once",
            );
            return None;
        }
        if let Some(bad) = names.iter().find(|n| !labels.contains(n)) {
            self.err(
                span,
                format!("`{bad}` is not a ship of {}", rules.id),
                format!("names from: {}", labels.join(", ")),
            );
            return None;
        }
        Some(Expected::Names(names.clone()))
    }

    /// `won`, `lost`: `true` or `false`, or under a decision a list of them.
    fn flags(
        &mut self,
        key: StateKey,
        flags: &Loose<OneOrMany<bool>>,
        span: Range<usize>,
        has_decision: bool,
    ) -> Option<Expected> {
        match flags.clone().fit().map(OneOrMany::into_vec) {
            Some(l) if !l.is_empty() => self
                .alternatives_allowed(l.len(), has_decision, &span)
                .then_some(Expected::Bool(l)),
            _ => {
                self.err(
                    span,
                    format!("`{key}` must be true or false"),
                    "`true` or `false` (or, under a decision, `[false, true]`)",
                );
                None
            }
        }
    }

    /// `shots`, `turns`, `moves`: a count, or under a decision a list of them.
    fn counts(
        &mut self,
        key: StateKey,
        counts: &Loose<OneOrMany<u32>>,
        span: Range<usize>,
        has_decision: bool,
    ) -> Option<Expected> {
        match counts.clone().fit().map(OneOrMany::into_vec) {
            Some(l) if l.len() > 1 && !has_decision => {
                self.err(span, NEEDS_DECISION.0, NEEDS_DECISION.1);
                None
            }
            Some(l) if !l.is_empty() => Some(Expected::Count(l)),
            _ => {
                self.err(
                    span,
                    format!("`{key}` must be a whole number from 0 to {}", u32::MAX),
                    "a count of 0 or more",
                );
                None
            }
        }
    }

    /// `next`, `winner`: a player (`winner` also `"none"`), or under a decision a list.
    fn players(
        &mut self,
        key: StateKey,
        players: &Loose<OneOrMany<String>>,
        span: Range<usize>,
        rules: &Rules,
        has_decision: bool,
    ) -> Option<Expected> {
        let one = |p: &String| match p.as_str() {
            "none" if key == StateKey::Winner => Some(None),
            p if rules.player(p).is_some() => Some(Some(p.to_string())),
            _ => None,
        };
        let list: Option<Vec<Option<String>>> = players
            .clone()
            .fit()
            .map(OneOrMany::into_vec)
            .filter(|l| !l.is_empty())
            .and_then(|l| l.iter().map(one).collect());
        if let Some(l) = list {
            return self
                .alternatives_allowed(l.len(), has_decision, &span)
                .then_some(Expected::Player(l));
        }
        let extra = if key == StateKey::Winner {
            ", or \"none\""
        } else {
            ""
        };
        self.err(
            span,
            format!("`{key}` must name a player"),
            format!("one of: {}{extra}", rules.players.join(", ")),
        );
        None
    }

    /// `targeted`: a list of cells on the board.
    fn targeted(
        &mut self,
        cells: &Loose<Vec<CellInput>>,
        span: Range<usize>,
        rules: &Rules,
    ) -> Option<Expected> {
        let Loose::Fit(list) = cells else {
            self.err(
                span,
                "`targeted` must be a list of cells",
                format!("e.g. [\"{}\"]", rules.notation.example()),
            );
            return None;
        };
        let mut set = BTreeSet::new();
        for c in list {
            let raw = self.cell(c, span.clone(), rules)?;
            let Some(cell) = on_board(rules, raw) else {
                self.err(
                    span,
                    format!(
                        "targeted cell {} is off the board",
                        rules.notation.format(raw)
                    ),
                    board_range(rules),
                );
                return None;
            };
            set.insert(cell);
        }
        Some(Expected::Cells(set))
    }

    /// `board`: the rendered grid, one row per line, in the handout's alphabet.
    fn board(
        &mut self,
        board: &Loose<String>,
        span: Range<usize>,
        rules: &Rules,
    ) -> Option<Expected> {
        let Loose::Fit(text) = board else {
            self.err(
                span,
                "`board` must be a string",
                "a multi-line string, one row per line",
            );
            return None;
        };
        let rows = board_rows(text);
        if let Some((i, why)) = rows
            .iter()
            .enumerate()
            .find_map(|(i, r)| bad_row(r, rules).map(|w| (i, w)))
        {
            self.err(
                span,
                format!("`board` row {} {why}", i + 1),
                board_alphabet(rules),
            );
            return None;
        }
        if rows.len() != usize::from(rules.rows) {
            self.err(
                span,
                format!(
                    "`board` has {} row{}",
                    rows.len(),
                    if rows.len() == 1 { "" } else { "s" }
                ),
                format!("{} rows, one per line", rules.rows),
            );
            return None;
        }
        Some(Expected::Board(rows))
    }
}

/// Rows of a board string, one per line, trailing spaces ignored (a board whose untried
/// glyph is a space keeps its blank rows).
pub(super) fn board_rows(text: &str) -> Vec<String> {
    text.lines().map(|l| l.trim_end().to_string()).collect()
}

/// The glyphs a board of this assignment may show.
pub(super) fn glyphs(rules: &Rules) -> BTreeSet<&str> {
    let d = &rules.display;
    let mut g: BTreeSet<&str> = [&d.untried, &d.miss, &d.hit, &d.sunk, &d.ship, &d.grenade]
        .into_iter()
        .map(String::as_str)
        .collect();
    g.extend(d.sunk_by_kind.values().map(String::as_str));
    g.extend(
        d.players
            .iter()
            .flatten()
            .flat_map(|(h, gr)| [h.as_str(), gr.as_str()]),
    );
    g
}

pub(super) fn board_alphabet(rules: &Rules) -> String {
    let sep = if rules.display.separator.is_empty() {
        "no separator".to_string()
    } else {
        format!("separated by {:?}", rules.display.separator)
    };
    let shown: Vec<String> = glyphs(rules)
        .into_iter()
        .map(|g| format!("{g:?}"))
        .collect();
    format!(
        "{} cells per row from {}, {sep}",
        rules.cols,
        shown.join(" ")
    )
}

/// Why a board row cannot be one of this assignment's rows (trailing spaces already trimmed).
pub(super) fn bad_row(row: &str, rules: &Rules) -> Option<String> {
    let glyphs = glyphs(rules);
    let sep = &rules.display.separator;
    let cells: Vec<String> = if sep.is_empty() {
        row.chars().map(String::from).collect()
    } else {
        row.split(sep.as_str()).map(String::from).collect()
    };
    let cols = usize::from(rules.cols);
    let width_ok = if sep.is_empty() {
        cells.len() <= cols
    } else {
        cells.len() == cols
    };
    if !width_ok {
        return Some(format!("has {} cells", cells.len()));
    }
    cells
        .iter()
        .find(|c| !glyphs.contains(c.as_str()))
        .map(|c| format!("has `{c}`, which the board never shows"))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{COLAB, load, problems};
    use crate::scenario::Expected;

    fn end(body: &str) -> Result<crate::scenario::Scenario, Vec<String>> {
        load(&format!("{COLAB}[end]\n{body}\n"))
    }

    #[test]
    fn end_keys_are_checked_in_key_order() {
        let s = end("shots = 0\nremaining = [\"Submarine\"]\nwon = false").expect("loads");
        let keys: Vec<&str> = s.end.iter().map(|c| c.key.name()).collect();
        assert_eq!(keys, ["remaining", "won", "shots"]);
        assert_eq!(s.end[2].expected, Expected::Count(vec![0]));
    }

    #[test]
    fn several_accepted_values_need_a_decision() {
        assert_eq!(
            end("shots = [1, 2]").expect_err("no decision"),
            ["several accepted values need a recorded ambiguity @ [1, 2]"]
        );
        assert_eq!(
            end("won = [true, false]").expect_err("no decision"),
            ["several accepted values need a recorded ambiguity @ [true, false]"]
        );
    }

    #[test]
    fn a_state_value_of_the_wrong_kind_is_reported_at_the_value() {
        assert_eq!(
            end("shots = -1\nwon = []\nsunk = \"Submarine\"").expect_err("bad values"),
            [
                "`shots` must be a whole number from 0 to 4294967295 @ -1",
                "`won` must be true or false @ []",
                "`sunk` must be a list of ship names @ \"Submarine\"",
            ]
        );
    }

    #[test]
    fn targeted_cells_must_be_on_the_board() {
        assert_eq!(
            problems(&format!("{COLAB}[end]\ntargeted = [\"A1\", [6, 0]]\n")),
            ["targeted cell G1 is off the board @ [\"A1\", [6, 0]]"]
        );
    }

    #[test]
    fn board_rows_drop_trailing_spaces() {
        assert_eq!(super::board_rows("a b  \n\nc"), ["a b", "", "c"]);
    }
}
