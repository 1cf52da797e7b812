//! Turns a symbolic [`Case`] into a scenario file in two stages: [`resolve`] plays the case on
//! the reference and fixes every pick to a cell, giving a [`Plan`] (setup, actions, which state
//! keys to check); [`scenario_text`] replays a plan on a fresh reference game and writes what
//! it answers and observes as each step's `expect` and `state`, in the published scenario
//! format. A plan can lose a step or a ship and be written again (the final shrinking pass).
//!
//! The fuzz loop plays [`scenario`], the same replay built in memory; the shrunk
//! counterexample is written by [`scenario_text`] and loaded as `broadside run` loads it
//! (`scenario::parse`). `tests/fuzz.rs` holds the two equal, case after case, so the scenario
//! the fuzzer plays is the file it writes.

use super::generate::{Case, Move, Pick, PlayStep};
use crate::cell::{Cell, RawCell};
use crate::engine::Outcome;
use crate::engine::{Answer, Dir, Event, Game};
use crate::scenario::{Action, Check, Expect, Expected, Scenario};
use crate::spec::{Meaning, Rules, StateKey};
use crate::target::{Observed, reference};
use std::sync::Arc;

mod write;

/// What the header of a written counterexample says about where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The seed of the fuzz run.
    pub seed: u64,
    /// 1-based number of the case that first diverged.
    pub case: u64,
    /// How the target was named on the command line, e.g. `python:battleship.py`.
    pub target: String,
    /// The `--cases` budget of the run, if one was given.
    pub cases: Option<u64>,
    /// The `--mode` of the run, if one was given.
    pub mode: Option<String>,
}

const DIRS: [Dir; 4] = [Dir::Right, Dir::Down, Dir::Left, Dir::Up];

/// A case resolved to concrete steps: what a scenario file holds, before the reference's
/// answers are written in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// `(item index, cells)` of each placed item, in fleet order.
    pub setup: Vec<(usize, Vec<Cell>)>,
    /// Two-player games: who moves first, when the case names a player.
    pub first: Option<usize>,
    /// Each step's action and the state keys checked after it (bit `i` is `rules.observe[i]`).
    pub steps: Vec<(Action, u16)>,
    /// State keys checked after the last step.
    pub end: u16,
}

impl Plan {
    /// The same plan without step `i`.
    pub fn without(&self, i: usize) -> Plan {
        let mut p = self.clone();
        p.steps.remove(i);
        p
    }
}

/// Resolves `case` under `rules`: every pick against the reference game as it is played.
pub fn resolve(case: &Case, rules: &Arc<Rules>) -> Plan {
    let mut b = Builder::new(rules);
    b.setup(case);
    for p in &case.places {
        b.place(p.item, &p.at, p.dir);
    }
    for step in case.runs.iter().flatten() {
        b.play(step);
    }
    Plan {
        setup: b.setup,
        first: b.first,
        steps: b.steps,
        end: case.end,
    }
}

/// The scenario text for `plan` under `rules`, every step's `expect` and `state` the
/// reference's, with a header naming `from` when given; `with_mode` writes `mode = …` (for a
/// spec with several modes). `None` when the plan has nothing to check (no step and no end
/// check) or its setup is not legal under `rules`.
pub fn scenario_text(
    plan: &Plan,
    rules: &Arc<Rules>,
    with_mode: bool,
    from: Option<&Provenance>,
) -> Option<String> {
    Some(Writer::played(plan, rules, with_mode)?.write(plan.end, from))
}

