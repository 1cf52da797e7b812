//! Answers: what a target writes back, one JSON object a line.
//!
//! [`Response`] is the wire shape of every answer (the envelope, the fields of each kind of
//! answer, the `state` object, a batch's `responses`). The native worker builds and
//! serialises it; the harness deserialises whatever a driver printed into it and then
//! validates it ([`Response::check`], [`Response::answer`], [`Response::state`]), so that a
//! garbled answer (a student's driver, a hostile submission) becomes a `protocol` fault with
//! a sentence saying what was wrong, never a serde error about line and column.
//!
//! Reading is lenient in two ways. A field whose wrong value the protocol has always
//! ignored (`ship: 3`, a non-string `output`) reads as absent. A field whose wrong value is
//! a fault is a [`Field`]: what was expected, or the JSON that came instead, kept to be
//! described.

use super::request::Pair;
use crate::cell::{Cell, RawCell};
use crate::engine::{Answer, Outcome, QueryValue};
use crate::fault::{Fault, FaultKind};
use crate::harness::target::Observed;
use crate::spec::{Rules, StateKey};
use serde::de::{DeserializeOwned, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// How much of a line that is not JSON is quoted in the fault, in characters.
const QUOTE: usize = 200;

/// One answer, as a driver writes it. Every field is optional on the wire; which ones an
/// answer must carry depends on the request (see `specs/protocol.md`) and is checked when
/// it is read. Object keys are written in serde_json's map order (sorted).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct Response {
    /// The request's `id`, repeated.
    #[serde(
        default,
        deserialize_with = "loose",
        skip_serializing_if = "Option::is_none"
    )]
    pub id: Option<u64>,
    /// Whether the request succeeded; `false` comes with an `error`.
    #[serde(
        default,
        deserialize_with = "loose",
        skip_serializing_if = "Option::is_none"
    )]
    pub ok: Option<bool>,
    /// Why the request failed.
    #[serde(
        default,
        deserialize_with = "loose_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub error: Option<Failure>,
    /// What the student's code printed while the request ran (shown next to a failed step).
    #[serde(
        default,
        deserialize_with = "loose",
        skip_serializing_if = "Option::is_none"
    )]
    pub output: Option<String>,
    /// The student function whose answer decided this one (reports name it as at fault).
    #[serde(
        default,
        deserialize_with = "loose",
        skip_serializing_if = "Option::is_none"
    )]
    pub by: Option<String>,
    /// The checks of this answer no student code answered (the driver decided them alone):
    /// `outcome` for an action's answer, state key names for an `observe`. They earn no
    /// credit (see [`crate::harness`]).
    #[serde(
        default,
        deserialize_with = "loose",
        skip_serializing_if = "Option::is_none"
    )]
    pub unanswered: Option<Vec<String>>,
    /// `observe`: the state keys whose function answered wrongly in a way that fails that
    /// key alone (it changed what it was given, where the spec's `[looks_only]` says it only
    /// looks), each with why; `state` may leave them out.
    #[serde(
        default,
        deserialize_with = "loose",
        skip_serializing_if = "Option::is_none"
    )]
    pub failed: Option<BTreeMap<String, String>>,
    /// `hello`: the protocol version the driver speaks (must be `super::VERSION`).
    #[serde(
        default,
        deserialize_with = "loose",
        skip_serializing_if = "Option::is_none"
    )]
    pub protocol: Option<u64>,
    /// `hello`: the driver's name and version, free text.
    #[serde(
        default,
        deserialize_with = "loose",
        skip_serializing_if = "Option::is_none"
    )]
    pub driver: Option<String>,
    /// `hello`: true when the driver takes the reference's state (`given`).
    #[serde(
        default,
        deserialize_with = "loose",
        skip_serializing_if = "Option::is_none"
    )]
    pub given: Option<bool>,
    /// `hello`: which file of the submission the driver graded, and why.
    #[serde(
        default,
        deserialize_with = "loose",
        skip_serializing_if = "Option::is_none"
    )]
    pub module: Option<String>,
    /// An action's outcome word.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub outcome: Option<Field<Outcome>>,
    /// `fire`: the kind of ship sunk, where the assignment reports it.
    #[serde(
        default,
        deserialize_with = "loose",
        skip_serializing_if = "Option::is_none"
    )]
    pub ship: Option<String>,
    /// `fire`: whose item was struck, where the assignment reports it.
    #[serde(
        default,
        deserialize_with = "loose",
        skip_serializing_if = "Option::is_none"
    )]
    pub owner: Option<String>,
    /// `drone`: the ship cells the scan saw.
    #[serde(
        default,
        deserialize_with = "loose",
        skip_serializing_if = "Option::is_none"
    )]
    pub count: Option<u32>,
    /// `missile`: each struck cell on the board and its outcome, `[[row, col], outcome]`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub cells: Option<Field<Vec<Field<StruckCell>>>>,
    /// `query`: true/false, a ship name, or null (no ship).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub value: Option<Field<CellValue>>,
    /// `place`, `probe`: why the answer is `rejected`.
    #[serde(
        default,
        deserialize_with = "loose",
        skip_serializing_if = "Option::is_none"
    )]
    pub reason: Option<String>,
    /// `random_layouts`: the fleets drawn, each a list of ships, each a list of cells.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub layouts: Option<Field<Vec<Field<Layout>>>>,
    /// `observe`: the state keys asked for.
    #[serde(
        default,
        deserialize_with = "loose_object",
        skip_serializing_if = "Option::is_none"
    )]
    pub state: Option<State>,
    /// `batch`: the answers to its requests, in order.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub responses: Option<Field<Vec<Field<Response>>>>,
}

