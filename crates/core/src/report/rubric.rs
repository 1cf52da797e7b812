//! Shares a suite's grade by its rubric ([`crate::spec::rubric`]).
//!
//! Each scenario group (one rubric, one suite) is worth what its scenarios were worth before
//! (the sum of their `max_score`); each part judged in the group gets its weight's share of
//! that; within a part, each check weighs what it weighed in its scenario (the scenario's
//! points shared among its checks), so the author's points still say which scenarios matter
//! more *for that function*. A part's score is its share times the weight of its checks
//! passed over the weight of all of them. A function broken everywhere therefore costs its
//! weight once, however many scenarios mention it, and a check that another function decided
//! (a sinking told by `is_sunk` inside a `fire`) is charged to that function, not to the one
//! the scenario is about.
//!
//! A check a fault left unreached is charged to the function the fault names (`hit`
//! raised), else to the function its kind's row names. A part none of whose checks this
//! submission reached (the game always ended at another function's fault first) is neither
//! credited nor charged: its weight is shared among the parts judged, so the one bug
//! still costs once. A check no student code answered earns nothing and weighs nothing.
//!
//! Pure: no process, clock or terminal.

use crate::report::{ScenarioResult, Status, round_to};
use crate::scenario::{Credit, Scenario};
use crate::spec::rubric::{Part, Rubric};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What one scenario's checks said of one part (or of none: `part` is `None` for checks
/// that carry no weight). A check charged to several parts counts a share in each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Judged {
    pub part: Option<String>,
    pub checks: f64,
    pub passed: f64,
}

/// Tallies a scenario's checks by part, as the harness judges them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tally {
    rows: Vec<Judged>,
}

impl Tally {
    /// One check charged to `parts` (empty: no weight), passed or not.
    pub fn check(&mut self, parts: &[&str], passed: bool) {
        if parts.is_empty() {
            self.add(None, 1.0, passed);
        }
        let share = 1.0 / parts.len().max(1) as f64;
        for p in parts {
            self.add(Some(p), share, passed);
        }
    }

    fn add(&mut self, part: Option<&str>, n: f64, passed: bool) {
        let row = match self.rows.iter_mut().find(|r| r.part.as_deref() == part) {
            Some(r) => r,
            None => {
                self.rows.push(Judged {
                    part: part.map(String::from),
                    ..Judged::default()
                });
                self.rows.last_mut().expect("just pushed")
            }
        };
        row.checks += n;
        if passed {
            row.passed += n;
        }
    }

    pub(crate) fn into_rows(self) -> Vec<Judged> {
        self.rows
    }
}

/// One part's score in a report (the `rubric` table of the JSON report).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct PartScore {
    /// The part: a handout function (`is_sunk`) or a group of rules (`penalties`).
    pub part: String,
    /// The assignment it belongs to.
    pub assignment: String,
    /// Its weight in the rubric.
    pub weight: f64,
    /// The handout clause.
    pub clause: String,
    /// What it earned, in the grade's units, rounded to 2 decimals.
    #[serde(serialize_with = "crate::report::points2")]
    pub score: f64,
    /// Its share of the grade, rounded to 2 decimals.
    #[serde(serialize_with = "crate::report::points2")]
    pub max_score: f64,
    /// The checks (a dialogue's rules) that judged it (fractional where a check judges
    /// several parts); left out of a student view with hidden scenarios (0).
    #[serde(
        default,
        serialize_with = "crate::report::points2",
        skip_serializing_if = "unknown"
    )]
    pub checks: f64,
    /// How many of them passed.
    #[serde(
        default,
        serialize_with = "crate::report::points2",
        skip_serializing_if = "unknown"
    )]
    pub passed: f64,
}

/// The score per part, as text: a heading and one line per part, `NAME  SCORE of SHARE`, the
/// checks passed where they are known (a student view with hidden scenarios leaves them
/// out). Empty without a rubric.
pub fn table(parts: &[PartScore]) -> String {
    if parts.is_empty() {
        return String::new();
    }
    let width = parts
        .iter()
        .map(|p| p.part.chars().count())
        .max()
        .unwrap_or(0);
    let several = spans_assignments(parts);
    let mut out = String::from("score by the handout's functions and rules (the rubric):\n");
    for p in parts {
        let of = if several {
            format!("{}: ", p.assignment)
        } else {
            String::new()
        };
        let checks = if !unknown(&p.checks) {
            format!(
                "  ({} of {} checks passed)",
                round2(p.passed),
                round2(p.checks)
            )
        } else {
            String::new()
        };
        out.push_str(&format!(
            "  {of}{:width$}  {} of {}{checks}\n",
            p.part,
            round2(p.score),
            round2(p.max_score)
        ));
    }
    out
}

/// A count a student view leaves out (see [`PartScore::checks`]).
fn unknown(v: &f64) -> bool {
    *v == 0.0
}

fn round2(v: f64) -> f64 {
    round_to(v, 2)
}

/// Whether `parts` come from several assignments (one run graded them together): each part
/// is then named with its assignment.
pub fn spans_assignments<'a>(parts: impl IntoIterator<Item = &'a PartScore>) -> bool {
    let mut parts = parts.into_iter();
    let first = parts.next().map(|p| p.assignment.as_str());
    parts.any(|p| Some(p.assignment.as_str()) != first)
}

