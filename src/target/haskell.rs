//! `haskell:PATH`: a student's `Battleship.hs` (move-limit-10x10), compiled with broadside's
//! bundled driver (`drivers/haskell/Main.hs`) into one program that speaks the protocol.
//!
//! The submission (its folder's `.hs` files, or the one file as `Battleship.hs`) and the
//! driver go into a private folder; GHC compiles them there, contained like any child (as the
//! unprivileged user, in the jail, with limits and a timeout), with
//! `-fdefer-type-errors -fdefer-out-of-scope-variables`: a function that is missing or does
//! not type-check fails only the requests that call it (`missing` / `exception`), not the
//! whole submission. A file GHC cannot compile at all (a parse error, a missing type) fails
//! every scenario at setup with GHC's message. GHC comes from the system (`apt-get install
//! ghc`); `BROADSIDE_GHC` names another.

use super::build::{Built, OneShot, run_contained};
use super::limits::{Limits, MemoryKind};
use super::workspace::{Workspace, copy_tree, ours, theirs};
use super::{Fault, FaultKind, Process, TargetError};
use camino::Utf8Path;
use std::path::Path;
use std::time::Duration;

/// The bundled driver, compiled in.
pub(crate) const DRIVER: &str = include_str!("../../drivers/haskell/Main.hs");

/// The driver's file name in the build folder (not `Main.hs`: students keep the framework's).
const DRIVER_FILE: &str = "BroadsideDriver.hs";

/// The program GHC builds.
const PROGRAM: &str = "broadside-haskell";

/// Wall-clock time GHC may take to compile a submission.
pub(crate) const COMPILE_TIMEOUT: Duration = Duration::from_secs(180);

/// The GHC used; `BROADSIDE_GHC` overrides it.
pub fn compiler() -> String {
    std::env::var("BROADSIDE_GHC").unwrap_or_else(|_| "ghc".to_string())
}

/// Compiles the submission at `path` (a `Battleship.hs` file or a folder holding one) with the
/// driver, running the program as `uid` when broadside runs as root. `limits` bound the
/// program; the compile gets more memory and time of its own.
///
/// Errors: the path does not exist or its files cannot be copied ([`TargetError::Input`]:
/// `run` exits 2); GHC cannot be started (not installed: the message names the package),
/// or the private folder cannot be made or the driver written into it
/// ([`TargetError::Grader`]: `run` exits 3). Neither is the student's fault. A folder without `Battleship.hs` is
/// the student's: [`Built::Failed`].
pub fn target(
    path: &Utf8Path,
    limits: Limits,
    uid: u32,
) -> Result<Built<Box<Process>>, TargetError> {
    let src = std::fs::canonicalize(path)
        .map_err(|e| TargetError::Input(format!("haskell:{path}: {e}")))?;
    let ws = Workspace::new()?;
    let work = ws.work.clone();
    let skipped = match copy_sources(&src, &work)? {
        Ok(skipped) => skipped,
        Err(fault) => return Ok(Built::Failed(fault)),
    };
    std::fs::write(work.join(DRIVER_FILE), DRIVER).map_err(ours)?;
    let jail = ws.seal(uid, &ghc_folders())?;
    let args: Vec<String> = [
        "-O0",
        "-fdefer-type-errors",
        "-fdefer-out-of-scope-variables",
        "-outputdir",
        "build",
        "-o",
        PROGRAM,
        DRIVER_FILE,
    ]
    .map(String::from)
    .to_vec();
    // GHC reserves a large address range and links with gcc: data-size memory, more of it,
    // and room for the program file.
    let compile_limits = Limits {
        memory_mib: limits.memory_mib.max(2048),
        memory_kind: MemoryKind::DataSize,
        cpu_secs: 300,
        file_size_mib: limits.file_size_mib.max(256),
        processes: limits.processes.max(64),
        ..limits.clone()
    };
    let library_path = ghc_library_path();
    let compile = || {
        run_contained(&OneShot {
            program: &compiler(),
            args: &args,
            cwd: &work,
            limits: &compile_limits,
            uid,
            jail: jail.as_ref(),
            env: &library_path,
            timeout: COMPILE_TIMEOUT,
        })
        .map_err(|e| {
            TargetError::Grader(format!(
                "could not run `{}` to compile haskell:{path}: {e} (install GHC: apt-get install ghc)",
                compiler()
            ))
        })
    };
    let mut built = compile()?;
    // A student function missing altogether is out of scope in the driver, which GHC cannot
    // defer for a qualified name: stand in for it and compile again, so only the requests
    // that call it fail (`missing`).
    let missing = missing_functions(&built.output);
    if built.code != Some(0) && !missing.is_empty() {
        let mut driver = DRIVER.to_string();
        for f in &missing {
            driver = replace_name(
                &driver,
                &format!("B.{f}"),
                &format!("(missingFunction \"{f}\")"),
            );
        }
        std::fs::write(work.join(DRIVER_FILE), driver).map_err(ours)?;
        built = compile()?;
    }
    if let Some(fault) = compile_failure(&built, &ws.inside(&work)) {
        return Ok(Built::Failed(fault));
    }
    let name = format!("haskell:{path}");
    let program = ws.inside(&work.join(PROGRAM));
    let mut process = ws.process(name, program, Vec::new(), jail, uid);
    process.limits = Limits {
        memory_kind: MemoryKind::DataSize,
        ..limits
    };
    process.copy_note = super::workspace::skipped_note(&skipped);
    Ok(Built::Ready(Box::new(process)))
}

