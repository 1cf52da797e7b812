//! The C ABI of `specs/abi/broadside.h` as Rust types: the outcome codes, the structs, and the
//! table of functions a loaded library defines (each one optional but the required three).
//!
//! Only the worker child uses this module to call into a library; the grading process never
//! loads one.

use crate::engine::{Dir, Outcome};
use std::ffi::{c_char, c_void};

/// The header, compiled in; written beside a submission that builds with a Makefile or `cc`.
pub(crate) const HEADER: &str = include_str!("../../../specs/abi/broadside.h");

/// The ABI version this broadside speaks (`BS_ABI_VERSION`).
pub(crate) const VERSION: u32 = 1;

/// `BS_ERR`: the call failed.
pub(crate) const ERR: i32 = -1;
/// `BS_ERR_BUFFER`: an output buffer was too small.
pub(crate) const ERR_BUFFER: i32 = -2;
/// `BS_NAME_MAX`: the longest ship name broadside passes, in bytes, the NUL excluded.
pub(crate) const NAME_MAX: usize = 31;

/// `BS_COUNTER_SHOTS`.
pub(crate) const COUNTER_SHOTS: i32 = 0;
/// `BS_COUNTER_TURNS`.
pub(crate) const COUNTER_TURNS: i32 = 1;

/// The outcome a code (`BS_MISS` = 0 … `BS_REJECTED` = 11) stands for, or `None` for a code
/// the header does not define.
pub fn outcome(code: i32) -> Option<Outcome> {
    Some(match code {
        0 => Outcome::Miss,
        1 => Outcome::Hit,
        2 => Outcome::Sunk,
        3 => Outcome::Repeated,
        4 => Outcome::Invalid,
        5 => Outcome::Penalty,
        6 => Outcome::GameOver,
        7 => Outcome::UsedUp,
        8 => Outcome::Drone,
        9 => Outcome::Missile,
        10 => Outcome::Ok,
        11 => Outcome::Rejected,
        _ => return None,
    })
}

/// A direction's code (`BS_RIGHT` … `BS_UP`).
pub(crate) fn direction(dir: Dir) -> i32 {
    match dir {
        Dir::Right => 0,
        Dir::Down => 1,
        Dir::Left => 2,
        Dir::Up => 3,
    }
}

/// `bs_cell`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BsCell {
    pub row: i32,
    pub col: i32,
}

/// `bs_ship`: pointers borrowed for one call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct BsShip {
    pub name: *const c_char,
    pub kind: *const c_char,
    pub cells: *const BsCell,
    pub length: usize,
}

/// An opaque `bs_game *`.
pub type Game = *mut c_void;

type Version = unsafe extern "C" fn() -> u32;
type NewGame = unsafe extern "C" fn(*const c_char, i32, i32, *const BsShip, usize) -> Game;
type FreeGame = unsafe extern "C" fn(Game);
type Fire = unsafe extern "C" fn(Game, i32, i32, *mut c_char, usize) -> i32;
type Names = unsafe extern "C" fn(Game, *mut c_char, usize) -> i32;
type IsSunk = unsafe extern "C" fn(Game, *const c_char) -> i32;
type Flag = unsafe extern "C" fn(Game) -> i32;
type Counter = unsafe extern "C" fn(Game, i32) -> i64;
type CellQuestion = unsafe extern "C" fn(Game, i32, i32) -> i32;
type ShipAt = unsafe extern "C" fn(Game, i32, i32, *mut c_char, usize) -> i32;
type Place = unsafe extern "C" fn(Game, *const c_char, *const c_char, i32, i32, i32, i32) -> i32;
type RandomLayout = unsafe extern "C" fn(i32, i32, *mut BsShip, usize, u64) -> i32;
type Drone = unsafe extern "C" fn(Game, i32, i32, *mut i32) -> i32;
type Missile = unsafe extern "C" fn(Game, i32, i32, *mut i32) -> i32;

