//! A set of cells on a board of up to 16×16, as 256 bits.

use crate::cell::{Cell, MAX_SIDE};

/// A set of on-board cells; every operation is constant-time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CellSet([u64; 4]);

fn bit(c: Cell) -> (usize, u64) {
    let i = usize::from(c.row) * usize::from(MAX_SIDE) + usize::from(c.col);
    (i / 64, 1u64 << (i % 64))
}

impl CellSet {
    pub fn contains(&self, c: Cell) -> bool {
        let (w, b) = bit(c);
        self.0[w] & b != 0
    }

    /// Adds `c`; returns whether it was new.
    pub fn insert(&mut self, c: Cell) -> bool {
        let (w, b) = bit(c);
        let new = self.0[w] & b == 0;
        self.0[w] |= b;
        new
    }

    /// Takes `c` out (nothing happens if it is not in).
    pub fn remove(&mut self, c: Cell) {
        let (w, b) = bit(c);
        self.0[w] &= !b;
    }

    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    /// The cells, row by row.
    pub fn iter(&self) -> impl Iterator<Item = Cell> + '_ {
        (0..256usize)
            .filter(|i| self.0[i / 64] & (1u64 << (i % 64)) != 0)
            .map(|i| Cell {
                row: (i / usize::from(MAX_SIDE)) as u8,
                col: (i % usize::from(MAX_SIDE)) as u8,
            })
    }
}
