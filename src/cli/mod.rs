//! Subcommands of the binary that grow beyond a few lines.

pub mod autograder;
pub mod grade;
pub mod hints;
