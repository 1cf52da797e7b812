//! The battleboats dialogue (handout 004): choose the mode, learn the layout, then play
//! planned moves; every shot, scan and missile is recorded, and judged against the
//! reference engine playing the same layout as a marking sheet of the handout's rules.
//!
//! Nothing a program may lack is a prerequisite. The mode key, the command words and the
//! way a cell is entered are read from the program's prompts (`1`/`2`, `s`/`e`, words;
//! `x y` on one line, or the row and the column asked apart, in the order asked; `fire`,
//! `f` or a bare cell), and the next convention is tried when one is refused. The layout
//! comes from `print` (§7) when it shows each boat apart; when it shows only which cells
//! hold boats, or nothing, the boats are inferred from the program's own answers after the
//! game (the layouts of the handout's fleet that fit every hit, miss and sunk), and the
//! game is judged against the one that fits best. `print` is a rule of its own.
//!
//! The fleet is a rule of its own too (`fleet`, §3; issue 35 item 10), charged once: where
//! `print` tells every boat apart with a symbol of its own and they are not the handout's
//! fleet (four boats of 3, say), or where a program that won its game answered hits and
//! sinkings that fit no layout of the handout's fleet (every cell not fired on is then
//! water), the game is judged against the program's own boats: `print`'s, or the boats its
//! sinkings split its hits into. Where the boats cannot be known (a `print` with one symbol
//! for every boat, a game not won), the handout's fleet is assumed, as before.
//!
//! Judged: `fleet` (§3, where the plan asks for `print` and in expert mode), `miss` / `hit` / `sunk` (§4), `penalty` for a repeated or off-board shot (§4),
//! the drone's count (§5), the used-up message (§5), refusals of bad power input (§5), the
//! final turn and cannon-shot counts (§4), and `print` (§7). Not judged: the wording around
//! them, the board drawn before each turn (its format is free, §4), and what a missile
//! prints (its cells are checked by later shots and the counts).

use super::ask::{action_keys, asks_one, asks_shot, asks_size, column_first, is_yes_no};
use super::read::{self, asked_again, has_phrase, has_stem, integers, words};
use super::sheet::{Lost, RuleId, RuleText, Sheet, rules};
use super::talk::{Heard, Stop, Talk};
use super::{DialogueDriver, MoveRules, Played, Progress, judged_by_moves, move_rows};
use crate::cell::{Cell, RawCell};
use crate::engine::{Axis, Game, Outcome};
use crate::scenario::{Dialogue, Scenario};
use crate::spec::{Counter, Rules};
use crate::target::Program;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

rules! {
    /// The rules a battleboats dialogue judges.
    pub(crate) enum Rule {
        Fleet => RuleText {
            id: "fleet",
            title: "The board holds the handout's fleet: boats of 5, 4, 3, 3 and 2 in standard mode, the ten boats in expert",
            clause: "§3: \"For the Standard game mode you will place 5 boats on the board. These boats will have the following lengths: 1 boat of length 5, 1 boat of length 4, 2 boats of length 3, 1 boat of length 2. For the Expert game mode you will place 10 boats ... 2 boats of length 5, 2 boats of length 4, 4 boats of length 3, 2 boat of length 2\"",
        },
        Print => RuleText {
            id: "print",
            title: "`print` shows the whole board, each boat told apart",
            clause: "§7: \"the program should print the entire board to terminal, displaying spots that have been hit and missed, as well as where boats are. It is important that you differentiate the boats in some way.\"",
        },
        Miss => RuleText {
            id: "miss",
            title: "A shot at open water prints miss",
            clause: "§4: \"If there is no boat at the location, print “miss”.\"",
        },
        Hit => RuleText {
            id: "hit",
            title: "A shot at a boat prints hit",
            clause: "§4: \"If there is a boat, print “hit”.\"",
        },
        Sunk => RuleText {
            id: "sunk",
            title: "The shot that completes a boat prints sunk",
            clause: "§4: \"If the boat sinks, print “sunk”.\"",
        },
        PenaltyOnRepeat => RuleText {
            id: "penalty-on-repeat",
            title: "A shot at a cell fired on before prints penalty",
            clause: "§4: \"If the user has already attacked that location ... print “penalty”.\" \"Do not print “hit” again if the user has already “hit” this location.\"",
        },
        PenaltyOffBoard => RuleText {
            id: "penalty-off-board",
            title: "A shot off the board prints penalty",
            clause: "§4: \"If ... location is out of bounds, print “penalty”.\"",
        },
        DroneCount => RuleText {
            id: "drone-count",
            title: "The drone counts the boat cells of a row or column, hit ones too",
            clause: "§5 Drone: \"determine how many spots are there that contain a boat ... The drone will count boat spots that have already been hit and sunk.\"",
        },
        PowerUsedUp => RuleText {
            id: "power-used-up",
            title: "A power past its limit prints a used-up message",
            clause: "§5: \"Each power can be used once a game if the game is in standard mode, and twice if the game is in expert mode.\" \"a message will be printed notifying them that they have already used that power as many times as they can\"",
        },
        PowerBadInput => RuleText {
            id: "power-bad-input",
            title: "A bad answer to a power's question is refused and asked again",
            clause: "§5 Drone: \"If the user types in an invalid response, the program should alert them until they type in a valid response\"; Missile: \"the program will continue to ask the user to type in valid coordinates\"",
        },
        Missile => RuleText {
            id: "missile",
            title: "A missile strikes the 3×3 square clipped to the board",
            clause: "§5 Missile: \"If the chosen spot is near the edge of the board, the missile will only hit the spots on the board\"",
        },
        Turns => RuleText {
            id: "turns",
            title: "The end reports the turns, a penalty skipping one and each power using one",
            clause: "§4: \"report how many turns it took to sink all the boats\"; \"the user's next turn will be skipped (meaning that an extra turn will be added to the turn counter\"; §5: \"Each power will add one turn to the total turn count\"",
        },
        Shots => RuleText {
            id: "shots",
            title: "The end reports the cannon shots (powers are none)",
            clause: "§4: \"as well as the total number of cannon shots\"; §5: \"but will not count as a shot fired\"",
        },
    }
}

/// The rules each move of a battleboats plan judges (the plan grammar's moves, each once).
const MOVES: MoveRules<Rule> = &[
    ("print", &[Rule::Print]),
    ("hit-each-boat", &[Rule::Hit]),
    ("sink-smallest", &[Rule::Hit, Rule::Sunk]),
    ("miss", &[Rule::Miss]),
    ("repeat-hit", &[Rule::PenaltyOnRepeat]),
    ("repeat-miss", &[Rule::PenaltyOnRepeat]),
    ("fire-missile-cell", &[Rule::PenaltyOnRepeat]),
    ("off-board", &[Rule::PenaltyOffBoard]),
    ("off-board-far", &[Rule::PenaltyOffBoard]),
    ("drone-row", &[Rule::DroneCount]),
    ("drone-col", &[Rule::DroneCount]),
    ("drone-bad-input", &[Rule::PowerBadInput, Rule::DroneCount]),
    ("missile-corner", &[Rule::Missile]),
    ("missile-off-board", &[Rule::PowerBadInput, Rule::Missile]),
    (
        "sink-all",
        &[Rule::Hit, Rule::Sunk, Rule::Turns, Rule::Shots],
    ),
];

/// The battleboats driver.
pub(crate) struct Driver;

impl DialogueDriver for Driver {
    fn assignment(&self) -> &'static str {
        "battleboats"
    }
    fn rules(&self) -> &'static [RuleText] {
        Rule::table()
    }
    fn moves(&self) -> Vec<(&'static str, Vec<&'static RuleText>)> {
        move_rows(MOVES)
    }
    fn judged(&self, plan: &Dialogue, scenario: &Scenario) -> Vec<&'static RuleText> {
        let mut out: Vec<&'static RuleText> = Vec::new();
        // The fleet is judged once per fleet (issue 35 item 10): where the plan asks for
        // `print` (the standard game that shows the board), and in expert mode, whose fleet
        // is another. Every other scenario plays against the boats the program really has,
        // and charges nothing for them.
        if scenario.rules.mode == "expert" || plan.moves.iter().any(|m| m.name == "print") {
            out.push(Rule::Fleet.text());
        }
        out.extend(judged_by_moves(&self.moves(), plan));
        // A second use of a power in standard mode (a third in expert) judges the limit.
        let uses = |names: &[&str]| {
            plan.moves
                .iter()
                .filter(|m| names.contains(&m.name.as_str()))
                .count()
        };
        if uses(&["drone-row", "drone-col", "drone-bad-input"]) > 1
            || uses(&["missile-corner", "missile-off-board"]) > 1
        {
            out.push(Rule::PowerUsedUp.text());
        }
        out
    }
    fn play(
        &self,
        scenario: &Scenario,
        plan: &Dialogue,
        program: &Program,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) -> Played {
        play(scenario, plan, program, at, sheet)
    }
}

/// Plays one battleboats dialogue, then judges what was recorded.
///
/// A program that prints a usage line naming its arguments and ends is run again with
/// them (issue 35 item 7). A game that `print` ended (broadside typed it where the
/// program wanted something else) is played again without it (item 9): that ending is
/// broadside's doing, never shown as the student's crash (item 20).
fn play(
    scenario: &Scenario,
    plan: &Dialogue,
    program: &Program,
    at: &mut Progress,
    sheet: &mut Sheet,
) -> Played {
    let expert = scenario.rules.mode == "expert";
    let mut program = program.clone();
    let mut with_args = false;
    let mut used_args: Vec<String> = Vec::new();
    let mut print_ended: Option<String> = None;
    loop {
        at.action = "start the program and choose the mode".into();
        let (mut talk, opening) = match super::open(&program, plan, &[]) {
            Ok((t, h)) if h.ended && !with_args => {
                let text = format!("{}\n{}", h.text, t.tail());
                match usage_args(&text, expert) {
                    Some(args) => {
                        with_args = true;
                        used_args.clone_from(&args);
                        program = with_arguments(program, args);
                        continue;
                    }
                    None => (t, h),
                }
            }
            Ok(t) => t,
            Err(played) => {
                let text = match (&played.talk, &played.outcome) {
                    (Some(t), Err(Stop::Faulted(f))) => format!("{}\n{}", t.tail(), f.message),
                    (Some(t), _) => t.tail(),
                    _ => String::new(),
                };
                match usage_args(&text, expert).filter(|_| !with_args) {
                    Some(args) => {
                        with_args = true;
                        used_args.clone_from(&args);
                        program = with_arguments(program, args);
                        continue;
                    }
                    None => return *played,
                }
            }
        };
        let mut boats = Boats::new(scenario);
        if with_args {
            boats.conventions.push(format!(
                "run with the arguments its usage line names: `{}`",
                used_args.join(" ")
            ));
        }
        boats.skip_print.clone_from(&print_ended);
        let mut outcome = boats
            .setup(&mut talk, opening, at, sheet)
            .and_then(|()| boats.moves(plan, &mut talk, at));
        if boats.probing && outcome.is_err() && print_ended.is_none() {
            print_ended = Some(talk.tail());
            continue;
        }
        if boats.never_started {
            sheet.note(
                "flagged for the marker: the game never started (a setup question was asked again after every answer)"
                    .into(),
            );
        }
        let stopped_at = (at.move_no, at.line, at.move_name.clone());
        let judged = if boats.never_started {
            Ok(())
        } else {
            if let Some(r) = boats.print_refused.take() {
                sheet.fail(
                    Rule::Print,
                    &r.at,
                    "`print` shows the whole board (§7)",
                    r.want,
                    r.tail,
                );
            }
            boats.judge(at, sheet)
        };
        (at.move_no, at.line, at.move_name) = stopped_at;
        if outcome.is_ok() {
            outcome = judged;
        }
        sheet.note(boats.conventions.join("; "));
        return Played {
            talk: Some(talk),
            outcome,
        };
    }
}

/// `program` with `args` after its own, in a process of its own per game (a game server
/// or a launcher started ahead runs `main` without them).
fn with_arguments(mut program: Program, args: Vec<String>) -> Program {
    program.args.extend(args);
    program.game_server = None;
    program.starts_ahead = false;
    program
}

/// One thing the dialogue did, and what the program printed after it.
#[derive(Clone)]
enum Act {
    Fire(RawCell),
    Drone(Axis, i64),
    Missile(RawCell),
}

#[derive(Clone)]
struct Done {
    act: Act,
    text: String,
    tail: String,
    move_no: usize,
    line: usize,
    move_name: String,
    action: String,
}

/// A bad answer to a power's question, and whether the program refused it.
struct Refusal {
    refused: bool,
    want: String,
    at: Progress,
    tail: String,
}

/// How a cell is entered, learnt from the prompts.
#[derive(Clone, Copy, PartialEq)]
enum Entry {
    /// `x y` on one line.
    Line,
    /// The row, then the column, each when asked (or in the order asked).
    Apart,
}

