//! One game under one spec's rules: placement, shots, powers, counters, turns and the end.

use super::cellset::CellSet;
use super::outcome::{Event, Outcome};
use crate::cell::{Cell, MAX_SIDE, RawCell};
use crate::spec::{Counter, LostCheck, Meaning, Rules, Touching};
use serde::Serialize;
use std::ops::ControlFlow;
use std::sync::Arc;

const NONE: u8 = u8::MAX;
const CELLS: usize = MAX_SIDE as usize * MAX_SIDE as usize;

/// A direction a ship extends from its anchor cell (rows grow downwards).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dir {
    Right,
    Down,
    Left,
    Up,
}

impl Dir {
    /// `(row step, col step)`.
    pub(crate) fn delta(self) -> (i64, i64) {
        match self {
            Dir::Right => (0, 1),
            Dir::Down => (1, 0),
            Dir::Left => (0, -1),
            Dir::Up => (-1, 0),
        }
    }

    pub(crate) fn from_word(w: &str) -> Option<Dir> {
        match w {
            "right" => Some(Dir::Right),
            "down" => Some(Dir::Down),
            "left" => Some(Dir::Left),
            "up" => Some(Dir::Up),
            _ => None,
        }
    }
}

/// A drone scans a row or a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Axis {
    Row,
    Col,
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum End {
    /// One-player game: every ship sunk.
    Won,
    /// One-player game: the move limit was reached.
    Lost,
    /// Two-player game: this player (index) lost all their ships.
    Loser(usize),
}

/// Why a placement was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlaceError {
    OffBoard,
    /// The cells are not a straight run of the item's length.
    NotALine,
    /// Shares a cell with this item (index).
    Overlap(usize),
    /// Touches this item (index) where the spec forbids it.
    Touching(usize),
    AlreadyPlaced,
}

impl PlaceError {
    /// A sentence for reports, naming the other item where there is one.
    pub fn describe(&self, rules: &Rules) -> String {
        match self {
            PlaceError::OffBoard => "extends off the board".into(),
            PlaceError::NotALine => {
                "is not a straight line of consecutive cells of its length".into()
            }
            PlaceError::Overlap(i) => format!("overlaps {}", rules.label(*i)),
            PlaceError::Touching(i) => format!("touches {}", rules.label(*i)),
            PlaceError::AlreadyPlaced => "is already placed".into(),
        }
    }
}

/// The answer to one action, with the details the handouts report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Answer {
    pub outcome: Outcome,
    /// What happened physically.
    pub event: Option<Event>,
    /// The kind of the ship sunk (e.g. `"cruiser"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ship: Option<String>,
    /// The owner of the ship sunk or grenade hit (two-player games).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// A drone's count of ship cells.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// A missile's struck cells and each one's outcome, row by row.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<(Cell, Outcome)>,
    /// Why a placement was rejected, or what a probe found wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The answer to a cell question (`query` steps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<QueryValue>,
}

/// The answer to a cell question: a truth value, or a ship name (`None` for no ship).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum QueryValue {
    Bool(bool),
    Ship(Option<String>),
}

impl std::fmt::Display for QueryValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueryValue::Bool(b) => write!(f, "{b}"),
            QueryValue::Ship(Some(s)) => f.write_str(s),
            QueryValue::Ship(None) => f.write_str("none"),
        }
    }
}

impl Answer {
    /// The answer to a placement: `ok`, or `rejected` with why.
    pub fn placement(outcome: Outcome, reason: Option<String>) -> Answer {
        Answer {
            reason,
            ..Answer::of(outcome, None)
        }
    }

    /// The answer to a cell question.
    pub fn value(value: QueryValue) -> Answer {
        Answer {
            value: Some(value),
            ..Answer::of(Outcome::Ok, None)
        }
    }

    fn of(outcome: Outcome, event: Option<Event>) -> Answer {
        Answer {
            outcome,
            event,
            ship: None,
            owner: None,
            count: None,
            cells: vec![],
            reason: None,
            value: None,
        }
    }
}

