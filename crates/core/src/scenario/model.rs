//! The validated scenario the harness trusts.

use crate::cell::{Cell, RawCell};
use crate::diag::Source;
use crate::engine::{Axis, Dir, Outcome, QueryValue};
use crate::spec::{Meaning, Rules, StateKey};
use serde::Serialize;
use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::Arc;

/// Who may see a scenario's details (DESIGN.md, scenario `visibility`).
///
/// Ordered from most to least open: a suite's hidden folder can only make a scenario less
/// visible (`max` of the two).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Visibility {
    /// Students see everything: steps, expectations, the divergence.
    Visible,
    /// Students see the details only after the due date (Gradescope's `after_due_date`).
    AfterDueDate,
    /// Students never see the steps or expectations; at most whether it passed.
    Hidden,
}

/// A loaded, checked scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub source: Source,
    pub assignment: String,
    /// The rules this scenario plays under (its mode, and any smaller worked-example board).
    pub rules: Arc<Rules>,
    pub title: String,
    /// Free text from the file's `description`.
    pub description: Option<String>,
    /// Points for passing, as the file gives them (default 1).
    pub points: u32,
    /// What passing is worth in the grade: `points`, scaled when the suite sets
    /// `total_points` (a suite of 40 points scaled to 100 makes each point 2.5).
    pub max_score: f64,
    pub visibility: Visibility,
    /// How a scenario not passed is credited (the suite's `credit`).
    pub credit: Credit,
    /// `given = "own"`: every function plays on the student's own state, end to end, even
    /// where the spec's `[checks]` hands it the reference's (`None`: as the spec says).
    pub given: Option<crate::spec::Given>,
    pub tags: Vec<String>,
    pub setup: Setup,
    pub steps: Vec<Step>,
    /// Checks after the last step.
    pub end: Vec<Check>,
    /// A dialogue scenario's plan (then `setup`, `steps` and `end` are empty).
    pub dialogue: Option<Dialogue>,
}

/// How a scenario's points are earned (a suite's `credit`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Credit {
    /// Shared among its checks (each `expect`, each `state` and `[end]` key; a dialogue's
    /// rules): a scenario that fails one check of ten earns nine tenths.
    #[default]
    Check,
    /// All or nothing: only a scenario that passes every check earns its points.
    Scenario,
}

/// A dialogue scenario's plan: moves from the assignment's vocabulary
/// ([`super::plan::vocabulary`]), each turned into lines for the program at run time,
/// from what the program has shown (its layout) and the reference engine's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dialogue {
    pub moves: Vec<Move>,
    /// Seeds the choices the plan leaves open.
    pub seed: u64,
}

/// One planned move and its line in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    pub name: String,
    pub line: usize,
}

/// The starting position in canonical form: which fleet items stand on which cells.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Setup {
    /// `(index into rules.items, cells)`, in fleet order.
    pub items: Vec<(usize, Vec<Cell>)>,
    /// Two-player games: index of the player who moves first.
    pub first: Option<usize>,
}

/// One action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// A shot; `player` is an index in two-player games (`None`: whoever's turn it is).
    Fire {
        player: Option<usize>,
        at: RawCell,
    },
    Drone {
        axis: Axis,
        index: i64,
    },
    Missile {
        at: RawCell,
    },
    /// Place fleet item `item` (index) from `at` towards `dir`.
    Place {
        item: usize,
        at: RawCell,
        dir: Dir,
    },
    /// Ask the spec's cell question `name` about `at`.
    Query {
        name: String,
        meaning: Meaning,
        at: RawCell,
    },
    /// Run the spec's whole-function check `name`.
    Probe {
        name: String,
    },
    /// Call the student's random-fleet function `count` times; every fleet must be legal and
    /// they must not all be the same.
    RandomLayouts {
        count: u32,
    },
}