/// The scenario [`scenario_text`] writes, built in memory: what the file loads to, but for
/// its lines, title and source (the fuzz loop plays a case this way; only the shrunk
/// counterexample is written and loaded). `tests/fuzz.rs` holds the two equal, case after
/// case, for every assignment.
pub fn scenario(plan: &Plan, rules: &Arc<Rules>) -> Option<Scenario> {
    let w = Writer::played(plan, rules, false)?;
    let setup = crate::scenario::Setup {
        items: plan.setup.clone(),
        first: plan.first,
    };
    let mut off_board_total = 0;
    let steps = w
        .steps
        .iter()
        .map(|s| {
            off_board_total = s.off_board;
            let mut decision = s.either;
            crate::scenario::Step {
                line: 0,
                action: s.action.clone(),
                expect: Some(w.expected(s)),
                expect_span: None,
                note: None,
                checks: w.checks(&s.state, s.off_board, &mut decision),
            }
        })
        .collect();
    let end = w.checks(&w.observe(plan.end), off_board_total, &mut None);
    Some(Scenario {
        source: crate::diag::Source::new("fuzz-case.toml", ""),
        assignment: rules.id.clone(),
        rules: rules.clone(),
        title: "fuzz-case".into(),
        description: None,
        points: 1,
        max_score: 1.0,
        visibility: crate::scenario::Visibility::Visible,
        credit: crate::scenario::Credit::default(),
        given: None,
        tags: Vec::new(),
        setup,
        steps,
        end,
        dialogue: None,
    })
}

/// One resolved step and what the reference made of it.
struct Written {
    action: Action,
    answer: Answer,
    /// Whether the answer may also be the other reading of a decision, and which.
    either: Option<Reading>,
    state: Vec<(StateKey, Observed)>,
    /// Off-board shots so far, for the other reading of `off-board-call`.
    off_board: u32,
}

impl Written {
    /// The query the step asks, if it is one (its `decision` is the query's).
    fn action_name(&self) -> &str {
        match &self.action {
            Action::Query { name, .. } => name,
            _ => "",
        }
    }
}

/// Resolves picks while playing the case on the reference.
struct Builder<'a> {
    rules: &'a Arc<Rules>,
    game: Game,
    setup: Vec<(usize, Vec<Cell>)>,
    first: Option<usize>,
    shots: Vec<RawCell>,
    steps: Vec<(Action, u16)>,
}

impl<'a> Builder<'a> {
    fn new(rules: &'a Arc<Rules>) -> Self {
        Builder {
            rules,
            game: Game::new(rules.clone()),
            setup: Vec::new(),
            first: None,
            shots: Vec::new(),
            steps: Vec::new(),
        }
    }

    fn rows(&self) -> i64 {
        i64::from(self.rules.rows)
    }

    fn cols(&self) -> i64 {
        i64::from(self.rules.cols)
    }

    /// The placed item at fleet index `item` (modulo the fleet) or the first placed one after
    /// it, wrapping; `ships` leaves grenades out. Naming items by fleet index keeps a pick's
    /// meaning when shrinking removes another item.
    fn placed_from(&self, item: u8, ships: bool) -> Option<usize> {
        let n = self.rules.items.len();
        (0..n)
            .map(|k| (usize::from(item) + k) % n)
            .find(|&i| self.game.is_placed(i) && !(ships && self.rules.items[i].grenade))
    }

