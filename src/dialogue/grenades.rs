//! The grenades-8x8 dialogue (handout 002): place the human's 6 ships and 4 grenades (and
//! invalid entries, which must be refused), fire the human's rockets, read every grid the
//! program prints, and at the end read the revealed grid. Then the whole game is replayed
//! against the reference with the computer's layout now known, checking every printed grid,
//! the turn order (a grenade costs its shooter the next turn), re-called cells and the
//! declared winner.
//!
//! Lines sent: a cell as the handout writes it, a letter then a number (`C4`; step 1); when
//! the program then waits without a word (it reads the letter and the number as two
//! tokens), the number alone follows. The letter names the column (spec decision
//! letter-is-column); a program that reads it as the row shows every grid transposed, which
//! is accepted (both readings are faithful to "a character followed by an integer").

use super::read::{self, asked_again, refuses};
use super::sheet::{Lost, RuleText, Sheet, rules};
use super::talk::{Heard, Stop, Talk};
use super::{DialogueDriver, MoveRules, Played, Progress, move_rows};
use crate::cell::Cell;
use crate::engine::{Game, random_layout};
use crate::scenario::{Dialogue, Scenario};
use crate::spec::Rules;
use crate::target::Program;
use std::sync::Arc;

rules! {
    /// The rules a grenades-8x8 dialogue judges, each from the handout's steps.
    pub(crate) enum Rule {
        RefuseOffGridPlacement => RuleText {
            id: "refuse-off-grid-placement",
            title: "A ship or grenade placed off the grid is refused and asked again",
            clause: "Step 1: \"If the character is not between 'A' (or a) and H (or h) or the integer is not between 1 and 8 ... display an error message and let the user try again\"",
        },
        RefuseTakenPlacement => RuleText {
            id: "refuse-taken-placement",
            title: "A ship or grenade placed on a taken cell is refused and asked again",
            clause: "Step 1: \"or there is already a grenade or a ship at that position ... display an error message and let the user try again\"",
        },
        InputFormat => RuleText {
            id: "input-format",
            title: "A position is read as one entry, a letter followed by a number (`C4`)",
            clause: "Step 1: \"For each ship and grenade, 1 coordinate will be entered (a character followed by an integer)\"",
        },
        LowerCaseLetter => RuleText {
            id: "lower-case-letter",
            title: "A lower-case letter is read as its capital (`f4` is `F4`)",
            clause: "Step 1: \"If the character is not between 'A' (or a) and H (or h) ... display an error message\": `a` to `h` are on the grid",
        },
        InitialGrid => RuleText {
            id: "initial-grid",
            title: "Before the first rocket the grid is shown with every position hidden (`_`)",
            clause: "Step 3: \"Display the initial grid hiding all ships and grenades\"; \"a position that has never been called should be displayed with the character '_'\"",
        },
        GridAfterRocket => RuleText {
            id: "grid-after-rocket",
            title: "After each of the human's rockets the new grid is shown, the called cell revealed",
            clause: "Step 4: \"Ask for the position of H's rocket and modify the grid according to the rules of the game. Then display the new grid showing only the positions that have been called to date\"",
        },
        ComputerTurn => RuleText {
            id: "computer-turn",
            title: "The computer fires one rocket a turn at a random cell and shows the grid",
            clause: "Step 5: \"Let C play. Generate a random position for C's rocket and modify the grid according to the rules of the game. Then display the new gird\"",
        },
        GrenadeCostsTurn => RuleText {
            id: "grenade-costs-turn",
            title: "A rocket on any grenade costs its shooter the next turn",
            clause: "Rules: \"If the rocket falls on a coordinate where the opponent (or the player) has a grenade, then the player loses a turn, and next time, the opponent will play twice in a row\"",
        },
        OwnShipSinks => RuleText {
            id: "own-ship-sinks",
            title: "A rocket on the shooter's own ship sinks it",
            clause: "Rules: \"If the rocket falls on a coordinate where the opponent (or the player...) has a ship, then that ship sinks\"",
        },
        RecalledDoesNothing => RuleText {
            id: "recalled-does-nothing",
            title: "A rocket on a cell called before does nothing",
            clause: "Rules: \"If the rocket falls on a coordinate that has been called before, regardless of what was there before, nothing happens\"",
        },
        RefuseOffGridRocket => RuleText {
            id: "refuse-off-grid-rocket",
            title: "A rocket off the grid is refused and asked again",
            clause: "Step 4: \"you must verify that the values are within the grid. If the character is not between 'A' (or a) and H (or h) or the integer is not between 1 and 8, then your program must display an error message and let the user try again\"",
        },
        ComputerLayout => RuleText {
            id: "computer-layout",
            title: "The computer has 6 ships and 4 grenades, each on a cell of its own",
            clause: "Step 2: \"Place C's own ships and grenades at random, making sure that the coordinates are valid and that there is nothing at that position already\"",
        },
        Winner => RuleText {
            id: "winner",
            title: "The game ends when a player has no ship left and the winner is declared",
            clause: "Step 6: \"Keep simulating the game and display the grid after each turn, and eventually declare a winner\"; \"The game goes on until one player has all his/her ships sunk\"",
        },
        RevealedGrid => RuleText {
            id: "revealed-grid",
            title: "At the end the grid is shown with every ship and grenade revealed",
            clause: "Step 7: \"Once the winner is declared, the grid is then displayed showing the position of all ships and grenades\"",
        },
    }
}

/// The rules each move of a grenades-8x8 plan judges (the plan grammar's moves, each once).
const MOVES: MoveRules<Rule> = &[
    (
        "place-off-grid",
        &[Rule::RefuseOffGridPlacement, Rule::InputFormat],
    ),
    (
        "place-occupied",
        &[Rule::LowerCaseLetter, Rule::RefuseTakenPlacement],
    ),
    // Places the rest: judged by the moves that refuse a placement and by the grids.
    ("place", &[]),
    ("initial-grid", &[Rule::InitialGrid]),
    ("fire-own-ship", &[Rule::OwnShipSinks]),
    ("fire-own-grenade", &[Rule::GrenadeCostsTurn]),
    ("fire-off-grid", &[Rule::RefuseOffGridRocket]),
    ("fire-recalled", &[Rule::RecalledDoesNothing]),
    // The sweep calls grenades in nearly every game (the human's own, the computer's, or
    // the computer calls one): the lost turn is judged on each.
    (
        "sweep",
        &[
            Rule::GridAfterRocket,
            Rule::ComputerTurn,
            Rule::GrenadeCostsTurn,
            Rule::ComputerLayout,
            Rule::Winner,
            Rule::RevealedGrid,
        ],
    ),
];

/// The grenades-8x8 driver.
pub(crate) struct Driver;

impl DialogueDriver for Driver {
    fn assignment(&self) -> &'static str {
        "grenades-8x8"
    }
    fn rules(&self) -> &'static [RuleText] {
        Rule::table()
    }
    fn moves(&self) -> Vec<(&'static str, Vec<&'static RuleText>)> {
        move_rows(MOVES)
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

/// The grid's symbols (step 3).
const ALPHABET: [char; 6] = ['_', 's', 'S', 'g', 'G', '*'];

/// Phrases that declare the human the winner (step 6: "eventually declare a winner"; the
/// handout calls the players H and C). A program may speak for the computer in the first
/// person ("I lost", "you beat me"): those count too (spec decision winner-in-any-person).
const HUMAN_WINS: [&str; 23] = [
    "you win",
    "you won",
    "you have won",
    "you are the winner",
    "human wins",
    "human won",
    "human is the winner",
    "winner is the human",
    "winner is human",
    "winner is you",
    "h wins",
    "player wins",
    "player won",
    "computer loses",
    "computer lost",
    "congratulations",
    // The computer speaking in the first person.
    "i lose",
    "i lost",
    "i have lost",
    "i have been defeated",
    "you defeated me",
    "you beat me",
    "you have defeated",
];

/// Phrases that declare the computer the winner.
const COMPUTER_WINS: [&str; 18] = [
    "computer wins",
    "computer won",
    "computer has won",
    "computer is the winner",
    "winner is the computer",
    "winner is computer",
    "c wins",
    "you lose",
    "you lost",
    "you have lost",
    "human loses",
    "player loses",
    // The computer speaking in the first person.
    "i win",
    "i won",
    "i have won",
    "you have been defeated",
    "you are defeated",
    "you were defeated",
];

/// Who `text` declares the winner: the side of the last winner phrase in it ("You lose
/// your next turn" earlier in the round does not count against a later "You win!").
fn declared_winner(text: &str) -> Option<&'static str> {
    let flat = format!(" {} ", read::words(text).join(" "));
    let last = |phrases: &[&str]| {
        phrases
            .iter()
            .filter_map(|p| flat.rfind(&format!(" {p} ")))
            .max()
    };
    match (last(&HUMAN_WINS), last(&COMPUTER_WINS)) {
        (Some(h), Some(c)) => Some(if h > c { "human" } else { "computer" }),
        (Some(_), None) => Some("human"),
        (None, Some(_)) => Some("computer"),
        (None, None) => None,
    }
}

