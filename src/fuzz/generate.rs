//! proptest strategies for fuzz cases, built from an assignment's rules.
//!
//! A [`Case`] is symbolic: cells are [`Pick`]s ("the next unhit cell of ship 2", "one cell
//! beside ship 0", "the corner at the top right") that are resolved against the game while the
//! case is played (`super::build`). So every value proptest generates, and every value it
//! shrinks to, is a legal case: a pick whose ship is gone still means some cell, a placement
//! of an item already placed picks another, and shrinking a setup's ship away just removes
//! that ship. Shrinking moves toward fewer runs, fewer steps, fewer ships, fewer checks, and
//! cells at the top left.
//!
//! The weights lean toward the places bugs live: edges and corners, cells beside a ship
//! (touching ships, off-board neighbours, one open square apart), the last cell of a ship,
//! repeats on sunk ships, shots after the game ended (a run that sinks the whole fleet and
//! keeps firing), powers and placements where the spec has them.

use crate::spec::Rules;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, Union};

/// How a cell is chosen; resolved against the game when the case is played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pick {
    /// Any cell: row and column taken modulo the board.
    Any(u8, u8),
    /// A cell on the rim: `side` 0 top, 1 right, 2 bottom, 3 left; `at` along it (modulo);
    /// `corner` pins it to the side's first cell.
    Rim { side: u8, at: u8, corner: bool },
    /// Just off the board beyond `side`, `at` along it; `far` is many cells off.
    Off { side: u8, at: u8, far: bool },
    /// Cell `cell` of item `item` (a fleet index; the next placed item if that one is not
    /// placed) moved by `(dr, dc)`:
    /// a ship cell, a neighbour that touches it, one open square away, or off the board.
    Beside { item: u8, cell: u8, dr: i8, dc: i8 },
    /// The first cell not yet shot of ship `item` (a fleet index, or the next placed ship), looking
    /// from its cell `from`; once it is sunk, with `spill` the next item with such a cell,
    /// otherwise cell `from` again (a repeat on a sunk ship).
    Next { item: u8, from: u8, spill: bool },
    /// The cell of an earlier shot, `back` shots ago (modulo the shots so far): a repeat.
    Again(u8),
}

/// One item of the setup: whether it is on the board and where it is anchored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placing {
    /// Whether the item is placed (shrinks to `false`: a smaller setup).
    pub present: bool,
    /// Where its first cell goes; if illegal, the next legal position in reading order.
    pub at: Pick,
    /// Direction index: 0 right, 1 down, 2 left, 3 up.
    pub dir: u8,
}

/// A `place` step (assignments whose students write placement code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaceMove {
    /// The fleet index of the item (modulo the fleet; the next unplaced one if it is placed).
    pub item: u8,
    pub at: Pick,
    /// Direction index: 0 right, 1 down, 2 left, 3 up.
    pub dir: u8,
}

/// One play action, symbolically.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Move {
    /// A shot; `player` 0 is whoever's turn it is, 1 and 2 name a player (two-player games).
    Fire {
        at: Pick,
        player: u8,
    },
    /// A drone over a row (or a column); `index` may be off the board.
    Drone {
        col: bool,
        index: i8,
    },
    Missile {
        at: Pick,
    },
    /// The spec's cell question number `which` (modulo) about `at`.
    Query {
        which: u8,
        at: Pick,
    },
    /// The spec's whole-function check number `which` (modulo).
    Probe {
        which: u8,
    },
    /// Draw this many random fleets with the student's function.
    RandomLayouts {
        count: u8,
    },
}

/// A play step and the state keys to check after it (bit `i` is `rules.observe[i]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayStep {
    /// What the step does.
    pub action: Move,
    /// The state keys checked after it.
    pub observe: u16,
}

/// One generated case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// One entry per fleet item, in fleet order.
    pub setup: Vec<Placing>,
    /// Two-player games: 0 the spec's first player, 1 or 2 a named one.
    pub first: u8,
    /// Placements, played before any shot.
    pub places: Vec<PlaceMove>,
    /// Runs of play steps (a run may sink a ship, or the whole fleet and beyond).
    pub runs: Vec<Vec<PlayStep>>,
    /// State keys checked after the last step (bit `i` is `rules.observe[i]`).
    pub end: u16,
}

