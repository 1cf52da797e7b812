//! The one seam between the harness and an implementation: the [`Target`] trait.
//!
//! The harness only talks to an implementation through these operations (DESIGN.md,
//! "Targets and the protocol"); the reference engine is a target too.

pub mod reference;

pub use reference::Reference;

use crate::cell::Cell;
use crate::engine::Answer;
use crate::scenario::{Action, Setup};
use crate::spec::{Rules, StateKey};
use serde::Serialize;
use std::collections::BTreeSet;
use std::sync::Arc;

/// An implementation under test.
pub trait Target {
    /// How reports name this target, e.g. `reference`.
    fn name(&self) -> String;
    /// Starts a game under `rules` from `setup`.
    fn new_game(&mut self, rules: &Arc<Rules>, setup: &Setup) -> Result<(), Fault>;
    /// Performs one action and answers with its outcome and details.
    fn act(&mut self, action: &Action) -> Result<Answer, Fault>;
    /// Answers one state question.
    fn observe(&mut self, key: StateKey) -> Result<Observed, Fault>;
}

/// A state value as a target reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Observed {
    Names(Vec<String>),
    Bool(bool),
    Count(u32),
    Player(Option<String>),
    Cells(BTreeSet<Cell>),
    Board(Vec<String>),
}

/// How a target failed to answer at all (as opposed to answering wrongly).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// The target refused the scenario's setup.
    Setup,
    /// The target raised an error in its own code.
    Exception,
    /// The target answered something that is not an answer.
    Protocol,
    /// The target does not support this operation.
    Unsupported,
}

/// A target's failure to answer, with what it said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{}: {message}", kind.word())]
pub struct Fault {
    pub kind: FaultKind,
    pub message: String,
}

impl FaultKind {
    /// The word used in reports, e.g. `"exception"`.
    pub fn word(self) -> &'static str {
        match self {
            FaultKind::Setup => "setup",
            FaultKind::Exception => "exception",
            FaultKind::Protocol => "protocol",
            FaultKind::Unsupported => "unsupported",
        }
    }
}
