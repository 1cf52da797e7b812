//! A spec's rubric: how a suite's marks follow the handout's functions and rules rather than
//! how many scenarios were written about each (issue 36 §3). How the grade is shared out by
//! it is [`crate::report::rubric`]'s.
//!
//! A spec's `[rubric]` gives every handout function (Python, Haskell) or group of rules (a
//! whole program's handout rules) a **part** with a weight and the handout clause it comes
//! from; a `suite.toml` may change the weights. Each check a scenario makes is charged to the
//! part that judges it (`Rubric::parts_of`): the student function the harness names for it,
//! or, where none is named, the part that claims its kind of check; a dialogue's rule to the
//! part that lists it. A check no part claims carries no weight (it judges no function of the
//! student's: solo-10x10's shot count is counted by broadside from the calls made).

use serde::Deserialize;
use std::collections::BTreeMap;

/// A rubric that does not hold together, or a suite's reweighting of it that does not: one
/// sentence naming the part and what was expected. The spec's loader and the suite's each
/// point it at the table it came from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RubricError(pub String);

/// A spec's `[rubric]`, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a `[rubric]` table")]
pub struct RawRubric {
    /// Why the weights are what they are, as a TA would sign them.
    pub why: String,
    /// The parts, in the handout's order.
    pub part: Vec<Part>,
    /// Functions or check kinds named by `[checks]` that judge no function of the student's,
    /// each with the reason (e.g. `"main's shot count" = "counted by broadside"`).
    #[serde(default)]
    pub unweighted: BTreeMap<String, String>,
}

/// One part of a rubric: a handout function, or a group of a whole program's rules.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, expecting = "a `[[rubric.part]]` entry")]
pub struct Part {
    /// The part's name: the function's name, or a short name for the rules it groups.
    pub name: String,
    /// Its weight relative to the others (the suite's grade is shared in these proportions).
    pub weight: f64,
    /// The handout clause it comes from.
    pub clause: String,
    /// The student functions it judges (default: `[name]`); a check naming one is this part's.
    #[serde(default)]
    pub functions: Vec<String>,
    /// The dialogue rule ids it groups (a whole program's `never-crash`, `penalty-on-repeat`).
    #[serde(default)]
    pub rules: Vec<String>,
    /// The kinds of step check it claims where no function is named (`fire`, `turns`): for
    /// whole programs played step by step (battleboats through `exec:`).
    #[serde(default)]
    pub checks: Vec<String>,
}

/// A checked rubric, shared by every scenario of its spec (or of one suite, when the suite
/// changes the weights).
#[derive(Debug, Clone, PartialEq)]
pub struct Rubric {
    pub why: String,
    pub parts: Vec<Part>,
    pub unweighted: BTreeMap<String, String>,
}

impl Part {
    fn judges_function(&self, f: &str) -> bool {
        if self.functions.is_empty() {
            self.name == f
        } else {
            self.functions.iter().any(|g| g == f)
        }
    }
}

impl Rubric {
    /// Checks a spec's `[rubric]`: weights finite and not negative, some weight above 0,
    /// names unique, each rule and function in one part at most.
    pub fn from_raw(raw: &RawRubric) -> Result<Rubric, RubricError> {
        let mut seen: BTreeMap<String, &str> = BTreeMap::new();
        for p in &raw.part {
            if !(p.weight.is_finite() && p.weight >= 0.0) {
                return Err(RubricError(format!(
                    "part `{}` has weight {}; expected a number 0 or more",
                    p.name, p.weight
                )));
            }
            let names = std::iter::once(format!("part {}", p.name))
                .chain(p.rules.iter().map(|r| format!("rule {r}")))
                .chain(p.functions.iter().map(|f| format!("function {f}")))
                .chain(p.checks.iter().map(|c| format!("check kind {c}")));
            for n in names {
                if let Some(other) = seen.insert(n.clone(), &p.name) {
                    return Err(RubricError(format!(
                        "{n} is in parts `{other}` and `{}`; expected it in one",
                        p.name
                    )));
                }
            }
        }
        if raw.part.iter().all(|p| p.weight == 0.0) {
            return Err(RubricError(
                "every part weighs 0; expected some weight above 0".into(),
            ));
        }
        Ok(Rubric {
            why: raw.why.clone(),
            parts: raw.part.clone(),
            unweighted: raw.unweighted.clone(),
        })
    }

    /// The parts a check is charged to: those judging a function in `functions` (a `[checks]`
    /// row's comma-separated list, or the function the driver or the divergence named), else
    /// the one claiming the check's `kind`. Empty: the check carries no weight.
    pub(crate) fn parts_of(&self, functions: Option<&str>, kind: &str) -> Vec<&str> {
        let named: Vec<&str> = functions
            .into_iter()
            .flat_map(|f| f.split(", "))
            .flat_map(|f| self.parts.iter().filter(move |p| p.judges_function(f)))
            .map(|p| p.name.as_str())
            .collect();
        if !named.is_empty() {
            return dedup(named);
        }
        self.parts
            .iter()
            .filter(|p| p.checks.iter().any(|c| c == kind))
            .map(|p| p.name.as_str())
            .collect()
    }