/// The human's player index (the spec's `players`: human, computer).
const HUMAN: usize = 0;
const COMPUTER: usize = 1;

type Grid = Vec<Vec<char>>;

/// One human rocket and what the program printed after it, up to its next question.
struct Round {
    cell: Cell,
    text: String,
    move_no: usize,
    line: usize,
    /// The move that sent it.
    name: String,
}

/// Plays one grenades-8x8 dialogue.
fn play(
    scenario: &Scenario,
    plan: &Dialogue,
    program: &Program,
    at: &mut Progress,
    sheet: &mut Sheet,
) -> Played {
    at.action = "start the program".into();
    let (mut talk, opening) = match super::open(program, plan, &[]) {
        Ok(t) => t,
        Err(played) => return *played,
    };
    let outcome = live(scenario, plan, &mut talk, opening, at, sheet);
    Played {
        talk: Some(talk),
        outcome,
    }
}

/// What the live game recorded, for the replay.
struct Record {
    /// The human's items: (item index, cell).
    human: Vec<(usize, Cell)>,
    /// What the program printed after the last placement, up to the first rocket prompt.
    before_play: String,
    rounds: Vec<Round>,
    /// Whether the game ended: the program ended, or showed the revealed grid.
    ended: bool,
    /// Whether the program itself ended.
    program_ended: bool,
    /// The one glyph outside the handout's alphabet the program draws, if any.
    foreign: Option<Foreign>,
}

impl Record {
    /// The grids in `text`, the program's foreign glyph read as the one it stands for.
    fn grids(&self, text: &str) -> Vec<Grid> {
        let mut out = grids(text);
        if let Some(f) = self.foreign {
            for c in out.iter_mut().flatten().flatten() {
                if *c == f.glyph {
                    *c = f.stands_for;
                }
            }
        }
        out
    }
}

/// A glyph outside step 3's `_ s S g G *` that a program draws for one kind of position
/// (an `x` for a called position that held nothing, a `.` for one never called). Read as
/// the handout's glyph it stands for, so the game can be followed; charged once, to
/// grid-after-rocket (step 4: "display the new grid ... using the convention above"); spec
/// decision foreign-glyph.
#[derive(Clone, Copy)]
struct Foreign {
    glyph: char,
    stands_for: char,
}

impl Foreign {
    /// The program's foreign glyph: the first one drawn in a grid. It stands for `_` when the
    /// initial grid (before any rocket) shows it, else for `*` (a called position with
    /// nothing on it, the only other kind a student draws one way for both players).
    fn of(before_play: &str, rounds: &[Round]) -> Option<Foreign> {
        let first = |text: &str| {
            grids(text)
                .iter()
                .flatten()
                .flatten()
                .find(|c| !ALPHABET.contains(c))
                .copied()
        };
        let glyph = std::iter::once(before_play)
            .chain(rounds.iter().map(|r| r.text.as_str()))
            .find_map(first)?;
        let initial = grids(before_play)
            .last()
            .is_some_and(|g| g.iter().flatten().any(|c| *c == glyph));
        Some(Foreign {
            glyph,
            stands_for: if initial { '_' } else { '*' },
        })
    }

    /// Whether a grid in `text` draws the glyph.
    fn drawn_in(&self, text: &str) -> bool {
        grids(text)
            .iter()
            .flatten()
            .flatten()
            .any(|c| *c == self.glyph)
    }

    /// What step 3 draws instead.
    fn expected(&self) -> String {
        if self.stands_for == '_' {
            "`_` for a position never called (step 3: \"a position that has never been called should be displayed with the character '_'\")".to_string()
        } else {
            "`*` for a called position that held nothing (step 3: \"a position that has been called and did not hit anything should be displayed with the character '*'\")".to_string()
        }
    }
}

/// Plays the plan's moves live, recording what the program printed, then replays the
/// record against the reference ([`replay`]).
fn live(
    scenario: &Scenario,
    plan: &Dialogue,
    talk: &mut Talk,
    opening: Heard,
    at: &mut Progress,
    sheet: &mut Sheet,
) -> Result<(), Stop> {
    let rules = scenario.rules.clone();
    let layout = random_layout(&rules, plan.seed)
        .map_err(|e| Stop::diverged(Lost::Plan, "a layout for the human", e.to_string()))?;
    let to_place: Vec<(usize, Cell)> = (0..rules.items.len())
        .filter(|&i| rules.items[i].owner == HUMAN)
        .map(|i| (i, layout[i][0]))
        .collect();
    let mut game = Live {
        rules: &rules,
        rec: Record {
            human: Vec::new(),
            before_play: String::new(),
            rounds: Vec::new(),
            ended: false,
            program_ended: false,
            foreign: None,
        },
        to_place,
        last: opening,
        called: Vec::new(),
        generic: false,
    };
    for (k, m) in plan.moves.iter().enumerate() {
        at.move_no = k + 1;
        at.line = m.line;
        at.move_name = m.name.clone();
        talk.mark(at);
        if game.rec.ended {
            break;
        }
        game.play_move(m, (k + 1, m.line), talk, at, sheet)?;
    }
    let mut rec = game.rec;
    if !rec.program_ended {
        // After the revealed grid, what the program does at the end of its input (another
        // game? an exception from its Scanner?) is not judged.
        let closed = talk.close();
        let h = if rec.ended {
            closed.ok()
        } else {
            Some(closed?)
        };
        if let (Some(h), Some(r)) = (h, rec.rounds.last_mut()) {
            r.text.push_str(&h.text);
        }
    }
    rec.foreign = Foreign::of(&rec.before_play, &rec.rounds);
    replay(&rules, &rec, at, sheet)
}

/// An entry the program must refuse (step 1, step 4).
struct BadEntry<'a> {
    /// What is typed.
    entry: &'a str,
    /// What it is, for feedback.
    action: String,
    /// Why the handout refuses it, in its words.
    why: &'static str,
    /// The rule it judges.
    rule: Rule,
}

/// The live game: what is recorded for the replay, and what the moves still need.
struct Live<'a> {
    rules: &'a Rules,
    rec: Record,
    /// The human's items not placed yet, each with its cell.
    to_place: Vec<(usize, Cell)>,
    /// What the program printed last.
    last: Heard,
    /// The cells the human has fired at.
    called: Vec<Cell>,
    /// Whether the program asks every entry with the same words: then a question asked
    /// again is no sign of a refusal.
    generic: bool,
}

