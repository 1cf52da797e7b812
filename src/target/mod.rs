//! The targets that run a submission: a child process speaking the protocol (`python:`,
//! `haskell:`, `native:`, `cmd:`) or a whole program (`java:`, `exec:`), built from a
//! `--target` spec. Each implements the core's [`Target`] trait
//! ([`crate::harness::target`], re-exported here with the reference).

pub mod build;
pub mod build_cache;
pub mod cgroup;
pub mod haskell;
pub mod limits;
pub mod native;
pub mod packages;
pub mod process;
pub mod procs;
pub mod program;
pub mod python;
pub mod workspace;

pub use crate::fault::{Fault, FaultKind};
pub use crate::harness::reference::{self, Reference};
pub use crate::harness::target::{
    Call, GivenShip, GivenState, Observed, Plays, Replied, Reply, Target,
};
pub use process::Process;
pub use program::{Program, ProgramTarget};
mod spec;
pub use spec::*;
