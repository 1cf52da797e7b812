//! A conversation with a program: say a line, hear what it printed until it asks again, and
//! keep a transcript for feedback.

use super::read;
use super::session::{Session, Waited};
use super::sheet::{Check, Lost};
use crate::protocol::game_server::env_json;
use crate::target::{Fault, FaultKind, Program};
use std::time::{Duration, Instant};

/// Transcript lines kept for a divergence's feedback.
const FEEDBACK_LINES: usize = 30;
/// Characters of one transcript line kept for feedback.
const LINE_CHARS: usize = 160;

/// `line` cut to [`LINE_CHARS`], saying how long it was.
fn clip(line: &str) -> String {
    let n = line.chars().count();
    if n <= LINE_CHARS {
        return line.to_string();
    }
    let head: String = line.chars().take(LINE_CHARS).collect();
    format!("{head}… ({n} characters)")
}

/// A traceback line with the submission's private folder cut from its path
/// (`File "/box/work/battleships.py"` reads `File "battleships.py"`).
fn short_path(line: &str) -> String {
    match (line.find("File \""), line.find("/work/")) {
        (Some(f), Some(w)) if w > f => format!("{}{}", &line[..f + 6], &line[w + 6..]),
        _ => line.to_string(),
    }
}

/// A Python traceback without the frames of broadside's own launcher and of importlib:
/// the student's frames and the error are what a student needs.
fn student_frames(trace: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut skipping = false;
    for line in trace {
        if line.trim_start().starts_with("File \"") {
            skipping = line.contains("broadside_main.py") || line.contains("<frozen ");
        } else if !line.starts_with("    ") {
            skipping = false;
        }
        if !skipping {
            out.push(clip(&short_path(line)));
        }
    }
    out
}

/// Why a dialogue stopped before its plan was done.
#[derive(Debug)]
pub enum Stop {
    /// The program answered, but not as the reference says.
    Diverged {
        check: Check,
        expected: String,
        actual: String,
    },
    /// The program did not answer at all (ended with an exception, hung, flooded).
    Faulted(Fault),
}

impl Stop {
    /// A divergence on `check`.
    pub fn diverged(
        check: impl Into<Check>,
        expected: impl Into<String>,
        actual: impl Into<String>,
    ) -> Stop {
        Stop::Diverged {
            check: check.into(),
            expected: expected.into(),
            actual: actual.into(),
        }
    }
}

/// What the program printed after a line, and whether it then ended (cleanly: an ending
/// by exception or signal is a [`Stop::Faulted`]).
pub struct Heard {
    pub text: String,
    pub ended: bool,
}

/// A program in conversation.
pub struct Talk {
    session: Session,
    /// Where the program's game server is parked after a clean game.
    spare: crate::target::program::Spare,
    /// What was said and printed, for feedback: program lines, and `> line` for each line
    /// sent.
    log: Vec<String>,
    deadline: Instant,
    game_timeout: Duration,
    /// What the program printed after the last line sent (or at its start): the question
    /// the next line answers.
    last: String,
    /// Where each move began in `log`: `(index of its first line, the move in words)`, for
    /// the staff transcript ([`Talk::transcript`]); never in feedback.
    marks: Vec<(usize, String)>,
}

/// The environment of a launcher started ahead: it waits for its game's first line.
fn ahead() -> [(String, String); 1] {
    [("BROADSIDE_START_AHEAD".to_string(), "1".to_string())]
}

impl Talk {
    /// Starts `program` (with `env`).
    ///
    /// Errors: it could not start.
    ///
    /// A program whose launcher [`Program::starts_ahead`] is started with
    /// `BROADSIDE_START_AHEAD=1` and told `env` on its first line, which the launcher reads
    /// before it loads any of the submission: the child started ahead for this game is
    /// taken if there is one, and the next game's is started at once, so its runtime boots
    /// while this game plays. Every game goes the same way, so none can tell.
    pub fn start(program: &Program, env: &[(String, String)]) -> Result<Talk, Stop> {
        // A server retired for this program (a game graded differently in a fresh process)
        // plays no more of its games.
        let served = if program.game_server.is_some() && !program.served.retired() {
            Session::served(program, env)
        } else {
            None
        };
        let session = if let Some(s) = served {
            s
        } else if program.starts_ahead {
            let parked = program
                .spare
                .take()
                .and_then(|s| s.downcast::<Session>().ok())
                .map(|s| *s);
            let mut session = match parked {
                Some(s) => s,
                None => Session::start(program, &ahead()).map_err(Stop::Faulted)?,
            };
            let told = env_json(&env.iter().cloned().collect());
            // A launcher that died meanwhile has ended, as it would have at once: the game
            // finds it so.
            let _ = session.send(&told);
            if let Ok(next) = Session::start(program, &ahead()) {
                program.spare.park(Box::new(next));
            }
            session
        } else {
            Session::start(program, env).map_err(Stop::Faulted)?
        };
        Ok(Talk {
            session,
            spare: program.spare.clone(),
            log: Vec::new(),
            deadline: Instant::now() + program.limits.scenario_timeout,
            game_timeout: program.limits.scenario_timeout,
            last: String::new(),
            marks: Vec::new(),
        })
    }

