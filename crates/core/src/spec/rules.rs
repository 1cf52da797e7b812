//! The validated contract the engine and the scenario loader trust.

use super::error::{SpecError, Table};
use super::schema::{RawBoard, RawFleetEntry, RawPowers, RawSpec};
use crate::cell::{MAX_SIDE, Notation};
use crate::engine::{Event, Outcome};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// Whether ships may touch (DESIGN.md, "Spec"). Overlap is always forbidden.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Touching {
    Allowed,
    /// No two ships share an edge.
    ForbiddenEdge,
    /// No two ships share an edge or a corner (the 3×3 neighbourhood rule).
    ForbiddenEdgeAndCorner,
}

/// How reports write a placement (a spec's `[placement] terms`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlaceTerms {
    /// `place Cruiser at (0, 8) left`: a cell and a direction.
    #[default]
    Direction,
    /// `place cruiser-1: row 0, column 6, horizontal=True, length 3`: the top-left square
    /// and the axis, as solo-10x10's `place_ship_at(row, column, horizontal, length, fleet)`.
    Horizontal,
}

/// The state a student function is handed for a check (a spec's `[checks]` table).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Given {
    /// The game as the student's own earlier calls left it: a bug in one function carries
    /// into every later check (end to end).
    #[default]
    Own,
    /// The reference's state at that step, in the representation the handout prescribes:
    /// the check judges this function alone.
    Reference,
}

/// What one kind of check judges: the student function, the state it is handed, the clause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckRule {
    /// A state key (`remaining`) or a step kind (`fire`, `place`, `query`).
    pub kind: String,
    pub function: String,
    pub given: Given,
    /// `fire`: the function that tells a hit from a sinking, if not `function`.
    pub sinking: Option<String>,
    pub clause: String,
}

/// When a move limit turns into a loss.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LostCheck {
    /// Lost as soon as the move that reaches the limit is made.
    #[default]
    AtLimit,
    /// Lost at the start of the next action (move-limit-10x10's `transitionState` step 2);
    /// that action is consumed and does nothing else.
    BeforeNextShot,
}

/// A counter a handout keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Counter {
    /// Shots recorded (colab-6x6's `len(game["shots"])`, solo-10x10's score, battleboats'
    /// cannon shots).
    Shots,
    /// battleboats' turn counter, skipped turns included.
    Turns,
    /// move-limit-10x10's `numMoves`.
    Moves,
}

impl Counter {
    pub fn name(self) -> &'static str {
        match self {
            Counter::Shots => "shots",
            Counter::Turns => "turns",
            Counter::Moves => "moves",
        }
    }
}

/// A fact about a game that a scenario can check (`state` and `[end]` keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StateKey {
    /// Names of the ships still afloat, in fleet order.
    Remaining,
    /// Names of the sunk ships, in fleet order.
    Sunk,
    Won,
    Lost,
    /// Which player has won a two-player game, if any.
    Winner,
    /// Whose turn it is.
    Next,
    Shots,
    Turns,
    Moves,
    /// The set of cells shot at.
    Targeted,
    /// The board drawn in the handout's alphabet, ships hidden.
    Board,
}

impl StateKey {
    pub const ALL: [StateKey; 11] = [
        StateKey::Remaining,
        StateKey::Sunk,
        StateKey::Won,
        StateKey::Lost,
        StateKey::Winner,
        StateKey::Next,
        StateKey::Shots,
        StateKey::Turns,
        StateKey::Moves,
        StateKey::Targeted,
        StateKey::Board,
    ];

