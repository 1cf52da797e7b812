//! Finding the submissions of a class and choosing a shard of them.

use camino::{Utf8Path, Utf8PathBuf};
use std::str::FromStr;

/// One student's submission: a sub-folder of the submissions folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// The folder's name, used as the submission's id in reports and the summary.
    pub id: String,
    pub path: Utf8PathBuf,
}

/// The submissions under `dir`: every sub-folder (hidden ones, starting with `.`, and
/// `__MACOSX` skipped),
/// sorted by id. Files directly in `dir` are not submissions.
///
/// A folder whose name is not UTF-8 (an archive unpacked with another encoding) is graded
/// all the same: its id spells the stray bytes as `\xNN` (`caf\xe9`, unique as the bytes
/// are), and its path is a link of that name to it in a temporary folder kept until
/// [`drop_aliases`] (the targets copy the folder the link points to).
///
/// Errors: `dir` is not a readable folder.
pub fn discover(dir: &Utf8Path) -> Result<Vec<Submission>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read the submissions folder {dir}: {e}"))?;
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read the submissions folder {dir}: {e}"))?;
        let name = entry.file_name();
        let id = escaped(&name);
        // Hidden folders and the folder macOS archivers add are not submissions.
        if id.starts_with('.') || id == "__MACOSX" || !entry.path().is_dir() {
            continue;
        }
        let path = match name.to_str() {
            Some(n) => dir.join(n),
            None => alias(&entry.path(), &id)?,
        };
        out.push(Submission { id, path });
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}

/// A file name as text: UTF-8 as it is, other bytes as `\xNN`.
fn escaped(name: &std::ffi::OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for chunk in name.as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// The temporary folders holding links to submissions whose names are not UTF-8.
static ALIASES: std::sync::Mutex<Vec<tempfile::TempDir>> = std::sync::Mutex::new(Vec::new());

/// A link named `id` to `target`, in a temporary folder of this run.
fn alias(target: &std::path::Path, id: &str) -> Result<Utf8PathBuf, String> {
    let fail =
        |e: std::io::Error| format!("cannot link the submission {id} under a UTF-8 name: {e}");
    let mut held = ALIASES.lock().unwrap_or_else(|p| p.into_inner());
    if held.is_empty() {
        held.push(
            tempfile::Builder::new()
                .prefix("broadside-names-")
                .tempdir()
                .map_err(fail)?,
        );
    }
    let link = held[0].path().join(id);
    std::os::unix::fs::symlink(target, &link).map_err(fail)?;
    Utf8PathBuf::from_path_buf(link)
        .map_err(|p| format!("the temporary folder {} is not UTF-8", p.display()))
}

/// Removes the links [`discover`] made for names that are not UTF-8 (after grading).
pub fn drop_aliases() {
    ALIASES.lock().unwrap_or_else(|p| p.into_inner()).clear();
}

/// The files directly in `dir` (hidden ones skipped): not submissions, but a class folder
/// rarely holds them by design (a zip not unpacked, a student's file dropped loose), so the
/// summary lists them as not graded. Sorted; names not UTF-8 shown lossily.
pub fn strays(dir: &Utf8Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| !t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    out.sort();
    out
}

/// `--shard K/N`: the K-th of N deterministic parts of a class (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// The submissions of this shard: those at positions `index-1`, `index-1+count`, … of the
    /// sorted list, so every shard gets an even share and the N shards cover the class once.
    pub fn select(&self, all: Vec<Submission>) -> Vec<Submission> {
        all.into_iter()
            .enumerate()
            .filter(|(i, _)| i % self.count == self.index - 1)
            .map(|(_, s)| s)
            .collect()
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `K/N` with 1 ≤ K ≤ N.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("`{s}` is not a shard; expected K/N with 1 <= K <= N, e.g. 2/4");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(n: usize) -> Vec<Submission> {
        (0..n)
            .map(|i| Submission {
                id: format!("s{i:02}"),
                path: format!("x/s{i:02}").into(),
            })
            .collect()
    }

    #[test]
    fn shards_cover_the_class_once() {
        let mut seen: Vec<String> = Vec::new();
        for k in 1..=3 {
            let shard = Shard { index: k, count: 3 };
            seen.extend(shard.select(class(10)).into_iter().map(|s| s.id));
        }
        seen.sort();
        assert_eq!(
            seen,
            class(10).into_iter().map(|s| s.id).collect::<Vec<_>>()
        );
    }

    #[test]
    fn shard_syntax() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "2", "a/b", "1/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