    fn cell(&self, pick: &Pick) -> RawCell {
        let (rows, cols) = (self.rows(), self.cols());
        let raw = |row: i64, col: i64| RawCell { row, col };
        match *pick {
            Pick::Any(r, c) => raw(i64::from(r) % rows, i64::from(c) % cols),
            Pick::Rim {
                side, corner: true, ..
            } => match side % 4 {
                0 => raw(0, 0),
                1 => raw(0, cols - 1),
                2 => raw(rows - 1, cols - 1),
                _ => raw(rows - 1, 0),
            },
            Pick::Rim { side, at, .. } => {
                let (r, c) = (i64::from(at) % rows, i64::from(at) % cols);
                match side % 4 {
                    0 => raw(0, c),
                    1 => raw(r, cols - 1),
                    2 => raw(rows - 1, c),
                    _ => raw(r, 0),
                }
            }
            Pick::Off { side, at, far } => {
                let d = if far { rows.max(cols) + 3 } else { 1 };
                let (r, c) = (i64::from(at) % rows, i64::from(at) % cols);
                match side % 4 {
                    0 => raw(-d, c),
                    1 => raw(r, cols - 1 + d),
                    2 => raw(rows - 1 + d, c),
                    _ => raw(r, -d),
                }
            }
            Pick::Beside { item, cell, dr, dc } => {
                let Some(i) = self.placed_from(item, false) else {
                    return raw(
                        (i64::from(item) + i64::from(dr)).rem_euclid(rows),
                        (i64::from(cell) + i64::from(dc)).rem_euclid(cols),
                    );
                };
                let cells = self.game.item_cells(i);
                let c = cells[usize::from(cell) % cells.len()];
                raw(
                    i64::from(c.row) + i64::from(dr),
                    i64::from(c.col) + i64::from(dc),
                )
            }
            Pick::Next { item, from, spill } => {
                let Some(start) = self.placed_from(item, true) else {
                    return raw(i64::from(item) % rows, i64::from(from) % cols);
                };
                let n = self.rules.items.len();
                let tries = if spill { n } else { 1 };
                for j in 0..tries {
                    let i = (start + j) % n;
                    if !self.game.is_placed(i) || self.rules.items[i].grenade {
                        continue;
                    }
                    let cells = self.game.item_cells(i);
                    for k in 0..cells.len() {
                        let c = cells[(usize::from(from) + k) % cells.len()];
                        if !self.game.was_targeted(c) {
                            return c.into();
                        }
                    }
                }
                let cells = self.game.item_cells(start);
                cells[usize::from(from) % cells.len()].into()
            }
            Pick::Again(back) => match self.shots.len() {
                0 => raw(i64::from(back) % rows, i64::from(back) % cols),
                n => self.shots[n - 1 - usize::from(back) % n],
            },
        }
    }

    /// Places the present items of the setup, each at its pick or, if that is illegal, at the
    /// next legal position in reading order. In two-player games a player's ships (and
    /// grenades) are listed in slot order, so once one is missing the later ones are too.
    fn setup(&mut self, case: &Case) {
        let two = self.rules.players.len() > 1;
        let mut closed = std::collections::BTreeSet::new();
        for (i, p) in case.setup.iter().enumerate().take(self.rules.items.len()) {
            let class = (self.rules.items[i].owner, self.rules.items[i].grenade);
            if two && closed.contains(&class) {
                continue;
            }
            let ok = p.present && self.place_somewhere(i, self.cell(&p.at), p.dir);
            if !ok && two {
                closed.insert(class);
            }
        }
        self.setup = (0..self.rules.items.len())
            .filter(|&i| self.game.is_placed(i))
            .map(|i| (i, self.game.item_cells(i).to_vec()))
            .collect();
        if two && case.first > 0 {
            let p = usize::from(case.first - 1) % self.rules.players.len();
            self.first = Some(p);
            self.game.set_next(p);
        }
    }

    fn place_somewhere(&mut self, item: usize, at: RawCell, dir: u8) -> bool {
        let (rows, cols) = (self.rows(), self.cols());
        let n = rows * cols;
        let start = at.row.rem_euclid(rows) * cols + at.col.rem_euclid(cols);
        if self
            .game
            .place(item, at, DIRS[usize::from(dir % 4)])
            .is_ok()
        {
            return true;
        }
        for off in 0..n {
            let idx = (start + off) % n;
            let cell = RawCell {
                row: idx / cols,
                col: idx % cols,
            };
            for d in 0..4 {
                let dir = DIRS[usize::from((dir + d) % 4)];
                if self.game.place(item, cell, dir).is_ok() {
                    return true;
                }
            }
        }
        false
    }

    fn place(&mut self, item: u8, at: &Pick, dir: u8) {
        // The item at fleet index `item`, or the next one not yet placed.
        let n = self.rules.items.len();
        let Some(item) = (0..n)
            .map(|k| (usize::from(item) + k) % n)
            .find(|&i| !self.game.is_placed(i))
        else {
            return;
        };
        let action = Action::Place {
            item,
            at: self.cell(at),
            dir: DIRS[usize::from(dir % 4)],
        };
        self.push(action, 0);
    }