/// Copies the submission into `work`: a folder's `.hs` files (folders kept, hidden ones
/// skipped), or the one file given as `Battleship.hs`. Returns the files that could not be
/// copied; `Err`: a folder without `Battleship.hs` (the student's fault).
///
/// Errors: the submission's files cannot be read (the input's, exit 2).
fn copy_sources(src: &Path, work: &Path) -> Result<Result<Vec<String>, Fault>, TargetError> {
    if !src.is_dir() {
        super::workspace::copy_file(src, &work.join("Battleship.hs")).map_err(theirs)?;
        return Ok(Ok(Vec::new()));
    }
    let hs = |name: &std::ffi::OsStr, dir: bool| {
        let name = name.to_string_lossy();
        if dir {
            !name.starts_with('.')
        } else {
            name.ends_with(".hs")
        }
    };
    let skipped = copy_tree(src, work, &hs).map_err(theirs)?;
    if !work.join("Battleship.hs").is_file() {
        return Ok(Err(Fault {
            kind: FaultKind::Setup,
            message: "no Battleship.hs in the submission; expected the course's Battleship.hs (module Battleship)".into(),
        }));
    }
    Ok(Ok(skipped))
}

/// Why a compile failed, as the student's fault: a process Template Haskell left running,
/// a timeout, a signal or GHC's errors (paths shown as the student knows them;
/// `work_inside`: the build folder as the compile saw it). `None`: it compiled.
fn compile_failure(built: &super::build::BuildRun, work_inside: &str) -> Option<Fault> {
    if !built.leftovers.is_empty() {
        // Template Haskell ran a program that outlived the compile.
        return Some(Fault {
            kind: FaultKind::Leak,
            message: format!(
                "compiling Battleship.hs started processes that outlived the compile; they were killed:\n{}",
                built.leftovers.join("\n")
            ),
        });
    }
    if built.timed_out || built.code != Some(0) {
        let why = if built.timed_out {
            format!("GHC did not finish within {} s", COMPILE_TIMEOUT.as_secs())
        } else if built.code.is_none() {
            "GHC was killed by a signal while compiling Battleship.hs".to_string()
        } else {
            "Battleship.hs does not compile".to_string()
        };
        let message = format!("{why}:\n{}", compile_errors(&built.output, work_inside));
        return Some(Fault {
            kind: FaultKind::Setup,
            message,
        });
    }
    None
}

