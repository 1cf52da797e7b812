//! Playing one dialogue scenario: the program started (or its game server asked), the
//! assignment's driver run on the plan, the marking sheet turned into the scenario's result;
//! and the registry of drivers.

use super::sheet::{Check, Lost, RuleId, RuleText, Sheet};
use super::talk::{Stop, Talk};
use crate::report::{Divergence, ScenarioResult};
use crate::scenario::{Dialogue, Scenario};
use crate::target::{Fault, FaultKind, Program};

/// One whole-program assignment's driver: the handout rules it judges and how it plays a
/// game's moves. A new whole-program assignment is one file implementing this, one line in
/// `DRIVERS`, its plan grammar (the moves a plan may name, their order) in
/// [`crate::scenario::plan`], and its spec.
pub trait DialogueDriver: Sync {
    /// The assignment id (the spec's `id`) it drives.
    fn assignment(&self) -> &'static str;
    /// Every rule it can judge, each citing its handout clause.
    fn rules(&self) -> &'static [RuleText];
    /// What the report names as the code at fault for a failed rule: the handout's entry
    /// point (solo-10x10's `main`), or the program as a whole.
    fn entry(&self) -> &'static str {
        "the program"
    }
    /// The rules each move of its plan grammar judges: one row per move the grammar
    /// (`crate::scenario::plan`) names, each once (a test holds the two together).
    fn moves(&self) -> Vec<(&'static str, Vec<&'static RuleText>)>;
    /// The rules a plan judges (its marking sheet), in the order the sheet lists them: by
    /// default its moves' (`judged_by_moves`); a driver that judges some rules of a plan
    /// as a whole adds them.
    fn judged(&self, plan: &Dialogue, _scenario: &Scenario) -> Vec<&'static RuleText> {
        judged_by_moves(&self.moves(), plan)
    }
    /// Plays one game of `plan` with `program`, noting what it sees on `sheet`.
    fn play(
        &self,
        scenario: &Scenario,
        plan: &Dialogue,
        program: &Program,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) -> Played;
}

/// What each move of a plan judges: a driver's table, one row per move of its assignment's
/// plan grammar, the rules in the order the marking sheet lists them.
pub(crate) type MoveRules<R> = &'static [(&'static str, &'static [R])];

/// The rules `plan`'s moves judge by `rows` (a driver's [`DialogueDriver::moves`]), move
/// after move (the sheet keeps each once).
pub(crate) fn judged_by_moves(
    rows: &[(&'static str, Vec<&'static RuleText>)],
    plan: &Dialogue,
) -> Vec<&'static RuleText> {
    plan.moves
        .iter()
        .filter_map(|m| rows.iter().find(|(name, _)| *name == m.name))
        .flat_map(|(_, rules)| rules.iter().copied())
        .collect()
}

/// `table`'s rows with each rule's text, for [`DialogueDriver::moves`].
pub(crate) fn move_rows<R: RuleId>(
    table: MoveRules<R>,
) -> Vec<(&'static str, Vec<&'static RuleText>)> {
    table
        .iter()
        .map(|(name, rules)| (*name, rules.iter().map(|r| r.text()).collect()))
        .collect()
}

/// The drivers, one per whole-program assignment.
static DRIVERS: [&dyn DialogueDriver; 3] = [
    &super::battleboats::Driver,
    &super::grenades::Driver,
    &super::solo::Driver,
];

/// The driver of assignment `id`, if it is graded as a whole program.
pub fn driver(id: &str) -> Option<&'static dyn DialogueDriver> {
    DRIVERS.iter().copied().find(|d| d.assignment() == id)
}

/// The assignments graded as whole programs.
pub fn assignments() -> Vec<&'static str> {
    DRIVERS.iter().map(|d| d.assignment()).collect()
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
    /// A note for a failure found here: where `board` came from when no reference holds the
    /// layout (inferred from the program's own answers).
    pub note: Option<String>,
}

/// How a driver's game went: the conversation (if the program started) and where it
/// stopped, if it did.
pub struct Played {
    pub talk: Option<Talk>,
    pub outcome: Result<(), Stop>,
}

