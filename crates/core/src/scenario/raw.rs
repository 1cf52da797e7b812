//! The shapes of the scenario file's polymorphic values (a cell, a ship's position, an
//! expectation, a state value…), read by hand-written `Deserialize` impls that keep the
//! TOML span of the value (never `untagged`: an untagged enum's error names no position).
//!
//! These types give shape only. A value of the wrong kind does not fail deserialisation:
//! it is kept (as [`Loose::Misfit`], [`CellInput::NotACell`], …) so that the loader, which
//! holds the spec, reports it in the assignment's own terms (its notation, its outcome
//! words, its players) at the value's span, beside every other problem of the file. Checks
//! that need the spec (is this cell on the board, is this word an outcome the assignment
//! uses) stay in the loader.

use crate::cell::RawCell;
use crate::engine::Dir;
use crate::spec::StateKey;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::fmt;
use toml::{Spanned, Value};

/// The key toml's deserialiser gives a datetime, which it hands over as a one-key table.
const DATETIME_KEY: &str = "$__toml_private_datetime";

/// A value of type `T`, or whatever else was written there, kept for the error message.
#[derive(Debug, Clone, PartialEq)]
pub enum Loose<T> {
    /// The value has `T`'s shape.
    Fit(T),
    /// Anything else, as written.
    Misfit(Value),
}

impl<T> Loose<T> {
    /// The value if it has `T`'s shape.
    pub fn fit(self) -> Option<T> {
        match self {
            Loose::Fit(t) => Some(t),
            Loose::Misfit(_) => None,
        }
    }
}

impl<'de, T: Shape> Deserialize<'de> for Loose<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Ok(match T::from_value(&value) {
            Some(t) => Loose::Fit(t),
            None => Loose::Misfit(value),
        })
    }
}

/// A type read from a TOML value by its kind alone: a string is a string (a datetime is
/// not), an integer an integer.
pub(crate) trait Shape: Sized {
    /// `Some` if `v` has this shape.
    fn from_value(v: &Value) -> Option<Self>;
}

impl Shape for String {
    fn from_value(v: &Value) -> Option<Self> {
        v.as_str().map(String::from)
    }
}

impl Shape for bool {
    fn from_value(v: &Value) -> Option<Self> {
        v.as_bool()
    }
}

/// A whole number from 0 to `u32::MAX`.
impl Shape for u32 {
    fn from_value(v: &Value) -> Option<Self> {
        v.as_integer().and_then(|n| u32::try_from(n).ok())
    }
}

impl<T: Shape> Shape for Vec<T> {
    fn from_value(v: &Value) -> Option<Self> {
        v.as_array()?.iter().map(T::from_value).collect()
    }
}

/// One value, or a list of accepted values (a state key under a `decision`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum OneOrMany<T> {
    /// `shots = 3`.
    One(T),
    /// `shots = [3, 4]`; may be empty, which the loader reports.
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    /// The accepted values as a list.
    pub(crate) fn into_vec(self) -> Vec<T> {
        match self {
            OneOrMany::One(t) => vec![t],
            OneOrMany::Many(list) => list,
        }
    }
}

impl<T: Shape> Shape for OneOrMany<T> {
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Array(_) => Vec::from_value(v).map(OneOrMany::Many),
            _ => T::from_value(v).map(OneOrMany::One),
        }
    }
}

/// The rest of a sequence as a [`Value`], for a shape a visitor does not take.
fn seq_value<'de, A: SeqAccess<'de>>(seq: A) -> Result<Value, A::Error> {
    Value::deserialize(SeqAccessDeserializer::new(seq))
}

/// The rest of a table as a [`Value`] (a datetime included), for a shape a visitor does not
/// take.
fn map_value<'de, A: MapAccess<'de>>(map: A) -> Result<Value, A::Error> {
    Value::deserialize(MapAccessDeserializer::new(map))
}

