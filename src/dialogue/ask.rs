//! What a program's prompt asks, read as a TA reads it: yes or no, a size, a shot, one
//! coordinate alone, a cell with the column first, the keys a menu offers. Nothing here is
//! one handout's: battleboats' driver reads its setup questions and turns with these, and a
//! new whole-program driver starts from them; what to answer is each handout's (its
//! driver's) to say.

use super::read::{self, has_phrase, has_stem, words};
use crate::engine::Axis;

/// Whether a (lower-cased) question asks yes or no, or true or false.
pub(super) fn is_yes_no(q: &str) -> bool {
    ["y/n", "(y)", "[y]", "yes/no", "y or n", "(n)"]
        .iter()
        .any(|p| q.contains(p))
        || has_phrase(
            q,
            &["yes or no", "y n", "yes no", "true or false", "true false"],
        )
}

/// Whether the last line of `text` asks for a cell on one line with the column first:
/// `column row`, `(col, row)`, `x = column`, `x is the column` (issue 35 item 8). A
/// driver takes the row first unless a prompt says this (battleboats' handout makes x the
/// row, §4).
pub(super) fn column_first(text: &str) -> bool {
    let last = read::last_line(text).unwrap_or("").to_lowercase();
    if has_phrase(
        &last,
        &[
            "x column",
            "x is the column",
            "x is column",
            "x col",
            "y row",
            "y is the row",
        ],
    ) {
        return true;
    }
    let ws = words(&last);
    let col = ws.iter().position(|w| w.starts_with("col"));
    let row = ws.iter().position(|w| w == "row" || w == "rows");
    matches!((col, row), (Some(c), Some(r)) if c < r)
}

/// Whether a prompt asks for the board's size.
pub(super) fn asks_size(q: &str) -> bool {
    has_stem(
        q,
        &[
            "size",
            "dimension",
            "how many rows",
            "number of rows",
            "number of col",
        ],
    ) || (has_stem(q, &["rows", "columns", "width", "height"]) && !asks_shot(q))
}

/// Whether a prompt asks for a shot.
pub(super) fn asks_shot(q: &str) -> bool {
    has_stem(
        q,
        &[
            "fire",
            "shoot",
            "target",
            "attack",
            "coordinate",
            "guess",
            "command",
        ],
    )
}

/// The one coordinate a prompt asks for, when it asks for one alone ("Enter column:",
/// "Row?", "x:").
pub(super) fn asks_one(text: &str) -> Option<Axis> {
    let last = read::last_line(text)?.to_lowercase();
    let ws = words(&last);
    let row = ws.iter().any(|w| w == "row" || w == "x");
    let col = ws.iter().any(|w| w.starts_with("col") || w == "y");
    match (row, col) {
        (true, false) => Some(Axis::Row),
        (false, true) => Some(Axis::Col),
        _ => None,
    }
}

/// The keys a question offers for an action whose words are `stems`: the letter in
/// brackets (`[F]ire`, `(f)ire`), or the one a `(f/m)` list gives the word's initial.
pub(super) fn action_keys(question: &str, stems: &[&str]) -> Vec<String> {
    let q = question.lines().last().unwrap_or("");
    let mut out = Vec::new();
    for w in q.split(|c: char| c.is_whitespace() || c == ',') {
        let lower = w.to_lowercase();
        let bare: String = lower.chars().filter(|c| c.is_alphabetic()).collect();
        if stems.iter().any(|s| bare.starts_with(s))
            && let Some(open) = w.find(['[', '('])
            && let Some(k) = w[open + 1..].chars().next()
            && k.is_alphabetic()
        {
            out.push(k.to_string());
        }
    }
    let initials: Vec<char> = stems.iter().filter_map(|s| s.chars().next()).collect();
    for group in q.split(['(', ')', '[', ']']) {
        let keys: Vec<&str> = group.split('/').map(str::trim).collect();
        if keys.len() >= 2 && keys.iter().all(|k| k.chars().count() == 1) {
            out.extend(
                keys.iter()
                    .filter(|k| {
                        k.chars()
                            .all(|c| initials.contains(&c.to_ascii_lowercase()))
                    })
                    .map(|k| k.to_string()),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_column_comes_first_only_where_the_prompt_says_so() {
        assert!(column_first(
            "Enter x (column) and y (row) to fire, or print:"
        ));
        assert!(column_first("Target (col row):"));
        assert!(!column_first("Enter row col, print, drone or missile:"));
        assert!(!column_first(
            "Type row and col to fire, or print, drone, missile:"
        ));
        assert!(!column_first(
            "Enter a target as \"row col\", or type print:"
        ));
        assert!(!column_first("Your move:"));
    }

    #[test]
    fn yes_or_no_is_told_from_other_questions() {
        assert!(is_yes_no("debug mode? (y/n)"));
        assert!(is_yes_no("show boats (true or false)?"));
        assert!(is_yes_no("play again? yes or no"));
        assert!(!is_yes_no("enter number of rows:"));
        assert!(!is_yes_no("you may not play yet"));
    }

    #[test]
    fn one_coordinate_asked_alone_is_named() {
        assert!(matches!(asks_one("Enter row:"), Some(Axis::Row)));
        assert!(matches!(asks_one("Column?"), Some(Axis::Col)));
        assert!(matches!(asks_one("x:"), Some(Axis::Row)));
        assert!(asks_one("Enter row and column:").is_none());
        assert!(asks_one("Your move:").is_none());
    }

    #[test]
    fn a_size_is_not_a_shot() {
        assert!(asks_size("enter the board size:"));
        assert!(asks_size("how many rows?"));
        assert!(!asks_size("enter rows and columns to fire at:"));
        assert!(asks_shot("enter rows and columns to fire at:"));
        assert!(!asks_shot("enter the board size:"));
    }
}
