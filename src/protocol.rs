//! The wire protocol between the harness and a child target: JSON lines, one request and one
//! answer per line, each with an `id` (`specs/protocol.md` documents it for driver authors).
//!
//! Requests are built from the core types; answers are read field by field from JSON with a
//! message for every way they can be wrong (a garbled answer is a `protocol` fault).

use crate::cell::{Cell, RawCell};
use crate::engine::{Answer, Outcome, QueryValue};
use crate::scenario::{Action, Setup};
use crate::spec::{Rules, StateKey};
use crate::target::{Call, Observed};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// The protocol version `hello` announces; a driver must answer with the same.
pub const VERSION: u32 = 1;

fn pair(c: RawCell) -> Value {
    json!([c.row, c.col])
}

/// `hello`: the version and the assignment.
pub fn hello(id: u64, rules: &Rules) -> Value {
    json!({"id": id, "op": "hello", "protocol": VERSION, "assignment": rules.id, "mode": rules.mode})
}

/// `new_game`: the rules a driver needs and the setup in canonical form.
pub fn new_game(id: u64, rules: &Rules, setup: &Setup) -> Value {
    let d = &rules.display;
    let fleet: Vec<Value> = rules
        .items
        .iter()
        .map(|i| {
            json!({"name": i.name, "kind": i.kind, "length": i.length, "grenade": i.grenade,
                   "owner": rules.players[i.owner]})
        })
        .collect();
    let ships: Vec<Value> = setup
        .items
        .iter()
        .map(|(i, cells)| {
            let cells: Vec<Value> = cells.iter().map(|c| pair(RawCell::from(*c))).collect();
            json!({"name": rules.items[*i].name, "owner": rules.players[rules.items[*i].owner], "cells": cells})
        })
        .collect();
    json!({
        "id": id, "op": "new_game",
        "rules": {
            "assignment": rules.id, "mode": rules.mode, "rows": rules.rows, "cols": rules.cols,
            "players": rules.players, "fleet": fleet,
            "display": {"untried": d.untried, "miss": d.miss, "hit": d.hit, "sunk": d.sunk,
                        "ship": d.ship, "grenade": d.grenade, "separator": d.separator,
                        "sunk_by_kind": d.sunk_by_kind},
        },
        "setup": {"ships": ships, "first": setup.first.map(|p| rules.players[p].clone())},
    })
}

/// One action as a request.
pub fn action(id: u64, action: &Action, rules: &Rules) -> Value {
    match action {
        Action::Fire { player, at } => {
            json!({"id": id, "op": "fire", "at": pair(*at), "player": player.map(|p| rules.players[p].clone())})
        }
        Action::Drone { axis, index } => {
            json!({"id": id, "op": "drone", "axis": axis, "index": index})
        }
        Action::Missile { at } => json!({"id": id, "op": "missile", "at": pair(*at)}),
        Action::Place { item, at, dir } => {
            let d = &rules.items[*item];
            json!({"id": id, "op": "place", "ship": d.name, "kind": d.kind, "length": d.length,
                   "owner": rules.players[d.owner], "at": pair(*at), "dir": dir})
        }
        Action::Query { name, at, .. } => {
            let q = rules.query(name).expect("the loader checked the query");
            json!({"id": id, "op": "query", "query": name, "function": q.function, "at": pair(*at)})
        }
        Action::Probe { name } => json!({"id": id, "op": "probe", "probe": name}),
        Action::RandomLayouts { count } => {
            json!({"id": id, "op": "random_layouts", "count": count})
        }
    }
}

/// `observe` for some state keys.
pub fn observe(id: u64, keys: &[StateKey]) -> Value {
    json!({"id": id, "op": "observe", "keys": keys})
}

/// One call of a scenario as a request: an action or an `observe`, with the reference's
/// state in `given` (and, for `observe`, the keys to ask of it in `given_keys`) where the
/// harness hands it over.
pub fn call(id: u64, call: &Call, rules: &Rules) -> Value {
    let (mut v, given) = match call {
        Call::Act { action: a, given } => (action(id, a, rules), given),
        Call::Observe {
            keys,
            given,
            given_keys,
        } => {
            let mut v = observe(id, keys);
            if given.is_some() {
                v["given_keys"] = json!(given_keys);
            }
            (v, given)
        }
    };
    if let Some(g) = given {
        v["given"] = json!(g);
    }
    v
}

/// `batch`: many requests in one line, answered in one line.
pub fn batch(id: u64, requests: Vec<Value>) -> Value {
    json!({"id": id, "op": "batch", "requests": requests})
}

/// A driver's error answer: who failed and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverError {
    /// `exception`, `missing`, `type` or `protocol`.
    pub kind: String,
    pub message: String,
}