impl Live<'_> {
    /// Plays move `m` (`origin`: its number and line, for the rounds it records).
    fn play_move(
        &mut self,
        m: &crate::scenario::Move,
        origin: (usize, usize),
        talk: &mut Talk,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) -> Result<(), Stop> {
        let placing = !self.to_place.is_empty();
        match m.name.as_str() {
            "place-off-grid" | "place-occupied" | "place" if !placing => Err(Stop::diverged(
                Lost::Plan,
                "a placement",
                "every item is placed already",
            )),
            "place-off-grid" => self.place_off_grid(talk, at, sheet),
            "place-occupied" => self.place_occupied(talk, at, sheet),
            "place" => {
                while !self.to_place.is_empty() {
                    let (i, c) = self.to_place.remove(0);
                    let before = self.last.text.clone();
                    self.last = place(talk, at, sheet, self.rules, i, c)?;
                    self.generic |= read::same_question(&before, &self.last.text);
                    self.rec.human.push((i, c));
                }
                self.rec.before_play = self.last.text.clone();
                Ok(())
            }
            // Judged in the replay: what was shown before the first rocket.
            "initial-grid" => Ok(()),
            _ if placing => Err(Stop::diverged(
                Lost::Plan,
                "every item placed before the first rocket",
                "the scenario fires before `place`",
            )),
            "fire-off-grid" => self.fire_off_grid(origin, talk, at, sheet),
            "fire-own-ship" | "fire-own-grenade" | "fire-recalled" => {
                let Some(cell) = self.target_of(&m.name) else {
                    return Err(Stop::diverged(
                        Lost::Plan,
                        format!("a cell for `{}`", m.name),
                        "none left",
                    ));
                };
                self.fire(cell, origin, talk, at, sheet)
            }
            "sweep" => {
                let all: Vec<Cell> = (0..self.rules.rows)
                    .flat_map(|row| (0..self.rules.cols).map(move |col| Cell { row, col }))
                    .collect();
                for cell in all {
                    if self.rec.ended {
                        break;
                    }
                    if !self.called.contains(&cell) {
                        self.fire(cell, origin, talk, at, sheet)?;
                    }
                }
                Ok(())
            }
            other => Err(Stop::diverged(
                Lost::Plan,
                "a known move",
                format!("`{other}`"),
            )),
        }
    }

    /// Enters `bad`, which the program must refuse, and judges its rule: passed, or failed
    /// and then lost track.
    fn refuse(
        &mut self,
        bad: BadEntry,
        talk: &mut Talk,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) -> Result<(), Stop> {
        at.action = bad.action;
        let h = enter(talk, at, sheet, bad.entry)?;
        let r = refused(&self.last.text, self.generic, &h, bad.entry, bad.why);
        judge_refusal(sheet, at, talk, bad.rule, r)?;
        self.last = h;
        Ok(())
    }

    /// The human's rocket at `cell`, recorded as a round.
    fn fire(
        &mut self,
        cell: Cell,
        origin: (usize, usize),
        talk: &mut Talk,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) -> Result<(), Stop> {
        self.last = rocket(talk, at, sheet, self.rules, cell, origin, &mut self.rec)?;
        self.called.push(cell);
        Ok(())
    }

    /// Items placed off the grid, each to be refused (step 1).
    fn place_off_grid(
        &mut self,
        talk: &mut Talk,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) -> Result<(), Stop> {
        let n = self.rules.notation;
        for bad in ["I3", "A9", "C0"] {
            let entry = BadEntry {
                entry: bad,
                action: format!("place a ship at `{bad}`, off the grid"),
                why: "off the grid (step 1: \"If the character is not between 'A' (or a) and H (or h) or the integer is not between 1 and 8 ... display an error message and let the user try again\")",
                rule: Rule::RefuseOffGridPlacement,
            };
            self.refuse(entry, talk, at, sheet)?;
            // The letter kept, the number asked again: the entry is completed on a
            // free cell of that column, for the next item to place.
            if asks_number(&self.last.text) && !self.to_place.is_empty() {
                let letter = bad.chars().next().unwrap_or('A');
                let taken = |c: Cell| {
                    self.rec
                        .human
                        .iter()
                        .chain(&self.to_place)
                        .any(|(_, x)| *x == c)
                };
                let Some(c) = completion(self.rules, letter, |c| !taken(c)) else {
                    break;
                };
                let (i, _) = self.to_place.remove(0);
                let number = (c.row + 1).to_string();
                at.action = format!(
                    "place an item at `{}`: the number `{number}` after the refused one",
                    n.format(c.into())
                );
                self.last = talk.say(&number)?;
                self.rec.human.push((i, c));
            }
        }
        Ok(())
    }

    /// An item placed on a taken position, to be refused (step 1); the first item is
    /// placed first (in lower case) if none is yet.
    fn place_occupied(
        &mut self,
        talk: &mut Talk,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) -> Result<(), Stop> {
        if self.rec.human.is_empty() {
            let (i, c) = self.to_place.remove(0);
            let before = self.last.text.clone();
            self.last = place_lower(talk, at, sheet, self.rules, i, c)?;
            self.generic |= read::same_question(&before, &self.last.text);
            self.rec.human.push((i, c));
        }
        let (_, c) = self.rec.human[0];
        let cell = self.rules.notation.format(c.into());
        let entry = BadEntry {
            entry: &cell,
            action: format!("place an item on `{cell}`, already taken"),
            why: "already taken (step 1: \"or there is already a grenade or a ship at that position ... display an error message and let the user try again\")",
            rule: Rule::RefuseTakenPlacement,
        };
        self.refuse(entry, talk, at, sheet)
    }

    /// Rockets off the grid, each to be refused (step 4).
    fn fire_off_grid(
        &mut self,
        origin: (usize, usize),
        talk: &mut Talk,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) -> Result<(), Stop> {
        for bad in ["J5", "D9"] {
            let entry = BadEntry {
                entry: bad,
                action: format!("fire a rocket at `{bad}`, off the grid"),
                why: "off the grid (step 4: \"you must verify that the values are within the grid\")",
                rule: Rule::RefuseOffGridRocket,
            };
            self.refuse(entry, talk, at, sheet)?;
            // The letter kept, the number asked again: a rocket on a cell of that
            // column not called yet completes the entry.
            if asks_number(&self.last.text) {
                let letter = bad.chars().next().unwrap_or('A');
                let Some(c) = completion(self.rules, letter, |c| !self.called.contains(&c)) else {
                    break;
                };
                let number = (c.row + 1).to_string();
                at.action = format!(
                    "the human's rocket at `{}`: the number `{number}` after the refused one",
                    self.rules.notation.format(c.into())
                );
                let h = talk.say(&number)?;
                self.last = rocket_heard(h, at, c, origin, &mut self.rec);
                self.called.push(c);
                if self.rec.ended {
                    break;
                }
            }
        }
        Ok(())
    }

    /// The cell a move that fires at the human's own items aims at: an item of the
    /// human's the computer has not called either (still `_` in the last grid shown, read
    /// either way round), so the rocket judges the rule; else any the human has not
    /// called. `fire-recalled` re-calls an exploded grenade first.
    fn target_of(&self, name: &str) -> Option<Cell> {
        let own = |grenade: bool| {
            let open: Vec<Cell> = self
                .rec
                .human
                .iter()
                .filter(|(i, c)| {
                    self.rules.items[*i].grenade == grenade && !self.called.contains(c)
                })
                .map(|(_, c)| *c)
                .collect();
            let shown = grids(&self.last.text).last().cloned();
            let blank = |c: &Cell| {
                shown.as_ref().is_none_or(|g| {
                    let (r, k) = (usize::from(c.row), usize::from(c.col));
                    g[r][k] == '_' && g[k][r] == '_'
                })
            };
            open.iter().copied().find(blank).or(open.first().copied())
        };
        match name {
            "fire-own-ship" => own(false),
            "fire-own-grenade" => own(true),
            // An exploded grenade first: re-calling it must do nothing.
            _ => self
                .rec
                .human
                .iter()
                .find(|(i, c)| self.rules.items[*i].grenade && self.called.contains(c))
                .map(|(_, c)| *c)
                .or_else(|| self.called.first().copied()),
        }
    }
}

/// Marks a refusal rule: passed, or failed and then lost track (the program took the
/// entry, so what it asks next is not what the plan expects).
fn judge_refusal(
    sheet: &mut Sheet,
    at: &Progress,
    talk: &Talk,
    rule: Rule,
    r: Result<(), Stop>,
) -> Result<(), Stop> {
    match r {
        Ok(()) => {
            sheet.pass(rule);
            Ok(())
        }
        Err(Stop::Diverged {
            expected, actual, ..
        }) => {
            sheet.fail(rule, at, expected, actual.clone(), talk.tail());
            Err(Stop::diverged(
                Lost::LostTrack,
                "the entry refused, so the next question is the same one",
                format!("{actual}: the rest of the program's input no longer lines up"),
            ))
        }
        Err(f) => Err(f),
    }
}

