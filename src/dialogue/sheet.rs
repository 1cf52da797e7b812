//! A dialogue's marking sheet: the handout rules a scenario judges, each *passed*, *failed*
//! (with the evidence) or *not observed* (with why), as a TA marks a program. Reports call a
//! rule not observed *not judged*, and its why says whose it was: "broadside could not
//! follow the game after move 3 (…), because …" (broadside's own limit), "the program
//! stopped with a fault …" (the program's), or that the game gave no occasion — never as if
//! the program had not done it (issue 35, item 18).
//!
//! A driver reports what it sees as it plays (`pass`, `fail`) for any rule of its
//! assignment; the sheet keeps only the rules the scenario's plan judges
//! ([`super::DialogueDriver::rules`]), so a rule the plan does not ask about never costs a
//! point, however often the driver sees it. A failed rule does not end the game: only a
//! fault or a loss of track does, and the rules not reached are then *not observed*, with
//! the reason said as a sentence of its own (no `not reached:` prefix).

use super::Progress;
use crate::report::{Divergence, RuleResult, Verdict};

/// One handout rule a dialogue can judge: its id, title and clause, as reports show them.
#[derive(Debug)]
pub struct RuleText {
    /// Stable id, e.g. `penalty-on-repeat`.
    pub id: &'static str,
    /// What it says, in a sentence.
    pub title: &'static str,
    /// The handout clause, quoted briefly with its section.
    pub clause: &'static str,
}

/// A rule of one whole-program assignment, as a value of that assignment's `Rule` enum
/// (declared with `rules!`): a driver passes and fails rules by these values, so a rule
/// that is not in the assignment's table cannot be named (issue 38, item 3). A
/// `&'static RuleText` is one too, for code that holds a rule it was given.
pub trait RuleId: Copy {
    /// The rule's id, title and clause.
    fn text(self) -> &'static RuleText;
}

impl RuleId for &'static RuleText {
    fn text(self) -> &'static RuleText {
        self
    }
}

/// Declares a whole-program assignment's rules: an enum `Rule` with one variant per rule,
/// in the order its marking sheet lists them, and its table (`Rule::table()`) of ids, titles
/// and clauses. Each variant is named after its rule's id (`PenaltyOnRepeat` for
/// `penalty-on-repeat`), which the report shows; `tests` below check the ids are unique.
macro_rules! rules {
    ($(#[$doc:meta])* $vis:vis enum $name:ident { $($variant:ident => $text:expr,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis enum $name {
            $($variant,)*
        }

        impl $name {
            /// Every rule's text, in the enum's order: one table in a `static` (a `const`
            /// would be copied wherever it is used).
            $vis fn table() -> &'static [$crate::dialogue::sheet::RuleText] {
                static TABLE: &[$crate::dialogue::sheet::RuleText] = &[$($text,)*];
                TABLE
            }
        }

        impl $crate::dialogue::sheet::RuleId for $name {
            fn text(self) -> &'static $crate::dialogue::sheet::RuleText {
                &Self::table()[self as usize]
            }
        }
    };
}
pub(crate) use rules;

/// What a game that could not be followed further diverged on: a rule of the assignment
/// (charged to it where the sheet judges it), or a point where broadside lost track of
/// the program's game, which no rule is charged for.
#[derive(Clone, Copy, Debug)]
pub enum Check {
    Rule(&'static RuleText),
    Lost(Lost),
}

/// Where broadside can lose track of a program's game: named in the report's `check` of
/// the divergence that says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lost {
    /// A setup question asked again after every answer: the game never began.
    NeverStarted,
    /// The plan cannot be played against this program as written: a move the driver does
    /// not know, one out of order, no cell left for it, or no layout for the human.
    Plan,
    /// A grid missing or not the reference's.
    Grid,
    /// The layout could not be learnt.
    Layout,
    /// A turn out of the reference's order.
    Turn,
    /// The game over where the reference goes on, or the reverse.
    GameOver,
    /// The drone's question for a row or a column refused both ways of answering it.
    Drone,
    /// The program ended before the plan did.
    Ended,
    /// The revealed grid does not hold the computer's fleet.
    Revealed,
    /// A refused entry after which the program's input no longer lines up.
    LostTrack,
    /// A placement on an empty cell of the grid that the program refused.
    Placement,
    /// An entry the program should have refused and took: what it asks next is not what
    /// the plan expects.
    Refused,
    /// The program did not read the line sent.
    Input,
}

impl Check {
    /// The id the report's divergence names.
    pub fn id(self) -> &'static str {
        match self {
            Check::Rule(r) => r.id,
            Check::Lost(l) => l.id(),
        }
    }
}

