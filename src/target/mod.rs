//! The one seam between the harness and an implementation: the [`Target`] trait.
//!
//! The harness only talks to an implementation through these operations (DESIGN.md,
//! "Targets and the protocol"); the reference engine is a target too.

pub mod build;
pub mod cgroup;
pub mod haskell;
pub mod limits;
pub mod native;
pub mod process;
pub mod program;
pub mod python;
pub mod reference;
pub mod workspace;

pub use process::Process;
pub use program::{Program, ProgramTarget};
pub use reference::Reference;

use crate::cell::Cell;
use crate::engine::Answer;
pub use crate::fault::{Fault, FaultKind};
use crate::scenario::{Action, Setup};
use crate::spec::{Rules, StateKey};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Builds the target that `spec` names: `reference`, `python:PATH` (a student's `.py` file or
/// folder), `haskell:PATH` (a `Battleship.hs` or its folder, compiled here), `native:PATH` (a
/// shared library, or a folder to build one from, implementing `specs/abi/broadside.h`) or
/// `cmd:COMMAND` (a program that speaks the protocol), `java:PATH` (a Java program's
/// sources, compiled here) or `exec:COMMAND` (any interactive program), with `limits` for a
/// child. The last two are whole programs, which play dialogue scenarios only.
/// `uid` (as root only) is the user a `python:`, `haskell:` or `native:` child runs as,
/// [`limits::NOBODY`] unless `grade` gives each job slot its own. A `native:` worker is the
/// running executable re-executed, so only the `broadside` binary grades native targets.
///
/// Errors: an unknown target kind, a path that does not exist, or no compiler to build a
/// `haskell:` submission ([`TargetError::Input`]); a Python interpreter that does not run
/// ([`TargetError::Grader`]). A submission that does not compile is not an error: its target
/// fails every scenario at setup with the compiler's message.
pub fn from_spec(
    spec: &str,
    limits: limits::Limits,
    uid: u32,
) -> Result<Box<dyn Target>, TargetError> {
    if spec == "reference" {
        return Ok(Box::new(Reference::new()));
    }
    if let Some(path) = spec.strip_prefix("python:") {
        python::check_interpreter().map_err(TargetError::Grader)?;
        let mut target = python::target_as(camino::Utf8Path::new(path), uid)?;
        target.limits = limits;
        return Ok(Box::new(target));
    }
    if let Some(path) = spec.strip_prefix("haskell:") {
        return Ok(
            match haskell::target(camino::Utf8Path::new(path), limits, uid)? {
                haskell::Compiled::Ready(process) => process,
                haskell::Compiled::Failed(fault) => Box::new(Unbuildable {
                    name: spec.to_string(),
                    fault,
                    plays: Plays::STEPS,
                }),
            },
        );
    }
    if let Some(path) = spec.strip_prefix("native:") {
        let worker = std::env::current_exe()
            .map_err(|e| format!("could not find broadside's own executable: {e}"))?;
        return Ok(native::target_as(
            camino::Utf8Path::new(path),
            &worker,
            limits,
            uid,
        )?);
    }
    if let Some(path) = spec.strip_prefix("java:") {
        return Ok(
            match program::java_target(camino::Utf8Path::new(path), limits, uid)? {
                program::Built::Ready(program) => Box::new(ProgramTarget { program: *program }),
                program::Built::Failed(fault) => Box::new(Unbuildable {
                    name: spec.to_string(),
                    fault,
                    plays: Plays::DIALOGUES,
                }),
            },
        );
    }
    if let Some(command) = spec.strip_prefix("exec:") {
        if command.trim().is_empty() {
            return Err(TargetError::Input(
                "`exec:` needs a command, e.g. `exec:\"./battleboats\"`".into(),
            ));
        }
        return Ok(Box::new(ProgramTarget {
            program: program::exec(command, limits, uid),
        }));
    }
    if let Some(command) = spec.strip_prefix("cmd:") {
        let mut target = Process::command(command).run_as(uid);
        target.limits = limits;
        return Ok(Box::new(target));
    }
    let mut message = format!(
        "unknown target `{spec}`; expected `reference`, `python:PATH`, `haskell:PATH`, `native:PATH`, `cmd:COMMAND`, `java:PATH` or `exec:COMMAND`"
    );
    if let Some(meant) = meant_target(spec) {
        message.push_str(&format!("; did you mean `--target {meant}`?"));
    }
    Err(TargetError::Input(message))
}

/// Why a target could not be made: the input's fault, or broadside's own side.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    /// The target or the submission's path is wrong (`broadside` exits 2).
    #[error("{0}")]
    Input(String),
    /// Something broadside itself needs is missing or broken: the Python interpreter, say
    /// (`broadside` exits 3; `grade` leaves the submission not graded, never scored).
    #[error("{0}")]
    Grader(String),
}

impl From<String> for TargetError {
    fn from(message: String) -> TargetError {
        TargetError::Input(message)
    }
}

