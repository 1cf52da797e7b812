//! The private folder a submission is built and run in, shared by the `python:` and
//! `haskell:` targets.
//!
//! A fresh temporary folder per target. As root (with namespaces) it holds a jail whose
//! `/box` has the driver and `/box/work` the submission's copy, owned by the user the child
//! runs as; otherwise the child runs in the folder itself. The folder is removed when the
//! target is dropped.

use super::limits::{self, Jail};
use super::{Process, TargetError};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// A submission's private folder.
pub(crate) struct Workspace {
    dir: std::sync::Arc<tempfile::TempDir>,
    /// Whether the child is locked into a jail (root with namespaces).
    pub jailed: bool,
    jail_root: PathBuf,
    /// Where drivers go: the jail's `/box`, or the folder itself.
    pub boxed: PathBuf,
    /// The submission's working folder, `boxed/work`.
    pub work: PathBuf,
}

impl Workspace {
    /// Makes the folders.
    ///
    /// Errors: the temporary folder cannot be made ([`TargetError::Grader`], as every error
    /// here: the private folder is broadside's side).
    pub fn new() -> Result<Workspace, TargetError> {
        let dir = tempfile::Builder::new()
            .prefix("broadside-")
            .tempdir()
            .map_err(no_private_folder)?;
        let jailed = limits::running_as_root() && limits::namespaces_available();
        let jail_root = dir.path().join("jail");
        let boxed = if jailed {
            jail_root.join("box")
        } else {
            dir.path().to_path_buf()
        };
        let work = boxed.join("work");
        std::fs::create_dir_all(&work).map_err(ours)?;
        // The child may read the driver and owns its working folder, nothing else here.
        for d in [dir.path(), boxed.as_path()] {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).map_err(ours)?;
        }
        Ok(Workspace {
            dir: std::sync::Arc::new(dir),
            jailed,
            jail_root,
            boxed,
            work,
        })
    }

    /// The folder for a game server's FIFOs (see [`super::program::GameServer`]), made in
    /// the driver's folder, which the child cannot write: a child that could replace it (a
    /// symbolic link where it was in its own working folder) would have broadside make and
    /// hand over FIFOs wherever the link points.
    ///
    /// Errors: the folder cannot be made.
    pub fn games(&self) -> Result<PathBuf, TargetError> {
        let games = self.boxed.join(".games");
        std::fs::create_dir_all(&games).map_err(ours)?;
        std::fs::set_permissions(&games, std::fs::Permissions::from_mode(0o755)).map_err(ours)?;
        Ok(games)
    }

    /// `path` (under this folder) as the child sees it.
    pub fn inside(&self, path: &Path) -> String {
        if self.jailed {
            let rel = path.strip_prefix(&self.jail_root).unwrap_or(path);
            format!("/{}", rel.to_string_lossy())
        } else {
            path.to_string_lossy().into_owned()
        }
    }

    /// Gives the working folder to `uid` (as root), then prepares the jail, if any, with
    /// `extra` host folders shown in it.
    ///
    /// Errors: a file could not be handed over or the jail prepared.
    pub(crate) fn seal(&self, uid: u32, extra: &[PathBuf]) -> Result<Option<Jail>, TargetError> {
        if limits::running_as_root() {
            chown_tree(&self.work, uid).map_err(ours)?;
        }
        if !self.jailed {
            return Ok(None);
        }
        Jail::prepare(&self.jail_root, &self.inside(&self.work), extra)
            .map(Some)
            .map_err(ours)
    }

    /// The target that runs `program args…` in this folder (in `jail`, when there is one) as
    /// `uid`; the folder lives as long as the target.
    pub fn process(
        &self,
        name: String,
        program: String,
        args: Vec<String>,
        jail: Option<Jail>,
        uid: u32,
    ) -> Process {
        let process = match jail {
            Some(jail) => Process::new(name, program, args, None).jail(jail),
            None => Process::new(name, program, args, Some(self.work.clone())),
        };
        process.run_as(uid).keep(self.dir.clone())
    }
}