/// A table's keys and values in key order, as the loader checks them (toml's tables are
/// sorted by key); `None` if the table is a datetime.
fn sorted_entries<'de, A: MapAccess<'de>>(
    mut map: A,
) -> Result<Option<Vec<(String, Value)>>, A::Error> {
    let mut entries = Vec::new();
    while let Some(key) = map.next_key::<String>()? {
        if key == DATETIME_KEY {
            map.next_value::<IgnoredAny>()?;
            return Ok(None);
        }
        entries.push((key, map.next_value::<Value>()?));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Some(entries))
}

/// Implements the scalar visits (boolean, integer, float) of a visitor as
/// `Self::Value::from(Value)`, so each shape says once what a scalar is to it.
macro_rules! scalars_as_value {
    () => {
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok(Value::Boolean(v).into())
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Value::Integer(v).into())
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(i64::try_from(v)
                .map_or_else(|_| Value::Float(v as f64), Value::Integer)
                .into())
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(Value::Float(v).into())
        }
    };
}

/// One element of a list of words: a string, a boolean (a query's answer), or anything
/// else as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Atom {
    /// `"hit"`, `"Submarine"`.
    Word(String),
    /// `true` or `false`.
    Bool(bool),
    /// Anything else, as written.
    Other(Value),
}

impl Atom {
    /// The word, if this is one.
    pub fn word(&self) -> Option<&str> {
        match self {
            Atom::Word(w) => Some(w),
            _ => None,
        }
    }

    /// The atom as the file wrote it: a word bare, anything else in TOML.
    pub fn shown(&self) -> String {
        match self {
            Atom::Word(w) => w.clone(),
            Atom::Bool(b) => b.to_string(),
            Atom::Other(v) => v.to_string(),
        }
    }
}

impl From<Value> for Atom {
    fn from(v: Value) -> Atom {
        match v {
            Value::String(s) => Atom::Word(s),
            Value::Boolean(b) => Atom::Bool(b),
            other => Atom::Other(other),
        }
    }
}