/// The target `spec` most likely meant: a kind spelt another common way (`py:`, `hs:`,
/// `ghc:`, `c:`, `so:`, `sh:`…, any case), or a bare path named by what it holds
/// (`battleships.py` → `python:battleships.py`).
pub fn meant_target(spec: &str) -> Option<String> {
    let kind_for = |word: &str| -> Option<&'static str> {
        Some(match word.to_ascii_lowercase().as_str() {
            "py" | "python" | "python3" | "pytest" => "python",
            "hs" | "ghc" | "haskell" | "stack" | "cabal" => "haskell",
            "java" | "javac" | "jar" | "jvm" => "java",
            "c" | "so" | "lib" | "rust" | "rs" | "cargo" | "native" | "ffi" => "native",
            "command" | "sh" | "bash" | "run" | "program" | "exec" => "exec",
            "cmd" | "protocol" | "json" => "cmd",
            _ => return None,
        })
    };
    if let Some((word, rest)) = spec.split_once(':') {
        return kind_for(word).map(|kind| format!("{kind}:{rest}"));
    }
    if spec.eq_ignore_ascii_case("ref") || spec.eq_ignore_ascii_case("reference") {
        return Some("reference".into());
    }
    let path = camino::Utf8Path::new(spec);
    let kind = match kind_of_source(path) {
        Some(kind) => kind,
        None if path.is_dir() => folder_kind(path)?,
        None => return None,
    };
    Some(format!("{kind}:{spec}"))
}

/// The target kind a source file or library at `path` is graded by (`python`, `haskell`,
/// `java`, `native`), by its extension; `None` for a scenario or anything else.
pub fn kind_of_source(path: &camino::Utf8Path) -> Option<&'static str> {
    match path.extension()? {
        "py" => Some("python"),
        "hs" | "lhs" => Some("haskell"),
        "java" => Some("java"),
        "c" | "h" | "rs" | "so" | "dylib" | "cpp" => Some("native"),
        _ => None,
    }
}

/// The kind of target a submission folder is, by the first source file it holds (or a
/// `Cargo.toml` or `Makefile`, which build a native library).
pub fn folder_kind(dir: &camino::Utf8Path) -> Option<&'static str> {
    let mut names: Vec<String> = dir
        .read_dir_utf8()
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string())
        .collect();
    names.sort();
    names.iter().find_map(|n| match n.as_str() {
        "Cargo.toml" | "Makefile" => Some("native"),
        _ => kind_of_source(camino::Utf8Path::new(n)),
    })
}

/// A submission that could not be built (it does not compile): every scenario fails at setup
/// with the same fault, the compiler's message.
pub struct Unbuildable {
    pub name: String,
    pub fault: Fault,
    /// What the target would have played, so it fails the same scenarios a built one plays.
    pub plays: Plays,
}

impl Target for Unbuildable {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn plays(&self) -> Plays {
        self.plays
    }
    fn program(&self) -> Result<Program, Fault> {
        Err(self.fault.clone())
    }
    fn new_game(&mut self, _: &Arc<Rules>, _: &Setup) -> Result<(), Fault> {
        Err(self.fault.clone())
    }
    fn act(&mut self, _: &Action) -> Result<Answer, Fault> {
        Err(self.fault.clone())
    }
    fn observe(&mut self, _: StateKey) -> Result<Observed, Fault> {
        Err(self.fault.clone())
    }
}

/// Which kinds of scenario a target plays: step scenarios through the protocol's calls,
/// dialogue scenarios by running a whole program ([`Target::program`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plays {
    pub steps: bool,
    pub dialogues: bool,
}

impl Plays {
    pub const STEPS: Plays = Plays {
        steps: true,
        dialogues: false,
    };
    pub const DIALOGUES: Plays = Plays {
        steps: false,
        dialogues: true,
    };
    pub const BOTH: Plays = Plays {
        steps: true,
        dialogues: true,
    };
}

/// An implementation under test.
pub trait Target {
    /// How reports name this target, e.g. `reference`.
    fn name(&self) -> String;

    /// Which scenarios it plays; the harness skips the others (and says so in the notes).
    fn plays(&self) -> Plays {
        Plays::STEPS
    }

    /// How to start the submission as a whole interactive program, for a dialogue scenario
    /// (each starts a fresh run). Errors: the submission has none (the fault says why).
    fn program(&self) -> Result<Program, Fault> {
        Err(Fault {
            kind: FaultKind::Unsupported,
            message: "this target is not a whole program".into(),
        })
    }
    /// Starts a game under `rules` from `setup`.
    fn new_game(&mut self, rules: &Arc<Rules>, setup: &Setup) -> Result<(), Fault>;
    /// Performs one action and answers with its outcome and details.
    fn act(&mut self, action: &Action) -> Result<Answer, Fault>;
    /// Answers one state question.
    fn observe(&mut self, key: StateKey) -> Result<Observed, Fault>;

    /// Ends the target after its last scenario: stops any child and reports what the
    /// submission left behind (a `leak`), as faults of the whole submission.
    fn finish(&mut self) -> Vec<Fault> {
        Vec::new()
    }

