//! `native:PATH`: a shared library implementing the C ABI of `specs/abi/broadside.h`.
//!
//! The grading process never loads the library. It builds the submission if it is a folder
//! ([`build`]), then runs a [`Process`] target whose child is broadside itself re-executed as
//! `broadside __native-worker LIBRARY` ([`worker`]), which loads the library with libloading
//! and speaks protocol v1. So timeouts, crashes, limits, the process group and (as root) the
//! unprivileged user, the network namespace and the jail all come from [`Process`].

pub mod abi;
pub mod build;
pub mod worker;

use super::limits::{self, Limits, NOBODY};
use super::{Call, Fault, FaultKind, Observed, Process, Replied, Target};
use crate::engine::Answer;
use crate::scenario::{Action, Setup};
use crate::spec::{Rules, StateKey};
use camino::Utf8Path;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;

/// The hidden subcommand that runs the worker: `broadside __native-worker LIBRARY`.
pub const WORKER_COMMAND: &str = "__native-worker";

/// A target for the native submission at `path` (a `.so`, or a folder to build one from
/// within [`build::BUILD_TIMEOUT`]), whose worker child runs the program `worker` (the
/// broadside executable, normally `std::env::current_exe()`) under `limits`, as [`NOBODY`]
/// when broadside runs as root.
///
/// A submission that does not build is a target that fails every scenario with a `setup`
/// fault carrying the compiler's message. Errors: the path does not exist, or the private
/// folder cannot be prepared (the grader's problem, not the student's).
pub fn target(path: &Utf8Path, worker: &Path, limits: Limits) -> Result<Box<dyn Target>, String> {
    make(path, worker, limits, NOBODY, build::BUILD_TIMEOUT)
}

/// [`target`], with the worker (and a `make` or `cc` build) running as `uid` when broadside
/// runs as root (`grade` gives each job slot a user of its own).
///
/// Errors: as [`target`].
pub fn target_as(
    path: &Utf8Path,
    worker: &Path,
    limits: Limits,
    uid: u32,
) -> Result<Box<dyn Target>, String> {
    make(path, worker, limits, uid, build::BUILD_TIMEOUT)
}

/// [`target`] with a build time limit of `build_timeout` instead of the default.
///
/// Errors: as [`target`].
pub fn target_with_build_timeout(
    path: &Utf8Path,
    worker: &Path,
    limits: Limits,
    build_timeout: std::time::Duration,
) -> Result<Box<dyn Target>, String> {
    make(path, worker, limits, NOBODY, build_timeout)
}

/// The one way the targets above are made: build, prepare the private folder, start nothing.
fn make(
    path: &Utf8Path,
    worker: &Path,
    limits: Limits,
    uid: u32,
    build_timeout: std::time::Duration,
) -> Result<Box<dyn Target>, String> {
    let name = format!("native:{path}");
    let dir = tempfile::Builder::new()
        .prefix("broadside-native-")
        .tempdir()
        .map_err(|e| format!("could not make a private folder for the submission: {e}"))?;
    let library = match build::library(path.as_std_path(), dir.path(), uid, build_timeout) {
        Ok(l) => l,
        Err(build::BuildError::Input(m)) => return Err(m),
        Err(build::BuildError::Student(message)) => {
            return Ok(Box::new(Unbuilt {
                name,
                fault: Fault {
                    kind: FaultKind::Setup,
                    message,
                },
            }));
        }
    };
    let io = |e: std::io::Error| format!("could not prepare the submission's folder: {e}");
    // As root the worker is locked into a jail whose `/box` holds a copy of broadside and of
    // the library; otherwise (or without namespaces) it runs in the private folder itself.
    let root = limits::running_as_root();
    let jailed = root && limits::namespaces_available();
    let jail_root = dir.path().join("jail");
    let boxed = if jailed {
        jail_root.join("box")
    } else {
        dir.path().join("run")
    };
    std::fs::create_dir_all(&boxed).map_err(io)?;
    let lib_copy = boxed.join("libsubmission.so");
    std::fs::copy(&library, &lib_copy).map_err(io)?;
    // The build's sources and outputs are not needed past this point (a Cargo target folder
    // can be large); the grading run keeps only the library and the worker.
    for built in ["build", "build-jail", "cargo-target"] {
        let _ = std::fs::remove_dir_all(dir.path().join(built));
    }
    let program = boxed.join("broadside");
    if std::fs::hard_link(worker, &program).is_err() {
        std::fs::copy(worker, &program).map_err(io)?;
    }
    let work = boxed.join("work");
    std::fs::create_dir(&work).map_err(io)?;
    for d in [dir.path(), boxed.as_path()] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).map_err(io)?;
    }
    std::fs::set_permissions(&lib_copy, std::fs::Permissions::from_mode(0o644)).map_err(io)?;
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).map_err(io)?;
    let inside = |p: &Path| -> String {
        if jailed {
            format!(
                "/{}",
                p.strip_prefix(&jail_root).unwrap_or(p).to_string_lossy()
            )
        } else {
            p.to_string_lossy().into_owned()
        }
    };
    let args = vec![WORKER_COMMAND.to_string(), inside(&lib_copy)];
    if root {
        std::os::unix::fs::chown(&work, Some(uid), Some(uid)).map_err(io)?;
    }
    let mut process = if jailed {
        let jail = limits::Jail::prepare(&jail_root, &inside(&work), &[]).map_err(io)?;
        Process::new(name, inside(&program), args, None).jail(jail)
    } else {
        Process::new(name, inside(&program), args, Some(work))
    }
    .run_as(uid);
    process.limits = limits;
    Ok(Box::new(process.keep(dir)))
}

/// A submission that did not build: every scenario fails with its `setup` fault.
struct Unbuilt {
    name: String,
    fault: Fault,
}

impl Target for Unbuilt {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self, _rules: &Arc<Rules>, _setup: &Setup) -> Result<(), Fault> {
        Err(self.fault.clone())
    }

    fn act(&mut self, _action: &Action) -> Result<Answer, Fault> {
        Err(self.fault.clone())
    }

    fn observe(&mut self, _key: StateKey) -> Result<Observed, Fault> {
        Err(self.fault.clone())
    }

    fn play(&mut self, _calls: &[Call]) -> Vec<Result<Replied, Fault>> {
        vec![Err(self.fault.clone())]
    }
}