/// Starts `program` for a game of `plan` and hears its opening. Errors: how the game ended
/// before it began, with the conversation so far when the program started (for feedback).
///
/// The program's environment gets `env` and `BROADSIDE_SEED`, the plan's seed, with which
/// broadside's launchers seed the randomness of the program's language before it runs
/// (Python's `random`; Java's `Random`, `Math.random()`, `ThreadLocalRandom` and
/// `Collections.shuffle`): a program that places its ships or fires at random plays the
/// same game, and gets the same verdicts, every time the scenario is played. Spec
/// decision: grading must not hang on luck (issue: "the same program must get the same
/// verdict on every rule in every run"); a program that seeds itself from the clock is
/// not seeded.
pub(super) fn open(
    program: &crate::target::Program,
    plan: &Dialogue,
    env: &[(String, String)],
) -> Result<(Talk, super::talk::Heard), Box<Played>> {
    let mut env = env.to_vec();
    env.push(("BROADSIDE_SEED".to_string(), plan.seed.to_string()));
    let mut talk = match Talk::start(program, &env) {
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

impl Progress {
    /// Where the dialogue is now, kept for a failure charged later (after the game): the
    /// move, what was being done and the board, without the printout or a note.
    pub fn snapshot(&self) -> Progress {
        Progress {
            move_no: self.move_no,
            line: self.line,
            move_name: self.move_name.clone(),
            action: self.action.clone(),
            board: self.board.clone(),
            output: None,
            note: None,
        }
    }

    /// What was being done, in a student's words: `a shot off the board: fire at (-1, 0)…`.
    /// The plan's move names (`sweep`, `hit-each-boat`) are broadside's own vocabulary and
    /// stay out of feedback ([`move_words`]); the staff transcript keeps them.
    pub(crate) fn describe(&self) -> String {
        if self.move_name.is_empty() {
            format!("before the first move: {}", self.action)
        } else {
            format!("{}: {}", move_words(&self.move_name), self.action)
        }
    }
}

/// A plan's move in words a student understands (issue 35, item 17: no plan vocabulary in
/// student views); an unknown name is said as it is.
pub(crate) fn move_words(name: &str) -> &str {
    match name {
        // battleboats
        "print" => "showing the board",
        "hit-each-boat" => "a hit on each boat",
        "sink-smallest" => "sinking the smallest boat",
        "miss" => "a miss",
        "repeat-hit" => "a cell already hit, fired at again",
        "repeat-miss" => "a cell already missed, fired at again",
        "off-board" | "off-board-far" => "a shot off the board",
        "drone-row" => "the drone on a row",
        "drone-col" => "the drone on a column",
        "drone-bad-input" => "the drone, given a bad answer first",
        "missile-corner" => "a missile at a corner",
        "missile-off-board" => "a missile aimed off the board",
        "fire-missile-cell" => "a cell the missile struck, fired at again",
        "sink-all" => "sinking every boat",
        // grenades-8x8
        "place-off-grid" => "placing an item off the grid",
        "place-occupied" => "placing an item on a taken cell",
        "place" => "placing the items",
        "initial-grid" => "the first grid",
        "fire-own-ship" => "a rocket at the human's own ship",
        "fire-own-grenade" => "a rocket at the human's own grenade",
        "fire-off-grid" => "a rocket off the grid",
        "fire-recalled" => "a rocket at a cell called before",
        "sweep" => "playing the game on to its end",
        // solo-10x10
        "hostile-input" => "answers that are not coordinates",
        "quit" => "quitting",
        "end-of-input" => "the input ending",
        "play" => "a whole game",
        other => other,
    }
}

/// Plays `scenario`'s dialogue with a fresh run of `program` and marks its sheet; with the
/// fault that keeps the submission from being one (it does not compile), the scenario is
/// an error with that fault.
///
/// The scenario's points are shared equally among the rules its plan judges; a rule
/// failed or not observed earns nothing. Status: `passed` when every rule passed, `error`
/// when a fault (an exception, a crash, a hang, a flood, a leak) ended the game, else
/// `failed`. The first failed rule is also the result's `divergence`.
///
/// A game played on the program's game server after that server's first game may meet
/// what an earlier game left in the runtime (a JDK static, a System V message queue),
/// which a fresh process would not: when it does not pass, it is played again in a fresh
/// process (a JVM or an interpreter of its own) and that result is graded; the server's
/// game is thrown away and its time not charged ([`Program::served`]). When the two
/// differ, the server is retired for the rest of the program's run (every later game gets
/// a process of its own) and a note for staff says so. A game that passes on the server is
/// kept: the server can carry state, but a fresh process is what is graded, and state that
/// made a failing program pass would have to be left by a game before it that a fresh
/// process replays too.
pub fn run(scenario: &Scenario, program: Result<&Program, &Fault>) -> ScenarioResult {
    let Ok(program) = program else {
        return play_once(scenario, program);
    };
    program.served.begin_game();
    let start = std::time::Instant::now();
    let served = play_once(scenario, Ok(program));
    let replay = served.status != crate::report::Status::Passed
        && program.served.last().is_some_and(|n| n > 0);
    if !replay {
        return served;
    }
    program.served.uncharge(start.elapsed());
    let mut fresh_program = program.clone();
    fresh_program.game_server = None;
    // Its own parking place, so the server parked for the next game stays parked, and no
    // process is started ahead for a game that is not coming.
    fresh_program.spare = crate::target::program::Spare::default();
    fresh_program.starts_ahead = false;
    fresh_program.served = crate::target::program::ServerRecord::default();
    let fresh = play_once(scenario, Ok(&fresh_program));
    if !same_grade(&served, &fresh) {
        program.served.retire(format!(
            "state kept between games: `{}` graded differently when its game was played again in a process of its own ({} there, {} on the game server), so every game from it on had a process of its own; the results are the fresh processes'",
            served.path,
            status_word(fresh.status),
            status_word(served.status)
        ));
        program.spare.clear();
    }
    fresh
}

/// A status as reports spell it (`passed`, `failed`, `error`).
fn status_word(s: crate::report::Status) -> String {
    serde_json::to_value(s)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// Whether two results of one scenario grade alike: the same status, fault kind, points
/// and rule verdicts.
fn same_grade(a: &ScenarioResult, b: &ScenarioResult) -> bool {
    let verdicts = |r: &ScenarioResult| -> Vec<(String, crate::report::Verdict)> {
        r.rules
            .iter()
            .map(|x| (x.rule.clone(), x.verdict))
            .collect()
    };
    a.status == b.status
        && a.fault.as_ref().map(|f| f.kind) == b.fault.as_ref().map(|f| f.kind)
        && (a.points - b.points).abs() < 1e-9
        && verdicts(a) == verdicts(b)
}

/// [`run`]'s one play of the game, wherever the program runs it.
fn play_once(scenario: &Scenario, program: Result<&Program, &Fault>) -> ScenarioResult {
    let mut result = ScenarioResult::new(scenario);
    let (Some(plan), Some(driver)) = (&scenario.dialogue, driver(&scenario.assignment)) else {
        return result.errored(
            Fault {
                kind: FaultKind::Unsupported,
                message: format!(
                    "not a dialogue scenario of a whole-program assignment ({})",
                    assignments().join(", ")
                ),
            },
            None,
        );
    };
    result.steps = plan.moves.len();
    let program = match program {
        Ok(p) => p,
        Err(f) => return result.errored(f.clone(), None),
    };
    let mut at = Progress {
        move_no: 1,
        line: plan.moves.first().map_or(1, |m| m.line),
        ..Progress::default()
    };
    let mut sheet = Sheet::new(driver.rules(), &driver.judged(plan, scenario));
    sheet.entry = driver.entry();
    let played = driver.play(scenario, plan, program, &mut at, &mut sheet);
    let tail = played.talk.as_ref().map(Talk::tail).unwrap_or_default();
    let transcript = program.transcripts.as_ref().map(|_| {
        played
            .talk
            .as_ref()
            .map(|t| t.transcript(super::transcript::LIMIT))
    });
    let leftovers = played.talk.map(Talk::finish).unwrap_or_default();
    result.steps_run = if at.move_name.is_empty() {
        0
    } else {
        at.move_no.min(plan.moves.len())
    };
    if played.outcome.is_ok() {
        result.steps_run = plan.moves.len();
    }
    let Ending { fault, cut, lost } = ending(played.outcome, &at, &tail, &mut sheet);
    let leak = (!leftovers.is_empty()).then(|| Fault {
        kind: FaultKind::Leak,
        message: format!(
            "processes the program started were still running after the game and were killed:\n{}",
            leftovers.join("\n")
        ),
    });
    result.rules = sheet.results(cut.as_deref(), &result.line_of());
    result.conventions = std::mem::take(&mut sheet.conventions);
    let share = Sheet::share(&result.rules);
    let first = sheet.first_failure().cloned().or(lost);
    let result = match (fault.or(leak), first) {
        (Some(f), first) => {
            let step = Some(result.steps_run.max(1));
            // A rule the fault itself broke (solo-10x10's `never-crash`) is the failure the
            // feedback leads with, beside the fault.
            result.divergence = first;
            let mut r = result.errored(f, step).credited(share);
            r.steps_run = r.steps_run.min(plan.moves.len());
            r
        }
        (None, Some(d)) => result.failed(d).credited(share),
        (None, None) if share >= 1.0 => result.passed(),
        (None, None) => {
            let mut r = result.credited(share);
            r.status = crate::report::Status::Failed;
            r
        }
    };
    if let (Some(sink), Some(Some(written))) = (&program.transcripts, transcript) {
        let outcome = format!(
            "{} ({}/{} points){}",
            status_word(result.status),
            result.points,
            result.max_points,
            cut.map(|c| format!("; {c}")).unwrap_or_default()
        );
        sink.write(result.name(), &result.path, &outcome, &written);
    }
    result
}

/// How a game's end reads in its result: a fault, why the rules not seen were not judged
/// (`cut`), and the loss of track no rule is charged for (`lost`).
struct Ending {
    fault: Option<Fault>,
    cut: Option<String>,
    lost: Option<Divergence>,
}

/// The [`Ending`] of a game that ended with `outcome`, at `at`; `tail`: the conversation's
/// last lines. A loss of track on a rule the sheet judges is charged to it.
fn ending(outcome: Result<(), Stop>, at: &Progress, tail: &str, sheet: &mut Sheet) -> Ending {
    let mut lost = None;
    let (fault, cut) = match outcome {
        Ok(()) => (None, None),
        Err(Stop::Faulted(mut f)) => {
            if !tail.is_empty() {
                let last = super::read::tail(tail, 12);
                f.message = format!("{}\nThe conversation's last lines:\n{last}", f.message);
            }
            let cut = format!(
                "the program stopped with a fault ({}) {}, before this rule could be judged",
                f.kind.word(),
                where_in_game(at, "at the start", "at move")
            );
            (Some(f), Some(cut))
        }
        Err(Stop::Diverged {
            check,
            expected,
            actual,
        }) => {
            // Lost track: the program's game cannot be followed past here. Said as
            // broadside's own limit, never as something the program did not do.
            // A game that never started (battleboats: a setup question asked again after
            // every answer, issue 35 item 12) is a state of its own, not a loss of track.
            let never_started = matches!(check, Check::Lost(Lost::NeverStarted));
            let cut = if never_started {
                "the game never started (its setup question was asked again after every answer), so no rule of the game could be judged".to_string()
            } else {
                format!(
                    "broadside could not follow the game {}, because {}",
                    where_in_game(at, "from the start", "after move"),
                    lost_because(&expected, &actual)
                )
            };
            if let Check::Rule(rule) = check
                && sheet.judges(rule)
            {
                sheet.fail(rule, at, expected, actual, tail.to_string());
            } else {
                lost = Some(Divergence {
                    step: Some(at.move_no),
                    line: at.line,
                    action: at.describe(),
                    check: check.id().to_string(),
                    expected: super::sheet::singular_after_one(&expected),
                    actual: super::sheet::singular_after_one(&actual),
                    note: Some(if never_started {
                        "the game never started: no rule of the game could be judged, and the program is flagged for the marker to check by hand".into()
                    } else {
                        "broadside could not follow the game from here on; this is charged to no rule, and the rules the game had not come to yet are not judged".into()
                    }),
                    conversation: at.output.is_none() && !tail.is_empty(),
                    output: at
                        .output
                        .clone()
                        .or_else(|| (!tail.is_empty()).then(|| tail.to_string())),
                    board: at.board.clone(),
                    ..Divergence::default()
                });
            }
            (None, Some(cut))
        }
    };
    Ending { fault, cut, lost }
}

/// Where in the game `at` is, for a sentence: `{start} (…)` before the first move, else
/// `{moved} 3 (a rocket off the grid: …)` (`at the start` / `at move` for a fault,
/// `from the start` / `after move` for a loss of track).
fn where_in_game(at: &Progress, start: &str, moved: &str) -> String {
    if at.move_name.is_empty() {
        format!("{start} ({})", at.action)
    } else {
        format!("{moved} {} ({})", at.move_no, at.describe())
    }
}

/// Why broadside lost track, in a clause: what it expected and what the program did. A grid
/// is never quoted inside a sentence: it is shown in the failure above.
fn lost_because(expected: &str, actual: &str) -> String {
    let (expected, actual) = (
        super::sheet::singular_after_one(expected),
        super::sheet::singular_after_one(actual),
    );
    if expected.contains('\n') || actual.contains('\n') {
        "the grid the program printed there is not one the game could have shown".to_string()
    } else {
        format!("it expected {expected} and the program gave {actual}")
    }
}

#[cfg(test)]
mod drivers_and_grammars {
    /// Every driver has a plan grammar the loader checks plans against, and every grammar a
    /// driver that plays its moves.
    #[test]
    fn every_driver_has_a_plan_grammar_and_every_grammar_a_driver() {
        assert_eq!(super::assignments(), crate::scenario::plan::assignments());
    }

    /// No plan move reaches a student view as broadside's own name for it (issue 35, 17).
    #[test]
    fn every_plan_move_has_words_for_students() {
        for id in crate::scenario::plan::assignments() {
            for m in crate::scenario::plan::vocabulary(id).unwrap_or_default() {
                assert_ne!(super::move_words(m), *m, "{id}: {m}");
            }
        }
    }
}