/// The game as the dialogue plays it, and what it has learnt.
struct Boats {
    rules: Arc<Rules>,
    /// The layout as the planner believes it (exact when `print` showed each boat).
    game: Game,
    /// Whether the belief is exact (`print` told every boat apart).
    exact: bool,
    /// Cells `print` showed holding a boat, when it showed no boat apart.
    boat_cells: Option<BTreeSet<Cell>>,
    /// Normalised lines the program prints every turn (prompts, legends): never read as
    /// an outcome.
    noise: BTreeSet<String>,
    /// Cells the last missile struck.
    missile_cells: Vec<Cell>,
    /// Cells fired on (by cannon or missile), and what the program answered a first shot.
    answered: BTreeMap<Cell, &'static str>,
    fired: BTreeSet<Cell>,
    /// Whether the program's game has ended (every boat sunk, as it says).
    over: bool,
    entry: Entry,
    /// The word that starts a shot, when a bare cell is not one (`fire`, `f`).
    fire_word: Option<String>,
    /// Aliases for `drone`, `missile`, `print` when the word was refused.
    words: BTreeMap<&'static str, String>,
    log: Vec<Done>,
    /// Refusals of bad power input seen (judged whatever the layout).
    refusals: Vec<Refusal>,
    /// Input conventions used, for the report.
    conventions: Vec<String>,
    /// What the end printed (the counts).
    end_text: Option<String>,
    /// The question the program asked when its setup was done (normalised).
    start_q: Option<String>,
    /// A setup question was asked again after every answer: the game never started.
    never_started: bool,
    /// `print` is not typed: a probe of it ended the game in an earlier run, whose last
    /// lines these are.
    skip_print: Option<String>,
    /// `print` is being probed: an ending now is broadside's doing, not the student's.
    probing: bool,
    /// The program's commands are numbered (a menu): only numbers are typed for them.
    numbered_menu: bool,
    /// `print` refused (what was refused, where): charged unless the game never started.
    print_refused: Option<Refusal>,
    /// The program asks for the cell first and then what to do there (`Fire a cannon or
    /// launch a missile at (3, 4)? (f/m)`): the word follows the cell (issue 35 item 8).
    action_after_cell: bool,
    /// The last [`Boats::command`] had every word it tried refused.
    command_refused: bool,
    /// The program takes the column first though its prompt does not say so: the first
    /// shot's mark appeared on its board at the mirrored cell (issue 35 item 8).
    col_first: bool,
    /// Whether a shot's mark has been looked for on the program's board yet.
    oriented: bool,
    /// The boats are the program's own, inferred from its hits and sinkings after the game
    /// (no `print` showed them, and they are not the handout's fleet).
    inferred_fleet: bool,
}

impl Boats {
    fn new(scenario: &Scenario) -> Boats {
        let rules = scenario.rules.clone();
        Boats {
            game: Game::new(rules.clone()),
            rules,
            exact: false,
            boat_cells: None,
            noise: BTreeSet::new(),
            missile_cells: Vec::new(),
            answered: BTreeMap::new(),
            fired: BTreeSet::new(),
            over: false,
            entry: Entry::Line,
            fire_word: None,
            words: BTreeMap::new(),
            log: Vec::new(),
            refusals: Vec::new(),
            conventions: Vec::new(),
            end_text: None,
            start_q: None,
            never_started: false,
            skip_print: None,
            probing: false,
            numbered_menu: false,
            print_refused: None,
            action_after_cell: false,
            command_refused: false,
            col_first: false,
            oriented: false,
            inferred_fleet: false,
        }
    }

    /// Answers the questions before the game as a TA at a terminal would, reading each
    /// prompt for what it asks ([`setup_answers`]): the mode, a board size (two numbers
    /// when one prompt asks rows and columns), yes/no, true/false, default/custom. A
    /// question asked again after an answer gets the next answer; one asked again after
    /// every answer means the game never started (a finding of its own, flagged for the
    /// marker: issue 35 item 12). Then `print`, to learn the layout, where a command is
    /// asked.
    fn setup(
        &mut self,
        talk: &mut Talk,
        opening: Heard,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) -> Result<(), Stop> {
        let expert = self.rules.mode == "expert";
        self.noise = noise_of(&opening.text);
        let mut heard = opening;
        let mut tried: Vec<String> = Vec::new();
        let mut asked: Option<String> = None;
        let mut mode_key: Option<String> = None;
        for _ in 0..16 {
            let q = read::last_line(&heard.text).unwrap_or("").to_string();
            let Some((kind, answers)) = setup_answers(&heard.text, expert) else {
                break;
            };
            // The same question again, or an error word first: the last answer was refused.
            let refused = heard
                .text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .is_some_and(read::refuses);
            let again = asked
                .as_deref()
                .is_some_and(|a| refused || normalise(a) == normalise(&q));
            if !again {
                tried.clear();
            }
            asked = Some(q.clone());
            let Some(line) = answers.into_iter().find(|k| !tried.contains(k)) else {
                return Err(self.never_started(&q, &tried));
            };
            tried.push(line.clone());
            match kind {
                Question::Size => self
                    .conventions
                    .push(format!("board size asked for: answered {line}")),
                Question::YesNo => self.conventions.push(format!("`{q}` answered `{line}`")),
                Question::Mode => mode_key = Some(line.clone()),
            }
            at.action = format!("before the game: sent `{line}`");
            heard = talk.say(&line)?;
            still_on(&heard, "before the game began")?;
            self.noise.extend(noise_of(&heard.text));
        }
        // The handout's keys are `1` and `2` (§3): only another key is a convention of the
        // program's own.
        if let Some(k) = mode_key.filter(|k| !["1", "2"].contains(&k.as_str())) {
            self.conventions.push(format!("mode key `{k}`"));
        }
        self.start_q = read::last_line(&heard.text).map(normalise);
        self.menu_numbers(&heard.text);
        if let Some(tail) = self.skip_print.clone() {
            self.conventions.push(
                "no `print` command: typing `print` ended the program, so the game was played again without it and the layout inferred from the program's answers"
                    .into(),
            );
            sheet.fail(
                Rule::Print,
                at,
                "`print` shows the whole board (§7)",
                "no print command: typing `print` ended the program (that run was played again without it)",
                tail,
            );
            return Ok(());
        }
        if !asks_command(&heard.text, &self.words) {
            // Never a word where a number is asked (issue 35 item 9): `print` waits for a
            // prompt that asks a command, which this program never shows before its turns.
            self.conventions
                .push("no prompt asks for a command: `print` not typed, the layout inferred from the program's answers".into());
            sheet.fail(
                Rule::Print,
                at,
                "`print` can be typed where the program asks what to do (§7: \"the user should be able to type in 'print'\")",
                format!("the program asks `{}`, a number, and offers no command", read::last_line(&heard.text).unwrap_or("")),
                talk.tail(),
            );
            return Ok(());
        }
        self.print(talk, at, sheet)
    }