/// Places item `i` on `c`: the cell, and the number alone if the program waits silently.
fn place(
    talk: &mut Talk,
    at: &mut Progress,
    sheet: &mut Sheet,
    rules: &Rules,
    i: usize,
    c: Cell,
) -> Result<Heard, Stop> {
    let what = if rules.items[i].grenade {
        "grenade"
    } else {
        "ship"
    };
    let cell = rules.notation.format(c.into());
    at.action = format!("place a {what} at `{cell}`");
    let h = enter(talk, at, sheet, &cell)?;
    if refuses(&h.text) {
        return Err(Stop::diverged(
            Lost::Placement,
            format!("the {what} at {cell} accepted (an empty cell on the grid)"),
            "it was refused",
        ));
    }
    if h.ended {
        return Err(Stop::diverged(
            Lost::Ended,
            "the program goes on asking",
            "it ended",
        ));
    }
    Ok(h)
}

/// Places item `i` on `c` with its letter in lower case (rule lower-case-letter); refused,
/// it is placed again in capitals.
fn place_lower(
    talk: &mut Talk,
    at: &mut Progress,
    sheet: &mut Sheet,
    rules: &Rules,
    i: usize,
    c: Cell,
) -> Result<Heard, Stop> {
    let what = if rules.items[i].grenade {
        "grenade"
    } else {
        "ship"
    };
    let question = talk.last_heard();
    let cell = rules.notation.format(c.into()).to_lowercase();
    at.action = format!("place a {what} at `{cell}`, the letter in lower case");
    let h = enter(talk, at, sheet, &cell)?;
    if h.ended {
        return Err(Stop::diverged(
            Lost::Ended,
            "the program goes on asking",
            "it ended",
        ));
    }
    // Asked again in the same words is a refusal only where the question names the item
    // ("Ship 1"): one question for every entry reads the same after an accepted one.
    let numbered =
        read::last_line(&question).is_some_and(|l| l.chars().any(|c| c.is_ascii_digit()));
    let refused = h.text.lines().any(refuses) || (numbered && asked_again(&question, &h.text));
    if !refused {
        sheet.pass(Rule::LowerCaseLetter);
        return Ok(h);
    }
    sheet.fail(
        Rule::LowerCaseLetter,
        at,
        format!("`{cell}` accepted as `{}`", cell.to_uppercase()),
        "it was refused",
        talk.tail(),
    );
    place(talk, at, sheet, rules, i, c)
}

/// Sends a cell (`C4`); if the program asks again without a word, or asks for the number
/// apart ("Row (1-8):"), the number alone (rule input-format: the handout's entry is one).
fn enter(talk: &mut Talk, at: &Progress, sheet: &mut Sheet, cell: &str) -> Result<Heard, Stop> {
    if asks_letter(&talk.last_heard()) {
        // "Column (A-H):" asked alone: the letter, then the number when it is asked (spec
        // decision dialogue-entry); the entry in two is charged to input-format.
        let letter: String = cell.chars().take_while(|c| !c.is_ascii_digit()).collect();
        let h = talk.say(&letter)?;
        sheet.fail(
            Rule::InputFormat,
            at,
            format!("`{cell}` taken as one entry (step 1: \"a character followed by an integer\")"),
            "the program asked for the letter on its own, then the number",
            talk.tail(),
        );
        if h.ended || !asks_number(&h.text) || h.text.lines().any(refuses) {
            return Ok(h);
        }
        let number: String = cell.chars().filter(char::is_ascii_digit).collect();
        return talk.say(&number);
    }
    let h = talk.say(cell)?;
    let asks_number = asks_number(&h.text) && !h.text.lines().any(refuses);
    if h.ended || (!h.text.trim().is_empty() && !asks_number) {
        sheet.pass(Rule::InputFormat);
        return Ok(h);
    }
    sheet.fail(
        Rule::InputFormat,
        at,
        format!("`{cell}` taken as one entry (step 1: \"a character followed by an integer\")"),
        "the program asked for the number on its own",
        talk.tail(),
    );
    let number: String = cell.chars().filter(char::is_ascii_digit).collect();
    talk.say(&number)
}

/// Whether the program's last line asks for the letter of a cell alone ("Column (A-H):",
/// "Enter the letter:"), not a whole position ("letter and number", "e.g. C4").
fn asks_letter(text: &str) -> bool {
    read::last_line(text).is_some_and(|l| {
        let ws = read::words(l);
        let letter = ws
            .iter()
            .any(|w| w == "column" || w == "letter" || w == "col")
            || read::has_phrase(l, &["a h"]);
        let whole = ws.iter().any(|w| {
            matches!(
                w.as_str(),
                "row" | "number" | "position" | "coordinate" | "coordinates"
            )
        }) || l.chars().any(|c| c.is_ascii_digit());
        letter && !whole
    })
}

/// Whether the program's last line asks for the number of a cell alone ("Row (1-8):"),
/// with no grid (the program reads the letter and the number apart).
fn asks_number(text: &str) -> bool {
    read::last_line(text).is_some_and(|l| {
        let ws = read::words(l);
        (ws.iter().any(|w| w == "row") || read::has_phrase(l, &["1 8"])) && grids(text).is_empty()
    })
}

/// After an off-grid number refused by a program that reads the letter and the number
/// apart, it asks for the number again and keeps the letter: the cell in column `letter`
/// that completes the entry, on a row `free` allows.
fn completion(rules: &Rules, letter: char, free: impl Fn(Cell) -> bool) -> Option<Cell> {
    let col = u8::try_from(letter.to_ascii_uppercase() as u32 - 'A' as u32).ok()?;
    (0..rules.rows)
        .map(|row| Cell { row, col })
        .find(|&c| c.col < rules.cols && free(c))
}

/// Fires the human's rocket at `c` and records what the program printed.
/// `(move_no, line)`: the move that sent it, and its line in the scenario.
fn rocket(
    talk: &mut Talk,
    at: &mut Progress,
    sheet: &mut Sheet,
    rules: &Rules,
    c: Cell,
    (move_no, line): (usize, usize),
    rec: &mut Record,
) -> Result<Heard, Stop> {
    let cell = rules.notation.format(c.into());
    at.action = format!("the human's rocket at `{cell}`");
    let h = enter(talk, at, sheet, &cell)?;
    Ok(rocket_heard(h, at, c, (move_no, line), rec))
}

/// Records the program's answer `h` to the human's rocket at `c`.
fn rocket_heard(
    h: Heard,
    at: &Progress,
    c: Cell,
    (move_no, line): (usize, usize),
    rec: &mut Record,
) -> Heard {
    rec.rounds.push(Round {
        cell: c,
        text: h.text.clone(),
        move_no,
        line,
        name: at.move_name.clone(),
    });
    // A grid with a whole fleet sunk ends the game, whether or not the program then ends or
    // offers another game: no more rockets are sent.
    rec.program_ended = h.ended;
    rec.ended = h.ended || fleet_sunk_in(&h.text);
    h
}

/// Whether a grid in `text` shows one player's 6 ships all sunk (6 `S` or 6 `s`): ships
/// sink at one rocket and show once called, so only a game that is over shows that.
fn fleet_sunk_in(text: &str) -> bool {
    grids(text).iter().any(|g| {
        let count = |ch: char| g.iter().flatten().filter(|c| **c == ch).count();
        count('S') >= 6 || count('s') >= 6
    })
}

/// A divergence unless `h` refuses the entry that answered `question` (an error word, or
/// the same question again).
///
/// With `generic` prompts (every entry asked with the same words), only words say it.
fn refused(question: &str, generic: bool, h: &Heard, entry: &str, why: &str) -> Result<(), Stop> {
    let taken = read::has_stem(&h.text, &["already", "occupied", "taken"]);
    let worded = h.text.lines().any(refuses);
    // An accepted rocket shows its grid; a question asked again after one is the next turn.
    let played = !grids(&h.text).is_empty();
    if taken || worded || (!generic && !played && asked_again(question, &h.text)) {
        return Ok(());
    }
    Err(Stop::diverged(
        Lost::Refused,
        format!("`{entry}` refused: {why}"),
        if h.ended {
            "the program ended".to_string()
        } else {
            "no error message; the entry was taken".to_string()
        },
    ))
}

/// Glyphs a program may draw one kind of position with instead of the handout's: one per
/// grid is read (see [`Foreign`]).
const FOREIGN: [char; 8] = ['x', 'X', 'o', 'O', '.', '#', '@', '~'];