/// Checks the envelope of an answer: the `id`, then `ok`. Returns the answer object, or the
/// driver's error, or a sentence saying what is garbled.
pub fn envelope(
    answer: &Value,
    id: u64,
) -> Result<Result<&serde_json::Map<String, Value>, DriverError>, String> {
    let obj = answer
        .as_object()
        .ok_or("an answer must be a JSON object")?;
    match obj.get("id").and_then(Value::as_u64) {
        Some(got) if got == id => {}
        Some(got) => return Err(format!("answer has id {got}; expected {id}")),
        None => return Err("answer has no numeric `id`".into()),
    }
    match obj.get("ok").and_then(Value::as_bool) {
        Some(true) => Ok(Ok(obj)),
        Some(false) => {
            let e = obj.get("error").and_then(Value::as_object);
            let text = |k: &str| {
                e.and_then(|e| e.get(k))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            let mut message = text("message");
            let tb = text("traceback");
            if !tb.is_empty() {
                message = format!("{message}\n{tb}");
            }
            Ok(Err(DriverError {
                kind: text("kind"),
                message,
            }))
        }
        None => Err("answer has no boolean `ok`".into()),
    }
}

/// A `[row, col]` pair from an answer, on the board or not.
pub fn raw_cell(v: &Value) -> Result<RawCell, String> {
    match v.as_array().map(Vec::as_slice) {
        Some([Value::Number(r), Value::Number(c)]) => Ok(RawCell {
            row: r.as_i64().ok_or("a cell's row must be an integer")?,
            col: c.as_i64().ok_or("a cell's column must be an integer")?,
        }),
        _ => Err(format!("`{v}` is not a [row, col] cell")),
    }
}

fn cell_of(v: &Value, rules: &Rules) -> Result<Cell, String> {
    let raw = raw_cell(v)?;
    rules
        .cell(raw)
        .ok_or_else(|| format!("cell {raw} is off the board"))
}

/// Reads an action's answer.
pub fn read_answer(obj: &serde_json::Map<String, Value>, rules: &Rules) -> Result<Answer, String> {
    let word = obj
        .get("outcome")
        .and_then(Value::as_str)
        .ok_or("answer has no `outcome` word")?;
    let outcome =
        Outcome::from_word(word).ok_or_else(|| format!("`{word}` is not an outcome word"))?;
    let text = |k: &str| obj.get(k).and_then(Value::as_str).map(String::from);
    let mut a = Answer::placement(outcome, text("reason"));
    a.ship = text("ship");
    a.owner = text("owner");
    a.count = obj
        .get("count")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok());
    if let Some(cells) = obj.get("cells") {
        let list = cells.as_array().ok_or("`cells` must be a list")?;
        for entry in list {
            let (cell, word) = match entry.as_array().map(Vec::as_slice) {
                Some([c, Value::String(w)]) => (cell_of(c, rules)?, w),
                _ => return Err(format!("`{entry}` is not a [[row, col], outcome] pair")),
            };
            let o = Outcome::from_word(word)
                .ok_or_else(|| format!("`{word}` is not an outcome word"))?;
            a.cells.push((cell, o));
        }
    }
    a.value = match obj.get("value") {
        None => None,
        Some(Value::Bool(b)) => Some(QueryValue::Bool(*b)),
        Some(Value::String(s)) => Some(QueryValue::Ship(Some(s.clone()))),
        Some(Value::Null) => Some(QueryValue::Ship(None)),
        Some(other) => {
            return Err(format!(
                "`value` {other} is neither true/false nor a ship name"
            ));
        }
    };
    Ok(a)
}

/// Reads an `observe` answer's `state` object for `keys`.
pub fn read_state(
    obj: &serde_json::Map<String, Value>,
    keys: &[StateKey],
    rules: &Rules,
) -> Result<BTreeMap<StateKey, Observed>, String> {
    let state = obj
        .get("state")
        .and_then(Value::as_object)
        .ok_or("answer has no `state` object")?;
    let mut out = BTreeMap::new();
    for key in keys {
        let v = state
            .get(key.name())
            .ok_or_else(|| format!("`state` has no `{key}`"))?;
        let strings = || -> Result<Vec<String>, String> {
            v.as_array()
                .and_then(|a| a.iter().map(|x| x.as_str().map(String::from)).collect())
                .ok_or_else(|| format!("`{key}` must be a list of strings"))
        };
        let observed = match key {
            StateKey::Remaining | StateKey::Sunk => Observed::Names(strings()?),
            StateKey::Board => Observed::Board(strings()?),
            StateKey::Won | StateKey::Lost => Observed::Bool(
                v.as_bool()
                    .ok_or_else(|| format!("`{key}` must be true or false"))?,
            ),
            StateKey::Shots | StateKey::Turns | StateKey::Moves => Observed::Count(
                v.as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| format!("`{key}` must be a whole number"))?,
            ),
            StateKey::Next | StateKey::Winner => match v {
                Value::Null => Observed::Player(None),
                Value::String(s) => Observed::Player(Some(s.clone())),
                _ => return Err(format!("`{key}` must be a player name or null")),
            },
            StateKey::Targeted => {
                let list = v.as_array().ok_or("`targeted` must be a list of cells")?;
                let cells: Result<BTreeSet<Cell>, String> =
                    list.iter().map(|c| cell_of(c, rules)).collect();
                Observed::Cells(cells?)
            }
        };
        out.insert(*key, observed);
    }
    Ok(out)
}

/// What the student printed while a request ran (the driver's `output` field).
pub fn output(obj: &Value) -> String {
    obj.get("output")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}