impl Action {
    /// The step kind, as a spec's `[checks]` table names it (`fire`, `place`, `query`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            Action::Fire { .. } => "fire",
            Action::Drone { .. } => "drone",
            Action::Missile { .. } => "missile",
            Action::Place { .. } => "place",
            Action::Query { .. } => "query",
            Action::Probe { .. } => "probe",
            Action::RandomLayouts { .. } => "random_layouts",
        }
    }

    /// A short description in the assignment's notation, e.g. `fire B3`.
    pub fn describe(&self, rules: &Rules) -> String {
        let n = rules.notation;
        match self {
            Action::Fire {
                player: Some(p),
                at,
            } => {
                format!("fire {} ({})", n.format(*at), rules.players[*p])
            }
            Action::Fire { player: None, at } => format!("fire {}", n.format(*at)),
            Action::Drone {
                axis: Axis::Row,
                index,
            } => format!("drone row {index}"),
            Action::Drone {
                axis: Axis::Col,
                index,
            } => format!("drone col {index}"),
            Action::Missile { at } => format!("missile {}", n.format(*at)),
            Action::Query { name, at, .. } => format!("query {name} {}", n.format(*at)),
            Action::Probe { name } => format!("probe {name}"),
            Action::RandomLayouts { count } => format!("random layouts ×{count}"),
            Action::Place { item, at, dir } => describe_place(rules, *item, *at, *dir),
        }
    }
}

/// A placement in the handout's terms (the spec's `[placement] terms`).
fn describe_place(rules: &Rules, item: usize, at: RawCell, dir: Dir) -> String {
    let word = serde_json::to_value(dir)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default();
    match rules.place_terms {
        crate::spec::PlaceTerms::Direction => format!(
            "place {} at {} {word}",
            rules.label(item),
            rules.notation.format(at)
        ),
        crate::spec::PlaceTerms::Horizontal => {
            // From the top-left square, as the handout's functions take a ship.
            let n = i64::from(rules.items[item].length);
            let (row, col) = match dir {
                Dir::Left => (at.row, at.col - n + 1),
                Dir::Up => (at.row - n + 1, at.col),
                _ => (at.row, at.col),
            };
            let horizontal = matches!(dir, Dir::Left | Dir::Right) || n == 1;
            format!(
                "place {}: row {row}, column {col}, horizontal={}, length {n}",
                rules.label(item),
                if horizontal { "True" } else { "False" }
            )
        }
    }
}

/// What a step's answer must be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expect {
    /// Accepted outcomes: one, or several where a spec decision accepts both readings.
    pub outcomes: Vec<Outcome>,
    pub ship: Option<String>,
    pub owner: Option<String>,
    pub count: Option<u32>,
    pub cells: Option<Vec<(Cell, Outcome)>>,
    /// A query's answer.
    pub value: Option<QueryValue>,
}

/// One step of a scenario.
#[derive(Debug, Clone)]
pub struct Step {
    /// 1-based line of the step in the file.
    pub line: usize,
    pub action: Action,
    pub expect: Option<Expect>,
    /// Byte range of the `expect` value in the file, so an expectation the reference does
    /// not meet is pointed at (`broadside check`); `None` without `expect`, or for a step
    /// built in memory (the fuzzer's).
    pub expect_span: Option<Range<usize>>,
    /// The step's `note`: why it matters, shown with a divergence.
    pub note: Option<String>,
    /// Checks after this step.
    pub checks: Vec<Check>,
}

/// One state check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub key: StateKey,
    pub expected: Expected,
    /// 1-based line of the value in the file.
    pub line: usize,
    /// Byte range of the value in the file (`None` for a check built in memory, the
    /// fuzzer's), so a value the reference does not meet is pointed at.
    pub span: Option<Range<usize>>,
}

/// An expected state value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// `remaining`, `sunk`: ship names in fleet order.
    Names(Vec<String>),
    /// `won`, `lost`: accepted values (both only under an `accept_also` decision).
    Bool(Vec<bool>),
    /// `shots`, `turns`, `moves`: accepted values (several only under an `accept_also` decision).
    Count(Vec<u32>),
    /// `next`: a player; `winner`: a player or `None` for "no winner yet". Accepted values
    /// (several only under an `accept_also` decision).
    Player(Vec<Option<String>>),
    /// `targeted`.
    Cells(BTreeSet<Cell>),
    /// `board`: rows, trailing spaces ignored.
    Board(Vec<String>),
}
