//! Building a native submission into a shared library, in a private folder, with a timeout.
//!
//! A submission is a `.so`, or a folder holding a Cargo crate (a `cdylib`), a Makefile, C
//! sources, or a single `.so`. The folder is copied into the private build folder and built
//! there in its own process group with resource limits and a timeout; a failed or overlong
//! build is the student's fault, with the compiler's last output.
//!
//! As root, `make` and `cc` builds run like the worker: as an unprivileged user (`nobody`, or
//! the `grade` job slot's), with no network, in a jail showing the system folders and the copy
//! (`/box/build`) where namespaces are available. A Cargo build runs as the grading user (the
//! toolchain lives in its home), offline and, where namespaces are available, with no network.

use super::abi;
use crate::target::build::{Built, OneShot, run_contained};
use crate::target::limits::{self, Jail, Limits, MemoryKind};
use crate::target::workspace::{chown_tree, copy_tree};
use crate::target::{Fault, FaultKind, TargetError};
use process_wrap::std::{CommandWrap, ProcessGroup};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// How long a build may take by default.
pub(crate) const BUILD_TIMEOUT: Duration = Duration::from_secs(120);
/// How much of the build's output a failure quotes, in bytes (its tail).
const LOG_TAIL: usize = 4000;

/// Why there is no library to load (inside this file; [`library`] answers with a
/// [`Built`]).
#[derive(Debug, Clone, PartialEq, Eq)]
enum BuildError {
    /// The grader's input is wrong (the path does not exist): an error of the run.
    Input(String),
    /// The submission did not build: the student's fault, reported on every scenario.
    Student(String),
}

/// Builds (or finds) the shared library of the submission at `src`, working in `work` (an
/// empty private folder), stopping a build that takes longer than `timeout`; as root, `make`
/// and `cc` run as `uid`. Answers the library's path, or the `setup` fault of a submission
/// that does not build (the student's, reported on every scenario).
///
/// Errors: the grader's input is wrong (the path does not exist), or the submission cannot
/// be copied to build it.
pub fn library(
    src: &Path,
    work: &Path,
    uid: u32,
    timeout: Duration,
) -> Result<Built<PathBuf>, TargetError> {
    match build_library(src, work, uid, timeout) {
        Ok(path) => Ok(Built::Ready(path)),
        Err(BuildError::Student(message)) => Ok(Built::Failed(Fault {
            kind: FaultKind::Setup,
            message,
        })),
        Err(BuildError::Input(message)) => Err(TargetError::Input(message)),
    }
}

/// Builds the submission at `src` into a shared library in `work`, contained, as `uid`: a
/// Cargo crate (`cargo build --release --lib`, offline), a Makefile's `make`, the C files
/// compiled with `cc`, or the one `.so` it holds; a file is taken as the library itself.
///
/// Errors: the submission cannot be read or copied (`Input`), or does not build
/// (`Student`).
fn build_library(
    src: &Path,
    work: &Path,
    uid: u32,
    timeout: Duration,
) -> Result<PathBuf, BuildError> {
    let meta = std::fs::metadata(src)
        .map_err(|e| BuildError::Input(format!("native:{}: {e}", src.display())))?;
    if !meta.is_dir() {
        return Ok(src.to_path_buf());
    }
    let io = |e: std::io::Error| {
        BuildError::Input(format!("could not copy the submission to build it: {e}"))
    };
    // As root the sources sit where a jail shows them as `/box/build` (without namespaces
    // there is no jail: the build runs in the private folder, as `uid` all the same).
    let root = limits::running_as_root();
    let jailed = root && limits::namespaces_available();
    let jail_root = work.join("build-jail");
    let dir = if jailed {
        jail_root.join("box").join("build")
    } else {
        work.join("build")
    };
    std::fs::create_dir_all(&dir).map_err(io)?;
    // Sources only: hidden entries and a Cargo `target` folder are left behind.
    copy_tree(src, &dir, &|name, _| {
        !name.to_string_lossy().starts_with('.') && name != "target"
    })
    .map_err(io)?;
    let log = work.join("build.log");
    if dir.join("Cargo.toml").is_file() {
        let target_dir = work.join("cargo-target");
        cargo(
            &log,
            timeout,
            &[
                "build",
                "--release",
                "--offline",
                "--lib",
                "--quiet",
                "--target-dir",
                &target_dir.to_string_lossy(),
            ],
            &dir,
        )?;
        return only_library(&target_dir.join("release"), "cargo build --release --lib");
    }
    if !dir.join("broadside.h").exists() {
        std::fs::write(dir.join("broadside.h"), abi::HEADER).map_err(io)?;
    }
    if root {
        use std::os::unix::fs::PermissionsExt;
        chown_tree(&dir, uid).map_err(io)?;
        for d in [work, jail_root.as_path(), &jail_root.join("box")] {
            if d.exists() {
                std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).map_err(io)?;
            }
        }
    }
    let jail = if jailed {
        Some(Jail::prepare(&jail_root, "/box/build", &[]).map_err(io)?)
    } else {
        None
    };
    let contained = |program: &str, args: &[String]| {
        contained(program, args, &dir, uid, jail.as_ref(), timeout)
    };
    let makefile = ["Makefile", "makefile", "GNUmakefile"]
        .iter()
        .any(|m| dir.join(m).is_file());
    if makefile {
        contained("make", &[])?;
        return only_library(&dir, "make");
    }
    let sources = files_ending(&dir, ".c");
    if !sources.is_empty() {
        contained("cc", &cc_args(sources))?;
        return Ok(dir.join("libsubmission.so"));
    }
    only_library(&dir, "the submission").map_err(|_| {
        BuildError::Student(
            "the submission folder has no Cargo.toml, Makefile, .c file or .so to build a \
             library from"
                .into(),
        )
    })
}

