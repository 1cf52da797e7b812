//! Every sample submission behaves as `fixtures/submissions/<assignment>/expected.toml` says:
//! the correct one scores full marks, and each buggy one fails exactly the scenarios its bug
//! should fail (named there, with the bug in a sentence) and no others. Whole programs
//! (battleboats and grenades-8x8 in Java) play the dialogue scenarios; their computer plays
//! with the program's own dice, which broadside seeds with each scenario's seed, so every
//! verdict is pinned: no scenario's verdict hangs on luck.

mod common;
use common::fail_sets;

use broadside::play::run_all;
use broadside::spec::{Language, SpecSet};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    bug: String,
    fails: Vec<String>,
    #[serde(default)]
    faults: Vec<String>,
    /// A real-class sample's habit, in a sentence.
    #[serde(default, rename = "trait")]
    habit: Option<String>,
    /// The band of the suite's marks a careful TA would give (fractions, low and high).
    #[serde(default)]
    score: Option<[f64; 2]>,
    /// The TA's reasoning for `score`.
    #[serde(default)]
    why: Option<String>,
    /// The feedback's first line: it starts with `lead[0]` (the function at fault) and
    /// holds `lead[1]` (the handout's rule, quoted from the spec).
    #[serde(default)]
    lead: Option<[String; 2]>,
}

/// `kind`: the target kind for the samples (`python`, `haskell`, `java`); `at_least`: how many samples
/// (the correct one included) the assignment must have.
fn check(assignment: &str, kind: &str, at_least: usize) {
    match kind {
        "haskell" => common::needs_ghc(),
        "java" => common::needs_jdk(),
        _ => {}
    }
    let dir = format!("fixtures/submissions/{assignment}");
    let text = std::fs::read_to_string(format!("{dir}/expected.toml")).unwrap();
    let expected: BTreeMap<String, Expected> = toml::from_str(&text).unwrap();
    let folders: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        folders,
        expected.keys().cloned().collect(),
        "{dir}: a sample without an entry, or an entry without a sample"
    );
    assert!(
        expected.len() >= at_least,
        "{dir}: a correct sample and at least {} buggy ones",
        at_least - 1
    );
    assert!(
        expected["correct"].fails.is_empty(),
        "the correct sample must fail nothing"
    );
    let specs = SpecSet::builtin();
    let loaded =
        broadside::load::load(&[format!("fixtures/scenarios/{assignment}").into()], &specs);
    assert!(loaded.errors.is_empty());
    let mut problems = Vec::new();
    for (name, want) in &expected {
        assert!(!want.bug.is_empty());
        let limits = broadside::target::limits::Limits {
            request_timeout: Duration::from_secs(3),
            ..Default::default()
        };
        let mut target = broadside::target::from_spec(
            &format!("{kind}:{dir}/{name}").parse().unwrap(),
            limits,
            broadside::target::limits::NOBODY,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let played: Vec<_> = loaded
            .scenarios
            .iter()
            .filter(|s| broadside::harness::plays(target.as_ref(), s))
            .cloned()
            .collect();
        let mut all = run_all(&played, target.as_mut());
        // The grade shared by the suite's rubric, as `run` and `grade` report it.
        broadside::report::rubric::apply(&played, &mut all);
        if let Some([lo, hi]) = want.score {
            assert!(
                want.why.is_some() && want.habit.is_some(),
                "{name}: a `score` band comes with its `trait` and the TA's `why`"
            );
            let got: f64 = all.iter().map(|r| r.score).sum::<f64>()
                / all.iter().map(|r| r.max_score).sum::<f64>();
            if !(lo - 1e-9..=hi + 1e-9).contains(&got) {
                problems.push(format!(
                    "{name}: scored {got:.3} of the suite, outside the TA's band [{lo}, {hi}] ({})",
                    want.why.as_deref().unwrap_or("")
                ));
            }
        }
        if let Some([function, rule]) = &want.lead {
            let report = broadside::report::Report::new(name.clone(), all.clone());
            let text = broadside::report::to_text(&report, false);
            let first = text.lines().next().unwrap_or_default();
            if !first.starts_with(function.as_str()) || !first.contains(rule.as_str()) {
                problems.push(format!(
                    "{name}: the feedback's first line should start with `{function}` and quote `{rule}`; it is: {first}"
                ));
            }
        }
        let results = all;
        problems.extend(fail_sets(
            name,
            &want.bug,
            &want.fails,
            &want.faults,
            &results,
        ));
        // A sample whose bug is "none: …" is correct (the other reading of an ambiguity);
        // every other one must fail something.
        if !want.bug.starts_with("none") {
            assert!(
                !want.fails.is_empty(),
                "{name}: a buggy sample must fail something"
            );
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every bundled assignment's samples, two assignments at a time; the target
/// kind is the spec's submission language (a JDK, GHC or Python, as `.ci/run` installs them:
/// each Java sample is compiled, then driven through its input; each Haskell one compiled
/// with the bundled driver). Enumerated from the registry, so a new assignment's samples
/// are checked as soon as its folder is there, and an assignment without one fails here.
#[test]
fn every_assignments_samples_fail_exactly_what_their_bugs_should() {
    let specs = SpecSet::builtin();
    common::each_two_at_a_time(&common::assignments(None), |id| {
        let language = specs.get(id).unwrap().language;
        // Python assignments keep a correct sample and at least eight single bugs.
        let at_least = if language == Language::Python { 9 } else { 6 };
        check(id, language.name(), at_least);
    });
}