/// The 8×8 grids in `text`, in the handout's alphabet and at most one glyph of
/// [`FOREIGN`] (kept as drawn), row labels parted from the cells or glued to the first
/// one (`3_ * s _ ...`).
fn grids(text: &str) -> Vec<Grid> {
    let text = read::unglue_labels(text, 8);
    read::grids(&text, 8, 8, &|c| {
        ALPHABET.contains(&c) || FOREIGN.contains(&c)
    })
    .into_iter()
    .filter(|g| {
        let odd: std::collections::BTreeSet<char> = g
            .iter()
            .flatten()
            .filter(|c| !ALPHABET.contains(c))
            .copied()
            .collect();
        odd.len() <= 1
    })
    .collect()
}

/// Why no grid could be read in `text`, for a failure: rows of 8 positions drawn with
/// glyphs outside the handout's (named), or no 8 rows of 8 positions at all.
fn no_grid(text: &str) -> String {
    let loose = read::grids(&read::unglue_labels(text, 8), 8, 8, &|c| !c.is_whitespace());
    let Some(g) = loose.last() else {
        return "no 8×8 grid (no 8 rows of 8 positions)".to_string();
    };
    let odd: std::collections::BTreeSet<char> = g
        .iter()
        .flatten()
        .filter(|c| !ALPHABET.contains(c))
        .copied()
        .collect();
    let names: Vec<String> = odd.iter().map(|c| format!("`{c}`")).collect();
    format!(
        "no grid that could be read: its 8 rows of 8 positions use {}, outside the handout's `_ s S g G *`",
        names.join(", ")
    )
}

fn transpose(g: &Grid) -> Grid {
    (0..g.len())
        .map(|r| (0..g.len()).map(|c| g[c][r]).collect())
        .collect()
}

fn as_grid(rows: &[String]) -> Grid {
    rows.iter()
        .map(|r| r.chars().filter(|c| *c != ' ').collect())
        .collect()
}

