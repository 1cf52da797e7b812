//! Why a class could not be graded, or one submission was not.

/// Why a class could not be graded, or one submission was not. The kind decides what
/// happens: `broadside` maps each to its exit code, and a submission's is listed as not
/// graded, never scored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GradeError {
    /// The class's inputs are wrong: a submissions folder that cannot be read, a shard that
    /// is not `K/N`, graded folders whose reports do not read back (exit 2).
    #[error("{0}")]
    Input(String),
    /// One submission was not graded: its target could not be made, or broadside's own side
    /// failed in one of its scenarios. It is listed with why and graded again by `--resume`.
    #[error("{0}")]
    NotGraded(String),
    /// A report or summary file could not be written (the message names it): broadside's
    /// side (exit 3).
    #[error("{0}")]
    Write(String),
}
