//! broadside's pure core: [`spec`] (an assignment's contract as data), [`engine`] (the
//! reference rules), [`scenario`] (TOML scripts of steps and expectations, and the dialogue
//! plans' grammar), [`harness`] (plays a scenario against a [`harness::target::Target`] and
//! compares; the reference engine is one), [`fault`] (how a target failed to answer),
//! [`report`] (one result model, several views), with [`cell`], [`diag`] and [`published`]
//! (the published scenarios, embedded).
//!
//! It starts no process, reads no clock, keeps no global state, draws nothing on a terminal
//! and parses no command line: its dependencies are data crates alone (`tests/layering.rs`
//! holds them to that), so the compiler keeps the layers apart. The harness plays one
//! scenario at a time; timing a suite, its time budget and a run cut short are the shell's
//! (`broadside::play`). The `broadside` crate builds the shell on it (submissions run as
//! processes, whole programs, class grading, marking, fuzzing, the command line) and
//! re-exports these modules under the same names.

pub mod cell;
pub mod diag;
pub mod engine;
pub mod fault;
pub mod harness;
pub mod published;
pub mod report;
pub mod scenario;
pub mod spec;