impl<'de> Deserialize<'de> for Atom {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Atom;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a word")
            }
            scalars_as_value!();
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Atom, E> {
                Ok(Atom::Word(v.to_string()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Atom, A::Error> {
                seq_value(seq).map(Atom::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Atom, A::Error> {
                map_value(map).map(Atom::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// A cell as a scenario writes it, before the spec reads it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CellInput {
    /// A string in the assignment's notation, e.g. `"B3"`; the spec parses it.
    Notation(String),
    /// A raw `[row, col]` pair, zero-based, maybe off the board (`[6, 0]`, `[-1, 3]`).
    Pair(RawCell),
    /// A list that is not two integers.
    BadPair,
    /// Neither a string nor a list.
    NotACell,
}

impl From<Value> for CellInput {
    fn from(v: Value) -> CellInput {
        match v {
            Value::String(s) => CellInput::Notation(s),
            Value::Array(a) => match a.as_slice() {
                [Value::Integer(row), Value::Integer(col)] => CellInput::Pair(RawCell {
                    row: *row,
                    col: *col,
                }),
                _ => CellInput::BadPair,
            },
            _ => CellInput::NotACell,
        }
    }
}

/// Any value is a cell input, the wrong kinds as [`CellInput::NotACell`].
impl Shape for CellInput {
    fn from_value(v: &Value) -> Option<Self> {
        Some(CellInput::from(v.clone()))
    }
}

impl<'de> Deserialize<'de> for CellInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CellInput;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a cell")
            }
            scalars_as_value!();
            fn visit_str<E: de::Error>(self, v: &str) -> Result<CellInput, E> {
                Ok(CellInput::Notation(v.to_string()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<CellInput, A::Error> {
                seq_value(seq).map(CellInput::from)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<CellInput, A::Error> {
                map_value(map).map(CellInput::from)
            }
        }
        d.deserialize_any(V)
    }
}

/// A `dir` value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DirInput {
    /// `"right"`, `"down"`, `"left"` or `"up"`.
    Dir(Dir),
    /// Anything else, as written (a string bare, any other value in TOML).
    Unknown(String),
}

impl From<Value> for DirInput {
    fn from(v: Value) -> DirInput {
        match v.as_str() {
            Some(s) => Dir::from_word(s).map_or_else(|| DirInput::Unknown(s.into()), DirInput::Dir),
            None => DirInput::Unknown(v.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for DirInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(DirInput::from)
    }
}

/// A ship's (or a grenade's) position in `[setup]`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ShipInput {
    /// One cell: a notation string, or a `[row, col]` pair of integers (a one-cell item, a
    /// grenades-8x8 ship or grenade), not a list of two cells.
    One(CellInput),
    /// A list of cells.
    Cells(Vec<CellInput>),
    /// `{ at = CELL, dir = "right" }`; each part `None` where missing.
    Line {
        /// The first cell.
        at: Option<CellInput>,
        /// Which way the ship runs from `at`.
        dir: Option<DirInput>,
        /// The first key (in key order) that is neither `at` nor `dir`.
        unknown: Option<String>,
    },
    /// Not a position at all (a number, a boolean, a datetime).
    Other,
}

impl ShipInput {
    /// `{ at = CELL, dir = "right" }` from a table's entries in key order.
    fn line(entries: impl IntoIterator<Item = (String, Value)>) -> ShipInput {
        let (mut at, mut dir, mut unknown) = (None, None, None);
        for (key, value) in entries {
            match key.as_str() {
                "at" => at = Some(CellInput::from(value)),
                "dir" => dir = Some(DirInput::from(value)),
                _ => {
                    unknown.get_or_insert(key);
                }
            }
        }
        ShipInput::Line { at, dir, unknown }
    }
}

/// A whole value as a position (a visitor's lists and scalars).
impl From<Value> for ShipInput {
    fn from(v: Value) -> ShipInput {
        match v {
            Value::String(_) => ShipInput::One(CellInput::from(v)),
            Value::Array(list)
                if list.len() == 2 && list.iter().all(|v| matches!(v, Value::Integer(_))) =>
            {
                ShipInput::One(CellInput::from(Value::Array(list)))
            }
            Value::Array(list) => ShipInput::Cells(list.into_iter().map(CellInput::from).collect()),
            Value::Table(t) => ShipInput::line(t),
            _ => ShipInput::Other,
        }
    }
}

impl<'de> Deserialize<'de> for ShipInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ShipInput;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of cells or a table")
            }
            scalars_as_value!();
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ShipInput, E> {
                Ok(ShipInput::One(CellInput::Notation(v.to_string())))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ShipInput, A::Error> {
                seq_value(seq).map(ShipInput::from)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ShipInput, A::Error> {
                Ok(sorted_entries(map)?.map_or(ShipInput::Other, ShipInput::line))
            }
        }
        d.deserialize_any(V)
    }
}

/// A `place = { ship = NAME, at = CELL, dir = "right", player = NAME }` action.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PlaceInput {
    /// A table, each part `None` where missing.
    Table {
        /// The ship's name or kind; `None` if missing or not a string.
        ship: Option<String>,
        /// The first cell.
        at: Option<CellInput>,
        /// Which way the ship runs from `at`.
        dir: Option<DirInput>,
        /// Whose ship (two-player games): a name, or anything else as written.
        player: Option<Loose<String>>,
        /// The first key (in key order) that `place` does not take.
        unknown: Option<String>,
    },
    /// Not a table.
    NotATable,
}

impl PlaceInput {
    /// A placement from a table's entries in key order.
    fn table(entries: impl IntoIterator<Item = (String, Value)>) -> PlaceInput {
        let (mut ship, mut at, mut dir, mut player, mut unknown) = (None, None, None, None, None);
        for (key, value) in entries {
            match key.as_str() {
                "ship" => ship = value.as_str().map(String::from),
                "at" => at = Some(CellInput::from(value)),
                "dir" => dir = Some(DirInput::from(value)),
                "player" => {
                    player = Some(match value {
                        Value::String(s) => Loose::Fit(s),
                        other => Loose::Misfit(other),
                    })
                }
                _ => {
                    unknown.get_or_insert(key);
                }
            }
        }
        PlaceInput::Table {
            ship,
            at,
            dir,
            player,
            unknown,
        }
    }
}

/// A whole value as a placement (a visitor's scalars).
impl From<Value> for PlaceInput {
    fn from(v: Value) -> PlaceInput {
        match v {
            Value::Table(t) => PlaceInput::table(t),
            _ => PlaceInput::NotATable,
        }
    }
}

impl<'de> Deserialize<'de> for PlaceInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PlaceInput;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table")
            }
            scalars_as_value!();
            fn visit_str<E: de::Error>(self, _: &str) -> Result<PlaceInput, E> {
                Ok(PlaceInput::NotATable)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<PlaceInput, A::Error> {
                seq_value(seq).map(PlaceInput::from)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<PlaceInput, A::Error> {
                Ok(sorted_entries(map)?.map_or(PlaceInput::NotATable, PlaceInput::table))
            }
        }
        d.deserialize_any(V)
    }
}

/// A `drone = { row = N } | { col = N }` action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DroneInput {
    /// `{ row = N }`, zero-based, maybe off the board.
    Row(i64),
    /// `{ col = N }`, zero-based, maybe off the board.
    Col(i64),
    /// Anything else.
    Malformed,
}