/// A shot's answer as the engine works it out: small and `Copy`, the item as an index whose
/// names ([`Answer::ship`], [`Answer::owner`]) are looked up only when it becomes an
/// [`Answer`] ([`Game::answer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shot {
    pub outcome: Outcome,
    /// What happened physically.
    pub event: Option<Event>,
    /// The item a new shot struck (a ship hit or sunk, a grenade), in fleet order.
    pub item: Option<u8>,
}

impl Shot {
    fn of(outcome: Outcome, event: Option<Event>) -> Shot {
        Shot {
            outcome,
            event,
            item: None,
        }
    }
}

/// A game in progress. Cheap to clone (no heap beyond the item tables).
#[derive(Debug, Clone)]
pub struct Game {
    rules: Arc<Rules>,
    cells: Vec<Vec<Cell>>,
    hits: Vec<u8>,
    occupant: Box<[u8; CELLS]>,
    occupied: CellSet,
    fired: CellSet,
    counters: [u32; 3],
    powers_used: [u8; 2],
    next: usize,
    skips: Vec<u8>,
    end: Option<End>,
    /// grenades-8x8 decision grenade-during-double-turn, the other reading: a grenade hit
    /// during the opponent's lost turn cancels it instead of queueing a lost turn.
    cancel_lost_turns: bool,
}

fn index(c: Cell) -> usize {
    usize::from(c.row) * usize::from(MAX_SIDE) + usize::from(c.col)
}

impl Game {
    /// An empty board under `rules`: nothing placed, nothing shot, the first player to move.
    pub fn new(rules: Arc<Rules>) -> Game {
        let n = rules.items.len();
        Game {
            next: rules.first,
            skips: vec![0; rules.players.len()],
            cells: vec![Vec::new(); n],
            hits: vec![0; n],
            occupant: Box::new([NONE; CELLS]),
            occupied: CellSet::default(),
            fired: CellSet::default(),
            counters: [0; 3],
            powers_used: [0; 2],
            end: None,
            cancel_lost_turns: false,
            rules,
        }
    }

    /// Gives the turn to player `p` (index), for a setup that names who moves first.
    /// Plays grenades-8x8's decision grenade-during-double-turn in its other reading (an
    /// `accept_also` one): a grenade hit while the opponent's turn is lost cancels that lost
    /// turn, so play alternates again, instead of queueing a lost turn of the shooter's.
    pub fn cancel_lost_turns(&mut self, yes: bool) {
        self.cancel_lost_turns = yes;
    }

    pub fn set_next(&mut self, p: usize) {
        self.next = p;
    }

    pub fn rules(&self) -> &Arc<Rules> {
        &self.rules
    }

    /// The cells of item `i` (empty while unplaced).
    pub fn item_cells(&self, i: usize) -> &[Cell] {
        &self.cells[i]
    }

    pub fn is_placed(&self, i: usize) -> bool {
        !self.cells[i].is_empty()
    }

    /// The on-board cell for `raw`, if it is on this board.
    pub fn on_board(&self, raw: RawCell) -> Option<Cell> {
        self.rules.cell(raw)
    }

    /// Places item `item` on `length` cells from `at` towards `dir`.
    pub fn place(&mut self, item: usize, at: RawCell, dir: Dir) -> Result<(), PlaceError> {
        let length = usize::from(self.rules.items[item].length);
        let (dr, dc) = dir.delta();
        // On the stack: the layout search places thousands of lines a fleet.
        let mut cells = [Cell { row: 0, col: 0 }; MAX_SIDE as usize];
        if length > cells.len() {
            return Err(PlaceError::OffBoard);
        }
        for (i, cell) in cells.iter_mut().take(length).enumerate() {
            let i = i as i64;
            let raw = RawCell {
                row: at.row.saturating_add(dr * i),
                col: at.col.saturating_add(dc * i),
            };
            *cell = self.on_board(raw).ok_or(PlaceError::OffBoard)?;
        }
        self.place_cells(item, &cells[..length])
    }

