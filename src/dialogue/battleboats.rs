//! The battleboats dialogue (handout 004): choose the mode, `print` to learn the layout,
//! then play planned moves and check each printed keyword and number against the
//! reference engine playing the same layout.
//!
//! Lines sent, as the handout's examples write them: `1` / `2` for the mode (§6), `print`
//! (§7), `x y` for a shot (§4, x the row), `drone` then `r` / `c` (or `row` / `column` when
//! the single letter is refused) then the index (§5 Drone), `missile` then `x y` (§5
//! Missile). Judged: `miss` / `hit` / `sunk` / `penalty` after each shot (§4), the drone's
//! count (§5), the used-up message past a power's limit (§5), refusals of bad power input
//! (§5), and the final turn and cannon-shot counts (§4). Not judged: the wording around
//! them, the board drawn before each turn (its format is free, §4), and what a missile
//! prints (the handout prescribes nothing; its cells are checked by later shots and the
//! counts).

use super::read::{self, asked_again, has_phrase, has_stem, integers, words};
use super::talk::{Heard, Stop, Talk};
use super::{Played, Progress};
use crate::cell::{Cell, RawCell};
use crate::engine::{Axis, Game, Outcome};
use crate::scenario::{Dialogue, Scenario};
use crate::spec::{Counter, Rules};
use crate::target::Program;
use std::collections::BTreeSet;
use std::sync::Arc;

/// The moves a battleboats dialogue may plan.
pub const MOVES: [&str; 14] = [
    "hit-each-boat",
    "sink-smallest",
    "miss",
    "repeat-hit",
    "repeat-miss",
    "off-board",
    "off-board-far",
    "drone-row",
    "drone-col",
    "drone-bad-input",
    "missile-corner",
    "missile-off-board",
    "fire-missile-cell",
    "sink-all",
];

/// Checks that a plan can be played: a repeat after a shot of its kind, a shot on a missile's
/// cell after a missile, and nothing after `sink-all` (which ends the game).
///
/// Errors: the index of the first move that cannot be played, and why.
pub fn check_plan(moves: &[&str]) -> Result<(), (usize, String)> {
    for (i, m) in moves.iter().enumerate() {
        let before = &moves[..i];
        let after_any = |names: &[&str]| before.iter().any(|b| names.contains(b));
        let problem = match *m {
            _ if after_any(&["sink-all"]) => Some("nothing after `sink-all` (it ends the game)"),
            "repeat-hit" if !after_any(&["hit-each-boat", "sink-smallest"]) => {
                Some("a hit before `repeat-hit` (`hit-each-boat` or `sink-smallest`)")
            }
            "repeat-miss" if !after_any(&["miss"]) => Some("a `miss` before `repeat-miss`"),
            "fire-missile-cell" if !after_any(&["missile-corner", "missile-off-board"]) => Some(
                "a missile before `fire-missile-cell` (`missile-corner` or `missile-off-board`)",
            ),
            _ => None,
        };
        if let Some(p) = problem {
            return Err((i, p.to_string()));
        }
    }
    Ok(())
}

/// Plays one battleboats dialogue.
pub fn play(scenario: &Scenario, plan: &Dialogue, program: &Program, at: &mut Progress) -> Played {
    at.action = "start the program and choose the mode".into();
    let (mut talk, opening) = match super::open(program, &[]) {
        Ok(t) => t,
        Err(played) => return *played,
    };
    let outcome = Boats::setup(scenario, &mut talk, opening, at)
        .and_then(|mut boats| boats.play(plan, &mut talk, at));
    Played {
        talk: Some(talk),
        outcome,
    }
}

/// The game as the reference plays it, and what the dialogue has learnt.
struct Boats {
    rules: Arc<Rules>,
    game: Game,
    /// Normalised lines the program prints every turn (prompts, legends): never read as
    /// an outcome.
    noise: BTreeSet<String>,
    /// Cells the last missile struck.
    missile_cells: Vec<Cell>,
    /// Whether the game has ended (and its counts were checked).
    over: bool,
    /// Whether shots go as two lines, x then y.
    split: bool,
}