    pub fn name(self) -> &'static str {
        match self {
            StateKey::Remaining => "remaining",
            StateKey::Sunk => "sunk",
            StateKey::Won => "won",
            StateKey::Lost => "lost",
            StateKey::Winner => "winner",
            StateKey::Next => "next",
            StateKey::Shots => "shots",
            StateKey::Turns => "turns",
            StateKey::Moves => "moves",
            StateKey::Targeted => "targeted",
            StateKey::Board => "board",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<StateKey> {
        StateKey::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The counter this key reads, if it is one.
    pub fn counter(self) -> Option<Counter> {
        match self {
            StateKey::Shots => Some(Counter::Shots),
            StateKey::Turns => Some(Counter::Turns),
            StateKey::Moves => Some(Counter::Moves),
            _ => None,
        }
    }
}

impl fmt::Display for StateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One item of a fleet: a ship, or a grenade, owned by one player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ItemDef {
    /// Unique per owner: `Submarine`, or `cruiser-2` when the fleet has several of a kind.
    pub name: String,
    /// The fleet entry's name: `cruiser` for `cruiser-2`; what a sinking reports.
    pub kind: String,
    /// Length in cells.
    pub length: u8,
    pub grenade: bool,
    /// Index into [`Rules::players`].
    pub owner: usize,
}

/// What one event answers and costs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EventRule {
    pub outcome: Outcome,
    pub shots: u32,
    pub turns: u32,
    pub moves: u32,
    pub passes_turn: bool,
    /// The `accept_also` decision whose other reading answers the event as a counted miss.
    pub decision: Option<String>,
    pub clause: String,
}

/// A recorded ambiguity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    pub id: String,
    pub clause: String,
    pub reading: String,
    pub other: String,
    pub accept_also: bool,
}

impl Decision {
    /// The decision a spec's `[[decision]]` records.
    fn of(d: &super::schema::RawDecision) -> Decision {
        Decision {
            id: d.id.clone(),
            clause: d.clause.clone(),
            reading: d.reading.clone(),
            other: d.other.clone(),
            accept_also: d.accept_also,
        }
    }
}

/// The handout's alphabet, resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Display {
    pub untried: String,
    pub miss: String,
    pub hit: String,
    pub sunk: String,
    pub ship: String,
    pub grenade: String,
    pub separator: String,
    pub sunk_by_kind: BTreeMap<String, String>,
    /// Whether the `board` observation shows every ship and grenade once the game has ended.
    pub reveal_at_end: bool,
    /// Per player index: `(hit, grenade)` glyphs replacing the shared ones.
    pub players: Vec<Option<(String, String)>>,
}

impl Display {
    /// What each glyph of a drawn board means, on one line (`■ ship, × hit, ✓ sunk,
    /// · miss, . untried`), for a reader who has not learnt the handout's alphabet.
    pub fn legend(&self, with_grenades: bool) -> String {
        let shown = |g: &str| {
            if g.trim().is_empty() {
                "' '".to_string()
            } else {
                g.to_string()
            }
        };
        let mut parts = vec![
            format!("{} ship", shown(&self.ship)),
            format!("{} hit", shown(&self.hit)),
        ];
        if !self.sunk_by_kind.is_empty() {
            let kinds: Vec<String> = self
                .sunk_by_kind
                .iter()
                .map(|(kind, g)| format!("{} {kind}", shown(g)))
                .collect();
            parts.push(format!("sunk by type: {}", kinds.join(", ")));
        } else if self.sunk != self.hit {
            parts.push(format!("{} sunk", shown(&self.sunk)));
        }
        parts.push(format!("{} miss", shown(&self.miss)));
        parts.push(format!("{} untried", shown(&self.untried)));
        if with_grenades && self.grenade != self.hit {
            parts.push(format!("{} grenade", shown(&self.grenade)));
        }
        parts.join(", ")
    }
}

/// The language students submit an assignment in (a spec's `language`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Deserialize, Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Python,
    Haskell,
    Java,
}

