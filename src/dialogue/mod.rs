//! Dialogue scenarios: a whole interactive program driven through its standard input and
//! judged, line by line, against the reference engine.
//!
//! battleboats and grenades-8x8 prescribe a program that talks to a person, and solo-10x10
//! a `main()` that must never crash and must let the player quit. A dialogue scenario names
//! a plan of moves (`[dialogue] moves = [...]`); each is turned into lines for the program
//! at run time, from what the program has shown (battleboats' `print`, grenades-8x8's
//! revealed grid) and from the reference engine playing the same game. What the program
//! prints is read for its keywords and numbers, never as a fixed transcript: every student
//! words prompts differently and the computer's moves are random. A failed step shows the
//! last lines of the conversation, what was sent, what the reference expected, and the
//! board.

mod battleboats;
mod grenades;
pub mod read;
mod session;
mod solo;
mod talk;

use crate::report::{Divergence, ScenarioResult};
use crate::scenario::Scenario;
use crate::target::{Fault, FaultKind, Target};
use talk::{Stop, Talk};

/// The assignments graded as whole programs.
pub const ASSIGNMENTS: [&str; 3] = ["battleboats", "grenades-8x8", "solo-10x10"];

/// The moves a dialogue scenario of assignment `id` may plan; `None` for an assignment
/// without dialogues.
pub fn vocabulary(id: &str) -> Option<&'static [&'static str]> {
    match id {
        "battleboats" => Some(&battleboats::MOVES),
        "grenades-8x8" => Some(&grenades::MOVES),
        "solo-10x10" => Some(&solo::MOVES),
        _ => None,
    }
}

/// Checks that a plan of moves (all from the assignment's vocabulary) can be played in its
/// order. Errors: the index of the first move that cannot, and why.
pub fn check_plan(id: &str, moves: &[&str]) -> Result<(), (usize, String)> {
    match id {
        "battleboats" => battleboats::check_plan(moves),
        "grenades-8x8" => grenades::check_plan(moves),
        "solo-10x10" => solo::check_plan(moves),
        _ => Ok(()),
    }
}

/// Where a dialogue is, for feedback: the move being played and the board as the reference
/// sees it.
#[derive(Debug, Default)]
pub struct Progress {
    /// 1-based; before the first move (starting the program, choosing a mode) it is 1 with
    /// an empty `move_name`.
    pub move_no: usize,
    /// The move being played (`repeat-hit`); empty before the first.
    pub move_name: String,
    /// The move's line in the scenario file.
    pub line: usize,
    /// What was being done, e.g. "fire (3, 4): sent `3 4`".
    pub action: String,
    /// The reference's board (ships shown), when it knows one.
    pub board: Vec<String>,
    /// What the program printed at that point, when the divergence is found after the game
    /// (grenades-8x8 replays the game once the computer's layout is known); `None`: the
    /// conversation's last lines.
    pub output: Option<String>,
}

/// How a driver's game went: the conversation (if the program started) and where it
/// stopped, if it did.
pub struct Played {
    pub talk: Option<Talk>,
    pub outcome: Result<(), Stop>,
}

/// Starts `program` and hears its opening. Errors: how the game ended before it began,
/// with the conversation so far when the program started (for feedback).
fn open(
    program: &crate::target::Program,
    env: &[(String, String)],
) -> Result<(Talk, talk::Heard), Box<Played>> {
    let mut talk = match Talk::start(program, env) {
        Ok(t) => t,
        Err(stop) => {
            return Err(Box::new(Played {
                talk: None,
                outcome: Err(stop),
            }));
        }
    };
    match talk.opening() {
        Ok(heard) => Ok((talk, heard)),
        Err(stop) => Err(Box::new(Played {
            talk: Some(talk),
            outcome: Err(stop),
        })),
    }
}

/// Plays `scenario`'s dialogue with a fresh run of `target`'s program.
pub fn run(scenario: &Scenario, target: &dyn Target) -> ScenarioResult {
    let mut result = ScenarioResult::new(scenario);
    let Some(plan) = &scenario.dialogue else {
        return result.errored(
            Fault {
                kind: FaultKind::Unsupported,
                message: "not a dialogue scenario".into(),
            },
            None,
        );
    };
    result.steps = plan.moves.len();
    let program = match target.program() {
        Ok(p) => p,
        Err(f) => return result.errored(f, None),
    };
    let mut at = Progress {
        move_no: 1,
        line: plan.moves.first().map_or(1, |m| m.line),
        ..Progress::default()
    };
    let played = match scenario.assignment.as_str() {
        "battleboats" => battleboats::play(scenario, plan, &program, &mut at),
        "grenades-8x8" => grenades::play(scenario, plan, &program, &mut at),
        "solo-10x10" => solo::play(scenario, plan, &program, &mut at),
        other => Played {
            talk: None,
            outcome: Err(Stop::Faulted(Fault {
                kind: FaultKind::Unsupported,
                message: format!("{other} has no dialogue driver"),
            })),
        },
    };
    let tail = played.talk.as_ref().map(Talk::tail).unwrap_or_default();
    let leftovers = played.talk.map(Talk::finish).unwrap_or_default();
    result.steps_run = if at.move_name.is_empty() {
        0
    } else {
        at.move_no.min(plan.moves.len())
    };
    let action = if at.move_name.is_empty() {
        format!("before the first move: {}", at.action)
    } else {
        format!("{}: {}", at.move_name, at.action)
    };
    match played.outcome {
        Ok(()) if leftovers.is_empty() => {
            result.steps_run = plan.moves.len();
            result.passed()
        }
        Ok(()) => result.errored(
            Fault {
                kind: FaultKind::Leak,
                message: format!(
                    "processes the program started were still running after the game and were killed:\n{}",
                    leftovers.join("\n")
                ),
            },
            Some(plan.moves.len()),
        ),
        Err(Stop::Faulted(mut f)) => {
            if !tail.is_empty() {
                let last = read::tail(&tail, 12);
                f.message = format!("{}\nThe conversation's last lines:\n{last}", f.message);
            }
            result.errored(f, Some(at.move_no))
        }
        Err(Stop::Diverged {
            check,
            expected,
            actual,
        }) => result.failed(Divergence {
            step: Some(at.move_no),
            line: at.line,
            action,
            check,
            expected,
            actual,
            note: None,
            conversation: at.output.is_none() && !tail.is_empty(),
            output: at.output.or((!tail.is_empty()).then_some(tail)),
            board: at.board,
        }),
    }
}
