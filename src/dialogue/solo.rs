//! The solo-10x10 `main()` dialogue (handout 001, "main()"): "(a) there must be an option
//! for the human player to quit the game at any time, (b) the program must never crash
//! (i.e., no termination with Python error messages), whatever the human player does".
//!
//! The submission's `main()` runs under `drivers/python_main.py`, which hands it a fleet
//! from the scenario's seed in place of `randomly_place_all_ships()`, so a played game's
//! messages ("You have a hit!", "You missed!", "You sank a …!", the final shot count) can be
//! checked against the reference for that fleet. A shot is sent as `row column` on one
//! line; when that is refused, as the row and then the column on lines of their own.

use super::read::{self, asked_again, has_phrase, has_stem, refuses, words};
use super::sheet::{Lost, RuleText, Sheet, rules};
use super::talk::{Heard, Stop, Talk};
use super::{DialogueDriver, MoveRules, Played, Progress, move_rows};
use crate::cell::{Cell, RawCell};
use crate::engine::{Game, Outcome, random_layout};
use crate::scenario::{Dialogue, Scenario};
use crate::spec::{Counter, Rules};
use crate::target::FaultKind;
use crate::target::Program;
use std::sync::Arc;

/// Lines no player should be able to crash the game with.
fn hostile_lines() -> Vec<String> {
    [
        "abc",
        "x y",
        "-1",
        "-1 -1",
        "10 10",
        "99 3",
        "3",
        "1 2 3",
        "3.5 2",
        "B 4",
        "0x1 2",
        "()",
        "'; import os",
        "\u{e9}\u{e8}\u{1f6a2}",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain(["9".repeat(5000), format!("1 {}", "1".repeat(400))])
    .collect()
}

/// Blank lines, sent last: main() may take one as "quit" (decision main-dialogue).
fn blank_lines() -> Vec<String> {
    vec![" ".repeat(200), String::new()]
}

/// Words a player may try to quit with, in order.
const QUIT_WORDS: [&str; 3] = ["q", "quit", "exit"];

rules! {
    /// The rules a solo-10x10 `main()` dialogue judges (handout 001, "main()" and the
    /// messages of the game it describes).
    pub(crate) enum Rule {
        NeverCrash => RuleText {
            id: "never-crash",
            title: "main() never ends with a Python error, whatever the player types",
            clause: "main(): \"(b) the program must never crash (i.e., no termination with Python error messages), whatever the human player does\"",
        },
        GoesOn => RuleText {
            id: "goes-on",
            title: "Input it cannot use does not end the game (only quitting does)",
            clause: "main(): \"(a) there must be an option for the human player to quit the game at any time\" (and only then does it end before the fleet is sunk)",
        },
        Quit => RuleText {
            id: "quit",
            title: "A quit command is offered and ends the game",
            clause: "main(): \"(a) there must be an option for the human player to quit the game at any time\"",
        },
        Outcome => RuleText {
            id: "outcome",
            title: "Each shot answers \"You have a hit!\", \"You missed!\" or \"You sank a <ship-type>!\" as the reference says",
            clause: "main(): \"The computer responds with one bit of information--'You have a hit!' or 'You missed!'\"; \"when a ship is hit and sinks, the program prints out a message 'You sank a _ship-type_!'\" (in place of the hit or after it: decision sinking-after-the-hit); repeated calls are misses",
        },
        Shots => RuleText {
            id: "shots",
            title: "The end tells how many shots the game took",
            clause: "main(): \"When all ships are sunk, the program ... tells how many shots were required\"",
        },
        Ended => RuleText {
            id: "ended",
            title: "main() goes on while ships are afloat",
            clause: "main(): the game goes on until all ships are sunk or the player quits",
        },
    }
}

/// The rules each move of a solo-10x10 plan judges (the plan grammar's moves, each once).
const MOVES: MoveRules<Rule> = &[
    ("hostile-input", &[Rule::NeverCrash, Rule::GoesOn]),
    ("end-of-input", &[Rule::NeverCrash]),
    ("quit", &[Rule::Quit]),
    ("play", &[Rule::Outcome, Rule::Shots, Rule::Ended]),
];

/// The solo-10x10 `main()` driver.
pub(crate) struct Driver;

impl DialogueDriver for Driver {
    fn assignment(&self) -> &'static str {
        "solo-10x10"
    }
    fn entry(&self) -> &'static str {
        "main"
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

/// Plays one solo-10x10 `main()` dialogue.
fn play(
    scenario: &Scenario,
    plan: &Dialogue,
    program: &Program,
    at: &mut Progress,
    sheet: &mut Sheet,
) -> Played {
    let rules = scenario.rules.clone();
    let layout = match random_layout(&rules, plan.seed) {
        Ok(l) => l,
        Err(e) => {
            return Played {
                talk: None,
                outcome: Err(Stop::diverged(
                    Lost::Plan,
                    "a fleet for main()",
                    e.to_string(),
                )),
            };
        }
    };
    let fleet: Vec<[serde_json::Value; 4]> = layout
        .iter()
        .map(|cells| {
            let horizontal = cells.len() < 2 || cells[0].row == cells[1].row;
            [
                cells[0].row.into(),
                cells[0].col.into(),
                horizontal.into(),
                cells.len().into(),
            ]
        })
        .collect();
    let env = [(
        "BROADSIDE_FLEET".to_string(),
        serde_json::to_string(&fleet).unwrap_or_default(),
    )];
    at.action = "start main()".into();
    let (mut talk, opening) = match super::open(program, plan, &env) {
        Ok(t) => t,
        Err(played) => {
            charge_crash(&played.outcome, at, sheet);
            return *played;
        }
    };
    let mut game = Game::new(rules.clone());
    for (i, cells) in layout.iter().enumerate() {
        let _ = game.place_cells(i, cells);
    }
    at.board = game.render(true);
    let mut solo = Solo {
        rules,
        game,
        split: false,
        heard: opening.text,
        ended: opening.ended,
        quit_on_blank: false,
    };
    let outcome = solo.moves(plan, &mut talk, at, sheet);
    if outcome.is_ok() {
        // Whatever ran to its end without a traceback kept the program alive.
        sheet.pass(Rule::NeverCrash);
    }
    charge_crash(&outcome, at, sheet);
    Played {
        talk: Some(talk),
        outcome,
    }
}

/// A game that ended in a Python traceback (an `exception` fault: `EOFError`, `ValueError`,
/// ...) or was killed (`crash`) has broken `never-crash` (handout 001, main(): "(b) the
/// program must never crash (i.e., no termination with Python error messages), whatever the
/// human player does"): the rule is failed, not left *not observed*, so every view that
/// reads the sheet (the report's lines, the Gradescope and PrairieLearn output, the class
/// report's rule table) charges it. A `missing` main(), a timeout or a limit is no crash
/// and charges nothing here. The failure carries no conversation or board: the fault
/// shown beside it holds the trace and the conversation's last lines.
fn charge_crash(outcome: &Result<(), Stop>, at: &mut Progress, sheet: &mut Sheet) {
    let Err(Stop::Faulted(f)) = outcome else {
        return;
    };
    if !matches!(f.kind, FaultKind::Exception | FaultKind::Crash) {
        return;
    }
    let actual = if f.kind == FaultKind::Exception {
        // The trace's last line at the margin: `EOFError: EOF when reading a line`.
        let last = f
            .message
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty() && !l.starts_with(' '))
            .unwrap_or_default()
            .trim();
        format!("a Python error: `{last}`")
    } else {
        format!("a crash: {}", f.message.lines().next().unwrap_or_default())
    };
    let board = std::mem::take(&mut at.board);
    sheet.fail(
        Rule::NeverCrash,
        at,
        "no termination with a Python error (handout: \"the program must never crash ... whatever the human player does\")",
        actual,
        String::new(),
    );
    at.board = board;
}