/// One fleet of a `random_layouts` answer: its ships, each a list of cells.
pub type Layout = Vec<Field<Vec<Field<Pair>>>>;

/// One entry of a `missile` answer's `cells`: a struck cell and its outcome.
pub type StruckCell = (Field<Pair>, Field<Outcome>);

/// A failed request's `error`: whose fault it is and what happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// A missing or unknown kind reads as `protocol`.
    #[serde(default = "protocol_kind", deserialize_with = "kind_or_protocol")]
    pub kind: ErrorKind,
    /// For the report; a missing one reads as empty.
    #[serde(default, deserialize_with = "loose_or_default")]
    pub message: String,
    /// The student's traceback, trimmed (the Python driver sends one).
    #[serde(
        default,
        deserialize_with = "loose",
        skip_serializing_if = "Option::is_none"
    )]
    pub traceback: Option<String>,
}

/// Whose fault a failed request is: the kinds a driver may answer, each the
/// [`FaultKind`] of the same name (`From` maps them one to one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    /// The student's code raised an error (with its traceback).
    Exception,
    /// A function the handout requires is not defined.
    Missing,
    /// A function returned a value of the wrong type (the message shows the value).
    Type,
    /// The student's code ran out of memory.
    Limit,
    /// Native code wrote past the end of a buffer it was given.
    Overrun,
    /// The submission cannot be used at all (e.g. a library of another ABI version).
    Setup,
    /// The driver has no such operation for this assignment (the driver's fault).
    Unsupported,
    /// The driver could not read the request (the driver's fault).
    Protocol,
}

impl From<ErrorKind> for FaultKind {
    fn from(k: ErrorKind) -> FaultKind {
        match k {
            ErrorKind::Exception => FaultKind::Exception,
            ErrorKind::Missing => FaultKind::Missing,
            ErrorKind::Type => FaultKind::Type,
            ErrorKind::Limit => FaultKind::Limit,
            ErrorKind::Overrun => FaultKind::Overrun,
            ErrorKind::Setup => FaultKind::Setup,
            ErrorKind::Unsupported => FaultKind::Unsupported,
            ErrorKind::Protocol => FaultKind::Protocol,
        }
    }
}

impl Failure {
    /// A failure of `kind` with `message` and no traceback.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
            traceback: None,
        }
    }
}

impl From<Failure> for Fault {
    /// The fault on the scenario: the message, then the traceback on the lines below.
    fn from(f: Failure) -> Fault {
        let mut message = f.message;
        if let Some(tb) = f.traceback.filter(|t| !t.is_empty()) {
            message = format!("{message}\n{tb}");
        }
        Fault {
            kind: f.kind.into(),
            message,
        }
    }
}

