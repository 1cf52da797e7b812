//! Each handout's whole marking scheme: the criteria broadside marks itself (behaviour), and
//! for the marker's criteria the figures a marker needs (the student's own tests graded with
//! wheats and chaffs, linters, compilers' warnings, files and comments the handout asks for,
//! the commit history), measured in the same containment as every submission's code.
//!
//! The schemes are data, `specs/marking/<assignment>.toml` ([`scheme`]); a sheet is plain data
//! ([`sheet`], the report's [`crate::report::marking`]) that `grade --marking` writes beside
//! each report.

mod extension;
mod measure;
mod pytest;
pub mod scheme;
pub use crate::report::marking as sheet;
mod tools;

pub use scheme::{Scheme, bundled};
pub use sheet::{Figure, FigureState, Sheet, to_text};
mod mark;
pub use mark::*;
