//! Making a native target: build or find the library, copy it and the worker into the
//! private folder, start nothing yet.

use crate::target::limits::{Limits, NOBODY};
use crate::target::workspace::{Workspace, no_private_folder, ours};
use crate::target::{Target, TargetError, Unbuildable};
use camino::Utf8Path;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// The hidden subcommand that runs the worker: `broadside __native-worker LIBRARY`.
pub(crate) const WORKER_COMMAND: &str = "__native-worker";

/// A target for the native submission at `path` (a `.so`, or a folder to build one from
/// within `super::build::BUILD_TIMEOUT`), whose worker child runs the program `worker` (the
/// broadside executable, normally `std::env::current_exe()`) under `limits`, as [`NOBODY`]
/// when broadside runs as root.
///
/// A submission that does not build is a target that fails every scenario with a `setup`
/// fault carrying the compiler's message. Errors: the path does not exist or cannot be
/// copied to build it ([`TargetError::Input`]); the private folder cannot be prepared, or
/// this broadside cannot load libraries ([`TargetError::Grader`]). Neither is the student's.
pub fn target(
    path: &Utf8Path,
    worker: &Path,
    limits: Limits,
) -> Result<Box<dyn Target>, TargetError> {
    make(path, worker, limits, NOBODY, super::build::BUILD_TIMEOUT)
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
) -> Result<Box<dyn Target>, TargetError> {
    make(path, worker, limits, uid, super::build::BUILD_TIMEOUT)
}

/// [`target`] with a build time limit of `build_timeout` instead of the default.
///
/// Errors: as [`target`].
pub fn target_with_build_timeout(
    path: &Utf8Path,
    worker: &Path,
    limits: Limits,
    build_timeout: std::time::Duration,
) -> Result<Box<dyn Target>, TargetError> {
    make(path, worker, limits, NOBODY, build_timeout)
}

/// The one way the targets above are made: build, prepare the private folder, start nothing.
/// Why this broadside cannot grade `native:` submissions, if it cannot: a statically linked
/// build (musl with `crt-static`) has no dynamic loader, so every library would fail to load
/// and the student would be blamed for it. That is the grader's error, refused before any
/// submission is touched (`run` exits 3, `grade` leaves the class not graded).
fn cannot_load(static_build: bool) -> Option<TargetError> {
    static_build.then(|| {
        TargetError::Grader("this broadside is a static build, which cannot load native libraries (dlopen): grade native: submissions with a dynamically linked build (`cargo build --release` for the glibc target)".to_string())
    })
}

fn make(
    path: &Utf8Path,
    worker: &Path,
    limits: Limits,
    uid: u32,
    build_timeout: std::time::Duration,
) -> Result<Box<dyn Target>, TargetError> {
    if let Some(why) = cannot_load(cfg!(all(
        target_env = "musl",
        target_feature = "crt-static"
    ))) {
        return Err(why);
    }
    let name = format!("native:{path}");
    // The build gets a private folder of its own, removed once the library is copied out (a
    // Cargo target folder can be large); the run keeps only the library and the worker.
    let build_dir = tempfile::Builder::new()
        .prefix("broadside-build-")
        .tempdir()
        .map_err(no_private_folder)?;
    let library =
        match super::build::library(path.as_std_path(), build_dir.path(), uid, build_timeout)? {
            crate::target::build::Built::Ready(l) => l,
            crate::target::build::Built::Failed(fault) => {
                return Ok(Box::new(Unbuildable {
                    name,
                    fault,
                    plays: crate::target::Plays::STEPS,
                }));
            }
        };
    // As root the worker is locked into a jail whose `/box` holds a copy of broadside and of
    // the library; otherwise (or without namespaces) it runs in the private folder itself.
    let ws = Workspace::new()?;
    let lib_copy = ws.boxed.join("libsubmission.so");
    std::fs::copy(&library, &lib_copy).map_err(ours)?;
    drop(build_dir);
    let program = ws.boxed.join("broadside");
    if std::fs::hard_link(worker, &program).is_err() {
        std::fs::copy(worker, &program).map_err(ours)?;
    }
    std::fs::set_permissions(&lib_copy, std::fs::Permissions::from_mode(0o644)).map_err(ours)?;
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).map_err(ours)?;
    let args = vec![WORKER_COMMAND.to_string(), ws.inside(&lib_copy)];
    let jail = ws.seal(uid, &[])?;
    let program = ws.inside(&program);
    let mut process = ws.process(name, program, args, jail, uid);
    process.limits = limits;
    Ok(Box::new(process))
}

#[cfg(test)]
mod loading {
    #[test]
    fn a_static_build_refuses_native_targets_as_the_graders_error() {
        let Some(super::TargetError::Grader(why)) = super::cannot_load(true) else {
            panic!("a static build is the grader's error");
        };
        assert!(why.contains("static build"), "{why}");
        assert!(super::cannot_load(false).is_none());
    }
}
