//! Plays scenarios against a target, step by step, and compares with the expectations. The
//! harness reaches a submission only through the [`Target`](target::Target) trait ([`target`]); the
//! reference engine is a target too ([`reference`](mod@reference)).
//!
//! The whole scenario goes to the target at once ([`Target::play`](target::Target::play), one `batch` for child
//! targets); the answers are then compared in order. Every check is judged: a divergence does
//! not stop the scenario (only a fault does, and the checks not reached count as failed), and
//! the points are shared among the checks passed. The result records the first divergence in
//! full (expected vs actual, what the student's code printed during that step, the board as
//! the reference plays it, ships shown) and the later ones after it, each marked as the same
//! bug again or a consequence of an earlier action answered otherwise.
//!
//! [`authoring`] plays a scenario on the reference alone, for `broadside check`: an
//! expectation the reference does not meet is the author's mistake, not a student's.

pub mod authoring;
mod compare;
pub mod reference;
pub mod target;

pub use compare::{
    describe_answer, describe_expect, describe_expected, describe_observed, matches_answer,
    matches_state,
};
mod run;
pub use run::*;