    fn play(&mut self, step: &PlayStep) {
        let rules = self.rules.clone();
        let action = match &step.action {
            Move::Fire { at, player } => {
                let at = self.cell(at);
                self.shots.push(at);
                let player = (*player > 0 && rules.players.len() > 1)
                    .then(|| usize::from(*player - 1) % rules.players.len());
                Action::Fire { player, at }
            }
            Move::Drone { col, index } => Action::Drone {
                axis: if *col {
                    crate::engine::Axis::Col
                } else {
                    crate::engine::Axis::Row
                },
                index: i64::from(*index),
            },
            Move::Missile { at } => {
                let at = self.cell(at);
                self.shots.push(at);
                Action::Missile { at }
            }
            Move::Query { which, at } => {
                let q = &rules.queries[usize::from(*which) % rules.queries.len()];
                let mut at = self.cell(at);
                // The handout's cell questions other than these assume a cell on the board.
                if !matches!(
                    q.meaning,
                    Meaning::Valid | Meaning::Targeted | Meaning::ShipAt
                ) {
                    at.row = at.row.clamp(0, self.rows() - 1);
                    at.col = at.col.clamp(0, self.cols() - 1);
                }
                Action::Query {
                    name: q.name.clone(),
                    meaning: q.meaning,
                    at,
                }
            }
            Move::Probe { which } => Action::Probe {
                name: rules.probes[usize::from(*which) % rules.probes.len()]
                    .name
                    .clone(),
            },
            Move::RandomLayouts { count } => Action::RandomLayouts {
                count: u32::from((*count).max(2)),
            },
        };
        self.push(action, step.observe);
    }

    /// Plays `action` on the resolving game and records it.
    fn push(&mut self, action: Action, observe: u16) {
        // Drawing random fleets changes nothing in the game; skip the reference's draws.
        if !matches!(action, Action::RandomLayouts { .. }) {
            reference::act(&mut self.game, &action);
        }
        self.steps.push((action, observe));
    }
}

/// Writes a plan as a scenario, replaying it on the reference for the expectations.
struct Writer<'a> {
    rules: &'a Arc<Rules>,
    game: Game,
    plan: &'a Plan,
    off_board: u32,
    steps: Vec<Written>,
    with_mode: bool,
}

impl<'a> Writer<'a> {
    /// `plan` played on a fresh reference game, each step's answer and state kept; `None`
    /// when it has nothing to check or its setup is not legal under `rules`.
    fn played(plan: &'a Plan, rules: &'a Arc<Rules>, with_mode: bool) -> Option<Writer<'a>> {
        if plan.steps.is_empty() && plan.end == 0 {
            return None;
        }
        let setup = crate::scenario::Setup {
            items: plan.setup.clone(),
            first: plan.first,
        };
        let mut w = Writer {
            rules,
            game: crate::target::Reference::start(rules, &setup).ok()?,
            plan,
            off_board: 0,
            steps: Vec::new(),
            with_mode,
        };
        for (action, observe) in &plan.steps {
            w.push(action.clone(), *observe);
        }
        Some(w)
    }

    fn push(&mut self, action: Action, observe: u16) {
        let rules = self.rules.clone();
        // Decided before the action changes the game.
        let either = match &action {
            Action::Query {
                name,
                meaning: Meaning::FreshHit,
                at,
            } => rules
                .cell(*at)
                .filter(|c| self.game.was_targeted(*c) && self.game.occupant(*c).is_some())
                .filter(|_| Reading::EitherBool.decision(&rules, name).is_some())
                .map(|_| Reading::EitherBool),
            _ => None,
        };
        let answer = match action {
            // The reference's answer does not depend on how many fleets it draws (every draw
            // is legal by construction); one draw instead of the step's count keeps a case
            // cheap.
            Action::RandomLayouts { .. } => {
                reference::act(&mut self.game, &Action::RandomLayouts { count: 1 })
            }
            _ => reference::act(&mut self.game, &action),
        };
        let either = either.or_else(|| {
            (matches!(action, Action::Fire { .. })
                && answer.event == Some(Event::OffBoard)
                && Reading::OffBoardMiss.decision(&rules, "").is_some())
            .then_some(Reading::OffBoardMiss)
        });
        if either == Some(Reading::OffBoardMiss) {
            self.off_board += 1;
        }
        let state = self.observe(observe);
        self.steps.push(Written {
            action,
            answer,
            either,
            state,
            off_board: self.off_board,
        });
    }

    fn observe(&self, mask: u16) -> Vec<(StateKey, Observed)> {
        self.rules
            .observe
            .iter()
            .enumerate()
            .filter(|(i, _)| *i < 16 && mask & (1 << i) != 0)
            .map(|(_, k)| (*k, reference::observe(&self.game, *k)))
            .collect()
    }
}

