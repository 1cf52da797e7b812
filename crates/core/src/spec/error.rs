//! Why a spec does not hold together: a [`SpecError`] names the [`Table`] it is about, so a
//! diagnostic underlines that table without reading the message.

/// The part of a spec file a validation error is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Table {
    /// `[board]` (a mode's board is reported there too).
    Board,
    /// `[players]`.
    Players,
    /// `[[fleet]]`.
    Fleet,
    /// One event's table, `[events.NAME]`; `None` for `[events]` as a whole (an event it
    /// lacks).
    Events(Option<String>),
    /// `[end]`.
    End,
    /// The `details` list.
    Details,
    /// One player's glyphs, `[display.players.NAME]`.
    DisplayPlayers(String),
    /// One query's table, `[queries.NAME]`.
    Query(String),
    /// One row of the checks table, `[checks.KIND]`.
    Check(String),
    /// `[[decision]]`.
    Decision,
    /// `[modes.…]`.
    Modes,
    /// `[rubric]`.
    Rubric,
}

impl Table {
    /// The TOML paths where the table may be found, most precise first: `events.off-board`,
    /// then `events` (a table written inline in its parent is found there).
    pub fn paths(&self) -> Vec<String> {
        let one = |path: &str| vec![path.to_string()];
        match self {
            Table::Board => one("board"),
            Table::Players => one("players"),
            Table::Fleet => one("fleet"),
            Table::Events(None) => one("events"),
            Table::Events(Some(name)) => vec![format!("events.{name}"), "events".into()],
            Table::End => one("end"),
            Table::Details => one("details"),
            Table::DisplayPlayers(name) => {
                vec![format!("display.players.{name}"), "display".into()]
            }
            Table::Query(name) => vec![format!("queries.{name}"), "queries".into()],
            Table::Check(kind) => vec![format!("checks.{kind}"), "checks".into()],
            Table::Decision => one("decision"),
            Table::Modes => one("modes"),
            Table::Rubric => one("rubric"),
        }
    }
}

/// A rule of a spec that does not hold together: one sentence naming the field and what was
/// expected, and the table it is about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SpecError {
    /// Where the diagnostic points.
    pub table: Table,
    /// What is wrong, e.g. ``event `sunk` adds to `moves`, which [counters] does not list``.
    pub message: String,
}

impl SpecError {
    /// An error about `table`.
    pub fn new(table: Table, message: impl Into<String>) -> SpecError {
        SpecError {
            table,
            message: message.into(),
        }
    }
}