impl<'de> Deserialize<'de> for DroneInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = DroneInput;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("`{ row = N }` or `{ col = N }`")
            }
            scalars_as_value!();
            fn visit_str<E: de::Error>(self, _: &str) -> Result<DroneInput, E> {
                Ok(DroneInput::Malformed)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<DroneInput, A::Error> {
                seq_value(seq).map(|_| DroneInput::Malformed)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<DroneInput, A::Error> {
                let entries = sorted_entries(map)?.unwrap_or_default();
                Ok(match entries.as_slice() {
                    [(k, Value::Integer(i))] if k == "row" => DroneInput::Row(*i),
                    [(k, Value::Integer(i))] if k == "col" => DroneInput::Col(*i),
                    _ => DroneInput::Malformed,
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// A scalar is no drone (the visitor's scalars).
impl From<Value> for DroneInput {
    fn from(_: Value) -> DroneInput {
        DroneInput::Malformed
    }
}

/// A step's `expect`, before the action and the spec say which words it may hold.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ExpectInput {
    /// `expect = "hit"`: one outcome word (or a query's ship name, or `"none"`).
    Word(String),
    /// `expect = true`: a query's answer.
    Bool(bool),
    /// `expect = ["miss", "hit"]`: several accepted values, each as written.
    List(Vec<Atom>),
    /// `expect = { outcome = "sunk", ship = "Submarine" }`.
    Table(ExpectTable),
    /// Anything else (a number, a datetime).
    Other,
}

/// `expect = { outcome = …, ship = …, owner = …, count = …, cells = { … } }`.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ExpectTable {
    /// The keys other than `outcome`, in key order, as the loader checks them.
    pub details: Vec<Detail>,
    /// `outcome`: one word or a list, each as written; `None` where missing.
    pub outcome: Option<Vec<Atom>>,
}

/// One detail key of an expectation table, its value as written where of the wrong kind.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Detail {
    /// `ship = NAME`: the ship sunk (or hit).
    Ship(Loose<String>),
    /// `owner = PLAYER`: whose ship or grenade was struck.
    Owner(Loose<String>),
    /// `count = N`: how many ship cells a drone saw.
    Count(Loose<u32>),
    /// `cells = { CELL = OUTCOME, … }`: a missile's per-cell outcomes, in key order.
    Cells(Loose<Vec<(String, Atom)>>),
    /// Any other key.
    Unknown(String),
}

impl Detail {
    /// The detail of `key = value`, or `None` for `outcome`.
    fn of(key: String, value: Value) -> Option<Detail> {
        let string = |v: Value| match v {
            Value::String(s) => Loose::Fit(s),
            other => Loose::Misfit(other),
        };
        Some(match key.as_str() {
            "outcome" => return None,
            "ship" => Detail::Ship(string(value)),
            "owner" => Detail::Owner(string(value)),
            "count" => Detail::Count(match value {
                Value::Integer(n) if u32::try_from(n).is_ok() => {
                    Loose::Fit(u32::try_from(n).unwrap_or_default())
                }
                other => Loose::Misfit(other),
            }),
            "cells" => Detail::Cells(match value {
                Value::Table(t) => Loose::Fit(t.into_iter().map(|(c, o)| (c, o.into())).collect()),
                other => Loose::Misfit(other),
            }),
            _ => Detail::Unknown(key),
        })
    }
}

impl ExpectTable {
    /// The table of `entries`, given in key order.
    fn of(entries: Vec<(String, Value)>) -> ExpectTable {
        let mut table = ExpectTable::default();
        for (key, value) in entries {
            if key == "outcome" {
                table.outcome = Some(match value {
                    Value::Array(a) => a.into_iter().map(Atom::from).collect(),
                    other => vec![Atom::from(other)],
                });
            } else if let Some(detail) = Detail::of(key, value) {
                table.details.push(detail);
            }
        }
        table
    }
}

impl ExpectInput {
    /// Whether this accepts only `rejected` (word, list or table form), so a placement
    /// leaves its ship unplaced for later steps.
    pub(crate) fn only_rejection(&self) -> bool {
        let all_rejected = |words: &[Atom]| {
            !words.is_empty() && words.iter().all(|w| w.word() == Some("rejected"))
        };
        match self {
            ExpectInput::Word(w) => w == "rejected",
            ExpectInput::List(words) => all_rejected(words),
            ExpectInput::Table(t) => t.outcome.as_deref().is_some_and(all_rejected),
            ExpectInput::Bool(_) | ExpectInput::Other => false,
        }
    }
}

impl<'de> Deserialize<'de> for ExpectInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ExpectInput;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an outcome word, a list of them, or a table")
            }
            scalars_as_value!();
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ExpectInput, E> {
                Ok(ExpectInput::Word(v.to_string()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ExpectInput, A::Error> {
                let mut words = Vec::new();
                while let Some(w) = seq.next_element::<Atom>()? {
                    words.push(w);
                }
                Ok(ExpectInput::List(words))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ExpectInput, A::Error> {
                Ok(sorted_entries(map)?.map_or(ExpectInput::Other, |entries| {
                    ExpectInput::Table(ExpectTable::of(entries))
                }))
            }
        }
        d.deserialize_any(V)
    }
}

/// A scalar as an expectation: a boolean is a query's answer, anything else no
/// expectation (the visitor's scalars).
impl From<Value> for ExpectInput {
    fn from(v: Value) -> ExpectInput {
        match v {
            Value::Boolean(b) => ExpectInput::Bool(b),
            _ => ExpectInput::Other,
        }
    }
}

/// The value of one `state` or `[end]` key, in the shape its key takes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StateValue {
    /// `remaining`, `sunk`: a list of ship names.
    Names(Loose<Vec<String>>),
    /// `won`, `lost`: `true`/`false`, or a list of accepted values.
    Flags(Loose<OneOrMany<bool>>),
    /// `shots`, `turns`, `moves`: a count, or a list of accepted counts.
    Counts(Loose<OneOrMany<u32>>),
    /// `next`, `winner`: a player's name (or `"none"`), or a list of accepted names.
    Players(Loose<OneOrMany<String>>),
    /// `targeted`: a list of cells.
    Cells(Loose<Vec<CellInput>>),
    /// `board`: the rendered grid, one row per line.
    Board(Loose<String>),
}

/// A `state = { … }` table or the `[end]` table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawState {
    /// The state keys present, in [`StateKey`] order, each with its value and its span.
    pub entries: Vec<(StateKey, Spanned<StateValue>)>,
    /// In `[end]` only: the decision whose `accept_also` allows listed alternatives.
    pub decision: Option<Spanned<String>>,
}

