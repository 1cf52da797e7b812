//! What an action can answer (`Outcome`, the words scenarios and reports use) and what
//! physically happened on the board (`Event`, which a spec maps to an outcome and costs).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The answer to one action, as a student's code or program reports it.
///
/// Words (kebab-case in TOML and JSON) follow DESIGN.md "Scenario format"; `game-over`,
/// `used-up`, `drone`, `missile`, `ok` and `rejected` complete the set for the handouts'
/// end-of-game, power-limit, power and placement answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Miss,
    Hit,
    Sunk,
    Repeated,
    Invalid,
    Penalty,
    Grenade,
    /// The game had already ended; nothing changed.
    GameOver,
    /// A power was used past its limit; nothing changed and no turn was used.
    UsedUp,
    /// A drone scanned a row or column; the detail is the count of ship cells.
    Drone,
    /// A missile struck a 3×3 square; the detail is each struck cell's outcome.
    Missile,
    /// A placement was accepted.
    Ok,
    /// A placement was refused.
    Rejected,
}

impl Outcome {
    /// Every outcome, in declaration order.
    pub const ALL: [Outcome; 13] = [
        Outcome::Miss,
        Outcome::Hit,
        Outcome::Sunk,
        Outcome::Repeated,
        Outcome::Invalid,
        Outcome::Penalty,
        Outcome::Grenade,
        Outcome::GameOver,
        Outcome::UsedUp,
        Outcome::Drone,
        Outcome::Missile,
        Outcome::Ok,
        Outcome::Rejected,
    ];

    /// The word used in scenarios and reports, e.g. `"game-over"`.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Miss => "miss",
            Outcome::Hit => "hit",
            Outcome::Sunk => "sunk",
            Outcome::Repeated => "repeated",
            Outcome::Invalid => "invalid",
            Outcome::Penalty => "penalty",
            Outcome::Grenade => "grenade",
            Outcome::GameOver => "game-over",
            Outcome::UsedUp => "used-up",
            Outcome::Drone => "drone",
            Outcome::Missile => "missile",
            Outcome::Ok => "ok",
            Outcome::Rejected => "rejected",
        }
    }

    /// Parses a word; `None` for anything else.
    pub(crate) fn from_word(word: &str) -> Option<Outcome> {
        Outcome::ALL.into_iter().find(|o| o.word() == word)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// What a shot or power physically did. A spec's `[events]` table says, for each, which
/// [`Outcome`] the handout reports and what it costs on each counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Event {
    /// A new shot on water.
    Miss,
    /// A new shot on a ship cell that leaves the ship afloat.
    Hit,
    /// A new shot on a ship's last unhit cell.
    Sunk,
    /// A shot on a cell already shot, with no ship there (or a spent grenade).
    RepeatMiss,
    /// A shot on a ship cell already shot.
    RepeatHit,
    /// A shot off the board.
    OffBoard,
    /// A new shot on a grenade.
    Grenade,
    /// A shot by the player whose turn it is not.
    OutOfTurn,
    /// Any action after the game has ended.
    GameOver,
    /// A drone scan.
    Drone,
    /// A missile strike.
    Missile,
    /// A power used past its limit.
    PowerUsedUp,
    /// A drone index or missile centre off the board.
    PowerOffBoard,
}

impl Event {
    /// Every event, in declaration order (the index used by event tables).
    pub const ALL: [Event; 13] = [
        Event::Miss,
        Event::Hit,
        Event::Sunk,
        Event::RepeatMiss,
        Event::RepeatHit,
        Event::OffBoard,
        Event::Grenade,
        Event::OutOfTurn,
        Event::GameOver,
        Event::Drone,
        Event::Missile,
        Event::PowerUsedUp,
        Event::PowerOffBoard,
    ];

    /// The index of this event in [`Event::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The key used in a spec's `[events]` table, e.g. `"repeat-hit"`.
    pub fn key(self) -> &'static str {
        match self {
            Event::Miss => "miss",
            Event::Hit => "hit",
            Event::Sunk => "sunk",
            Event::RepeatMiss => "repeat-miss",
            Event::RepeatHit => "repeat-hit",
            Event::OffBoard => "off-board",
            Event::Grenade => "grenade",
            Event::OutOfTurn => "out-of-turn",
            Event::GameOver => "game-over",
            Event::Drone => "drone",
            Event::Missile => "missile",
            Event::PowerUsedUp => "power-used-up",
            Event::PowerOffBoard => "power-off-board",
        }
    }
}