/// GHC's libdir (`ghc --print-libdir`), asked once per broadside process; `None` when GHC
/// cannot be run (the compile then reports that itself).
fn ghc_libdir() -> Option<&'static Path> {
    static LIBDIR: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    LIBDIR
        .get_or_init(|| {
            let out = std::process::Command::new(compiler())
                .arg("--print-libdir")
                .output()
                .ok()?;
            let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
            (out.status.success() && !dir.is_empty()).then(|| dir.into())
        })
        .as_deref()
}

/// GHC's folders outside the system folders a jail shows: where its libdir's links lead
/// (Debian keeps the package database in `/var/lib/ghc`).
pub(crate) fn ghc_folders() -> Vec<std::path::PathBuf> {
    let Some(libdir) = ghc_libdir() else {
        return Vec::new();
    };
    let shown = [
        "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
    ];
    let mut out: Vec<std::path::PathBuf> = std::fs::read_dir(libdir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_symlink()))
        .filter_map(|e| std::fs::canonicalize(e.path()).ok())
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .chain(std::fs::canonicalize(libdir).ok())
        .filter(|p| !shown.iter().any(|s| p.starts_with(s)))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// `LD_LIBRARY_PATH` for GHC in the jail: GHC finds its own shared libraries through
/// `$ORIGIN`, which the loader reads from `/proc`, and a jail has no `/proc`; so the folders
/// of its libdir that hold them are named outright. Empty when the libdir cannot be read.
pub(crate) fn ghc_library_path() -> Vec<(String, String)> {
    let Some(libdir) = ghc_libdir() else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(libdir) else {
        return Vec::new();
    };
    let mut dirs: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| {
            std::fs::read_dir(e.path()).is_ok_and(|mut files| {
                files.any(|f| {
                    f.ok().is_some_and(|f| {
                        let n = f.file_name().to_string_lossy().into_owned();
                        n.starts_with("libHS") && n.ends_with(".so")
                    })
                })
            })
        })
        .map(|e| e.path().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    if dirs.is_empty() {
        return Vec::new();
    }
    vec![("LD_LIBRARY_PATH".to_string(), dirs.join(":"))]
}

/// The student functions the driver calls; a missing one is stood in for.
const FUNCTIONS: [&str; 5] = [
    "transitionState",
    "placeShip",
    "showBoard",
    "coordInBound",
    "shipLength",
];

/// The student functions GHC reports out of scope in the driver (`Not in scope: ‘B.f’`).
fn missing_functions(output: &str) -> Vec<&'static str> {
    FUNCTIONS
        .into_iter()
        .filter(|f| {
            [format!("‘B.{f}’"), format!("`B.{f}'")]
                .iter()
                .any(|q| output.contains(&format!("Not in scope: {q}")))
        })
        .collect()
}

/// `text` with every `name` that is a whole identifier replaced by `with`.
fn replace_name(text: &str, name: &str, with: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(name) {
        let after = &rest[i + name.len()..];
        let whole = !after
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '\'');
        out.push_str(&rest[..i]);
        out.push_str(if whole { with } else { name });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// GHC's messages for the student: its errors only (not the warnings that deferred errors
/// turn into), paths made relative, at most 60 lines.
fn compile_errors(output: &str, workdir: &str) -> String {
    let text = output.replace(&format!("{workdir}/"), "");
    let mut keep = true;
    let mut lines: Vec<&str> = Vec::new();
    for l in text.lines() {
        if l.starts_with('[') || l.starts_with("Linking") {
            continue;
        }
        if !l.starts_with(' ') && !l.is_empty() {
            // A new message: `File.hs:12:3: error:` or `…: warning: …`.
            keep = !l.contains(": warning:");
        }
        if keep {
            lines.push(l);
        }
    }
    while lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines.remove(0);
    }
    let mut shown: Vec<&str> = lines.iter().take(60).copied().collect();
    if lines.len() > 60 {
        shown.push("…");
    }
    shown.join("\n")
}