struct Solo {
    rules: Arc<Rules>,
    game: Game,
    /// Whether shots go as two lines (row, then column).
    split: bool,
    /// Everything heard so far (to find the quit command offered).
    heard: String,
    ended: bool,
    /// main() ended on a blank line, which it may (the rest of the plan is moot).
    quit_on_blank: bool,
}

impl Solo {
    fn moves(
        &mut self,
        plan: &Dialogue,
        talk: &mut Talk,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) -> Result<(), Stop> {
        for (k, m) in plan.moves.iter().enumerate() {
            at.move_no = k + 1;
            at.line = m.line;
            at.move_name = m.name.clone();
            talk.mark(at);
            if self.quit_on_blank {
                return Ok(());
            }
            if self.ended {
                return Err(Stop::diverged(
                    Rule::Ended,
                    format!("main() still running for `{}`", m.name),
                    "it had ended",
                ));
            }
            match m.name.as_str() {
                "hostile-input" => {
                    self.hostile(talk, at)?;
                    sheet.pass(Rule::GoesOn);
                }
                "quit" => {
                    self.quit(talk, at)?;
                    sheet.pass(Rule::Quit);
                    return Ok(());
                }
                "end-of-input" => {
                    at.action = "close the input (end of file)".into();
                    // A clean end, or a prompt that goes on waiting: both fine; a traceback
                    // is a fault (Talk reports it).
                    let _ = talk.close()?;
                    return Ok(());
                }
                "play" => self.play_game(talk, at, sheet)?,
                other => {
                    return Err(Stop::diverged(
                        Lost::Plan,
                        "a known move",
                        format!("`{other}`"),
                    ));
                }
            }
        }
        if !self.ended {
            let _ = talk.close();
        }
        Ok(())
    }

