//! Where a spec accepts both readings of an ambiguous clause (`accept_also = true`), a
//! submission that follows the other reading must pass the published scenarios too. These
//! tests play the published scenarios against the reference bent to the other reading.

use broadside::engine::{Answer, Event};
use broadside::harness::run_scenario;
use broadside::report::Status;
use broadside::scenario::{Action, Setup};
use broadside::spec::{Rules, SpecSet, StateKey};
use broadside::target::{Fault, Observed, Reference, Target};
use std::sync::Arc;

/// battleboats, decision `skipped-turn-counted`, other reading: a penalty adds one turn at
/// once and the skipped one with the next action that uses a turn.
struct SkippedTurnLater {
    inner: Reference,
    pending: u32,
    /// Added to every `turns` read: 0 for the reading itself, 2 for a deliberately wrong target.
    error: u32,
}

impl Target for SkippedTurnLater {
    fn name(&self) -> String {
        "skipped-turn-later".into()
    }

    fn new_game(&mut self, rules: &Arc<Rules>, setup: &Setup) -> Result<(), Fault> {
        self.pending = 0;
        self.inner.new_game(rules, setup)
    }

    fn act(&mut self, action: &Action) -> Result<Answer, Fault> {
        let a = self.inner.act(action)?;
        match a.event {
            Some(Event::RepeatMiss | Event::RepeatHit | Event::OffBoard) => self.pending = 1,
            Some(Event::Miss | Event::Hit | Event::Sunk | Event::Drone | Event::Missile) => {
                self.pending = 0
            }
            _ => {}
        }
        Ok(a)
    }

    fn observe(&mut self, key: StateKey) -> Result<Observed, Fault> {
        match self.inner.observe(key)? {
            Observed::Count(n) if key == StateKey::Turns => {
                Ok(Observed::Count(n - self.pending + self.error))
            }
            other => Ok(other),
        }
    }
}

fn battleboats() -> Vec<broadside::scenario::Scenario> {
    let loaded = broadside::load::load(
        &["fixtures/scenarios/battleboats".into()],
        &SpecSet::builtin(),
    );
    assert!(loaded.errors.is_empty());
    loaded
        .scenarios
        .into_iter()
        .filter(|s| s.dialogue.is_none())
        .collect()
}

#[test]
fn battleboats_accepts_the_skipped_turn_counted_with_the_next_action() {
    let mut target = SkippedTurnLater {
        inner: Reference::new(),
        pending: 0,
        error: 0,
    };
    let failed: Vec<String> = battleboats()
        .iter()
        .map(|s| run_scenario(s, &mut target))
        .filter(|r| r.status != Status::Passed)
        .map(|r| format!("{}: {:?}", r.path, r.divergence))
        .collect();
    assert!(
        failed.is_empty(),
        "the other reading fails:\n{}",
        failed.join("\n")
    );
}

#[test]
fn battleboats_still_fails_a_turn_counter_that_is_simply_wrong() {
    let mut target = SkippedTurnLater {
        inner: Reference::new(),
        pending: 0,
        error: 2,
    };
    let failed = battleboats()
        .iter()
        .filter(|s| run_scenario(s, &mut target).status == Status::Failed)
        .count();
    assert!(
        failed >= 5,
        "a wrong turn counter failed only {failed} scenarios"
    );
}

/// move-limit-10x10, decision `repeat-hit-costs`, other reading (Gameplay rule 4): a shot on
/// an already-hit ship cell costs a move.
struct RepeatHitCosts {
    inner: Reference,
    extra: u32,
}

impl Target for RepeatHitCosts {
    fn name(&self) -> String {
        "repeat-hit-costs".into()
    }

    fn new_game(&mut self, rules: &Arc<Rules>, setup: &Setup) -> Result<(), Fault> {
        self.extra = 0;
        self.inner.new_game(rules, setup)
    }

    fn act(&mut self, action: &Action) -> Result<Answer, Fault> {
        let a = self.inner.act(action)?;
        if a.event == Some(Event::RepeatHit) {
            self.extra += 1;
        }
        Ok(a)
    }

    fn observe(&mut self, key: StateKey) -> Result<Observed, Fault> {
        match self.inner.observe(key)? {
            Observed::Count(n) if key == StateKey::Moves => Ok(Observed::Count(n + self.extra)),
            other => Ok(other),
        }
    }
}

#[test]
fn move_limit_accepts_a_repeated_hit_that_costs_a_move() {
    let loaded = broadside::load::load(
        &["fixtures/scenarios/move-limit-10x10".into()],
        &SpecSet::builtin(),
    );
    assert!(loaded.errors.is_empty());
    let mut target = RepeatHitCosts {
        inner: Reference::new(),
        extra: 0,
    };
    let mut touched = 0;
    for s in &loaded.scenarios {
        let r = run_scenario(s, &mut target);
        touched += usize::from(target.extra > 0);
        assert_eq!(r.status, Status::Passed, "{}: {:?}", r.path, r.divergence);
    }
    assert!(
        touched >= 2,
        "only {touched} published scenarios repeat a hit; the reading is barely exercised"
    );
}