/// The `observe` answer's `state`: each key asked for, and only those.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct State {
    /// Names of the ships afloat, in fleet order.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub remaining: Option<Field<Vec<String>>>,
    /// Names of the sunk ships, in fleet order.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub sunk: Option<Field<Vec<String>>>,
    /// Whether every ship is sunk (one-player games).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub won: Option<Field<bool>>,
    /// Whether the game is lost (the move limit reached).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub lost: Option<Field<bool>>,
    /// A player name or null.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub winner: Option<Field<Option<String>>>,
    /// Whose turn it is: a player name or null.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub next: Option<Field<Option<String>>>,
    /// The shots counter.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub shots: Option<Field<u32>>,
    /// The turns counter.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub turns: Option<Field<u32>>,
    /// The moves counter.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub moves: Option<Field<u32>>,
    /// The cells shot at.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub targeted: Option<Field<Vec<Field<Pair>>>>,
    /// The rendered grid: row strings in the spec's display alphabet.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub board: Option<Field<Vec<String>>>,
}

/// A `query` answer's `value`: true/false, or a ship name or null.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellValue(pub QueryValue);

/// A field of an answer as the driver wrote it: the expected shape, or whatever JSON came
/// instead (kept so that the fault can say what was wrong).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field<T> {
    /// The expected shape.
    Valid(T),
    /// Any other JSON, as it came (`null` included, where `null` is not a `T`).
    Garbled(Value),
}

impl<T> From<T> for Field<T> {
    fn from(t: T) -> Field<T> {
        Field::Valid(t)
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Field<T>, D::Error> {
        let v = Value::deserialize(d)?;
        Ok(match T::deserialize(&v) {
            Ok(t) => Field::Valid(t),
            Err(_) => Field::Garbled(v),
        })
    }
}

impl<T: Serialize> Serialize for Field<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Valid(t) => t.serialize(s),
            Field::Garbled(v) => v.serialize(s),
        }
    }
}

/// A field that reads as absent when it holds something else than a `T`.
fn loose<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Option<T>, D::Error> {
    Ok(T::deserialize(Value::deserialize(d)?).ok())
}

/// A field that reads as absent when it holds something else than an object that is a `T`
/// (serde would also read a struct from a list).
fn loose_object<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    d: D,
) -> Result<Option<T>, D::Error> {
    let v = Value::deserialize(d)?;
    Ok(v.is_object().then(|| T::deserialize(v).ok()).flatten())
}

/// A field that reads as `T::default()` when it holds something else than a `T`.
fn loose_or_default<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(
    d: D,
) -> Result<T, D::Error> {
    Ok(loose(d)?.unwrap_or_default())
}

/// A field present on the wire, even as `null` (which `Option` would read as absent).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

fn protocol_kind() -> ErrorKind {
    ErrorKind::Protocol
}

/// An error kind the protocol does not know reads as `protocol` (the driver's fault).
fn kind_or_protocol<'de, D: Deserializer<'de>>(d: D) -> Result<ErrorKind, D::Error> {
    Ok(loose(d)?.unwrap_or(ErrorKind::Protocol))
}

/// Only a JSON object is an answer: serde would also read a struct from a list.
impl<'de> Deserialize<'de> for Response {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Response, D::Error> {
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = Response;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an answer object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Response, A::Error> {
                Response::deserialize(serde::de::value::MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_map(Object)
    }
}

impl Serialize for Response {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Response::serialize(self, s)
    }
}

impl<'de> Deserialize<'de> for CellValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CellValue, D::Error> {
        Ok(CellValue(match Value::deserialize(d)? {
            Value::Bool(b) => QueryValue::Bool(b),
            Value::String(s) => QueryValue::Ship(Some(s)),
            Value::Null => QueryValue::Ship(None),
            other => {
                return Err(serde::de::Error::custom(format!(
                    "`value` {other} is neither true/false nor a ship name"
                )));
            }
        }))
    }
}

impl Serialize for CellValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            QueryValue::Bool(b) => s.serialize_bool(*b),
            QueryValue::Ship(name) => name.serialize(s),
        }
    }
}

/// Why an answer cannot be read: the sentence of the `protocol` fault it becomes (a target
/// that answers garbled JSON, a wrong `id`, an outcome word that is not one). Only the
/// reading of answers makes one, so only here does a string become one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AnswerError(pub String);

impl From<String> for AnswerError {
    fn from(sentence: String) -> AnswerError {
        AnswerError(sentence)
    }
}

