//! The one seam between the harness and an implementation: the [`Target`] trait, and the
//! calls and answers that cross it.
//!
//! The harness only talks to an implementation through these operations (DESIGN.md,
//! "Targets and the protocol"); the reference engine is a target too
//! ([`super::reference`]). The targets that start processes live outside the core
//! (`crate::target`) and implement this trait.

use crate::cell::Cell;
use crate::engine::Answer;
use crate::fault::{Fault, FaultKind};
use crate::report::ScenarioResult;
use crate::scenario::{Action, Scenario, Setup};
use crate::spec::{Rules, StateKey};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Which kinds of scenario a target plays: step scenarios through the protocol's calls,
/// dialogue scenarios by running a whole program ([`Target::play_dialogue`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plays {
    pub steps: bool,
    pub dialogues: bool,
    /// The one submission language whose assignments' dialogues it plays (`java`), or any
    /// (`None`: an `exec:` program, say).
    pub language: Option<crate::spec::Language>,
}

impl Plays {
    pub const STEPS: Plays = Plays {
        steps: true,
        dialogues: false,
        language: None,
    };
    pub const DIALOGUES: Plays = Plays {
        steps: false,
        dialogues: true,
        language: None,
    };
    pub const BOTH: Plays = Plays {
        steps: true,
        dialogues: true,
        language: None,
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

    /// Plays a dialogue scenario with a fresh run of the submission as a whole interactive
    /// program and marks its sheet (a target that is one hands it to `dialogue::run`). The
    /// default: the target is not a whole program, and the scenario is an error saying so.
    fn play_dialogue(&mut self, scenario: &Scenario) -> ScenarioResult {
        ScenarioResult::new(scenario).errored(
            Fault {
                kind: FaultKind::Unsupported,
                message: "this target is not a whole program".into(),
            },
            None,
        )
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

    /// Writes each dialogue's whole conversation to `to` (staff's `--transcript`): `to` is
    /// the shell's transcript sink, opaque here so the core names nothing of the shell; a
    /// target that plays no whole program, or is handed anything else, ignores it.
    fn keep_transcripts(&mut self, to: &dyn std::any::Any) {
        let _ = to;
    }

    /// Wall-clock time the whole submission may take (the limits' `submission_timeout`);
    /// `None`: no budget (the reference, an in-process target).
    fn budget(&self) -> Option<std::time::Duration> {
        None
    }

    /// Wall-clock time spent since the last call on work that is not the submission's and
    /// is not charged to it (in its scenario's `elapsed_ms` or its time budget): a game
    /// played on a game server, then thrown away and replayed in a fresh process (see
    /// `broadside::dialogue::run`). Zero by default.
    fn uncharged(&mut self) -> std::time::Duration {
        std::time::Duration::ZERO
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
                unanswered: Vec::new(),
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GivenState {
    /// The placed ships in fleet order, each with its cells and the cells of it hit.
    pub ships: Vec<GivenShip>,
    /// Every on-board cell shot at so far, row by row.
    pub shots: Vec<[u8; 2]>,
    /// The `moves` counter (move-limit-10x10), 0 where the assignment keeps none.
    pub moves: u32,
    /// `won` or `lost` once a one-player game has ended (null on the wire otherwise).
    pub end: Option<String>,
}

/// One ship of a [`GivenState`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
                Some(crate::engine::End::Won) => Some("won".into()),
                Some(crate::engine::End::Lost) => Some("lost".into()),
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
    /// The checks of this answer no student code answered, which earn no credit: `outcome`
    /// for an action's answer, state key names for a question (the driver says; empty for
    /// a target that does not).
    pub unanswered: Vec<String>,
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
    /// The function behind the key answered wrongly in a way that fails this key alone
    /// (it changed what it was given, where the spec says it only looks): why.
    Failed(String),
}