/// A key of a `state` table: a state key or `decision`. Any other key fails as it reads, so
/// the error points at the key.
enum StateField {
    Key(StateKey),
    Decision,
}

impl<'de> Deserialize<'de> for StateField {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = StateField;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a state key")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<StateField, E> {
                match StateKey::from_name(key) {
                    Some(k) => Ok(StateField::Key(k)),
                    None if key == "decision" => Ok(StateField::Decision),
                    None => Err(unknown_state_key(key)),
                }
            }
        }
        d.deserialize_identifier(V)
    }
}

/// The error for a key that is neither a state key nor `decision`, worded as serde's own.
fn unknown_state_key<E: de::Error>(key: &str) -> E {
    let known: Vec<String> = StateKey::ALL
        .iter()
        .map(|k| k.name())
        .chain(["decision"])
        .map(|k| format!("`{k}`"))
        .collect();
    E::custom(format_args!(
        "unknown field `{key}`, expected one of {}",
        known.join(", ")
    ))
}

/// The next value of `map`, read in the shape `key` takes.
fn state_value<'de, A: MapAccess<'de>>(
    key: StateKey,
    map: &mut A,
) -> Result<Spanned<StateValue>, A::Error> {
    fn wrap<T>(s: Spanned<T>, kind: impl FnOnce(T) -> StateValue) -> Spanned<StateValue> {
        let span = s.span();
        Spanned::new(span, kind(s.into_inner()))
    }
    Ok(match key {
        StateKey::Remaining | StateKey::Sunk => wrap(map.next_value()?, StateValue::Names),
        StateKey::Won | StateKey::Lost => wrap(map.next_value()?, StateValue::Flags),
        StateKey::Shots | StateKey::Turns | StateKey::Moves => {
            wrap(map.next_value()?, StateValue::Counts)
        }
        StateKey::Next | StateKey::Winner => wrap(map.next_value()?, StateValue::Players),
        StateKey::Targeted => wrap(map.next_value()?, StateValue::Cells),
        StateKey::Board => wrap(map.next_value()?, StateValue::Board),
    })
}