impl Language {
    /// As the spec writes it, which is also the target kind that grades it (`python:`).
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::Haskell => "haskell",
            Language::Java => "java",
        }
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One mode of one assignment, validated: everything the engine needs.
#[derive(Debug, Clone, Serialize)]
pub struct Rules {
    pub id: String,
    /// The language students submit in: which whole programs play this assignment's
    /// dialogues, and which target kind `grade` picks by itself.
    pub language: Language,
    pub mode: String,
    /// Board height and width in cells (each at most `MAX_SIDE`).
    pub rows: u8,
    pub cols: u8,
    pub notation: Notation,
    /// Player names; one entry (`"player"`) for one-player games.
    pub players: Vec<String>,
    /// Index of the player who moves first.
    pub first: usize,
    /// The fleet, each player's items in fleet order, player by player.
    pub items: Vec<ItemDef>,
    pub touching: Touching,
    /// Whether scenarios may use `place` steps (students write placement code).
    pub place_steps: bool,
    /// How reports write a `place` step.
    pub place_terms: PlaceTerms,
    /// Whether a `place` step may place more ships of a kind than the fleet holds
    /// (`[placement] beyond_fleet`): each one past the fleet is another item of that kind
    /// (`Rules::with_extra`).
    pub place_beyond_fleet: bool,
    pub counters: Vec<Counter>,
    /// Indexed by [`Event::index`]; `None` where the assignment has no such event.
    pub events: Vec<Option<EventRule>>,
    pub move_limit: Option<u32>,
    pub lost_check: LostCheck,
    pub drone_uses: Option<u8>,
    pub missile_uses: Option<u8>,
    pub observe: Vec<StateKey>,
    /// Answer details the assignment reports (`ship`, `owner`, `count`, `cells`).
    pub details: Vec<String>,
    pub display: Display,
    /// Cell questions scenarios may ask (`query` steps).
    pub queries: Vec<Query>,
    /// Whole-function checks scenarios may ask for (`probe` steps).
    pub probes: Vec<Probe>,
    /// The student function that lays out a random fleet, if any (`random_layouts` steps).
    pub random_layout: Option<String>,
    /// The student functions that must not change what they are given, each with its
    /// handout clause (`[looks_only]`): the driver checks every call of one.
    pub looks_only: std::collections::BTreeMap<String, String>,
    pub decisions: Vec<Decision>,
    /// What each kind of check judges (`[checks]`), by kind.
    pub checks: Vec<CheckRule>,
    /// How the marks are shared among the handout's functions and rules (`[rubric]`), one
    /// for every mode of the spec (a suite's weights make another).
    #[serde(skip)]
    pub rubric: Option<Arc<super::rubric::Rubric>>,
    /// The reference's verdicts on its own random fleets, worked out once for these rules.
    #[serde(skip)]
    pub drawn: DrawnFleets,
}

/// The reference's verdict on drawing `count` random fleets under one [`Rules`] (`None`:
/// every fleet legal; else why one is not), kept with the rules because it depends on them
/// and the count alone: the fuzzer asks it of every case that draws fleets. A copy of the
/// rules starts with none (a copy may get another board or fleet).
#[derive(Default)]
pub struct DrawnFleets(std::sync::Mutex<Vec<(u32, Option<String>)>>);

impl DrawnFleets {
    /// The verdict for `count` fleets: kept, or worked out by `work` and kept.
    pub(crate) fn get_or(
        &self,
        count: u32,
        work: impl FnOnce() -> Option<String>,
    ) -> Option<String> {
        let kept = |v: &Vec<(u32, Option<String>)>| {
            v.iter().find(|(c, _)| *c == count).map(|(_, w)| w.clone())
        };
        if let Some(w) = kept(&self.0.lock().unwrap_or_else(|p| p.into_inner())) {
            return w;
        }
        let verdict = work();
        let mut v = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if kept(&v).is_none() {
            v.push((count, verdict.clone()));
        }
        verdict
    }
}

impl Clone for DrawnFleets {
    fn clone(&self) -> DrawnFleets {
        DrawnFleets::default()
    }
}

impl std::fmt::Debug for DrawnFleets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DrawnFleets")
    }
}

/// What a cell question means, so the reference can answer it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Meaning {
    /// Whether the cell is on the board (colab-6x6 `is_valid_position`).
    Valid,
    /// Whether the cell has been shot at (colab-6x6 `was_targeted`).
    Targeted,
    /// The name of the ship on the cell, or none (colab-6x6 `ship_at`).
    ShipAt,
    /// Whether no ship is on the cell or any of its eight neighbours (solo-10x10 `is_open_sea`).
    OpenSea,
    /// Whether a shot there would be a new hit (solo-10x10 `check_if_hits`).
    FreshHit,
}

/// A named cell question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Query {
    pub name: String,
    pub function: String,
    pub meaning: Meaning,
    /// The `accept_also` decision whose other reading lets a `fresh-hit` query answer
    /// either way on a square already hit.
    pub decision: Option<String>,
    pub clause: String,
}

/// A named whole-function check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Probe {
    pub name: String,
    pub functions: Vec<String>,
    pub checks: String,
    pub clause: String,
}

