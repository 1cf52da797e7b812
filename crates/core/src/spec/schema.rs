//! The spec file's TOML schema, exactly as written in `specs/<id>.toml`.
//!
//! Every rule carries a `clause`: the handout words it comes from. [`super::Spec::from_raw`]
//! validates this into [`super::Rules`].

use super::rules::{Counter, Given, Language, LostCheck, StateKey, Touching};
use crate::cell::Notation;
use crate::engine::Outcome;
use serde::Deserialize;
use std::collections::BTreeMap;

/// A whole spec file.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a spec file: a table with `id`, `board`, `fleet`, `events` …"
)]
pub struct RawSpec {
    /// The assignment id scenarios name, e.g. `"colab-6x6"`.
    pub id: String,
    pub title: String,
    /// The handout file under `shared/handouts/` this spec encodes.
    pub handout: String,
    /// The language students submit in.
    pub language: Language,
    /// The name of the mode the top-level board, fleet and powers describe.
    #[serde(default = "default_mode")]
    pub mode: String,
    pub board: RawBoard,
    pub notation: RawNotation,
    pub fleet: Vec<RawFleetEntry>,
    pub placement: RawPlacement,
    pub players: Option<RawPlayers>,
    /// The counters the handout keeps, each with its clause.
    #[serde(default)]
    pub counters: BTreeMap<Counter, String>,
    /// What each event answers and costs, keyed by event (`miss`, `repeat-hit`, …).
    pub events: BTreeMap<String, RawEvent>,
    pub end: RawEnd,
    pub powers: Option<RawPowers>,
    /// Other modes: each overrides the board, fleet and powers of the default mode.
    #[serde(default)]
    pub modes: BTreeMap<String, RawMode>,
    /// The state keys an implementation of this assignment can be asked about.
    pub observe: Vec<StateKey>,
    /// The answer details an implementation reports: `ship` (the kind sunk), `owner`,
    /// `count` (a drone's), `cells` (a missile's).
    #[serde(default)]
    pub details: Vec<String>,
    pub display: RawDisplay,
    /// Questions about one cell that students' functions answer (`query` steps), by name.
    #[serde(default)]
    pub queries: BTreeMap<String, RawQuery>,
    /// Whole-function checks a driver runs (`probe` steps), by name.
    #[serde(default)]
    pub probes: BTreeMap<String, RawProbe>,
    /// The function that lays out a whole random fleet, if students write one.
    pub random_layout: Option<RawRandomLayout>,
    /// The student functions that only look (`has_won`, `is_sunk`, …), each with the
    /// handout clause that says so: a driver checks every call of one leaves what it was
    /// given unchanged, and a change fails that call's check.
    #[serde(default)]
    pub looks_only: BTreeMap<String, String>,
    /// What each kind of check judges, keyed by a state key (`remaining`), a step kind
    /// (`fire`, `place`, `query`) or an answer detail (`ship`, the ship a sinking names):
    /// the student function at fault when it fails, the state
    /// that function is handed, and the handout clause.
    #[serde(default)]
    pub checks: BTreeMap<String, RawCheckRule>,
    #[serde(rename = "decision", default)]
    pub decisions: Vec<RawDecision>,
    /// How the suite's marks are shared among the handout's functions and rules
    /// ([`super::rubric`]); without one, each scenario weighs its points.
    #[serde(default)]
    pub rubric: Option<super::rubric::RawRubric>,
}

/// One row of the `[checks]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a `[checks.NAME]` table")]
pub struct RawCheckRule {
    /// The student function the check judges, e.g. `remaining_ships` (several, comma-separated,
    /// where one answer comes from a chain of them).
    pub function: String,
    /// The state the function is handed for the check: `own` (the game as the student's
    /// earlier calls left it) or `reference` (the reference's state at that step, in the
    /// handout's representation), so a bug elsewhere does not fail this function's checks.
    #[serde(default)]
    pub given: Given,
    /// `fire`: the function that tells a hit from a sinking, where not `function` (its
    /// clause is the one of the row naming it, e.g. `[checks.sunk]`).
    pub sinking: Option<String>,
    pub clause: String,
}