impl<'de> Deserialize<'de> for RawState {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawState;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table of state keys, e.g. `{ shots = 2, won = false }`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawState, A::Error> {
                let mut state = RawState::default();
                while let Some(field) = map.next_key::<StateField>()? {
                    match field {
                        StateField::Decision => state.decision = Some(map.next_value()?),
                        StateField::Key(k) => state.entries.push((k, state_value(k, &mut map)?)),
                    }
                }
                state.entries.sort_by_key(|(k, _)| *k);
                Ok(state)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `v = …` read as a spanned `T`, with the text the span covers.
    fn read<T: for<'de> Deserialize<'de>>(value: &str) -> (T, String) {
        #[derive(Deserialize)]
        struct Doc<T> {
            v: Spanned<T>,
        }
        let text = format!("v = {value}\n");
        let doc: Doc<T> = toml::from_str(&text).expect("deserialises");
        let span = doc.v.span();
        (doc.v.into_inner(), text[span].to_string())
    }

    fn value(v: &str) -> Value {
        read::<Value>(v).0
    }

    #[test]
    fn a_cell_is_a_notation_string_or_a_pair() {
        assert_eq!(
            read("\"B3\""),
            (CellInput::Notation("B3".into()), "\"B3\"".into())
        );
        let pair = CellInput::Pair(RawCell { row: 6, col: 0 });
        assert_eq!(read("[6, 0]"), (pair, "[6, 0]".into()));
        assert_eq!(
            read::<CellInput>("[-1, 3]").0,
            CellInput::Pair(RawCell { row: -1, col: 3 })
        );
    }

    #[test]
    fn a_cell_of_the_wrong_shape_is_kept_with_its_span() {
        assert_eq!(read("[1, 2, 3]"), (CellInput::BadPair, "[1, 2, 3]".into()));
        assert_eq!(read::<CellInput>("[\"A\", 1]").0, CellInput::BadPair);
        assert_eq!(read("true"), (CellInput::NotACell, "true".into()));
        assert_eq!(read::<CellInput>("{ row = 1 }").0, CellInput::NotACell);
        assert_eq!(read::<CellInput>("1979-05-27").0, CellInput::NotACell);
    }

    #[test]
    fn a_direction_is_a_word_or_what_was_written() {
        assert_eq!(read::<DirInput>("\"down\"").0, DirInput::Dir(Dir::Down));
        assert_eq!(
            read::<DirInput>("\"rigth\"").0,
            DirInput::Unknown("rigth".into())
        );
        assert_eq!(read("3"), (DirInput::Unknown("3".into()), "3".into()));
    }