fn show(g: &Grid) -> String {
    g.iter()
        .map(|r| r.iter().map(char::to_string).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Replays the recorded game against the reference in the chosen reading of the spec's
/// decision grenade-during-double-turn, and in its other reading (an `accept_also` one);
/// keeps the reading that followed more of the game's rounds, then the one with fewer
/// failed rules (issue 35: the reading that explains the most of the game).
fn replay(
    rules: &Arc<Rules>,
    rec: &Record,
    at: &mut Progress,
    sheet: &mut Sheet,
) -> Result<(), Stop> {
    let base = || Progress {
        move_no: at.move_no,
        line: at.line,
        move_name: at.move_name.clone(),
        ..Progress::default()
    };
    let tried: Vec<_> = [false, true]
        .into_iter()
        .map(|cancel| {
            let mut p = base();
            let mut s = sheet.clone();
            let mut followed = 0;
            let r = replay_as(rules, rec, &mut p, &mut s, cancel, &mut followed);
            // The reading that explains the most of the game first (issue 35, item 5).
            let rank = (
                r.is_err(),
                std::cmp::Reverse(followed),
                s.failures(),
                std::cmp::Reverse(s.passes()),
            );
            (rank, p, s, r)
        })
        .collect();
    let best = tried
        .into_iter()
        .min_by_key(|(rank, ..)| *rank)
        .map(|(_, p, s, r)| (p, s, r));
    match best {
        Some((p, s, r)) => {
            *at = p;
            *sheet = s;
            r
        }
        None => Ok(()),
    }
}

/// The computer's ships and grenades as the end shows them (`S`, `G`), read in the
/// program's reading of "a letter and a number"; when no grid is revealed at the end, as
/// far as the grids printed during the game showed them (every cell once called keeps its
/// symbol): the rest of the judging does not depend on a reveal.
struct Seen {
    revealed: Option<Grid>,
    transposed: bool,
    ships: Vec<Cell>,
    grenades: Vec<Cell>,
}

/// Reads the end of the game. Errors (lost track): the grids do not show the human's items
/// where they were placed, in either reading.
fn seen(
    rules: &Rules,
    rec: &Record,
    final_text: &str,
    at: &mut Progress,
    sheet: &mut Sheet,
) -> Result<Seen, Stop> {
    let human_at = |g: &Grid| {
        rec.human.iter().all(|(i, c)| {
            let want = if rules.items[*i].grenade { 'g' } else { 's' };
            g[usize::from(c.row)][usize::from(c.col)] == want
        })
    };
    let revealed = rec.grids(final_text).last().cloned();
    let (transposed, revealed) = match revealed {
        Some(g) if human_at(&g) => (false, Some(g)),
        Some(g) if human_at(&transpose(&g)) => (true, Some(transpose(&g))),
        // The rounds are still followed, by what the grids of the game showed.
        Some(g) => {
            sheet.fail(
                Rule::RevealedGrid,
                at,
                "the human's ships (s) and grenades (g) where they were placed",
                show(&g),
                String::new(),
            );
            at.note = Some(
                "the last grid did not show the human's items where they were placed: the board holds the computer's items the grids showed during the game".to_string(),
            );
            (transposed_by_rounds(rec), None)
        }
        None => {
            sheet.fail(
                Rule::RevealedGrid,
                at,
                "after the winner, the grid showing every ship and grenade (step 7)",
                format!("{} at the end", no_grid(final_text)),
                String::new(),
            );
            at.note = Some(
                "no grid revealed the computer's items: the board holds those the grids showed during the game".to_string(),
            );
            (transposed_by_rounds(rec), None)
        }
    };
    // What the end shows, or else every grid of the game laid over each other.
    let mut union: Grid = vec![vec!['_'; 8]; 8];
    let all: Vec<Grid> = match &revealed {
        Some(g) => vec![g.clone()],
        None => rec
            .rounds
            .iter()
            .flat_map(|r| rec.grids(&r.text))
            .map(|g| if transposed { transpose(&g) } else { g })
            .collect(),
    };
    for g in &all {
        for (r, row) in g.iter().enumerate() {
            for (c, ch) in row.iter().enumerate() {
                if *ch != '_' {
                    union[r][c] = *ch;
                }
            }
        }
    }
    let mut ships = Vec::new();
    let mut grenades = Vec::new();
    for (r, row) in union.iter().enumerate() {
        for (c, ch) in row.iter().enumerate() {
            let cell = Cell {
                row: r as u8,
                col: c as u8,
            };
            match ch {
                'S' => ships.push(cell),
                'G' => grenades.push(cell),
                _ => {}
            }
        }
    }
    Ok(Seen {
        revealed,
        transposed,
        ships,
        grenades,
    })
}

/// Without a reveal: whether the program reads the letter as the row, from where the
/// human's rockets showed up (a called cell is never `_` again).
fn transposed_by_rounds(rec: &Record) -> bool {
    let mut plain = 0;
    let mut swapped = 0;
    for r in &rec.rounds {
        if let Some(g) = rec.grids(&r.text).first() {
            let (y, x) = (usize::from(r.cell.row), usize::from(r.cell.col));
            plain += usize::from(g[y][x] != '_');
            swapped += usize::from(g[x][y] != '_');
        }
    }
    swapped > plain
}

/// One replay; `cancel` picks the other reading of grenade-during-double-turn. `followed`:
/// how many of the human's rounds the replay followed (for choosing between readings).
///
/// The game is followed in the program's own turn order: a round whose grids do not keep
/// the reference's order is charged to the rule it breaks (who fired shows in which
/// position changed), and the reference then plays in the program's order. A rocket the
/// program refuses (an error, no grid) is charged to the rule it tests and not fired.
fn replay_as(
    rules: &Arc<Rules>,
    rec: &Record,
    at: &mut Progress,
    sheet: &mut Sheet,
    cancel: bool,
    followed: &mut usize,
) -> Result<(), Stop> {
    let final_text = rec
        .rounds
        .last()
        .map_or(rec.before_play.as_str(), |r| r.text.as_str());
    // Step 3 first: the initial grid needs nothing from the end of the game (all `_` reads
    // the same either way round).
    judge_initial_grid(rec, at, sheet);
    if let Some(r) = rec.rounds.last() {
        at.move_no = r.move_no;
        at.line = r.line;
        at.move_name = r.name.clone();
    }
    at.action = "the grid revealed at the end".into();
    at.output = Some(read::tail(final_text, 30));
    let seen = seen(rules, rec, final_text, at, sheet)?;
    judge_computer_layout(rules, rec, &seen, at, sheet)?;
    let mut game = Game::new(rules.clone());
    game.cancel_lost_turns(cancel);
    place_all(rules, rec, &seen, &mut game);
    let mut replay = Replay {
        rules,
        rec,
        seen,
        game,
        glyph_charged: false,
        computer_lost_turn: false,
    };
    for (k, round) in rec.rounds.iter().enumerate() {
        replay.round(k, round, at, sheet)?;
        *followed += 1;
    }
    replay.judge_end(final_text, at, sheet)
}

/// Step 3: the grid shown before the first rocket, every position `_`.
fn judge_initial_grid(rec: &Record, at: &mut Progress, sheet: &mut Sheet) {
    if let Some(r) = rec.rounds.first() {
        at.move_no = r.move_no;
        at.line = r.line;
        at.move_name = r.name.clone();
    }
    at.action = "the grid shown before the first rocket".into();
    at.output = Some(read::tail(&rec.before_play, 30));
    let blank: Grid = vec![vec!['_'; 8]; 8];
    match rec.grids(&rec.before_play).last() {
        Some(g) if *g == blank => sheet.pass(Rule::InitialGrid),
        Some(g) => sheet.fail(Rule::InitialGrid, at, show(&blank), show(g), String::new()),
        None => sheet.fail(
            Rule::InitialGrid,
            at,
            "the initial grid, every position `_` (step 3)",
            format!("{} before the first rocket", no_grid(&rec.before_play)),
            String::new(),
        ),
    }
}

/// Step 2: the computer's ships and grenades, each on a cell of its own, as the end shows
/// them. Errors (lost track): the end shows another number of ships than the computer has.
fn judge_computer_layout(
    rules: &Rules,
    rec: &Record,
    seen: &Seen,
    at: &Progress,
    sheet: &mut Sheet,
) -> Result<(), Stop> {
    let want = |grenade: bool| {
        rules
            .items
            .iter()
            .filter(|i| i.owner == COMPUTER && i.grenade == grenade)
            .count()
    };
    let (want_ships, want_grenades) = (want(false), want(true));
    let counted = seen.ships.len() == want_ships && seen.grenades.len() == want_grenades;
    if seen.revealed.is_some() || rec.ended {
        if counted {
            sheet.pass(Rule::ComputerLayout);
        } else if seen.revealed.is_some() || seen.ships.len() > want_ships {
            sheet.fail(
                Rule::ComputerLayout,
                at,
                format!(
                    "the computer's {want_ships} ships (S) and {want_grenades} grenades (G), each on a cell of its own (step 2: \"making sure that ... there is nothing at that position already\")"
                ),
                format!(
                    "{} S and {} G:\n{}",
                    seen.ships.len(),
                    seen.grenades.len(),
                    show(seen.revealed.as_ref().unwrap_or(&vec![vec!['_'; 8]; 8]))
                ),
                String::new(),
            );
        }
    }
    if seen.ships.len() != want_ships && (seen.revealed.is_some() || rec.ended) {
        return Err(Stop::diverged(
            Lost::Revealed,
            format!("the computer's {want_ships} ships"),
            format!("{} ships shown", seen.ships.len()),
        ));
    }
    Ok(())
}

/// A replay in progress: the reference game, played in the program's own turn order.
struct Replay<'a> {
    rules: &'a Arc<Rules>,
    rec: &'a Record,
    seen: Seen,
    game: Game,
    /// Whether the program's foreign glyph has been charged (it is, once).
    glyph_charged: bool,
    /// The computer's rocket hit a grenade: the human's next two rockets come in a row.
    computer_lost_turn: bool,
}

impl Replay<'_> {
    /// A grid as the program printed it, read in its reading of "a letter and a number".
    fn read_grid(&self, g: &Grid) -> Grid {
        if self.seen.transposed {
            transpose(g)
        } else {
            g.clone()
        }
    }

    /// Follows the human's rocket `k` and what the program printed after it: the grid
    /// after the rocket, the computer's turns, and whatever else the round showed.
    /// Errors (lost track): the round cannot be followed.
    fn round(
        &mut self,
        k: usize,
        round: &Round,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) -> Result<(), Stop> {
        let cell = self.rules.notation.format(round.cell.into());
        at.move_no = round.move_no;
        at.line = round.line;
        at.move_name = round.name.clone();
        at.action = format!("the human's rocket {} at `{cell}`", k + 1);
        at.output = Some(read::tail(&round.text, 30));
        at.board = self.game.render(true);
        self.before_rocket(round, at, sheet)?;
        // Which rule the human's rocket tests, by what stood on the cell.
        let rule = rocket_rule(self.rules, &self.game, round.cell);
        let printed: Vec<Grid> = self
            .rec
            .grids(&round.text)
            .iter()
            .map(|g| self.read_grid(g))
            .collect();
        let mut shown = printed.iter();
        let Some(first) = shown.next() else {
            return refused_or_no_grid(rule, &round.text, at, sheet);
        };
        self.game.fire(Some(HUMAN), round.cell.into());
        at.board = self.game.render(true);
        let mut now = as_grid(&self.game.render(false));
        let human_lost_turn = rule == Rule::GrenadeCostsTurn;
        let grid_rule = if human_lost_turn {
            Rule::GridAfterRocket
        } else {
            rule
        };
        if *first != now {
            sheet.fail(grid_rule, at, show(&now), show(first), String::new());
            return Err(Stop::diverged(
                Lost::Grid,
                format!("the grid after the human's rocket at `{cell}`"),
                differences(self.rules, &now, first),
            ));
        }
        sheet.pass(grid_rule);
        sheet.pass(Rule::GridAfterRocket);
        let (computer_turns, turns_kept) =
            self.computer_turns(&mut shown, &mut now, human_lost_turn, at, sheet)?;
        // The computer's rockets after the human's grenade came in the reference's order
        // (twice; once when a grenade of its own cancels the double turn, the accepted other
        // reading of grenade-during-double-turn): the lost turn was kept.
        if human_lost_turn && computer_turns >= 1 && turns_kept {
            sheet.pass(Rule::GrenadeCostsTurn);
        }
        // Whatever else it printed this round: the same grid again, the revealed one, or
        // a computer rocket where the human should play again.
        for g in shown {
            self.extra_grid(g, rule, round, &mut now, at, sheet)?;
        }
        // A round with no computer rocket after the computer's grenade: the human played
        // twice, the computer's lost turn was kept.
        if self.computer_lost_turn && computer_turns == 0 {
            sheet.pass(Rule::GrenadeCostsTurn);
            self.computer_lost_turn = false;
        }
        Ok(())
    }

    /// Before the human's rocket is fired: the foreign glyph charged once, the game not
    /// over yet (errors: lost track), and the human's turn (else charged, and followed).
    fn before_rocket(
        &mut self,
        round: &Round,
        at: &Progress,
        sheet: &mut Sheet,
    ) -> Result<(), Stop> {
        if let Some(f) = self
            .rec
            .foreign
            .filter(|f| !self.glyph_charged && f.drawn_in(&round.text))
        {
            self.glyph_charged = true;
            sheet.fail(
                Rule::GridAfterRocket,
                at,
                f.expected(),
                format!(
                    "`{}` (read as `{}` to follow the game)",
                    f.glyph, f.stands_for
                ),
                String::new(),
            );
        }
        if self.game.end().is_some() {
            sheet.fail(
                Rule::Winner,
                at,
                format!(
                    "the game over and a winner declared (the {} had no ship left)",
                    loser(&self.game)
                ),
                "the program asked for another rocket",
                String::new(),
            );
            return Err(Stop::diverged(
                Lost::GameOver,
                "the game over",
                "the program went on",
            ));
        }
        if self.game.next_player() != "human" {
            // The program gives the human the turn: charged, and followed.
            sheet.fail(
                Rule::GrenadeCostsTurn,
                at,
                "the computer's turn (the human hit a grenade, so the computer plays twice)",
                "the program asked the human for a rocket",
                String::new(),
            );
            self.game.set_next(HUMAN);
        }
        Ok(())
    }

    /// The computer's turns after the human's rocket, each shown by the next grid of
    /// `shown`. Returns how many it played and whether the program kept the reference's
    /// order (a missing turn is charged, and the human plays next).
    fn computer_turns<'g>(
        &mut self,
        shown: &mut impl Iterator<Item = &'g Grid>,
        now: &mut Grid,
        human_lost_turn: bool,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) -> Result<(usize, bool), Stop> {
        let mut computer_turns = 0;
        while self.game.end().is_none() && self.game.next_player() == "computer" {
            computer_turns += 1;
            let Some(g) = shown.next() else {
                let (why, rule) = if computer_turns > 1 || human_lost_turn {
                    (
                        if computer_turns > 1 {
                            "the computer's second turn in a row (the human hit a grenade)"
                        } else {
                            "the computer's turn, twice in a row (the human hit a grenade)"
                        },
                        Rule::GrenadeCostsTurn,
                    )
                } else {
                    ("the computer's turn", Rule::ComputerTurn)
                };
                sheet.fail(
                    rule,
                    at,
                    format!("{why}, then its grid (step 5)"),
                    "the program asked the human for the next rocket",
                    String::new(),
                );
                // Followed in the program's order: the human plays next.
                self.game.set_next(HUMAN);
                return Ok((computer_turns, false));
            };
            self.computer_lost_turn |= computer_rocket(&mut self.game, g, now, at, sheet)?;
        }
        Ok((computer_turns, true))
    }

    /// A grid the round showed after the computer's turns: the same grid again or the
    /// revealed one (nothing to judge), a computer rocket where the human should play
    /// again (charged, and followed), or else a turn out of order (errors: lost track).
    /// `rule`: the rule the human's rocket tested.
    fn extra_grid(
        &mut self,
        g: &Grid,
        rule: Rule,
        round: &Round,
        now: &mut Grid,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) -> Result<(), Stop> {
        let over = self.game.end().is_some();
        let plain = as_grid(&self.game.render(false));
        let full = as_grid(&self.game.render(true));
        if *g == plain || (over && is_reveal(g, &full)) {
            return Ok(());
        }
        let fresh = changed_cells(&plain, g);
        let one_new =
            matches!(fresh.as_slice(), [c] if plain[usize::from(c.row)][usize::from(c.col)] == '_');
        if !over && one_new {
            // The computer fires again where the reference has the human play: charged
            // to the rule the round tests when the human re-called an exploded grenade
            // (it cost a turn again), else to the computer's lost turn; and followed.
            let recalled_grenade = rule == Rule::RecalledDoesNothing
                && self
                    .game
                    .occupant(round.cell)
                    .is_some_and(|i| self.rules.items[i].grenade);
            let charged = if recalled_grenade {
                rule
            } else {
                Rule::GrenadeCostsTurn
            };
            let name = self.rules.notation.format(fresh[0].into());
            sheet.fail(
                charged,
                at,
                if charged == Rule::GrenadeCostsTurn {
                    "the human's turn again (the computer hit a grenade, so the human plays twice)"
                } else {
                    "the human's turn: the re-called position did nothing, so no turn was lost"
                },
                format!("the computer fired again, at `{name}`"),
                String::new(),
            );
            self.game.set_next(COMPUTER);
            self.computer_lost_turn = false;
            computer_rocket(&mut self.game, g, now, at, sheet)?;
            return Ok(());
        }
        let (rule, why) = if over {
            (
                Rule::Winner,
                format!(
                    "no more rockets: the game was over (the {} had no ship left), and at most the grid revealed (step 7)",
                    loser(&self.game)
                ),
            )
        } else {
            (
                Rule::GrenadeCostsTurn,
                "the human's turn (the computer hit a grenade, so the human plays twice)"
                    .to_string(),
            )
        };
        let got = describe_change(self.rules, &plain, g, &fresh);
        sheet.fail(rule, at, why.clone(), got.clone(), String::new());
        Err(Stop::diverged(Lost::Turn, why, got))
    }

    /// The end of the game: over where the reference's is (else charged to `winner`,
    /// lost track), the revealed grid (step 7) and the winner declared (step 6).
    fn judge_end(
        &self,
        final_text: &str,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) -> Result<(), Stop> {
        at.action = "the end of the game".into();
        at.output = Some(read::tail(final_text, 30));
        let game = &self.game;
        if game.end().is_none() {
            let got = if self.rec.program_ended {
                "the program ended"
            } else {
                "the program stopped asking for rockets"
            };
            sheet.fail(
                Rule::Winner,
                at,
                "the game goes on: both players still have ships",
                got,
                String::new(),
            );
            return Err(Stop::diverged(Lost::GameOver, "the game goes on", got));
        }
        let full = as_grid(&game.render(true));
        if let Some(revealed) = &self.seen.revealed {
            if is_reveal(revealed, &full) {
                sheet.pass(Rule::RevealedGrid);
            } else {
                sheet.fail(
                    Rule::RevealedGrid,
                    at,
                    show(&full),
                    show(revealed),
                    String::new(),
                );
            }
        }
        let winner = if game.winner() == Some("human") {
            "human"
        } else {
            "computer"
        };
        let declared = declared_winner(final_text);
        if declared == Some(winner) {
            sheet.pass(Rule::Winner);
        } else {
            sheet.fail(
                Rule::Winner,
                at,
                format!(
                    "the {winner} declared the winner (step 6; the {} has no ship left)",
                    loser(game)
                ),
                declared.map_or(
                    "no winner declared (e.g. \"You win!\" or \"The computer wins.\")".to_string(),
                    |w| format!("the {w}"),
                ),
                String::new(),
            );
        }
        Ok(())
    }
}