/// `cc`'s arguments for a library of the C files `sources` (with `broadside.h` beside
/// them): C11, optimised, with debugging symbols.
fn cc_args(sources: Vec<String>) -> Vec<String> {
    let mut args: Vec<String> = [
        "-std=c11",
        "-O2",
        "-g",
        "-shared",
        "-fPIC",
        "-I.",
        "-o",
        "libsubmission.so",
    ]
    .map(String::from)
    .to_vec();
    args.extend(sources);
    args
}

/// The names of the files in `dir` (not below) ending with `suffix`, sorted.
fn files_ending(dir: &Path, suffix: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(suffix))
        .collect();
    names.sort();
    names
}

/// The one `.so` in `dir`, or the student's fault naming what `by` left there.
fn only_library(dir: &Path, by: &str) -> Result<PathBuf, BuildError> {
    match files_ending(dir, ".so").as_slice() {
        [one] => Ok(dir.join(one)),
        [] => Err(BuildError::Student(format!(
            "{by} made no shared library (.so); a Cargo crate needs `crate-type = [\"cdylib\"]`, \
             a Makefile must build one .so in the submission's folder"
        ))),
        many => Err(BuildError::Student(format!(
            "{by} made {} shared libraries ({}); expected one",
            many.len(),
            many.join(", ")
        ))),
    }
}

/// The limits a build runs under: generous, since compilers are large.
fn build_limits(timeout: Duration) -> Limits {
    Limits {
        cpu_secs: timeout.as_secs().max(1) * 2,
        memory_mib: 4096,
        memory_kind: MemoryKind::DataSize,
        open_files: 1024,
        file_size_mib: 512,
        ..Limits::default()
    }
}

/// The build's verdict from how `shown` ended and what it printed.
fn verdict(
    shown: &str,
    code: Option<i32>,
    timed_out: bool,
    output: &str,
    timeout: Duration,
) -> Result<(), BuildError> {
    let mut start = output.len().saturating_sub(LOG_TAIL);
    while !output.is_char_boundary(start) {
        start += 1;
    }
    let tail = output[start..].trim();
    match (code, timed_out) {
        (Some(0), false) => Ok(()),
        (_, true) => Err(BuildError::Student(format!(
            "the submission did not build within {:.1} s (`{shown}`); it was stopped:\n{tail}",
            timeout.as_secs_f64()
        ))),
        (Some(code), false) => Err(BuildError::Student(format!(
            "the submission did not build: `{shown}` failed (exit status: {code}):\n{tail}"
        ))),
        (None, false) => Err(BuildError::Student(format!(
            "the submission did not build: `{shown}` was killed by a signal:\n{tail}"
        ))),
    }
}

/// Runs `make` or `cc` like every contained child ([`run_contained`]: limits, its own
/// process group, and as root the user `uid`, no network and `jail`).
fn contained(
    program: &str,
    args: &[String],
    dir: &Path,
    uid: u32,
    jail: Option<&Jail>,
    timeout: Duration,
) -> Result<(), BuildError> {
    let shown = std::iter::once(program.to_string())
        .chain(args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ");
    let built = run_contained(&OneShot {
        program,
        args,
        cwd: dir,
        limits: &build_limits(timeout),
        uid,
        jail,
        // One language for compiler messages, so reports are the same on every machine.
        env: &[("LC_ALL".to_string(), "C".to_string())],
        timeout,
    })
    .map_err(|e| {
        BuildError::Student(format!(
            "could not run `{program}` to build the submission: {e}"
        ))
    })?;
    verdict(&shown, built.code, built.timed_out, &built.output, timeout)
}

/// Runs `cargo args…` in `dir` as the grading user (the Rust toolchain lives in its home, out
/// of an unprivileged user's reach), with the build limits, its own process group and, where
/// namespaces are available, no network; its output kept in `log_path`.
fn cargo(log_path: &Path, timeout: Duration, args: &[&str], dir: &Path) -> Result<(), BuildError> {
    let log = std::fs::File::create(log_path)
        .map_err(|e| BuildError::Input(format!("could not create the build log: {e}")))?;
    let log2 = log
        .try_clone()
        .map_err(|e| BuildError::Input(format!("could not create the build log: {e}")))?;
    let limits = build_limits(timeout);
    let namespaces = limits::namespaces_available();
    let shown = format!("cargo {}", args.join(" "));
    let mut command = CommandWrap::with_new("cargo", |c| {
        c.args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::from(log))
            .stderr(Stdio::from(log2))
            .env("CARGO_TERM_COLOR", "never")
            .env("LC_ALL", "C");
        // SAFETY: only async-signal-safe system calls (setrlimit, unshare), no allocation.
        unsafe {
            c.pre_exec(move || {
                limits::apply_in_child(&limits, None, false, None)?;
                if namespaces {
                    nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWNET)
                        .map_err(std::io::Error::from)?;
                }
                Ok(())
            });
        }
    });
    command.wrap(ProcessGroup::leader());
    let mut child = command.spawn().map_err(|e| {
        BuildError::Student(format!(
            "could not run `cargo` to build the submission: {e}"
        ))
    })?;
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let output = std::fs::read(log_path).unwrap_or_default();
    let output = String::from_utf8_lossy(&output);
    verdict(
        &shown,
        status.and_then(|s| s.code()),
        status.is_none(),
        &output,
        timeout,
    )
}