    /// Places item `item` on exactly `cells`, which must be on the board and form a straight
    /// run of the item's length; the spec's overlap and touching rules apply.
    pub fn place_cells(&mut self, item: usize, cells: &[Cell]) -> Result<(), PlaceError> {
        if self.is_placed(item) {
            return Err(PlaceError::AlreadyPlaced);
        }
        let def = &self.rules.items[item];
        if cells
            .iter()
            .any(|c| c.row >= self.rules.rows || c.col >= self.rules.cols)
        {
            return Err(PlaceError::OffBoard);
        }
        if !is_line(cells, def.length) {
            return Err(PlaceError::NotALine);
        }
        for c in cells {
            let o = self.occupant[index(*c)];
            if o != NONE {
                return Err(PlaceError::Overlap(usize::from(o)));
            }
        }
        if self.rules.touching != Touching::Allowed {
            let corners = self.rules.touching == Touching::ForbiddenEdgeAndCorner;
            for c in cells {
                for (dr, dc) in NEIGHBOURS {
                    if !corners && dr != 0 && dc != 0 {
                        continue;
                    }
                    let n = RawCell {
                        row: i64::from(c.row) + dr,
                        col: i64::from(c.col) + dc,
                    };
                    if let Some(n) = self.on_board(n) {
                        let o = self.occupant[index(n)];
                        if o != NONE && usize::from(o) != item {
                            return Err(PlaceError::Touching(usize::from(o)));
                        }
                    }
                }
            }
        }
        for c in cells {
            self.occupant[index(*c)] = item as u8;
            self.occupied.insert(*c);
        }
        let mut sorted = cells.to_vec();
        sorted.sort();
        self.cells[item] = sorted;
        Ok(())
    }

    /// Takes item `item` off the board again (the layout search's backtracking; nothing has
    /// been shot then).
    pub(super) fn remove(&mut self, item: usize) {
        for c in std::mem::take(&mut self.cells[item]) {
            self.occupant[index(c)] = NONE;
            self.occupied.remove(c);
        }
    }

    /// Fires at `at` for `player` (index; `None` means whoever's turn it is).
    ///
    /// Follows the spec's `[events]` table: off-board, then repeated, then record the shot,
    /// then miss / grenade / sunk / hit (colab-6x6 Step 7's order, shared by every handout).
    pub fn fire(&mut self, player: Option<usize>, at: RawCell) -> Answer {
        let shot = self.shoot(player, at);
        self.answer(shot)
    }

    /// [`Game::fire`], answered as a [`Shot`]: no names looked up, nothing allocated.
    pub fn shoot(&mut self, player: Option<usize>, at: RawCell) -> Shot {
        if let Some(a) = self.game_over_answer() {
            return a;
        }
        let shooter = player.unwrap_or(self.next);
        if self.rules.players.len() > 1 && shooter != self.next {
            return self.apply(Event::OutOfTurn, shooter, Shot::of(Outcome::Invalid, None));
        }
        let Some(cell) = self.on_board(at) else {
            return self.apply(Event::OffBoard, shooter, Shot::of(Outcome::Invalid, None));
        };
        let shot = self.strike(cell, shooter);
        self.apply(shot.event.unwrap_or(Event::Miss), shooter, shot)
    }

    /// `shot` as the handouts report it: the sunk ship's kind and, in two-player games, the
    /// owner of what a new shot struck.
    pub fn answer(&self, shot: Shot) -> Answer {
        let mut a = Answer::of(shot.outcome, shot.event);
        if let Some(i) = shot.item {
            let def = &self.rules.items[usize::from(i)];
            a.owner = (self.rules.players.len() > 1).then(|| self.rules.players[def.owner].clone());
            if shot.event == Some(Event::Sunk) {
                a.ship = Some(def.kind.clone());
            }
        }
        a
    }

