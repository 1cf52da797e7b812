//! Running a tool over a copy of the submission, contained like every child: a private folder
//! (the jail, as root), the submission's user, limits and a timeout.

use super::MeasureError;
use crate::target::build::{BuildRun, OneShot, run_contained};
use crate::target::limits::{Limits, MemoryKind};
use crate::target::workspace::{Workspace, copy_tree, prepare};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A copy of the submission in a private folder, where tools run.
pub struct Copy {
    pub ws: Workspace,
    jail: Option<crate::target::limits::Jail>,
    uid: u32,
}

/// The limits a tool runs under: room for a JVM or GHC, a minute of processor time.
pub(crate) fn tool_limits() -> Limits {
    let base = Limits::for_profile(crate::target::limits::Profile::Python);
    Limits {
        memory_mib: base.memory_mib.max(2048),
        memory_kind: MemoryKind::DataSize,
        cpu_secs: 120,
        file_size_mib: base.file_size_mib.max(256),
        processes: base.processes.max(256),
        ..base
    }
}

impl Copy {
    /// Copies `src` (a folder, or one file) for `uid`; `extra` host folders are shown in the
    /// jail (a compiler's files outside the system folders).
    ///
    /// Errors: the folder cannot be prepared (the grader's problem).
    pub fn new(src: &Path, uid: u32, extra: &[PathBuf]) -> Result<Copy, MeasureError> {
        let ws = Workspace::new().map_err(|e| e.to_string())?;
        if src.is_dir() {
            copy_tree(src, &ws.work, &|_, _| true).map_err(prepare)?;
        } else {
            let name = src
                .file_name()
                .map(|n| n.to_os_string())
                .unwrap_or_default();
            crate::target::workspace::copy_file(src, &ws.work.join(name)).map_err(prepare)?;
        }
        let jail = ws.seal(uid, extra).map_err(|e| e.to_string())?;
        Ok(Copy { ws, jail, uid })
    }

    /// `path` under the copy, as the tool sees it.
    pub fn inside(&self, path: &Path) -> String {
        self.ws.inside(path)
    }

    /// Runs `program args…` in the copy's working folder.
    ///
    /// Errors: the program could not be started (not installed: the grader's problem).
    pub fn run(
        &self,
        program: &str,
        args: &[String],
        env: &[(String, String)],
        timeout: Duration,
    ) -> Result<BuildRun, MeasureError> {
        self.run_in(&self.ws.work.clone(), program, args, env, timeout)
    }

    /// [`Copy::run`] in `dir`, a folder under the copy (outside a jail; in one, the tool
    /// starts in the working folder and is handed paths).
    pub(crate) fn run_in(
        &self,
        dir: &Path,
        program: &str,
        args: &[String],
        env: &[(String, String)],
        timeout: Duration,
    ) -> Result<BuildRun, MeasureError> {
        run_contained(&OneShot {
            program,
            args,
            cwd: dir,
            limits: &tool_limits(),
            uid: self.uid,
            jail: self.jail.as_ref(),
            env,
            timeout,
        })
        .map_err(|e| format!("could not run `{program}`: {e}").into())
    }
}

/// Files under `root` (and `root` itself when it is a file) that `pattern` names: `*.ext`
/// for every such file, else a file name matched regardless of case. Hidden folders and
/// `__MACOSX` are skipped; the shallowest come first.
pub fn find(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let matches = |name: &str| match pattern.strip_prefix('*') {
        Some(ext) => name.to_lowercase().ends_with(&ext.to_lowercase()),
        None => name.eq_ignore_ascii_case(pattern),
    };
    if root.is_file() {
        let name = root.file_name().map(|n| n.to_string_lossy().into_owned());
        return name
            .filter(|n| matches(n))
            .map(|_| vec![root.to_path_buf()])
            .unwrap_or_default();
    }
    let mut found: Vec<(usize, PathBuf)> = walkdir::WalkDir::new(root)
        .max_depth(4)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0
                || !(name.starts_with('.') || name == "__MACOSX" || name == "__pycache__")
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && matches(&e.file_name().to_string_lossy()))
        .map(|e| (e.depth(), e.into_path()))
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

/// The folder a submission's paths are shown relative to: `root` itself, or the folder of a
/// one-file submission.
pub(crate) fn folder_of(root: &Path) -> &Path {
    if root.is_file() {
        root.parent().unwrap_or(root)
    } else {
        root
    }
}

/// A file's text, bytes that are not UTF-8 replaced; empty when it cannot be read.
pub(crate) fn read_lossy(path: &Path) -> String {
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// `path` relative to `root`, for messages.
pub fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}
