//! Requests: what broadside writes to a target's standard input, one JSON object a line.
//!
//! [`Request`] is built by the harness side ([`crate::target::Process`]) from the core's
//! types and read back by the native worker, so both ends share one definition of every
//! field. Its JSON is pinned by snapshot tests (`tests/protocol.rs`) and documented for
//! driver authors in `specs/protocol.md`.

use crate::cell::RawCell;
use crate::engine::{Axis, Dir};
use crate::harness::target::{Call, GivenState};
use crate::scenario::{Action, Setup};
use crate::spec::{Rules, StateKey};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A cell on the wire: `[row, col]`, zero-based, row 0 at the top, on the board or not.
pub type Pair = [i64; 2];

fn pair(c: RawCell) -> Pair {
    [c.row, c.col]
}

/// One request. Internally tagged: `{"id": 3, "op": "fire", "at": [1, 1], "player": null}`.
/// Every request carries an `id` (a whole number, unique in the session) that its answer
/// repeats.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// The first request of a session: the protocol version broadside speaks and the
    /// assignment to be graded. Answered with `protocol` (which must be the same) and
    /// `driver`, optionally `given` and `module` (see [`super::Response`]).
    Hello {
        id: u64,
        /// Always `super::VERSION`.
        protocol: u32,
        /// The spec id, e.g. `colab-6x6`.
        assignment: String,
        /// The spec's mode, e.g. `standard`.
        mode: String,
    },
    /// Starts a fresh game: the rules a driver needs and the setup in canonical form.
    /// Answered with nothing but the envelope.
    NewGame {
        id: u64,
        rules: GameRules,
        setup: GameSetup,
    },
    /// A shot at `at`, by `player` in two-player games (`null` in one-player games, and
    /// for whoever's turn it is). Answered with an `outcome`, and `ship` or `owner` where
    /// the assignment reports them.
    Fire {
        id: u64,
        at: Pair,
        player: Option<String>,
        /// The reference's state to start from (see [`GivenState`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        given: Option<GivenState>,
    },
    /// A drone scan of one row or column. Answered with an `outcome` (`drone`, `used-up`,
    /// `invalid`) and, for `drone`, the ship cells it saw in `count`.
    Drone {
        id: u64,
        #[serde(with = "AxisWord")]
        axis: Axis,
        /// The row or column, zero-based; may be off the board.
        index: i64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        given: Option<GivenState>,
    },
    /// A missile at `at` (it strikes the 3×3 square around it). Answered with an `outcome`
    /// (`missile`, `used-up`, `invalid`) and, for `missile`, each struck cell's outcome.
    Missile {
        id: u64,
        at: Pair,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        given: Option<GivenState>,
    },
    /// Places the fleet item `ship` from `at` towards `dir`. Answered with an `outcome`
    /// (`ok` or `rejected`) and perhaps a `reason`.
    Place {
        id: u64,
        /// The item's name (`cruiser-2` when the fleet has several of a kind).
        ship: String,
        /// The fleet entry's name (`cruiser`).
        kind: String,
        /// In cells.
        length: u8,
        /// The player whose fleet it belongs to.
        owner: String,
        at: Pair,
        #[serde(with = "DirWord")]
        dir: Dir,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        given: Option<GivenState>,
    },
    /// Asks the student function `function` the spec's cell question `query` about `at`.
    /// Answered with the `outcome` `ok` and a `value`: true/false, a ship name, or null.
    Query {
        id: u64,
        /// The spec's name for the question, e.g. `ship-at`.
        query: String,
        function: String,
        at: Pair,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        given: Option<GivenState>,
    },
    /// Runs the spec's whole-function check `probe`. Answered with an `outcome` (`ok` or
    /// `rejected`) and a `reason` when rejected.
    Probe {
        id: u64,
        probe: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        given: Option<GivenState>,
    },
    /// Calls the student's random-fleet function `count` times. Answered with the
    /// `outcome` `ok` and `layouts`: `count` fleets, each a list of ships, each a list of
    /// cells.
    RandomLayouts {
        id: u64,
        count: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        given: Option<GivenState>,
    },
    /// Asks for state `keys`. Answered with a `state` object holding each key.
    Observe {
        id: u64,
        keys: Vec<StateKey>,
        /// The keys to ask of `given` instead of the driver's own state; present exactly
        /// when `given` is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        given_keys: Option<Vec<StateKey>>,
        /// The reference's state after the step (see [`GivenState`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        given: Option<GivenState>,
    },
    /// Many requests in one line, answered in one line with their answers in order in
    /// `responses` (a driver may stop after the first failed one).
    Batch { id: u64, requests: Vec<Request> },
}