fn default_mode() -> String {
    "standard".to_string()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a `[board]` table")]
pub struct RawBoard {
    pub rows: u8,
    pub cols: u8,
    pub clause: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a `[notation]` table")]
pub struct RawNotation {
    pub style: Notation,
    pub clause: String,
}

/// One kind of ship (or grenade) in the fleet; `count` copies are named `name-1`…`name-N`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a `[[fleet]]` entry")]
pub struct RawFleetEntry {
    pub name: String,
    pub length: u8,
    #[serde(default = "one")]
    pub count: u8,
    /// A grenade: one cell that costs the shooter a turn instead of sinking.
    #[serde(default)]
    pub grenade: bool,
    pub clause: String,
}

fn one() -> u8 {
    1
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a `[placement]` table")]
pub struct RawPlacement {
    pub touching: Touching,
    /// Whether students write placement code a `place` step can call (their clause says which).
    #[serde(default)]
    pub place_steps: bool,
    /// How reports write a `place` step: `direction` (from a cell towards up, down, left or
    /// right; the default) or `horizontal` (the handout's `row, column, horizontal, length`,
    /// from the top-left square).
    #[serde(default)]
    pub terms: super::rules::PlaceTerms,
    /// Whether a `place` step may place more ships of a kind than the fleet holds: the
    /// student's placement function is given no kind to count by, so legality is the board
    /// and the touching rule alone (solo-10x10's decision `placement-counts`).
    #[serde(default)]
    pub beyond_fleet: bool,
    pub clause: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a `[players]` table")]
pub struct RawPlayers {
    pub names: Vec<String>,
    pub first: String,
    pub clause: String,
}

/// One row of the `[events]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "an `[events.NAME]` table")]
pub struct RawEvent {
    pub outcome: Outcome,
    #[serde(default)]
    pub shots: u32,
    #[serde(default)]
    pub turns: u32,
    #[serde(default)]
    pub moves: u32,
    /// Whether the turn passes to the other player (two-player games).
    #[serde(default = "yes")]
    pub passes_turn: bool,
    /// An `accept_also` decision whose other reading answers this event as a miss that
    /// counts a shot (solo-10x10's `off-board-call`): the fuzzer expects either answer.
    #[serde(default)]
    pub decision: Option<String>,
    pub clause: String,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "an `[end]` table")]
pub struct RawEnd {
    /// A one-player game is lost when `moves` reaches this.
    pub move_limit: Option<u32>,
    #[serde(default)]
    pub lost_check: LostCheck,
    pub clause: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a `[powers]` table")]
pub struct RawPowers {
    pub drone: Option<RawPower>,
    pub missile: Option<RawPower>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a `[powers.drone]` or `[powers.missile]` table"
)]
pub struct RawPower {
    /// How many times a game the power may be used.
    pub uses: u8,
    pub clause: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a `[modes.NAME]` table")]
pub struct RawMode {
    pub board: Option<RawBoard>,
    pub fleet: Option<Vec<RawFleetEntry>>,
    pub powers: Option<RawPowers>,
    pub clause: String,
}

/// The handout's alphabet for drawing a board, one glyph per cell state.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a `[display]` table")]
pub struct RawDisplay {
    pub untried: String,
    pub miss: String,
    pub hit: String,
    /// A cell of a sunk ship; defaults to `hit`.
    pub sunk: Option<String>,
    /// An unshot ship cell when ships are shown.
    pub ship: String,
    /// An exploded grenade (and an unshot one when ships are shown).
    pub grenade: Option<String>,
    /// Between two cells of a row.
    #[serde(default)]
    pub separator: String,
    /// A sunk ship's cells drawn by its kind, e.g. `cruiser = "C"`.
    pub sunk_by_kind: Option<BTreeMap<String, String>>,
    /// Whether the board is drawn with every ship and grenade shown once the game has ended.
    #[serde(default)]
    pub reveal_at_end: bool,
    /// Per-player glyphs that replace `hit`, `sunk`, `ship` and `grenade` for that player's items.
    #[serde(default)]
    pub players: BTreeMap<String, RawPlayerGlyphs>,
    pub clause: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a `[display.players.NAME]` table")]
pub struct RawPlayerGlyphs {
    pub hit: String,
    pub grenade: String,
}

/// A place where the handout is ambiguous or contradicts itself.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a `[[decision]]` entry")]
pub struct RawDecision {
    /// A short kebab-case id that scenarios cite with `decision = "…"`.
    pub id: String,
    /// The handout words, quoted briefly.
    pub clause: String,
    /// The reading broadside's reference implements.
    pub reading: String,
    /// The other reading.
    pub other: String,
    /// Whether a submission that follows `other` is also accepted where scenarios allow it.
    pub accept_also: bool,
}

/// A question about one cell, answered by one student function.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a `[queries.NAME]` table")]
pub struct RawQuery {
    /// The student function that answers it, e.g. `is_open_sea`.
    pub function: String,
    /// What the reference answers: `valid`, `targeted`, `ship-at`, `open-sea`, `fresh-hit`.
    pub meaning: String,
    /// A `fresh-hit` query only: an `accept_also` decision whose other reading lets the
    /// function answer either way on a square already hit (solo-10x10's
    /// `check-if-hits-repeat`): the fuzzer expects either answer there.
    #[serde(default)]
    pub decision: Option<String>,
    pub clause: String,
}

/// A whole-function check that needs no cell (e.g. two games share no lists).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a `[probes.NAME]` table")]
pub struct RawProbe {
    /// The student functions it exercises.
    pub functions: Vec<String>,
    /// What is checked, in a sentence a student can read.
    pub checks: String,
    pub clause: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a `[random_layout]` table")]
pub struct RawRandomLayout {
    pub function: String,
    pub clause: String,
}
