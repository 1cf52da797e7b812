//! Reading what a program printed: keywords, numbers and grids, tolerant of wording.
//!
//! Students word their prompts differently; what counts is the keyword and the numbers
//! (issue: "Tolerate wording around the keywords (case, punctuation, extra words)").

/// `text` without terminal escape sequences (colours, cursor moves: `ESC [ … letter`, and
/// a lone `ESC` with the character after it).
pub(crate) fn strip_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        if chars.next_if_eq(&'[').is_some() {
            for n in chars.by_ref() {
                if n.is_ascii_alphabetic() || n == '~' {
                    break;
                }
            }
        } else {
            chars.next();
        }
    }
    out
}

/// The words of `text`, lower-cased: runs of letters (digits and punctuation split them).
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether a word of `text` starts with one of `stems` (`"miss"` finds "MISSED!").
pub(crate) fn has_stem(text: &str, stems: &[&str]) -> bool {
    words(text)
        .iter()
        .any(|w| stems.iter().any(|s| w.starts_with(s)))
}

/// Whether `text` contains one of `phrases` (lower-cased, runs of spaces and punctuation
/// read as one space).
pub(crate) fn has_phrase(text: &str, phrases: &[&str]) -> bool {
    let flat = format!(" {} ", words(text).join(" "));
    phrases.iter().any(|p| flat.contains(&format!(" {p} ")))
}

/// Words that say an input was refused and will be asked again.
pub(crate) const REFUSED: [&str; 11] = [
    "invalid",
    "error",
    "try again",
    "not valid",
    "wrong",
    "illegal",
    "out of range",
    "out of bounds",
    "not allowed",
    // "That is off the board.", "That square is not on the board!"
    "off the board",
    "not on the board",
];

/// Whether `text` refuses the input it answers.
pub fn refuses(text: &str) -> bool {
    let flat = format!(" {} ", words(text).join(" "));
    REFUSED.iter().any(|p| flat.contains(&format!(" {p}")))
}

/// Whether `line` is a counter, not an outcome: a label with a number after its colon or
/// equals sign (`Penalties: 0`, `sunk = 2`), or "N of M" (`Boats sunk: 1 of 5`).
pub(crate) fn is_status_line(line: &str) -> bool {
    let labelled = line.split([':', '=']).skip(1).any(|rest| {
        rest.trim_start()
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    });
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let n_of_m = tokens.windows(3).any(|w| {
        w[0].trim_matches(|c: char| !c.is_ascii_digit())
            .parse::<u32>()
            .is_ok()
            && w[1].eq_ignore_ascii_case("of")
            && w[2]
                .trim_matches(|c: char| !c.is_ascii_digit())
                .parse::<u32>()
                .is_ok()
    });
    labelled || n_of_m
}

/// Whether `answer` refuses the line it answers: an error word ([`refuses`]) on its first
/// line (an intro further down that warns of "invalid" shots is no refusal), or the
/// `question` asked again word for word (its last line printed again). Only for lines that
/// should be refused or that choose one of two options: a program that asks every entry
/// with the same prompt repeats it after an accepted one too.
pub(crate) fn asked_again(question: &str, answer: &str) -> bool {
    let first = answer.lines().map(str::trim).find(|l| !l.is_empty());
    first.is_some_and(refuses) || same_question(question, answer)
}

/// Whether two answers end with the same question, word for word (the last line asked
/// again; or, where a program asks every entry with the same words, the next entry asked).
pub(crate) fn same_question(before: &str, after: &str) -> bool {
    last_line(before).is_some() && last_line(before) == last_line(after)
}

/// The last non-empty line of `text`, trimmed: the question a program asks last.
pub(crate) fn last_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).rfind(|l| !l.is_empty())
}

