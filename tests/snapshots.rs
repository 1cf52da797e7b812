//! Snapshots (insta) of the report shapes and of every broken-scenario error message.
//! Review changes with `cargo insta review`; CI runs with INSTA_UPDATE=no.

use broadside::diag::Source;
use broadside::play::run_all;
use broadside::report::{Report, to_json, to_text};
use broadside::spec::SpecSet;
use broadside::target::Reference;

fn load(paths: &[&str]) -> Vec<broadside::scenario::Scenario> {
    let specs = SpecSet::builtin();
    let paths: Vec<camino::Utf8PathBuf> = paths.iter().map(|p| p.into()).collect();
    let loaded = broadside::load::load(&paths, &specs);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    loaded.scenarios
}

fn report(paths: &[&str]) -> Report {
    let scenarios = load(paths);
    Report::new(
        "reference".into(),
        run_all(&scenarios, &mut Reference::new()),
    )
}

const PASSING: &str = "fixtures/scenarios/colab-6x6/01-handout-example.toml";
const FAILING: [&str; 2] = [
    "tests/fixtures/failing/colab-wrong-outcome.toml",
    "tests/fixtures/failing/colab-wrong-end.toml",
];

#[test]
fn json_report_passing() {
    let r = report(&[PASSING]);
    let v: serde_json::Value = serde_json::from_str(&to_json(&r)).unwrap();
    insta::assert_json_snapshot!(v, {
        ".tool" => "[tool]",
        ".elapsed_ms" => "[elapsed_ms]",
        ".scenarios[].elapsed_ms" => "[elapsed_ms]",
    });
}

#[test]
fn json_report_failing() {
    let r = report(&[PASSING, FAILING[0], FAILING[1]]);
    let v: serde_json::Value = serde_json::from_str(&to_json(&r)).unwrap();
    insta::assert_json_snapshot!(v, {
        ".tool" => "[tool]",
        ".elapsed_ms" => "[elapsed_ms]",
        ".scenarios[].elapsed_ms" => "[elapsed_ms]",
    });
}

#[test]
fn text_report_passing() {
    insta::assert_snapshot!(to_text(&report(&[PASSING]), false));
}

#[test]
fn text_report_failing() {
    insta::assert_snapshot!(to_text(&report(&[PASSING, FAILING[0], FAILING[1]]), false));
}

#[test]
fn text_report_board_mismatch_marks_the_rows_that_differ() {
    let r = report(&["tests/fixtures/failing/move-limit-wrong-board.toml"]);
    insta::assert_snapshot!(to_text(&r, false));
}

#[test]
fn json_report_is_deterministic() {
    // Timings aside: `elapsed_ms` is the one field allowed to differ.
    let run = || {
        let mut r = report(&[PASSING, FAILING[0]]);
        r.elapsed_ms = 0;
        for s in &mut r.scenarios {
            s.elapsed_ms = 0;
        }
        to_json(&r)
    };
    assert_eq!(run(), run());
}

#[test]
fn broken_scenarios_name_file_line_col_and_what_was_expected() {
    insta::glob!("fixtures/broken/*.toml", |path| {
        let name = path.file_name().unwrap().to_str().unwrap();
        let shown = format!("tests/fixtures/broken/{name}");
        let text = std::fs::read_to_string(path).unwrap();
        let errors = broadside::scenario::parse(&Source::new(&shown, text), &SpecSet::builtin())
            .expect_err("a broken scenario must not load");
        assert!(
            errors.iter().all(|d| d.to_string().starts_with(&shown)),
            "{errors:?}"
        );
        let rendered: Vec<String> = errors.iter().map(|d| d.render(false)).collect();
        insta::assert_snapshot!(rendered.join("\n"));
    });
}

/// `broadside check`'s refusal of a scenario the reference fails (issue 37: authoring
/// mistakes are the author's): each deliberately wrong scenario loads, and every expectation
/// the reference does not meet is an error at its file:line:col naming both answers.
#[test]
fn scenarios_the_reference_fails_are_refused_at_the_wrong_expectation() {
    insta::glob!("fixtures/failing/*.toml", |path| {
        let name = path.file_name().unwrap().to_str().unwrap();
        let shown = format!("tests/fixtures/failing/{name}");
        let text = std::fs::read_to_string(path).unwrap();
        let scenario = broadside::scenario::parse(&Source::new(&shown, text), &SpecSet::builtin())
            .expect("a deliberately wrong scenario still loads");
        let errors = broadside::harness::authoring::check(&scenario);
        assert!(!errors.is_empty(), "{name}: the reference fails it");
        assert!(
            errors
                .iter()
                .all(|d| d.to_string().starts_with(&format!("{shown}:"))
                    && d.to_string().contains("the reference")
                    && d.to_string().contains("the scenario expects")),
            "{errors:?}"
        );
        let rendered: Vec<String> = errors.iter().map(|d| d.render(false)).collect();
        insta::assert_snapshot!(rendered.join("\n"));
    });
}

/// Three dialogue results as a real run gave them (a `print` that tells no boat apart; a
/// program that opens a window; the first one again, hidden): the text view leads with the
/// cause and then the marking sheet, the Gradescope view shows the same to students except
/// for the hidden scenario, whose sheet is gone.
#[test]
fn dialogue_marking_sheet_in_text_and_gradescope() {
    let text =
        std::fs::read_to_string("tests/fixtures/reports/dialogue-marking-sheet.json").unwrap();
    let results: Vec<broadside::report::ScenarioResult> = serde_json::from_str(&text).unwrap();
    let r = Report::new("java:print-in-digits".into(), results);
    insta::assert_snapshot!("dialogue-marking-sheet-text", to_text(&r, false));
    let g = broadside::report::to_gradescope(&r, broadside::report::HiddenResults::None);
    let v: serde_json::Value = serde_json::from_str(&g).unwrap();
    insta::assert_json_snapshot!("dialogue-marking-sheet-gradescope", v, {
        ".execution_time" => "[execution_time]",
    });
}