    #[test]
    fn a_ship_is_a_cell_a_list_of_cells_or_a_line() {
        let one = |r, c| CellInput::Pair(RawCell { row: r, col: c });
        assert_eq!(read::<ShipInput>("[2, 3]").0, ShipInput::One(one(2, 3)));
        assert_eq!(
            read::<ShipInput>("[[2, 3], \"A1\"]").0,
            ShipInput::Cells(vec![one(2, 3), CellInput::Notation("A1".into())])
        );
        assert_eq!(
            read::<ShipInput>("{ dir = \"right\", at = \"A4\" }").0,
            ShipInput::Line {
                at: Some(CellInput::Notation("A4".into())),
                dir: Some(DirInput::Dir(Dir::Right)),
                unknown: None,
            }
        );
    }

    #[test]
    fn a_ship_table_keeps_its_first_unknown_key_and_a_number_is_no_position() {
        let (ship, shown) = read::<ShipInput>("{ at = \"A1\", zz = 1, colour = \"red\" }");
        assert!(matches!(ship, ShipInput::Line { unknown: Some(k), .. } if k == "colour"));
        assert_eq!(shown, "{ at = \"A1\", zz = 1, colour = \"red\" }");
        assert_eq!(read("7"), (ShipInput::Other, "7".into()));
    }

    #[test]
    fn a_placement_is_a_table_of_its_parts() {
        let (place, _) = read::<PlaceInput>("{ ship = \"Carrier\", at = [0, 0], player = 3 }");
        assert_eq!(
            place,
            PlaceInput::Table {
                ship: Some("Carrier".into()),
                at: Some(CellInput::Pair(RawCell { row: 0, col: 0 })),
                dir: None,
                player: Some(Loose::Misfit(Value::Integer(3))),
                unknown: None,
            }
        );
        assert_eq!(read("\"A1\""), (PlaceInput::NotATable, "\"A1\"".into()));
    }

    #[test]
    fn a_drone_scans_one_row_or_one_column() {
        assert_eq!(read::<DroneInput>("{ row = 2 }").0, DroneInput::Row(2));
        assert_eq!(read::<DroneInput>("{ col = -1 }").0, DroneInput::Col(-1));
        for bad in ["{ row = 1, col = 2 }", "{ row = \"a\" }", "{}", "[1]", "3"] {
            assert_eq!(
                read::<DroneInput>(bad),
                (DroneInput::Malformed, bad.into()),
                "{bad}"
            );
        }
    }

    #[test]
    fn an_expectation_is_a_word_a_list_or_a_table() {
        assert_eq!(
            read::<ExpectInput>("\"hit\"").0,
            ExpectInput::Word("hit".into())
        );
        assert_eq!(read::<ExpectInput>("false").0, ExpectInput::Bool(false));
        assert_eq!(
            read::<ExpectInput>("[\"miss\", 3]").0,
            ExpectInput::List(vec![
                Atom::Word("miss".into()),
                Atom::Other(Value::Integer(3))
            ])
        );
        let (table, shown) = read::<ExpectInput>("{ ship = \"Sub\", outcome = \"sunk\" }");
        assert_eq!(
            table,
            ExpectInput::Table(ExpectTable {
                details: vec![Detail::Ship(Loose::Fit("Sub".into()))],
                outcome: Some(vec![Atom::Word("sunk".into())]),
            })
        );
        assert_eq!(shown, "{ ship = \"Sub\", outcome = \"sunk\" }");
    }

    #[test]
    fn an_expectation_table_keeps_its_details_in_key_order_and_the_wrong_kinds() {
        let (e, _) = read::<ExpectInput>(
            "{ ship = 3, count = -1, colour = \"red\", cells = { \"B2\" = \"hit\", \"A1\" = 1 } }",
        );
        let ExpectInput::Table(t) = e else {
            panic!("a table")
        };
        assert_eq!(
            t.details,
            vec![
                Detail::Cells(Loose::Fit(vec![
                    ("A1".into(), Atom::Other(Value::Integer(1))),
                    ("B2".into(), Atom::Word("hit".into())),
                ])),
                Detail::Unknown("colour".into()),
                Detail::Count(Loose::Misfit(Value::Integer(-1))),
                Detail::Ship(Loose::Misfit(Value::Integer(3))),
            ]
        );
        assert_eq!(t.outcome, None);
        assert_eq!(
            read::<ExpectInput>("1.5"),
            (ExpectInput::Other, "1.5".into())
        );
    }

