//! `native:PATH`: a shared library implementing the C ABI of `specs/abi/broadside.h`.
//!
//! The grading process never loads the library. It builds the submission if it is a folder
//! ([`build`]), then runs a [`Process`] target whose child is broadside itself re-executed as
//! `broadside __native-worker LIBRARY` ([`worker`]), which loads the library with libloading
//! and speaks protocol v1. So timeouts, crashes, limits, the process group and (as root) the
//! unprivileged user, the network namespace and the jail all come from [`Process`], in the
//! shared private folder (`Workspace`).
//!
//! [`Process`]: super::Process

pub mod abi;
pub mod build;
mod target;
pub mod worker;
pub use target::*;
