//! Every published scenario passes against the reference (the CI regression gate), and every
//! assignment has the published coverage the foundation issue asks for. Dialogue scenarios
//! need a whole program, which the reference is not: the correct sample programs pass them
//! (tests/samples.rs).

use broadside::harness::run_scenario;
use broadside::report::Status;
use broadside::spec::SpecSet;
use broadside::target::Reference;
use std::collections::BTreeMap;
use std::path::Path;

fn published() -> Vec<broadside::scenario::Scenario> {
    let specs = SpecSet::builtin();
    let root = camino::Utf8PathBuf::from("fixtures/scenarios");
    let loaded = broadside::load::load(&[root], &specs);
    let errors: Vec<String> = loaded.errors.iter().map(|d| d.render(false)).collect();
    assert!(
        errors.is_empty(),
        "published scenarios must load:\n{}",
        errors.join("\n")
    );
    loaded.scenarios
}

#[test]
fn every_published_scenario_passes_against_the_reference() {
    let mut target = Reference::new();
    let failures: Vec<String> = published()
        .iter()
        .filter(|s| s.dialogue.is_none())
        .map(|s| run_scenario(s, &mut target))
        .filter(|r| r.status != Status::Passed)
        .map(|r| {
            format!(
                "{}: {:?} {:?} {:?}",
                r.path, r.status, r.divergence, r.fault
            )
        })
        .collect();
    assert!(
        failures.is_empty(),
        "scenarios failing on the reference:\n{}",
        failures.join("\n")
    );
}

#[test]
fn each_assignment_has_at_least_twelve_scenarios_and_battleboats_both_modes() {
    let mut per: BTreeMap<(String, String), usize> = BTreeMap::new();
    for s in published() {
        *per.entry((s.assignment.clone(), s.rules.mode.clone()))
            .or_default() += 1;
    }
    let count = |id: &str| {
        per.iter()
            .filter(|((a, _), _)| a == id)
            .map(|(_, n)| n)
            .sum::<usize>()
    };
    for id in SpecSet::builtin().ids() {
        assert!(
            count(id) >= 12,
            "{id} has {} published scenarios; expected at least 12",
            count(id)
        );
    }
    assert!(
        per.contains_key(&("battleboats".into(), "expert".into())),
        "no expert-mode battleboats scenario"
    );
}

#[test]
fn every_published_scenario_file_names_its_assignment_folder() {
    for s in published() {
        // Dialogue scenarios sit in the assignment's `dialogue` folder.
        let mut parent = Path::new(&s.source.path).parent().unwrap();
        if s.dialogue.is_some() {
            assert_eq!(parent.file_name().unwrap(), "dialogue", "{}", s.source.path);
            parent = parent.parent().unwrap();
        }
        let folder = parent.file_name().unwrap();
        assert_eq!(
            folder.to_str().unwrap(),
            s.assignment,
            "{} sits in the wrong folder",
            s.source.path
        );
    }
}

#[test]
fn each_assignment_publishes_its_handout_worked_example() {
    let scenarios = published();
    for id in SpecSet::builtin().ids() {
        assert!(
            scenarios
                .iter()
                .any(|s| s.assignment == id && s.tags.iter().any(|t| t == "handout")),
            "{id} has no scenario tagged \"handout\" replaying the handout's worked example"
        );
    }
}

/// What a reporter is told, in order.
#[derive(Default)]
struct Recorder(Vec<String>);

impl broadside::play::Reporter for Recorder {
    fn scenario_started(&mut self, s: &broadside::scenario::Scenario) {
        self.0.push(format!("started {}", s.title));
    }
    fn scenario_finished(
        &mut self,
        s: &broadside::scenario::Scenario,
        r: &broadside::report::ScenarioResult,
    ) {
        self.0.push(format!("finished {} {:?}", s.title, r.status));
    }
}

#[test]
fn a_reporter_hears_each_scenario_start_and_finish_as_it_is_played_visible_first() {
    use broadside::scenario::Visibility;
    let loaded = broadside::load::load(
        &["fixtures/scenarios/colab-6x6".into()],
        &broadside::spec::SpecSet::builtin(),
    );
    assert!(loaded.errors.is_empty());
    let mut scenarios: Vec<_> = loaded.scenarios.into_iter().take(3).collect();
    // The first one hidden: it is played after the visible ones, but reported in place.
    scenarios[0].visibility = Visibility::Hidden;
    let mut recorder = Recorder::default();
    let mut target = broadside::target::Reference::new();
    let (results, _) = broadside::play::run_submission(&scenarios, &mut target, &mut recorder);
    let t: Vec<&str> = scenarios.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(
        recorder.0,
        [
            format!("started {}", t[1]),
            format!("finished {} Passed", t[1]),
            format!("started {}", t[2]),
            format!("finished {} Passed", t[2]),
            format!("started {}", t[0]),
            format!("finished {} Passed", t[0]),
        ]
    );
    let titles: Vec<&str> = results.iter().map(|r| r.title.as_str()).collect();
    assert_eq!(titles, t);
}