    fn hear(&mut self, h: &Heard) {
        self.heard.push_str(&h.text);
        self.ended |= h.ended;
    }

    /// Sends each hostile line; the game must go on, but a blank line may end it.
    fn hostile(&mut self, talk: &mut Talk, at: &mut Progress) -> Result<(), Stop> {
        for line in hostile_lines() {
            let shown: String = line.chars().take(40).collect();
            let more = if line.chars().count() > 40 { "…" } else { "" };
            at.action = format!("send `{shown}{more}` ({} characters)", line.chars().count());
            let h = talk.say(&line)?;
            self.hear(&h);
            if h.ended {
                return Err(Stop::diverged(
                    Rule::Ended,
                    "the game goes on after input it cannot use (only the quit command ends it)",
                    "main() returned",
                ));
            }
        }
        for line in blank_lines() {
            at.action = format!("send a blank line ({} spaces)", line.len());
            let h = talk.say(&line)?;
            self.hear(&h);
            if h.ended {
                self.quit_on_blank = true;
                return Ok(());
            }
        }
        Ok(())
    }

    /// The quit command: offered in what main() printed, and it ends the game cleanly.
    fn quit(&mut self, talk: &mut Talk, at: &mut Progress) -> Result<(), Stop> {
        at.action = "look for a quit command in what main() printed".into();
        let offered = has_stem(&self.heard, &["quit", "exit", "stop", "leave"])
            || words(&self.heard).iter().any(|w| w == "q");
        if !offered {
            return Err(Stop::diverged(
                Rule::Quit,
                "main() tells the player how to quit (handout: \"there must be an option for the human player to quit the game at any time\")",
                "no mention of quit, exit or q",
            ));
        }
        let mut tried = Vec::new();
        for word in QUIT_WORDS {
            tried.push(format!("`{word}`"));
            at.action = format!("quit: sent {}", tried.join(", then "));
            let mut h = talk.say(word)?;
            self.hear(&h);
            // "Are you sure you want to quit? (y/n)": yes.
            if !h.ended && (has_phrase(&h.text, &["y n", "yes no", "are you sure"])) {
                tried.push("`y`".into());
                at.action = format!("quit: sent {}", tried.join(", then "));
                h = talk.say("y")?;
                self.hear(&h);
            }
            if h.ended {
                return Ok(());
            }
        }
        Err(Stop::diverged(
            Rule::Quit,
            "one of q, quit, exit ends the game",
            "main() went on asking",
        ))
    }

    /// Plays the whole game: a miss, a repeated miss, then every ship cell; checks each
    /// message and the final shot count.
    fn play_game(
        &mut self,
        talk: &mut Talk,
        at: &mut Progress,
        sheet: &mut Sheet,
    ) -> Result<(), Stop> {
        let water = (0..self.rules.rows)
            .flat_map(|r| (0..self.rules.cols).map(move |c| Cell { row: r, col: c }))
            .find(|c| self.game.occupant(*c).is_none());
        let mut plan: Vec<Cell> = water.into_iter().chain(water).collect();
        for i in 0..self.rules.items.len() {
            plan.extend(self.game.item_cells(i).iter().copied());
        }
        for c in plan {
            self.shot(talk, at, c, sheet)?;
            if self.game.end().is_some() {
                break;
            }
        }
        sheet.pass(Rule::Ended);
        Ok(())
    }

