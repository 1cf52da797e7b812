//! An assignment's contract as data: the raw TOML schema, the validated [`Rules`] the engine
//! trusts, and the set of known specs (the five bundled ones plus any `--spec PATH`).

mod error;
mod registry;
pub mod rubric;
mod rules;
mod schema;

pub use error::{SpecError, Table};
pub use registry::{SpecSet, builtin_files, builtin_marking_files, parse};
pub use rules::{
    CheckRule, Counter, Decision, Display, DrawnFleets, EventRule, Given, ItemDef, Language,
    LostCheck, Meaning, PlaceTerms, Probe, Query, Rules, Spec, StateKey, Touching,
};
pub use schema::RawSpec;