    /// The game never started: `q` was asked again after every answer in `tried`. Every
    /// rule is left unjudged (no board was ever played, so none is inferred) and the
    /// scenario is flagged for the marker.
    fn never_started(&mut self, q: &str, tried: &[String]) -> Stop {
        self.never_started = true;
        Stop::diverged(
            Lost::NeverStarted,
            "the game starts once its setup questions are answered (§6: \"prompt the user for the mode\")",
            format!(
                "the game never started: the program asked `{q}` again after every answer ({}); flagged for the marker to check by hand",
                tried
                    .iter()
                    .map(|t| format!("`{t}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    }

    /// Reads a numbered menu (`1. Fire`, `4) Print board`, `[2] drone`) above the prompt
    /// into the command words: the numbers are typed, never the words.
    fn menu_numbers(&mut self, text: &str) {
        let menu = numbered_menu(text);
        for (name, key) in [
            ("print", "print"),
            ("drone", "drone"),
            ("missile", "missile"),
        ] {
            if let Some(n) = menu.get(key) {
                self.words.insert(name, n.clone());
                self.conventions
                    .push(format!("a numbered menu: the {name} as `{n}`"));
            }
        }
        if let Some(n) = menu.get("fire") {
            self.fire_word = Some(n.clone());
            self.conventions
                .push(format!("a numbered menu: a shot starts with `{n}`"));
        }
        self.numbered_menu = !menu.is_empty();
    }

    /// Sends `print` (or the alias the program offers) and learns the layout from it.
    fn print(&mut self, talk: &mut Talk, at: &mut Progress, sheet: &mut Sheet) -> Result<(), Stop> {
        if let Some(text) = self.printed(talk, at)? {
            self.learn_from_print(&text, talk, at, sheet);
        }
        Ok(())
    }

    /// What `print` showed: the command the program offers for it, else `print` and its
    /// usual aliases, tried in turn. `None` when each was refused (charged after the game).
    fn printed(&mut self, talk: &mut Talk, at: &mut Progress) -> Result<Option<String>, Stop> {
        let mut shown = self.turn_questions(talk, at, "print")?.map(|h| h.text);
        let menu = talk.last_heard();
        let tries: Vec<String> = match self.words.get("print") {
            _ if shown.is_some() => Vec::new(),
            Some(n) => vec![n.clone()],
            None if self.numbered_menu => Vec::new(),
            None => ["print", "p", "P", "PRINT"].map(String::from).to_vec(),
        };
        for word in &tries {
            let word = word.as_str();
            at.action = format!("print the board: sent `{word}`");
            self.probing = true;
            let h = talk.say(word)?;
            still_on(&h, "after `print`")?;
            self.probing = false;
            let refused = h.text.lines().next().is_some_and(read::refuses)
                || has_phrase(
                    &h.text,
                    &["unknown command", "not a command", "invalid option"],
                )
                || (grid_like(&h.text, &self.rules).is_none()
                    && own_fleet(&h.text, &self.rules).is_none()
                    && asked_again(&menu, &h.text));
            if !refused {
                if word != "print" && !self.numbered_menu {
                    self.words.insert("print", word.to_string());
                }
                shown = Some(h.text);
                break;
            }
        }
        let Some(text) = shown else {
            self.conventions
                .push("no `print`: the layout inferred from the program's answers".into());
            let actual = if tries.is_empty() {
                "its numbered menu has no entry for it".to_string()
            } else if tries.len() > 1 {
                "`print`, `p`, `P` and `PRINT` were each refused".to_string()
            } else {
                format!(
                    "{} refused",
                    tries
                        .iter()
                        .map(|t| format!("`{t}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            // Charged after the game: a game that never started judges nothing, `print`
            // included (issue 35 item 12).
            self.print_refused = Some(Refusal {
                refused: false,
                want: actual,
                at: at.snapshot(),
                tail: talk.tail(),
            });
            return Ok(None);
        };
        Ok(Some(text))
    }

    /// Learns the layout from what `print` showed, judging `fleet` and `print` (§3, §7).
    fn learn_from_print(&mut self, text: &str, talk: &Talk, at: &mut Progress, sheet: &mut Sheet) {
        self.noise.extend(noise_of(text));
        let shown = if matches!(layout(text, &self.rules), Ok(b) if self.place_belief(&b)) {
            sheet.pass(Rule::Fleet);
            true
        } else {
            // Each boat told apart, but not the handout's fleet: the program's own boats.
            own_fleet(text, &self.rules).is_some_and(|boats| {
                self.adopt_fleet(&boats, "`print` shows them", at, sheet, talk.tail())
            })
        };
        if shown {
            self.exact = true;
            if shares_symbol(text, &self.rules) {
                sheet.fail(
                        Rule::Print,
                        at,
                        "each boat drawn with a symbol of its own (§7: \"It is important that you differentiate the boats in some way\")",
                        "boats drawn with the same symbol (told apart here only because they do not touch)",
                        talk.tail(),
                    );
            } else {
                sheet.pass(Rule::Print);
            }
        } else {
            let cells = grid_like(text, &self.rules);
            let why = match &cells {
                Some(c) => format!(
                    "a board with {} boat cells but no boat told apart from another",
                    c.len()
                ),
                None => "no board of the right size".to_string(),
            };
            sheet.fail(
                Rule::Print,
                at,
                fleet_words(&self.rules).replace(
                    "(§7)",
                    "(§7: \"It is important that you differentiate the boats in some way\")",
                ),
                why,
                talk.tail(),
            );
            self.conventions.push(
                "`print` tells no boat apart: the boats inferred from the program's answers".into(),
            );
            if let Some(c) = cells
                && let Some(layout) = solve(&self.rules, &Knowledge::from_cells(&c)).first()
            {
                // As many boat cells as the fleet has, in boats of its lengths.
                sheet.pass(Rule::Fleet);
                self.place_belief(layout);
                self.boat_cells = Some(c);
            }
        }
        at.board = self.game.render(true);
    }

    /// Plays on against the boats the program really has (issue 35 item 10): `boats` were
    /// told apart as `source` says (`print` shows them, or its answers) and are not the handout's
    /// fleet. The fleet is charged once, to rule `fleet` (judged where the scenario's plan
    /// says so), and every other rule is judged against these boats: hits, sinkings,
    /// penalties, the drone's counts and the final counts. False, with nothing changed,
    /// when `boats` cannot be a fleet (boats that overlap, or none).
    fn adopt_fleet(
        &mut self,
        boats: &[Vec<Cell>],
        source: &str,
        at: &Progress,
        sheet: &mut Sheet,
        tail: String,
    ) -> bool {
        let mut lengths: Vec<u8> = boats.iter().map(|b| b.len() as u8).collect();
        lengths.sort_unstable_by(|a, b| b.cmp(a));
        let fleet = lengths
            .iter()
            .enumerate()
            .map(|(i, &n)| (format!("boat-{}", i + 1), n))
            .collect();
        let handout = self.rules.clone();
        self.rules = Arc::new(handout.with_board_and_fleet(handout.rows, handout.cols, fleet));
        if boats.is_empty() || !self.place_belief(boats) {
            self.rules = handout;
            return false;
        }
        let words = |ls: &[u8]| {
            format!(
                "{} boats of lengths {}",
                ls.len(),
                ls.iter().map(u8::to_string).collect::<Vec<_>>().join(", ")
            )
        };
        let mut want: Vec<u8> = handout.items.iter().map(|i| i.length).collect();
        want.sort_unstable_by(|a, b| b.cmp(a));
        sheet.fail(
            Rule::Fleet,
            at,
            format!(
                "the handout's fleet on the {}×{} board: {} (§3)",
                handout.rows,
                handout.cols,
                words(&want)
            ),
            format!("{}, as {source}", words(&lengths)),
            tail,
        );
        self.conventions.push(format!(
            "the program's own fleet ({}, as {source}): charged once to `fleet`, every other rule judged against those boats",
            words(&lengths)
        ));
        true
    }

    /// Places `boats` (cells each) in the belief game; false when they are not the fleet.
    fn place_belief(&mut self, boats: &[Vec<Cell>]) -> bool {
        let mut game = Game::new(self.rules.clone());
        let mut free: Vec<usize> = (0..self.rules.items.len()).collect();
        for cells in boats {
            let Some(k) = free
                .iter()
                .position(|&i| usize::from(self.rules.items[i].length) == cells.len())
            else {
                return false;
            };
            let item = free.remove(k);
            if game.place_cells(item, cells).is_err() {
                return false;
            }
        }
        if !free.is_empty() {
            return false;
        }
        self.game = game;
        true
    }

    fn moves(&mut self, plan: &Dialogue, talk: &mut Talk, at: &mut Progress) -> Result<(), Stop> {
        for (i, m) in plan.moves.iter().enumerate() {
            at.move_no = i + 1;
            at.line = m.line;
            at.move_name = m.name.clone();
            talk.mark(at);
            if self.over {
                break;
            }
            self.one(&m.name, talk, at)?;
            if let Some(stop) = self.stuck_in_setup() {
                return Err(stop);
            }
        }
        if !self.over {
            let _ = talk.close();
        }
        Ok(())
    }

    /// The game never started (issue 35 item 12): every line sent since the setup was
    /// answered with the question the setup ended on, an error word first or nothing else,
    /// and no outcome or board. Judged after two actions; a question asked again after a
    /// played round is no refusal, so one outcome or board is enough to say it started.
    fn stuck_in_setup(&mut self) -> Option<Stop> {
        let q = self.start_q.clone()?;
        if self.log.len() < 2 {
            return None;
        }
        // A turn prompt printed alone after each shot is a program that says nothing of its
        // shots (judged as such), unless it refuses each one.
        let turn_prompt = asks_shot(&q) || has_stem(&q, &["print", "drone", "missile", "turn"]);
        let stuck = self.log.iter().all(|d| {
            let lines: Vec<&str> = d
                .text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            self.outcome_said(&d.text).is_none()
                && grid_like(&d.text, &self.rules).is_none()
                && lines.last().map(|l| normalise(l)) == Some(q.clone())
                && ((lines.len() == 1 && !turn_prompt) || read::refuses(lines[0]))
        });
        if !stuck {
            return None;
        }
        let sent: Vec<String> = self
            .log
            .iter()
            .map(|d| d.action.rsplit('`').nth(1).unwrap_or("").to_string())
            .chain(["…".to_string()])
            .collect();
        let asked = read::last_line(&self.log[0].text).unwrap_or("").to_string();
        Some(self.never_started(&asked, &sent))
    }

    /// Whether the planner knows `c` holds a boat (from `print`, or the program's answers).
    fn believed_boat(&self, c: Cell) -> bool {
        match self.answered.get(&c).copied() {
            Some("hit" | "sunk") => true,
            Some("miss") => false,
            _ => self.game.occupant(c).is_some(),
        }
    }

    /// Cells not yet fired on, boats first where the belief knows them, else row by row.
    fn unfired(&self) -> Vec<Cell> {
        self.cells()
            .into_iter()
            .filter(|c| !self.fired.contains(c))
            .collect()
    }

    /// Plays the plan's move `name`: the cells it fires at chosen from what is known of the
    /// boats (exactly, from `print`, or not at all: then by sweeping).
    fn one(&mut self, name: &str, talk: &mut Talk, at: &mut Progress) -> Result<(), Stop> {
        let known = self.exact || self.boat_cells.is_some();
        match name {
            "print" => Ok(()),
            "hit-each-boat" if known => self.hit_each_boat(talk, at),
            "hit-each-boat" => self.sweep_until(talk, at, "hit", self.rules.items.len()),
            "sink-smallest" if known => self.sink_smallest(talk, at),
            "sink-smallest" => self.sweep_until(talk, at, "sunk", 1),
            "miss" => {
                let c = self.unfired().into_iter().find(|&c| !self.believed_boat(c));
                match c {
                    Some(c) if known => self.fire(talk, at, c.into(), "open water"),
                    _ => self.sweep_until(talk, at, "miss", 1),
                }
            }
            "repeat-hit" | "repeat-miss" => {
                let want_hit = name == "repeat-hit";
                let c = self
                    .cells()
                    .into_iter()
                    .find(|&c| self.answered.contains_key(&c) && self.believed_boat(c) == want_hit);
                match c {
                    Some(c) => self.fire(talk, at, c.into(), "a cell fired on before"),
                    None => Ok(()),
                }
            }
            "off-board" => self.fire(talk, at, RawCell { row: -1, col: 0 }, "off the board"),
            "off-board-far" => {
                let c = RawCell {
                    row: i64::from(self.rules.rows),
                    col: i64::from(self.rules.cols) - 1,
                };
                self.fire(talk, at, c, "off the board")
            }
            "drone-row" => self.drone(talk, at, Axis::Row, false),
            "drone-col" => self.drone(talk, at, Axis::Col, false),
            "drone-bad-input" => self.drone(talk, at, Axis::Row, true),
            "missile-corner" => self.missile(talk, at, false),
            "missile-off-board" => self.missile(talk, at, true),
            // A struck water cell first: a plain repeat of a miss, the same for every reading.
            "fire-missile-cell" => match self
                .missile_cells
                .iter()
                .copied()
                .find(|c| !self.believed_boat(*c))
                .or_else(|| self.missile_cells.first().copied())
            {
                Some(c) => self.fire(talk, at, c.into(), "a cell the missile struck"),
                None => Ok(()),
            },
            "sink-all" => self.sink_all(talk, at, known),
            other => Err(Stop::diverged(
                Lost::Plan,
                "a known move",
                format!("`{other}`"),
            )),
        }
    }

    /// A hit on each boat whose cells are known (`hit-each-boat`), leaving it afloat.
    fn hit_each_boat(&mut self, talk: &mut Talk, at: &mut Progress) -> Result<(), Stop> {
        for i in self.boats() {
            let left = self.unfired_of(i);
            if left.len() > 1 {
                self.fire(talk, at, left[0].into(), "a boat")?;
            }
        }
        Ok(())
    }

    /// The smallest boat afloat, sunk (`sink-smallest`) where the boats are known.
    fn sink_smallest(&mut self, talk: &mut Talk, at: &mut Progress) -> Result<(), Stop> {
        let Some(i) = self
            .boats()
            .into_iter()
            .filter(|&i| !self.unfired_of(i).is_empty())
            .min_by_key(|&i| (self.unfired_of(i).len(), i))
        else {
            return Ok(());
        };
        let start = self.log.len();
        for c in self.unfired_of(i) {
            self.fire(talk, at, c.into(), "the smallest boat afloat")?;
        }
        // Boats told from `print` by guess: the guess may split the cells otherwise
        // than the program does. Then the shown boat cells, until one sinks.
        let sunk = |me: &Self| {
            me.log[start..]
                .iter()
                .any(|d| me.outcome_said(&d.text) == Some("sunk"))
        };
        if !self.exact && !sunk(self) {
            let shown: Vec<Cell> = self
                .boat_cells
                .iter()
                .flatten()
                .copied()
                .filter(|c| !self.fired.contains(c))
                .collect();
            for c in shown {
                if self.over || sunk(self) {
                    break;
                }
                self.fire(talk, at, c.into(), "a boat cell `print` showed")?;
            }
        }
        Ok(())
    }

    /// Every boat sunk (`sink-all`): the known boats' cells first, then every cell not
    /// fired on, until the game is over.
    fn sink_all(&mut self, talk: &mut Talk, at: &mut Progress, known: bool) -> Result<(), Stop> {
        let order: Vec<Cell> = if known {
            self.boats()
                .into_iter()
                .flat_map(|i| self.unfired_of(i))
                .chain(self.unfired())
                .collect()
        } else {
            self.unfired()
        };
        for c in order {
            if self.over {
                break;
            }
            if !self.fired.contains(&c) {
                self.fire(talk, at, c.into(), "the last boats")?;
            }
        }
        Ok(())
    }

    /// Without a layout: fires at unfired cells row by row until the program has answered
    /// `word` `n` times (or the game ends).
    fn sweep_until(
        &mut self,
        talk: &mut Talk,
        at: &mut Progress,
        word: &str,
        n: usize,
    ) -> Result<(), Stop> {
        let mut seen = 0;
        for c in self.unfired() {
            if self.over || seen >= n {
                break;
            }
            self.fire(
                talk,
                at,
                c.into(),
                "the next cell not fired at yet (where the boats are is not known)",
            )?;
            let said = self.log.last().and_then(|d| self.outcome_said(&d.text));
            if said == Some(word) || (word == "hit" && said == Some("sunk")) {
                seen += 1;
            }
        }
        Ok(())
    }

    /// Fires at `c`, recording what the program printed.
    fn fire(
        &mut self,
        talk: &mut Talk,
        at: &mut Progress,
        c: RawCell,
        why: &str,
    ) -> Result<(), Stop> {
        let before = talk.last_heard();
        let heard = self.send_cell(
            talk,
            at,
            c,
            &format!("fire at ({}, {}), {why}", c.row, c.col),
        )?;
        let c = self.orient(c, &before, &heard.text);
        let said = self.outcome_said(&heard.text);
        if let Some(cell) = self.game.on_board(c)
            && self.fired.insert(cell)
        {
            // No outcome word is no evidence of the cell: the replay fails the shot, the
            // layout is not bent to fit it.
            self.answered.insert(cell, said.unwrap_or("none"));
        }
        self.record(Act::Fire(c), &heard, talk, at);
        if let Some(stop) = self.stuck_in_setup() {
            return Err(stop);
        }
        let sunk_all = if self.knows() {
            self.game.fire(None, c);
            at.board = self.game.render(true);
            self.game.end().is_some()
        } else {
            self.game_over_said(&heard.text)
        };
        if heard.ended || sunk_all {
            self.over = true;
            self.end(talk, heard)?;
            return Ok(());
        }
        Ok(())
    }

    /// Where shot `c` really landed, told the first time the program's board shows it: a
    /// program that takes the column first without its prompt saying so marks the mirrored
    /// cell, and is sent the column first from then on (decision `dialogue-column-first`).
    fn orient(&mut self, c: RawCell, before: &str, after: &str) -> RawCell {
        let mirror = RawCell {
            row: c.col,
            col: c.row,
        };
        match (self.game.on_board(c), self.game.on_board(mirror)) {
            (Some(meant), Some(other)) if self.mirrored(&[meant], &[other], before, after) => {
                mirror
            }
            _ => c,
        }
    }

    /// [`Boats::orient`] for a missile's square around `centre`.
    fn orient_square(&mut self, centre: RawCell, before: &str, after: &str) -> RawCell {
        let mirror = RawCell {
            row: centre.col,
            col: centre.row,
        };
        let (meant, other) = (self.square(centre), self.square(mirror));
        if self.mirrored(&meant, &other, before, after) {
            mirror
        } else {
            centre
        }
    }

    /// Whether the cells that changed between the program's last boards `before` and
    /// `after` a shot or a missile are the mirror of those `meant` (then the column first
    /// from now on), looked at until one such change has told it either way. A change
    /// outside both (a sunk boat redrawn) or inside both (the diagonal) tells nothing.
    fn mirrored(&mut self, meant: &[Cell], other: &[Cell], before: &str, after: &str) -> bool {
        if self.oriented || self.col_first || meant == other {
            return false;
        }
        let (rows, cols) = (usize::from(self.rules.rows), usize::from(self.rules.cols));
        let (Some(was), Some(is)) = (
            read::board_windows(before, rows, cols).pop(),
            read::board_windows(after, rows, cols).pop(),
        ) else {
            return false;
        };
        let changed: Vec<Cell> = (0..rows)
            .flat_map(|r| (0..cols).map(move |k| (r, k)))
            .filter(|&(r, k)| was[r][k] != is[r][k])
            .map(|(r, k)| Cell {
                row: r as u8,
                col: k as u8,
            })
            .collect();
        let within = |set: &[Cell]| changed.iter().all(|c| set.contains(c));
        if changed.is_empty() || within(meant) == within(other) {
            return false;
        }
        self.oriented = true;
        if within(meant) {
            return false;
        }
        self.col_first = true;
        self.conventions
            .push("the column first, as where the first shot landed on its board shows".into());
        true
    }

    /// Whether the program's answer says the game is over: it printed the final counts.
    fn game_over_said(&self, text: &str) -> bool {
        read::number_near(text, "turn").is_some()
            && read::number_near(text, "shot").is_some()
            && (has_stem(
                text,
                &["all", "game", "won", "win", "congrat", "over", "took"],
            ))
    }

    /// Keeps the end's text (the counts), with what end of input brings.
    fn end(&mut self, talk: &mut Talk, heard: Heard) -> Result<(), Stop> {
        let mut text = heard.text;
        if !heard.ended {
            // A program may ask something more (another game?), or loop: end of input.
            if let Ok(more) = talk.close() {
                text.push_str(&more.text);
            }
        }
        self.end_text = Some(text);
        Ok(())
    }

    fn record(&mut self, act: Act, heard: &Heard, talk: &Talk, at: &Progress) {
        self.log.push(Done {
            act,
            text: heard.text.clone(),
            tail: talk.tail(),
            move_no: at.move_no,
            line: at.line,
            move_name: at.move_name.clone(),
            action: at.action.clone(),
        });
    }

    /// Answers the yes/no questions a program asks before each action ("Use a drone this
    /// turn? (y/n)", issue 35 item 8): yes to the one naming `want` (`fire`, `drone`,
    /// `missile`, `print`), no to the others. What the program said after that yes, when
    /// one was given (the action is chosen); `None` at the next prompt otherwise.
    fn turn_questions(
        &mut self,
        talk: &mut Talk,
        at: &mut Progress,
        want: &str,
    ) -> Result<Option<Heard>, Stop> {
        for _ in 0..4 {
            let asked = talk.last_heard();
            let q = read::last_line(&asked).unwrap_or("").to_lowercase();
            if !is_yes_no(&q) {
                return Ok(None);
            }
            let yes = match want {
                "fire" => has_stem(&q, &["fire", "shoot", "cannon", "shot", "attack"]),
                w => has_stem(&q, &[w]),
            };
            let keys: [&str; 2] = if yes { ["y", "yes"] } else { ["n", "no"] };
            let mut h = None;
            for k in keys {
                at.action = format!(
                    "answer `{}`: sent `{k}`",
                    read::last_line(&asked).unwrap_or("")
                );
                let heard = talk.say(k)?;
                still_on(&heard, &format!("after `{k}`"))?;
                let refused = asked_again(&asked, &heard.text);
                h = Some(heard);
                if !refused {
                    break;
                }
            }
            let note = "a yes/no before each action: yes to the action wanted, no to the others";
            if !self.conventions.iter().any(|c| c == note) {
                self.conventions.push(note.into());
            }
            if yes {
                return Ok(h);
            }
        }
        Ok(None)
    }

    /// Sends a shot: the command word the program wants (if any), then the cell.
    fn send_cell(
        &mut self,
        talk: &mut Talk,
        at: &mut Progress,
        c: RawCell,
        what: &str,
    ) -> Result<Heard, Stop> {
        self.turn_questions(talk, at, "fire")?;
        // A menu that lists the commands (`fire, drone, missile, print, quit`): its word.
        let q = read::last_line(&talk.last_heard())
            .unwrap_or("")
            .to_lowercase();
        let menu = has_stem(&q, &["drone", "missile", "print", "quit"]);
        if self.fire_word.is_none() && menu && asks_one(&q).is_none() {
            let ws = words(&q);
            if let Some(w) = ["fire", "shoot"]
                .iter()
                .find(|w| ws.iter().any(|x| x == *w))
            {
                self.fire_word = Some(w.to_string());
                self.conventions.push(format!("a shot starts with `{w}`"));
            }
        }
        if let Some(w) = self.fire_word.clone() {
            at.action = format!("{what}: sent `{w}`");
            let h = talk.say(&w)?;
            if h.ended {
                return Ok(h);
            }
            // A word read off the prompt ("type row and col to fire") that the program
            // refuses is no command of its own: the cell alone from now on.
            let first = h.text.lines().map(str::trim).find(|l| !l.is_empty());
            if first.is_some_and(read::refuses) && !self.numbered_menu {
                self.fire_word = None;
                self.conventions
                    .retain(|c| c != &format!("a shot starts with `{w}`"));
            }
        }
        self.coords(talk, at, c, what, true)
    }

    /// Sends a cell the way the program takes it: `x y` on one line; the row and the
    /// column apart, in the order the prompts ask; for a `shot`, after a command word when
    /// a bare cell is refused. The program's answer follows.
    fn coords(
        &mut self,
        talk: &mut Talk,
        at: &mut Progress,
        c: RawCell,
        what: &str,
        shot: bool,
    ) -> Result<Heard, Stop> {
        if self.entry == Entry::Apart || asks_one(&talk.last_heard()).is_some() {
            self.entry = Entry::Apart;
            return self.apart(talk, at, c, what);
        }
        // "column row" on one line, as the prompt says (issue 35 item 8).
        let col_first = self.col_first || column_first(&talk.last_heard());
        if col_first && !self.col_first {
            let note = "the column first on one line, as the prompt says";
            if !self.conventions.iter().any(|n| n == note) {
                self.conventions.push(note.into());
            }
        }
        let line = if col_first {
            format!("{} {}", c.col, c.row)
        } else {
            format!("{} {}", c.row, c.col)
        };
        at.action = format!("{what}: sent `{line}`");
        let asked = talk.last_heard();
        let h = talk.say(&line)?;
        if h.ended || self.outcome_said(&h.text).is_some() {
            return Ok(h);
        }
        if asks_action(&h.text) {
            // The cell first, then what to do there: a shot is the cannon's word; a
            // missile's caller sends its own.
            if !self.action_after_cell {
                self.action_after_cell = true;
                self.conventions
                    .push("the cell first, then the action asked for it".into());
            }
            if !shot {
                return Ok(h);
            }
            return self.action_word(talk, at, what, "fire", &h.text);
        }
        if asks_other(&h.text) {
            // It took the first number and asks for the other.
            self.entry = Entry::Apart;
            self.conventions
                .push("the row and the column asked apart".into());
            return self.answer_apart(talk, at, c, what, h, !col_first);
        }
        let refused = h.text.lines().any(read::refuses) || asked_again(&asked, &h.text);
        if !shot {
            // A missile prints nothing prescribed: its answer, refused or not, is judged by
            // the caller.
            return Ok(h);
        }
        if !refused {
            // It took x and asks for y without a word.
            let other = if col_first { c.row } else { c.col };
            at.action = format!("{what}: sent `{line}`, then `{other}` when asked for more");
            return talk.say(&other.to_string());
        }
        // Refused: a command word first (`fire`, `f`), or the numbers apart.
        if shot && self.fire_word.is_none() {
            for w in ["fire", "f", "F", "shoot", "FIRE"] {
                at.action = format!("{what}: sent `{w}`");
                let asked = talk.last_heard();
                let h = talk.say(w)?;
                let refused = h.text.lines().any(read::refuses) || asked_again(&asked, &h.text);
                if !refused && !h.ended {
                    self.fire_word = Some(w.to_string());
                    self.conventions.push(format!("a shot starts with `{w}`"));
                    if asks_one(&h.text).is_some() {
                        self.entry = Entry::Apart;
                        return self.apart(talk, at, c, what);
                    }
                    at.action = format!("{what}: sent `{w}`, `{line}`");
                    let h2 = talk.say(&line)?;
                    if h2.ended || self.outcome_said(&h2.text).is_some() || !asks_other(&h2.text) {
                        return Ok(h2);
                    }
                    self.entry = Entry::Apart;
                    return self.answer_apart(talk, at, c, what, h2, true);
                }
            }
        }
        self.entry = Entry::Apart;
        self.conventions
            .push("the row and the column on lines of their own".into());
        self.apart(talk, at, c, what)
    }

    /// Answers a question asking what to do at the cell just sent with the word for
    /// `name` (`fire` or `missile`): the key the prompt offers for it (`(f/m)`, `[F]ire`),
    /// else the word itself and its first letter, until one is taken.
    fn action_word(
        &mut self,
        talk: &mut Talk,
        at: &mut Progress,
        what: &str,
        name: &'static str,
        asked: &str,
    ) -> Result<Heard, Stop> {
        let stems: &[&str] = if name == "fire" {
            &["fire", "cannon", "shoot", "shot"]
        } else {
            &["missile", "bomb"]
        };
        let mut tries: Vec<String> = self.words.get(name).cloned().into_iter().collect();
        tries.extend(action_keys(asked, stems));
        tries.extend(
            [name, &name[..1]]
                .iter()
                .chain(stems.iter())
                .map(|w| w.to_string()),
        );
        tries.dedup();
        let mut last = None;
        let mut seen = BTreeSet::new();
        for w in tries.into_iter().filter(|w| seen.insert(w.clone())) {
            at.action = format!("{what}: sent `{w}` when asked what to do there");
            let before = talk.last_heard();
            let h = talk.say(&w)?;
            let refused = h.text.lines().next().is_some_and(read::refuses)
                || (asked_again(&before, &h.text) && !used_up_said(&h.text));
            if !refused || h.ended {
                self.words.insert(name, w);
                return Ok(h);
            }
            last = Some(h);
        }
        Ok(last.unwrap_or(Heard {
            text: String::new(),
            ended: false,
        }))
    }

    /// The row and the column apart, each as its prompt asks (row first when it does not
    /// say).
    fn apart(
        &mut self,
        talk: &mut Talk,
        at: &mut Progress,
        c: RawCell,
        what: &str,
    ) -> Result<Heard, Stop> {
        let first = match asks_one(&talk.last_heard()) {
            Some(Axis::Col) => c.col,
            _ => c.row,
        };
        at.action = format!("{what}: sent `{first}`");
        let h = talk.say(&first.to_string())?;
        if h.ended || self.outcome_said(&h.text).is_some() {
            return Ok(h);
        }
        self.answer_apart(talk, at, c, what, h, first == c.row)
    }

    /// After one number: sends the other one.
    fn answer_apart(
        &mut self,
        talk: &mut Talk,
        at: &mut Progress,
        c: RawCell,
        what: &str,
        h: Heard,
        row_sent: bool,
    ) -> Result<Heard, Stop> {
        let second = match asks_one(&h.text) {
            Some(Axis::Row) => c.row,
            Some(Axis::Col) => c.col,
            None if row_sent => c.col,
            None => c.row,
        };
        if asks_one(&h.text) == Some(Axis::Row)
            && !self.conventions.iter().any(|s| s.contains("column first"))
        {
            self.conventions.push("the column asked first".into());
        }
        at.action = format!("{what}: sent the numbers apart, then `{second}`");
        talk.say(&second.to_string())
    }

    /// Uses the drone on a row or column; with `bad_input`, first a wrong row/column
    /// answer and an off-board index, each of which must be refused.
    fn drone(
        &mut self,
        talk: &mut Talk,
        at: &mut Progress,
        axis: Axis,
        bad_input: bool,
    ) -> Result<(), Stop> {
        let index = self.drone_index(axis);
        let (letter, word) = match axis {
            Axis::Row => ("r", "row"),
            Axis::Col => ("c", "column"),
        };
        let heard = self.command(talk, at, "drone", &["drone", "d", "D", "DRONE"])?;
        if !has_stem(&heard.text, &["row", "col", "r", "c"]) || used_up_said(&heard.text) {
            // Used up (judged against the reference after the game).
            self.record(Act::Drone(axis, index), &heard, talk, at);
            if self.knows() {
                self.game.drone(axis, index);
            }
            return Ok(());
        }
        let mut question = heard.text.clone();
        if bad_input {
            at.action = "use the drone: sent `drone`, then `x` for row or column".to_string();
            let h = talk.say("x")?;
            self.refusal(&question, &h, at, talk, "`x` refused as row or column and asked again (§5 Drone: \"alert them until they type in a valid response\")");
            question = h.text.clone();
        }
        at.action = format!("use the drone on {word} {index}: sent `drone`, `{letter}`");
        let mut h = talk.say(letter)?;
        if asked_again(&question, &h.text) {
            at.action = format!(
                "use the drone on {word} {index}: sent `drone`, `{letter}` (refused), `{word}`"
            );
            question = h.text.clone();
            h = talk.say(word)?;
            // The short word a prompt offers ("(row/col)").
            if asked_again(&question, &h.text)
                && axis == Axis::Col
                && words(&question).iter().any(|w| w == "col")
            {
                at.action = format!(
                    "use the drone on {word} {index}: sent `drone`, `{letter}`, `{word}` (refused), `col`"
                );
                question = h.text.clone();
                h = talk.say("col")?;
            }
            if asked_again(&question, &h.text) {
                return Err(Stop::diverged(
                    Lost::Drone,
                    format!("`{letter}` or `{word}` chooses a {word} (§5 Drone)"),
                    "both were refused",
                ));
            }
        }
        still_on(&h, "while the drone asked for a row or column")?;
        if bad_input {
            let off = i64::from(self.rules.rows) + 3;
            at.action = format!("use the drone on {word} {index}: sent an off-board index `{off}`");
            let asked = h.text.clone();
            let h2 = talk.say(&off.to_string())?;
            self.refusal(&asked, &h2, at, talk, &format!("{word} {off} refused and asked again (§5 Drone: \"If the user types in a number that is out of boundaries, the program should alert them\")"));
        }
        at.action = format!("use the drone on {word} {index}: sent `drone`, `{letter}`, `{index}`");
        let h = talk.say(&index.to_string())?;
        still_on(&h, "after the drone's scan")?;
        self.record(Act::Drone(axis, index), &h, talk, at);
        if self.knows() {
            self.game.drone(axis, index);
        }
        Ok(())
    }

    /// Whether the belief game follows the real one (the boat cells are known).
    fn knows(&self) -> bool {
        self.exact || self.boat_cells.is_some()
    }

    /// Notes whether `h` refused the bad answer to `question` (an error word on its first
    /// line, or the question asked again); judged after the game, whatever the layout.
    fn refusal(&mut self, question: &str, h: &Heard, at: &Progress, talk: &Talk, want: &str) {
        let first = h.text.lines().find(|l| !l.trim().is_empty());
        let refused =
            !h.ended && (first.is_some_and(read::refuses) || asked_again(question, &h.text));
        self.refusals.push(Refusal {
            refused,
            want: want.to_string(),
            at: at.snapshot(),
            tail: talk.tail(),
        });
    }

    /// Sends a command word, or the first alias the program takes.
    fn command(
        &mut self,
        talk: &mut Talk,
        at: &mut Progress,
        name: &'static str,
        aliases: &[&str],
    ) -> Result<Heard, Stop> {
        if let Some(h) = self.turn_questions(talk, at, name)? {
            return Ok(h);
        }
        let known = self.words.get(name).cloned();
        // Never a word where a number is asked: a numbered menu gets its number alone.
        let aliases: &[&str] = if self.numbered_menu { &[] } else { aliases };
        let tries: Vec<String> = known
            .into_iter()
            .chain(aliases.iter().map(|s| s.to_string()))
            .collect();
        let mut last = None;
        self.command_refused = false;
        for w in &tries {
            at.action = format!("use the {name}: sent `{w}`");
            let asked = talk.last_heard();
            let h = talk.say(w)?;
            still_on(&h, &format!("after `{w}`"))?;
            let refused = h.text.lines().next().is_some_and(read::refuses)
                || has_phrase(
                    &h.text,
                    &["unknown command", "invalid option", "not a command"],
                )
                || (asked_again(&asked, &h.text) && !used_up_said(&h.text));
            if !refused {
                if w != name {
                    self.words.insert(name, w.clone());
                    if !self
                        .conventions
                        .iter()
                        .any(|c| c.contains(&format!("`{w}`")))
                    {
                        self.conventions.push(format!("the {name} as `{w}`"));
                    }
                }
                return Ok(h);
            }
            last = Some(h);
        }
        self.command_refused = last.is_some();
        Ok(last.unwrap_or(Heard {
            text: String::new(),
            ended: false,
        }))
    }

    /// Launches a missile at a corner; with `off_board`, first at an off-board centre,
    /// which must be refused.
    fn missile(&mut self, talk: &mut Talk, at: &mut Progress, off_board: bool) -> Result<(), Stop> {
        let (r, c) = (
            i64::from(self.rules.rows) - 1,
            i64::from(self.rules.cols) - 1,
        );
        let corners = [(0, 0), (0, c), (r, 0), (r, c)];
        let centre = corners
            .iter()
            .map(|&(row, col)| RawCell { row, col })
            .max_by_key(|&centre| {
                let square = self.square(centre);
                let n = square
                    .iter()
                    .filter(|c| self.believed_boat(**c) && !self.fired.contains(*c))
                    .count();
                let water = square.iter().any(|c| !self.believed_boat(*c));
                (water, n, std::cmp::Reverse((centre.row, centre.col)))
            })
            .unwrap_or(RawCell { row: 0, col: 0 });
        let before = talk.last_heard();
        if self.action_after_cell {
            return self.missile_after_cell(talk, at, centre, off_board, &before);
        }
        let heard = self.command(talk, at, "missile", &["missile", "m", "M", "MISSILE"])?;
        if self.command_refused {
            // No word for it where a command is asked: perhaps the cell comes first and
            // the action is asked after it (the cells are sent either way).
            return self.missile_after_cell(talk, at, centre, off_board, &before);
        }
        if used_up_said(&heard.text) {
            self.record(Act::Missile(centre), &heard, talk, at);
            if self.knows() {
                self.game.missile(centre);
            }
            return Ok(());
        }
        if off_board {
            let off = RawCell {
                row: -1,
                col: i64::from(self.rules.cols) + 2,
            };
            let asked = talk.last_heard();
            let h = self.coords(
                talk,
                at,
                off,
                "launch the missile at an off-board centre",
                false,
            )?;
            self.refusal(&asked, &h, at, talk, "an off-board centre refused and asked again (§5 Missile: \"continue to ask the user to type in valid coordinates\")");
        }
        let h = self.coords(
            talk,
            at,
            centre,
            &format!("launch the missile at ({}, {})", centre.row, centre.col),
            false,
        )?;
        let centre = self.orient_square(centre, &before, &h.text);
        self.record(Act::Missile(centre), &h, talk, at);
        self.missile_struck(talk, centre, h)
    }

    /// After a missile at `centre` the program answered `h` to: its square is fired on, the
    /// belief game plays it, and the game's end is kept when it came.
    fn missile_struck(&mut self, talk: &mut Talk, centre: RawCell, h: Heard) -> Result<(), Stop> {
        let answer = self.knows().then(|| self.game.missile(centre));
        self.missile_cells = self.square(centre);
        for c in &self.missile_cells {
            self.fired.insert(*c);
        }
        let over = answer.is_some() && self.game.end().is_some();
        if h.ended || over || self.game_over_said(&h.text) {
            self.over = true;
            return self.end(talk, h);
        }
        Ok(())
    }

    /// [`Boats::missile`] for a program that asks the cell first and the action after it:
    /// the off-board centre must be refused as a cell; the centre's answer is the one to
    /// the missile's word.
    fn missile_after_cell(
        &mut self,
        talk: &mut Talk,
        at: &mut Progress,
        centre: RawCell,
        off_board: bool,
        before: &str,
    ) -> Result<(), Stop> {
        if off_board {
            let off = RawCell {
                row: -1,
                col: i64::from(self.rules.cols) + 2,
            };
            let asked = talk.last_heard();
            let what = "launch the missile at an off-board centre";
            let mut h = self.coords(talk, at, off, what, false)?;
            if asks_action(&h.text) {
                h = self.action_word(talk, at, what, "missile", &h.text.clone())?;
            }
            self.refusal(&asked, &h, at, talk, "an off-board centre refused and asked again (§5 Missile: \"continue to ask the user to type in valid coordinates\")");
        }
        let what = format!("launch the missile at ({}, {})", centre.row, centre.col);
        let asked = self.coords(talk, at, centre, &what, false)?;
        let h = if asks_action(&asked.text) {
            self.action_word(talk, at, &what, "missile", &asked.text)?
        } else {
            asked
        };
        let centre = self.orient_square(centre, before, &h.text);
        self.record(Act::Missile(centre), &h, talk, at);
        if used_up_said(&h.text) {
            if self.knows() {
                self.game.missile(centre);
            }
            return Ok(());
        }
        self.missile_struck(talk, centre, h)
    }

    /// The on-board cells of the 3×3 square around `centre`.
    fn square(&self, centre: RawCell) -> Vec<Cell> {
        let mut out = Vec::new();
        for dr in -1..=1 {
            for dc in -1..=1 {
                if let Some(c) = self.game.on_board(RawCell {
                    row: centre.row + dr,
                    col: centre.col + dc,
                }) {
                    out.push(c);
                }
            }
        }
        out
    }

    /// Judges everything recorded against the reference, on the layout `print` showed or,
    /// without one, on the layout of the handout's fleet that best fits the program's own
    /// answers.
    fn judge(&mut self, at: &mut Progress, sheet: &mut Sheet) -> Result<(), Stop> {
        for r in &self.refusals {
            if r.refused {
                sheet.pass(Rule::PowerBadInput);
            } else {
                sheet.fail(
                    Rule::PowerBadInput,
                    &r.at,
                    r.want.clone(),
                    "no message saying it was invalid",
                    r.tail.clone(),
                );
            }
        }
        let layouts: Vec<Vec<Vec<Cell>>> = if self.exact {
            vec![self.layout_of(&self.game)]
        } else {
            let knowledge = match &self.boat_cells {
                Some(c) => Knowledge::from_cells(c),
                None => Knowledge::from_answers(&self.answered),
            };
            // Held to the sinkings first; a program that prints them wrong (or never) fits
            // no such layout, and is judged on the layouts that fit its hits and misses.
            let strict = solve(
                &self.rules,
                &knowledge.clone().with_sinkings(self.first_struck()),
            );
            let layouts = if strict.is_empty() {
                solve(&self.rules, &knowledge)
            } else {
                strict
            };
            // A program that said its game was won has no boat left afloat: every cell not
            // fired on is water in its game, and its boats are the cells it answered hit or
            // sunk (issue 35 item 10). They fit the handout's fleet, or they are its own.
            let won = self
                .end_text
                .as_deref()
                .is_some_and(|t| self.game_over_said(t));
            if self.boat_cells.is_none() && won {
                let mut whole = knowledge;
                whole.water.extend(self.unfired());
                if !solve(&self.rules, &whole).is_empty() {
                    sheet.pass(Rule::Fleet);
                } else {
                    let tail = self.log.last().map(|d| d.tail.clone()).unwrap_or_default();
                    let sinkings = whole.with_sinkings(self.first_struck());
                    if let Some(boats) = own_fleet_from_answers(&self.rules, &sinkings)
                        && self.adopt_fleet(
                            &boats,
                            "its hits and sinkings tell them apart",
                            at,
                            sheet,
                            tail,
                        )
                    {
                        self.exact = true;
                        self.inferred_fleet = true;
                        return self.judge_layouts(vec![boats], at, sheet);
                    }
                }
            }
            layouts
        };
        self.judge_layouts(layouts, at, sheet)
    }

    /// Judges the record on the best of `layouts` (the one with the fewest failures, then the
    /// most passes), or says that none fits.
    fn judge_layouts(
        &mut self,
        layouts: Vec<Vec<Vec<Cell>>>,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) -> Result<(), Stop> {
        if layouts.is_empty() {
            for d in self.log.iter().take(1) {
                at.move_no = d.move_no;
                at.line = d.line;
                at.move_name = d.move_name.clone();
            }
            return Err(Stop::diverged(
                Lost::Layout,
                format!(
                    "answers that fit some layout of the handout's fleet ({})",
                    fleet_words(&self.rules)
                ),
                "the hits, misses and sinkings the program printed fit no layout of that fleet",
            ));
        }
        let mut best: Option<((usize, std::cmp::Reverse<usize>), Sheet, Progress)> = None;
        for layout in layouts.iter().take(64) {
            let mut s = sheet.clone();
            let mut p = Progress {
                note: if self.inferred_fleet {
                    Some("the board is the program's own boats, told apart by its hits and sinkings (no `print` showed them)".to_string())
                } else {
                    (!self.exact).then(|| {
                        "the board is the layout of the handout's fleet that best fits the program's own answers (`print` told no boat apart)".to_string()
                    })
                },
                ..Progress::default()
            };
            self.replay(layout, &mut p, &mut s);
            let rank = (s.failures(), std::cmp::Reverse(s.passes()));
            if best.as_ref().is_none_or(|(r, ..)| rank < *r) {
                best = Some((rank, s, p));
            }
        }
        if let Some((_, s, p)) = best {
            *sheet = s;
            at.board = p.board;
        }
        Ok(())
    }

    /// Each cell fired on: the index of the act that first struck it, and the program's
    /// word when that was a cannon shot.
    fn first_struck(&self) -> BTreeMap<Cell, (usize, Option<&'static str>)> {
        let mut first = BTreeMap::new();
        for (t, d) in self.log.iter().enumerate() {
            match d.act {
                Act::Fire(c) => {
                    if let Some(cell) = self.game.on_board(c) {
                        first.entry(cell).or_insert((t, self.outcome_said(&d.text)));
                    }
                }
                Act::Missile(centre) if !used_up_said(&d.text) => {
                    for cell in self.square(centre) {
                        first.entry(cell).or_insert((t, None));
                    }
                }
                _ => {}
            }
        }
        first
    }

    /// The cells of each boat of `game`, in fleet order.
    fn layout_of(&self, game: &Game) -> Vec<Vec<Cell>> {
        self.boats()
            .iter()
            .map(|&i| game.item_cells(i).to_vec())
            .collect()
    }

    /// Replays the record on `layout`, marking each rule.
    fn replay(&self, layout: &[Vec<Cell>], at: &mut Progress, sheet: &mut Sheet) {
        let mut game = Game::new(self.rules.clone());
        let mut free: Vec<usize> = self.boats();
        for cells in layout {
            if let Some(k) = free
                .iter()
                .position(|&i| usize::from(self.rules.items[i].length) == cells.len())
            {
                let _ = game.place_cells(free.remove(k), cells);
            }
        }
        for d in &self.log {
            at.move_no = d.move_no;
            at.line = d.line;
            at.move_name = d.move_name.clone();
            at.action = d.action.clone();
            at.output = None;
            match d.act {
                Act::Fire(c) => self.replay_fire(d, c, &mut game, at, sheet),
                Act::Drone(axis, index) => {
                    self.replay_drone(d, (axis, index), &mut game, at, sheet)
                }
                Act::Missile(centre) => self.replay_missile(d, centre, &mut game, at, sheet),
            }
        }
        self.judge_counts(&game, at, sheet);
    }

    /// The end of a replayed game (§4): the turns and the cannon shots the program
    /// reported, against the reference's.
    fn judge_counts(&self, game: &Game, at: &mut Progress, sheet: &mut Sheet) {
        if game.end().is_some() {
            let text = self.end_text.clone().unwrap_or_default();
            let tail = self.log.last().map(|d| d.tail.clone()).unwrap_or_default();
            at.action = "the end of the game: the counts".into();
            at.output = Some(read::tail(&text, 20));
            let turns = game.counter(Counter::Turns);
            let shots = game.counter(Counter::Shots);
            let said_turns = read::number_near(&text, "turn");
            let said_shots = read::number_near(&text, "shot");
            if said_turns == Some(i64::from(turns)) {
                sheet.pass(Rule::Turns);
            } else {
                sheet.fail(
                    Rule::Turns,
                    at,
                    format!(
                        "{turns} turns at the end (§4; each penalty skips a turn, each power uses one)"
                    ),
                    said_turns.map_or("no number next to the word \"turns\"".to_string(), |n| {
                        n.to_string()
                    }),
                    tail.clone(),
                );
            }
            if said_shots == Some(i64::from(shots)) {
                sheet.pass(Rule::Shots);
            } else {
                sheet.fail(
                    Rule::Shots,
                    at,
                    format!("{shots} cannon shots at the end (§4; powers are not shots)"),
                    said_shots.map_or("no number next to the word \"shots\"".to_string(), |n| {
                        n.to_string()
                    }),
                    tail,
                );
            }
        } else if self.over {
            sheet.unobserved(
                Rule::Turns,
                "the program ended its game while boats of the real board were still afloat, so its final counts could not be compared",
            );
            sheet.unobserved(
                Rule::Shots,
                "the program ended its game while boats of the real board were still afloat, so its final counts could not be compared",
            );
        }
    }

    /// Judges cannon shot `d` at `c` (§4): miss, hit, sunk or penalty as the reference
    /// answers it.
    fn replay_fire(
        &self,
        d: &Done,
        c: RawCell,
        game: &mut Game,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) {
        let answer = game.fire(None, c);
        at.board = game.render(true);
        let expected = answer.outcome.word();
        // The §4 rule the shot tests; a game-over answer tests none.
        let rule = match answer.outcome {
            Outcome::Penalty if game.on_board(c).is_none() => Rule::PenaltyOffBoard,
            Outcome::Penalty => Rule::PenaltyOnRepeat,
            Outcome::Miss => Rule::Miss,
            Outcome::Hit => Rule::Hit,
            Outcome::Sunk => Rule::Sunk,
            _ => return,
        };
        let said = self.outcome_said(&d.text);
        if said == Some(expected) {
            sheet.pass(rule);
        } else {
            sheet.fail(
                rule,
                at,
                format!("a line saying `{expected}` (§4)"),
                match said {
                    Some(w) => format!("`{w}`"),
                    None => "none of miss, hit, sunk, penalty".to_string(),
                },
                d.tail.clone(),
            );
        }
    }

    /// Judges drone `d` over row or column `index` (§5 Drone): its count, or the used-up
    /// message.
    fn replay_drone(
        &self,
        d: &Done,
        (axis, index): (Axis, i64),
        game: &mut Game,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) {
        let answer = game.drone(axis, index);
        at.board = game.render(true);
        if answer.outcome == Outcome::UsedUp {
            self.judge_used_up(&d.text, "drone", at, sheet, &d.tail);
            return;
        }
        let word = match axis {
            Axis::Row => "row",
            Axis::Col => "column",
        };
        let expected = answer.count.unwrap_or(0);
        let said = self.count_said(&d.text, index);
        if said == Some(i64::from(expected)) {
            sheet.pass(Rule::DroneCount);
        } else if !self.knows() && said.is_some() {
            // No board ever showed the boat cells: the layout is one of many that
            // fit the program's hits and misses, and a count that differs from it
            // may be the truth of another.
            sheet.unobserved(
                Rule::DroneCount,
                "no `print` showed the boat cells, and the program's hits and misses do not fix how many lie in the row or column scanned",
            );
        } else {
            sheet.fail(
                Rule::DroneCount,
                at,
                format!(
                    "the drone finds {expected} boat cells in {word} {index}, hit ones included (§5 Drone)"
                ),
                said.map_or(
                    "no count found (expected a line with the word drone or scan and the number)"
                        .to_string(),
                    |n| n.to_string(),
                ),
                d.tail.clone(),
            );
        }
    }

    /// Judges missile `d` at `centre` (§5 Missile): struck, not refused, or the used-up
    /// message.
    fn replay_missile(
        &self,
        d: &Done,
        centre: RawCell,
        game: &mut Game,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) {
        let answer = game.missile(centre);
        at.board = game.render(true);
        if answer.outcome == Outcome::UsedUp {
            self.judge_used_up(&d.text, "missile", at, sheet, &d.tail);
            return;
        }
        let first_line = d.text.lines().find(|l| !l.trim().is_empty());
        if first_line.is_some_and(read::refuses) || self.outcome_said(&d.text) == Some("penalty") {
            sheet.fail(
                Rule::Missile,
                at,
                format!(
                    "a missile at ({}, {}) strikes the 3×3 square clipped to the board (§5 Missile)",
                    centre.row, centre.col
                ),
                "it was refused",
                d.tail.clone(),
            );
        } else {
            sheet.pass(Rule::Missile);
        }
    }

    fn judge_used_up(&self, text: &str, power: &str, at: &Progress, sheet: &mut Sheet, tail: &str) {
        if used_up_said(text) {
            sheet.pass(Rule::PowerUsedUp);
        } else {
            sheet.fail(
                Rule::PowerUsedUp,
                at,
                format!(
                    "a message that the {power} has been used as many times as it can (§5 Powers), and no turn used"
                ),
                "no such message (was the power used again?)",
                tail.to_string(),
            );
        }
    }

    fn drone_index(&self, axis: Axis) -> i64 {
        let limit = match axis {
            Axis::Row => self.rules.rows,
            Axis::Col => self.rules.cols,
        };
        let line = |k: u8| -> Vec<Cell> {
            self.cells()
                .into_iter()
                .filter(|c| match axis {
                    Axis::Row => c.row == k,
                    Axis::Col => c.col == k,
                })
                .collect()
        };
        let score = |k: u8| {
            let cells = line(k);
            let boats = cells
                .iter()
                .filter(|c| self.game.occupant(**c).is_some())
                .count();
            let hit = cells
                .iter()
                .filter(|c| self.game.occupant(**c).is_some() && self.game.was_targeted(**c))
                .count();
            let distinct = boats != usize::from(k);
            (hit > 0, boats > hit, distinct, boats > 0)
        };
        (0..limit)
            .max_by_key(|&k| (score(k), std::cmp::Reverse(k)))
            .map_or(0, i64::from)
    }

    fn outcome_said(&self, text: &str) -> Option<&'static str> {
        let kept: Vec<&str> = text
            .lines()
            .filter(|l| !self.noise.contains(&normalise(l)) && !read::is_status_line(l))
            .collect();
        let ws = words(&kept.join("\n"));
        let any = |set: &[&str]| ws.iter().any(|w| set.contains(&w.as_str()));
        if any(&[
            "penalty",
            "penalties",
            "penalized",
            "penalised",
            "penalize",
            "penalise",
        ]) {
            return Some("penalty");
        }
        if any(&["sunk", "sank"]) {
            return Some("sunk");
        }
        ws.iter().find_map(|w| match w.as_str() {
            "hit" | "hits" => Some("hit"),
            "miss" | "missed" | "misses" => Some("miss"),
            _ => None,
        })
    }

    fn count_said(&self, text: &str, index: i64) -> Option<i64> {
        let stems = [
            "drone", "scan", "found", "detect", "count", "target", "boat", "ship", "spot", "cell",
            "part", "square", "there",
        ];
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !self.noise.contains(&normalise(l)) && has_stem(l, &stems))
            .collect();
        lines
            .iter()
            .find_map(|line| {
                let mut numbers = integers(line);
                // "Scanning row 3..." names the row, not the count: its index is left out.
                if has_stem(line, &["row", "col"])
                    && let Some(k) = numbers.iter().position(|&n| n == index)
                {
                    numbers.remove(k);
                }
                numbers.first().copied()
            })
            // Else the count is the index itself: "Drone report: 3 boat spots in that row."
            // after row 3 (the number left out above was the only one).
            .or_else(|| {
                lines
                    .iter()
                    .find_map(|line| integers(line).first().copied())
            })
    }

    /// Every cell of the board, row by row.
    fn cells(&self) -> Vec<Cell> {
        let mut out = Vec::new();
        for row in 0..self.rules.rows {
            for col in 0..self.rules.cols {
                out.push(Cell { row, col });
            }
        }
        out
    }

    /// The boats (item indices), in fleet order.
    fn boats(&self) -> Vec<usize> {
        (0..self.rules.items.len()).collect()
    }

    /// A boat's cells not yet fired on, as the belief game places it.
    fn unfired_of(&self, i: usize) -> Vec<Cell> {
        self.game
            .item_cells(i)
            .iter()
            .copied()
            .filter(|c| !self.fired.contains(c))
            .collect()
    }
}

/// What is known of each cell: a boat, water, or unknown.
#[derive(Clone)]
struct Knowledge {
    boat: BTreeSet<Cell>,
    water: BTreeSet<Cell>,
    /// Each cell fired on: when it was first struck (the act's index in the record), and
    /// the program's word when that was a cannon shot (`None` for a missile, or no word).
    /// With it, a layout must fit the sinkings: a boat is `sunk` on its last cell struck,
    /// and only there.
    first: BTreeMap<Cell, (usize, Option<&'static str>)>,
}

impl Knowledge {
    /// From a board that showed which cells hold boats (and so, which do not).
    fn from_cells(cells: &BTreeSet<Cell>) -> Knowledge {
        Knowledge {
            boat: cells.clone(),
            water: BTreeSet::new(),
            first: BTreeMap::new(),
        }
    }

    /// The same, held to the sinkings the program printed (see `first`).
    fn with_sinkings(mut self, first: BTreeMap<Cell, (usize, Option<&'static str>)>) -> Self {
        self.first = first;
        self
    }

    /// Whether a boat on `cells` fits the sinkings: a cannon shot answered `sunk` on its last
    /// cell struck, `hit` (not `sunk`) on the others.
    fn sinks_fit(&self, cells: &[Cell]) -> bool {
        if self.first.is_empty() {
            return true;
        }
        let times: Vec<Option<usize>> = cells
            .iter()
            .map(|c| self.first.get(c).map(|(t, _)| *t))
            .collect();
        let last = times
            .iter()
            .copied()
            .collect::<Option<Vec<usize>>>()
            .and_then(|t| t.into_iter().max());
        cells.iter().all(|c| match self.first.get(c) {
            Some((t, Some(w @ ("hit" | "sunk")))) => (*w == "sunk") == (Some(*t) == last),
            _ => true,
        })
    }

    /// From the program's answers to first shots: hit and sunk are boats, miss is water.
    fn from_answers(answered: &BTreeMap<Cell, &'static str>) -> Knowledge {
        let mut k = Knowledge {
            boat: BTreeSet::new(),
            water: BTreeSet::new(),
            first: BTreeMap::new(),
        };
        for (c, w) in answered {
            match *w {
                "hit" | "sunk" => {
                    k.boat.insert(*c);
                }
                "miss" => {
                    k.water.insert(*c);
                }
                _ => {}
            }
        }
        k
    }
}

/// Layouts of the fleet (each boat's cells, longest first) that cover every known boat
/// cell and no water cell (up to 64): the first uncovered boat cell in row order must
/// belong to some boat, so each step tries only the boats through it. Sinkings are not
/// constraints here; the replay ranks the layouts by how many answers fit.
fn solve(rules: &Rules, k: &Knowledge) -> Vec<Vec<Vec<Cell>>> {
    let mut lengths: Vec<u8> = rules.items.iter().map(|i| i.length).collect();
    lengths.sort_unstable_by(|a, b| b.cmp(a));
    let mut out = Vec::new();
    let mut placed: Vec<Vec<Cell>> = Vec::new();
    let mut budget = 20_000usize;
    search(rules, k, &mut lengths, &mut placed, &mut out, &mut budget);
    out
}

/// [`solve`]'s depth-first search: places the boats `left` one by one, each through the
/// first known boat cell no boat covers yet, and keeps every layout that covers them all.
fn search(
    rules: &Rules,
    k: &Knowledge,
    left: &mut Vec<u8>,
    placed: &mut Vec<Vec<Cell>>,
    out: &mut Vec<Vec<Vec<Cell>>>,
    budget: &mut usize,
) {
    if out.len() >= 64 || *budget == 0 {
        return;
    }
    *budget -= 1;
    let used: BTreeSet<Cell> = placed.iter().flatten().copied().collect();
    let uncovered = k.boat.iter().find(|c| !used.contains(c)).copied();
    if left.is_empty() {
        if uncovered.is_none() {
            out.push(placed.clone());
        }
        return;
    }
    let fits = |cells: &[Cell]| {
        cells
            .iter()
            .all(|c| !used.contains(c) && !k.water.contains(c))
            && k.sinks_fit(cells)
    };
    match uncovered {
        Some(t) => {
            let mut tried = BTreeSet::new();
            for i in 0..left.len() {
                let len = left[i];
                if !tried.insert(len) {
                    continue;
                }
                for seg in segments(rules, len, Some(t)) {
                    if fits(&seg) {
                        let len = left.remove(i);
                        placed.push(seg);
                        search(rules, k, left, placed, out, budget);
                        placed.pop();
                        left.insert(i, len);
                    }
                }
            }
        }
        None => {
            // Boats never hit: anywhere else that is not water (the first place that fits).
            let len = left.remove(0);
            let unknown_first = segments(rules, len, None)
                .into_iter()
                .find(|s| fits(s) && s.iter().all(|c| !k.boat.contains(c)));
            if let Some(seg) = unknown_first {
                placed.push(seg);
                search(rules, k, left, placed, out, budget);
                placed.pop();
            }
            left.insert(0, len);
        }
    }
}

/// Every straight run of `len` cells on the board, across then down, each in row order of
/// its first cell; through `through` only, when given (then only the runs that can hold it
/// are looked at: at most `len` each way).
fn segments(rules: &Rules, len: u8, through: Option<Cell>) -> Vec<Vec<Cell>> {
    let mut segs = Vec::new();
    for horizontal in [true, false] {
        if len == 1 && !horizontal {
            continue;
        }
        let starts: Vec<(u8, u8)> = match through {
            Some(t) => (0..len)
                .rev()
                .filter_map(|d| {
                    if horizontal {
                        t.col.checked_sub(d).map(|c| (t.row, c))
                    } else {
                        t.row.checked_sub(d).map(|r| (r, t.col))
                    }
                })
                .collect(),
            None => (0..rules.rows)
                .flat_map(|r| (0..rules.cols).map(move |c| (r, c)))
                .collect(),
        };
        for (r, c) in starts {
            let cells: Vec<Cell> = (0..len)
                .map(|d| {
                    if horizontal {
                        (r, c.saturating_add(d))
                    } else {
                        (r.saturating_add(d), c)
                    }
                })
                .filter(|&(y, x)| y < rules.rows && x < rules.cols)
                .map(|(row, col)| Cell { row, col })
                .collect();
            if cells.len() == usize::from(len) {
                segs.push(cells);
            }
        }
    }
    segs
}

/// The program's own boats, told apart by its answers when they fit no layout of the
/// handout's fleet (issue 35 item 10): every boat cell it answered hit or sunk, split into
/// straight boats of two cells or more, each `sunk` on its last cell struck and only there
/// (`k` holds the sinkings). Asked only after a game the program won, so every boat it had
/// was struck. Boats that touch end to end may split more than one way (a 3 and a 3 in a
/// line, fired on in order, fit a 4 and a 2 as well): the simplest fleet is taken, the one
/// with the fewest different lengths, as students who change the fleet make boats alike.
/// `None` when the answers split into no such boats.
fn own_fleet_from_answers(rules: &Rules, k: &Knowledge) -> Option<Vec<Vec<Cell>>> {
    fn split(
        rules: &Rules,
        k: &Knowledge,
        placed: &mut Vec<Vec<Cell>>,
        out: &mut Vec<Vec<Vec<Cell>>>,
        budget: &mut usize,
    ) {
        if *budget == 0 || out.len() >= 64 {
            return;
        }
        *budget -= 1;
        let used: BTreeSet<Cell> = placed.iter().flatten().copied().collect();
        // The first boat cell not yet in a boat, in row order, is the top or left end of its
        // boat: every cell before it is placed.
        let Some(t) = k.boat.iter().find(|c| !used.contains(c)).copied() else {
            out.push(placed.clone());
            return;
        };
        for horizontal in [true, false] {
            let mut cells = vec![t];
            loop {
                let last = cells[cells.len() - 1];
                let next = if horizontal {
                    (last.col + 1 < rules.cols).then(|| Cell {
                        row: last.row,
                        col: last.col + 1,
                    })
                } else {
                    (last.row + 1 < rules.rows).then(|| Cell {
                        row: last.row + 1,
                        col: last.col,
                    })
                };
                match next {
                    Some(n) if k.boat.contains(&n) && !used.contains(&n) => cells.push(n),
                    _ => break,
                }
                if k.sinks_fit(&cells) {
                    placed.push(cells.clone());
                    split(rules, k, placed, out, budget);
                    placed.pop();
                }
            }
        }
    }
    let mut out = Vec::new();
    let mut budget = 20_000usize;
    split(rules, k, &mut Vec::new(), &mut out, &mut budget);
    out.into_iter()
        .filter(|boats| !boats.is_empty())
        .min_by_key(|boats| boats.iter().map(Vec::len).collect::<BTreeSet<_>>().len())
}

/// The cells of the board in `text` that hold a boat ([`read::boat_cells`]), on a board of
/// the game's size holding its whole fleet.
fn grid_like(text: &str, rules: &Rules) -> Option<BTreeSet<Cell>> {
    let want: usize = rules.items.iter().map(|i| usize::from(i.length)).sum();
    read::boat_cells(text, usize::from(rules.rows), usize::from(rules.cols), want)
}

/// What a setup question asks for.
#[derive(Clone, Copy, PartialEq)]
enum Question {
    /// The mode (§6): a key the prompt offers.
    Mode,
    /// The board's size: one number, or rows and columns on one line.
    Size,
    /// Yes or no, true or false, default or custom.
    YesNo,
}

/// What the last question of `text` asks before the game, and the answers to try, best
/// first; `None` when it asks for a turn (or for nothing known).
///
/// Decisions (issue 35 item 7; the handout, §6, asks only for the mode): a debug view,
/// a cheat or a reveal gets yes (it is the program's own reveal); placing one's own boats,
/// custom settings or quitting get no; "expert?" gets the scenario's mode; any other
/// yes/no gets yes. Default-or-custom gets `default`. A size prompt gets 8 (12 for
/// expert), or `8 8` when one prompt asks rows and columns.
fn setup_answers(text: &str, expert: bool) -> Option<(Question, Vec<String>)> {
    let q = read::last_line(text).unwrap_or("").to_lowercase();
    if asks_shot(&q) {
        return None;
    }
    let flat = format!(" {} ", words(&q).join(" "));
    let true_false = has_phrase(&q, &["true or false", "true false"]);
    if is_yes_no(&q) {
        // A question about a turn's action is asked every turn, not before the game.
        if has_stem(&q, &["drone", "missile", "turn", "print", "cannon"]) {
            return None;
        }
        let yes = if has_stem(&q, &["debug", "cheat", "reveal", "show", "see", "test"]) {
            true
        } else if has_stem(
            &q,
            &["custom", "own", "manual", "place", "change", "quit", "exit"],
        ) {
            false
        } else if has_stem(&q, &["expert", "hard", "advanced", "big"]) {
            expert
        } else if has_stem(&q, &["standard", "easy", "normal", "beginner", "small"]) {
            !expert
        } else {
            true
        };
        let keys: &[&str] = match (true_false, yes) {
            (true, true) => &["true", "t", "y"],
            (true, false) => &["false", "f", "n"],
            (false, true) => &["y", "yes", "Y", "true"],
            (false, false) => &["n", "no", "N", "false"],
        };
        return Some((
            Question::YesNo,
            keys.iter().map(|k| k.to_string()).collect(),
        ));
    }
    if flat.contains(" default ") && has_stem(&q, &["custom", "own", "choose", "change"]) {
        return Some((
            Question::YesNo,
            ["default", "d", "D"].map(String::from).to_vec(),
        ));
    }
    if asks_size(&q) {
        let n = if expert { 12 } else { 8 };
        let two = (has_stem(&q, &["row"]) && has_stem(&q, &["col"]))
            || (has_stem(&q, &["width"]) && has_stem(&q, &["height"]))
            || q.contains(&format!("{n} {n}"))
            || q.contains("8 8")
            || q.contains("8x8");
        let keys = if two {
            vec![format!("{n} {n}"), n.to_string()]
        } else {
            vec![n.to_string(), format!("{n} {n}")]
        };
        return Some((Question::Size, keys));
    }
    if has_stem(text, &["standard", "expert", "mode", "difficult", "level"]) {
        return Some((Question::Mode, mode_keys(text, expert)));
    }
    None
}

/// Whether the program's last prompt asks for a command (so `print` may be typed): it
/// names one, or it is a menu; not a prompt for a number alone ("Enter row:",
/// "Coordinates (x y):").
fn asks_command(text: &str, words_known: &BTreeMap<&'static str, String>) -> bool {
    let last = read::last_line(text).unwrap_or("").to_lowercase();
    if words_known.contains_key("print")
        || has_stem(
            &last,
            &[
                "print", "command", "drone", "missile", "menu", "option", "choice", "action",
                "shot", "shoot", "turn", "move",
            ],
        )
    {
        return true;
    }
    let ws = words(&last);
    !(asks_one(&last).is_some()
        || has_stem(&last, &["number", "coordinate", "row", "col"])
        || ws.iter().any(|w| w == "x" || w == "y"))
}

/// A numbered menu's commands: `fire`, `drone`, `missile`, `print` to the number that
/// chooses each (`1. Fire`, `4) Print the board`, `[2] Drone`, `3 - missile`). Empty
/// unless two commands are numbered.
fn numbered_menu(text: &str) -> BTreeMap<&'static str, String> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        for seg in line.split([',', ';', '|', '\t']) {
            let ints = integers(seg);
            let [n] = ints[..] else { continue };
            if !(0..=9).contains(&n) {
                continue;
            }
            let ws = words(seg);
            let of = |stems: &[&str]| ws.iter().any(|w| stems.iter().any(|s| w.starts_with(s)));
            let named: Vec<&'static str> = [
                ("fire", &["fire", "shoot", "attack", "cannon"][..]),
                ("drone", &["drone", "scan"][..]),
                ("missile", &["missile"][..]),
                ("print", &["print", "show", "display", "reveal"][..]),
            ]
            .iter()
            .filter(|(_, stems)| of(stems))
            .map(|(k, _)| *k)
            .collect();
            if let [k] = named[..] {
                out.entry(k).or_insert_with(|| n.to_string());
            }
        }
    }
    if out.len() < 2 {
        out.clear();
    }
    out
}

/// The arguments a usage line names (`usage: java Game <rows> <cols>`), answered as a TA
/// would: 8 for each size (12 for expert), `1`/`2` for a mode. `None` without a usage line
/// naming arguments broadside knows.
fn usage_args(text: &str, expert: bool) -> Option<Vec<String>> {
    let line = text.lines().find(|l| l.to_lowercase().contains("usage"))?;
    let n = if expert { "12" } else { "8" };
    let mut args = Vec::new();
    for part in line.split(['<', '[']).skip(1) {
        let name = part.split(['>', ']']).next()?.to_lowercase();
        let arg = if has_stem(
            &name,
            &["row", "col", "size", "width", "height", "dim", "n"],
        ) {
            n
        } else if has_stem(&name, &["mode", "level", "difficult"]) {
            if expert { "2" } else { "1" }
        } else {
            return None;
        };
        args.push(arg.to_string());
    }
    (!args.is_empty()).then_some(args)
}

/// Whether an answer to `r c` on one line is the program asking for the second number: a
/// prompt alone for one coordinate ("Enter y:"), not the next turn's menu ("Turn 2 - Enter
/// x (or drone, missile, print):") after a grid.
fn asks_other(text: &str) -> bool {
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    let q = text.to_lowercase();
    lines == 1
        && asks_one(text).is_some()
        && !has_stem(&q, &["drone", "missile", "print", "quit", "turn"])
}

/// Whether the program, given a cell, asks what to do there: its last line names the
/// cannon and a power (`Fire a cannon or launch a missile at (3, 4)? (f/m):`) and asks
/// no number.
fn asks_action(text: &str) -> bool {
    // `[F]ire`, `(m)issile`: the key marked inside the word.
    let last = read::last_line(text)
        .unwrap_or("")
        .to_lowercase()
        .replace(['[', ']', '(', ')'], "");
    has_stem(&last, &["fire", "cannon", "shoot"])
        && has_stem(&last, &["missile", "bomb"])
        && asks_one(&last).is_none()
        && !has_stem(&last, &["row", "col", "coordinat", "number", "print"])
}

/// The keys to try for the mode, the ones the prompt offers first: `1`/`2` for "1 ... 2",
/// `s`/`e` for "(s)tandard", `0`/`1`, then the words.
fn mode_keys(prompt: &str, expert: bool) -> Vec<String> {
    let p = prompt.to_lowercase();
    let pick = |a: &str, b: &str| if expert { b.to_string() } else { a.to_string() };
    let mut keys = Vec::new();
    let letters = p.contains("(s)")
        || p.contains("s/e")
        || p.contains("[s]")
        || p.contains("(s/e)")
        || p.contains("'s'")
        || p.contains("\"s\"")
        || p.contains("s or e");
    let zero = p.contains('0') && !p.contains('2');
    if letters {
        keys.push(pick("s", "e"));
    }
    if zero {
        keys.push(pick("0", "1"));
    }
    keys.push(pick("1", "2"));
    keys.push(pick("standard", "expert"));
    if !letters {
        keys.push(pick("s", "e"));
    }
    if !zero {
        keys.push(pick("0", "1"));
    }
    keys
}

/// Whether `text` says a power has been used up (§5).
fn used_up_said(text: &str) -> bool {
    has_stem(
        text,
        &[
            "used", "max", "already", "limit", "exhaust", "none", "cannot", "left",
        ],
    ) || has_phrase(
        text,
        &["no more", "out of", "can t", "no longer", "not available"],
    )
}

/// A divergence unless the program is still asking (the game is not over).
fn still_on(heard: &Heard, when: &str) -> Result<(), Stop> {
    if heard.ended {
        return Err(Stop::diverged(
            Lost::Ended,
            format!("the program goes on {when}"),
            "it ended",
        ));
    }
    Ok(())
}

/// A line as the noise set keeps it: trimmed, digits as `#`.
fn normalise(line: &str) -> String {
    line.trim()
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect()
}

/// The lines of `text` that hold no outcome: prompts and legends printed before any shot.
fn noise_of(text: &str) -> BTreeSet<String> {
    text.lines()
        .map(normalise)
        .filter(|l| !l.is_empty())
        .collect()
}

/// The fleet, in words, for a layout divergence.
fn fleet_words(rules: &Rules) -> String {
    let lengths: Vec<String> = rules.items.iter().map(|i| i.length.to_string()).collect();
    format!(
        "`print` shows {} boats of lengths {} on the {}×{} board, each boat with its own symbol (§7)",
        rules.items.len(),
        lengths.join(", "),
        rules.rows,
        rules.cols
    )
}

/// The boats `print` showed when they are not the handout's fleet (issue 35 item 10): the
/// last window of the board's size whose non-water symbols make straight boats of two cells
/// or more, each drawn with a symbol of its own. Only a board that tells every boat apart
/// gives the program's own fleet: a symbol shared by boats that touch may hide two boats in
/// one line, and such a board is read as today (the handout's fleet, inferred).
fn own_fleet(text: &str, rules: &Rules) -> Option<Vec<Vec<Cell>>> {
    let (rows, cols) = (usize::from(rules.rows), usize::from(rules.cols));
    read::board_windows(text, rows, cols)
        .iter()
        .rev()
        .find_map(|grid| {
            let boats = boats_in(grid).ok()?;
            let symbols: BTreeSet<char> = boats
                .iter()
                .filter_map(|b| b.first())
                .map(|c| grid[usize::from(c.row)][usize::from(c.col)])
                .collect();
            let cells: usize = boats.iter().map(Vec::len).sum();
            (!boats.is_empty()
                && symbols.len() == boats.len()
                && boats.iter().all(|b| b.len() >= 2)
                && cells * 2 <= rows * cols)
                .then_some(boats)
        })
}

/// The boats `print` showed: the last window of the board's size in `text` whose non-water
/// symbols make straight boats of the fleet's lengths (water is the commonest symbol; each
/// other symbol is one boat, or several that do not touch).
fn layout(text: &str, rules: &Rules) -> Result<Vec<Vec<Cell>>, Stop> {
    let (rows, cols) = (usize::from(rules.rows), usize::from(rules.cols));
    let grids = read::board_windows(text, rows, cols);
    let mut want: Vec<u8> = rules.items.iter().map(|i| i.length).collect();
    want.sort_unstable();
    let mut last_problem = format!("no {rows}×{cols} grid in what `print` printed");
    for grid in grids.iter().rev() {
        match boats_in(grid) {
            Ok(boats) => {
                let mut got: Vec<u8> = boats.iter().map(|b| b.len() as u8).collect();
                got.sort_unstable();
                if got == want {
                    return Ok(boats);
                }
                last_problem = format!(
                    "a grid whose boats have lengths {}",
                    got.iter().map(u8::to_string).collect::<Vec<_>>().join(", ")
                );
            }
            Err(p) => last_problem = p,
        }
    }
    Err(Stop::diverged(
        Lost::Layout,
        fleet_words(rules),
        last_problem,
    ))
}

/// Whether the last board in `text` draws two boats with one symbol.
fn shares_symbol(text: &str, rules: &Rules) -> bool {
    let (rows, cols) = (usize::from(rules.rows), usize::from(rules.cols));
    let grids = read::board_windows(text, rows, cols);
    grids.last().is_some_and(|grid| {
        let Ok(boats) = boats_in(grid) else {
            return false;
        };
        let symbols: BTreeSet<char> = boats
            .iter()
            .filter_map(|b| b.first())
            .map(|c| grid[usize::from(c.row)][usize::from(c.col)])
            .collect();
        symbols.len() < boats.len()
    })
}

/// The boats of one grid: water is the commonest symbol; every other symbol's cells split
/// into 4-connected groups, each a straight line.
// A string error: one kind, only shown (the evidence of a rule not observed).
fn boats_in(grid: &[Vec<char>]) -> Result<Vec<Vec<Cell>>, String> {
    let mut counts = std::collections::BTreeMap::new();
    for row in grid {
        for c in row {
            *counts.entry(*c).or_insert(0usize) += 1;
        }
    }
    let water = counts
        .iter()
        .max_by_key(|(c, n)| (**n, std::cmp::Reverse(**c)))
        .map(|(c, _)| *c)
        .unwrap_or('-');
    let mut seen = BTreeSet::new();
    let mut boats = Vec::new();
    for (r, row) in grid.iter().enumerate() {
        for (c, &sym) in row.iter().enumerate() {
            if sym == water || seen.contains(&(r, c)) {
                continue;
            }
            let mut group = Vec::new();
            let mut stack = vec![(r, c)];
            seen.insert((r, c));
            while let Some((y, x)) = stack.pop() {
                group.push(Cell {
                    row: y as u8,
                    col: x as u8,
                });
                let mut next = vec![(y + 1, x), (y, x + 1)];
                if y > 0 {
                    next.push((y - 1, x));
                }
                if x > 0 {
                    next.push((y, x - 1));
                }
                for (ny, nx) in next {
                    if grid.get(ny).and_then(|row| row.get(nx)) == Some(&sym)
                        && seen.insert((ny, nx))
                    {
                        stack.push((ny, nx));
                    }
                }
            }
            group.sort();
            let straight = group.iter().all(|g| g.row == group[0].row)
                || group.iter().all(|g| g.col == group[0].col);
            if !straight {
                return Err(format!(
                    "symbol `{sym}` covers cells that are not one straight boat (each boat needs its own symbol, §7)"
                ));
            }
            boats.push(group);
        }
    }
    Ok(boats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_questions_are_answered_as_asked() {
        let a = |q: &str, expert: bool| setup_answers(q, expert).map(|(_, k)| k[0].clone());
        assert_eq!(
            a("Do you want to play in debug mode? (y/n)", false).as_deref(),
            Some("y")
        );
        assert_eq!(
            a("Place your own boats? (y/n)", false).as_deref(),
            Some("n")
        );
        assert_eq!(a("Expert mode? yes or no", true).as_deref(), Some("y"));
        assert_eq!(a("Expert mode? yes or no", false).as_deref(), Some("n"));
        assert_eq!(
            a("Show boats (true or false)?", false).as_deref(),
            Some("true")
        );
        assert_eq!(
            a("Use the default settings or custom?", false).as_deref(),
            Some("default")
        );
        assert_eq!(
            a(
                "Enter the number of rows and columns (8-12), e.g. 8 8:",
                true
            )
            .as_deref(),
            Some("12 12")
        );
        assert_eq!(a("Enter number of rows:", false).as_deref(), Some("8"));
        assert_eq!(
            a(
                "Please enter 1 to play in standard mode or 2 to play in expert.",
                true
            )
            .as_deref(),
            Some("2")
        );
        assert_eq!(a("Turn 1 - enter coordinates (x y) or print:", false), None);
    }

    #[test]
    fn the_action_asked_after_the_cell_is_told_from_a_cell_prompt() {
        assert!(asks_action(
            "Fire a cannon or launch a missile at (3, 4)? (f/m):"
        ));
        assert!(asks_action("What now: [F]ire or [M]issile?"));
        assert!(!asks_action("Target row and column (or print / drone):"));
        assert!(!asks_action(
            "Enter row col to fire, or missile / drone / print:"
        ));
        assert!(!asks_action("Hit! You sunk a boat!"));
        let q = "Fire a cannon or launch a missile at (3, 4)? (f/m):";
        assert_eq!(action_keys(q, &["fire", "cannon", "shoot", "shot"]), ["f"]);
        assert_eq!(action_keys(q, &["missile", "bomb"]), ["m"]);
        let q = "What now: [F]ire or [M]issile?";
        assert_eq!(action_keys(q, &["fire", "cannon", "shoot", "shot"]), ["F"]);
        assert_eq!(action_keys(q, &["missile", "bomb"]), ["M"]);
    }

    #[test]
    fn a_usage_line_gives_the_arguments_it_names() {
        assert_eq!(
            usage_args("usage: java BattleBoats <rows> <cols>", false),
            Some(vec!["8".to_string(), "8".to_string()])
        );
        assert_eq!(
            usage_args("Usage: java Game [size]", true),
            Some(vec!["12".to_string()])
        );
        assert_eq!(usage_args("Usage: java Game <file>", false), None);
        assert_eq!(usage_args("no usage here", false), None);
    }

    #[test]
    fn words_are_typed_only_where_a_command_is_asked() {
        let none = BTreeMap::new();
        assert!(asks_command(
            "Enter row col, print, drone or missile:",
            &none
        ));
        assert!(asks_command("Your move:", &none));
        assert!(asks_command("Turn 3 - your shot:", &none));
        assert!(!asks_command("Enter row:", &none));
        assert!(!asks_command("Coordinates (x y):", &none));
        let menu = numbered_menu(
            "1. Fire cannon\n2. Use drone\n3. Launch missile\n4. Print board\nChoice: ",
        );
        assert_eq!(menu.get("print").map(String::as_str), Some("4"));
        assert_eq!(menu.get("fire").map(String::as_str), Some("1"));
        assert!(asks_command(
            "Choice: ",
            &[("print", "4".to_string())].into_iter().collect()
        ));
        // A prompt that names commands with a range is no menu.
        assert!(numbered_menu("Enter row col, print, drone or missile (0-7):").is_empty());
    }

    #[test]
    fn boats_are_read_from_distinct_symbols() {
        let grid: Vec<Vec<char>> = ["11---", "-222-", "3---4", "3---4", "-----"]
            .iter()
            .map(|r| r.chars().collect())
            .collect();
        let boats = boats_in(&grid).unwrap();
        let lengths: Vec<usize> = boats.iter().map(Vec::len).collect();
        assert_eq!(lengths, vec![2, 3, 2, 2]);
        let bent: Vec<Vec<char>> = ["11---", "-1---"]
            .iter()
            .map(|r| r.chars().collect())
            .collect();
        assert!(boats_in(&bent).is_err());
    }

    #[test]
    fn a_drone_count_equal_to_its_row_is_read_as_the_count() {
        let specs = crate::spec::SpecSet::builtin();
        let scenarios = crate::published::load("battleboats", &specs).unwrap();
        let scenario = scenarios.iter().find(|s| s.dialogue.is_some()).unwrap();
        let boats = Boats::new(scenario);
        let said = |text: &str, index| boats.count_said(text, index);
        // The count alone on the line, the same number as the row scanned.
        assert_eq!(said("Drone report: 3 boat spots in that row.", 3), Some(3));
        // The row named, the count after it.
        assert_eq!(said("Scanning row 3: 2 boat spots.", 3), Some(2));
        assert_eq!(said("Scanning row 3: 3 boat spots.", 3), Some(3));
        // The row named on its own line, the count on the next.
        assert_eq!(
            said("Drone scanning row 3...\nFound 1 boat spot.", 3),
            Some(1)
        );
        assert_eq!(
            said("Drone report: 0 boat spots in that column.", 4),
            Some(0)
        );
        assert_eq!(said("Which one? (0-7)", 3), None);
    }

    /// The standard game's rules (8×8, the handout's five boats).
    fn standard() -> Arc<Rules> {
        let specs = crate::spec::SpecSet::builtin();
        let scenarios = crate::published::load("battleboats", &specs).unwrap();
        let s = scenarios
            .iter()
            .find(|s| s.dialogue.is_some() && s.rules.mode != "expert")
            .unwrap();
        s.rules.clone()
    }

    #[test]
    fn a_print_of_four_boats_of_three_gives_the_programs_own_fleet() {
        let rules = standard();
        let board = "     0  1  2  3  4  5  6  7
 0   .  .  .  .  .  .  .  .
 1   .  .  2  1  1  1  .  .
 2   .  .  2  .  .  .  .  .
 3   .  .  2  .  3  .  .  .
 4   .  .  .  4  3  .  .  .
 5   .  .  .  4  3  .  .  .
 6   .  .  .  4  .  .  .  .
 7   .  .  .  .  .  .  .  .
";
        // Not the handout's fleet: today's reading refuses it.
        assert!(layout(board, &rules).is_err());
        let boats = own_fleet(board, &rules).expect("each boat told apart");
        let mut lengths: Vec<usize> = boats.iter().map(Vec::len).collect();
        lengths.sort_unstable();
        assert_eq!(lengths, [3, 3, 3, 3]);
        let boat_1: Vec<Cell> = (3..6).map(|col| Cell { row: 1, col }).collect();
        assert!(boats.contains(&boat_1), "{boats:?}");
        // One symbol for every boat: which cells make which boat is not known, so no fleet
        // of the program's own is read from it.
        let same = "B B B - - - - -
- - - - B B B -
- - - - - - - -
B - - - - - - -
B - - - B - - -
B - - - B - - -
- - - - B - - -
- - - - - - - -
";
        assert!(own_fleet(same, &rules).is_none());
    }

    #[test]
    fn the_programs_own_boats_are_told_apart_by_its_sinkings() {
        let rules = standard();
        // Two boats of three end to end in row 0, fired on left to right: sunk at (0, 2) and
        // at (0, 5). Only a split into 3 and 3 fits the sinkings.
        let mut answered = BTreeMap::new();
        let mut first = BTreeMap::new();
        for col in 0..6u8 {
            let word = if col == 2 || col == 5 { "sunk" } else { "hit" };
            let c = Cell { row: 0, col };
            answered.insert(c, word);
            first.insert(c, (usize::from(col), Some(word)));
        }
        let k = Knowledge::from_answers(&answered).with_sinkings(first.clone());
        let boats = own_fleet_from_answers(&rules, &k).expect("a split that fits");
        assert_eq!(
            boats.iter().map(Vec::len).collect::<Vec<_>>(),
            [3, 3],
            "{boats:?}"
        );
        // The handout's fleet fits none of it once every other cell is water.
        let mut whole = Knowledge::from_answers(&answered);
        for row in 0..8 {
            for col in 0..8 {
                let c = Cell { row, col };
                if !answered.contains_key(&c) {
                    whole.water.insert(c);
                }
            }
        }
        assert!(solve(&rules, &whole).is_empty());
        // A boat of three across (1, 3)..(1, 5) touching the top of one down (1, 2)..(3, 2),
        // fired on row by row: a 4 across and a 2 down fit the sinkings too; the fleet of
        // one length is taken.
        let order = [(1, 2, "hit"), (1, 3, "hit"), (1, 4, "hit"), (1, 5, "sunk")];
        let order = order.iter().chain(&[(2, 2, "hit"), (3, 2, "sunk")]);
        let (mut touching, mut when) = (BTreeMap::new(), BTreeMap::new());
        for (t, &(row, col, word)) in order.enumerate() {
            touching.insert(Cell { row, col }, word);
            when.insert(Cell { row, col }, (t, Some(word)));
        }
        let k = Knowledge::from_answers(&touching).with_sinkings(when);
        let boats = own_fleet_from_answers(&rules, &k).expect("a split that fits");
        assert_eq!(
            boats.iter().map(Vec::len).collect::<Vec<_>>(),
            [3, 3],
            "{boats:?}"
        );
        // A hit the program never follows with a sinking splits into no boats.
        first.insert(Cell { row: 0, col: 5 }, (5, Some("hit")));
        answered.insert(Cell { row: 0, col: 5 }, "hit");
        let k = Knowledge::from_answers(&answered).with_sinkings(first);
        assert!(own_fleet_from_answers(&rules, &k).is_none());
    }
}
