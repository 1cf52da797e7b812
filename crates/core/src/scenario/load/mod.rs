//! Reading a scenario file: TOML → checked [`Scenario`](crate::scenario::Scenario), every
//! problem a [`Diagnostic`](crate::diag::Diagnostic).
//!
//! The file is read into the schema's raw types (`schema.rs`, `raw.rs`), then checked against
//! its spec, one concern a file: `setup`, `step`, `expect`, `state`, `dialogue`, `cell`;
//! `scenario.rs` holds the entry point [`parse`], the checking context `Cx` and the
//! scenario's own header and game, which tie the concerns together.

mod cell;
mod dialogue;
mod expect;
mod scenario;
mod setup;
mod state;
mod step;
pub use scenario::*;
