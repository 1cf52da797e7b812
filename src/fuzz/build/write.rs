//! Writes a played plan as a scenario file, built as a `toml_edit` document (as trycmd writes
//! its case files) rather than line by line: the library quotes keys and strings, so a ship or
//! player name that needs quoting is quoted, and a board is a multi-line string.
//!
//! [`Writer::expected`] and [`Writer::checks`] in the parent module build the same
//! expectations in memory; `tests/fuzz.rs` holds the file and the memory equal.

use super::{Provenance, Reading, Writer, Written, shell_word};
use crate::cell::RawCell;
use crate::engine::{Axis, Dir, QueryValue};
use crate::scenario::Action;
use crate::spec::StateKey;
use crate::target::Observed;
use toml_edit::{Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, Value, value};

impl Writer<'_> {
    /// The scenario file: the header naming `from` (when given), the setup, each step with
    /// its `expect` and `state`, and `[end]` with the state keys of mask `end`.
    pub(super) fn write(&self, end: u16, from: Option<&Provenance>) -> String {
        let rules = self.rules;
        let mut doc = DocumentMut::new();
        doc["assignment"] = value(rules.id.as_str());
        if self.with_mode {
            doc["mode"] = value(rules.mode.as_str());
        }
        if let Some(p) = from {
            let version = env!("CARGO_PKG_VERSION");
            doc["title"] = value(format!(
                "fuzz counterexample: seed {}, case {}",
                p.seed, p.case
            ));
            doc["tags"] = value(Array::from_iter(["fuzz"]));
            doc["description"] = value(format!(
                "Found by broadside {version} fuzz with seed {} against {}; expected outcomes and state are the reference's.",
                p.seed, p.target
            ));
            if let Some(mut k) = doc.key_mut("assignment") {
                k.leaf_decor_mut().set_prefix(self.header(p));
            }
        }
        if let Some(setup) = self.setup() {
            doc["setup"] = Item::Table(setup);
        }
        let mut steps = ArrayOfTables::new();
        let mut off_board_total = 0;
        for s in &self.steps {
            steps.push(self.step(s));
            off_board_total = s.off_board;
        }
        if !steps.is_empty() {
            doc["steps"] = Item::ArrayOfTables(steps);
        }
        let end_state = self.observe(end);
        if !end_state.is_empty() {
            let mut decision = None;
            let state = self.state(&end_state, off_board_total, &mut decision);
            let mut t = Table::new();
            if let Some(d) = decision.and_then(|d| d.decision(rules, "")) {
                t["decision"] = value(d);
            }
            for (k, v) in state {
                t[k.name()] = value(v);
            }
            doc["end"] = Item::Table(t);
        }
        doc.to_string()
    }

    /// The comment lines above `assignment`: where the counterexample came from and the two
    /// commands that reproduce and replay it.
    fn header(&self, p: &Provenance) -> String {
        let version = env!("CARGO_PKG_VERSION");
        let steps = self.steps.len();
        let mut budget = p.cases.map_or(String::new(), |n| format!(" --cases {n}"));
        if let Some(m) = &p.mode {
            budget.push_str(&format!(" --mode {}", shell_word(m)));
        }
        let target = shell_word(&p.target);
        [
            format!(
                "# A counterexample found by `broadside fuzz` (broadside {version}): the reference's answers,"
            ),
            format!(
                "# which {} did not give. Seed {}, case {}, shrunk to {steps} step{}.",
                p.target,
                p.seed,
                p.case,
                if steps == 1 { "" } else { "s" }
            ),
            format!(
                "# Reproduce: broadside fuzz --assignment {} --target {target}{budget} --seed {}",
                self.rules.id, p.seed
            ),
            format!("# Replay:    broadside run THIS_FILE --target {target}"),
        ]
        .map(|line| line + "\n")
        .concat()
    }

    /// `[setup]`: who moves first, then `[setup.ships]` (one player) or
    /// `[setup.players.NAME]` (two); `None` when there is nothing to set.
    fn setup(&self) -> Option<Table> {
        let rules = self.rules;
        let mut setup = Table::new();
        setup.set_implicit(true);
        if let Some(p) = self.plan.first {
            setup["first"] = value(rules.players[p].as_str());
        }
        let cells = |cells: &[crate::cell::Cell]| -> Array {
            cells.iter().map(|c| self.cell((*c).into())).collect()
        };
        if rules.players.len() == 1 {
            if !self.plan.setup.is_empty() {
                let mut ships = Table::new();
                for (i, c) in &self.plan.setup {
                    ships[rules.items[*i].name.as_str()] = value(cells(c));
                }
                setup["ships"] = Item::Table(ships);
            }
        } else {
            let mut players = Table::new();
            players.set_implicit(true);
            for (p, name) in rules.players.iter().enumerate() {
                let of = |grenade: bool| -> Array {
                    self.plan
                        .setup
                        .iter()
                        .filter(|(i, _)| {
                            rules.items[*i].owner == p && rules.items[*i].grenade == grenade
                        })
                        .map(|(_, c)| cells(c))
                        .collect()
                };
                let (ships, grenades) = (of(false), of(true));
                let mut t = Table::new();
                if !ships.is_empty() {
                    t["ships"] = value(ships);
                }
                if !grenades.is_empty() {
                    t["grenades"] = value(grenades);
                }
                if !t.is_empty() {
                    players[name.as_str()] = Item::Table(t);
                }
            }
            if !players.is_empty() {
                setup["players"] = Item::Table(players);
            }
        }
        (!setup.is_empty()).then_some(setup)
    }

    /// One `[[steps]]` table: the action, `expect`, the decision it rests on, and `state`.
    fn step(&self, s: &Written) -> Table {
        let mut t = Table::new();
        self.action(&mut t, &s.action);
        t["expect"] = value(self.expect(s));
        let mut decision = s.either;
        let state = self.state(&s.state, s.off_board, &mut decision);
        if let Some(d) = decision.and_then(|d| d.decision(self.rules, s.action_name())) {
            t["decision"] = value(d);
        }
        if !state.is_empty() {
            let mut inline = InlineTable::new();
            for (k, v) in state {
                inline.insert(k.name(), v);
            }
            t["state"] = value(inline);
        }
        t
    }

    /// A cell in the assignment's notation, or a raw `[row, col]` pair off the board.
    fn cell(&self, c: RawCell) -> Value {
        match self.rules.cell(c) {
            Some(_) => Value::from(self.rules.notation.format(c)),
            None => Value::Array(Array::from_iter([c.row, c.col])),
        }
    }

    /// The action's keys of a step table.
    fn action(&self, t: &mut Table, action: &Action) {
        let rules = self.rules;
        match action {
            Action::Fire { player, at } => {
                if let Some(p) = player {
                    t["player"] = value(rules.players[*p].as_str());
                }
                t["fire"] = value(self.cell(*at));
            }
            Action::Drone { axis, index } => {
                let axis = match axis {
                    Axis::Row => "row",
                    Axis::Col => "col",
                };
                let mut drone = InlineTable::new();
                drone.insert(axis, Value::from(*index));
                t["drone"] = value(drone);
            }
            Action::Missile { at } => t["missile"] = value(self.cell(*at)),
            Action::Place { item, at, dir } => {
                let def = &rules.items[*item];
                let mut place = InlineTable::new();
                place.insert("ship", Value::from(def.name.as_str()));
                place.insert("at", self.cell(*at));
                place.insert("dir", Value::from(dir_word(*dir)));
                if rules.players.len() > 1 {
                    place.insert("player", Value::from(rules.players[def.owner].as_str()));
                }
                t["place"] = value(place);
            }
            Action::Query { name, at, .. } => {
                t["query"] = value(name.as_str());
                t["at"] = value(self.cell(*at));
            }
            Action::Probe { name } => t["probe"] = value(name.as_str()),
            Action::RandomLayouts { count } => {
                t["random_layouts"] = value(i64::from(*count));
            }
        }
    }

    /// The `expect` value: the reference's answer with the details the spec reports.
    fn expect(&self, s: &Written) -> Value {
        let rules = self.rules;
        let a = &s.answer;
        if let Some(v) = &a.value {
            if s.either == Some(Reading::EitherBool) {
                return Value::Array(Array::from_iter([true, false]));
            }
            return match v {
                QueryValue::Bool(b) => Value::from(*b),
                QueryValue::Ship(Some(n)) => Value::from(n.as_str()),
                QueryValue::Ship(None) => Value::from("none"),
            };
        }
        let word = a.outcome.word();
        if s.either == Some(Reading::OffBoardMiss) {
            return Value::Array(Array::from_iter([word, "miss"]));
        }
        let has = |d: &str| rules.details.iter().any(|x| x == d);
        let mut details = InlineTable::new();
        match &s.action {
            Action::Fire { .. } => {
                if let (true, Some(ship)) = (has("ship"), &a.ship) {
                    details.insert("ship", Value::from(ship.as_str()));
                }
                if let (true, Some(owner)) = (has("owner"), &a.owner) {
                    details.insert("owner", Value::from(owner.as_str()));
                }
            }
            Action::Drone { .. } => {
                if let (true, Some(count)) = (has("count"), a.count) {
                    details.insert("count", Value::from(i64::from(count)));
                }
            }
            Action::Missile { .. } if has("cells") && !a.cells.is_empty() => {
                let mut cells = InlineTable::new();
                for (c, o) in &a.cells {
                    cells.insert(rules.notation.format((*c).into()), Value::from(o.word()));
                }
                details.insert("cells", Value::InlineTable(cells));
            }
            _ => {}
        }
        if details.is_empty() {
            return Value::from(word);
        }
        let mut e = InlineTable::new();
        e.insert("outcome", Value::from(word));
        e.extend(details);
        Value::InlineTable(e)
    }

    /// The keys and values of a `state` table or `[end]`. A count that the other reading of
    /// `off-board-call` would make larger lists both values under that decision, unless the
    /// step already names another decision (then the count is left unchecked).
    fn state(
        &self,
        state: &[(StateKey, Observed)],
        off_board: u32,
        decision: &mut Option<Reading>,
    ) -> Vec<(StateKey, Value)> {
        let rules = self.rules;
        let mut out = Vec::new();
        for (k, v) in state {
            let value = match v {
                Observed::Names(n) => Value::Array(n.iter().map(String::as_str).collect()),
                Observed::Bool(b) => Value::from(*b),
                Observed::Count(n) if *k == StateKey::Shots && off_board > 0 => {
                    match decision {
                        Some(d) if *d != Reading::OffBoardMiss => continue,
                        _ => {}
                    }
                    *decision = Some(Reading::OffBoardMiss);
                    Value::Array(Array::from_iter([i64::from(*n), i64::from(n + off_board)]))
                }
                Observed::Count(n) => Value::from(i64::from(*n)),
                Observed::Player(p) => Value::from(p.as_deref().unwrap_or("none")),
                Observed::Cells(c) => Value::Array(
                    c.iter()
                        .map(|c| rules.notation.format((*c).into()))
                        .collect(),
                ),
                // One row a line; the library picks the quoting (a multi-line string where
                // the rows allow one).
                Observed::Board(rows) => Value::from(rows.join("\n") + "\n"),
                // The reference never answers so: nothing to expect.
                Observed::Failed(_) => continue,
            };
            out.push((*k, value));
        }
        out
    }
}

fn dir_word(d: Dir) -> &'static str {
    match d {
        Dir::Right => "right",
        Dir::Down => "down",
        Dir::Left => "left",
        Dir::Up => "up",
    }
}