/// A human rocket the program printed no grid for: refused (an error, asked again) it is
/// charged to `rule`, the rule it tests, and not fired; otherwise the missing grid is
/// charged and the game lost track of.
fn refused_or_no_grid(
    rule: Rule,
    text: &str,
    at: &Progress,
    sheet: &mut Sheet,
) -> Result<(), Stop> {
    if refuses_rocket(text) && !text.trim().is_empty() {
        sheet.fail(
            rule,
            at,
            refused_rocket_expected(rule),
            "the program refused the rocket and asked for another",
            String::new(),
        );
        return Ok(());
    }
    sheet.fail(
        Rule::GridAfterRocket,
        at,
        "the grid after the human's rocket (step 4: \"display the new grid\")",
        no_grid(text),
        String::new(),
    );
    Err(Stop::diverged(Lost::Grid, "a grid", "none"))
}

/// One computer rocket shown by grid `g` after `now`: the one position it reveals is fired
/// for the computer (none: a re-called position, spec decision computer-repeats), and `g`
/// must then show the reference's grid. `Ok(true)`: the rocket hit a grenade not called
/// before (the computer's next turn is lost).
fn computer_rocket(
    game: &mut Game,
    g: &Grid,
    now: &mut Grid,
    at: &mut Progress,
    sheet: &mut Sheet,
) -> Result<bool, Stop> {
    let mut grenade = false;
    let changed = changed_cells(now, g);
    match changed.as_slice() {
        [] => {
            // A re-called cell: nothing happens, the turn is used (spec decision
            // computer-repeats).
            let again = (0..8u8)
                .flat_map(|r| (0..8u8).map(move |c| Cell { row: r, col: c }))
                .find(|c| game.was_targeted(*c))
                .unwrap_or(Cell { row: 0, col: 0 });
            game.fire(Some(COMPUTER), again.into());
        }
        [c] if now[usize::from(c.row)][usize::from(c.col)] == '_' => {
            grenade = game
                .occupant(*c)
                .is_some_and(|i| game.rules().items[i].grenade);
            game.fire(Some(COMPUTER), (*c).into());
        }
        _ => {
            let what = format!(
                "{} positions changed at once: {}",
                changed.len(),
                changed
                    .iter()
                    .map(|c| game.rules().notation.format((*c).into()))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            sheet.fail(
                Rule::ComputerTurn,
                at,
                "one computer rocket: one position not called before is revealed",
                what.clone(),
                String::new(),
            );
            return Err(Stop::diverged(Lost::Grid, "one changed position", what));
        }
    }
    at.board = game.render(true);
    let drawn = as_grid(&game.render(false));
    if *g != drawn {
        sheet.fail(Rule::ComputerTurn, at, show(&drawn), show(g), String::new());
        return Err(Stop::diverged(
            Lost::Grid,
            "the grid after the computer's rocket",
            differences(game.rules(), &drawn, g),
        ));
    }
    *now = drawn;
    sheet.pass(Rule::ComputerTurn);
    Ok(grenade && game.end().is_none())
}

/// The positions where `g` differs from `before`.
fn changed_cells(before: &Grid, g: &Grid) -> Vec<Cell> {
    (0..8u8)
        .flat_map(|r| (0..8u8).map(move |c| Cell { row: r, col: c }))
        .filter(|c| {
            g[usize::from(c.row)][usize::from(c.col)]
                != before[usize::from(c.row)][usize::from(c.col)]
        })
        .collect()
}

/// How a printed grid `got` differs from the reference's `want`, in words (for a loss of
/// track: a sentence, never a grid beside it).
fn differences(rules: &Rules, want: &Grid, got: &Grid) -> String {
    let cells: Vec<String> = changed_cells(want, got)
        .iter()
        .map(|c| {
            let (r, k) = (usize::from(c.row), usize::from(c.col));
            format!(
                "{} shown as `{}` where the reference has `{}`",
                rules.notation.format((*c).into()),
                got[r][k],
                want[r][k]
            )
        })
        .collect();
    format!("a grid with {}", cells.join(", "))
}

/// A grid that should not have been printed, in words: which positions it changed.
fn describe_change(rules: &Rules, before: &Grid, g: &Grid, fresh: &[Cell]) -> String {
    if fresh.is_empty() {
        return "the same grid again".to_string();
    }
    let cells: Vec<String> = fresh
        .iter()
        .map(|c| {
            format!(
                "`{}` shown as `{}`",
                rules.notation.format((*c).into()),
                g[usize::from(c.row)][usize::from(c.col)]
            )
        })
        .collect();
    let was: usize = fresh
        .iter()
        .filter(|c| before[usize::from(c.row)][usize::from(c.col)] == '_')
        .count();
    format!(
        "another grid, with {} ({was} of them not called before)",
        cells.join(", ")
    )
}

/// Whether `g` is the final reveal of the game whose whole board is `full` (step 7: "the
/// position of all ships and grenades"): every ship and grenade in its letter as in `full`,
/// every other position `_` or `*`, called or not (decision final-reveal in the spec).
fn is_reveal(g: &Grid, full: &Grid) -> bool {
    g.iter().flatten().zip(full.iter().flatten()).all(|(a, b)| {
        if "sSgG".contains(*b) {
            a == b
        } else {
            *a == '_' || *a == '*'
        }
    })
}

/// Whether the program's answer to a rocket refuses it (an error word, or "You cannot fire
/// at your own position").
fn refuses_rocket(text: &str) -> bool {
    text.lines().any(refuses)
        || read::has_phrase(text, &["cannot", "can t", "can not", "not possible"])
}

/// What a refused rocket should have done, by the rule it tests.
fn refused_rocket_expected(rule: Rule) -> &'static str {
    match rule {
        Rule::OwnShipSinks => {
            "the rocket on the human's own ship accepted, and the ship sunk (\"where the opponent (or the player...) has a ship, then that ship sinks\")"
        }
        Rule::GrenadeCostsTurn => {
            "the rocket on a grenade accepted, and the shooter's next turn lost (\"where the opponent (or the player) has a grenade, then the player loses a turn\")"
        }
        Rule::RecalledDoesNothing => {
            "the rocket on a position called before accepted: nothing happens, and the turn is used (\"regardless of what was there before, nothing happens\")"
        }
        _ => "the rocket accepted and the new grid shown (step 4)",
    }
}

