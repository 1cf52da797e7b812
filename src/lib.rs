//! broadside: an autograder and scenario test harness for Battleship programming assignments.
//!
//! The pure core is its own crate, `broadside-core` (`crates/core`), re-exported here under
//! the same names: [`spec`] (an assignment's contract as data), [`engine`] (the reference
//! rules), [`scenario`] (TOML scripts of steps and expectations, and the dialogue plans'
//! grammar), [`harness`] (plays a scenario against a [`harness::target::Target`] and
//! compares; the reference engine is one), [`fault`] (how a target failed to answer) and
//! [`report`] (one result model, several views). The compiler keeps it from the shell, which
//! is this crate: [`target`] runs submissions as processes, [`dialogue`] drives whole
//! interactive programs and judges what they print against the reference, [`grade`],
//! [`marking`] and [`fuzz`] build on the core, and file and terminal I/O live in [`load`] and
//! in the binary.

pub use broadside_core::{cell, diag, engine, fault, harness, published, report, scenario, spec};

pub mod dialogue;
pub mod fuzz;
pub mod grade;
pub mod load;
pub mod marking;
pub mod play;
pub mod protocol;
pub mod suite;
pub mod target;
