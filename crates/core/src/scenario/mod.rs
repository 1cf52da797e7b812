//! Scenarios: one TOML file, one scripted game with expected outcomes (DESIGN.md, "Scenario
//! format"). [`parse`] checks a file against its spec and points at the offending line.

mod load;
mod model;
pub mod plan;
mod raw;
mod schema;

pub use load::parse;
pub use model::{
    Action, Check, Credit, Dialogue, Expect, Expected, Move, Scenario, Setup, Step, Visibility,
};
