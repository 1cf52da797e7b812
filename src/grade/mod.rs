//! Grading a class: a folder of submissions against suites, in parallel, with one report per
//! submission and a class summary (`broadside grade` and `broadside merge`).

mod error;
mod html;
mod run;
mod submissions;
mod summary;

pub use error::GradeError;
pub use html::class_report;
pub use run::{Graded, MakeTarget, Plan, Progress, Written, grade, write_atomic, write_reports};
pub use submissions::{SHARD_ENGINES, Shard, Submission, discover, drop_aliases, strays};
pub use summary::{ClassSummary, ScenarioRate, SubmissionRow, read_graded};