impl Writer<'_> {
    /// [`Writer::expect`] as the loader reads it.
    fn expected(&self, s: &Written) -> Expect {
        let rules = self.rules;
        let a = &s.answer;
        let mut e = Expect {
            outcomes: vec![a.outcome],
            ship: None,
            owner: None,
            count: None,
            cells: None,
            value: None,
        };
        if let Some(v) = &a.value {
            e.outcomes = vec![Outcome::Ok];
            if s.either != Some(Reading::EitherBool) {
                e.value = Some(v.clone());
            }
            return e;
        }
        if s.either == Some(Reading::OffBoardMiss) {
            e.outcomes.push(Outcome::Miss);
            return e;
        }
        let has = |d: &str| rules.details.iter().any(|x| x == d);
        match &s.action {
            Action::Fire { .. } => {
                e.ship = a.ship.clone().filter(|_| has("ship"));
                e.owner = a.owner.clone().filter(|_| has("owner"));
            }
            Action::Drone { .. } => e.count = a.count.filter(|_| has("count")),
            Action::Missile { .. } if has("cells") && !a.cells.is_empty() => {
                let mut cells = a.cells.clone();
                cells.sort();
                e.cells = Some(cells);
            }
            _ => {}
        }
        e
    }

    /// [`Writer::state`] as the loader reads it: the checks in the loader's order of keys.
    fn checks(
        &self,
        state: &[(StateKey, Observed)],
        off_board: u32,
        decision: &mut Option<Reading>,
    ) -> Vec<Check> {
        let mut out = Vec::new();
        for (k, v) in state {
            let expected = match v {
                Observed::Names(n) => Expected::Names(n.clone()),
                Observed::Bool(b) => Expected::Bool(vec![*b]),
                Observed::Count(n) if *k == StateKey::Shots && off_board > 0 => {
                    match decision {
                        Some(d) if *d != Reading::OffBoardMiss => continue,
                        _ => {}
                    }
                    *decision = Some(Reading::OffBoardMiss);
                    Expected::Count(vec![*n, n + off_board])
                }
                Observed::Count(n) => Expected::Count(vec![*n]),
                Observed::Player(p) => Expected::Player(vec![p.clone()]),
                Observed::Cells(c) => Expected::Cells(c.iter().copied().collect()),
                Observed::Board(rows) => {
                    Expected::Board(rows.iter().map(|r| r.trim_end().to_string()).collect())
                }
                // The reference never answers so: nothing to expect.
                Observed::Failed(_) => continue,
            };
            out.push(Check {
                key: *k,
                expected,
                line: 0,
                span: None,
            });
        }
        // The loader reads a `state` table's keys in their declaration order.
        out.sort_by_key(|c| StateKey::ALL.iter().position(|k| *k == c.key));
        out
    }
}

/// An `accept_also` decision's other reading that a step's answer may take, as the spec
/// ties the decision to an event or a query (`decision = ...` in `[events.off-board]` or a
/// `fresh-hit` query); the spec's loader checks that the decision accepts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// An off-board shot may also be a miss that counts a shot.
    OffBoardMiss,
    /// A `fresh-hit` query on a square already hit may answer either way.
    EitherBool,
}

impl Reading {
    /// The decision the spec ties this reading to (for a query, the query named `query`).
    fn decision<'r>(self, rules: &'r Rules, query: &str) -> Option<&'r str> {
        match self {
            Reading::OffBoardMiss => rules.events[Event::OffBoard.index()]
                .as_ref()?
                .decision
                .as_deref(),
            Reading::EitherBool => rules
                .queries
                .iter()
                .find(|q| q.name == query && q.meaning == Meaning::FreshHit)?
                .decision
                .as_deref(),
        }
    }
}