impl Boats {
    /// Chooses the mode, then learns the layout from `print`.
    fn setup(
        scenario: &Scenario,
        talk: &mut Talk,
        opening: Heard,
        at: &mut Progress,
    ) -> Result<Boats, Stop> {
        let rules = scenario.rules.clone();
        let expert = rules.mode == "expert";
        let mut noise = noise_of(&opening.text);
        let (digit, word) = if expert {
            ("2", "expert")
        } else {
            ("1", "standard")
        };
        at.action = format!("choose {word} mode: sent `{digit}`");
        // Refused: the mode question comes again (its last line speaks of the mode).
        let refused = |question: &str, answer: &str| {
            let last = read::last_line(answer).unwrap_or("");
            asked_again(question, answer) && has_stem(last, &["standard", "expert", "mode"])
        };
        let mut heard = talk.say(digit)?;
        if refused(&opening.text, &heard.text) {
            at.action = format!("choose {word} mode: sent `{digit}`, refused, then `{word}`");
            let question = heard.text.clone();
            heard = talk.say(word)?;
            if refused(&question, &heard.text) {
                return Err(Stop::diverged(
                    "mode",
                    format!("`{digit}` (or `{word}`) chooses {word} mode (§6)"),
                    "both were refused",
                ));
            }
        }
        still_on(&heard, "after the mode was chosen")?;
        noise.extend(noise_of(&heard.text));
        at.action = "print the board: sent `print`".into();
        let shown = talk.say("print")?;
        still_on(&shown, "after `print`")?;
        noise.extend(noise_of(&shown.text));
        let layout = layout(&shown.text, &rules)?;
        let mut game = Game::new(rules.clone());
        let mut free: Vec<usize> = (0..rules.items.len()).collect();
        for cells in &layout {
            let Some(k) = free
                .iter()
                .position(|&i| usize::from(rules.items[i].length) == cells.len())
            else {
                return Err(Stop::diverged(
                    "layout",
                    fleet_words(&rules),
                    "a boat too many",
                ));
            };
            let item = free.remove(k);
            if let Err(e) = game.place_cells(item, cells) {
                return Err(Stop::diverged(
                    "layout",
                    fleet_words(&rules),
                    format!("boats that cannot stand there: {}", e.describe(&rules)),
                ));
            }
        }
        at.board = game.render(true);
        Ok(Boats {
            rules,
            game,
            noise,
            missile_cells: Vec::new(),
            over: false,
            split: false,
        })
    }

    fn play(&mut self, plan: &Dialogue, talk: &mut Talk, at: &mut Progress) -> Result<(), Stop> {
        for (i, m) in plan.moves.iter().enumerate() {
            at.move_no = i + 1;
            at.line = m.line;
            at.move_name = m.name.clone();
            if self.over {
                at.action = m.name.clone();
                return Err(Stop::diverged(
                    "plan",
                    "a game still on",
                    "the game was already over (every boat sunk); the scenario plans moves past the end",
                ));
            }
            self.one(&m.name, talk, at)?;
        }
        if !self.over {
            let _ = talk.close();
        }
        Ok(())
    }

