//! Cells: on-board `Cell`s, possibly off-board `RawCell`s, and the notations handouts use.
//!
//! Inside broadside a cell is `(row, col)`, zero-based, row 0 at the top and col 0 at the
//! left (DESIGN.md, "Coordinates"). Scenarios and reports speak the handout's notation.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The largest board side broadside supports, in cells (a board holds at most 256 cells).
pub(crate) const MAX_SIDE: u8 = 16;

/// A cell known to be on some board: `row` and `col` zero-based, each below `MAX_SIDE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Cell {
    pub row: u8,
    pub col: u8,
}

/// A cell as a scenario or a player gives it: any pair of integers, on the board or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RawCell {
    pub row: i64,
    pub col: i64,
}

impl From<Cell> for RawCell {
    fn from(c: Cell) -> Self {
        RawCell {
            row: i64::from(c.row),
            col: i64::from(c.col),
        }
    }
}

impl fmt::Display for RawCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", self.row, self.col)
    }
}

/// How a handout writes a cell. Each spec names one (`[notation] style`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Notation {
    /// A letter for the row (A = row 0) and a 1-based column number: `B3` is (1, 2). colab-6x6.
    LetterRow,
    /// A letter for the column (A = col 0) and a 1-based row number: `B3` is (2, 1). grenades-8x8.
    LetterCol,
    /// `(x, y)` zero-based with x the column and y the row: `(3, 1)` is (1, 3). move-limit-10x10.
    XyColRow,
    /// `(x, y)` zero-based with x the row and y the column: `(3, 1)` is (3, 1). battleboats.
    XyRowCol,
    /// `(row, column)` zero-based numbers: `(3, 1)` is (3, 1). solo-10x10.
    RowCol,
}

impl Notation {
    /// Parses `text` in this notation into a raw cell (which may be off the board).
    ///
    /// Letters are case-insensitive; letter notations accept any letter (off-board letters
    /// such as `Z1` give off-board cells); pair notations accept `(a, b)`, `a, b` or `a b`.
    /// Errors: a sentence saying what was expected, e.g. ``a letter then a number, like `B3` ``.
    // A string error: one kind, only shown (the loader makes it a diagnostic at the cell).
    pub fn parse(self, text: &str) -> Result<RawCell, String> {
        let t = text.trim();
        match self {
            Notation::LetterRow | Notation::LetterCol => {
                let mut chars = t.chars();
                let letter = chars.next().filter(|c| c.is_ascii_alphabetic());
                let rest = chars.as_str().trim();
                match (letter, rest.parse::<i64>()) {
                    (Some(l), Ok(n)) => {
                        let l = i64::from(l.to_ascii_uppercase() as u8 - b'A');
                        let n = n.saturating_sub(1);
                        Ok(if self == Notation::LetterRow {
                            RawCell { row: l, col: n }
                        } else {
                            RawCell { row: n, col: l }
                        })
                    }
                    _ => Err(format!("a letter then a number, like `{}`", self.example())),
                }
            }
            Notation::XyColRow | Notation::XyRowCol | Notation::RowCol => {
                let inner = t
                    .strip_prefix('(')
                    .and_then(|s| s.strip_suffix(')'))
                    .unwrap_or(t);
                let parts: Vec<&str> = inner
                    .split(|c: char| c == ',' || c.is_whitespace())
                    .filter(|s| !s.is_empty())
                    .collect();
                let nums: Option<Vec<i64>> = parts.iter().map(|p| p.parse().ok()).collect();
                match nums.as_deref() {
                    Some([a, b]) => Ok(if self == Notation::XyColRow {
                        RawCell { row: *b, col: *a }
                    } else {
                        RawCell { row: *a, col: *b }
                    }),
                    _ => Err(format!("two whole numbers, like `{}`", self.example())),
                }
            }
        }
    }

    /// Writes `cell` in this notation; off-board cells that the notation cannot spell are
    /// written raw as `[row, col]`.
    pub fn format(self, cell: RawCell) -> String {
        let RawCell { row, col } = cell;
        match self {
            Notation::LetterRow | Notation::LetterCol => {
                let (letter, number) = if self == Notation::LetterRow {
                    (row, col)
                } else {
                    (col, row)
                };
                if (0..26).contains(&letter) && number >= 0 {
                    format!("{}{}", (b'A' + letter as u8) as char, number + 1)
                } else {
                    cell.to_string()
                }
            }
            Notation::XyColRow => format!("({col}, {row})"),
            Notation::XyRowCol | Notation::RowCol => format!("({row}, {col})"),
        }
    }

    /// An example cell in this notation, for error messages.
    pub fn example(self) -> &'static str {
        match self {
            Notation::LetterRow | Notation::LetterCol => "B3",
            Notation::XyColRow | Notation::XyRowCol | Notation::RowCol => "(3, 1)",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letter_row_matches_colab_handout() {
        // colab-6x6 handout, "The data": position (1, 2) appears as B3.
        assert_eq!(
            Notation::LetterRow.parse("B3"),
            Ok(RawCell { row: 1, col: 2 })
        );
        assert_eq!(Notation::LetterRow.format(RawCell { row: 1, col: 2 }), "B3");
    }

    #[test]
    fn xy_col_row_swaps() {
        assert_eq!(
            Notation::XyColRow.parse("(0, 9)"),
            Ok(RawCell { row: 9, col: 0 })
        );
        assert_eq!(
            Notation::XyColRow.format(RawCell { row: 9, col: 0 }),
            "(0, 9)"
        );
    }

    #[test]
    fn bad_text_says_what_was_expected() {
        assert!(
            Notation::LetterCol
                .parse("33")
                .unwrap_err()
                .contains("letter")
        );
        assert!(
            Notation::RowCol
                .parse("(1)")
                .unwrap_err()
                .contains("two whole numbers")
        );
    }

    #[test]
    fn off_board_letters_parse_and_format_raw() {
        let c = Notation::LetterRow.parse("G1").unwrap();
        assert_eq!(c, RawCell { row: 6, col: 0 });
        assert_eq!(
            Notation::LetterRow.format(RawCell { row: -1, col: 0 }),
            "[-1, 0]"
        );
    }
}