/// The strategy for cases under `rules`: the setup has one [`Placing`] per fleet item,
/// placements only where `rules.place_steps`, powers, questions, probes and random fleets only
/// where the spec has them, and state checks only of keys in `rules.observe` (the first 16).
pub fn case(rules: &Rules) -> BoxedStrategy<Case> {
    let items = rules.items.len();
    let two = rules.players.len() > 1;
    let keys = rules.observe.len().min(16) as u32;
    let setup = vec(placing(), items..=items);
    let first = if two {
        (0u8..3).boxed()
    } else {
        Just(0u8).boxed()
    };
    let places = if rules.place_steps {
        vec(place_move(), 0..=4).boxed()
    } else {
        Just(Vec::new()).boxed()
    };
    let longest = rules.items.iter().map(|i| i.length).max().unwrap_or(1);
    let fleet_cells: usize = rules
        .items
        .iter()
        .filter(|i| !i.grenade)
        .map(|i| usize::from(i.length))
        .sum();
    let step = play_step(rules, keys);
    let observe = observe_mask(keys);
    // A run: one to three steps of anything, or shots that sink one ship and then repeat on
    // it, or shots that sink the whole fleet and go on after the game ended.
    let mut runs = vec![
        (6, vec(step, 1..=3).boxed()),
        (3, sink_one(longest, &observe)),
        (1, sink_all(fleet_cells, &observe)),
    ];
    // Where misses count toward a move limit: a volley long enough to reach it.
    if let Some(limit) = rules.move_limit {
        let limit = usize::try_from(limit).unwrap_or(usize::MAX).min(200);
        runs.push((1, volley(limit, &observe)));
    }
    let run = Union::new_weighted(runs);
    let end = mask(keys, 0.85);
    // proptest shrinks a tuple's parts in order: the runs first, so the setup and the checks
    // are shrunk against the shortest steps.
    (vec(run, 0..=6), places, setup, end, first)
        .prop_map(|(runs, places, setup, end, first)| Case {
            setup,
            first,
            places,
            runs,
            end,
        })
        .boxed()
}

/// Shots that sink one ship (`item`, from a cell `from` on) and then repeat on it.
fn sink_one(longest: u8, observe: &BoxedStrategy<u16>) -> BoxedStrategy<Vec<PlayStep>> {
    (
        any::<u8>(),
        vec((any::<u8>(), observe.clone()), 1..=usize::from(longest) + 1),
    )
        .prop_map(|(item, shots)| {
            shots
                .into_iter()
                .map(|(from, observe)| PlayStep {
                    action: Move::Fire {
                        at: Pick::Next {
                            item,
                            from,
                            spill: false,
                        },
                        player: 0,
                    },
                    observe,
                })
                .collect::<Vec<_>>()
        })
        .boxed()
}

/// Shots that sink the whole fleet and go on after the game ended.
fn sink_all(fleet_cells: usize, observe: &BoxedStrategy<u16>) -> BoxedStrategy<Vec<PlayStep>> {
    (
        any::<u8>(),
        vec(observe.clone(), fleet_cells..=fleet_cells + 3),
    )
        .prop_map(|(item, masks)| {
            masks
                .into_iter()
                .map(|observe| PlayStep {
                    action: Move::Fire {
                        at: Pick::Next {
                            item,
                            from: 0,
                            spill: true,
                        },
                        player: 0,
                    },
                    observe,
                })
                .collect::<Vec<_>>()
        })
        .boxed()
}

/// Where misses count toward a move limit: a volley of shots anywhere long enough to reach
/// `limit`.
fn volley(limit: usize, observe: &BoxedStrategy<u16>) -> BoxedStrategy<Vec<PlayStep>> {
    vec(
        (
            (any::<u8>(), any::<u8>()).prop_map(|(r, c)| Pick::Any(r, c)),
            observe.clone(),
        ),
        limit..=limit + 3,
    )
    .prop_map(|shots| {
        shots
            .into_iter()
            .map(|(at, observe)| PlayStep {
                action: Move::Fire { at, player: 0 },
                observe,
            })
            .collect::<Vec<_>>()
    })
    .boxed()
}

/// State keys to check after a step: usually none, sometimes some.
fn observe_mask(keys: u32) -> BoxedStrategy<u16> {
    prop_oneof![4 => Just(0u16), 1 => mask(keys, 0.5)].boxed()
}