/// Shares each rubric group's grade among its parts and rewrites each result's `score` and
/// `max_score` accordingly (see the module documentation); returns the parts' scores, group
/// by group in the order met, each in its rubric's order. Results are matched to scenarios
/// by path; a result with no rubric, no tallies, or not graded is left as it is, and a group
/// whose checks judge no part keeps its scores.
pub fn apply(scenarios: &[Scenario], results: &mut [ScenarioResult]) -> Vec<PartScore> {
    let by_path: BTreeMap<&str, &Scenario> = scenarios
        .iter()
        .map(|s| (s.source.path.as_str(), s))
        .collect();
    let groups = groups(&by_path, results);
    let mut out = Vec::new();
    for (rubric, assignment, members) in groups {
        // What each check weighed in its scenario, and each part's pool and earnings.
        let unit = |r: &ScenarioResult| {
            let n: f64 = r.judged.iter().map(|j| j.checks).sum();
            if n > 0.0 { r.max_score / n } else { 0.0 }
        };
        let mut pool: BTreeMap<String, (f64, f64, f64, f64)> = BTreeMap::new();
        for &i in &members {
            let r = &results[i];
            let u = unit(r);
            let credited = credited(r, by_path[r.path.as_str()]);
            for j in &r.judged {
                if let Some(p) = &j.part {
                    let e = pool.entry(p.clone()).or_default();
                    e.0 += j.checks * u;
                    e.1 += if credited { j.passed * u } else { 0.0 };
                    e.2 += j.checks;
                    e.3 += j.passed;
                }
            }
        }
        let judged = |p: &Part| pool.get(p.name.as_str()).is_some_and(|e| e.0 > 0.0);
        let wsum: f64 = rubric
            .parts
            .iter()
            .filter(|p| judged(p))
            .map(|p| p.weight)
            .sum();
        if wsum <= 0.0 {
            continue;
        }
        let total: f64 = members.iter().map(|&i| results[i].max_score).sum();
        let share = |p: &str| {
            let w = rubric
                .parts
                .iter()
                .find(|q| q.name == p)
                .map_or(0.0, |q| q.weight);
            total * w / wsum
        };
        for &i in &members {
            let u = unit(&results[i]);
            let credited = credited(&results[i], by_path[results[i].path.as_str()]);
            let (mut max, mut got) = (0.0, 0.0);
            for j in &results[i].judged {
                let Some(p) = j.part.as_deref() else { continue };
                let Some(&(w, ..)) = pool.get(p) else {
                    continue;
                };
                if w <= 0.0 {
                    continue;
                }
                max += share(p) * j.checks * u / w;
                if credited {
                    got += share(p) * j.passed * u / w;
                }
            }
            let r = &mut results[i];
            r.max_score = round4(max);
            r.score = if r.status == Status::Passed {
                r.max_score
            } else {
                round4(got.min(max))
            };
        }
        for p in rubric.parts.iter().filter(|p| judged(p)) {
            let &(w, e, n, k) = &pool[&p.name];
            out.push(PartScore {
                part: p.name.clone(),
                assignment: assignment.clone(),
                weight: p.weight,
                clause: p.clause.clone(),
                score: share(&p.name) * e / w,
                max_score: share(&p.name),
                checks: n,
                passed: k,
            });
        }
    }
    out
}

/// The rubric groups of `results`: one per rubric (a suite's own copy makes its own
/// group), with its assignment and the indices of its results, in the order met. Results
/// with no rubric, no tallies, or not graded are in none; a dialogue's tallies are made
/// from its rules here.
fn groups(
    by_path: &BTreeMap<&str, &Scenario>,
    results: &mut [ScenarioResult],
) -> Vec<(Arc<Rubric>, String, Vec<usize>)> {
    let mut groups: Vec<(Arc<Rubric>, String, Vec<usize>)> = Vec::new();
    for (i, r) in results.iter_mut().enumerate() {
        let Some(s) = by_path.get(r.path.as_str()) else {
            continue;
        };
        let Some(rubric) = &s.rules.rubric else {
            continue;
        };
        if r.status == Status::NotGraded {
            continue;
        }
        if r.judged.is_empty() && !r.rules.is_empty() {
            results_judged_from_rules(rubric, &mut *r);
        }
        if r.judged.is_empty() {
            continue;
        }
        match groups.iter_mut().find(|(g, ..)| Arc::ptr_eq(g, rubric)) {
            Some(g) => g.2.push(i),
            None => groups.push((rubric.clone(), s.assignment.clone(), vec![i])),
        }
    }
    groups
}

/// A dialogue's checks are its rules: each charged to the part listing it (none: no weight).
fn results_judged_from_rules(rubric: &Rubric, r: &mut ScenarioResult) {
    let mut tally = Tally::default();
    for rule in &r.rules {
        let parts: Vec<&str> = rubric.part_of_rule(&rule.rule).into_iter().collect();
        tally.check(&parts, rule.verdict == crate::report::Verdict::Passed);
    }
    r.judged = tally.into_rows();
}

/// Whether a result earns anything for the checks it passed: not a scenario credited all or
/// nothing and not passed.
fn credited(r: &ScenarioResult, s: &Scenario) -> bool {
    !(s.credit == Credit::Scenario && r.status != Status::Passed)
}

fn round4(v: f64) -> f64 {
    round_to(v, 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_shares_a_check_among_its_parts() {
        let mut t = Tally::default();
        t.check(&["a", "b"], true);
        t.check(&["a"], false);
        t.check(&[], true);
        let rows = t.into_rows();
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].checks, rows[0].passed), (1.5, 0.5));
        assert_eq!((rows[1].checks, rows[1].passed), (0.5, 0.5));
        assert_eq!(rows[2].part, None);
    }
}
