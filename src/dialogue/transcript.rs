//! Whole-game transcripts for staff (`--transcript DIR` of `run` and `grade`): each game's
//! whole conversation — every line broadside sent, every line the program printed, under a
//! marker of the move it belongs to — in a file of its own, one per submission and scenario.
//!
//! A report keeps only a conversation's last lines; a TA checking "broadside could not
//! follow the game after move 3" needs the whole game. A transcript names the plan's moves
//! and shows hidden scenarios' play, so it is written only where staff asked for it, never
//! into a report or any student view (Gradescope, PrairieLearn, `--audience student`).
//!
//! A file is bounded (`LIMIT`): a program that prints without end fills no disk, and the
//! file's last line says it was cut and how much was left out.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Bytes of one transcript file (1 MiB), the line saying it was cut aside.
pub(crate) const LIMIT: usize = 1024 * 1024;

/// Characters of a submission's or a scenario's part of a file name.
const NAME_CHARS: usize = 80;

/// Where a program's transcripts go: a folder, and the submission's label in file names.
/// Clones share the list of files that could not be written.
#[derive(Debug, Clone)]
pub struct TranscriptSink {
    dir: PathBuf,
    submission: String,
    failures: Arc<Mutex<Vec<String>>>,
}

/// A transcript's text, cut to a size.
pub struct Written {
    pub text: String,
    /// Lines left out past the limit (0: the whole game is there).
    pub cut_lines: usize,
}

impl Written {
    /// `lines` joined, up to `limit` bytes of whole lines; past it, a last line saying how
    /// many lines and bytes were left out.
    pub fn bounded(lines: &[String], limit: usize) -> Written {
        let mut text = String::new();
        let mut kept = 0;
        for line in lines {
            if text.len() + line.len() + 1 > limit {
                break;
            }
            text.push_str(line);
            text.push('\n');
            kept += 1;
        }
        let cut_lines = lines.len() - kept;
        if cut_lines > 0 {
            let bytes: usize = lines[kept..].iter().map(|l| l.len() + 1).sum();
            let _ = writeln!(
                text,
                "== transcript cut at {} KiB: {cut_lines} more lines ({bytes} bytes) not written",
                limit / 1024
            );
        }
        Written { text, cut_lines }
    }
}

impl TranscriptSink {
    /// Transcripts of the submission `submission` (a class folder's name, or the target as
    /// `run` names it) into `dir`, which must exist.
    pub fn new(dir: impl Into<PathBuf>, submission: &str) -> TranscriptSink {
        TranscriptSink {
            dir: dir.into(),
            submission: submission.to_string(),
            failures: Arc::default(),
        }
    }

    /// The same folder for the submission `submission`, sharing the list of failures.
    pub fn for_submission(&self, submission: &str) -> TranscriptSink {
        TranscriptSink {
            dir: self.dir.clone(),
            submission: submission.to_string(),
            failures: Arc::clone(&self.failures),
        }
    }

    /// The file of scenario `scenario`'s game: `SUBMISSION--SCENARIO.txt`, each part made
    /// safe ([`safe_part`]).
    pub(crate) fn path_of(&self, scenario: &str) -> PathBuf {
        self.dir.join(format!(
            "{}--{}.txt",
            safe_part(&self.submission),
            safe_part(scenario)
        ))
    }

    /// Writes `written`, the game of `scenario` (its report name and file), with a header;
    /// a file that cannot be written is noted ([`TranscriptSink::failures`]).
    pub fn write(&self, scenario: &str, file: &str, outcome: &str, written: &Written) {
        let path = self.path_of(scenario);
        let text = format!(
            "broadside transcript (for staff: not part of any report)\nsubmission: {}\nscenario: {scenario} ({file})\nresult: {outcome}\n`> ` lines were sent by broadside, `(stderr) ` lines went to standard error, other lines are what the program printed (a line over 160 characters is cut); `== ` lines mark the move the lines below belong to.\n\n{}",
            self.submission, written.text
        );
        if let Err(e) = write_file(&path, &text) {
            self.failures
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(format!("failed to write {}: {e}", path.display()));
        }
    }

    /// The transcripts that could not be written, and why.
    pub fn failures(&self) -> Vec<String> {
        self.failures
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

fn write_file(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)
}

/// A name made safe for a file name on any system, and stable: letters, digits, `-`, `_`
/// and `.` are kept, `/` becomes `.`, anything else `_`; a leading `.` becomes `_`; at most
/// [`NAME_CHARS`] characters. When anything but a `/` was changed or cut, a hash of the
/// whole name follows (`-1a2b3c4d`), so two names that differ only there still differ.
pub(crate) fn safe_part(name: &str) -> String {
    let mut lossy = false;
    let mut out: String = name
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' | '.' => c,
            '/' => '.',
            _ => {
                lossy = true;
                '_'
            }
        })
        .collect();
    if out.starts_with('.') || out.is_empty() {
        out.insert(0, '_');
        lossy = true;
    }
    if out.chars().count() > NAME_CHARS {
        out = out.chars().take(NAME_CHARS).collect();
        lossy = true;
    }
    if lossy {
        // FNV-1a: the same name gives the same hash in every run and on every machine.
        let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        let _ = write!(out, "-{:08x}", hash as u32);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Written, safe_part};

    #[test]
    fn file_names_are_safe_and_stable() {
        assert_eq!(
            safe_part("battleboats/01-hits-and-sinking"),
            "battleboats.01-hits-and-sinking"
        );
        let odd = safe_part("../../etc/passwd");
        assert!(odd.starts_with("_...."), "{odd}");
        assert!(!odd.contains('/'));
        assert_eq!(odd, safe_part("../../etc/passwd"));
        assert_ne!(safe_part("a b"), safe_part("a:b"));
        assert!(safe_part(&"x".repeat(500)).len() < 100);
    }

    #[test]
    fn a_transcript_past_its_limit_says_it_was_cut() {
        let lines: Vec<String> = (0..1000).map(|i| format!("line {i}")).collect();
        let w = Written::bounded(&lines, 1024);
        assert!(w.text.len() < 1200, "{}", w.text.len());
        assert!(w.cut_lines > 0);
        assert!(w.text.ends_with("not written\n"), "{}", w.text);
        assert_eq!(Written::bounded(&lines[..3], 1024).cut_lines, 0);
    }
}
