//! `python:PATH`: a student's Python file or folder, run under broadside's bundled driver.
//!
//! The driver (`drivers/python_driver.py`, compiled into the binary) and a copy of the
//! submission go into a private temporary folder; the child runs there, so it sees only its
//! own files in its working directory. When broadside runs as root the folder belongs to the
//! unprivileged user the child runs as.

use super::Process;
use super::limits::{self, NOBODY};
use camino::Utf8Path;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// The bundled Python driver.
pub const DRIVER: &str = include_str!("../../drivers/python_driver.py");

/// The Python interpreter used; `BROADSIDE_PYTHON` overrides it.
pub fn interpreter() -> String {
    std::env::var("BROADSIDE_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

/// A target for the submission at `path` (a `.py` file, or a folder holding the module).
///
/// Errors: the path does not exist, or the private folder cannot be prepared.
pub fn target(path: &Utf8Path) -> Result<Process, String> {
    target_as(path, NOBODY)
}

/// [`target`], with the child running as `uid` when broadside runs as root (`grade` gives
/// each job slot a user of its own, so one submission's processes never count against
/// another's process limit).
///
/// Errors: as [`target`].
pub fn target_as(path: &Utf8Path, uid: u32) -> Result<Process, String> {
    let src = std::fs::canonicalize(path).map_err(|e| format!("python:{path}: {e}"))?;
    let dir = tempfile::Builder::new()
        .prefix("broadside-")
        .tempdir()
        .map_err(|e| format!("could not make a private folder for the submission: {e}"))?;
    let io = |e: std::io::Error| format!("could not prepare the submission's folder: {e}");
    // As root the child is locked into a jail whose `/box` holds the driver and the copy;
    // otherwise it runs in the private folder itself.
    let root = limits::running_as_root();
    // Without namespaces there is no jail: the child runs in the private folder, as the
    // unprivileged user all the same.
    let jailed = root && limits::namespaces_available();
    let jail_root = dir.path().join("jail");
    let boxed = if jailed {
        jail_root.join("box")
    } else {
        dir.path().to_path_buf()
    };
    std::fs::create_dir_all(&boxed).map_err(io)?;
    let driver = boxed.join("broadside_driver.py");
    std::fs::write(&driver, DRIVER).map_err(io)?;
    let work = boxed.join("work");
    std::fs::create_dir(&work).map_err(io)?;
    let name = src
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    let copy = if src.is_dir() {
        copy_tree(&src, &work).map_err(io)?;
        work.clone()
    } else {
        std::fs::copy(&src, work.join(&name)).map_err(io)?;
        work.join(&name)
    };
    // The child may read the driver and owns its working folder, nothing else here.
    for d in [dir.path(), boxed.as_path()] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).map_err(io)?;
    }
    std::fs::set_permissions(&driver, std::fs::Permissions::from_mode(0o644)).map_err(io)?;
    // Paths as the child sees them.
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
    let args = vec![
        "-u".to_string(),
        "-B".to_string(),
        inside(&driver),
        inside(&copy),
    ];
    let name = format!("python:{path}");
    if root {
        chown_tree(&work, uid).map_err(io)?;
    }
    if jailed {
        let jail = limits::Jail::prepare(&jail_root, &inside(&work), &[]).map_err(io)?;
        return Ok(Process::new(name, interpreter(), args, None)
            .jail(jail)
            .run_as(uid)
            .keep(dir));
    }
    Ok(Process::new(name, interpreter(), args, Some(work))
        .run_as(uid)
        .keep(dir))
}

/// Copies the regular files and folders under `from` into `to` (links are not followed).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let dest = to.join(entry.file_name());
        if kind.is_dir() {
            std::fs::create_dir(&dest)?;
            copy_tree(&entry.path(), &dest)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), dest)?;
        }
    }
    Ok(())
}

fn chown_tree(path: &Path, uid: u32) -> std::io::Result<()> {
    let id = Some(uid);
    std::os::unix::fs::chown(path, id, id)?;
    if path.is_dir() {
        for entry in std::fs::read_dir(path)? {
            chown_tree(&entry?.path(), uid)?;
        }
    }
    Ok(())
}