impl From<&str> for AnswerError {
    fn from(sentence: &str) -> AnswerError {
        AnswerError(sentence.to_string())
    }
}

impl Response {
    /// A successful answer to request `id` with `fields` (a `Response` with only the
    /// fields of its kind of answer set).
    pub fn success(id: u64, fields: Response) -> Response {
        Response {
            id: Some(id),
            ok: Some(true),
            ..fields
        }
    }

    /// A failed answer to request `id` (`None`: a request whose `id` could not be read).
    pub fn failure(id: Option<u64>, failure: Failure) -> Response {
        Response {
            id,
            ok: Some(false),
            error: Some(failure),
            ..Response::default()
        }
    }

    /// An action's answer: its outcome word and nothing else yet.
    pub fn outcome(outcome: Outcome) -> Response {
        Response {
            outcome: Some(outcome.into()),
            ..Response::default()
        }
    }

    /// A batch's answer to request `id`: the answers to its requests, in order.
    pub fn batch(id: u64, responses: Vec<Response>) -> Response {
        Response::success(
            id,
            Response {
                responses: Some(Field::Valid(
                    responses.into_iter().map(Field::Valid).collect(),
                )),
                ..Response::default()
            },
        )
    }

    /// The answer as one line of JSON (without the newline), keys in serde_json's map order.
    pub fn to_line(&self) -> String {
        serde_json::to_value(self)
            .expect("an answer is strings, numbers, lists and maps with string keys")
            .to_string()
    }

    /// Reads one line a target answered; the error is the `protocol` fault's sentence.
    pub fn from_line(text: &str) -> Result<Response, AnswerError> {
        serde_json::from_str(text).map_err(|e| {
            AnswerError(if e.is_data() && text.trim_start().starts_with('{') {
                // Every field reads leniently; what is left is e.g. a key given twice.
                format!("the target answered an object that is not an answer: {e}")
            } else if e.is_data() {
                "an answer must be a JSON object".to_string()
            } else {
                let shown: String = text.chars().take(QUOTE).collect();
                format!("the target answered a line that is not JSON: {shown:?}")
            })
        })
    }

    /// Checks the envelope: the `id`, then `ok`. `Ok(Err(_))` is the driver's own error
    /// answer (whose fault it names); `Err` a sentence saying what is garbled.
    pub fn check(&self, id: u64) -> Result<Result<(), Failure>, AnswerError> {
        match self.id {
            Some(got) if got == id => {}
            Some(got) => return Err(format!("answer has id {got}; expected {id}").into()),
            None => return Err("answer has no numeric `id`".into()),
        }
        match self.ok {
            Some(true) => Ok(Ok(())),
            Some(false) => Ok(Err(self.error.clone().unwrap_or_else(|| {
                Failure::new(ErrorKind::Protocol, "a failed answer has no `error` object")
            }))),
            None => Err("answer has no boolean `ok`".into()),
        }
    }

    /// What the student printed while the request ran (empty when the driver says nothing).
    pub fn printed(&self) -> &str {
        self.output.as_deref().unwrap_or("")
    }

    /// Reads an action's answer (after [`Response::check`]).
    pub fn answer(&self, rules: &Rules) -> Result<Answer, AnswerError> {
        let outcome = match &self.outcome {
            Some(Field::Valid(o)) => *o,
            Some(Field::Garbled(Value::String(word))) => {
                return Err(format!("`{word}` is not an outcome word").into());
            }
            _ => return Err("answer has no `outcome` word".into()),
        };
        let mut a = Answer::placement(outcome, self.reason.clone());
        a.ship = self.ship.clone();
        a.owner = self.owner.clone();
        a.count = self.count;
        match &self.cells {
            None => {}
            Some(Field::Garbled(_)) => return Err("`cells` must be a list".into()),
            Some(Field::Valid(list)) => {
                for entry in list {
                    a.cells.push(struck(entry, rules)?);
                }
            }
        }
        a.value = match &self.value {
            None => None,
            Some(Field::Valid(CellValue(v))) => Some(v.clone()),
            Some(Field::Garbled(other)) => {
                return Err(
                    format!("`value` {other} is neither true/false nor a ship name").into(),
                );
            }
        };
        Ok(a)
    }