    fn one(&mut self, name: &str, talk: &mut Talk, at: &mut Progress) -> Result<(), Stop> {
        match name {
            "hit-each-boat" => {
                for i in self.boats() {
                    let left = self.unfired_of(i);
                    if left.len() > 1 {
                        self.fire(talk, at, left[0].into(), "a boat")?;
                    }
                }
                Ok(())
            }
            "sink-smallest" => {
                let Some(i) = self
                    .boats()
                    .into_iter()
                    .filter(|&i| !self.game.is_sunk(i))
                    .min_by_key(|&i| (self.unfired_of(i).len(), i))
                else {
                    return Ok(());
                };
                for c in self.unfired_of(i) {
                    self.fire(talk, at, c.into(), "the smallest boat afloat")?;
                }
                Ok(())
            }
            "miss" => {
                let c = self
                    .cells()
                    .into_iter()
                    .find(|&c| self.game.occupant(c).is_none() && !self.game.was_targeted(c));
                match c {
                    Some(c) => self.fire(talk, at, c.into(), "open water"),
                    None => Ok(()),
                }
            }
            "repeat-hit" | "repeat-miss" => {
                let want_hit = name == "repeat-hit";
                let c = self.cells().into_iter().find(|&c| {
                    self.game.was_targeted(c) && self.game.occupant(c).is_some() == want_hit
                });
                match c {
                    Some(c) => self.fire(talk, at, c.into(), "a cell fired on before"),
                    None => Err(Stop::diverged(
                        "plan",
                        format!(
                            "a {} cell to fire on again",
                            if want_hit { "hit" } else { "missed" }
                        ),
                        "none yet: the scenario must plan a shot there first",
                    )),
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
                .find(|c| self.game.occupant(*c).is_none())
                .or_else(|| self.missile_cells.first().copied())
            {
                Some(c) => self.fire(talk, at, c.into(), "a cell the missile struck"),
                None => Err(Stop::diverged(
                    "plan",
                    "a cell a missile struck",
                    "no missile has struck yet: plan `missile-corner` first",
                )),
            },
            "sink-all" => {
                for i in self.boats() {
                    for c in self.unfired_of(i) {
                        if self.over {
                            return Ok(());
                        }
                        self.fire(talk, at, c.into(), "the last boats")?;
                    }
                }
                Ok(())
            }
            other => Err(Stop::diverged("plan", "a known move", format!("`{other}`"))),
        }
    }

    /// Fires at `at` and checks the keyword; at the game's end, the counts.
    fn fire(
        &mut self,
        talk: &mut Talk,
        at: &mut Progress,
        c: RawCell,
        why: &str,
    ) -> Result<(), Stop> {
        let line = format!("{} {}", c.row, c.col);
        at.action = format!("fire at ({}, {}), {why}: sent `{line}`", c.row, c.col);
        let answer = self.game.fire(None, c);
        let heard = if self.split {
            self.split_shot(talk, c)?
        } else {
            let asked = talk.last_heard();
            let h = talk.say(&line)?;
            if h.ended || self.outcome_said(&h.text).is_some() {
                h
            } else if asked_again(&asked, &h.text) {
                // Refused: the two numbers on lines of their own ("Enter x:", "Enter y:").
                self.split = true;
                at.action = format!(
                    "fire at ({}, {}), {why}: sent `{line}` (refused), then `{}` and `{}`",
                    c.row, c.col, c.row, c.col
                );
                self.split_shot(talk, c)?
            } else {
                // It took x and asks for y on a line of its own.
                at.action = format!(
                    "fire at ({}, {}), {why}: sent `{line}`, then `{}` when asked for more",
                    c.row, c.col, c.col
                );
                talk.say(&c.col.to_string())?
            }
        };
        at.board = self.game.render(true);
        let expected = answer.outcome.word();
        let said = self.outcome_said(&heard.text);
        if said != Some(expected) {
            return Err(Stop::diverged(
                "outcome",
                format!("a line saying `{expected}` (§4)"),
                match said {
                    Some(w) => format!("`{w}`"),
                    None => "none of miss, hit, sunk, penalty".to_string(),
                },
            ));
        }
        if self.game.end().is_some() {
            self.over = true;
            return self.final_counts(talk, heard);
        }
        still_on(&heard, "while boats were still afloat")
    }

    /// A shot as two lines, x then y (after `x y` on one line was refused).
    fn split_shot(&mut self, talk: &mut Talk, c: RawCell) -> Result<Heard, Stop> {
        let first = talk.say(&c.row.to_string())?;
        if first.ended || self.outcome_said(&first.text).is_some() {
            return Ok(first);
        }
        talk.say(&c.col.to_string())
    }

    /// Checks the turn and cannon-shot counts printed at the end (§4: "report how many turns
    /// it took to sink all the boats, as well as the total number of cannon shots").
    fn final_counts(&mut self, talk: &mut Talk, heard: Heard) -> Result<(), Stop> {
        let mut text = heard.text;
        if !heard.ended {
            // A program may ask something more (another game?): end of input answers it.
            if let Ok(more) = talk.close() {
                text.push_str(&more.text);
            }
        }
        let turns = self.game.counter(Counter::Turns);
        let shots = self.game.counter(Counter::Shots);
        let said_turns = read::number_near(&text, "turn");
        let said_shots = read::number_near(&text, "shot");
        if said_turns != Some(i64::from(turns)) {
            return Err(Stop::diverged(
                "turns",
                format!(
                    "{turns} turns at the end (§4; each penalty skips a turn, each power uses one)"
                ),
                said_turns.map_or("no number next to the word \"turns\"".to_string(), |n| {
                    n.to_string()
                }),
            ));
        }
        if said_shots != Some(i64::from(shots)) {
            return Err(Stop::diverged(
                "shots",
                format!("{shots} cannon shots at the end (§4; powers are not shots)"),
                said_shots.map_or("no number next to the word \"shots\"".to_string(), |n| {
                    n.to_string()
                }),
            ));
        }
        Ok(())
    }

    /// Uses the drone on a row or column chosen from the layout; with `bad_input`, first a
    /// wrong row/column answer and an off-board index, each of which must be refused.
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
        at.action = format!("use the drone on {word} {index}: sent `drone`");
        let answer = self.game.drone(axis, index);
        let heard = talk.say("drone")?;
        still_on(&heard, "after `drone`")?;
        if answer.outcome == Outcome::UsedUp {
            at.board = self.game.render(true);
            return used_up(&heard.text, "drone");
        }
        let mut question = heard.text.clone();
        if bad_input {
            at.action = "use the drone: sent `drone`, then `x` for row or column".to_string();
            let h = talk.say("x")?;
            if !asked_again(&question, &h.text) {
                return Err(Stop::diverged(
                    "refused",
                    "`x` refused as row or column and asked again (§5 Drone: \"alert them until they type in a valid response\")",
                    "no message saying it was invalid",
                ));
            }
        }
        at.action = format!("use the drone on {word} {index}: sent `drone`, `{letter}`");
        let mut h = talk.say(letter)?;
        if asked_again(&question, &h.text) {
            at.action = format!(
                "use the drone on {word} {index}: sent `drone`, `{letter}` (refused), `{word}`"
            );
            question = h.text.clone();
            h = talk.say(word)?;
            if asked_again(&question, &h.text) {
                return Err(Stop::diverged(
                    "drone",
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
            let h = talk.say(&off.to_string())?;
            if !asked_again(&asked, &h.text) {
                return Err(Stop::diverged(
                    "refused",
                    format!(
                        "{word} {off} refused and asked again (§5 Drone: \"If the user types in a number that is out of boundaries, the program should alert them\")"
                    ),
                    "no message saying it was invalid",
                ));
            }
        }
        at.action = format!("use the drone on {word} {index}: sent `drone`, `{letter}`, `{index}`");
        let h = talk.say(&index.to_string())?;
        at.board = self.game.render(true);
        still_on(&h, "after the drone's scan")?;
        let expected = answer.count.unwrap_or(0);
        let said = self.count_said(&h.text, index);
        if said != Some(i64::from(expected)) {
            return Err(Stop::diverged(
                "count",
                format!(
                    "the drone finds {expected} boat cells in {word} {index}, hit ones included (§5 Drone)"
                ),
                said.map_or(
                    "no count found (expected a line with the word drone or scan and the number)"
                        .to_string(),
                    |n| n.to_string(),
                ),
            ));
        }
        Ok(())
    }

    /// A row or column that holds a hit boat cell (a drone that skips hit cells shows), then
    /// preferably more boat cells, and a count that differs from its index (so a count is
    /// never mistaken for the index); else any with boats.
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

    /// Launches a missile at the corner whose clipped square holds water and the most boat
    /// cells not yet fired on; with `off_board`, first at an off-board centre, which must be
    /// refused.
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
                    .filter(|c| self.game.occupant(**c).is_some() && !self.game.was_targeted(**c))
                    .count();
                // Water in the square too, so `fire-missile-cell` can repeat a plain miss.
                let water = square.iter().any(|c| self.game.occupant(*c).is_none());
                (water, n, std::cmp::Reverse((centre.row, centre.col)))
            })
            .unwrap_or(RawCell { row: 0, col: 0 });
        let line = format!("{} {}", centre.row, centre.col);
        at.action = format!(
            "launch the missile at ({}, {}): sent `missile`",
            centre.row, centre.col
        );
        let answer = self.game.missile(centre);
        let heard = talk.say("missile")?;
        still_on(&heard, "after `missile`")?;
        if answer.outcome == Outcome::UsedUp {
            at.board = self.game.render(true);
            return used_up(&heard.text, "missile");
        }
        if off_board {
            let off = format!("{} {}", -1, self.rules.cols + 2);
            at.action =
                format!("launch the missile: sent `missile`, then the off-board centre `{off}`");
            let h = talk.say(&off)?;
            if !asked_again(&heard.text, &h.text) {
                return Err(Stop::diverged(
                    "refused",
                    format!(
                        "({off}) refused and asked again (§5 Missile: \"continue to ask the user to type in valid coordinates\")"
                    ),
                    "no message saying it was invalid",
                ));
            }
        }
        at.action = format!(
            "launch the missile at ({}, {}): sent `missile`, `{line}`",
            centre.row, centre.col
        );
        let h = talk.say(&line)?;
        at.board = self.game.render(true);
        let first_line = h.text.lines().find(|l| !l.trim().is_empty());
        if first_line.is_some_and(read::refuses) || self.outcome_said(&h.text) == Some("penalty") {
            return Err(Stop::diverged(
                "missile",
                format!(
                    "a missile at ({line}) strikes the 3×3 square clipped to the board (§5 Missile)"
                ),
                "it was refused",
            ));
        }
        self.missile_cells = answer.cells.iter().map(|(c, _)| *c).collect();
        if self.game.end().is_some() {
            self.over = true;
            return self.final_counts(talk, h);
        }
        still_on(&h, "after the missile")
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

    /// Which outcome the program's answer says: `penalty` if it says so anywhere, else
    /// `sunk`, else the first of `hit` and `miss`. Lines it printed before the first shot
    /// (prompts, legends) and counters (`Boats sunk: 1 of 5`, `Penalties: 0`) are skipped.
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

    /// The drone's count in its answer: the first number on the first line that speaks of a
    /// scan (`drone`, `scan`, `found`, boats, cells…), the scanned index left out of a line
    /// that names its row or column (then a later line may hold the count).
    fn count_said(&self, text: &str, index: i64) -> Option<i64> {
        let stems = [
            "drone", "scan", "found", "detect", "count", "target", "boat", "ship", "spot", "cell",
            "part", "square", "there",
        ];
        text.lines()
            .filter(|l| !self.noise.contains(&normalise(l)) && has_stem(l, &stems))
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

    /// A boat's cells not yet fired on.
    fn unfired_of(&self, i: usize) -> Vec<Cell> {
        self.game
            .item_cells(i)
            .iter()
            .copied()
            .filter(|c| !self.game.was_targeted(*c))
            .collect()
    }
}

/// A divergence unless the program is still asking (the game is not over).
fn still_on(heard: &Heard, when: &str) -> Result<(), Stop> {
    if heard.ended {
        return Err(Stop::diverged(
            "ended",
            format!("the program goes on {when}"),
            "it ended",
        ));
    }
    Ok(())
}

/// Checks the message for a power past its limit (§5: "a message will be printed notifying
/// them that they have already used that power as many times as they can").
fn used_up(text: &str, power: &str) -> Result<(), Stop> {
    let said = has_stem(
        text,
        &[
            "used", "max", "already", "limit", "exhaust", "none", "cannot", "left",
        ],
    ) || has_phrase(
        text,
        &["no more", "out of", "can t", "no longer", "not available"],
    );
    if said {
        return Ok(());
    }
    Err(Stop::diverged(
        "used-up",
        format!(
            "a message that the {power} has been used as many times as it can (§5 Powers), and no turn used"
        ),
        "no such message (was the power used again?)",
    ))
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

/// The boats `print` showed: the last window of the board's size in `text` whose non-water
/// symbols make straight boats of the fleet's lengths (water is the commonest symbol; each
/// other symbol is one boat, or several that do not touch).
fn layout(text: &str, rules: &Rules) -> Result<Vec<Vec<Cell>>, Stop> {
    let (rows, cols) = (usize::from(rules.rows), usize::from(rules.cols));
    let grids = read::windows(text, rows, cols, &|c| !c.is_whitespace());
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
    Err(Stop::diverged("layout", fleet_words(rules), last_problem))
}

/// The boats of one grid: water is the commonest symbol; every other symbol's cells split
/// into 4-connected groups, each a straight line.
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
}
