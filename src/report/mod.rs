//! One report model and its views: JSON (versioned) and text for a terminal.
//!
//! Reports are deterministic: the same inputs give the same bytes.

mod json;
mod model;
mod text;

pub use json::to_json;
pub use model::{Divergence, FORMAT_VERSION, Report, ScenarioResult, Status, Summary};
pub use text::to_text;
