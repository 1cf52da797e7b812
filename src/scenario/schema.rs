//! The scenario file's TOML schema, in one place. Polymorphic values (a cell, an
//! expectation, a state value) stay `toml::Value` with their span and are read by the loader,
//! so every error keeps its position (no `untagged` enums here).

use serde::Deserialize;
use std::collections::BTreeMap;
use toml::{Spanned, Value};

/// A whole scenario file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    /// The spec id, e.g. `"colab-6x6"`.
    pub assignment: Spanned<String>,
    pub title: Option<String>,
    /// Points for passing; default 1.
    pub points: Option<Spanned<i64>>,
    /// `visible` (default), `hidden` or `after-due-date`.
    pub visibility: Option<Spanned<String>>,
    #[serde(default)]
    pub tags: Vec<String>,
    /// The spec mode, e.g. `"expert"`; default the spec's own.
    pub mode: Option<Spanned<String>>,
    /// Free text for the reader.
    pub description: Option<String>,
    /// `"own"`: play end to end on the student's own state, even where the spec hands a
    /// function the reference's.
    pub given: Option<Spanned<String>>,
    #[serde(default)]
    pub setup: RawSetup,
    #[serde(default)]
    pub steps: Vec<Spanned<RawStep>>,
    pub end: Option<Spanned<RawState>>,
    /// A dialogue scenario: a whole program driven through its input (instead of `setup`,
    /// `steps` and `end`).
    pub dialogue: Option<Spanned<RawDialogue>>,
}

/// `[dialogue]`: the moves of a planned game, played against a whole program.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDialogue {
    /// Move names from the assignment's vocabulary, in order.
    pub moves: Spanned<Vec<Spanned<String>>>,
    /// Seeds the choices the plan leaves open (the fleet handed to solo-10x10's `main()`,
    /// the human's layout in grenades-8x8); default 1.
    pub seed: Option<Spanned<i64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSetup {
    /// One-player games: ship name → a list of cells, or `{ at = CELL, dir = "right" }`.
    pub ships: Option<Spanned<BTreeMap<Spanned<String>, Spanned<Value>>>>,
    /// Two-player games: player name → that player's ships and grenades.
    pub players: Option<Spanned<BTreeMap<Spanned<String>, RawPlayerSetup>>>,
    /// Two-player games: who moves first (default the spec's).
    pub first: Option<Spanned<String>>,
    /// A smaller board for a handout's worked example.
    pub rows: Option<Spanned<i64>>,
    pub cols: Option<Spanned<i64>>,
    /// A replacement fleet for a handout's worked example.
    pub fleet: Option<Spanned<Vec<RawFleetEntry>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFleetEntry {
    pub name: String,
    pub length: u8,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPlayerSetup {
    #[serde(default)]
    pub ships: Vec<Spanned<Value>>,
    #[serde(default)]
    pub grenades: Vec<Spanned<Value>>,
}

/// One `[[steps]]` entry: exactly one action, then what to expect.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStep {
    pub fire: Option<Spanned<Value>>,
    pub player: Option<Spanned<String>>,
    pub drone: Option<Spanned<Value>>,
    pub missile: Option<Spanned<Value>>,
    pub place: Option<Spanned<Value>>,
    /// A cell question by name (the spec's `[queries]`), with `at`.
    pub query: Option<Spanned<Value>>,
    /// The cell a `query` asks about.
    pub at: Option<Spanned<Value>>,
    /// A whole-function check by name (the spec's `[probes]`).
    pub probe: Option<Spanned<Value>>,
    /// Call the student's random-fleet function this many times and check every fleet.
    pub random_layouts: Option<Spanned<Value>>,
    pub expect: Option<Spanned<Value>>,
    pub state: Option<Spanned<RawState>>,
    /// The spec decision whose `accept_also` lets this step list several accepted values.
    pub decision: Option<Spanned<String>>,
    /// Free text for the reader.
    pub note: Option<String>,
}

/// A `state = { … }` table or the `[end]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawState {
    pub remaining: Option<Spanned<Value>>,
    pub sunk: Option<Spanned<Value>>,
    pub won: Option<Spanned<Value>>,
    pub lost: Option<Spanned<Value>>,
    pub winner: Option<Spanned<Value>>,
    pub next: Option<Spanned<Value>>,
    pub shots: Option<Spanned<Value>>,
    pub turns: Option<Spanned<Value>>,
    pub moves: Option<Spanned<Value>>,
    pub targeted: Option<Spanned<Value>>,
    pub board: Option<Spanned<Value>>,
    /// In `[end]` only: the decision whose `accept_also` allows listed alternatives.
    pub decision: Option<Spanned<String>>,
}

impl RawState {
    /// The keys present, in a fixed order, with their values.
    pub fn entries(&self) -> Vec<(&'static str, &Spanned<Value>)> {
        [
            ("remaining", &self.remaining),
            ("sunk", &self.sunk),
            ("won", &self.won),
            ("lost", &self.lost),
            ("winner", &self.winner),
            ("next", &self.next),
            ("shots", &self.shots),
            ("turns", &self.turns),
            ("moves", &self.moves),
            ("targeted", &self.targeted),
            ("board", &self.board),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| (k, v)))
        .collect()
    }
}