    /// The parts a check that passed is credited to: those judging a function in
    /// `functions` and those claiming its `kind` (a shot `check_if_hits` answered went
    /// through `hit()` too). A failure is charged to the function at fault alone
    /// ([`Rubric::parts_of`]).
    pub(crate) fn parts_credited(&self, functions: Option<&str>, kind: &str) -> Vec<&str> {
        let mut named = self.parts_of(functions, kind);
        named.extend(
            self.parts
                .iter()
                .filter(|p| p.checks.iter().any(|c| c == kind))
                .map(|p| p.name.as_str()),
        );
        dedup(named)
    }

    /// The part a dialogue rule is charged to: the one listing it, else the one named by it.
    pub fn part_of_rule(&self, rule: &str) -> Option<&str> {
        self.parts
            .iter()
            .find(|p| p.rules.iter().any(|r| r == rule))
            .or_else(|| self.parts.iter().find(|p| p.name == rule))
            .map(|p| p.name.as_str())
    }

    /// Whether `name` (a function a `[checks]` row names) is known to the rubric: a part's
    /// function, or listed as unweighted.
    pub fn knows_function(&self, name: &str) -> bool {
        self.unweighted.contains_key(name) || self.parts.iter().any(|p| p.judges_function(name))
    }

    /// This rubric with a suite's weights (`[rubric]` of `suite.toml`: part name → weight).
    /// Errors name the first part the rubric lacks.
    pub fn reweighted(&self, weights: &BTreeMap<String, f64>) -> Result<Rubric, RubricError> {
        let mut out = self.clone();
        for (name, w) in weights {
            if !(w.is_finite() && *w >= 0.0) {
                return Err(RubricError(format!(
                    "part `{name}` has weight {w}; expected a number 0 or more"
                )));
            }
            let Some(p) = out.parts.iter_mut().find(|p| &p.name == name) else {
                let names: Vec<&str> = self.parts.iter().map(|p| p.name.as_str()).collect();
                return Err(RubricError(format!(
                    "the rubric has no part `{name}`; its parts are {}",
                    names.join(", ")
                )));
            };
            p.weight = *w;
        }
        if out.parts.iter().all(|p| p.weight == 0.0) {
            return Err(RubricError(
                "every part weighs 0; expected some weight above 0".into(),
            ));
        }
        Ok(out)
    }
}

fn dedup(mut v: Vec<&str>) -> Vec<&str> {
    let mut seen = Vec::new();
    v.retain(|x| {
        let new = !seen.contains(x);
        seen.push(*x);
        new
    });
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rubric() -> Rubric {
        let raw: RawRubric = toml::from_str(
            r#"
            why = "alike"
            unweighted = { "main's shot count" = "counted by broadside" }
            [[part]]
            name = "is_sunk"
            weight = 1
            clause = "is_sunk"
            [[part]]
            name = "main"
            weight = 2
            clause = "main"
            rules = ["quit", "never-crash"]
            [[part]]
            name = "shots"
            weight = 1
            clause = "counts"
            checks = ["turns"]
            "#,
        )
        .unwrap();
        Rubric::from_raw(&raw).unwrap()
    }

    #[test]
    fn a_check_goes_to_the_functions_named_else_to_the_part_claiming_its_kind() {
        let r = rubric();
        assert_eq!(r.parts_of(Some("is_sunk"), "fire"), vec!["is_sunk"]);
        assert_eq!(
            r.parts_of(Some("is_sunk, ship_type"), "board"),
            vec!["is_sunk"]
        );
        assert_eq!(r.parts_of(None, "turns"), vec!["shots"]);
        assert_eq!(r.parts_of(Some("is_sunk"), "turns"), vec!["is_sunk"]);
        assert_eq!(
            r.parts_credited(Some("is_sunk"), "turns"),
            vec!["is_sunk", "shots"]
        );
        assert!(r.parts_of(Some("main's shot count"), "shots").is_empty());
        assert_eq!(r.part_of_rule("quit"), Some("main"));
        assert_eq!(r.part_of_rule("shots"), Some("shots"));
        assert_eq!(r.part_of_rule("nobody"), None);
        assert!(r.knows_function("main's shot count") && !r.knows_function("hit"));
    }

    #[test]
    fn a_part_twice_or_no_weight_at_all_is_refused() {
        let raw: RawRubric = toml::from_str(
            "why = \"\"\n[[part]]\nname = \"a\"\nweight = 1\nclause = \"\"\nrules = [\"x\"]\n[[part]]\nname = \"b\"\nweight = 1\nclause = \"\"\nrules = [\"x\"]\n",
        )
        .unwrap();
        assert!(Rubric::from_raw(&raw).unwrap_err().0.contains("rule x"));
        let w = BTreeMap::from([("is_sunk".to_string(), 0.0), ("main".into(), 0.0)]);
        let zero = BTreeMap::from([("shots".to_string(), 0.0)]);
        assert!(rubric().reweighted(&w).is_ok());
        assert!(rubric().reweighted(&w).unwrap().reweighted(&zero).is_err());
        let unknown = BTreeMap::from([("hit".to_string(), 1.0)]);
        assert!(
            rubric()
                .reweighted(&unknown)
                .unwrap_err()
                .0
                .contains("no part `hit`")
        );
        let negative = BTreeMap::from([("main".to_string(), -1.0)]);
        assert!(
            rubric()
                .reweighted(&negative)
                .unwrap_err()
                .0
                .contains("weight -1")
        );
    }
}
