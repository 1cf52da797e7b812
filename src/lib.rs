//! broadside: an autograder and scenario test harness for Battleship programming assignments.
//!
//! The pure core is [`spec`] (an assignment's contract as data), [`engine`] (the reference
//! rules), [`scenario`] (TOML scripts of steps and expectations, and the dialogue plans'
//! grammar), [`harness`] (plays a scenario against a [`harness::target::Target`] and
//! compares; the reference engine is one), [`fault`] (how a target failed to answer) and
//! [`report`] (one result model, several views). It imports nothing from the shell
//! (`tests/layering.rs`): [`target`] runs submissions as processes, [`dialogue`] drives whole
//! interactive programs and judges what they print against the reference, [`grade`],
//! [`marking`] and [`fuzz`] build on the core, and file and terminal I/O live in [`load`] and
//! in the binary.

pub mod cell;
pub mod diag;
pub mod dialogue;
pub mod engine;
pub mod fault;
pub mod fuzz;
pub mod grade;
pub mod harness;
pub mod load;
pub mod marking;
pub mod protocol;
pub mod published;
pub mod report;
pub mod scenario;
pub mod spec;
pub mod suite;
pub mod target;
