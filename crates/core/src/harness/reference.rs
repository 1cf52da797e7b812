//! The reference engine as a target.

use super::target::{Observed, Target};
use crate::engine::{Answer, Game, Outcome};
use crate::fault::{Fault, FaultKind};
use crate::scenario::{Action, Setup};
use crate::spec::{Rules, StateKey};
use std::sync::Arc;

/// Plays scenarios on broadside's own engine; every published scenario must pass on it.
#[derive(Debug, Default)]
pub struct Reference {
    game: Option<Game>,
}

impl Reference {
    pub fn new() -> Self {
        Self::default()
    }

    /// The game in progress, if any (the harness draws boards from it).
    pub fn game(&self) -> Option<&Game> {
        self.game.as_ref()
    }

    /// Builds a game from a setup: every listed item on its cells.
    pub fn start(rules: &Arc<Rules>, setup: &Setup) -> Result<Game, Fault> {
        let mut game = Game::new(rules.clone());
        for (item, cells) in &setup.items {
            game.place_cells(*item, cells).map_err(|e| Fault {
                kind: FaultKind::Setup,
                message: format!("{} {}", rules.label(*item), e.describe(rules)),
            })?;
        }
        if let Some(first) = setup.first {
            game.set_next(first);
        }
        Ok(game)
    }

    fn game_mut(&mut self) -> Result<&mut Game, Fault> {
        self.game.as_mut().ok_or(Fault {
            kind: FaultKind::Protocol,
            message: "no game started".into(),
        })
    }
}

/// Performs `action` on `game`.
pub fn act(game: &mut Game, action: &Action) -> Answer {
    match action {
        Action::Fire { player, at } => game.fire(*player, *at),
        Action::Drone { axis, index } => game.drone(*axis, *index),
        Action::Missile { at } => game.missile(*at),
        Action::Query { meaning, at, .. } => Answer::value(game.query(*meaning, *at)),
        // The reference meets every whole-function check by construction.
        Action::Probe { .. } => Answer::placement(Outcome::Ok, None),
        Action::RandomLayouts { count } => random_layouts(game.rules(), *count),
        Action::Place { item, at, dir } => match game.place(*item, *at, *dir) {
            Ok(()) => Answer::placement(Outcome::Ok, None),
            Err(e) => Answer::placement(Outcome::Rejected, Some(e.describe(game.rules()))),
        },
    }
}

/// The reference's answer to drawing `count` random fleets: seeds 0 to `count - 1`, each
/// fleet checked as a student's would be. It depends on the rules and the count alone, so it
/// is worked out once per rules ([`crate::spec::DrawnFleets`]).
fn random_layouts(rules: &Arc<Rules>, count: u32) -> Answer {
    let why = rules.drawn.get_or(count, || {
        (0..u64::from(count))
            .try_for_each(|seed| {
                let layout = crate::engine::random_layout(rules, seed)?;
                let ships: Vec<_> = layout
                    .into_iter()
                    .zip(&rules.items)
                    .filter(|(_, d)| !d.grenade)
                    .map(|(c, _)| c)
                    .collect();
                crate::engine::check_layout(rules, &ships)
            })
            .err()
            .map(|e| e.to_string())
    });
    match why {
        None => Answer::placement(Outcome::Ok, None),
        Some(why) => Answer::placement(Outcome::Rejected, Some(why)),
    }
}

/// Answers `key` about `game`.
pub fn observe(game: &Game, key: StateKey) -> Observed {
    use crate::spec::Counter;
    match key {
        StateKey::Remaining => Observed::Names(game.remaining()),
        StateKey::Sunk => Observed::Names(game.sunk()),
        StateKey::Won => Observed::Bool(game.won()),
        StateKey::Lost => Observed::Bool(game.lost()),
        StateKey::Winner => Observed::Player(game.winner().map(String::from)),
        StateKey::Next => Observed::Player(Some(game.next_player().to_string())),
        StateKey::Shots => Observed::Count(game.counter(Counter::Shots)),
        StateKey::Turns => Observed::Count(game.counter(Counter::Turns)),
        StateKey::Moves => Observed::Count(game.counter(Counter::Moves)),
        StateKey::Targeted => Observed::Cells(game.targeted().iter().collect()),
        StateKey::Board => {
            Observed::Board(game.render(game.end().is_some() && game.rules().display.reveal_at_end))
        }
    }
}

impl Target for Reference {
    fn name(&self) -> String {
        "reference".into()
    }

    fn new_game(&mut self, rules: &Arc<Rules>, setup: &Setup) -> Result<(), Fault> {
        self.game = Some(Reference::start(rules, setup)?);
        Ok(())
    }

    fn act(&mut self, action: &Action) -> Result<Answer, Fault> {
        Ok(act(self.game_mut()?, action))
    }

    fn observe(&mut self, key: StateKey) -> Result<Observed, Fault> {
        Ok(observe(self.game_mut()?, key))
    }
}
