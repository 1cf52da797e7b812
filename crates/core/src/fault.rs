//! How a target failed to answer at all, as opposed to answering wrongly: a [`Fault`] of one
//! [`FaultKind`] with its message. Part of the core (the harness and the reports read it);
//! the targets in `broadside::target` make them.

use serde::Serialize;

/// How a target failed to answer at all (as opposed to answering wrongly).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// The target refused the scenario's setup.
    Setup,
    /// The student's code raised an error (the message carries the trimmed traceback).
    Exception,
    /// A function the handout requires is not defined.
    Missing,
    /// A function returned a value of the wrong type (the message shows what came back).
    Type,
    /// The target answered something that is not an answer.
    Protocol,
    /// The target did not answer in time and was stopped.
    Timeout,
    /// The target process died (a signal, or an exit mid-game).
    Crash,
    /// The target does not support this operation.
    Unsupported,
    /// The submission hit a resource limit (CPU, memory, file size, output, processes).
    Limit,
    /// Processes the submission started were still running after it was done.
    Leak,
    /// Not played: the submission had used up its time budget (`submission_timeout`).
    NotRun,
    /// Native code wrote past the end of a buffer broadside gave it.
    Overrun,
    /// broadside's own side failed, not the submission: the grader could not start its own
    /// driver or the interpreter, say. The scenario is not graded (never scored as the
    /// student's zero); fix the machine and grade again.
    Harness,
}

/// A target's failure to answer, with what it said.
#[derive(
    Debug,
    Clone,
    PartialEq,
    Eq,
    Serialize,
    serde::Deserialize,
    thiserror::Error,
    schemars::JsonSchema,
)]
#[error("{}: {message}", kind.word())]
pub struct Fault {
    pub kind: FaultKind,
    pub message: String,
}

impl FaultKind {
    /// The word used in reports, e.g. `"exception"`.
    pub fn word(self) -> &'static str {
        match self {
            FaultKind::Setup => "setup",
            FaultKind::Exception => "exception",
            FaultKind::Missing => "missing",
            FaultKind::Type => "type",
            FaultKind::Protocol => "protocol",
            FaultKind::Timeout => "timeout",
            FaultKind::Crash => "crash",
            FaultKind::Unsupported => "unsupported",
            FaultKind::Limit => "limit",
            FaultKind::Leak => "leak",
            FaultKind::NotRun => "not run",
            FaultKind::Overrun => "overrun",
            FaultKind::Harness => "harness",
        }
    }
}