/// A set of the first `keys` state keys, each in it with probability `p`; each shrinks out.
fn mask(keys: u32, p: f64) -> BoxedStrategy<u16> {
    vec(prop::bool::weighted(p), keys as usize)
        .prop_map(|bits| {
            bits.iter()
                .enumerate()
                .filter(|(_, b)| **b)
                .fold(0u16, |m, (i, _)| m | (1 << i))
        })
        .boxed()
}

/// A cell choice, leaning toward edges, corners and ship neighbourhoods.
fn pick() -> BoxedStrategy<Pick> {
    prop_oneof![
        3 => (any::<u8>(), any::<u8>()).prop_map(|(r, c)| Pick::Any(r, c)),
        2 => (0u8..4, any::<u8>(), prop::bool::weighted(0.3))
            .prop_map(|(side, at, corner)| Pick::Rim { side, at, corner }),
        1 => (0u8..4, any::<u8>(), prop::bool::weighted(0.2))
            .prop_map(|(side, at, far)| Pick::Off { side, at, far }),
        3 => (any::<u8>(), any::<u8>(), -2i8..=2, -2i8..=2)
            .prop_map(|(item, cell, dr, dc)| Pick::Beside { item, cell, dr, dc }),
        3 => (any::<u8>(), any::<u8>())
            .prop_map(|(item, from)| Pick::Next { item, from, spill: false }),
        1 => any::<u8>().prop_map(Pick::Again),
    ]
    .boxed()
}

/// A setup item: mostly present, anchored anywhere, on the rim, or beside an earlier item.
fn placing() -> BoxedStrategy<Placing> {
    let at = prop_oneof![
        3 => (any::<u8>(), any::<u8>()).prop_map(|(r, c)| Pick::Any(r, c)),
        2 => (0u8..4, any::<u8>(), prop::bool::weighted(0.3))
            .prop_map(|(side, at, corner)| Pick::Rim { side, at, corner }),
        2 => (any::<u8>(), any::<u8>(), -2i8..=2, -2i8..=2)
            .prop_map(|(item, cell, dr, dc)| Pick::Beside { item, cell, dr, dc }),
    ];
    (prop::bool::weighted(0.75), at, 0u8..4)
        .prop_map(|(present, at, dir)| Placing { present, at, dir })
        .boxed()
}

fn place_move() -> BoxedStrategy<PlaceMove> {
    (any::<u8>(), pick(), 0u8..4)
        .prop_map(|(item, at, dir)| PlaceMove { item, at, dir })
        .boxed()
}

/// One play step of any kind the assignment has.
fn play_step(rules: &Rules, keys: u32) -> BoxedStrategy<PlayStep> {
    let two = rules.players.len() > 1;
    let player = if two {
        prop_oneof![6 => Just(0u8), 1 => 1u8..3].boxed()
    } else {
        Just(0u8).boxed()
    };
    // Weights out of about 80: mostly shots, then questions, powers and probes; random
    // fleets (ten calls of the student's own search each) rarely.
    let mut moves: Vec<(u32, BoxedStrategy<Move>)> = vec![(
        48,
        (pick(), player)
            .prop_map(|(at, player)| Move::Fire { at, player })
            .boxed(),
    )];
    let side = i8::try_from(rules.rows.max(rules.cols)).unwrap_or(i8::MAX);
    if rules.drone_uses.is_some() {
        moves.push((
            8,
            (any::<bool>(), -1i8..=side)
                .prop_map(|(col, index)| Move::Drone { col, index })
                .boxed(),
        ));
    }
    if rules.missile_uses.is_some() {
        moves.push((8, pick().prop_map(|at| Move::Missile { at }).boxed()));
    }
    if !rules.queries.is_empty() {
        moves.push((
            16,
            (any::<u8>(), pick())
                .prop_map(|(which, at)| Move::Query { which, at })
                .boxed(),
        ));
    }
    if !rules.probes.is_empty() {
        moves.push((
            4,
            any::<u8>().prop_map(|which| Move::Probe { which }).boxed(),
        ));
    }
    if rules.random_layout.is_some() {
        moves.push((
            1,
            // Ten draws: a student's random fleet is illegal only some of the time, and a
            // counterexample must fail again when it is replayed.
            Just(Move::RandomLayouts { count: 10 }).boxed(),
        ));
    }
    (Union::new_weighted(moves), observe_mask(keys))
        .prop_map(|(action, observe)| PlayStep { action, observe })
        .boxed()
}