impl Lost {
    /// The id the report's divergence names.
    pub fn id(self) -> &'static str {
        match self {
            Lost::NeverStarted => "never-started",
            Lost::Plan => "plan",
            Lost::Grid => "grid",
            Lost::Layout => "layout",
            Lost::Turn => "turn",
            Lost::GameOver => "game over",
            Lost::Drone => "drone",
            Lost::Ended => "ended",
            Lost::Revealed => "revealed",
            Lost::LostTrack => "lost-track",
            Lost::Placement => "placement",
            Lost::Refused => "refused",
            Lost::Input => "input",
        }
    }
}

impl<R: RuleId> From<R> for Check {
    fn from(rule: R) -> Check {
        Check::Rule(rule.text())
    }
}

impl From<Lost> for Check {
    fn from(lost: Lost) -> Check {
        Check::Lost(lost)
    }
}

/// One rule's row while the game is played.
#[derive(Clone)]
struct Row {
    rule: &'static RuleText,
    passes: usize,
    failure: Option<Divergence>,
    /// Failures after the first.
    more: usize,
    /// Why it could not be observed, when the driver knows.
    why_not: Option<String>,
}

/// The marking sheet of one dialogue.
#[derive(Clone)]
pub struct Sheet {
    /// Every rule of the assignment: a rule passed or failed must be one of these.
    all: &'static [RuleText],
    rows: Vec<Row>,
    /// The input conventions the program needed, for the report.
    pub conventions: Vec<String>,
    /// What a failure names as at fault ([`super::DialogueDriver::entry`]).
    pub entry: &'static str,
}

impl Sheet {
    /// A sheet judging `judged` (rules of `all`, in the order given; each once).
    pub fn new(all: &'static [RuleText], judged: &[&'static RuleText]) -> Sheet {
        let mut rows: Vec<Row> = Vec::new();
        for rule in judged {
            debug_assert!(all.iter().any(|r| r.id == rule.id));
            if rows.iter().any(|r| r.rule.id == rule.id) {
                continue;
            }
            rows.push(Row {
                rule,
                passes: 0,
                failure: None,
                more: 0,
                why_not: None,
            });
        }
        Sheet {
            all,
            rows,
            conventions: Vec::new(),
            entry: "the program",
        }
    }

    /// Notes the input conventions the program needed: `what` may hold several, `; `
    /// between them; each is kept once, however often a driver noted it (a board size asked
    /// for twice, say), and empty notes are dropped (issue 35, item 19).
    pub(crate) fn note(&mut self, what: String) {
        for one in what.split("; ").map(str::trim) {
            if !one.is_empty() && !self.conventions.iter().any(|c| c == one) {
                self.conventions.push(one.to_string());
            }
        }
    }

    /// Whether the sheet judges `rule`.
    pub fn judges(&self, rule: impl RuleId) -> bool {
        let rule = rule.text();
        self.rows.iter().any(|r| r.rule.id == rule.id)
    }

    /// `rule`'s row, when the sheet judges it. A rule of another assignment is a bug of
    /// the driver's, caught in tests.
    fn row(&mut self, rule: impl RuleId) -> Option<&mut Row> {
        let rule = rule.text();
        debug_assert!(
            self.all.iter().any(|r| r.id == rule.id),
            "rule {} is not one of this assignment's",
            rule.id
        );
        self.rows.iter_mut().find(|r| r.rule.id == rule.id)
    }

    /// The program was seen keeping `rule` once.
    pub fn pass(&mut self, rule: impl RuleId) {
        if let Some(r) = self.row(rule) {
            r.passes += 1;
        }
    }

    /// The program was seen breaking `rule`: the first time is kept in full (the move,
    /// what was expected, what it did, what it printed, the reference's board); later ones
    /// are counted. `tail`: the conversation's last lines, shown unless `at.output` holds
    /// what the program printed at that point (a replay after the game).
    pub fn fail(
        &mut self,
        rule: impl RuleId,
        at: &Progress,
        expected: impl Into<String>,
        actual: impl Into<String>,
        tail: String,
    ) {
        let entry = self.entry;
        let Some(r) = self.row(rule) else { return };
        if r.failure.is_some() {
            r.more += 1;
            return;
        }
        let clause = format!("{} — {}", r.rule.title, r.rule.clause);
        let (expected, actual) = (
            singular_after_one(&expected.into()),
            singular_after_one(&actual.into()),
        );
        let conversation = at.output.is_none() && !tail.is_empty();
        let output = at
            .output
            .clone()
            .or_else(|| (!tail.is_empty()).then_some(tail));
        r.failure = Some(Divergence {
            step: Some(at.move_no),
            line: at.line,
            action: at.describe(),
            check: r.rule.id.to_string(),
            expected,
            actual,
            note: at.note.clone(),
            conversation,
            output,
            board: at.board.clone(),
            function: Some(entry.to_string()),
            clause: Some(clause),
            ..Divergence::default()
        });
    }

    /// `rule` could not be observed, and why (kept unless it is passed or failed later).
    pub(crate) fn unobserved(&mut self, rule: impl RuleId, why: impl Into<String>) {
        if let Some(r) = self.row(rule)
            && r.why_not.is_none()
        {
            r.why_not = Some(why.into());
        }
    }

    /// How many rules failed.
    pub fn failures(&self) -> usize {
        self.rows.iter().filter(|r| r.failure.is_some()).count()
    }

    /// How many times rules were seen kept.
    pub fn passes(&self) -> usize {
        self.rows.iter().map(|r| r.passes).sum()
    }

    /// The first failure, in the sheet's order, with the conversation's tail where it has
    /// no output of its own.
    pub(crate) fn first_failure(&self) -> Option<&Divergence> {
        self.rows.iter().find_map(|r| r.failure.as_ref())
    }

    /// The sheet's verdicts. `cut`: why the game ended before the plan did (a fault, a loss
    /// of track), said in full as the reason a rule never seen was not judged. `line_of`:
    /// where the scenario's lines can be read (`of `broadside show NAME``), said beside
    /// each failure's line number.
    pub fn results(&self, cut: Option<&str>, line_of: &str) -> Vec<RuleResult> {
        self.rows
            .iter()
            .map(|r| {
                let (verdict, evidence) = match (&r.failure, r.passes) {
                    (Some(d), _) => (Verdict::Failed, evidence_of(d, r.more, line_of)),
                    (None, n) if n > 0 => (Verdict::Passed, String::new()),
                    (None, _) => (
                        Verdict::NotObserved,
                        match (cut, &r.why_not) {
                            (Some(c), _) => c.to_string(),
                            (None, Some(w)) => w.clone(),
                            (None, None) => "the game gave no occasion to see it".to_string(),
                        },
                    ),
                };
                RuleResult {
                    rule: r.rule.id.to_string(),
                    title: r.rule.title.to_string(),
                    clause: r.rule.clause.to_string(),
                    verdict,
                    evidence,
                }
            })
            .collect()
    }

    /// The share of the sheet passed (1 for an empty sheet).
    pub fn share(results: &[RuleResult]) -> f64 {
        if results.is_empty() {
            return 1.0;
        }
        let passed = results
            .iter()
            .filter(|r| r.verdict == Verdict::Passed)
            .count();
        passed as f64 / results.len() as f64
    }
}

