//! Engine throughput: shots per second (as `Shot`s and as rendered `Answer`s), random
//! layouts per second, and a whole published
//! suite against the reference. Run with `cargo bench --bench engine`; the README quotes it.
//! (A plain timing loop: no timing is asserted anywhere in the tests.)

use broadside::cell::RawCell;
use broadside::engine::{Game, random_layout};
use broadside::spec::SpecSet;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Runs `f` repeatedly for about `budget` and returns calls per second.
fn rate(budget: Duration, mut f: impl FnMut() -> u64) -> (f64, u64) {
    let start = Instant::now();
    let mut calls = 0u64;
    let mut units = 0u64;
    while start.elapsed() < budget {
        units += f();
        calls += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    (units as f64 / secs, calls)
}

fn main() {
    let specs = SpecSet::builtin();
    let budget = Duration::from_secs(2);
    println!("{:<28} {:>16} {:>16}", "bench", "per second", "iterations");
    for id in specs.ids() {
        for (mode, rules) in &specs.get(id).unwrap().modes {
            let mut seed = 0u64;
            let (layouts, n) = rate(budget, || {
                seed += 1;
                black_box(random_layout(rules, seed).unwrap());
                1
            });
            println!(
                "{:<28} {:>16.0} {:>16}",
                format!("layout {id}/{mode}"),
                layouts,
                n
            );
        }
    }
    for id in specs.ids() {
        let rules = specs.get(id).unwrap().rules(None).unwrap().clone();
        let layout = random_layout(&rules, 7).unwrap();
        let mut base = Game::new(rules.clone());
        for (i, cells) in layout.iter().enumerate() {
            base.place_cells(i, cells).unwrap();
        }
        // Every cell of the board once, row by row, then the whole board again (repeats).
        let cells: Vec<RawCell> = (0..i64::from(rules.rows))
            .flat_map(|r| (0..i64::from(rules.cols)).map(move |c| RawCell { row: r, col: c }))
            .collect();
        // `shoot`: the engine's own answer (small, `Copy`); `fire`: the same shot answered
        // as an `Answer` with its names, as the harness compares it.
        let (shots, n) = rate(budget, || {
            let mut g = base.clone();
            for c in cells.iter().chain(&cells) {
                black_box(g.shoot(None, *c));
            }
            2 * cells.len() as u64
        });
        println!("{:<28} {:>16.0} {:>16}", format!("shots {id}"), shots, n);
        let (answers, n) = rate(budget, || {
            let mut g = base.clone();
            for c in cells.iter().chain(&cells) {
                black_box(g.fire(None, *c));
            }
            2 * cells.len() as u64
        });
        println!(
            "{:<28} {:>16.0} {:>16}",
            format!("answers {id}"),
            answers,
            n
        );
    }
    let loaded = broadside::load::load(&["fixtures/scenarios".into()], &specs);
    assert!(loaded.errors.is_empty());
    // The reference plays the step scenarios; dialogues need a whole program.
    let mut loaded = loaded;
    loaded.scenarios.retain(|s| s.dialogue.is_none());
    let start = Instant::now();
    let mut runs = 0;
    while start.elapsed() < budget {
        black_box(broadside::play::run_all(
            &loaded.scenarios,
            &mut broadside::target::Reference::new(),
        ));
        runs += 1;
    }
    let per = start.elapsed().as_secs_f64() / f64::from(runs);
    println!(
        "{:<28} {:>16.0} {:>16}",
        format!("suite ({} scenarios)", loaded.scenarios.len()),
        1.0 / per,
        runs
    );
}
