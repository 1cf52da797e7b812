//! `[[steps]]`: one action each (`fire`, `drone`, `missile`, `place`, `query`, `probe`,
//! `random_layouts`), with what to expect after it.

use super::{Cx, board_range, has_alternatives, on_board};
use crate::engine::{Axis, Dir};
use crate::scenario::model::{Action, Check, Step};
use crate::scenario::raw::{CellInput, DirInput, DroneInput, Loose, PlaceInput};
use crate::scenario::schema::RawStep;
use crate::spec::{Meaning, Rules};
use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::Arc;
use toml::Spanned;

/// The one action a step gives, as written.
enum Given<'a> {
    Fire(&'a Spanned<CellInput>),
    Drone(&'a Spanned<DroneInput>),
    Missile(&'a Spanned<CellInput>),
    Place(&'a Spanned<PlaceInput>),
    Query(&'a Spanned<Loose<String>>),
    Probe(&'a Spanned<Loose<String>>),
    RandomLayouts(&'a Spanned<Loose<u32>>),
}

/// Every action key a step gives, in the order the schema lists them.
fn given(s: &RawStep) -> Vec<Given<'_>> {
    let parts = [
        s.fire.as_ref().map(Given::Fire),
        s.drone.as_ref().map(Given::Drone),
        s.missile.as_ref().map(Given::Missile),
        s.place.as_ref().map(Given::Place),
        s.query.as_ref().map(Given::Query),
        s.probe.as_ref().map(Given::Probe),
        s.random_layouts.as_ref().map(Given::RandomLayouts),
    ];
    parts.into_iter().flatten().collect()
}

impl Cx<'_> {
    /// One step: exactly one action the assignment has, its expectation and its `state`
    /// checks; `placed` tracks the ships `place` steps have placed so far.
    pub(super) fn step(
        &mut self,
        raw: &Spanned<RawStep>,
        rules: &Arc<Rules>,
        placed: &mut BTreeSet<usize>,
    ) -> Option<Step> {
        let span = raw.span();
        let line = self.line(&span);
        let s = raw.get_ref();
        // A decision that does not check is reported once; the step is still read as if it
        // did, so its alternatives do not cascade into a second error.
        let decision = self
            .decision(s.decision.as_ref(), rules)
            .or(s.decision.as_ref().map(|d| d.get_ref().clone()));
        let given = given(s);
        let [action] = given.as_slice() else {
            let what = if given.is_empty() {
                "a step has no action".to_string()
            } else {
                format!("a step has {} actions", given.len())
            };
            self.err(
                span,
                what,
                "exactly one of `fire`, `drone`, `missile`, `place`, `query`, `probe`, `random_layouts`",
            );
            return None;
        };
        self.stray_keys(s, action, rules);
        let action = self.action(action, s, span, rules, placed)?;
        let expect = s
            .expect
            .as_ref()
            .and_then(|e| self.expect(e, &action, rules, decision.is_some()));
        let checks = self.step_state(s, rules, decision);
        // A query whose answer may be either truth value counts as a list of two.
        let either = matches!(action, Action::Query { .. })
            && expect.as_ref().is_some_and(|e| e.value.is_none());
        let lists = expect.as_ref().is_some_and(|e| e.outcomes.len() > 1)
            || has_alternatives(&checks)
            || either;
        self.decision_needs_a_list(s.decision.as_ref(), lists);
        Some(Step {
            line,
            action,
            expect_span: expect.as_ref().and(s.expect.as_ref()).map(Spanned::span),
            expect,
            note: s.note.clone(),
            checks,
        })
    }

    /// A step's `state = { … }` checks, under the step's `decision`.
    fn step_state(&mut self, s: &RawStep, rules: &Rules, decision: Option<String>) -> Vec<Check> {
        let Some(st) = &s.state else {
            return Vec::new();
        };
        if let Some(d) = &st.get_ref().decision {
            self.err(
                d.span(),
                "`decision` inside `state` is not read",
                "`decision = \"…\"` on the step itself",
            );
        }
        self.checks(st.get_ref(), rules, decision)
    }

    /// `player` beside anything but a two-player `fire`, `at` beside anything but `query`.
    fn stray_keys(&mut self, s: &RawStep, action: &Given, rules: &Rules) {
        if let Some(p) = &s.player
            && (!matches!(action, Given::Fire(_)) || rules.players.len() < 2)
        {
            self.err(
                p.span(),
                "`player` is only for `fire` in two-player games",
                "no `player` here",
            );
        }
        if let Some(a) = &s.at
            && !matches!(action, Given::Query(_))
        {
            self.err(
                a.span(),
                "`at` is only for `query` steps",
                "the cell inside the action, e.g. `fire = \"B3\"`",
            );
        }
    }

    /// The step's action, checked against what the assignment has.
    fn action(
        &mut self,
        given: &Given,
        s: &RawStep,
        step: Range<usize>,
        rules: &Arc<Rules>,
        placed: &mut BTreeSet<usize>,
    ) -> Option<Action> {
        match *given {
            Given::Query(name) => self.query(name, s.at.as_ref(), step, rules),
            Given::Probe(name) => self.probe(name, rules),
            Given::RandomLayouts(count) => self.random_layouts(count, rules),
            Given::Fire(at) => self.fire(at, s.player.as_ref(), rules),
            Given::Drone(d) => self.drone(d, rules),
            Given::Missile(at) => self.missile(at, rules),
            Given::Place(p) if !rules.place_steps => {
                self.err(
                    p.span(),
                    format!("{} students write no placement code to call", rules.id),
                    "ships in [setup] (this assignment's handout gives a valid fleet)",
                );
                None
            }
            Given::Place(p) => {
                let rejected = s
                    .expect
                    .as_ref()
                    .is_some_and(|e| e.get_ref().only_rejection());
                self.place(p, rules, placed, rejected)
            }
        }
    }

    /// A `query` or `probe` name the spec does not define.
    fn unknown_name(
        &mut self,
        span: Range<usize>,
        rules: &Rules,
        what: &str,
        name: &str,
        names: &[&str],
    ) {
        let expected = if names.is_empty() {
            format!("no `{what}` (this assignment has none)")
        } else {
            format!("one of: {}", names.join(", "))
        };
        self.err(
            span,
            format!("{} has no {what} `{name}`", rules.id),
            expected,
        );
    }

    /// A `query = NAME` step with its `at` cell (on the board unless the query is about
    /// validity, targeting or the ship at a cell).
    fn query(
        &mut self,
        value: &Spanned<Loose<String>>,
        at: Option<&Spanned<CellInput>>,
        step: Range<usize>,
        rules: &Rules,
    ) -> Option<Action> {
        let name = name_of(value);
        let Some(q) = rules.query(name) else {
            let names: Vec<&str> = rules.queries.iter().map(|q| q.name.as_str()).collect();
            self.unknown_name(value.span(), rules, "query", name, &names);
            return None;
        };
        let Some(at_value) = at else {
            self.err(
                step,
                format!("query `{name}` needs the cell it asks about"),
                format!("`at = \"{}\"`", rules.notation.example()),
            );
            return None;
        };
        let cell = self.cell(at_value.get_ref(), at_value.span(), rules)?;
        let off_ok = matches!(
            q.meaning,
            Meaning::Valid | Meaning::Targeted | Meaning::ShipAt
        );
        if !off_ok && on_board(rules, cell).is_none() {
            self.err(
                at_value.span(),
                format!(
                    "`{}` takes a cell on the board (the handout assumes one)",
                    q.function
                ),
                board_range(rules),
            );
            return None;
        }
        Some(Action::Query {
            name: name.to_string(),
            meaning: q.meaning,
            at: cell,
        })
    }

    /// A `probe = NAME` step: a whole-function check the spec defines.
    fn probe(&mut self, value: &Spanned<Loose<String>>, rules: &Rules) -> Option<Action> {
        let name = name_of(value);
        if rules.probe(name).is_none() {
            let names: Vec<&str> = rules.probes.iter().map(|p| p.name.as_str()).collect();
            self.unknown_name(value.span(), rules, "probe", name, &names);
            return None;
        }
        Some(Action::Probe {
            name: name.to_string(),
        })
    }

    /// A `random_layouts = N` step: 2 to 10,000 fleets from the student's function.
    fn random_layouts(&mut self, value: &Spanned<Loose<u32>>, rules: &Rules) -> Option<Action> {
        if rules.random_layout.is_none() {
            self.err(
                value.span(),
                format!("{} students write no random-fleet function", rules.id),
                "no `random_layouts` step",
            );
            return None;
        }
        match value.get_ref() {
            Loose::Fit(count) if (2..=10_000).contains(count) => {
                Some(Action::RandomLayouts { count: *count })
            }
            _ => {
                self.err(
                    value.span(),
                    "`random_layouts` is how many fleets to draw",
                    "a whole number from 2 to 10000",
                );
                None
            }
        }
    }

    /// A `fire = CELL` step, with its `player` in a two-player game.
    fn fire(
        &mut self,
        at: &Spanned<CellInput>,
        player: Option<&Spanned<String>>,
        rules: &Rules,
    ) -> Option<Action> {
        let at = self.cell(at.get_ref(), at.span(), rules)?;
        let player = match player {
            Some(p) if rules.players.len() > 1 => match rules.player(p.get_ref()) {
                Some(i) => Some(i),
                None => {
                    self.err(
                        p.span(),
                        format!("unknown player `{}`", p.get_ref()),
                        format!("one of: {}", rules.players.join(", ")),
                    );
                    return None;
                }
            },
            _ => None,
        };
        Some(Action::Fire { player, at })
    }

    /// A `drone = { row = N } | { col = N }` step, where the assignment has a drone.
    fn drone(&mut self, value: &Spanned<DroneInput>, rules: &Rules) -> Option<Action> {
        if rules.drone_uses.is_none() {
            self.err(
                value.span(),
                format!("{} has no drone", rules.id),
                "`fire` (this assignment has no powers)",
            );
            return None;
        }
        match *value.get_ref() {
            DroneInput::Row(index) => Some(Action::Drone {
                axis: Axis::Row,
                index,
            }),
            DroneInput::Col(index) => Some(Action::Drone {
                axis: Axis::Col,
                index,
            }),
            DroneInput::Malformed => {
                self.err(
                    value.span(),
                    "a drone scans one row or one column",
                    "`{ row = N }` or `{ col = N }`, zero-based",
                );
                None
            }
        }
    }

    /// A `missile = CELL` step, where the assignment has a missile.
    fn missile(&mut self, at: &Spanned<CellInput>, rules: &Rules) -> Option<Action> {
        if rules.missile_uses.is_none() {
            self.err(
                at.span(),
                format!("{} has no missile", rules.id),
                "`fire` (this assignment has no missile)",
            );
            return None;
        }
        Some(Action::Missile {
            at: self.cell(at.get_ref(), at.span(), rules)?,
        })
    }

    /// A `place = { ship, at, dir, player }` step. `rejected`: the step expects only
    /// `rejected`, so the ship stays to place.
    fn place(
        &mut self,
        value: &Spanned<PlaceInput>,
        rules: &Arc<Rules>,
        placed: &mut BTreeSet<usize>,
        rejected: bool,
    ) -> Option<Action> {
        let span = value.span();
        let PlaceInput::Table {
            ship,
            at,
            dir,
            player,
            unknown,
        } = value.get_ref()
        else {
            self.err(
                span,
                "`place` must be a table",
                "`{ ship = NAME, at = CELL, dir = \"right\" }`",
            );
            return None;
        };
        if let Some(k) = unknown {
            self.err(
                span,
                format!("unknown key `{k}` in `place`"),
                "`ship`, `at`, `dir` and (two-player games) `player`",
            );
            return None;
        }
        let owner = self.place_owner(player.as_ref(), span.clone(), rules)?;
        let Some(name) = ship else {
            self.err(
                span,
                "`place` needs `ship`",
                "a ship name or kind from the fleet",
            );
            return None;
        };
        let item = self.place_item(name, owner, placed, span.clone(), rules)?;
        let at = self.cell(
            at.as_ref().unwrap_or(&CellInput::NotACell),
            span.clone(),
            rules,
        )?;
        let dir = self.place_dir(dir.as_ref(), rules.items[item].length, span)?;
        if !rejected {
            placed.insert(item);
        }
        Some(Action::Place { item, at, dir })
    }

    /// A placement's `dir`; a one-cell ship needs none.
    fn place_dir(&mut self, dir: Option<&DirInput>, length: u8, span: Range<usize>) -> Option<Dir> {
        match dir {
            None if length == 1 => Some(Dir::Right),
            Some(d) => self.direction(d, span),
            None => {
                self.err(
                    span,
                    "`place` needs a direction",
                    "`dir = \"right\"`, `\"down\"`, `\"left\"` or `\"up\"`",
                );
                None
            }
        }
    }

    /// Whose ship a `place` step places: `player`, or the first player.
    fn place_owner(
        &mut self,
        player: Option<&Loose<String>>,
        span: Range<usize>,
        rules: &Rules,
    ) -> Option<usize> {
        match player {
            None => Some(0),
            Some(Loose::Misfit(other)) => {
                self.err(
                    span,
                    format!("`player = {other}` is not a player name"),
                    format!("one of: {}", rules.players.join(", ")),
                );
                None
            }
            Some(Loose::Fit(p)) => {
                let owner = rules.player(p);
                if owner.is_none() {
                    self.err(
                        span,
                        format!("unknown player `{p}`"),
                        format!("one of: {}", rules.players.join(", ")),
                    );
                }
                owner
            }
        }
    }

    /// The fleet item a `place` step names: the named ship, or while it is placed the next
    /// of its kind still to place.
    fn place_item(
        &mut self,
        name: &str,
        owner: usize,
        placed: &BTreeSet<usize>,
        span: Range<usize>,
        rules: &Rules,
    ) -> Option<usize> {
        let mine = |i: &usize| rules.items[*i].owner == owner;
        // A ship named again once placed stands for the next of its kind still to place:
        // legality is the board and the touching rules only (solo-10x10's decision
        // placement-counts), so a second ship of a length is placed, not refused.
        let named = (0..rules.items.len())
            .filter(mine)
            .find(|&i| rules.items[i].name == name);
        let kind = named.map_or(name, |i| rules.items[i].kind.as_str());
        // With no other of its kind left (move-limit-10x10's one ship per type), the named
        // ship itself: the engine then refuses it as already placed, as that handout asks.
        let item = named
            .filter(|i| !placed.contains(i))
            .or_else(|| {
                (0..rules.items.len())
                    .filter(mine)
                    .find(|&i| rules.items[i].kind == kind && !placed.contains(&i))
            })
            .or(named);
        if item.is_some() {
            return item;
        }
        let kinds: BTreeSet<&str> = rules.items.iter().map(|i| i.kind.as_str()).collect();
        if kinds.contains(kind) {
            self.err(
                span,
                format!("every `{kind}` of the {} fleet is already placed", rules.id),
                "a kind with a ship still to place, or a `rejected` expectation on earlier steps",
            );
            return None;
        }
        self.err(
            span,
            format!("no ship `{name}` in the {} fleet", rules.id),
            format!(
                "a name or kind from: {}",
                kinds.into_iter().collect::<Vec<_>>().join(", ")
            ),
        );
        None
    }
}

/// A `query` or `probe` name as written; anything but a string names nothing (`""`).
fn name_of(value: &Spanned<Loose<String>>) -> &str {
    match value.get_ref() {
        Loose::Fit(name) => name,
        Loose::Misfit(_) => "",
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{COLAB, problems};

    fn step(body: &str) -> Vec<String> {
        problems(&format!("{COLAB}[[steps]]\n{body}\n"))
    }

    #[test]
    fn a_step_needs_exactly_one_action() {
        assert_eq!(
            step("expect = \"hit\""),
            ["a step has no action @ [[steps]]"]
        );
    }

    #[test]
    fn a_stray_player_or_at_is_reported_at_the_key() {
        assert_eq!(
            step("fire = \"A1\"\nplayer = \"human\"\nat = \"B2\"\nexpect = \"miss\""),
            [
                "`player` is only for `fire` in two-player games @ \"human\"",
                "`at` is only for `query` steps @ \"B2\"",
            ]
        );
    }

    #[test]
    fn a_fire_at_something_that_is_no_cell_is_reported() {
        assert_eq!(
            step("fire = true\nexpect = \"miss\""),
            ["not a cell @ true"]
        );
    }

    #[test]
    fn a_power_or_name_the_assignment_lacks_is_reported() {
        assert_eq!(
            step("missile = \"A1\"\nexpect = \"missile\""),
            ["colab-6x6 has no missile @ \"A1\""]
        );
        assert_eq!(
            step("probe = 3\nexpect = \"ok\""),
            ["colab-6x6 has no probe `` @ 3"]
        );
        assert_eq!(
            step("random_layouts = 5\nexpect = \"ok\""),
            ["colab-6x6 students write no random-fleet function @ 5"]
        );
    }

    #[test]
    fn a_malformed_drone_or_placement_is_reported() {
        let battleboats = |body: &str| {
            problems(&format!(
                "assignment = \"battleboats\"\nmode = \"expert\"\n[[steps]]\n{body}\n"
            ))
        };
        assert_eq!(
            battleboats("drone = { row = 1, col = 2 }\nexpect = \"drone\""),
            ["a drone scans one row or one column @ { row = 1, col = 2 }"]
        );
        let solo =
            |body: &str| problems(&format!("assignment = \"solo-10x10\"\n[[steps]]\n{body}\n"));
        assert_eq!(
            solo("place = \"(0, 0)\"\nexpect = \"ok\""),
            ["`place` must be a table @ \"(0, 0)\""]
        );
        assert_eq!(
            solo("place = { ship = \"battleship\", at = \"(0, 0)\", player = 3 }\nexpect = \"ok\""),
            [
                "`player = 3` is not a player name @ { ship = \"battleship\", at = \"(0, 0)\", player = 3 }"
            ]
        );
    }
}
