//! The feedback's opening: one line per student function at fault, across every scenario
//! (issue "name the cause"). A student reads first which function is wrong, what it did
//! against what the handout says, and how much it cost, before the scenarios that show it.

use super::{Divergence, Follows, Report, ScenarioResult};

/// One student function's failures across a report.
#[derive(Debug, Clone)]
pub struct Cause<'a> {
    /// The function, e.g. `remaining_ships` (or several, as the spec names them); for a
    /// whole program, what is at fault and the rule (`main, rule sink-message`).
    pub function: String,
    /// Checks of it that failed (consequences of another function's bug left out).
    pub checks: usize,
    /// Scenarios with at least one of them.
    pub scenarios: usize,
    /// Its first failure, and the scenario it was in; or the fault that ended scenarios
    /// (a function missing, raising, or returning the wrong kind of value).
    pub first: Option<&'a Divergence>,
    pub fault: Option<&'a crate::fault::Fault>,
    pub scenario: &'a ScenarioResult,
}

/// The function a fault message names first (`` `is_sunk` is not defined ``).
pub(crate) fn faulting_function(message: &str) -> Option<&str> {
    let rest = message.strip_prefix('`')?;
    let name = rest.split('`').next()?;
    (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')).then_some(name)
}

/// The functions at fault in `report`, the one failing most checks first (ties: the one
/// met first). Only failures whose details the reader may see count; a failure marked a
/// consequence of an earlier answer is left to the function that caused it.
pub fn causes(report: &Report) -> Vec<Cause<'_>> {
    let mut out: Vec<Cause> = Vec::new();
    for r in &report.scenarios {
        if r.details_hidden {
            continue;
        }
        if let Some(f) = &r.fault
            && let Some(name) = faulting_function(&f.message)
        {
            match out
                .iter_mut()
                .find(|c| c.function == name && c.fault.is_some())
            {
                Some(c) => c.scenarios += 1,
                None => out.push(Cause {
                    function: name.to_string(),
                    checks: 0,
                    scenarios: 1,
                    first: None,
                    fault: Some(f),
                    scenario: r,
                }),
            }
        }
        let mut seen_here: Vec<String> = Vec::new();
        // A dialogue's first failed rule is its divergence (its sheet lists the others).
        for d in r.divergence.iter().chain(&r.later) {
            let Some(f) = d.function.as_deref() else {
                continue;
            };
            if d.follows == Some(Follows::Consequence) {
                continue;
            }
            // A whole program is one "function": its rules are told apart instead.
            let f = if r.rules.is_empty() {
                f.to_string()
            } else {
                format!("{f} (rule `{}`)", d.check)
            };
            let new_here = !seen_here.contains(&f);
            if new_here {
                seen_here.push(f.clone());
            }
            match out.iter_mut().find(|c| c.function == f) {
                Some(c) => {
                    c.checks += 1;
                    c.scenarios += usize::from(new_here);
                }
                None => out.push(Cause {
                    function: f,
                    checks: 1,
                    scenarios: 1,
                    first: Some(d),
                    fault: None,
                    scenario: r,
                }),
            }
        }
    }
    // Faults first (they end scenarios), then by checks failed; a stable sort keeps the
    // order met among equals.
    out.sort_by_key(|c| (c.fault.is_none(), std::cmp::Reverse(c.checks)));
    out
}

/// One cause as a line: the function, what it cost, what it did against what the handout
/// wants, and the handout's clause; where to see it in full last.
pub fn line(c: &Cause, name: &str) -> String {
    let plural = |n: usize, one: &str, many: &str| {
        if n == 1 {
            format!("{n} {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let Some(d) = c.first else {
        let f = c.fault.expect("a cause without a failure has a fault");
        let said = f.message.lines().next().unwrap_or_default();
        return format!(
            "{} ends {} ({}): {said} (first: {name})",
            c.function,
            plural(c.scenarios, "scenario", "scenarios"),
            f.kind.word()
        );
    };
    let dialogue = !c.scenario.rules.is_empty();
    // A dialogue's expectation carries the handout's words after it; the clause says them.
    let expected = if dialogue {
        d.expected.split(" (handout").next().unwrap_or(&d.expected)
    } else {
        &d.expected
    };
    let (got, wants) = differing(expected, &d.actual, d.check == "board");
    let what = if dialogue {
        // The move's number goes with the scenario at the end (`first: NAME, move 3`).
        format!("{}, it gave {got}", d.action)
    } else if d.actual.starts_with('`') {
        // A value of the wrong kind: the driver's sentence says what came back.
        let said = d.actual.split(';').next().unwrap_or(&d.actual);
        format!("{}: {said}", d.action)
    } else if d.check == "outcome" {
        format!("{} answered {got}", d.action)
    } else if d.step.is_none() {
        format!("at the end, {} was {got}", d.check)
    } else {
        format!("after {}, {} was {got}", d.action, d.check)
    };
    let cost = if dialogue {
        format!("in {}", plural(c.scenarios, "scenario", "scenarios"))
    } else {
        format!(
            "{} in {}",
            plural(c.checks, "check", "checks"),
            plural(c.scenarios, "scenario", "scenarios")
        )
    };
    let mut s = format!(
        "{} fails {cost}: {what} where the handout wants {wants}",
        c.function
    );
    if let Some(clause) = &d.clause {
        s.push_str(" — ");
        s.push_str(clause);
    }
    let unit = if dialogue { "move" } else { "step" };
    let at = d
        .step
        .map_or("the end".to_string(), |n| format!("{unit} {n}"));
    s.push_str(&format!(" (first: {name}, {at})"));
    s
}

/// The values to show: for boards (several lines), the first row that differs; else both
/// on one line.
fn differing(expected: &str, actual: &str, board: bool) -> (String, String) {
    if board || (expected.lines().count() > 1 && actual.lines().count() > 1) {
        let e: Vec<&str> = expected.lines().map(str::trim_end).collect();
        let a: Vec<&str> = actual.lines().map(str::trim_end).collect();
        if let Some(i) = (0..e.len().max(a.len())).find(|&i| e.get(i) != a.get(i)) {
            let row = |v: &[&str]| match v.get(i) {
                None => "no row".to_string(),
                Some(r) if r.trim().is_empty() => "a blank row".to_string(),
                Some(r) => format!("`{r}`"),
            };
            return (format!("{} in row {}", row(&a), i + 1), row(&e));
        }
    }
    (short(actual), short(expected))
}

/// A value on one line, cut to a readable length.
fn short(v: &str) -> String {
    let one: String = v.lines().map(str::trim_end).collect::<Vec<_>>().join(" / ");
    if one.chars().count() > 80 {
        let cut: String = one.chars().take(77).collect();
        format!("{cut}...")
    } else {
        one
    }
}
