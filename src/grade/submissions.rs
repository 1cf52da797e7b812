//! Finding the submissions of a class and choosing a shard of them.

use super::GradeError;
use camino::{Utf8Path, Utf8PathBuf};
use std::str::FromStr;

/// One student's submission: a sub-folder of the submissions folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// Its id in reports and the summary, and the name of its report folder in `--out`:
    /// the folder's name with control characters spelled `\u{1b}` and bytes that are not
    /// UTF-8 spelled `\xNN`, and `~2`, `~3`… after it when another folder of the class
    /// reads the same (see `ids`). Unique in the class, and never holds a control
    /// character.
    pub id: String,
    /// The folder's name spelled so that no two names read alike (see `spelled`): what
    /// the id stands for, recorded in its report so `--resume` reuses a report only for
    /// the folder it was made from.
    pub folder: String,
    pub path: Utf8PathBuf,
}

/// The submissions under `dir`: every sub-folder (hidden ones, starting with `.`, and
/// `__MACOSX` skipped),
/// sorted by id. Files directly in `dir` are not submissions.
///
/// A folder whose name is not UTF-8 (an archive unpacked with another encoding) is graded
/// all the same: its id spells the stray bytes as `\xNN` (`caf\xe9`), and its path is a
/// link of that id to it in a temporary folder kept until [`drop_aliases`] (the targets
/// copy the folder the link points to). Two folders whose ids read the same once
/// case-folded and NFC-normalised (`bad\xffutf8` spelled out and a name with the byte
/// 0xff; `Alice` and `alice`) get distinct ids, see `ids`.
///
/// Errors: `dir` is not a readable folder.
pub fn discover(dir: &Utf8Path) -> Result<Vec<Submission>, GradeError> {
    use std::os::unix::ffi::OsStrExt;
    let entries = std::fs::read_dir(dir)
        .map_err(|e| GradeError::Input(format!("cannot read the submissions folder {dir}: {e}")))?;
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| {
            GradeError::Input(format!("cannot read the submissions folder {dir}: {e}"))
        })?;
        let name = entry.file_name();
        // Hidden folders and the folder macOS archivers add are not submissions.
        if name.as_bytes().starts_with(b".") || name == "__MACOSX" || !entry.path().is_dir() {
            continue;
        }
        found.push((name, entry.path()));
    }
    // Ids are handed out in the order of the names' bytes, whatever order the folder lists.
    found.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let names: Vec<&[u8]> = found.iter().map(|(n, _)| n.as_bytes()).collect();
    let mut out = Vec::new();
    for ((name, full), id) in found.iter().zip(ids(&names)) {
        let path = match name.to_str() {
            Some(n) => dir.join(n),
            None => alias(full, &id)?,
        };
        out.push(Submission {
            folder: spelled(name.as_bytes()),
            id,
            path,
        });
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}

/// The ids of folders named `names` (sorted by their bytes): each name [`escaped`]; where
/// several read the same once case-folded and NFC-normalised, the first in byte order keeps
/// it and the others get `~2`, `~3`… in byte order, skipping any that would read the same
/// as another folder's id. So ids are unique however the file system folds names, and the
/// same class always gets the same ids.
pub(crate) fn ids(names: &[&[u8]]) -> Vec<String> {
    use std::collections::HashSet;
    let plain: Vec<String> = names.iter().map(|n| escaped(n)).collect();
    let mut taken: HashSet<String> = plain.iter().map(|p| folded(p)).collect();
    let mut kept: HashSet<String> = HashSet::new();
    plain
        .into_iter()
        .map(|p| {
            if kept.insert(folded(&p)) {
                return p;
            }
            let mut k = 2;
            loop {
                let candidate = format!("{p}~{k}");
                if taken.insert(folded(&candidate)) {
                    break candidate;
                }
                k += 1;
            }
        })
        .collect()
}

/// `id` as the collision check compares it: NFC-normalised and lower-cased (a file system
/// that folds case or normalises names would store two such ids in one folder).
fn folded(id: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    id.nfc().flat_map(char::to_lowercase).nfc().collect()
}

/// A file name as an id: UTF-8 as it is except control characters, spelled `\u{1b}`;
/// other bytes as `\xNN`. A literal `\` stays, so two names may read the same: [`ids`]
/// tells them apart.
fn escaped(name: &[u8]) -> String {
    spell(name, false)
}

/// A file name spelled so that no two names read alike: as [`escaped`], with every `\` of
/// the name doubled, so `\xff` is the byte 0xff and `\\xff` the four characters `\xff`.
pub(crate) fn spelled(name: &[u8]) -> String {
    spell(name, true)
}

