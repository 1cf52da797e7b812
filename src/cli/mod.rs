//! The binary's commands, a file each (`run`, `grade`, `autograder`, `fuzz`; `check` with
//! `list`), the limit flags they share, and the helpers they share (`shared.rs`): colour,
//! printing diagnostics, the bundled specs with those given.

pub mod autograder;
pub mod check;
pub mod fuzz;
pub mod grade;
pub mod hints;
pub mod limits;
pub mod run;
mod shared;
pub(crate) use shared::*;