    /// Scans row or column `index` with the drone: counts ship cells, hit or not
    /// (battleboats, "Drone": "The drone will count boat spots that have already been hit").
    pub fn drone(&mut self, axis: Axis, index: i64) -> Answer {
        let shooter = match self.power_ready(0) {
            ControlFlow::Continue(shooter) => shooter,
            ControlFlow::Break(a) => return a,
        };
        let limit = match axis {
            Axis::Row => self.rules.rows,
            Axis::Col => self.rules.cols,
        };
        if !(0..i64::from(limit)).contains(&index) {
            let shot = self.apply(
                Event::PowerOffBoard,
                shooter,
                Shot::of(Outcome::Invalid, None),
            );
            return self.answer(shot);
        }
        self.powers_used[0] += 1;
        let count = self
            .occupied
            .iter()
            .filter(|c| {
                let on_line = match axis {
                    Axis::Row => i64::from(c.row) == index,
                    Axis::Col => i64::from(c.col) == index,
                };
                on_line
                    && !self.rules.items[usize::from(self.occupant[super::game::index(*c)])].grenade
            })
            .count() as u32;
        let shot = self.apply(Event::Drone, shooter, Shot::of(Outcome::Drone, None));
        let mut a = self.answer(shot);
        a.count = Some(count);
        a
    }

    /// Fires a missile at the 3×3 square centred on `centre`, clipped to the board
    /// (battleboats, "Missile"). Each struck cell is resolved like a shot but costs no shot.
    pub fn missile(&mut self, centre: RawCell) -> Answer {
        let shooter = match self.power_ready(1) {
            ControlFlow::Continue(shooter) => shooter,
            ControlFlow::Break(a) => return a,
        };
        if self.on_board(centre).is_none() {
            let shot = self.apply(
                Event::PowerOffBoard,
                shooter,
                Shot::of(Outcome::Invalid, None),
            );
            return self.answer(shot);
        }
        self.powers_used[1] += 1;
        let mut struck = Vec::with_capacity(9);
        for dr in -1..=1 {
            for dc in -1..=1 {
                let raw = RawCell {
                    row: centre.row.saturating_add(dr),
                    col: centre.col.saturating_add(dc),
                };
                if let Some(cell) = self.on_board(raw) {
                    let word = match self.strike(cell, shooter).event {
                        Some(Event::RepeatMiss | Event::RepeatHit) => Outcome::Repeated,
                        Some(Event::Sunk) => Outcome::Sunk,
                        Some(Event::Hit) => Outcome::Hit,
                        Some(Event::Grenade) => Outcome::Grenade,
                        _ => Outcome::Miss,
                    };
                    struck.push((cell, word));
                }
            }
        }
        let shot = self.apply(Event::Missile, shooter, Shot::of(Outcome::Missile, None));
        let mut a = self.answer(shot);
        a.cells = struck;
        a
    }

    /// Whether power `slot` (0 drone, 1 missile) may be used now: the player using it, or
    /// the answer when it may not (the game is over, the assignment has no such power, or it
    /// is used up: battleboats §5, "There is no turn penalty").
    fn power_ready(&mut self, slot: usize) -> ControlFlow<Answer, usize> {
        if let Some(a) = self.game_over_answer() {
            return ControlFlow::Break(self.answer(a));
        }
        let shooter = self.next;
        let limit = if slot == 0 {
            self.rules.drone_uses
        } else {
            self.rules.missile_uses
        };
        let Some(uses) = limit else {
            return ControlFlow::Break(Answer::of(Outcome::Invalid, None));
        };
        if self.powers_used[slot] >= uses {
            let shot = self.apply(Event::PowerUsedUp, shooter, Shot::of(Outcome::UsedUp, None));
            return ControlFlow::Break(self.answer(shot));
        }
        ControlFlow::Continue(shooter)
    }

