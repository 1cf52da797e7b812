//! Ship lines and seeded random legal layouts.

use super::game::{Dir, Game};
use crate::cell::{Cell, RawCell};
use crate::spec::Rules;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// The `length` cells from `at` towards `dir`, or `None` if any is off the `rows`×`cols` board.
pub fn line_cells(rows: u8, cols: u8, at: RawCell, dir: Dir, length: u8) -> Option<Vec<Cell>> {
    let (dr, dc) = dir.delta();
    (0..i64::from(length))
        .map(|i| {
            let r = at.row.saturating_add(dr * i);
            let c = at.col.saturating_add(dc * i);
            ((0..i64::from(rows)).contains(&r) && (0..i64::from(cols)).contains(&c)).then_some(
                Cell {
                    row: r as u8,
                    col: c as u8,
                },
            )
        })
        .collect()
}

/// Why a fleet cannot be laid out as asked: a sentence for a report or a spec's loader.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// No legal layout of the fleet was found on the board ([`random_layout`]): the spec's
    /// fleet does not fit under its placement rule, which its loader refuses.
    #[error("{0}")]
    DoesNotFit(String),
    /// A layout a student's code produced is not the fleet in a legal arrangement
    /// ([`check_layout`]): the student's, `rejected` with this sentence.
    #[error("{0}")]
    Illegal(String),
}

/// How many placements the layout search may try before giving up.
const SEARCH_BUDGET: usize = 200_000;

/// A random legal layout of every item in `rules` (both players' in two-player games),
/// drawn from a ChaCha8 generator seeded with `seed`: the same seed gives the same layout.
///
/// Returns the cells of each item, indexed like `rules.items`. The search tries every legal
/// position of each item in random order, backtracking on dead ends, and stops after a
/// fixed budget of tries, so it never loops unboundedly. Errors: the fleet does not fit.
pub fn random_layout(rules: &Arc<Rules>, seed: u64) -> Result<Vec<Vec<Cell>>, LayoutError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Longest first: the hardest to fit go in while the board is emptiest.
    let mut order: Vec<usize> = (0..rules.items.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(rules.items[i].length));
    let mut game = Game::new(rules.clone());
    let mut budget = SEARCH_BUDGET;
    if place_from(&mut game, &order, &mut rng, &mut budget) {
        Ok(rules
            .items
            .iter()
            .enumerate()
            .map(|(i, _)| game.item_cells(i).to_vec())
            .collect())
    } else {
        Err(LayoutError::DoesNotFit(format!(
            "no legal layout of the {} fleet found on the {}×{} board",
            rules.id, rules.rows, rules.cols
        )))
    }
}

fn place_from(game: &mut Game, order: &[usize], rng: &mut ChaCha8Rng, budget: &mut usize) -> bool {
    let Some((&item, rest)) = order.split_first() else {
        return true;
    };
    let rules = game.rules().clone();
    let length = rules.items[item].length;
    let dirs: &[Dir] = if length == 1 {
        &[Dir::Right]
    } else {
        &[Dir::Right, Dir::Down]
    };
    let mut candidates: Vec<(RawCell, Dir)> = (0..rules.rows)
        .flat_map(|r| {
            (0..rules.cols).map(move |c| RawCell {
                row: r.into(),
                col: c.into(),
            })
        })
        .flat_map(|at| dirs.iter().map(move |d| (at, *d)))
        .collect();
    candidates.shuffle(rng);
    for (at, dir) in candidates {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        // A refused placement changes nothing; an accepted one is taken back on a dead end.
        if game.place(item, at, dir).is_ok() {
            if place_from(game, rest, rng, budget) {
                return true;
            }
            game.remove(item);
        }
    }
    false
}

/// Checks a layout a student's code produced: exactly the fleet's ships (by length), each a
/// straight line on the board, under the spec's overlap and touching rules.
///
/// `ships` is one list of cells per ship, in any order. Errors: a sentence naming what is
/// wrong (a missing or extra ship, a bent ship, two ships touching), for the report.
pub fn check_layout(rules: &Arc<Rules>, ships: &[Vec<Cell>]) -> Result<(), LayoutError> {
    let mut want: Vec<u8> = rules
        .items
        .iter()
        .filter(|i| !i.grenade)
        .map(|i| i.length)
        .collect();
    let mut got: Vec<u8> = ships
        .iter()
        .map(|s| u8::try_from(s.len()).unwrap_or(u8::MAX))
        .collect();
    want.sort_unstable();
    got.sort_unstable();
    if want != got {
        return Err(LayoutError::Illegal(format!(
            "the fleet has ships of lengths {got:?}; expected {want:?}"
        )));
    }
    // Place the longest first into the item of that length, so names line up with lengths.
    let mut free: Vec<usize> = (0..rules.items.len())
        .filter(|&i| !rules.items[i].grenade)
        .collect();
    let mut game = Game::new(rules.clone());
    for cells in ships {
        let pos = free
            .iter()
            .position(|&i| usize::from(rules.items[i].length) == cells.len())
            .expect("lengths matched above");
        let item = free.remove(pos);
        if let Err(e) = game.place_cells(item, cells) {
            let shown: Vec<String> = cells
                .iter()
                .map(|c| rules.notation.format(RawCell::from(*c)))
                .collect();
            return Err(LayoutError::Illegal(format!(
                "the ship on {} {}",
                shown.join(" "),
                e.describe(rules)
            )));
        }
    }
    Ok(())
}