    /// Reads an `observe` answer's `state` for `keys` (after [`Response::check`]).
    pub fn state(
        &self,
        keys: &[StateKey],
        rules: &Rules,
    ) -> Result<BTreeMap<StateKey, Observed>, AnswerError> {
        let state = self.state.as_ref().ok_or("answer has no `state` object")?;
        let failed = self.failed.as_ref();
        keys.iter()
            .map(|key| match failed.and_then(|f| f.get(key.name())) {
                Some(why) => Ok((*key, Observed::Failed(why.clone()))),
                None => Ok((*key, state.read(*key, rules)?)),
            })
            .collect()
    }
}

/// One entry of a missile's `cells`, on the board.
fn struck(entry: &Field<StruckCell>, rules: &Rules) -> Result<(Cell, Outcome), AnswerError> {
    let not_a_pair = |v: &dyn fmt::Display| format!("`{v}` is not a [[row, col], outcome] pair");
    let (cell, word) = match entry {
        Field::Valid(pair) => pair,
        Field::Garbled(v) => return Err(not_a_pair(v).into()),
    };
    let cell = on_board(cell, rules)?;
    match word {
        Field::Valid(o) => Ok((cell, *o)),
        Field::Garbled(Value::String(w)) => Err(format!("`{w}` is not an outcome word").into()),
        Field::Garbled(_) => Err(not_a_pair(&serde_json::json!(entry)).into()),
    }
}

/// A `[row, col]` pair from an answer, on the board or not.
pub fn raw_cell(v: &Field<Pair>) -> Result<RawCell, AnswerError> {
    match v {
        Field::Valid([row, col]) => Ok(RawCell {
            row: *row,
            col: *col,
        }),
        Field::Garbled(v) => Err((match v.as_array().map(Vec::as_slice) {
            Some([Value::Number(r), Value::Number(_)]) if r.as_i64().is_none() => {
                "a cell's row must be an integer".to_string()
            }
            Some([Value::Number(_), Value::Number(_)]) => {
                "a cell's column must be an integer".to_string()
            }
            _ => format!("`{v}` is not a [row, col] cell"),
        })
        .into()),
    }
}

/// A cell of an answer that must be on the board.
fn on_board(v: &Field<Pair>, rules: &Rules) -> Result<Cell, AnswerError> {
    let raw = raw_cell(v)?;
    rules
        .cell(raw)
        .ok_or_else(|| AnswerError(format!("cell {raw} is off the board")))
}

impl State {
    /// The value of `key`, or a sentence saying why it cannot be read.
    fn read(&self, key: StateKey, rules: &Rules) -> Result<Observed, AnswerError> {
        let names = "a list of strings";
        let (flag, count, player) = ("true or false", "a whole number", "a player name or null");
        Ok(match key {
            StateKey::Remaining => Observed::Names(value(key, &self.remaining, names)?.clone()),
            StateKey::Sunk => Observed::Names(value(key, &self.sunk, names)?.clone()),
            StateKey::Board => Observed::Board(value(key, &self.board, names)?.clone()),
            StateKey::Won => Observed::Bool(*value(key, &self.won, flag)?),
            StateKey::Lost => Observed::Bool(*value(key, &self.lost, flag)?),
            StateKey::Shots => Observed::Count(*value(key, &self.shots, count)?),
            StateKey::Turns => Observed::Count(*value(key, &self.turns, count)?),
            StateKey::Moves => Observed::Count(*value(key, &self.moves, count)?),
            StateKey::Next => Observed::Player(value(key, &self.next, player)?.clone()),
            StateKey::Winner => Observed::Player(value(key, &self.winner, player)?.clone()),
            StateKey::Targeted => Observed::Cells(
                value(key, &self.targeted, "a list of cells")?
                    .iter()
                    .map(|c| on_board(c, rules))
                    .collect::<Result<BTreeSet<Cell>, AnswerError>>()?,
            ),
        })
    }
}