    /// Resolves a shot on an on-board cell: records it and updates hits. No counters.
    fn strike(&mut self, cell: Cell, shooter: usize) -> Shot {
        let o = self.occupant[index(cell)];
        let item = (o != NONE).then_some(usize::from(o));
        if !self.fired.insert(cell) {
            return match item {
                Some(i) if !self.rules.items[i].grenade => {
                    Shot::of(Outcome::Repeated, Some(Event::RepeatHit))
                }
                _ => Shot::of(Outcome::Repeated, Some(Event::RepeatMiss)),
            };
        }
        let Some(i) = item else {
            return Shot::of(Outcome::Miss, Some(Event::Miss));
        };
        let def = &self.rules.items[i];
        let struck = |event| Shot {
            outcome: Outcome::Hit,
            event: Some(event),
            item: Some(o),
        };
        if def.grenade {
            let other = 1 - shooter.min(1);
            if self.cancel_lost_turns && self.skips.get(other).is_some_and(|s| *s > 0) {
                self.skips[other] -= 1;
            } else {
                self.skips[shooter] += 1;
            }
            return struck(Event::Grenade);
        }
        self.hits[i] += 1;
        if self.hits[i] == def.length {
            struck(Event::Sunk)
        } else {
            struck(Event::Hit)
        }
    }

    /// If the game is over (or the move limit turns into a loss now), the answer to any action.
    fn game_over_answer(&mut self) -> Option<Shot> {
        let rule = self.rules.event(Event::GameOver)?;
        let outcome = rule.outcome;
        if self.end.is_none()
            && self.rules.lost_check == LostCheck::BeforeNextShot
            && self.rules.move_limit.is_some_and(|l| self.counters[2] >= l)
        {
            self.end = Some(End::Lost);
        }
        self.end
            .is_some()
            .then(|| Shot::of(outcome, Some(Event::GameOver)))
    }

    /// Applies `event`'s outcome word and costs, then the end and turn rules.
    fn apply(&mut self, event: Event, shooter: usize, mut answer: Shot) -> Shot {
        answer.event = Some(event);
        let Some(rule) = self.rules.event(event) else {
            return answer;
        };
        if !matches!(event, Event::Drone | Event::Missile) {
            answer.outcome = rule.outcome;
        }
        let (shots, turns, moves, passes_turn) =
            (rule.shots, rule.turns, rule.moves, rule.passes_turn);
        self.counters[0] = self.counters[0].saturating_add(shots);
        self.counters[1] = self.counters[1].saturating_add(turns);
        self.counters[2] = self.counters[2].saturating_add(moves);
        let struck = matches!(event, Event::Sunk | Event::Missile);
        if struck && self.end.is_none() {
            self.check_sunk_all();
        }
        if self.end.is_none()
            && self.rules.lost_check == LostCheck::AtLimit
            && self.rules.move_limit.is_some_and(|l| self.counters[2] >= l)
        {
            self.end = Some(End::Lost);
        }
        if self.rules.players.len() > 1 && passes_turn && self.end.is_none() {
            let other = 1 - shooter;
            if self.skips[other] > 0 {
                self.skips[other] -= 1;
                self.next = shooter;
            } else {
                self.next = other;
            }
        }
        answer
    }

    fn check_sunk_all(&mut self) {
        let players = self.rules.players.len();
        for p in 0..players {
            let all_sunk = {
                let mut ships = self.ships_of(p).peekable();
                ships.peek().is_some() && ships.all(|i| self.is_sunk(i))
            };
            if all_sunk {
                self.end = Some(if players == 1 {
                    End::Won
                } else {
                    End::Loser(p)
                });
                return;
            }
        }
    }

