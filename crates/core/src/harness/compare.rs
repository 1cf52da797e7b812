//! Comparing answers and observations with expectations, and describing both for reports.

use super::target::Observed;
use crate::cell::RawCell;
use crate::engine::Answer;
use crate::scenario::{Expect, Expected};
use crate::spec::Rules;

/// Whether `answer` satisfies `expect`: an accepted outcome and every detail given.
pub fn matches_answer(expect: &Expect, answer: &Answer) -> bool {
    expect.outcomes.contains(&answer.outcome)
        && expect
            .ship
            .as_ref()
            .is_none_or(|s| answer.ship.as_ref() == Some(s))
        && expect
            .owner
            .as_ref()
            .is_none_or(|o| answer.owner.as_ref() == Some(o))
        && expect.count.is_none_or(|c| answer.count == Some(c))
        && expect
            .value
            .as_ref()
            .is_none_or(|v| answer.value.as_ref() == Some(v))
        && expect.cells.as_ref().is_none_or(|cells| {
            let mut got = answer.cells.clone();
            got.sort();
            *cells == got
        })
}

/// Whether an observed state value is the expected one.
pub fn matches_state(expected: &Expected, observed: &Observed) -> bool {
    match (expected, observed) {
        (Expected::Names(e), Observed::Names(o)) => e == o,
        (Expected::Bool(e), Observed::Bool(o)) => e.contains(o),
        (Expected::Count(e), Observed::Count(o)) => e.contains(o),
        (Expected::Player(e), Observed::Player(o)) => e.contains(o),
        (Expected::Cells(e), Observed::Cells(o)) => e == o,
        (Expected::Board(e), Observed::Board(o)) => {
            e.len() == o.len() && e.iter().zip(o).all(|(a, b)| a.trim_end() == b.trim_end())
        }
        _ => false,
    }
}

/// `sunk (ship: Submarine)`, `hit or repeated`, `missile (A1 hit, A2 miss)`.
pub fn describe_expect(e: &Expect, rules: &Rules) -> String {
    if let Some(v) = &e.value {
        return v.to_string();
    }
    let words: Vec<&str> = e.outcomes.iter().map(|o| o.word()).collect();
    let cells = e.cells.as_deref().unwrap_or_default();
    let details = details(e.ship.as_ref(), e.owner.as_ref(), e.count, cells, rules);
    with_details(words.join(" or "), details)
}

/// The same shape for what a target answered, cells in the assignment's notation.
pub fn describe_answer(a: &Answer, rules: &Rules) -> String {
    if let Some(v) = &a.value {
        return v.to_string();
    }
    let mut details = details(a.ship.as_ref(), a.owner.as_ref(), a.count, &a.cells, rules);
    if let Some(r) = &a.reason {
        details.push(r.clone());
    }
    with_details(a.outcome.word().to_string(), details)
}

/// The details an expectation and an answer share, each as `name: value`; missile cells in
/// the assignment's notation.
fn details(
    ship: Option<&String>,
    owner: Option<&String>,
    count: Option<u32>,
    cells: &[(crate::cell::Cell, crate::engine::Outcome)],
    rules: &Rules,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(s) = ship {
        out.push(format!("ship: {s}"));
    }
    if let Some(o) = owner {
        out.push(format!("owner: {o}"));
    }
    if let Some(c) = count {
        out.push(format!("count: {c}"));
    }
    if !cells.is_empty() {
        let cells: Vec<String> = cells
            .iter()
            .map(|(c, o)| format!("{} {o}", rules.notation.format(RawCell::from(*c))))
            .collect();
        out.push(cells.join(", "));
    }
    out
}

fn with_details(head: String, details: Vec<String>) -> String {
    if details.is_empty() {
        head
    } else {
        format!("{head} ({})", details.join("; "))
    }
}

/// An expected state value as the scenario writes it.
pub fn describe_expected(e: &Expected, rules: &Rules) -> String {
    match e {
        Expected::Names(n) => format!("{n:?}"),
        Expected::Bool(b) => b
            .iter()
            .map(bool::to_string)
            .collect::<Vec<_>>()
            .join(" or "),
        Expected::Count(c) => c
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(" or "),
        Expected::Player(p) => p
            .iter()
            .map(|p| p.clone().unwrap_or_else(|| "none".into()))
            .collect::<Vec<_>>()
            .join(" or "),
        Expected::Cells(c) => cells(c.iter().copied(), rules),
        Expected::Board(rows) => rows.join("\n"),
    }
}

/// An observed state value, written like the expectation.
pub fn describe_observed(o: &Observed, rules: &Rules) -> String {
    match o {
        Observed::Names(n) => format!("{n:?}"),
        Observed::Bool(b) => b.to_string(),
        Observed::Count(c) => c.to_string(),
        Observed::Player(p) => p.clone().unwrap_or_else(|| "none".into()),
        Observed::Cells(c) => cells(c.iter().copied(), rules),
        Observed::Failed(why) => why.clone(),
        Observed::Board(rows) => rows
            .iter()
            .map(|r| r.trim_end())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

fn cells(list: impl Iterator<Item = crate::cell::Cell>, rules: &Rules) -> String {
    let v: Vec<String> = list
        .map(|c| rules.notation.format(RawCell::from(c)))
        .collect();
    format!("[{}]", v.join(", "))
}
