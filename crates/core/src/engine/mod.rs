//! The reference engine: one rules engine whose behaviour the spec's knobs set.
//!
//! Pure and deterministic: no I/O, no clock; randomness only from a seed the caller passes
//! ([`random_layout`]). A shot is constant-time: cells live in a 256-bit [`CellSet`] and an
//! occupant table.

mod cellset;
mod game;
mod layout;
mod outcome;
mod render;

pub use cellset::CellSet;
pub use game::{Answer, Axis, Dir, End, Game, PlaceError, QueryValue, Shot};
pub use layout::{LayoutError, check_layout, line_cells, random_layout};
pub use outcome::{Event, Outcome};
