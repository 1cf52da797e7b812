//! The scenario file's TOML schema, in one place. Polymorphic values (a cell, an
//! expectation, a state value) have the typed shapes of [`super::raw`], each with its span,
//! so every error keeps its position (no `untagged` or `flatten` here).

pub use super::raw::RawState;
use super::raw::{CellInput, DroneInput, ExpectInput, Loose, PlaceInput, ShipInput};
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// A whole scenario file.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a scenario file: a table with `assignment` and `steps` or a `[dialogue]`"
)]
pub(crate) struct RawScenario {
    /// The spec id, e.g. `"colab-6x6"`.
    pub assignment: Spanned<String>,
    /// A title for reports; default the file's name without `.toml`.
    pub title: Option<String>,
    /// Points for passing; default 1.
    pub points: Option<Spanned<i64>>,
    /// `visible` (default), `hidden` or `after-due-date`.
    pub visibility: Option<Spanned<String>>,
    /// Free labels for grouping, e.g. `["fire", "handout"]`.
    #[serde(default)]
    pub tags: Vec<String>,
    /// The spec mode, e.g. `"expert"`; default the spec's own.
    pub mode: Option<Spanned<String>>,
    /// Free text for the reader.
    pub description: Option<String>,
    /// `"own"`: play end to end on the student's own state, even where the spec hands a
    /// function the reference's.
    pub given: Option<Spanned<String>>,
    /// `[setup]`: the ships placed before play, and a smaller board or fleet.
    #[serde(default)]
    pub setup: RawSetup,
    /// `[[steps]]`, in order.
    #[serde(default)]
    pub steps: Vec<Spanned<RawStep>>,
    /// `[end]`: checked after the last step.
    pub end: Option<Spanned<RawState>>,
    /// A dialogue scenario: a whole program driven through its input (instead of `setup`,
    /// `steps` and `end`).
    pub dialogue: Option<Spanned<RawDialogue>>,
}

/// `[dialogue]`: the moves of a planned game, played against a whole program.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a `[dialogue]` table with `moves`")]
pub(crate) struct RawDialogue {
    /// Move names from the assignment's vocabulary, in order.
    pub moves: Spanned<Vec<Spanned<String>>>,
    /// Seeds the choices the plan leaves open (the fleet handed to solo-10x10's `main()`,
    /// the human's layout in grenades-8x8); default 1.
    pub seed: Option<Spanned<i64>>,
}

/// `[setup]`.
#[derive(Debug, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a `[setup]` table (`ships`, or `players` in a two-player game)"
)]
pub(crate) struct RawSetup {
    /// One-player games: ship name → a list of cells, or `{ at = CELL, dir = "right" }`.
    pub ships: Option<Spanned<BTreeMap<Spanned<String>, Spanned<ShipInput>>>>,
    /// Two-player games: player name → that player's ships and grenades.
    pub players: Option<Spanned<BTreeMap<Spanned<String>, RawPlayerSetup>>>,
    /// Two-player games: who moves first (default the spec's).
    pub first: Option<Spanned<String>>,
    /// A smaller board for a handout's worked example.
    pub rows: Option<Spanned<i64>>,
    /// Columns of that smaller board.
    pub cols: Option<Spanned<i64>>,
    /// A replacement fleet for a handout's worked example.
    pub fleet: Option<Spanned<Vec<RawFleetEntry>>>,
}

/// One ship of a replacement fleet.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a fleet entry `{ name = \"…\", length = N }`"
)]
pub struct RawFleetEntry {
    /// The ship's name, unique in the fleet.
    pub name: String,
    /// Its length in cells.
    pub length: u8,
}

/// `[setup.players.<name>]`: one player's items, filling that player's fleet in order.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a player's table with `ships` and `grenades`"
)]
pub(crate) struct RawPlayerSetup {
    /// The player's ships.
    #[serde(default)]
    pub ships: Vec<Spanned<ShipInput>>,
    /// The player's grenades (grenades-8x8).
    #[serde(default)]
    pub grenades: Vec<Spanned<ShipInput>>,
}

/// One `[[steps]]` entry: exactly one action, then what to expect.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a `[[steps]]` table: an action such as `fire = \"B2\"` and its `expect`"
)]
pub(crate) struct RawStep {
    /// `fire = CELL`: a shot.
    pub fire: Option<Spanned<CellInput>>,
    /// Who fires, in a two-player game.
    pub player: Option<Spanned<String>>,
    /// `drone = { row = N } | { col = N }`: a scan.
    pub drone: Option<Spanned<DroneInput>>,
    /// `missile = CELL`: a strike on the 3×3 square around the cell.
    pub missile: Option<Spanned<CellInput>>,
    /// `place = { ship, at, dir }`: a call to the student's placement code.
    pub place: Option<Spanned<PlaceInput>>,
    /// A cell question by name (the spec's `[queries]`), with `at`.
    pub query: Option<Spanned<Loose<String>>>,
    /// The cell a `query` asks about.
    pub at: Option<Spanned<CellInput>>,
    /// A whole-function check by name (the spec's `[probes]`).
    pub probe: Option<Spanned<Loose<String>>>,
    /// Call the student's random-fleet function this many times and check every fleet.
    pub random_layouts: Option<Spanned<Loose<u32>>>,
    /// What the action should answer.
    pub expect: Option<Spanned<ExpectInput>>,
    /// State keys checked after this step.
    pub state: Option<Spanned<RawState>>,
    /// The spec decision whose `accept_also` lets this step list several accepted values.
    pub decision: Option<Spanned<String>>,
    /// Free text for the reader.
    pub note: Option<String>,
}