    /// Placed ships (not grenades) of player `p`, in fleet order.
    fn ships_of(&self, p: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.rules.items.len()).filter(move |&i| {
            let d = &self.rules.items[i];
            d.owner == p && !d.grenade && self.is_placed(i)
        })
    }

    /// Whether placed ship `i` has every cell hit.
    pub fn is_sunk(&self, i: usize) -> bool {
        self.is_placed(i) && self.hits[i] == self.rules.items[i].length
    }

    /// Names of placed ships afloat, in fleet order (with the owner in two-player games).
    pub fn remaining(&self) -> Vec<String> {
        self.ship_names(false)
    }

    /// Names of sunk ships, in fleet order.
    pub fn sunk(&self) -> Vec<String> {
        self.ship_names(true)
    }

    fn ship_names(&self, sunk: bool) -> Vec<String> {
        (0..self.rules.players.len())
            .flat_map(|p| self.ships_of(p).collect::<Vec<_>>())
            .filter(|&i| self.is_sunk(i) == sunk)
            .map(|i| self.rules.label(i))
            .collect()
    }

    pub fn end(&self) -> Option<End> {
        self.end
    }

    /// Whether a one-player game is won: every ship sunk. With no ship placed at all this is
    /// true, as the handouts' `has_won()` / `are_unsunk_ships_left()` answer for an empty fleet.
    pub fn won(&self) -> bool {
        self.end == Some(End::Won)
            || (self.rules.players.len() == 1 && self.ships_of(0).next().is_none())
    }

    pub fn lost(&self) -> bool {
        self.end == Some(End::Lost)
    }

    /// The winner's name in a two-player game that has ended.
    pub fn winner(&self) -> Option<&str> {
        match self.end {
            Some(End::Loser(p)) => Some(&self.rules.players[1 - p]),
            _ => None,
        }
    }

    /// The name of the player whose turn it is.
    pub fn next_player(&self) -> &str {
        &self.rules.players[self.next]
    }

    pub fn counter(&self, c: Counter) -> u32 {
        match c {
            Counter::Shots => self.counters[0],
            Counter::Turns => self.counters[1],
            Counter::Moves => self.counters[2],
        }
    }

    /// The cells shot at so far.
    pub fn targeted(&self) -> CellSet {
        self.fired
    }

    /// The item (index) on `cell`, if any.
    pub fn occupant(&self, cell: Cell) -> Option<usize> {
        let o = self.occupant[index(cell)];
        (o != NONE).then_some(usize::from(o))
    }

    /// Answers a cell question the way the handout's function would (see [`Meaning`]).
    /// Off-board cells are not on any ship, not targeted and not valid.
    pub fn query(&self, meaning: Meaning, at: RawCell) -> QueryValue {
        let cell = self.on_board(at);
        let ship = |c: Cell| self.occupant(c).filter(|&i| !self.rules.items[i].grenade);
        match meaning {
            Meaning::Valid => QueryValue::Bool(cell.is_some()),
            Meaning::Targeted => QueryValue::Bool(cell.is_some_and(|c| self.was_targeted(c))),
            Meaning::ShipAt => QueryValue::Ship(cell.and_then(ship).map(|i| self.rules.label(i))),
            Meaning::FreshHit => {
                QueryValue::Bool(cell.is_some_and(|c| ship(c).is_some() && !self.was_targeted(c)))
            }
            Meaning::OpenSea => QueryValue::Bool(cell.is_some_and(|c| {
                (-1..=1).all(|dr| {
                    (-1..=1).all(|dc| {
                        let n = RawCell {
                            row: i64::from(c.row) + dr,
                            col: i64::from(c.col) + dc,
                        };
                        self.on_board(n).and_then(ship).is_none()
                    })
                })
            })),
        }
    }

    /// Whether `cell` has been shot.
    pub fn was_targeted(&self, cell: Cell) -> bool {
        self.fired.contains(cell)
    }
}

const NEIGHBOURS: [(i64, i64); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

fn is_line(cells: &[Cell], length: u8) -> bool {
    if cells.len() != usize::from(length) {
        return false;
    }
    let mut s = cells.to_vec();
    s.sort();
    let same_row = s.iter().all(|c| c.row == s[0].row);
    let same_col = s.iter().all(|c| c.col == s[0].col);
    s.windows(2)
        .all(|w| (same_row && w[1].col == w[0].col + 1) || (same_col && w[1].row == w[0].row + 1))
}
