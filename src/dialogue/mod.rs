//! Dialogue scenarios: a whole interactive program driven through its standard input and
//! judged, line by line, against the reference engine.
//!
//! battleboats and grenades-8x8 prescribe a program that talks to a person, and solo-10x10
//! a `main()` that must never crash and must let the player quit. A dialogue scenario names
//! a plan of moves (`[dialogue] moves = [...]`); each is turned into lines for the program
//! at run time, from what the program has shown (battleboats' `print`, grenades-8x8's
//! revealed grid) and from the reference engine playing the same game. What the program
//! prints is read for its keywords and numbers, never as a fixed transcript: every student
//! words prompts differently and the computer's moves are random. A failed step shows the
//! last lines of the conversation, what was sent, what the reference expected, and the
//! board.

mod ask;
mod battleboats;
mod child;
mod grenades;
mod play;
pub mod read;
mod server;
pub mod session;
pub mod sheet;
mod solo;
mod talk;
pub mod transcript;
pub use play::*;