    /// Hears the program's opening, up to its first question.
    ///
    /// Errors: it faulted before asking anything.
    pub fn opening(&mut self) -> Result<Heard, Stop> {
        self.hear()
    }

    /// What the program printed last: the question the next line answers.
    pub(crate) fn last_heard(&self) -> String {
        self.last.clone()
    }

    /// Sends `line` and hears the answer.
    ///
    /// Errors: the program faulted (an exception, a signal, a timeout, too much output), or
    /// it had already ended.
    pub fn say(&mut self, line: &str) -> Result<Heard, Stop> {
        self.log.push(clip(&format!("> {line}")));
        if !self.session.send(line) {
            return Err(self.ended_early());
        }
        self.hear()
    }

    /// Closes the program's input and waits for it to end; what it printed meanwhile.
    ///
    /// Errors: as [`Talk::say`].
    pub fn close(&mut self) -> Result<Heard, Stop> {
        self.log.push("> (end of input)".into());
        self.session.close_input();
        match self.hear() {
            // Called what it is: a loop that reads end of input, complains and reads again.
            Err(Stop::Faulted(mut f)) if f.kind == FaultKind::Limit => {
                let last = self.log.last().cloned().unwrap_or_default();
                f.message = format!(
                    "after its input ended the program printed without end (`{last}` again and again, more than {} MiB): a loop that does not stop at end of input, such as a `catch` that asks again; it was stopped",
                    super::session::OUTPUT_LIMIT / (1024 * 1024)
                );
                Err(Stop::Faulted(f))
            }
            r => r,
        }
    }