/// A failure in two lines: the move and what was sent, then expected against actual. The
/// scenario line is said with where to read it (`line_of`).
fn evidence_of(d: &Divergence, more: usize, line_of: &str) -> String {
    let again = match more {
        0 => String::new(),
        1 => " (and once more later)".to_string(),
        n => format!(" (and {n} more times later)"),
    };
    format!(
        "move {}{}: {}\nexpected {}; got {}{again}",
        d.step.unwrap_or(0),
        if d.line > 0 {
            format!(" (line {} {line_of})", d.line)
        } else {
            String::new()
        },
        d.action,
        d.expected,
        d.actual
    )
}

/// Nouns that dialogue feedback counts (`6 ships`, `3 turns`), singular and plural.
const COUNTED: [(&str, &str); 16] = [
    ("ship", "ships"),
    ("boat", "boats"),
    ("grenade", "grenades"),
    ("rocket", "rockets"),
    ("shot", "shots"),
    ("turn", "turns"),
    ("cell", "cells"),
    ("hit", "hits"),
    ("miss", "misses"),
    ("time", "times"),
    ("move", "moves"),
    ("line", "lines"),
    ("spot", "spots"),
    ("penalty", "penalties"),
    ("item", "items"),
    ("round", "rounds"),
];

/// `text` with a counted noun after a lone `1` made singular: "1 ships" reads "1 ship"
/// (issue 35, item 19). Drivers format counts with one plural; this mends them in one
/// place, for every sentence a failure shows. `11 ships` and `0.1 ships` are left alone.
pub(crate) fn singular_after_one(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("1 ") {
        let before = &rest[..i];
        let lone = !before
            .chars()
            .last()
            .is_some_and(|c| c.is_ascii_digit() || c == '.' || c == ',');
        let after = &rest[i + 2..];
        let word_end = after
            .find(|c: char| !c.is_alphabetic())
            .unwrap_or(after.len());
        let word = &after[..word_end];
        let one = COUNTED
            .iter()
            .find(|(_, many)| *many == word)
            .map(|(one, _)| *one);
        out.push_str(before);
        out.push_str("1 ");
        match one {
            Some(one) if lone => out.push_str(one),
            _ => out.push_str(word),
        }
        rest = &after[word_end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::{Sheet, singular_after_one};
    use crate::dialogue::{assignments, driver};

    /// A rule passed or failed by its enum value lands on its row: rows are found by id,
    /// never by the address of the rule's text (a `const` table, copied where it is used,
    /// gave a release build rows that never matched).
    #[test]
    fn a_rule_given_by_value_lands_on_its_row() {
        use crate::dialogue::sheet::RuleId;
        let d = driver("solo-10x10").unwrap();
        let quit = d.rules().iter().find(|r| r.id == "quit").unwrap();
        let mut sheet = Sheet::new(d.rules(), &[quit]);
        assert!(sheet.judges(quit));
        sheet.pass(quit);
        assert_eq!(sheet.passes(), 1);
        let by_value = crate::dialogue::solo::Rule::Quit;
        assert!(sheet.judges(by_value));
        sheet.pass(by_value);
        assert_eq!(sheet.passes(), 2);
        assert_eq!(by_value.text().id, "quit");
    }

    /// Each driver's rule ids are unique: a report names a rule by its id.
    #[test]
    fn rule_ids_are_unique_within_an_assignment() {
        for id in assignments() {
            let rules = driver(id).unwrap().rules();
            for (i, r) in rules.iter().enumerate() {
                assert!(
                    rules[..i].iter().all(|o| o.id != r.id),
                    "{id}: rule {} twice",
                    r.id
                );
            }
        }
    }

    /// Each driver's table of what its moves judge has one row per move of the
    /// assignment's plan grammar, no more and no fewer: a move misspelt in either would
    /// judge nothing, silently.
    #[test]
    fn every_move_of_a_plan_grammar_has_its_rules() {
        for id in assignments() {
            let mut rows: Vec<&str> = driver(id).unwrap().moves().iter().map(|m| m.0).collect();
            let mut grammar = crate::scenario::plan::vocabulary(id).unwrap().to_vec();
            rows.sort_unstable();
            grammar.sort_unstable();
            assert_eq!(
                rows, grammar,
                "{id}: the driver's moves against its plan grammar"
            );
        }
    }

    /// A rubric part that groups a rule names one its assignment's driver judges: a typo
    /// there would leave the part's weight on nothing (issue 38, item 3).
    #[test]
    fn every_rule_a_rubric_groups_is_a_rule_its_driver_judges() {
        let specs = crate::spec::SpecSet::builtin();
        let mut grouped = 0;
        for id in specs.ids() {
            for rules in specs.get(id).unwrap().modes.values() {
                let Some(rubric) = &rules.rubric else {
                    continue;
                };
                for part in &rubric.parts {
                    for rule in &part.rules {
                        let d = driver(id).unwrap_or_else(|| {
                            panic!(
                                "{id}: part {} groups rule {rule}, but {id} is not a whole program",
                                part.name
                            )
                        });
                        assert!(
                            d.rules().iter().any(|r| r.id == rule),
                            "{id}: part {} groups rule {rule}, which its driver does not judge",
                            part.name
                        );
                        grouped += 1;
                    }
                }
            }
        }
        assert!(
            grouped > 10,
            "only {grouped} rules grouped in the bundled rubrics"
        );
    }

    #[test]
    fn each_convention_is_noted_once() {
        let mut sheet = Sheet::new(&[], &[]);
        sheet.note(
            "board size asked for: answered 8; a shot starts with `fire`; board size asked for: answered 8"
                .into(),
        );
        sheet.note("a shot starts with `fire`".into());
        sheet.note(String::new());
        assert_eq!(
            sheet.conventions,
            [
                "board size asked for: answered 8",
                "a shot starts with `fire`"
            ]
        );
    }

    #[test]
    fn one_ship_is_singular() {
        assert_eq!(singular_after_one("1 ships shown"), "1 ship shown");
        assert_eq!(
            singular_after_one("1 S and 1 grenades, 1 misses"),
            "1 S and 1 grenade, 1 miss"
        );
        assert_eq!(
            singular_after_one("11 ships, 21 turns"),
            "11 ships, 21 turns"
        );
        assert_eq!(
            singular_after_one("0.1 turns; 6 ships"),
            "0.1 turns; 6 ships"
        );
        assert_eq!(singular_after_one("row 1 shows"), "row 1 shows");
    }
}
