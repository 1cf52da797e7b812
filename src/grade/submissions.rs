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
/// Errors: `dir` is not a readable folder, or a name is not UTF-8.
pub fn discover(dir: &Utf8Path) -> Result<Vec<Submission>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read the submissions folder {dir}: {e}"))?;
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read the submissions folder {dir}: {e}"))?;
        let name = entry.file_name();
        let Some(id) = name.to_str() else {
            return Err(format!(
                "submission folder {} in {dir} has a name that is not UTF-8",
                name.to_string_lossy()
            ));
        };
        // Hidden folders and the folder macOS archivers add are not submissions.
        if id.starts_with('.') || id == "__MACOSX" || !entry.path().is_dir() {
            continue;
        }
        out.push(Submission {
            id: id.to_string(),
            path: dir.join(id),
        });
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
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