impl Workspace {
    /// The interactive program `program args…` in this folder (in `jail`, when there is
    /// one), run as `uid`; the folder lives as long as any copy of the program.
    pub fn program(
        &self,
        name: String,
        program: String,
        args: Vec<String>,
        jail: Option<Jail>,
        uid: u32,
    ) -> super::program::Program {
        let cwd = jail.is_none().then(|| self.work.clone());
        let mut p = super::program::Program::new(name, program, args, cwd).run_as(uid);
        p.jail = jail.map(std::sync::Arc::new);
        p.keep(self.dir.clone())
    }
}

/// Writes `text` to `path` as a file every user may read (a driver the child runs, a
/// module it imports), whatever the umask.
pub(crate) fn write_readable(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644))
}

/// The error for a folder that could not be prepared.
pub(crate) fn prepare(e: std::io::Error) -> String {
    format!("could not prepare the submission's folder: {e}")
}

/// A private folder for the submission that could not be made: broadside's own failure.
pub fn no_private_folder(e: std::io::Error) -> TargetError {
    TargetError::Grader(format!(
        "could not make a private folder for the submission: {e}"
    ))
}

/// `prepare`'s message as the input's failure: the submission's own files could not be read
/// or copied.
pub fn theirs(e: std::io::Error) -> TargetError {
    TargetError::Input(prepare(e))
}

/// [`prepare`]'s message as broadside's own failure: the private folder is the grader's.
pub(crate) fn ours(e: std::io::Error) -> TargetError {
    TargetError::Grader(prepare(e))
}

/// Copies the regular files and folders under `from` into `to` that `keep` accepts (given
/// each entry's name and whether it is a folder); links are never followed. A file with
/// more than one hard link is skipped (it may be another user's file linked in, which the
/// copy would hand to the submission's user): the skipped paths, relative to `from`, are
/// returned for the report.
pub fn copy_tree(
    from: &Path,
    to: &Path,
    keep: &dyn Fn(&std::ffi::OsStr, bool) -> bool,
) -> std::io::Result<Vec<String>> {
    let mut skipped = Vec::new();
    copy_tree_into(from, to, keep, Path::new(""), &mut skipped)?;
    skipped.sort();
    Ok(skipped)
}

fn copy_tree_into(
    from: &Path,
    to: &Path,
    keep: &dyn Fn(&std::ffi::OsStr, bool) -> bool,
    rel: &Path,
    skipped: &mut Vec<String>,
) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let name = entry.file_name();
        if !(kind.is_dir() || kind.is_file()) || !keep(&name, kind.is_dir()) {
            continue;
        }
        let dest = to.join(&name);
        if kind.is_dir() {
            std::fs::create_dir(&dest)?;
            copy_tree_into(&entry.path(), &dest, keep, &rel.join(&name), skipped)?;
        } else if entry.metadata()?.nlink() > 1 {
            skipped.push(rel.join(&name).to_string_lossy().into_owned());
        } else {
            std::fs::copy(entry.path(), dest)?;
        }
    }
    Ok(())
}

/// Copies one submitted file, refusing one with more than one hard link (see
/// [`copy_tree`]).
pub(crate) fn copy_file(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(from)?;
    if !meta.is_file() || meta.nlink() > 1 {
        return Err(std::io::Error::other(format!(
            "{} is not a plain file of its own (a link to another file); it is not copied",
            from.display()
        )));
    }
    std::fs::copy(from, to).map(drop)
}

/// The report note for files [`copy_tree`] skipped, if any.
pub fn skipped_note(skipped: &[String]) -> Option<String> {
    (!skipped.is_empty()).then(|| {
        format!(
            "not copied, being hard links to other files (the submission's code never saw them): {}",
            skipped.join(", ")
        )
    })
}

/// Gives `path` and everything under it to `uid`.
pub(crate) fn chown_tree(path: &Path, uid: u32) -> std::io::Result<()> {
    std::os::unix::fs::chown(path, Some(uid), Some(uid))?;
    if path.is_dir() {
        for entry in std::fs::read_dir(path)? {
            chown_tree(&entry?.path(), uid)?;
        }
    }
    Ok(())
}