fn spell(name: &[u8], double_backslash: bool) -> String {
    let mut out = String::new();
    for chunk in name.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' if double_backslash => out.push_str("\\\\"),
                c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// The temporary folders holding links to submissions whose names are not UTF-8.
static ALIASES: std::sync::Mutex<Vec<tempfile::TempDir>> = std::sync::Mutex::new(Vec::new());

/// A link named `id` to `target`, in a temporary folder of this run.
fn alias(target: &std::path::Path, id: &str) -> Result<Utf8PathBuf, GradeError> {
    let fail = |e: std::io::Error| {
        GradeError::Input(format!(
            "cannot link the submission {id} under a UTF-8 name: {e}"
        ))
    };
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
    Utf8PathBuf::from_path_buf(link).map_err(|p| {
        GradeError::Input(format!("the temporary folder {} is not UTF-8", p.display()))
    })
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

/// The job engines whose parallel jobs `--shard auto` knows: the variable with the job's
/// index, whether it counts from 0, and the variable with the number of jobs, if the engine
/// sets one. Slurm's index is taken relative to `SLURM_ARRAY_TASK_MIN`, so `--array=0-3` and
/// `--array=1-4` both give shards 1 to 4.
pub const SHARD_ENGINES: [(&str, &str, bool, Option<&str>); 5] = [
    (
        "a Kubernetes indexed Job",
        "JOB_COMPLETION_INDEX",
        true,
        None,
    ),
    (
        "a Slurm job array",
        "SLURM_ARRAY_TASK_ID",
        false,
        Some("SLURM_ARRAY_TASK_COUNT"),
    ),
    (
        "GitLab CI `parallel:`",
        "CI_NODE_INDEX",
        false,
        Some("CI_NODE_TOTAL"),
    ),
    (
        "CircleCI `parallelism:`",
        "CIRCLE_NODE_INDEX",
        true,
        Some("CIRCLE_NODE_TOTAL"),
    ),
    (
        "Buildkite `parallelism:`",
        "BUILDKITE_PARALLEL_JOB",
        true,
        Some("BUILDKITE_PARALLEL_JOB_COUNT"),
    ),
];

impl Shard {
    /// `--shard auto` or `auto/N`: the shard of this job as the engine running it says
    /// (the first of [`SHARD_ENGINES`] whose index variable `env` has), `N` from the engine
    /// when it sets one (a given `N` must agree with it).
    pub(crate) fn from_env(
        count: Option<usize>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Shard, GradeError> {
        let names: Vec<String> = SHARD_ENGINES
            .iter()
            .map(|(engine, var, _, _)| format!("{var} ({engine})"))
            .collect();
        let Some((engine, var, from_zero, total)) = SHARD_ENGINES
            .iter()
            .find(|(_, var, _, _)| env(var).is_some_and(|v| !v.trim().is_empty()))
        else {
            return Err(GradeError::Input(format!(
                "--shard auto: this job's index is in none of {}; give the shard as K/N, e.g. --shard ${{{{ matrix.shard }}}}/4 in a GitHub Actions matrix",
                names.join(", ")
            )));
        };
        let number = |name: &str| -> Result<usize, GradeError> {
            let v = env(name).unwrap_or_default();
            v.trim().parse().map_err(|_| {
                GradeError::Input(format!(
                    "--shard auto: {name}={v:?} ({engine}) is not a whole number"
                ))
            })
        };
        let raw = number(var)?;
        let index = if *var == "SLURM_ARRAY_TASK_ID" {
            let min = match env("SLURM_ARRAY_TASK_MIN") {
                Some(_) => number("SLURM_ARRAY_TASK_MIN")?,
                None => 1,
            };
            raw.checked_sub(min).map(|i| i + 1)
        } else if *from_zero {
            Some(raw + 1)
        } else {
            Some(raw)
        };
        let from_engine = match total {
            Some(t) if env(t).is_some() => Some(number(t)?),
            _ => None,
        };
        let count = match (count, from_engine) {
            (Some(n), Some(m)) if n != m => {
                return Err(GradeError::Input(format!(
                    "--shard auto/{n}: {engine} runs {m} jobs ({}={m}); give --shard auto",
                    total.unwrap_or_default()
                )));
            }
            (Some(n), _) | (None, Some(n)) => n,
            (None, None) => {
                return Err(GradeError::Input(format!(
                    "--shard auto: {engine} does not say how many jobs there are; give it as --shard auto/N"
                )));
            }
        };
        match index {
            Some(index) if (1..=count).contains(&index) => Ok(Shard { index, count }),
            _ => Err(GradeError::Input(format!(
                "--shard auto: {var}={raw} ({engine}) is no shard of {count}"
            ))),
        }
    }
}

impl FromStr for Shard {
    type Err = GradeError;

    /// `K/N` with 1 ≤ K ≤ N, or `auto` / `auto/N` (see `Shard::from_env`).
    fn from_str(s: &str) -> Result<Shard, GradeError> {
        let from_env = |n: Option<usize>| Shard::from_env(n, |v| std::env::var(v).ok());
        if s.trim() == "auto" {
            return from_env(None);
        }
        if let Some(n) = s.trim().strip_prefix("auto/") {
            let n = n.trim().parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                GradeError::Input(format!(
                    "`{s}` is not a shard; expected auto/N with N >= 1, e.g. auto/4"
                ))
            })?;
            return from_env(Some(n));
        }
        let bad = || {
            GradeError::Input(format!(
                "`{s}` is not a shard; expected K/N with 1 <= K <= N (e.g. 2/4), or auto"
            ))
        };
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
                folder: format!("s{i:02}"),
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
    fn auto_reads_the_index_each_engine_sets() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let shard = |index, count| Ok(Shard { index, count });
        // Kubernetes counts from 0 and does not give the count.
        assert_eq!(
            Shard::from_env(Some(4), env(&[("JOB_COMPLETION_INDEX", "0")])),
            shard(1, 4)
        );
        assert!(Shard::from_env(None, env(&[("JOB_COMPLETION_INDEX", "0")])).is_err());
        assert!(Shard::from_env(Some(4), env(&[("JOB_COMPLETION_INDEX", "4")])).is_err());
        // Slurm: relative to the array's first id, whatever it is.
        for (id, min) in [("3", "0"), ("4", "1")] {
            let got = Shard::from_env(None, |n: &str| match n {
                "SLURM_ARRAY_TASK_ID" => Some(id.into()),
                "SLURM_ARRAY_TASK_MIN" => Some(min.into()),
                "SLURM_ARRAY_TASK_COUNT" => Some("4".into()),
                _ => None,
            });
            assert_eq!(got, shard(4, 4), "--array from {min}");
        }
        assert_eq!(
            Shard::from_env(None, env(&[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "3")])),
            shard(2, 3)
        );
        assert_eq!(
            Shard::from_env(
                None,
                env(&[("CIRCLE_NODE_INDEX", "2"), ("CIRCLE_NODE_TOTAL", "3")])
            ),
            shard(3, 3)
        );
        assert_eq!(
            Shard::from_env(
                None,
                env(&[
                    ("BUILDKITE_PARALLEL_JOB", "0"),
                    ("BUILDKITE_PARALLEL_JOB_COUNT", "2")
                ])
            ),
            shard(1, 2)
        );
        // A count that disagrees with the engine's, a non-number, no engine at all.
        let err = Shard::from_env(
            Some(4),
            env(&[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "3")]),
        );
        // Each is the input's error (exit 2).
        let input = |e: Result<Shard, GradeError>| match e {
            Err(GradeError::Input(m)) => m,
            other => panic!("not an input error: {other:?}"),
        };
        assert!(input(err).contains("runs 3 jobs"));
        let err = Shard::from_env(Some(4), env(&[("JOB_COMPLETION_INDEX", "x")]));
        assert!(input(err).contains("not a whole number"));
        let err = input(Shard::from_env(Some(4), env(&[])));
        assert!(
            err.contains("JOB_COMPLETION_INDEX") && err.contains("K/N"),
            "{err}"
        );
    }

    #[test]
    fn names_alike_once_folded_get_suffixes_in_byte_order() {
        let names: [&[u8]; 7] = [
            b"Alice",
            b"alice",
            b"alice~2",
            b"bad\\xffutf8",
            b"bad\xffutf8",
            "cafe\u{301}".as_bytes(),
            "caf\u{e9}".as_bytes(),
        ];
        let mut sorted = names.to_vec();
        sorted.sort();
        assert_eq!(sorted, names, "the test lists the names in byte order");
        assert_eq!(
            ids(&names),
            [
                "Alice",
                "alice~3",
                "alice~2",
                "bad\\xffutf8",
                "bad\\xffutf8~2",
                "cafe\u{301}",
                "caf\u{e9}~2",
            ]
        );
    }

    #[test]
    fn ids_escape_control_characters_and_spellings_never_read_alike() {
        assert_eq!(ids(&[b"evil\x1b[2J\n"]), ["evil\\u{1b}[2J\\u{a}"]);
        assert_eq!(spelled(b"bad\xffutf8"), "bad\\xffutf8");
        assert_eq!(spelled(b"bad\\xffutf8"), "bad\\\\xffutf8");
        assert_eq!(spelled(b"tab\there"), "tab\\u{9}here");
    }

    #[test]
    fn shard_syntax() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "2", "a/b", "1/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