    #[test]
    fn only_rejection_reads_every_form_of_expect() {
        for yes in [
            "\"rejected\"",
            "[\"rejected\"]",
            "{ outcome = [\"rejected\"] }",
        ] {
            assert!(read::<ExpectInput>(yes).0.only_rejection(), "{yes}");
        }
        for no in [
            "\"ok\"",
            "[]",
            "[\"rejected\", \"ok\"]",
            "{ count = 1 }",
            "true",
        ] {
            assert!(!read::<ExpectInput>(no).0.only_rejection(), "{no}");
        }
    }

    #[test]
    fn loose_values_keep_what_does_not_fit() {
        assert_eq!(read::<Loose<u32>>("3").0, Loose::Fit(3));
        assert_eq!(
            read::<Loose<u32>>("-3").0,
            Loose::Misfit(Value::Integer(-3))
        );
        assert_eq!(
            read::<Loose<u32>>("4294967296").0,
            Loose::Misfit(Value::Integer(1 << 32))
        );
        // A datetime is not a string, though toml can show it as one.
        let date = value("1979-05-27");
        assert_eq!(read::<Loose<String>>("1979-05-27").0, Loose::Misfit(date));
        assert_eq!(
            read::<Loose<OneOrMany<bool>>>("[true, false]").0,
            Loose::Fit(OneOrMany::Many(vec![true, false]))
        );
        assert_eq!(
            read::<Loose<OneOrMany<String>>>("\"human\"")
                .0
                .fit()
                .map(OneOrMany::into_vec),
            Some(vec!["human".to_string()])
        );
    }

    #[test]
    fn a_state_table_types_each_key_and_lists_them_in_key_order() {
        let (state, shown) =
            read::<RawState>("{ shots = [1, 2], remaining = [\"Sub\"], decision = \"d\" }");
        assert_eq!(
            shown,
            "{ shots = [1, 2], remaining = [\"Sub\"], decision = \"d\" }"
        );
        let keys: Vec<StateKey> = state.entries.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, [StateKey::Remaining, StateKey::Shots]);
        assert_eq!(
            state.entries[1].1.get_ref(),
            &StateValue::Counts(Loose::Fit(OneOrMany::Many(vec![1, 2])))
        );
        let text = "v = { shots = [1, 2], remaining = [\"Sub\"], decision = \"d\" }\n";
        assert_eq!(&text[state.entries[1].1.span()], "[1, 2]");
        assert_eq!(
            state.decision.map(Spanned::into_inner).as_deref(),
            Some("d")
        );
    }

    #[test]
    fn a_state_value_of_the_wrong_kind_is_kept_for_the_loader() {
        let (state, _) = read::<RawState>("{ board = 3, targeted = [\"A1\", true] }");
        assert_eq!(
            state.entries[0].1.get_ref(),
            &StateValue::Cells(Loose::Fit(vec![
                CellInput::Notation("A1".into()),
                CellInput::NotACell
            ]))
        );
        assert_eq!(
            state.entries[1].1.get_ref(),
            &StateValue::Board(Loose::Misfit(value("3")))
        );
    }

    #[test]
    fn an_unknown_state_key_fails_at_the_key_as_a_derived_struct_would() {
        let text = "state = { shots = 1, bogus = 2 }\n";
        type Doc = std::collections::BTreeMap<String, RawState>;
        let err = toml::from_str::<Doc>(text).expect_err("an unknown key");
        assert_eq!(&text[err.span().expect("a span")], "bogus");
        assert!(
            err.message()
                .starts_with("unknown field `bogus`, expected one of `remaining`"),
            "{}",
            err.message()
        );
        let err = toml::from_str::<Doc>("state = [1]\n").expect_err("a list");
        assert_eq!(
            err.message(),
            "invalid type: sequence, expected a table of state keys, e.g. `{ shots = 2, won = false }`"
        );
    }
}