impl Rules {
    /// What a kind of check judges (`[checks.KIND]`), if the spec says.
    pub(crate) fn check_rule(&self, kind: &str) -> Option<&CheckRule> {
        self.checks.iter().find(|c| c.kind == kind)
    }

    /// The state a check of `kind` hands the student's function.
    pub fn given(&self, kind: &str) -> Given {
        self.check_rule(kind).map_or(Given::Own, |c| c.given)
    }

    /// The rule for `event`, if the assignment has it.
    pub fn event(&self, event: Event) -> Option<&EventRule> {
        self.events[event.index()].as_ref()
    }

    /// Whether a scenario can check `key` for this assignment.
    pub fn observes(&self, key: StateKey) -> bool {
        self.observe.contains(&key)
    }

    /// The outcome words this assignment can answer to a `fire`.
    pub(crate) fn fire_outcomes(&self) -> Vec<Outcome> {
        let mut out: Vec<Outcome> = [
            Event::Miss,
            Event::Hit,
            Event::Sunk,
            Event::RepeatMiss,
            Event::RepeatHit,
            Event::OffBoard,
            Event::Grenade,
            Event::OutOfTurn,
            Event::GameOver,
        ]
        .into_iter()
        .filter_map(|e| self.event(e).map(|r| r.outcome))
        .collect();
        out.sort();
        out.dedup();
        out
    }

    pub fn query(&self, name: &str) -> Option<&Query> {
        self.queries.iter().find(|q| q.name == name)
    }

    pub fn probe(&self, name: &str) -> Option<&Probe> {
        self.probes.iter().find(|p| p.name == name)
    }

    pub fn decision(&self, id: &str) -> Option<&Decision> {
        self.decisions.iter().find(|d| d.id == id)
    }

    /// Index of the player named `name`.
    pub fn player(&self, name: &str) -> Option<usize> {
        self.players.iter().position(|p| p == name)
    }

    /// The on-board cell for `raw`, if it is on this board.
    pub fn cell(&self, raw: crate::cell::RawCell) -> Option<crate::cell::Cell> {
        let on = (0..i64::from(self.rows)).contains(&raw.row)
            && (0..i64::from(self.cols)).contains(&raw.col);
        on.then_some(crate::cell::Cell {
            row: raw.row as u8,
            col: raw.col as u8,
        })
    }

    /// How reports name item `i`: its name, or `owner:name` in two-player games.
    pub fn label(&self, i: usize) -> String {
        let d = &self.items[i];
        if self.players.len() > 1 {
            format!("{}:{}", self.players[d.owner], d.name)
        } else {
            d.name.clone()
        }
    }

    /// Whether the fleet has grenades.
    pub fn has_grenades(&self) -> bool {
        self.items.iter().any(|i| i.grenade)
    }

    /// A copy with another board size and the same fleet.
    pub(crate) fn with_board(&self, rows: u8, cols: u8) -> Rules {
        Rules {
            rows,
            cols,
            ..self.clone()
        }
    }

    /// A copy with one more item like item `like` (same kind, length and owner), named
    /// `KIND-N` with N one past the items of that kind (`battleship-2` beside `battleship`):
    /// a ship a `place` step puts down past the fleet (`place_beyond_fleet`).
    pub(crate) fn with_extra(&self, like: usize) -> Rules {
        let mut r = self.clone();
        let def = self.items[like].clone();
        let of_kind = self
            .items
            .iter()
            .filter(|i| i.kind == def.kind && i.owner == def.owner)
            .count();
        let mut n = of_kind + 1;
        let taken = |name: &str| self.items.iter().any(|i| i.name == name);
        while taken(&format!("{}-{n}", def.kind)) {
            n += 1;
        }
        r.items.push(ItemDef {
            name: format!("{}-{n}", def.kind),
            ..def
        });
        r
    }

    /// A copy with another board size and fleet, for a scenario that replays a handout's
    /// small worked example (battleboats' 5×5 board with one boat).
    pub fn with_board_and_fleet(&self, rows: u8, cols: u8, fleet: Vec<(String, u8)>) -> Rules {
        let mut r = self.with_board(rows, cols);
        r.items = (0..self.players.len())
            .flat_map(|owner| {
                fleet.iter().map(move |(name, length)| ItemDef {
                    name: name.clone(),
                    kind: name.clone(),
                    length: *length,
                    grenade: false,
                    owner,
                })
            })
            .collect();
        r
    }
}

