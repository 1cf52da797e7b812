//! Builds kept between runs: what `javac` made of a submission's sources, found again by
//! the SHA-256 of everything the compile read (broadside's version, the compiler, its
//! arguments, every source file's path and bytes), so grading the same files again (a
//! student self-checking twice, `grade` again after a scenario changed, the five runs of a
//! determinism check) compiles nothing.
//!
//! - **Where:** `BROADSIDE_BUILD_CACHE` names the folder (`off` turns the cache off); else
//!   `$XDG_CACHE_HOME/broadside/builds`, else `~/.cache/broadside/builds`; no home, no cache.
//!   It may be deleted at any time.
//! - **Trust:** only a successful compile is kept, copied out of the contained build folder
//!   (class files and folders, never a link), into a folder only broadside's user can read
//!   or write (mode 0700, checked before each use: a cache folder another user owns, or that
//!   others can write, is not used). A submission never sees the cache: its build folder
//!   gets a copy.
//! - **Failures are never a grade:** a cache that cannot be read or written is as if it were
//!   empty; the compile runs as it would without it.
//! - **Races:** an entry is written under a temporary name and renamed into place, so two
//!   `grade` slots compiling the same sources at once each find a whole entry or none.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The key of one build: a SHA-256 over length-prefixed parts.
pub struct Key(Sha256);

impl Key {
    /// A key for builds of `kind` (`java`), by this broadside.
    pub fn new(kind: &str) -> Key {
        let mut k = Key(Sha256::new());
        k.part(env!("CARGO_PKG_VERSION").as_bytes());
        k.part(kind.as_bytes());
        k
    }

    /// Adds one part.
    pub fn part(&mut self, bytes: &[u8]) -> &mut Key {
        self.0.update((bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
        self
    }

    /// Adds the program at `path` as the compile would find it: its path, and the size and
    /// modification time of the file it resolves to (an upgraded compiler is a new file).
    pub fn program(&mut self, path: &str) -> &mut Key {
        self.part(path.as_bytes());
        let seen = std::fs::metadata(path).map(|m| {
            use std::os::unix::fs::MetadataExt;
            format!("{} {} {}", m.len(), m.mtime(), m.mtime_nsec())
        });
        self.part(seen.unwrap_or_default().as_bytes())
    }

    fn hex(&self) -> String {
        self.0
            .clone()
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// The cache folder, when there is one that is safe to use (see the module's notes).
fn folder() -> Option<PathBuf> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = match std::env::var_os("BROADSIDE_BUILD_CACHE") {
        Some(v) if v == "off" || v.is_empty() => return None,
        Some(v) => PathBuf::from(v),
        None => std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))?
            .join("broadside/builds"),
    };
    if !dir.is_dir() {
        std::fs::create_dir_all(&dir).ok()?;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).ok()?;
    }
    let meta = std::fs::symlink_metadata(&dir).ok()?;
    let ours = meta.is_dir() && meta.uid() == nix::unistd::geteuid().as_raw();
    (ours && meta.mode() & 0o077 == 0).then_some(dir)
}

/// Copies the build kept under `key` into `into` (a folder that exists and is empty);
/// `false` when there is none, or it could not be copied whole (then what was copied is
/// removed, `into` itself kept as it was, owner included, and the compile runs).
pub fn fetch(key: &Key, into: &Path) -> bool {
    let Some(entry) = folder().map(|d| d.join(key.hex())) else {
        return false;
    };
    if !entry.is_dir() {
        return false;
    }
    if copy(&entry, into).is_ok() {
        return true;
    }
    for e in std::fs::read_dir(into).into_iter().flatten().flatten() {
        let path = e.path();
        let _ = if e.file_type().is_ok_and(|t| t.is_dir()) {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_file(path)
        };
    }
    false
}

/// Keeps the build in `from` under `key`. Best effort: a cache that cannot be written is
/// left as it was.
pub fn keep(key: &Key, from: &Path) {
    let Some(dir) = folder() else {
        return;
    };
    let name = key.hex();
    let entry = dir.join(&name);
    if entry.is_dir() {
        return;
    }
    let Ok(tmp) = tempfile::Builder::new()
        .prefix(&format!(".{name}-"))
        .tempdir_in(&dir)
    else {
        return;
    };
    if copy(from, tmp.path()).is_ok() {
        // A slot that got there first already renamed its copy: ours is dropped.
        let _ = std::fs::rename(tmp.path(), &entry);
    }
}

/// Copies the class files and folders of `from` into `to`, never a link
/// ([`copy_tree`](super::workspace::copy_tree)); a class file it had to skip (more than one
/// hard link) fails the copy, so an entry is whole or not used.
fn copy(from: &Path, to: &Path) -> std::io::Result<()> {
    let class =
        |name: &std::ffi::OsStr, dir: bool| dir || name.to_string_lossy().ends_with(".class");
    let skipped = super::workspace::copy_tree(from, to, &class)?;
    match skipped.first() {
        None => Ok(()),
        Some(s) => Err(std::io::Error::other(format!(
            "{s} has more than one hard link"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_depends_on_every_part_and_where_one_ends() {
        let hex = |parts: &[&str]| {
            let mut k = Key::new("java");
            for p in parts {
                k.part(p.as_bytes());
            }
            k.hex()
        };
        assert_eq!(hex(&["a", "b"]), hex(&["a", "b"]));
        assert_ne!(hex(&["a", "b"]), hex(&["ab", ""]));
        assert_ne!(hex(&["a", "b"]), hex(&["a", "c"]));
        let mut haskell = Key::new("haskell");
        haskell.part(b"a").part(b"b");
        assert_ne!(hex(&["a", "b"]), haskell.hex());
    }

    #[test]
    fn only_class_files_and_folders_are_copied() {
        let from = tempfile::tempdir().unwrap();
        let to = tempfile::tempdir().unwrap();
        std::fs::create_dir(from.path().join("pkg")).unwrap();
        std::fs::write(from.path().join("pkg/A.class"), b"\xca\xfe").unwrap();
        std::fs::write(from.path().join("notes.txt"), b"x").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", from.path().join("B.class")).unwrap();
        copy(from.path(), to.path()).unwrap();
        assert_eq!(
            std::fs::read(to.path().join("pkg/A.class")).unwrap(),
            b"\xca\xfe"
        );
        assert!(!to.path().join("notes.txt").exists());
        assert!(!to.path().join("B.class").exists());
    }
}