/// Every `op` word, in the order of [`Request`]'s variants.
pub const OPS: [&str; 11] = [
    "hello",
    "new_game",
    "fire",
    "drone",
    "missile",
    "place",
    "query",
    "probe",
    "random_layouts",
    "observe",
    "batch",
];

/// The `rules` of a `new_game`: what a driver needs of the spec.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GameRules {
    /// The spec id.
    pub assignment: String,
    pub mode: String,
    /// The board's size, in cells.
    pub rows: u8,
    pub cols: u8,
    /// The player names, in the spec's order (one-player games: one name).
    pub players: Vec<String>,
    /// Every item of the fleet (ships and grenades), in the spec's order.
    pub fleet: Vec<FleetItem>,
    /// The handout's glyphs for the `board` observation.
    pub display: Glyphs,
    /// The student functions that must not change what they are given, each with its
    /// handout clause (the spec's `[looks_only]`): a driver fails a call of one that does.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub looks_only: BTreeMap<String, String>,
}

/// One item of the fleet in [`GameRules`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetItem {
    /// Unique per owner: `Submarine`, or `cruiser-2` when the fleet has several of a kind.
    pub name: String,
    /// The fleet entry's name: `cruiser` for `cruiser-2`; what a sinking reports.
    pub kind: String,
    /// In cells.
    pub length: u8,
    pub grenade: bool,
    /// The player it belongs to.
    pub owner: String,
}

/// The handout's alphabet: one glyph per kind of cell, and what goes between cells.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Glyphs {
    pub untried: String,
    pub miss: String,
    pub hit: String,
    pub sunk: String,
    pub ship: String,
    pub grenade: String,
    pub separator: String,
    /// A sunk ship's glyph by its kind, where the handout draws kinds apart.
    pub sunk_by_kind: BTreeMap<String, String>,
}

/// The `setup` of a `new_game`: where every ship is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSetup {
    /// In fleet order.
    pub ships: Vec<PlacedShip>,
    /// Two-player games: who moves first (null otherwise).
    pub first: Option<String>,
}

/// One ship of a [`GameSetup`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlacedShip {
    pub name: String,
    pub owner: String,
    pub cells: Vec<Pair>,
}

/// The core's [`Axis`] as its word on the wire (`row`, `col`).
#[derive(Serialize, Deserialize)]
#[serde(remote = "Axis", rename_all = "kebab-case")]
enum AxisWord {
    Row,
    Col,
}

/// The core's [`Dir`] as its word on the wire (`right`, `down`, `left`, `up`).
#[derive(Serialize, Deserialize)]
#[serde(remote = "Dir", rename_all = "kebab-case")]
enum DirWord {
    Right,
    Down,
    Left,
    Up,
}

impl Request {
    /// `hello`: the version and the assignment.
    pub fn hello(id: u64, rules: &Rules) -> Request {
        Request::Hello {
            id,
            protocol: super::VERSION,
            assignment: rules.id.clone(),
            mode: rules.mode.clone(),
        }
    }

    /// `new_game`: the rules a driver needs and the setup in canonical form.
    pub fn new_game(id: u64, rules: &Rules, setup: &Setup) -> Request {
        let player = |i: usize| rules.players[i].clone();
        let d = &rules.display;
        let fleet = rules
            .items
            .iter()
            .map(|i| FleetItem {
                name: i.name.clone(),
                kind: i.kind.clone(),
                length: i.length,
                grenade: i.grenade,
                owner: player(i.owner),
            })
            .collect();
        let ships = setup
            .items
            .iter()
            .map(|(i, cells)| PlacedShip {
                name: rules.items[*i].name.clone(),
                owner: player(rules.items[*i].owner),
                cells: cells.iter().map(|c| pair(RawCell::from(*c))).collect(),
            })
            .collect();
        Request::NewGame {
            id,
            rules: GameRules {
                assignment: rules.id.clone(),
                mode: rules.mode.clone(),
                rows: rules.rows,
                cols: rules.cols,
                players: rules.players.clone(),
                fleet,
                display: Glyphs {
                    untried: d.untried.clone(),
                    miss: d.miss.clone(),
                    hit: d.hit.clone(),
                    sunk: d.sunk.clone(),
                    ship: d.ship.clone(),
                    grenade: d.grenade.clone(),
                    separator: d.separator.clone(),
                    sunk_by_kind: d.sunk_by_kind.clone(),
                },
                looks_only: rules.looks_only.clone(),
            },
            setup: GameSetup {
                ships,
                first: setup.first.map(player),
            },
        }
    }