/// A word for a shell command line, quoted when it needs to be (`shlex`).
fn shell_word(s: &str) -> String {
    shlex::try_quote(s).map_or_else(|_| s.replace('\0', ""), |q| q.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::SpecSet;

    fn colab() -> Arc<Rules> {
        let specs = SpecSet::builtin();
        specs.get("colab-6x6").unwrap().rules(None).unwrap().clone()
    }

    fn raw(row: i64, col: i64) -> RawCell {
        RawCell { row, col }
    }

    #[test]
    fn rim_corners_are_the_four_corners_and_off_picks_are_off_the_board() {
        let rules = colab();
        let b = Builder::new(&rules);
        let corner = |side| {
            b.cell(&Pick::Rim {
                side,
                at: 3,
                corner: true,
            })
        };
        assert_eq!(
            [corner(0), corner(1), corner(2), corner(3)],
            [raw(0, 0), raw(0, 5), raw(5, 5), raw(5, 0)]
        );
        for side in 0..4 {
            for far in [false, true] {
                let c = b.cell(&Pick::Off { side, at: 9, far });
                assert!(rules.cell(c).is_none(), "{c} is on the board");
            }
        }
    }

    #[test]
    fn next_walks_a_ships_unhit_cells_then_repeats_on_it_once_sunk() {
        let rules = colab();
        let mut b = Builder::new(&rules);
        // The Submarine (item 0) on A1, A2.
        assert!(b.place_somewhere(0, raw(0, 0), 0));
        let next = Pick::Next {
            item: 0,
            from: 1,
            spill: false,
        };
        let mut shots = Vec::new();
        for _ in 0..3 {
            let at = b.cell(&next);
            shots.push(at);
            b.push(Action::Fire { player: None, at }, 0);
        }
        assert_eq!(shots, [raw(0, 1), raw(0, 0), raw(0, 1)]);
    }

    #[test]
    fn a_pick_naming_an_unplaced_ship_means_the_next_placed_one() {
        let rules = colab();
        let mut b = Builder::new(&rules);
        // Only the Cruiser (item 2) is placed, on D1, D2, D3.
        assert!(b.place_somewhere(2, raw(3, 0), 0));
        let beside = Pick::Beside {
            item: 0,
            cell: 0,
            dr: -1,
            dc: 0,
        };
        assert_eq!(b.cell(&beside), raw(2, 0));
    }

    #[test]
    fn a_plan_that_checks_nothing_has_no_scenario() {
        let rules = colab();
        let plan = Plan {
            setup: Vec::new(),
            first: None,
            steps: Vec::new(),
            end: 0,
        };
        assert_eq!(scenario_text(&plan, &rules, false, None), None);
    }

    #[test]
    fn off_board_shots_in_solo_accept_the_other_reading_of_off_board_call() {
        let specs = SpecSet::builtin();
        let rules = specs
            .get("solo-10x10")
            .unwrap()
            .rules(None)
            .unwrap()
            .clone();
        let plan = Plan {
            setup: Vec::new(),
            first: None,
            steps: vec![(
                Action::Fire {
                    player: None,
                    at: raw(10, 0),
                },
                1 << rules
                    .observe
                    .iter()
                    .position(|k| *k == StateKey::Shots)
                    .unwrap(),
            )],
            end: 0,
        };
        let text = scenario_text(&plan, &rules, false, None).unwrap();
        assert!(
            text.contains("fire = [10, 0]\nexpect = [\"invalid\", \"miss\"]\ndecision = \"off-board-call\"\nstate = { shots = [0, 1] }"),
            "{text}"
        );
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("python:a/b.py"), "python:a/b.py");
        assert_eq!(shell_word("cmd:./x --y"), "'cmd:./x --y'");
        // Whatever the quoting, the shell reads back the word itself.
        for w in ["it's", "cmd:./x \"$HOME\" `id`", "a b\tc", "ünï"] {
            assert_eq!(
                shlex::split(&shell_word(w)),
                Some(vec![w.to_string()]),
                "{w}"
            );
        }
    }
}
