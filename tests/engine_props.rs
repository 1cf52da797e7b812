//! Properties of the reference engine, checked with proptest over random layouts and shots.

use broadside::cell::{Cell, RawCell};
use broadside::engine::{Event, Game, Outcome, random_layout};
use broadside::spec::{Counter, Rules, SpecSet, Touching};
use proptest::prelude::*;
use std::sync::Arc;

/// Every mode of every bundled spec.
fn all_rules() -> Vec<Arc<Rules>> {
    let specs = SpecSet::builtin();
    specs
        .ids()
        .iter()
        .flat_map(|id| {
            specs
                .get(id)
                .unwrap()
                .modes
                .values()
                .cloned()
                .collect::<Vec<_>>()
        })
        .collect()
}

fn rules_of(id: &str) -> Arc<Rules> {
    SpecSet::builtin()
        .get(id)
        .unwrap()
        .rules(None)
        .unwrap()
        .clone()
}

fn game_from(rules: &Arc<Rules>, seed: u64) -> Game {
    let layout = random_layout(rules, seed).expect("bundled fleets fit");
    let mut g = Game::new(rules.clone());
    for (i, cells) in layout.iter().enumerate() {
        g.place_cells(i, cells).expect("random layouts are legal");
    }
    g
}

/// An independent check of the placement rule, not using the engine's own.
fn layout_is_legal(rules: &Rules, layout: &[Vec<Cell>]) -> bool {
    let mut owner = std::collections::HashMap::new();
    for (i, cells) in layout.iter().enumerate() {
        if cells.len() != usize::from(rules.items[i].length) {
            return false;
        }
        for c in cells {
            if c.row >= rules.rows || c.col >= rules.cols || owner.insert(*c, i).is_some() {
                return false;
            }
        }
    }
    let reach: i16 = match rules.touching {
        Touching::Allowed => return true,
        _ => 1,
    };
    for (c, i) in &owner {
        for dr in -reach..=reach {
            for dc in -reach..=reach {
                if rules.touching == Touching::ForbiddenEdge && dr != 0 && dc != 0 {
                    continue;
                }
                let n = Cell {
                    row: (i16::from(c.row) + dr).clamp(0, 255) as u8,
                    col: (i16::from(c.col) + dc).clamp(0, 255) as u8,
                };
                if owner.get(&n).is_some_and(|j| j != i) {
                    return false;
                }
            }
        }
    }
    true
}

fn ship_cells(g: &Game) -> Vec<Cell> {
    let rules = g.rules().clone();
    (0..rules.items.len())
        .filter(|&i| !rules.items[i].grenade)
        .flat_map(|i| g.item_cells(i).to_vec())
        .collect()
}