    /// One action as a request, starting from the reference's state `given` if any.
    pub fn action(id: u64, action: &Action, given: Option<GivenState>, rules: &Rules) -> Request {
        match action {
            Action::Fire { player, at } => Request::Fire {
                id,
                at: pair(*at),
                player: player.map(|p| rules.players[p].clone()),
                given,
            },
            Action::Drone { axis, index } => Request::Drone {
                id,
                axis: *axis,
                index: *index,
                given,
            },
            Action::Missile { at } => Request::Missile {
                id,
                at: pair(*at),
                given,
            },
            Action::Place { item, at, dir } => {
                let d = &rules.items[*item];
                Request::Place {
                    id,
                    ship: d.name.clone(),
                    kind: d.kind.clone(),
                    length: d.length,
                    owner: rules.players[d.owner].clone(),
                    at: pair(*at),
                    dir: *dir,
                    given,
                }
            }
            Action::Query { name, at, .. } => Request::Query {
                id,
                query: name.clone(),
                // The loader checked the query against the spec; a missing one would be
                // answered `missing` by the driver.
                function: rules
                    .query(name)
                    .map(|q| q.function.clone())
                    .unwrap_or_default(),
                at: pair(*at),
                given,
            },
            Action::Probe { name } => Request::Probe {
                id,
                probe: name.clone(),
                given,
            },
            Action::RandomLayouts { count } => Request::RandomLayouts {
                id,
                count: *count,
                given,
            },
        }
    }

    /// `observe` for some state keys of the target's own state.
    pub fn observe(id: u64, keys: &[StateKey]) -> Request {
        Request::Observe {
            id,
            keys: keys.to_vec(),
            given_keys: None,
            given: None,
        }
    }

    /// One call of a scenario as a request: an action or an `observe`, with the reference's
    /// state in `given` (and, for `observe`, the keys to ask of it in `given_keys`) where the
    /// harness hands it over.
    pub fn call(id: u64, call: &Call, rules: &Rules) -> Request {
        match call {
            Call::Act { action, given } => Request::action(id, action, given.clone(), rules),
            Call::Observe {
                keys,
                given,
                given_keys,
            } => Request::Observe {
                id,
                keys: keys.clone(),
                given_keys: given.as_ref().map(|_| given_keys.clone()),
                given: given.clone(),
            },
        }
    }

    /// `batch`: many requests in one line, answered in one line.
    pub fn batch(id: u64, requests: Vec<Request>) -> Request {
        Request::Batch { id, requests }
    }

    /// The request's `id`.
    pub fn id(&self) -> u64 {
        match self {
            Request::Hello { id, .. }
            | Request::NewGame { id, .. }
            | Request::Fire { id, .. }
            | Request::Drone { id, .. }
            | Request::Missile { id, .. }
            | Request::Place { id, .. }
            | Request::Query { id, .. }
            | Request::Probe { id, .. }
            | Request::RandomLayouts { id, .. }
            | Request::Observe { id, .. }
            | Request::Batch { id, .. } => *id,
        }
    }

    /// The request's `op` word, e.g. `new_game`.
    pub fn op(&self) -> &'static str {
        let i = match self {
            Request::Hello { .. } => 0,
            Request::NewGame { .. } => 1,
            Request::Fire { .. } => 2,
            Request::Drone { .. } => 3,
            Request::Missile { .. } => 4,
            Request::Place { .. } => 5,
            Request::Query { .. } => 6,
            Request::Probe { .. } => 7,
            Request::RandomLayouts { .. } => 8,
            Request::Observe { .. } => 9,
            Request::Batch { .. } => 10,
        };
        OPS[i]
    }

    /// The request as one line of JSON (without the newline). Object keys come out in
    /// serde_json's map order (sorted, as the protocol has always been written), whatever
    /// the order of the fields above.
    pub fn to_line(&self) -> String {
        serde_json::to_value(self)
            .expect("a request is strings, numbers, lists and maps with string keys")
            .to_string()
    }
}
