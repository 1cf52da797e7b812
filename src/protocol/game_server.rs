//! The game servers' protocol: the lines broadside and a game server say to each other
//! (`specs/protocol.md`, "Game servers"), typed once here. broadside writes [`Begin`] and
//! reads [`Reply`] (`src/dialogue/server.rs`); the servers speak them in Java
//! (`drivers/BroadsideServe.java`) and Python (`drivers/python_main.py --serve`), and a
//! launcher started ahead of its game reads its environment as `env_json` writes it.
//! `tests/protocol.rs` holds every line kind to its text and reads each back as itself.

use std::collections::BTreeMap;
use std::fmt;

/// A game's environment as one JSON object of strings, the form both a [`Begin`] line's last
/// field and a launcher started ahead's first line take. JSON escapes every tab and newline
/// inside a string, so the object is one line with no tab in it.
pub(crate) fn env_json(env: &BTreeMap<String, String>) -> String {
    serde_json::to_string(env).unwrap_or_else(|_| "{}".to_string())
}

/// broadside's line to a server, one per game: play a game on these three FIFOs, with this
/// environment added.
///
/// On the wire: `game<TAB>IN<TAB>OUT<TAB>ERR`, then `<TAB>` and `env_json` when `env` is
/// not empty. The paths are as the server sees them (inside its jail, where it has one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Begin {
    /// The FIFO the game reads as its standard input; the server opens it for reading.
    pub stdin: String,
    /// The FIFO the game writes as its standard output.
    pub stdout: String,
    /// The FIFO the game writes as its standard error.
    pub stderr: String,
    /// What the game's environment gets besides the server's own (solo-10x10's
    /// `BROADSIDE_FLEET`, a game's `BROADSIDE_SEED`).
    pub env: BTreeMap<String, String>,
}

impl Begin {
    /// The line, without its `\n`.
    ///
    /// Errors: a path holds a tab or a line break, which would make the line another line.
    pub fn line(&self) -> Result<String, LineError> {
        let paths = [&self.stdin, &self.stdout, &self.stderr];
        if let Some(p) = paths.iter().find(|p| p.contains(['\t', '\n', '\r'])) {
            return Err(LineError::new(p, "a path with no tab or line break in it"));
        }
        let mut line = format!("game\t{}\t{}\t{}", self.stdin, self.stdout, self.stderr);
        if !self.env.is_empty() {
            line.push('\t');
            line.push_str(&env_json(&self.env));
        }
        Ok(line)
    }

    /// Reads a line as a server does.
    ///
    /// Errors: not `game` and three or four tab-separated fields, or a fourth that is not a
    /// JSON object of strings. (The bundled servers skip such a line and wait for the next.)
    pub fn parse(line: &str) -> Result<Begin, LineError> {
        const EXPECTED: &str =
            "`game<TAB>IN<TAB>OUT<TAB>ERR` and, optionally, `<TAB>` a JSON object of strings";
        let fields: Vec<&str> = line.split('\t').collect();
        let (["game", stdin, stdout, stderr] | ["game", stdin, stdout, stderr, _]) =
            fields.as_slice()
        else {
            return Err(LineError::new(line, EXPECTED));
        };
        let env = match fields.get(4) {
            Some(json) => serde_json::from_str(json).map_err(|_| LineError::new(line, EXPECTED))?,
            None => BTreeMap::new(),
        };
        Ok(Begin {
            stdin: stdin.to_string(),
            stdout: stdout.to_string(),
            stderr: stderr.to_string(),
            env,
        })
    }
}

/// A server's line to broadside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// `started`: it has opened the game's three FIFOs; the game is running.
    Started,
    /// `end CODE`, `end CODE taint` or `end CODE spent`: the game ended with exit code
    /// `code` (the argument of its `System.exit` or `sys.exit`, 1 for an uncaught exception).
    End {
        /// The game's exit code.
        code: i32,
        /// What the server can do next.
        then: Then,
    },
}

/// What a server can do after a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Then {
    /// Nothing said: it plays the next game as a fresh process would.
    Next,
    /// `taint`: the game left something running in it (a thread, a process); it stops, and
    /// what was left is the game's leak.
    Taint,
    /// `spent`: the game left something no fresh process would find (files in the server's
    /// `/dev/shm`, System V IPC objects); it stops, and the next game gets a new server.
    Spent,
}

impl Reply {
    /// The line, without its `\n`.
    pub fn line(&self) -> String {
        match self {
            Reply::Started => "started".to_string(),
            Reply::End { code, then } => match then {
                Then::Next => format!("end {code}"),
                Then::Taint => format!("end {code} taint"),
                Then::Spent => format!("end {code} spent"),
            },
        }
    }

    /// Reads a server's line.
    ///
    /// Errors: any other line. broadside ignores it: only these lines move a game on.
    pub fn parse(line: &str) -> Result<Reply, LineError> {
        const EXPECTED: &str = "`started`, `end CODE`, `end CODE taint` or `end CODE spent`";
        if line == "started" {
            return Ok(Reply::Started);
        }
        let words: Vec<&str> = line.split(' ').collect();
        let (code, then) = match words.as_slice() {
            ["end", code] => (code, Then::Next),
            ["end", code, "taint"] => (code, Then::Taint),
            ["end", code, "spent"] => (code, Then::Spent),
            _ => return Err(LineError::new(line, EXPECTED)),
        };
        let code = code
            .parse()
            .map_err(|_| LineError::new(line, "an exit code, a whole number, after `end`"))?;
        Ok(Reply::End { code, then })
    }
}

/// A line that is not one of the protocol's: what it was and what was expected instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    /// The line, or the part of it at fault.
    pub found: String,
    /// What the protocol expects there.
    pub expected: &'static str,
}

impl LineError {
    fn new(found: &str, expected: &'static str) -> LineError {
        LineError {
            found: found.to_string(),
            expected,
        }
    }
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a game-server line: expected {}",
            self.found, self.expected
        )
    }
}

impl std::error::Error for LineError {}