fn snapshot(g: &Game) -> (Vec<String>, Vec<String>, bool, bool, Vec<Vec<String>>) {
    (
        g.remaining(),
        g.sunk(),
        g.won(),
        g.lost(),
        vec![g.render(true)],
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_layouts_are_legal_for_every_fleet(seed in any::<u64>()) {
        for rules in all_rules() {
            let layout = random_layout(&rules, seed).unwrap();
            prop_assert!(layout_is_legal(&rules, &layout), "{} {}: illegal layout", rules.id, rules.mode);
        }
    }

    #[test]
    fn random_layouts_differ_across_seeds(seed in any::<u64>()) {
        for rules in all_rules() {
            let a = random_layout(&rules, seed).unwrap();
            let b = random_layout(&rules, seed.wrapping_add(1)).unwrap();
            let c = random_layout(&rules, seed).unwrap();
            prop_assert_eq!(&a, &c, "same seed, same layout");
            prop_assert_ne!(a, b, "{}: seeds {} and {} gave one layout", rules.id, seed, seed.wrapping_add(1));
        }
    }

    #[test]
    fn firing_every_ship_cell_once_wins_with_that_many_shots(seed in any::<u64>(), order in any::<u64>()) {
        // Every one-player assignment of the registry (in a two-player game the turns
        // alternate, so one player's shots alone do not win).
        for rules in SpecSet::builtin().ids().into_iter().map(rules_of).filter(|r| r.players.len() == 1) {
            let id = &rules.id;
            let mut g = game_from(&rules, seed);
            let mut cells = ship_cells(&g);
            // A seeded shuffle of the firing order.
            let n = cells.len();
            for i in (1..n).rev() {
                let j = (order.wrapping_mul(6364136223846793005).wrapping_add(i as u64) >> 33) as usize % (i + 1);
                cells.swap(i, j);
            }
            for (k, c) in cells.iter().enumerate() {
                prop_assert!(!g.won(), "{id}: won before the last ship cell");
                let a = g.fire(None, RawCell::from(*c));
                prop_assert!(matches!(a.event, Some(Event::Hit | Event::Sunk)), "{id}: shot {k} at {c:?} was {a:?}");
            }
            prop_assert!(g.won(), "{id}: every ship cell fired but not won");
            if rules.counters.contains(&Counter::Shots) {
                prop_assert_eq!(g.counter(Counter::Shots) as usize, n);
            }
            if rules.counters.contains(&Counter::Moves) {
                prop_assert_eq!(g.counter(Counter::Moves), 0, "hits are free in move-limit-10x10");
            }
        }
    }

    #[test]
    fn repeated_and_off_board_shots_change_only_what_the_handout_says(
        seed in any::<u64>(), r in 0u8..16, c in 0u8..16, off_r in -3i64..20, off_c in -3i64..20,
    ) {
        for rules in all_rules() {
            if rules.players.len() > 1 { continue; }
            let mut g = game_from(&rules, seed);
            let first = RawCell { row: i64::from(r % rules.rows), col: i64::from(c % rules.cols) };
            g.fire(None, first);
            if g.end().is_some() { continue; }
            let before = snapshot(&g);
            let counts = |g: &Game| [Counter::Shots, Counter::Turns, Counter::Moves].map(|k| g.counter(k));
            let c0 = counts(&g);
            let a = g.fire(None, first);
            let rule = rules.event(a.event.unwrap()).unwrap();
            prop_assert!(matches!(a.event, Some(Event::RepeatHit | Event::RepeatMiss)));
            prop_assert_eq!(&snapshot(&g), &before, "{}: a repeat changed the game", rules.id);
            prop_assert_eq!(counts(&g), [c0[0] + rule.shots, c0[1] + rule.turns, c0[2] + rule.moves]);
            let off = RawCell { row: off_r, col: off_c };
            if rules.cell(off).is_none() && g.end().is_none() {
                let c1 = counts(&g);
                let a = g.fire(None, off);
                prop_assert_eq!(a.event, Some(Event::OffBoard));
                let rule = rules.event(Event::OffBoard).unwrap();
                prop_assert_eq!(&snapshot(&g), &before, "{}: an off-board shot changed the game", rules.id);
                prop_assert_eq!(counts(&g), [c1[0] + rule.shots, c1[1] + rule.turns, c1[2] + rule.moves]);
            }
        }
    }

    #[test]
    fn counters_never_go_backwards_and_no_shot_moves_a_ship(
        seed in any::<u64>(), shots in prop::collection::vec((-2i64..14, -2i64..14, 0u8..4), 1..120),
    ) {
        for rules in all_rules() {
            let mut g = game_from(&rules, seed);
            let cells: Vec<Vec<Cell>> = (0..rules.items.len()).map(|i| g.item_cells(i).to_vec()).collect();
            let mut last = [0u32; 3];
            for (row, col, kind) in &shots {
                let at = RawCell { row: *row, col: *col };
                match kind {
                    0 | 1 => { g.fire(None, at); }
                    2 if rules.drone_uses.is_some() => { g.drone(broadside::engine::Axis::Row, *row); }
                    3 if rules.missile_uses.is_some() => { g.missile(at); }
                    _ => { g.fire(None, at); }
                }
                let now = [Counter::Shots, Counter::Turns, Counter::Moves].map(|k| g.counter(k));
                prop_assert!(now.iter().zip(last).all(|(n, l)| *n >= l), "{}: counters went back", rules.id);
                last = now;
            }
            let after: Vec<Vec<Cell>> = (0..rules.items.len()).map(|i| g.item_cells(i).to_vec()).collect();
            prop_assert_eq!(cells, after, "{}: a shot moved a ship", rules.id);
        }
    }
}

#[test]
fn colab_handout_step_7_sequence() {
    // colab-6x6 handout, Step 7: hit, repeated, sunk, miss, invalid on the handout's fleet.
    let rules = rules_of("colab-6x6");
    let mut g = Game::new(rules.clone());
    let n = rules.notation;
    let cells = |v: &[&str]| -> Vec<Cell> {
        v.iter()
            .map(|s| rules.cell(n.parse(s).unwrap()).unwrap())
            .collect()
    };
    g.place_cells(0, &cells(&["B2", "B3"])).unwrap();
    g.place_cells(1, &cells(&["D3", "E3", "F3"])).unwrap();
    g.place_cells(2, &cells(&["A4", "A5", "A6"])).unwrap();
    let fire = |g: &mut Game, r: i64, c: i64| g.fire(None, RawCell { row: r, col: c }).outcome;
    assert_eq!(fire(&mut g, 1, 1), Outcome::Hit);
    assert_eq!(fire(&mut g, 1, 1), Outcome::Repeated);
    assert_eq!(fire(&mut g, 1, 2), Outcome::Sunk);
    assert_eq!(fire(&mut g, 2, 5), Outcome::Miss);
    assert_eq!(fire(&mut g, 6, 0), Outcome::Invalid);
    assert_eq!(g.remaining(), vec!["Destroyer", "Cruiser"]);
}

#[test]
fn battleboats_handout_example_counts_eight_turns_six_shots() {
    // battleboats handout §4 example: 5×5, one boat at (0,0)-(0,2).
    let rules =
        Arc::new(rules_of("battleboats").with_board_and_fleet(5, 5, vec![("boat".into(), 3)]));
    let mut g = Game::new(rules);
    g.place_cells(
        0,
        &[
            Cell { row: 0, col: 0 },
            Cell { row: 0, col: 1 },
            Cell { row: 0, col: 2 },
        ],
    )
    .unwrap();
    let words: Vec<Outcome> = [(1, 0), (0, 0), (0, 0), (0, 1), (-1, 0), (0, 2)]
        .into_iter()
        .map(|(r, c)| g.fire(None, RawCell { row: r, col: c }).outcome)
        .collect();
    use Outcome::*;
    assert_eq!(words, vec![Miss, Hit, Penalty, Hit, Penalty, Sunk]);
    assert_eq!(
        (g.counter(Counter::Turns), g.counter(Counter::Shots)),
        (8, 6)
    );
    assert!(g.won());
}
