//! Cells and directions as a scenario writes them, read in the assignment's notation.

use super::Cx;
use crate::cell::RawCell;
use crate::engine::Dir;
use crate::scenario::raw::{CellInput, DirInput};
use crate::spec::Rules;
use std::ops::Range;

impl Cx<'_> {
    /// One cell: a string in the notation, or a raw `[row, col]` pair. May be off the board.
    /// Errors at `span`: a string outside the notation, a list that is not two integers,
    /// anything else.
    pub(super) fn cell(
        &mut self,
        input: &CellInput,
        span: Range<usize>,
        rules: &Rules,
    ) -> Option<RawCell> {
        match input {
            CellInput::Notation(s) => match rules.notation.parse(s) {
                Ok(c) => Some(c),
                Err(expected) => {
                    let message = format!("`{s}` is not a cell in the notation of {}", rules.id);
                    self.err(span, message, expected);
                    None
                }
            },
            CellInput::Pair(c) => Some(*c),
            CellInput::BadPair => {
                self.err(
                    span,
                    "a raw cell must be two integers",
                    "`[row, col]`, zero-based, e.g. `[6, 0]`",
                );
                None
            }
            CellInput::NotACell => {
                let example = rules.notation.example();
                let expected = format!("a cell like \"{example}\" or a raw `[row, col]` pair");
                self.err(span, "not a cell", expected);
                None
            }
        }
    }

    /// A `dir` value: `right`, `down`, `left` or `up`; anything else is reported at `span`.
    pub(super) fn direction(&mut self, input: &DirInput, span: Range<usize>) -> Option<Dir> {
        match input {
            DirInput::Dir(d) => Some(*d),
            DirInput::Unknown(shown) => {
                self.err(
                    span,
                    format!("`{shown}` is not a direction"),
                    "`dir = \"right\"`, `\"down\"`, `\"left\"` or `\"up\"`",
                );
                None
            }
        }
    }
}