    /// What the report should say about how this target was contained, e.g. that the
    /// network could not be cut off.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Wall-clock time the whole submission may take ([`limits::Limits::submission_timeout`]);
    /// `None`: no budget (the reference, an in-process target).
    fn budget(&self) -> Option<std::time::Duration> {
        None
    }

    /// Whether the target can be handed the reference's state for a call
    /// ([`Call::Act`]'s and [`Call::Observe`]'s `given`): a driver that announces it in
    /// `hello`. Other targets play on their own state throughout.
    fn takes_given(&self) -> bool {
        false
    }

    /// Plays a whole scenario's calls after `new_game`, answering each in order and stopping
    /// at the first fault (later calls get no answer). Child targets override this to send
    /// one `batch` request.
    fn play(&mut self, calls: &[Call]) -> Vec<Result<Replied, Fault>> {
        let mut out = Vec::new();
        for call in calls {
            let reply = match call {
                Call::Act { action, .. } => self.act(action).map(Reply::Answer),
                Call::Observe { keys, .. } => keys
                    .iter()
                    .map(|k| self.observe(*k).map(|o| (*k, o)))
                    .collect::<Result<_, _>>()
                    .map(Reply::State),
            };
            let stop = reply.is_err();
            out.push(reply.map(|reply| Replied {
                reply,
                output: String::new(),
                by: None,
            }));
            if stop {
                break;
            }
        }
        out
    }
}

/// One call of a scenario: an action, or a question about the state.
#[derive(Debug, Clone)]
pub enum Call<'a> {
    /// An action; with `given`, the target first takes the reference's state before it (a
    /// spec's `given = "reference"` for the step's kind) in place of its own.
    Act {
        action: &'a Action,
        given: Option<GivenState>,
    },
    /// State questions; the `given_keys` among `keys` are asked of `given` (the reference's
    /// state after the step) instead of the target's own state.
    Observe {
        keys: Vec<StateKey>,
        given: Option<GivenState>,
        given_keys: Vec<StateKey>,
    },
}

impl<'a> Call<'a> {
    /// An action on the target's own state.
    pub fn act(action: &'a Action) -> Call<'a> {
        Call::Act {
            action,
            given: None,
        }
    }

    /// Questions about the target's own state.
    pub fn observe(keys: Vec<StateKey>) -> Call<'a> {
        Call::Observe {
            keys,
            given: None,
            given_keys: Vec::new(),
        }
    }
}

/// The reference's state at one step, as plain data a driver turns into the handout's
/// representation (colab-6x6's game dict, solo-10x10's fleet of tuples, move-limit-10x10's
/// `State`), so a student function can be judged on it alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GivenState {
    /// The placed ships in fleet order, each with its cells and the cells of it hit.
    pub ships: Vec<GivenShip>,
    /// Every on-board cell shot at so far, row by row.
    pub shots: Vec<[u8; 2]>,
    /// The `moves` counter (move-limit-10x10), 0 where the assignment keeps none.
    pub moves: u32,
    /// `won` or `lost` once a one-player game has ended.
    pub end: Option<&'static str>,
}

/// One ship of a [`GivenState`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GivenShip {
    pub name: String,
    pub cells: Vec<[u8; 2]>,
    pub hits: Vec<[u8; 2]>,
}

impl GivenState {
    /// The state of `game`, the reference's.
    pub fn of(game: &crate::engine::Game) -> GivenState {
        let rules = game.rules();
        let shot = game.targeted();
        let pair = |c: &Cell| [c.row, c.col];
        let ships = (0..rules.items.len())
            .filter(|&i| game.is_placed(i) && !rules.items[i].grenade)
            .map(|i| {
                let cells = game.item_cells(i);
                GivenShip {
                    name: rules.items[i].name.clone(),
                    cells: cells.iter().map(pair).collect(),
                    hits: cells
                        .iter()
                        .filter(|c| shot.contains(**c))
                        .map(pair)
                        .collect(),
                }
            })
            .collect();
        let moves = if rules.counters.contains(&crate::spec::Counter::Moves) {
            game.counter(crate::spec::Counter::Moves)
        } else {
            0
        };
        GivenState {
            ships,
            shots: shot.iter().map(|c| pair(&c)).collect(),
            moves,
            end: match game.end() {
                Some(crate::engine::End::Won) => Some("won"),
                Some(crate::engine::End::Lost) => Some("lost"),
                _ => None,
            },
        }
    }
}

/// The answer to one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Answer(Answer),
    State(BTreeMap<StateKey, Observed>),
}

/// An answer with what the student's code printed while producing it.
#[derive(Debug, Clone, PartialEq)]
pub struct Replied {
    pub reply: Reply,
    /// Captured standard output and error of the student's code during the call.
    pub output: String,
    /// The student function whose answer decided this one, where the driver says (e.g.
    /// `is_sunk` for a shot answered `hit` that should have sunk).
    pub by: Option<String>,
}

/// A state value as a target reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Observed {
    Names(Vec<String>),
    Bool(bool),
    Count(u32),
    Player(Option<String>),
    Cells(BTreeSet<Cell>),
    Board(Vec<String>),
}