/// A whole assignment: its default mode and any others, plus where it came from.
#[derive(Debug, Clone)]
pub struct Spec {
    pub id: String,
    pub title: String,
    pub handout: String,
    pub language: Language,
    pub default_mode: String,
    pub modes: BTreeMap<String, Arc<Rules>>,
}

impl Spec {
    /// The rules of `mode` (the default mode when `None`).
    pub fn rules(&self, mode: Option<&str>) -> Option<&Arc<Rules>> {
        self.modes.get(mode.unwrap_or(&self.default_mode))
    }

    /// Validates a raw spec.
    ///
    /// Errors: a [`SpecError`], one sentence naming the field and what was expected, with the
    /// table it is about.
    pub fn from_raw(raw: RawSpec) -> Result<Spec, SpecError> {
        let mut modes = BTreeMap::new();
        let rubric = raw
            .rubric
            .as_ref()
            .map(|r| super::rubric::Rubric::from_raw(r).map(Arc::new))
            .transpose()
            .map_err(|e| SpecError::new(Table::Rubric, e.0))?;
        let mut base = build_rules(&raw, &raw.mode, &raw.board, &raw.fleet, raw.powers.as_ref())?;
        base.rubric = rubric.clone();
        modes.insert(raw.mode.clone(), Arc::new(base));
        for (name, m) in &raw.modes {
            if *name == raw.mode {
                return Err(SpecError::new(
                    Table::Modes,
                    format!("mode `{name}` repeats the default mode"),
                ));
            }
            let mut rules = build_rules(
                &raw,
                name,
                m.board.as_ref().unwrap_or(&raw.board),
                m.fleet.as_ref().unwrap_or(&raw.fleet),
                m.powers.as_ref().or(raw.powers.as_ref()),
            )?;
            rules.rubric = rubric.clone();
            modes.insert(name.clone(), Arc::new(rules));
        }
        Ok(Spec {
            id: raw.id,
            title: raw.title,
            handout: raw.handout,
            language: raw.language,
            default_mode: raw.mode,
            modes,
        })
    }
}

fn build_rules(
    raw: &RawSpec,
    mode: &str,
    board: &RawBoard,
    fleet: &[RawFleetEntry],
    powers: Option<&RawPowers>,
) -> Result<Rules, SpecError> {
    // A message about a table a mode may replace says which mode's it is.
    let in_mode = |table: Table, s: String| {
        if raw.modes.is_empty() {
            SpecError::new(table, s)
        } else {
            SpecError::new(table, format!("mode `{mode}`: {s}"))
        }
    };
    if !(1..=MAX_SIDE).contains(&board.rows) || !(1..=MAX_SIDE).contains(&board.cols) {
        return Err(in_mode(
            Table::Board,
            format!(
                "board is {}×{}; expected each side from 1 to {MAX_SIDE}",
                board.rows, board.cols
            ),
        ));
    }
    let (players, first) = players(raw)?;
    let items = fleet_items(fleet, players.len(), board, &in_mode)?;
    let events = event_rules(raw)?;
    let drone_uses = powers.and_then(|p| p.drone.as_ref()).map(|p| p.uses);
    let missile_uses = powers.and_then(|p| p.missile.as_ref()).map(|p| p.uses);
    required_events(
        &events,
        items.iter().any(|i| i.grenade),
        players.len(),
        drone_uses,
        missile_uses,
    )?;
    let counters: Vec<Counter> = raw.counters.keys().copied().collect();
    check_counters(raw, &events, &counters)?;
    check_details(raw)?;
    let display = display(raw, &players)?;
    let queries = queries(raw)?;
    let probes = raw
        .probes
        .iter()
        .map(|(name, p)| Probe {
            name: name.clone(),
            functions: p.functions.clone(),
            checks: p.checks.clone(),
            clause: p.clause.clone(),
        })
        .collect();
    let checks = check_rules(raw)?;
    check_decisions(raw)?;
    Ok(Rules {
        id: raw.id.clone(),
        mode: mode.to_string(),
        rows: board.rows,
        cols: board.cols,
        notation: raw.notation.style,
        players,
        first,
        items,
        touching: raw.placement.touching,
        place_steps: raw.placement.place_steps,
        place_terms: raw.placement.terms,
        place_beyond_fleet: raw.placement.beyond_fleet,
        counters,
        events,
        move_limit: raw.end.move_limit,
        lost_check: raw.end.lost_check,
        drone_uses,
        missile_uses,
        observe: raw.observe.clone(),
        details: raw.details.clone(),
        language: raw.language,
        display,
        queries,
        probes,
        random_layout: raw.random_layout.as_ref().map(|r| r.function.clone()),
        looks_only: raw.looks_only.clone(),
        decisions: raw.decisions.iter().map(Decision::of).collect(),
        checks,
        rubric: None,
        drawn: DrawnFleets::default(),
    })
}