    fn shot(
        &mut self,
        talk: &mut Talk,
        at: &mut Progress,
        c: Cell,
        sheet: &mut Sheet,
    ) -> Result<(), Stop> {
        let (r, col) = (c.row.to_string(), c.col.to_string());
        at.action = format!("shoot at row {r}, column {col}");
        let answer = self.game.fire(None, RawCell::from(c));
        at.board = self.game.render(true);
        let h = if self.split {
            self.split_shot(talk, &r, &col)?
        } else {
            let asked = talk.last_heard();
            let h = talk.say(&format!("{r} {col}"))?;
            if !h.ended
                && said(&h.text).is_none()
                && (refuses(&h.text) || asked_again(&asked, &h.text))
            {
                self.split = true;
                self.split_shot(talk, &r, &col)?
            } else {
                h
            }
        };
        self.hear(&h);
        let (expected, message) = match answer.outcome {
            Outcome::Sunk => (
                "sunk",
                format!("You sank a {}!", answer.ship.clone().unwrap_or_default()),
            ),
            Outcome::Hit => ("hit", "You have a hit!".to_string()),
            _ => ("miss", "You missed!".to_string()),
        };
        let got = said(&h.text);
        let right_ship = expected != "sunk"
            || answer
                .ship
                .as_deref()
                .is_some_and(|s| words(&h.text).iter().any(|w| w == s));
        if got == Some(expected) && right_ship {
            sheet.pass(Rule::Outcome);
        } else {
            sheet.fail(
                Rule::Outcome,
                at,
                format!(
                    "\"{message}\" (handout: the computer responds \"You have a hit!\" or \"You missed!\"; a sinking prints \"You sank a ship-type!\")"
                ),
                got.map_or("none of hit, missed, sank".to_string(), |w| {
                    if w == "sunk" && !right_ship {
                        "a sinking, without the right ship type".to_string()
                    } else {
                        format!("`{w}`")
                    }
                }),
                talk.tail(),
            );
        }
        if self.game.end().is_some() {
            let mut text = h.text.clone();
            if !h.ended
                && let Ok(more) = talk.close()
            {
                text.push_str(&more.text);
            }
            let shots = self.game.counter(Counter::Shots);
            let said_shots = read::number_near(&text, "shot");
            if said_shots == Some(i64::from(shots)) {
                sheet.pass(Rule::Shots);
            } else {
                sheet.fail(
                    Rule::Shots,
                    at,
                    format!(
                        "the game is over and took {shots} shots (handout: \"tells how many shots were required\")"
                    ),
                    said_shots.map_or("no number next to the word \"shots\"".to_string(), |n| {
                        n.to_string()
                    }),
                    talk.tail(),
                );
            }
            self.ended = true;
        } else if h.ended {
            return Err(Stop::diverged(
                Rule::Ended,
                "the game goes on: ships are afloat",
                "main() returned",
            ));
        }
        Ok(())
    }

    fn split_shot(&mut self, talk: &mut Talk, r: &str, c: &str) -> Result<Heard, Stop> {
        let first = talk.say(r)?;
        if first.ended || said(&first.text).is_some() {
            return Ok(first);
        }
        talk.say(c)
    }
}

/// The outcome main()'s answer says, by the handout's own messages: the earliest of "You
/// have a hit!", "You missed!" and "You sank a …!" (case and punctuation aside), so a board
/// legend printed after the shot ("letter = sunk ship") is not read as one. "You have a hit!"
/// whose next message is "You sank a …!" is a sinking announced in two lines, as the
/// handout's indicative main() does (decision sinking-after-the-hit): "The computer responds
/// with one bit of information--'You have a hit!' or 'You missed!' ... when a ship is hit
/// and sinks, the program prints out a message 'You sank a _ship-type_!'".
fn said(text: &str) -> Option<&'static str> {
    let flat = format!(" {} ", words(text).join(" "));
    let mut heard: Vec<(usize, &'static str)> = [
        (" you have a hit ", "hit"),
        (" you missed ", "miss"),
        (" you sank a ", "sunk"),
        (" you sank an ", "sunk"),
    ]
    .iter()
    .flat_map(|(p, w)| flat.match_indices(p).map(move |(at, _)| (at, *w)))
    .collect();
    heard.sort_unstable();
    match heard.as_slice() {
        [(_, "hit"), (_, "sunk"), ..] => Some("sunk"),
        [(_, w), ..] => Some(*w),
        [] => None,
    }
}

#[cfg(test)]
mod tests {
    use super::said;

    /// Issue 35, item 13: the indicative main()'s two lines on a sinking shot (decision
    /// sinking-after-the-hit) read as a sinking, not as a hit.
    #[test]
    fn a_hit_then_the_sinking_on_the_next_line_is_a_sinking() {
        assert_eq!(
            said("You have a hit!\nYou sank a battleship!\n"),
            Some("sunk")
        );
        assert_eq!(said("You sank a destroyer!\n"), Some("sunk"));
    }

    /// A hit with no sinking after it stays a hit, and a legend or a later message does not
    /// change what the first one said.
    #[test]
    fn a_plain_hit_or_miss_is_read_by_its_first_message() {
        assert_eq!(said("You have a hit!\nYour shot: "), Some("hit"));
        assert_eq!(
            said("You missed!\nYou sank a cruiser! (legend)"),
            Some("miss")
        );
        assert_eq!(
            said("You have a hit!\nYou missed!\nYou sank a cruiser!"),
            Some("hit")
        );
        assert_eq!(said("Shot at 3 4. Next?"), None);
    }
}
