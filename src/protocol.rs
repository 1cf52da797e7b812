//! The wire protocol between the harness and a child target: JSON lines, one request and one
//! answer per line, each with an `id` (`specs/protocol.md` documents it for driver authors).
//!
//! One typed pair serves both ends: [`Request`] (built by [`crate::target::Process`] from the
//! core's types, read back by the native worker) and [`Response`] (written by the worker,
//! read from any driver and validated, each garbled shape a sentence for a `protocol`
//! fault). Their JSON is pinned by snapshot tests (`tests/protocol.rs`).
//!
//! [`game_server`] types the second protocol, the lines between broadside and a game server
//! that plays a whole program's games one after another.

pub mod game_server;
mod request;
mod response;

pub use request::{FleetItem, GameRules, GameSetup, Glyphs, OPS, Pair, PlacedShip, Request};
pub use response::{
    AnswerError, CellValue, ErrorKind, Failure, Field, Layout, Response, State, StruckCell,
    raw_cell,
};

/// The protocol version `hello` announces; a driver must answer with the same.
pub(crate) const VERSION: u32 = 1;