/// Places the human's items where they went and the computer's where the end showed them;
/// grenades the game never showed go on cells nobody called (they changed nothing).
fn place_all(rules: &Rules, rec: &Record, seen: &Seen, game: &mut Game) {
    let mut comp_ships = seen.ships.iter().copied();
    let mut comp_grenades = seen.grenades.iter().copied();
    let called: Vec<Cell> = rec.rounds.iter().map(|r| r.cell).collect();
    let mut taken: Vec<Cell> = rec
        .human
        .iter()
        .map(|(_, c)| *c)
        .chain(seen.ships.iter().copied())
        .chain(seen.grenades.iter().copied())
        .collect();
    let mut spare = (0..8u8)
        .rev()
        .flat_map(|r| (0..8u8).rev().map(move |c| Cell { row: r, col: c }));
    for (i, item) in rules.items.iter().enumerate() {
        let cell = if item.owner == HUMAN {
            rec.human.iter().find(|(j, _)| *j == i).map(|(_, c)| *c)
        } else if item.grenade {
            comp_grenades.next().or_else(|| {
                let c = spare.find(|c| !taken.contains(c) && !called.contains(c));
                taken.extend(c);
                c
            })
        } else {
            comp_ships.next()
        };
        if let Some(c) = cell {
            let _ = game.place_cells(i, &[c]);
        }
    }
}

/// The rule a human rocket on `c` tests: the shooter's own ship, a cell called before, or
/// the plain display of the new grid.
fn rocket_rule(rules: &Rules, game: &Game, c: Cell) -> Rule {
    if game.was_targeted(c) {
        return Rule::RecalledDoesNothing;
    }
    match game.occupant(c) {
        Some(i) if rules.items[i].owner == HUMAN && !rules.items[i].grenade => Rule::OwnShipSinks,
        Some(i) if rules.items[i].grenade => Rule::GrenadeCostsTurn,
        _ => Rule::GridAfterRocket,
    }
}

/// Who lost: the player with no ship left.
fn loser(game: &Game) -> &'static str {
    if game.winner() == Some("human") {
        "computer"
    } else {
        "human"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(rows: &str) -> Grid {
        rows.lines()
            .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect())
            .collect()
    }

    #[test]
    fn winners_in_any_person() {
        assert_eq!(
            declared_winner("Ha! I win! You have been defeated."),
            Some("computer")
        );
        assert_eq!(declared_winner("I won, human."), Some("computer"));
        assert_eq!(
            declared_winner("All my ships are gone. I lost..."),
            Some("human")
        );
        assert_eq!(declared_winner("You win!"), Some("human"));
    }

    #[test]
    fn a_map_of_the_items_is_the_reveal() {
        let full = grid(
            "s * _ _ _ _ _ _\n_ S _ _ _ _ _ _\n_ _ g _ _ _ _ _\n_ _ _ G _ _ _ _\n_ _ _ _ _ _ _ _\n_ _ _ _ _ _ _ _\n_ _ _ _ _ _ _ _\n_ _ _ _ _ _ _ *",
        );
        let items = grid(
            "s _ _ _ _ _ _ _\n_ S _ _ _ _ _ _\n_ _ g _ _ _ _ _\n_ _ _ G _ _ _ _\n_ _ _ _ _ _ _ _\n_ _ _ _ _ _ _ _\n_ _ _ _ _ _ _ _\n_ _ _ _ _ _ _ _",
        );
        assert!(is_reveal(&full, &full));
        assert!(is_reveal(&items, &full));
        let mut missing = items.clone();
        missing[3][3] = '_';
        assert!(!is_reveal(&missing, &full));
    }

    #[test]
    fn glued_labels_and_one_foreign_glyph_are_read() {
        let text = " A B C D E F G H\n1_ _ _ _ _ _ _ _\n2_ x _ _ _ _ _ _\n3_ _ _ _ _ _ _ _\n4_ _ _ _ _ _ _ _\n5_ _ _ _ _ _ _ _\n6_ _ _ _ _ _ _ _\n7_ _ _ _ _ _ _ _\n8s _ _ _ _ _ _ *\n";
        let g = grids(text);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0][1][1], 'x');
        assert_eq!(g[0][7][0], 's');
        // Two foreign glyphs in one grid: not read, and said why.
        let two = text.replace("8s", "8o");
        assert!(grids(&two).is_empty());
        assert!(no_grid(&two).contains("`o`, `x`"), "{}", no_grid(&two));
    }

    #[test]
    fn a_letter_asked_alone() {
        assert!(asks_letter("Ship 1:\nColumn (A-H): "));
        assert!(asks_letter("Enter the column letter:"));
        assert!(!asks_letter("Enter the position of your rocket (e.g. C4):"));
        assert!(!asks_letter("Enter a letter and a number:"));
        assert!(!asks_letter("Row (1-8):"));
    }
}
