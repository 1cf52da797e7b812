//! One report model and its views: JSON (versioned), text for a terminal, Gradescope
//! `results.json`, PrairieLearn `results.json` and JUnit XML; and the student view of any of them.
//! A marking sheet ([`marking`]) is plain data the report carries; `broadside::marking` fills it.
//!
//! Reports are deterministic: the same inputs give the same bytes, except the timing fields
//! (`elapsed_ms`, Gradescope's `execution_time`, JUnit's `time`).

pub mod causes;
mod gradescope;
mod json;
mod junit;
pub mod marking;
mod model;
mod prairielearn;
pub mod rubric;
mod text;
mod view;

pub use gradescope::{Results as GradescopeResults, gradescope, to_gradescope};
pub use json::to_json;
pub use junit::to_junit;
pub use model::{
    Divergence, FORMAT_VERSION, Follows, Report, RuleResult, ScenarioResult, Status, Summary,
    Verdict, points2, round_to, scenario_ids,
};
pub use prairielearn::{Results as PrairieLearnResults, prairielearn, to_prairielearn};
pub use text::{core_message, details, scenario_line, to_text};
pub use view::{HiddenResults, for_students, redacted, without_grader_paths};