/// Each answer detail `details` asks for is one broadside reports.
fn check_details(raw: &RawSpec) -> Result<(), SpecError> {
    match raw
        .details
        .iter()
        .find(|d| !["ship", "owner", "count", "cells"].contains(&d.as_str()))
    {
        Some(bad) => Err(SpecError::new(
            Table::Details,
            format!("unknown detail `{bad}` in `details`; expected ship, owner, count or cells"),
        )),
        None => Ok(()),
    }
}

/// Each counter an event adds to, and the move limit's `moves`, is listed in `[counters]`.
fn check_counters(
    raw: &RawSpec,
    events: &[Option<EventRule>],
    counters: &[Counter],
) -> Result<(), SpecError> {
    for (e, rule) in Event::ALL.iter().zip(events) {
        if let Some(r) = rule {
            for (c, n) in [
                (Counter::Shots, r.shots),
                (Counter::Turns, r.turns),
                (Counter::Moves, r.moves),
            ] {
                if n > 0 && !counters.contains(&c) {
                    return Err(SpecError::new(
                        Table::Events(Some(e.key().to_string())),
                        format!(
                            "event `{}` adds to `{}`, which [counters] does not list",
                            e.key(),
                            c.name()
                        ),
                    ));
                }
            }
        }
    }
    if raw.end.move_limit.is_some() && !counters.contains(&Counter::Moves) {
        return Err(SpecError::new(
            Table::End,
            "`end.move_limit` needs a `moves` counter",
        ));
    }
    Ok(())
}

/// The players' names and the index of the one who moves first (`[players]`; one player,
/// `player`, where the table is absent).
fn players(raw: &RawSpec) -> Result<(Vec<String>, usize), SpecError> {
    Ok(match &raw.players {
        None => (vec!["player".to_string()], 0),
        Some(p) => {
            if p.names.len() != 2 || p.names[0] == p.names[1] {
                return Err(SpecError::new(
                    Table::Players,
                    "`players.names` must name exactly two different players",
                ));
            }
            if let Some(bad) = p.names.iter().find(|n| {
                *n == "none"
                    || n.is_empty()
                    || !n
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            }) {
                return Err(SpecError::new(
                    Table::Players,
                    format!(
                        "player name `{bad}` in `players.names`; expected lowercase letters, digits and `-`, and not `none`"
                    ),
                ));
            }
            let first = p.names.iter().position(|n| *n == p.first).ok_or_else(|| {
                SpecError::new(
                    Table::Players,
                    format!("`players.first` is `{}`, not one of {:?}", p.first, p.names),
                )
            })?;
            (p.names.clone(), first)
        }
    })
}