/// The value of state key `key`, which must be `what`.
fn value<'a, T>(
    key: StateKey,
    field: &'a Option<Field<T>>,
    what: &str,
) -> Result<&'a T, AnswerError> {
    match field {
        None => Err(format!("`state` has no `{key}`").into()),
        Some(Field::Garbled(_)) => Err(format!("`{key}` must be {what}").into()),
        Some(Field::Valid(t)) => Ok(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::SpecSet;
    use std::sync::Arc;

    fn colab() -> Arc<Rules> {
        let specs = SpecSet::builtin();
        let spec = specs.get("colab-6x6").expect("a builtin spec");
        spec.rules(None).expect("its default mode").clone()
    }

    /// `line` read as the answer to request 4, an action.
    fn action(line: &str) -> Result<Answer, AnswerError> {
        let r = Response::from_line(line)?;
        match r.check(4)? {
            Ok(()) => r.answer(&colab()),
            Err(f) => Err(format!("{:?}: {}", f.kind, f.message).into()),
        }
    }

    /// `line` read as the answer to request 4, an `observe` of `keys`.
    fn observe(line: &str, keys: &[StateKey]) -> Result<BTreeMap<StateKey, Observed>, AnswerError> {
        let r = Response::from_line(line)?;
        r.check(4)?.expect("not an error answer");
        r.state(keys, &colab())
    }

    #[test]
    fn a_garbled_envelope_is_described() {
        for (line, said) in [
            (
                "this is not json",
                "the target answered a line that is not JSON: \"this is not json\"",
            ),
            ("[4, true]", "an answer must be a JSON object"),
            ("3", "an answer must be a JSON object"),
            (r#"{"id": 3, "ok": true}"#, "answer has id 3; expected 4"),
            (r#"{"id": "4", "ok": true}"#, "answer has no numeric `id`"),
            (r#"{"ok": true}"#, "answer has no numeric `id`"),
            (r#"{"id": 4, "ok": "yes"}"#, "answer has no boolean `ok`"),
            (
                r#"{"id": 4, "id": 4, "ok": true}"#,
                "the target answered an object that is not an answer: duplicate field `id` at \
                 line 1 column 14",
            ),
        ] {
            assert_eq!(
                action(line).err().map(|e| e.0).as_deref(),
                Some(said),
                "{line}"
            );
        }
    }

    #[test]
    fn a_driver_error_names_its_kind_and_keeps_the_traceback() {
        let line = r#"{"id": 4, "ok": false, "error": {"kind": "exception", "message": "boom",
                       "traceback": "  line 3"}, "output": "hi"}"#;
        let r = Response::from_line(line).unwrap();
        let f = r.check(4).unwrap().unwrap_err();
        assert_eq!(f.kind, ErrorKind::Exception);
        assert_eq!(
            Fault::from(f),
            Fault {
                kind: FaultKind::Exception,
                message: "boom\n  line 3".into()
            }
        );
        assert_eq!(r.printed(), "hi");
        // A kind the protocol does not know is the driver's fault.
        for error in [r#"{"kind": "timeout"}"#, r#"{"kind": 3}"#, "{}", "[]", "7"] {
            let line = format!(r#"{{"id": 4, "ok": false, "error": {error}}}"#);
            let f = Response::from_line(&line)
                .unwrap()
                .check(4)
                .unwrap()
                .unwrap_err();
            assert_eq!(f.kind, ErrorKind::Protocol, "{line}");
        }
    }

    #[test]
    fn a_garbled_action_answer_is_described() {
        for (line, said) in [
            (r#"{"id": 4, "ok": true}"#, "answer has no `outcome` word"),
            (
                r#"{"id": 4, "ok": true, "outcome": 2}"#,
                "answer has no `outcome` word",
            ),
            (
                r#"{"id": 4, "ok": true, "outcome": "kaboom"}"#,
                "`kaboom` is not an outcome word",
            ),
            (
                r#"{"id": 4, "ok": true, "outcome": "missile", "cells": 3}"#,
                "`cells` must be a list",
            ),
            (
                r#"{"id": 4, "ok": true, "outcome": "missile", "cells": [[[0, 0]]]}"#,
                "`[[0,0]]` is not a [[row, col], outcome] pair",
            ),
            (
                r#"{"id": 4, "ok": true, "outcome": "missile", "cells": [[[0, 0], 5]]}"#,
                "`[[0,0],5]` is not a [[row, col], outcome] pair",
            ),
            (
                r#"{"id": 4, "ok": true, "outcome": "missile", "cells": [[[0, 0], "boom"]]}"#,
                "`boom` is not an outcome word",
            ),
            (
                r#"{"id": 4, "ok": true, "outcome": "missile", "cells": [[[9, 0], "hit"]]}"#,
                "cell [9, 0] is off the board",
            ),
            (
                r#"{"id": 4, "ok": true, "outcome": "missile", "cells": [[[0.5, 0], "hit"]]}"#,
                "a cell's row must be an integer",
            ),
            (
                r#"{"id": 4, "ok": true, "outcome": "missile", "cells": [[[0, "a"], "hit"]]}"#,
                "`[0,\"a\"]` is not a [row, col] cell",
            ),
            (
                r#"{"id": 4, "ok": true, "outcome": "ok", "value": 3}"#,
                "`value` 3 is neither true/false nor a ship name",
            ),
        ] {
            assert_eq!(
                action(line).err().map(|e| e.0).as_deref(),
                Some(said),
                "{line}"
            );
        }
    }

    #[test]
    fn fields_the_protocol_ignores_when_garbled_read_as_absent() {
        let a = action(
            r#"{"id": 4, "ok": true, "outcome": "sunk", "ship": 3, "count": -1, "reason": [],
                "output": 5, "unknown": {"x": 1}}"#,
        )
        .unwrap();
        assert_eq!(a.outcome, Outcome::Sunk);
        assert_eq!((a.ship, a.count, a.reason), (None, None, None));
        let a = action(r#"{"id": 4, "ok": true, "outcome": "ok", "value": null}"#).unwrap();
        assert_eq!(a.value, Some(QueryValue::Ship(None)));
        let a = action(r#"{"id": 4, "ok": true, "outcome": "ok"}"#).unwrap();
        assert_eq!(a.value, None);
    }

    #[test]
    fn a_garbled_state_is_described() {
        use StateKey::*;
        for (state, key, said) in [
            (None, Shots, "answer has no `state` object"),
            (Some("[]"), Shots, "answer has no `state` object"),
            (Some(r#"{"won": true}"#), Shots, "`state` has no `shots`"),
            (
                Some(r#"{"shots": -1}"#),
                Shots,
                "`shots` must be a whole number",
            ),
            (
                Some(r#"{"won": "yes"}"#),
                Won,
                "`won` must be true or false",
            ),
            (
                Some(r#"{"sunk": [1]}"#),
                Sunk,
                "`sunk` must be a list of strings",
            ),
            (
                Some(r#"{"next": 1}"#),
                Next,
                "`next` must be a player name or null",
            ),
            (
                Some(r#"{"targeted": 1}"#),
                Targeted,
                "`targeted` must be a list of cells",
            ),
            (
                Some(r#"{"targeted": [[0, 6]]}"#),
                Targeted,
                "cell [0, 6] is off the board",
            ),
        ] {
            let line = match state {
                Some(s) => format!(r#"{{"id": 4, "ok": true, "state": {s}}}"#),
                None => r#"{"id": 4, "ok": true}"#.to_string(),
            };
            assert_eq!(
                observe(&line, &[key]).err().map(|e| e.0).as_deref(),
                Some(said),
                "{line}"
            );
        }
    }

    #[test]
    fn a_state_reads_every_key() {
        let line = r#"{"id": 4, "ok": true, "state": {"remaining": ["Cruiser"], "sunk": [],
            "won": false, "lost": false, "winner": null, "next": "human", "shots": 2,
            "turns": 1, "moves": 0, "targeted": [[0, 0], [5, 5]], "board": [". ."]}}"#;
        let keys = [
            StateKey::Remaining,
            StateKey::Sunk,
            StateKey::Won,
            StateKey::Winner,
            StateKey::Next,
            StateKey::Shots,
            StateKey::Targeted,
            StateKey::Board,
        ];
        let state = observe(line, &keys).unwrap();
        assert_eq!(
            state[&StateKey::Remaining],
            Observed::Names(vec!["Cruiser".into()])
        );
        assert_eq!(state[&StateKey::Winner], Observed::Player(None));
        assert_eq!(
            state[&StateKey::Next],
            Observed::Player(Some("human".into()))
        );
        assert_eq!(state[&StateKey::Shots], Observed::Count(2));
        let Observed::Cells(cells) = &state[&StateKey::Targeted] else {
            panic!("{state:?}")
        };
        assert_eq!(cells.len(), 2);
    }
}