/// The functions a library defines; `None` where it does not define one.
pub(crate) struct Functions {
    pub version: Option<Version>,
    pub new_game: Option<NewGame>,
    pub free_game: Option<FreeGame>,
    pub fire: Option<Fire>,
    pub remaining_ships: Option<Names>,
    pub is_sunk: Option<IsSunk>,
    pub has_won: Option<Flag>,
    pub counter: Option<Counter>,
    pub was_targeted: Option<CellQuestion>,
    pub ship_at: Option<ShipAt>,
    pub is_valid_position: Option<CellQuestion>,
    pub place_ship: Option<Place>,
    pub is_open_sea: Option<CellQuestion>,
    pub check_if_hits: Option<CellQuestion>,
    pub random_layout: Option<RandomLayout>,
    pub drone: Option<Drone>,
    pub missile: Option<Missile>,
    /// Keeps the library mapped while the function pointers above are in use.
    _library: libloading::Library,
}

impl Functions {
    /// Loads the library at `path` and looks up every function of the header.
    ///
    /// Errors: the dynamic loader's message (not a shared library, an undefined symbol it
    /// needs, a wrong architecture).
    ///
    /// # Safety
    /// Loading runs the library's initialisers, and the pointers found are trusted to have
    /// the header's signatures: call only in the worker child, whose crash is contained.
    // A string error: one kind, only shown (the worker's answer to every request).
    pub unsafe fn load(path: &std::path::Path) -> Result<Functions, String> {
        // SAFETY: see the function's contract; the worker is the only caller.
        let library = unsafe { libloading::Library::new(path) }.map_err(|e| {
            // The loader's own words (`dlerror`) are the error's source.
            match std::error::Error::source(&e) {
                Some(why) => format!("{e}: {why}"),
                None => e.to_string(),
            }
        })?;
        macro_rules! find {
            ($name:literal) => {
                // SAFETY: the header declares the symbol with this signature.
                unsafe { library.get(concat!($name, "\0").as_bytes()) }
                    .ok()
                    .map(|s: libloading::Symbol<_>| *s)
            };
        }
        Ok(Functions {
            version: find!("bs_abi_version"),
            new_game: find!("bs_new_game"),
            free_game: find!("bs_free_game"),
            fire: find!("bs_fire"),
            remaining_ships: find!("bs_remaining_ships"),
            is_sunk: find!("bs_is_sunk"),
            has_won: find!("bs_has_won"),
            counter: find!("bs_counter"),
            was_targeted: find!("bs_was_targeted"),
            ship_at: find!("bs_ship_at"),
            is_valid_position: find!("bs_is_valid_position"),
            place_ship: find!("bs_place_ship"),
            is_open_sea: find!("bs_is_open_sea"),
            check_if_hits: find!("bs_check_if_hits"),
            random_layout: find!("bs_random_layout"),
            drone: find!("bs_drone"),
            missile: find!("bs_missile"),
            _library: library,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_outcome_code_of_the_header_is_read_and_nothing_else() {
        let defines: Vec<(String, i32)> = HEADER
            .lines()
            .filter_map(|l| l.strip_prefix("#define BS_"))
            .filter_map(|l| {
                let mut parts = l.split_whitespace();
                let name = parts.next()?.to_string();
                let value = parts.next()?.parse().ok()?;
                Some((name, value))
            })
            .collect();
        let words: Vec<(&str, i32)> = defines
            .iter()
            .filter(|(n, _)| {
                !n.starts_with("COUNTER")
                    && !["RIGHT", "DOWN", "LEFT", "UP", "ROW", "COL", "NAME_MAX"]
                        .contains(&n.as_str())
            })
            .map(|(n, v)| (n.as_str(), *v))
            .collect();
        assert_eq!(words.len(), 12, "{words:?}");
        for (name, code) in words {
            let outcome = outcome(code).unwrap_or_else(|| panic!("BS_{name} = {code}"));
            assert_eq!(
                outcome.word().replace('-', "_").to_uppercase(),
                name,
                "BS_{name}"
            );
        }
        assert_eq!(outcome(12), None);
        assert_eq!(outcome(-1), None);
    }

    #[test]
    fn directions_follow_the_header() {
        for (dir, name) in [
            (Dir::Right, "RIGHT"),
            (Dir::Down, "DOWN"),
            (Dir::Left, "LEFT"),
            (Dir::Up, "UP"),
        ] {
            let define = format!("#define BS_{name} {}", direction(dir));
            assert!(
                HEADER
                    .lines()
                    .any(|l| l.split_whitespace().collect::<Vec<_>>().join(" ") == define),
                "{define}"
            );
        }
    }
}