/// The integers in `text`, in order (a `-` right before digits makes them negative).
pub(crate) fn integers(text: &str) -> Vec<i64> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let digits: String = chars[start..i].iter().collect();
            let negative = start > 0 && chars[start - 1] == '-';
            if let Ok(n) = digits.parse::<i64>() {
                out.push(if negative { -n } else { n });
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The number printed for a word starting with `stem` ("turn" in "It took 25 turns",
/// "Turns: 25", "turns = 25"): after the word when a `:` or `=` follows it, else the number
/// right before it, else the next one after it on its line, else the nearest before.
/// `None` when no such word has a number in its line.
pub(crate) fn number_near(text: &str, stem: &str) -> Option<i64> {
    let number = |t: &str| {
        t.trim_matches(|c: char| !c.is_ascii_digit() && c != '-')
            .parse::<i64>()
            .ok()
    };
    for line in text.lines() {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        for (i, t) in tokens.iter().enumerate() {
            let word: String = t.trim_matches(|c: char| !c.is_alphabetic()).to_lowercase();
            if !word.starts_with(stem) {
                continue;
            }
            // "Turns: 25", "turns = 25", "Shots fired: 20": a colon or equals sign on the
            // word or the two tokens after it, before any number.
            let labelled = tokens[i..]
                .iter()
                .take(3)
                .take_while(|n| number(n).is_none())
                .any(|n| n.ends_with(':') || n.ends_with('='));
            let after = tokens[i + 1..].iter().find_map(|t| number(t));
            let before = i.checked_sub(1).and_then(|j| number(tokens[j]));
            let earlier = tokens[..i].iter().rev().find_map(|t| number(t));
            let found = if labelled {
                after.or(before)
            } else {
                before.or(after).or(earlier)
            };
            if found.is_some() {
                return found;
            }
        }
    }
    None
}

/// The cells of one printed board row, if `line` is one of `cols` cells: single-character
/// tokens separated by spaces (after an optional number label), or `cols` characters with
/// no spaces. `|` and `[`/`]` are read as spaces.
pub(crate) fn row_cells(line: &str, cols: usize) -> Option<Vec<char>> {
    let cleaned: String = line
        .chars()
        .map(|c| if matches!(c, '|' | '[' | ']') { ' ' } else { c })
        .collect();
    let tokens: Vec<&str> = cleaned.split_whitespace().collect();
    let single = |ts: &[&str]| ts.iter().all(|t| t.chars().count() == 1);
    if tokens.len() == cols && single(&tokens) {
        return Some(tokens.iter().filter_map(|t| t.chars().next()).collect());
    }
    // A row label: a number, or a letter (grids labelled A–H down the side).
    let label = |t: &str| {
        t.parse::<u32>().is_ok()
            || (t.chars().count() == 1 && t.chars().all(|c| c.is_ascii_alphabetic()))
    };
    if tokens.len() == cols + 1 && label(tokens[0]) && single(&tokens[1..]) {
        return Some(
            tokens[1..]
                .iter()
                .filter_map(|t| t.chars().next())
                .collect(),
        );
    }
    let compact = |t: &str| t.chars().count() == cols && !looks_like_a_word(t);
    if tokens.len() == 1 && compact(tokens[0]) {
        return Some(tokens[0].chars().collect());
    }
    if tokens.len() == 2 && tokens[0].parse::<u32>().is_ok() && compact(tokens[1]) {
        return Some(tokens[1].chars().collect());
    }
    None
}

/// Whether a run of characters without spaces reads as a word (`command?`, `GAMEOVER`), not
/// a board row: sentence punctuation, or letters only with three or more different ones.
fn looks_like_a_word(t: &str) -> bool {
    if t.chars().any(|c| "?!:,;'\"".contains(c)) {
        return true;
    }
    let letters: std::collections::BTreeSet<char> =
        t.chars().filter(|c| c.is_alphabetic()).collect();
    t.chars().all(char::is_alphabetic) && letters.len() >= 3
}

/// Every grid of `rows` × `cols` cells printed in `text`, in order: `rows` consecutive board
/// rows ([`row_cells`]). A header of column labels (`0 1 2 …`, `1 2 3 …`, `A B C …`) ends a
/// run; a run of several grids printed back to back splits into grids of `rows`, and any
/// rows left over at its start (a header the program drew its own way) are dropped.
/// `accept` filters the cells a row may hold.
pub(crate) fn grids(
    text: &str,
    rows: usize,
    cols: usize,
    accept: &dyn Fn(char) -> bool,
) -> Vec<Vec<Vec<char>>> {
    runs(text, cols, accept)
        .into_iter()
        .flat_map(|run| {
            let extra = run.len() % rows;
            run[extra..]
                .chunks(rows)
                .map(<[Vec<char>]>::to_vec)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Every `rows` consecutive board rows printed in `text` (overlapping windows of each run of
/// rows, in order): for finding one board among other rows that look like board rows.
pub fn windows(
    text: &str,
    rows: usize,
    cols: usize,
    accept: &dyn Fn(char) -> bool,
) -> Vec<Vec<Vec<char>>> {
    runs(text, cols, accept)
        .into_iter()
        .flat_map(|run| {
            run.windows(rows)
                .map(<[Vec<char>]>::to_vec)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The boards in `text` that may show a layout: grids of characters, then (before them,
/// so that a grid of characters is found first from the end) grids of word-like, signed or
/// blank cells (issue 35 item 11), each token read as a character of its own.
pub(crate) fn board_windows(text: &str, rows: usize, cols: usize) -> Vec<Vec<Vec<char>>> {
    let mut out = token_windows(text, rows, cols);
    out.extend(windows(text, rows, cols, &|c| !c.is_whitespace()));
    out
}

/// The cells that hold a boat on the last board of `rows` × `cols` in `text` whose
/// commonest symbol is water and which has `count` other cells: every symbol but the
/// water a boat cell (hits and misses drawn too are counted as boats only if they are not
/// the water symbol: a board printed before any shot shows only boats).
pub(crate) fn boat_cells(
    text: &str,
    rows: usize,
    cols: usize,
    count: usize,
) -> Option<std::collections::BTreeSet<crate::cell::Cell>> {
    board_windows(text, rows, cols)
        .iter()
        .rev()
        .find_map(|grid| {
            let mut counts = std::collections::BTreeMap::new();
            for row in grid {
                for c in row {
                    *counts.entry(*c).or_insert(0usize) += 1;
                }
            }
            let water = counts.iter().max_by_key(|(_, n)| **n).map(|(c, _)| *c)?;
            let cells: std::collections::BTreeSet<crate::cell::Cell> = grid
                .iter()
                .enumerate()
                .flat_map(|(r, row)| {
                    row.iter()
                        .enumerate()
                        .filter(move |(_, s)| **s != water)
                        .map(move |(c, _)| crate::cell::Cell {
                            row: r as u8,
                            col: c as u8,
                        })
                })
                .collect();
            (cells.len() == count).then_some(cells)
        })
}

/// The cells of one printed board row as tokens, for boards whose cells are not single
/// characters (issue 35 item 11): words (`~sea~`, `[boat]`), signed numbers (`-2`), marked
/// cells (`0(h)`), or tab-separated cells some of them blank. `cols` cells, after an
/// optional number label; a blank tab-separated cell is `""`.
pub(crate) fn row_tokens(line: &str, cols: usize) -> Option<Vec<String>> {
    let pick = |ts: Vec<String>| -> Option<Vec<String>> {
        if ts.len() == cols {
            Some(ts)
        } else if ts.len() == cols + 1 && ts[0].parse::<u32>().is_ok() {
            Some(ts[1..].to_vec())
        } else {
            None
        }
    };
    // Trailing spaces go, never a trailing tab: it ends a blank last cell.
    let line = line.trim_end_matches([' ', '\r']);
    if line.contains('\t') {
        let tabbed: Vec<String> = line
            .trim_start_matches(' ')
            .split('\t')
            .map(|t| t.trim().to_string())
            .collect();
        if let Some(ts) = pick(tabbed) {
            return Some(ts);
        }
    }
    pick(line.split_whitespace().map(String::from).collect())
}

/// Every `rows` consecutive board rows of `text` read by [`row_tokens`] (overlapping
/// windows of each run, in order), each distinct token drawn as one character of its own
/// (the same token, the same character, over the whole text), so boards of word-like cells
/// are read like boards of characters. A row of column labels (`0 1 2 …`, `1 2 3 …`) ends
/// a run, as does a row of one token repeated with no other (a rule line).
pub(crate) fn token_windows(text: &str, rows: usize, cols: usize) -> Vec<Vec<Vec<char>>> {
    let mut table: std::collections::BTreeMap<String, char> = std::collections::BTreeMap::new();
    let mut runs: Vec<Vec<Vec<char>>> = Vec::new();
    let mut run: Vec<Vec<char>> = Vec::new();
    for line in text.lines() {
        let row = row_tokens(line, cols).filter(|ts| {
            let header = ts
                .iter()
                .enumerate()
                .all(|(i, t)| t.parse::<usize>().is_ok_and(|n| n == i || n == i + 1));
            !header && !looks_like_a_sentence(ts)
        });
        match row {
            Some(ts) => {
                let cells = ts
                    .iter()
                    .map(|t| {
                        let next = char::from_u32(0xE000 + table.len() as u32).unwrap_or('?');
                        *table.entry(t.clone()).or_insert(next)
                    })
                    .collect();
                run.push(cells);
            }
            None if !run.is_empty() => runs.push(std::mem::take(&mut run)),
            None => {}
        }
    }
    if !run.is_empty() {
        runs.push(run);
    }
    runs.into_iter()
        .flat_map(|run| {
            run.windows(rows)
                .map(<[Vec<char>]>::to_vec)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Whether tokens read as a sentence, not cells: a token with sentence punctuation at its
/// end, or three or more long words.
fn looks_like_a_sentence(ts: &[String]) -> bool {
    let words = ts
        .iter()
        .filter(|t| t.chars().count() > 2 && t.chars().all(char::is_alphabetic))
        .count();
    ts.iter().any(|t| t.ends_with(['.', '?', '!', ':', ',']))
        || (words >= 3 && ts.iter().collect::<std::collections::BTreeSet<_>>().len() == ts.len())
}

/// The runs of consecutive board rows in `text`, headers of column labels ending a run.
fn runs(text: &str, cols: usize, accept: &dyn Fn(char) -> bool) -> Vec<Vec<Vec<char>>> {
    let mut out = Vec::new();
    let mut run: Vec<Vec<char>> = Vec::new();
    for line in text.lines() {
        match row_cells(line, cols) {
            Some(cells) if !is_header(&cells) && cells.iter().all(|c| accept(*c)) => {
                run.push(cells);
            }
            _ if !run.is_empty() => out.push(std::mem::take(&mut run)),
            _ => {}
        }
    }
    if !run.is_empty() {
        out.push(run);
    }
    out
}

/// Whether a row's cells are column labels: consecutive digits from 0 or 1, or letters
/// from A.
fn is_header(cells: &[char]) -> bool {
    let run = |first: char| {
        cells
            .iter()
            .enumerate()
            .all(|(i, c)| u32::from(*c) == u32::from(first) + i as u32)
    };
    cells.len() > 2 && (run('0') || run('1') || run('A') || run('a'))
}

/// `text` with each board row's number label parted from a first cell glued to it:
/// `3_ * s _ _ _ _ _` becomes `3 _ * s _ _ _ _ _`, and `3________` (a label and `cols`
/// cells, no spaces) becomes `3 ________`. Lines that do not start with a one- or two-digit
/// label are kept as they are. Additive: [`grids`] itself still reads only parted labels
/// (a glued `10` on a board of digits is ambiguous); a caller whose cells are never digits
/// runs its text through this first.
pub(crate) fn unglue_labels(text: &str, cols: usize) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        out.push_str(&unglue_line(line, cols));
    }
    out
}

fn unglue_line(line: &str, cols: usize) -> String {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    let digits = body.chars().take_while(char::is_ascii_digit).count();
    let rest = &body[digits..];
    let mut after = rest.chars();
    let (Some(first), second) = (after.next(), after.next()) else {
        return line.to_string();
    };
    if !(1..=2).contains(&digits) || first.is_whitespace() {
        return line.to_string();
    }
    // A glued first cell and spaced ones after it, or all `cols` cells glued.
    let spaced = second.is_none_or(|c| c == ' ' || c == '|');
    let compact = rest.trim_end().chars().count() == cols && !rest.trim_end().contains(' ');
    if spaced || compact {
        format!("{indent}{} {rest}", &body[..digits])
    } else {
        line.to_string()
    }
}

/// The last `n` lines of `text` (for feedback).
pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_boats_a_board_shows_are_its_cells_other_than_water() {
        let board = "  0 1 2\n0 ~ B ~\n1 ~ B ~\n2 ~ ~ S\n";
        let cells = super::boat_cells(board, 3, 3, 3).expect("a board of three boat cells");
        let at: Vec<(u8, u8)> = cells.iter().map(|c| (c.row, c.col)).collect();
        assert_eq!(at, [(0, 1), (1, 1), (2, 2)]);
        // Not the fleet's size: no board.
        assert!(super::boat_cells(board, 3, 3, 4).is_none());
        // The last board printed is the one read.
        let two = format!("{board}\n  0 1 2\n0 S ~ ~\n1 S ~ ~\n2 S ~ ~\n");
        let cells = super::boat_cells(&two, 3, 3, 3).unwrap();
        assert!(cells.iter().all(|c| c.col == 0));
    }

    /// The boats of a 3×4 board read by [`token_windows`]: the cells of each symbol that is
    /// not the commonest.
    fn boat_cells(text: &str) -> Vec<Vec<(usize, usize)>> {
        let grids = token_windows(text, 3, 4);
        let grid = grids.last().expect("a grid");
        let mut counts = std::collections::BTreeMap::new();
        for c in grid.iter().flatten() {
            *counts.entry(*c).or_insert(0) += 1;
        }
        let water = *counts.iter().max_by_key(|(_, n)| **n).unwrap().0;
        let mut by: std::collections::BTreeMap<char, Vec<(usize, usize)>> = Default::default();
        for (r, row) in grid.iter().enumerate() {
            for (c, s) in row.iter().enumerate() {
                if *s != water {
                    by.entry(*s).or_default().push((r, c));
                }
            }
        }
        by.into_values().collect()
    }

    #[test]
    fn boards_of_words_signed_numbers_and_blank_cells_are_read() {
        let want = vec![vec![(0, 1), (0, 2)], vec![(1, 3), (2, 3)]];
        let words =
            "~sea~ [boat] [boat] ~sea~\n~sea~ ~sea~ ~sea~ [ship]\n~sea~ ~sea~ ~sea~ [ship]\n";
        assert_eq!(boat_cells(words), want);
        let signed = "  0 1 2 3\n0 -1  2  2 -1\n1 -1 -1 -1  5\n2 -1 -1 -1  5\nYour move:\n";
        assert_eq!(boat_cells(signed), want);
        let marked = "0(w) 1(h) 1(h) 0(w)\n0(w) 0(w) 0(w) 2(h)\n0(w) 0(w) 0(w) 2(h)\n";
        assert_eq!(boat_cells(marked), want);
        let tabbed = "\tA\tA\t\n\t\t\tB\n\t\t\tB\n";
        assert_eq!(boat_cells(tabbed), want);
        // A sentence is no row.
        assert!(
            token_windows(
                "You sunk a boat.\nYou sunk a boat.\nYou sunk a boat.\n",
                3,
                4
            )
            .is_empty()
        );
    }

    #[test]
    fn escapes_are_not_words() {
        assert_eq!(strip_escapes("\u{1b}[1;31mhit\u{1b}[0m!"), "hit!");
        assert_eq!(words(&strip_escapes("\u{1b}[2J\u{1b}[Hmiss")), vec!["miss"]);
    }

    #[test]
    fn stems_ignore_case_and_punctuation() {
        assert!(has_stem("*** MISSED! ***", &["miss"]));
        assert!(has_stem("It's a hit.", &["hit"]));
        assert!(!has_stem("white", &["hit"]));
        assert!(has_phrase("You WIN!!", &["you win"]));
        assert!(refuses("Invalid input. Please type r or c"));
        assert!(!refuses("Which row?"));
        let q = "Scan a row or a column?\nType r or c:";
        assert!(asked_again(q, "Please type row or column.\nType r or c:"));
        assert!(!asked_again(q, "Which row?"));
    }

    #[test]
    fn numbers_near_their_words() {
        assert_eq!(
            number_near("It took 25 turns and 23 cannon shots.", "turn"),
            Some(25)
        );
        assert_eq!(
            number_near("It took 25 turns and 23 cannon shots.", "shot"),
            Some(23)
        );
        assert_eq!(number_near("Turns: 25  Shots: 23", "shot"), Some(23));
        assert_eq!(
            number_near("*** YOU WIN *** 25 turns, 23 cannon shots", "turn"),
            Some(25)
        );
        assert_eq!(
            number_near("*** YOU WIN *** 25 turns, 23 cannon shots", "shot"),
            Some(23)
        );
        assert_eq!(number_near("TURNS: 27  SHOTS: 22", "turn"), Some(27));
        assert_eq!(
            number_near("Turns taken: 22, Shots fired: 20", "shot"),
            Some(20)
        );
        assert_eq!(
            number_near("Turns taken: 22, Shots fired: 20", "turn"),
            Some(22)
        );
        assert!(is_status_line("Boats sunk: 0 of 5"));
        assert!(is_status_line("Penalties: 0"));
        assert!(!is_status_line("Hit at (3, 4)!"));
        assert!(!is_status_line("Penalty at (-1, 0): next turn skipped."));
        assert_eq!(
            number_near("Total turns = 8, total cannon shots = 6", "turn"),
            Some(8)
        );
        assert_eq!(number_near("no numbers for turns", "turn"), None);
        assert_eq!(integers("row -1 has 2"), vec![-1, 2]);
    }

    #[test]
    fn glued_labels_are_parted() {
        assert_eq!(unglue_labels("3_ * s _\n", 4), "3 _ * s _\n");
        assert_eq!(unglue_labels(" 12_|*|s|_", 4), " 12 _|*|s|_");
        assert_eq!(unglue_labels("3____", 4), "3 ____");
        assert_eq!(unglue_labels("3 _ * s _", 4), "3 _ * s _");
        assert_eq!(unglue_labels("2nd try", 4), "2nd try");
        assert_eq!(unglue_labels("10 - - -", 3), "10 - - -");
        let g = grids(
            &unglue_labels(" A B C\n1_ * s\n2_ _ _\n3s _ *\n", 3),
            3,
            3,
            &|_| true,
        );
        assert_eq!(
            g,
            vec![vec![vec!['_', '*', 's'], vec!['_'; 3], vec!['s', '_', '*']]]
        );
    }

    #[test]
    fn board_rows_in_several_styles() {
        assert_eq!(
            row_cells("1 2 - - 3", 5),
            Some(vec!['1', '2', '-', '-', '3'])
        );
        assert_eq!(
            row_cells("4 | 1 2 - - 3 |", 5),
            Some(vec!['1', '2', '-', '-', '3'])
        );
        assert_eq!(row_cells("XXX11", 5), Some(vec!['X', 'X', 'X', '1', '1']));
        assert_eq!(
            row_cells("10 ----A", 5),
            Some(vec!['-', '-', '-', '-', 'A'])
        );
        assert_eq!(row_cells("Enter a row", 5), None);
        assert_eq!(row_cells("command?", 8), None);
        assert_eq!(row_cells("GAMEOVER", 8), None);
        assert_eq!(row_cells("aaaaa---", 8).map(|r| r.len()), Some(8));
        // Two boards back to back, each under a header, and two without one.
        let two = "  0 1 2\n0 a - -\n1 a - b\n2 - - b\n  0 1 2\n0 - - -\n1 - - -\n2 - - -\n";
        assert_eq!(grids(two, 3, 3, &|_| true).len(), 2);
        let bare = "a - -\na - b\n- - b\n- - -\n- - -\n- - -\n";
        let g = grids(bare, 3, 3, &|_| true);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0][0], vec!['a', '-', '-']);
        let text = "  0 1 2\n0 a - -\n1 a - b\n2 - - b\nnext?";
        let g = grids(text, 3, 3, &|_| true);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0][0], vec!['a', '-', '-']);
    }
}
