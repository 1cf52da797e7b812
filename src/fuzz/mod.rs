//! `broadside fuzz`: differential testing of a target against the reference engine.
//!
//! Random legal cases are drawn from the assignment's spec ([`generate`]): a setup (part of
//! the fleet, leaning toward edges, corners and touching ships), placements where students
//! write placement code, and runs of shots, powers and questions that lean toward ship
//! neighbourhoods, sinking shots, repeats on sunk ships and shots after the game ended. Each
//! case becomes an ordinary scenario whose expectations are the reference's answers
//! ([`build`]) and is played against the target through the harness ([`run`]); the first
//! divergence is shrunk by proptest to a short scenario that `broadside run` replays.

pub mod build;
pub mod generate;
pub mod run;

pub use build::{Plan, Provenance, resolve, scenario_text};
pub use generate::Case;
pub use run::{
    Counterexample, DEFAULT_CASES, FuzzError, Kind, Options, Outcome, fuzz, fuzz_until, load_text,
};