    fn hear(&mut self) -> Result<Heard, Stop> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        let wait = self
            .session
            .answer_timeout()
            .min(left.max(Duration::from_millis(1)));
        let waited = self.session.wait(wait);
        // Colour and cursor escapes are not words: `\x1b[31mhit` says `hit`.
        let text = read::strip_escapes(&self.session.take());
        self.last.clone_from(&text);
        self.log.extend(text.lines().map(clip));
        // What went to standard error shows in the conversation too (a prompt printed there
        // is still a prompt), unless the program ended: its trace is in the fault.
        let errors = read::strip_escapes(&self.session.take_stderr());
        if matches!(waited, Ok(Waited::Asking)) {
            self.log
                .extend(errors.lines().map(|l| clip(&format!("(stderr) {l}"))));
        }
        match waited {
            Ok(Waited::Asking) => Ok(Heard { text, ended: false }),
            Ok(Waited::Exited { code, signal }) => match self.fault_of(code, signal) {
                Some(f) => Err(Stop::Faulted(f)),
                None => Ok(Heard { text, ended: true }),
            },
            Err(mut f) if f.kind == FaultKind::Timeout && left <= wait => {
                f.message = format!(
                    "the game took longer than {:.0} s in all (an endless loop, or waiting for something?); it was stopped",
                    self.game_timeout.as_secs_f64()
                );
                Err(Stop::Faulted(f))
            }
            Err(f) => Err(Stop::Faulted(f)),
        }
    }

    /// The fault of an ending, if it was not a clean one: an exception's trace, or a signal.
    fn fault_of(&self, code: Option<i32>, signal: Option<i32>) -> Option<Fault> {
        let stderr = self.session.stderr();
        let trace_at = ["Exception in thread", "Traceback (most recent call last)"]
            .iter()
            .filter_map(|m| stderr.find(m))
            .min();
        if let Some(at) = trace_at {
            let tabless = stderr[at..].replace('\t', "    ");
            let trace: Vec<&str> = tabless.lines().collect();
            let trace = student_frames(&trace);
            let shown = &trace[trace.len().saturating_sub(20)..];
            // A program that opens a window reads nothing from standard input: one line says
            // why nothing of it can be judged, before the trace.
            let lead = if stderr.contains("java.awt.HeadlessException") {
                "the program opens a window (Swing or AWT) instead of reading standard input, so it cannot be played as a console program; it ended with an error:"
            } else {
                "the program ended with an error:"
            };
            return Some(Fault {
                kind: FaultKind::Exception,
                message: format!("{lead}\n{}", shown.join("\n")),
            });
        }
        if let Some(sig) = signal {
            let name = nix::sys::signal::Signal::try_from(sig)
                .map(|s| s.as_str().to_string())
                .unwrap_or_else(|_| format!("signal {sig}"));
            let why = match sig {
                24 => " (its CPU time ran out)",
                25 => " (it wrote a file past the size limit)",
                _ => "",
            };
            let kind = if matches!(sig, 24 | 25) {
                FaultKind::Limit
            } else {
                FaultKind::Crash
            };
            return Some(Fault {
                kind,
                message: format!(
                    "the program was killed by {name}{why}{}",
                    stderr_tail(&stderr)
                ),
            });
        }
        // The Python launcher's own refusal (exit 3, one `broadside: ` line): what the
        // handout requires is not there (no main(), no module, no extension.py). That is
        // `missing`, not a crash of the student's program.
        if code == Some(3)
            && let Some(why) = stderr.trim().strip_prefix("broadside: ")
            && !why.contains('\n')
        {
            return Some(Fault {
                kind: FaultKind::Missing,
                message: why.to_string(),
            });
        }
        match code {
            Some(0) | None => None,
            Some(c) => Some(Fault {
                kind: FaultKind::Crash,
                message: format!(
                    "the program exited with code {c}{}{}",
                    if c == 127 {
                        " (127: the command was not found)"
                    } else {
                        ""
                    },
                    stderr_tail(&stderr)
                ),
            }),
        }
    }

    /// The stop for a program that closed its input: its fault, or a clean early end.
    fn ended_early(&mut self) -> Stop {
        match self.hear() {
            Err(stop) => stop,
            Ok(_) => Stop::diverged(
                Lost::Input,
                "the program reads the next line",
                "it had already ended (it stopped reading its input)",
            ),
        }
    }

    /// Notes that the lines from here on belong to the move `at` is playing (once per
    /// move), for the staff transcript.
    pub fn mark(&mut self, at: &super::Progress) {
        let words = if at.move_name.is_empty() {
            "before the first move".to_string()
        } else {
            format!("move {} (line {}): {}", at.move_no, at.line, at.move_name)
        };
        if self.marks.last().is_none_or(|(_, w)| *w != words) {
            self.marks.push((self.log.len(), words));
        }
    }

    /// The whole conversation, each move's lines under a `== move N (line L): NAME` marker
    /// (the lines before the first move under `== before the first move`), cut to `limit`
    /// bytes with a last line saying how much was left out. Staff only: it names the plan's
    /// moves and shows a hidden scenario's play.
    pub fn transcript(&self, limit: usize) -> super::transcript::Written {
        let mut marks = self.marks.iter().peekable();
        let mut lines: Vec<String> = Vec::with_capacity(self.log.len() + self.marks.len() + 1);
        if marks.peek().is_none_or(|(i, _)| *i > 0) {
            lines.push("== before the first move".to_string());
        }
        for (i, line) in self.log.iter().enumerate() {
            while let Some((_, words)) = marks.next_if(|(at, _)| *at <= i) {
                lines.push(format!("== {words}"));
            }
            lines.push(line.clone());
        }
        for (_, words) in marks {
            lines.push(format!("== {words}"));
        }
        super::transcript::Written::bounded(&lines, limit)
    }

    /// The last lines of the conversation: what the program printed, with `> line` for what
    /// was sent.
    pub fn tail(&self) -> String {
        self.log[self.log.len().saturating_sub(FEEDBACK_LINES)..].join("\n")
    }

    /// Stops the program; command lines of processes it left behind (killed).
    pub fn finish(self) -> Vec<String> {
        self.session.finish(&self.spare)
    }
}

fn stderr_tail(stderr: &str) -> String {
    let t = read::tail(stderr.trim(), 10);
    if t.is_empty() {
        String::new()
    } else {
        format!("; its last error output:\n{t}")
    }
}