/// The fleet's items, each entry once per owner and `count` times (numbered names).
fn fleet_items(
    fleet: &[RawFleetEntry],
    owners: usize,
    board: &RawBoard,
    in_mode: &dyn Fn(Table, String) -> SpecError,
) -> Result<Vec<ItemDef>, SpecError> {
    let mut items = Vec::new();
    for owner in 0..owners {
        for entry in fleet {
            if entry.length == 0 || entry.length > board.rows.max(board.cols) {
                return Err(in_mode(
                    Table::Fleet,
                    format!(
                        "fleet entry `{}` has length {}; expected 1 to {}",
                        entry.name,
                        entry.length,
                        board.rows.max(board.cols)
                    ),
                ));
            }
            if entry.grenade && entry.length != 1 {
                return Err(SpecError::new(
                    Table::Fleet,
                    format!("grenade `{}` must have length 1", entry.name),
                ));
            }
            for i in 1..=entry.count {
                let name = if entry.count == 1 {
                    entry.name.clone()
                } else {
                    format!("{}-{i}", entry.name)
                };
                items.push(ItemDef {
                    name,
                    kind: entry.name.clone(),
                    length: entry.length,
                    grenade: entry.grenade,
                    owner,
                });
            }
        }
    }
    if items.len() > 250 {
        return Err(SpecError::new(
            Table::Fleet,
            "a fleet may hold at most 250 items",
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    for it in &items {
        if !seen.insert((it.owner, it.name.clone())) {
            return Err(in_mode(
                Table::Fleet,
                format!("fleet names `{}` twice", it.name),
            ));
        }
    }
    Ok(items)
}

/// The `[events]` table as rules, indexed by [`Event::index`].
fn event_rules(raw: &RawSpec) -> Result<Vec<Option<EventRule>>, SpecError> {
    let mut events: Vec<Option<EventRule>> = vec![None; Event::ALL.len()];
    for (key, ev) in &raw.events {
        let event = Event::ALL
            .into_iter()
            .find(|e| e.key() == key)
            .ok_or_else(|| {
                SpecError::new(
                    Table::Events(Some(key.clone())),
                    format!("unknown event `{key}` in [events]"),
                )
            })?;
        if [ev.shots, ev.turns, ev.moves].iter().any(|n| *n > 100) {
            return Err(SpecError::new(
                Table::Events(Some(key.clone())),
                format!("event `{key}` costs more than 100 on a counter; expected 0 to 100"),
            ));
        }
        events[event.index()] = Some(EventRule {
            outcome: ev.outcome,
            shots: ev.shots,
            turns: ev.turns,
            moves: ev.moves,
            passes_turn: ev.passes_turn,
            decision: ev.decision.clone(),
            clause: ev.clause.clone(),
        });
    }
    Ok(events)
}

/// Each event the game can meet has a rule: the six every assignment has, and those its
/// grenades, second player and powers bring.
fn required_events(
    events: &[Option<EventRule>],
    grenades: bool,
    players: usize,
    drone_uses: Option<u8>,
    missile_uses: Option<u8>,
) -> Result<(), SpecError> {
    let need = |e: Event, why: &str| -> Result<(), SpecError> {
        if events[e.index()].is_none() {
            Err(SpecError::new(
                Table::Events(None),
                format!("[events] needs `{}` {why}", e.key()),
            ))
        } else {
            Ok(())
        }
    };
    for e in [
        Event::Miss,
        Event::Hit,
        Event::Sunk,
        Event::RepeatMiss,
        Event::RepeatHit,
        Event::OffBoard,
    ] {
        need(e, "(every assignment has it)")?;
    }
    if grenades {
        need(Event::Grenade, "because the fleet has grenades")?;
    }
    if players > 1 {
        need(Event::OutOfTurn, "because the game has two players")?;
    }
    if drone_uses.is_some() {
        need(Event::Drone, "because the assignment has a drone")?;
    }
    if missile_uses.is_some() {
        need(Event::Missile, "because the assignment has a missile")?;
    }
    if drone_uses.is_some() || missile_uses.is_some() {
        need(Event::PowerUsedUp, "because the assignment has powers")?;
        need(Event::PowerOffBoard, "because the assignment has powers")?;
    }
    Ok(())
}

/// The handout's alphabet, with each player's own glyphs where `[display.players.NAME]`
/// gives them.
fn display(raw: &RawSpec, players: &[String]) -> Result<Display, SpecError> {
    let d = &raw.display;
    let mut glyph_players = vec![None; players.len()];
    for (name, g) in &d.players {
        let i = players.iter().position(|p| p == name).ok_or_else(|| {
            SpecError::new(
                Table::DisplayPlayers(name.clone()),
                format!("[display.players.{name}] names no player"),
            )
        })?;
        glyph_players[i] = Some((g.hit.clone(), g.grenade.clone()));
    }
    Ok(Display {
        untried: d.untried.clone(),
        miss: d.miss.clone(),
        hit: d.hit.clone(),
        sunk: d.sunk.clone().unwrap_or_else(|| d.hit.clone()),
        ship: d.ship.clone(),
        grenade: d.grenade.clone().unwrap_or_else(|| d.hit.clone()),
        separator: d.separator.clone(),
        sunk_by_kind: d.sunk_by_kind.clone().unwrap_or_default(),
        reveal_at_end: d.reveal_at_end,
        players: glyph_players,
    })
}

/// The `[queries]` table: each query's meaning, and a decision only on a `fresh-hit` one.
fn queries(raw: &RawSpec) -> Result<Vec<Query>, SpecError> {
    let mut queries = Vec::new();
    for (name, q) in &raw.queries {
        let meaning = match q.meaning.as_str() {
            "valid" => Meaning::Valid,
            "targeted" => Meaning::Targeted,
            "ship-at" => Meaning::ShipAt,
            "open-sea" => Meaning::OpenSea,
            "fresh-hit" => Meaning::FreshHit,
            other => {
                return Err(SpecError::new(
                    Table::Query(name.clone()),
                    format!(
                        "query `{name}` has meaning `{other}`; expected valid, targeted, ship-at, open-sea or fresh-hit"
                    ),
                ));
            }
        };
        if q.decision.is_some() && meaning != Meaning::FreshHit {
            return Err(SpecError::new(
                Table::Query(name.clone()),
                format!("query `{name}` names a decision, which only a `fresh-hit` query may"),
            ));
        }
        queries.push(Query {
            name: name.clone(),
            function: q.function.clone(),
            meaning,
            decision: q.decision.clone(),
            clause: q.clause.clone(),
        });
    }
    Ok(queries)
}

/// Each `[[decision]]` listed once, and each decision an event or a query names recorded
/// with `accept_also` (the other reading is what the naming rule accepts).
fn check_decisions(raw: &RawSpec) -> Result<(), SpecError> {
    let mut ids = std::collections::BTreeSet::new();
    for dec in &raw.decisions {
        if !ids.insert(dec.id.clone()) {
            return Err(SpecError::new(
                Table::Decision,
                format!("decision `{}` is listed twice", dec.id),
            ));
        }
    }
    let named = raw
        .events
        .iter()
        .map(|(k, e)| {
            (
                format!("event `{k}`"),
                Table::Events(Some(k.clone())),
                &e.decision,
            )
        })
        .chain(
            raw.queries
                .iter()
                .map(|(k, q)| (format!("query `{k}`"), Table::Query(k.clone()), &q.decision)),
        );
    for (what, table, decision) in named {
        let Some(id) = decision else { continue };
        match raw.decisions.iter().find(|d| &d.id == id) {
            Some(d) if d.accept_also => {}
            Some(_) => {
                return Err(SpecError::new(
                    table,
                    format!(
                        "{what} names decision `{id}`, which does not accept the other reading (`accept_also = false`)"
                    ),
                ));
            }
            None => {
                return Err(SpecError::new(
                    table,
                    format!("{what} names decision `{id}`, which is not recorded"),
                ));
            }
        }
    }
    Ok(())
}

/// The step kinds a `[checks]` row may name besides the spec's state keys.
const STEP_KINDS: [&str; 5] = ["fire", "place", "query", "probe", "random_layouts"];

/// The `[checks]` table, each key a state key the spec observes or a step kind.
fn check_rules(raw: &RawSpec) -> Result<Vec<CheckRule>, SpecError> {
    raw.checks
        .iter()
        .map(|(kind, c)| {
            let state = raw.observe.iter().any(|k| k.name() == kind);
            let detail = raw.details.contains(kind);
            if !state && !detail && !STEP_KINDS.contains(&kind.as_str()) {
                return Err(SpecError::new(
                    Table::Check(kind.clone()),
                    format!(
                        "[checks.{kind}] names neither a state key in `observe`, a detail in `details` nor a step kind ({})",
                        STEP_KINDS.join(", ")
                    ),
                ));
            }
            if c.given == Given::Reference && ["probe", "random_layouts"].contains(&kind.as_str())
            {
                return Err(SpecError::new(
                    Table::Check(kind.clone()),
                    format!(
                        "[checks.{kind}] cannot be given the reference's state: a {kind} step builds its own games"
                    ),
                ));
            }
            Ok(CheckRule {
                kind: kind.clone(),
                function: c.function.clone(),
                given: c.given,
                sinking: c.sinking.clone(),
                clause: c.clause.clone(),
            })
        })
        .collect()
}
