//! Dialogue scenarios against programs that misbehave: each ends in a complete result with
//! the fault named (a program that hangs, floods, throws, or leaves a process behind), a
//! cheat that prints every keyword does not pass, and `java:` builds what a student may hand
//! in (Latin-1 sources, a package, a byte-order mark) and names what it cannot build.

mod common;
use common::broadside;

use broadside::harness::{plays, run_scenario};
use broadside::report::{ScenarioResult, Status, Verdict};
use broadside::scenario::Scenario;
use broadside::spec::SpecSet;
use broadside::target::limits::{Limits, NOBODY};
use broadside::target::{FaultKind, Reference, Target, TargetSpec, from_spec};
use std::time::Duration;

fn scenario(path: &str) -> Scenario {
    let loaded = broadside::load::load(&[path.into()], &SpecSet::builtin());
    assert!(loaded.errors.is_empty(), "{path}");
    loaded.scenarios.into_iter().next().unwrap()
}

fn limits(answer_secs: u64) -> Limits {
    Limits {
        request_timeout: Duration::from_secs(answer_secs),
        scenario_timeout: Duration::from_secs(30),
        ..Limits::default()
    }
}

fn play(target: &str, scenario_path: &str, answer_secs: u64) -> ScenarioResult {
    if target.starts_with("java:") {
        common::needs_jdk();
    }
    let mut t = from_spec(&target.parse().unwrap(), limits(answer_secs), NOBODY).unwrap();
    run_scenario(&scenario(scenario_path), t.as_mut())
}

const HITS: &str = "fixtures/scenarios/battleboats/dialogue/01-hits-and-sinking.toml";

fn fault_of(r: &ScenarioResult) -> (FaultKind, String) {
    assert_eq!(r.status, Status::Error, "{r:?}");
    let f = r.fault.clone().unwrap();
    (f.kind, f.message)
}

#[test]
fn a_program_that_never_answers_is_stopped_with_a_timeout() {
    let r = play("exec:python3 tests/fixtures/programs/sleeps.py", HITS, 1);
    let (kind, message) = fault_of(&r);
    assert_eq!(kind, FaultKind::Timeout, "{message}");
    assert!(
        message.contains("neither asked for input nor ended"),
        "{message}"
    );
    assert!(message.contains("Welcome to Battleboats!"), "{message}");
}

#[test]
fn a_program_that_prints_without_end_is_stopped_with_a_limit() {
    let r = play("exec:python3 tests/fixtures/programs/floods.py", HITS, 20);
    let (kind, message) = fault_of(&r);
    assert_eq!(kind, FaultKind::Limit, "{message}");
    assert!(message.contains("MiB"), "{message}");
}

#[test]
fn a_flood_at_end_of_input_is_called_a_loop_at_end_of_input() {
    let r = play(
        "exec:python3 tests/fixtures/programs/floods-at-eof.py",
        "fixtures/scenarios/solo-10x10/dialogue/03-end-of-input.toml",
        20,
    );
    let (kind, message) = fault_of(&r);
    assert_eq!(kind, FaultKind::Limit, "{message}");
    assert!(
        message.contains("after its input ended")
            && message.contains("`Enter row and column:` again and again"),
        "{message}"
    );
}

/// A program that asks through Swing dialogs cannot be played through standard input: no
/// points, and the first line says why, before the trace and the rules left unseen.
#[test]
fn a_window_program_scores_nothing_and_says_why_in_one_line() {
    common::needs_jdk();
    let r = play(
        "java:fixtures/submissions/battleboats/swing-dialogs",
        HITS,
        10,
    );
    let (kind, message) = fault_of(&r);
    assert_eq!(kind, FaultKind::Exception, "{message}");
    assert_eq!(r.points, 0.0);
    let first = message.lines().next().unwrap_or_default();
    assert!(first.contains("opens a window"), "{message}");
    assert!(r.rules.iter().all(|x| x.verdict == Verdict::NotObserved));
    // Said as the program's fault, not as a rule it was seen not to keep (issue 35, 18).
    assert!(
        r.rules.iter().all(|x| x
            .evidence
            .starts_with("the program stopped with a fault (exception) at the start (")
            && x.evidence.ends_with(", before this rule could be judged")),
        "{:?}",
        r.rules
    );
    let text = broadside::report::details(&r);
    let at = |s: &str| text.find(s).unwrap_or(usize::MAX);
    assert!(
        at("opens a window") < at("not judged    hit, miss, sunk"),
        "{text}"
    );
}

#[test]
fn an_exception_is_the_students_fault_with_their_trace() {
    let r = play("exec:python3 tests/fixtures/programs/throws.py", HITS, 5);
    let (kind, message) = fault_of(&r);
    assert_eq!(kind, FaultKind::Exception, "{message}");
    assert!(
        message.contains("RuntimeError: the board was never made"),
        "{message}"
    );
    // The conversation's last lines say what was sent.
    assert!(message.contains("> 1"), "{message}");
}

#[test]
fn printing_every_keyword_does_not_pass() {
    for path in [
        HITS,
        "fixtures/scenarios/battleboats/dialogue/04-drone.toml",
        "fixtures/scenarios/grenades-8x8/dialogue/01-full-game.toml",
        "fixtures/scenarios/solo-10x10/dialogue/04-played-game.toml",
    ] {
        let r = play(
            "exec:python3 tests/fixtures/programs/says-every-word.py",
            path,
            5,
        );
        assert_ne!(r.status, Status::Passed, "{path}: {r:?}");
    }
}

#[test]
fn a_program_that_reads_and_never_answers_fails_with_what_was_sent() {
    let r = play(
        "exec:python3 tests/fixtures/programs/reads-silently.py",
        HITS,
        5,
    );
    assert_eq!(r.status, Status::Failed, "{r:?}");
    // `print` shows nothing: the first shot is judged, and fails for want of an answer
    // (not for a layout its silence fits nowhere).
    let d = r.divergence.unwrap();
    assert_eq!(d.check, "hit");
    assert!(d.action.contains("fire at (0, 0)"), "{}", d.action);
    assert!(d.actual.contains("none of miss"), "{}", d.actual);
    let out = d.output.unwrap();
    assert!(out.contains("> print") && out.contains("> 0 0"), "{out}");
}

#[test]
fn a_process_left_behind_is_killed() {
    // `sleep 1017` (a length no other test sleeps) in a session of its own, found by the
    // mark every child carries: none is left once the dialogue is over, run after run.
    let running = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
            .filter(|c| c == b"sleep\x001017\x00")
            .count()
    };
    for _ in 0..2 {
        let r = play(
            "exec:python3 tests/fixtures/programs/leaves-a-child.py",
            HITS,
            5,
        );
        assert_ne!(r.status, Status::Passed);
        assert_eq!(running(), 0, "a `sleep 1017` outlived its dialogue");
    }
}

#[test]
fn java_sources_in_latin1_with_a_package_or_a_bom_compile() {
    common::needs_jdk();
    for dir in ["latin1", "packaged"] {
        let r = play(&format!("java:tests/fixtures/java/{dir}"), HITS, 10);
        // They compile and run (and end at once, which the dialogue calls a divergence).
        assert_eq!(r.status, Status::Failed, "{dir}: {r:?}");
    }
}

#[test]
fn java_that_does_not_compile_or_has_no_main_is_a_setup_fault() {
    common::needs_jdk();
    let r = play("java:tests/fixtures/java/does-not-compile", HITS, 10);
    let (kind, message) = fault_of(&r);
    assert_eq!(kind, FaultKind::Setup);
    assert!(message.contains("does not compile"), "{message}");
    assert!(message.contains("incompatible types"), "{message}");
    assert!(message.contains("\nMain.java:4"), "{message}");
    let r = play("java:tests/fixtures/java/no-main", HITS, 10);
    let (kind, message) = fault_of(&r);
    assert_eq!(kind, FaultKind::Setup);
    assert!(message.contains("main"), "{message}");
}

#[test]
fn the_reference_plays_no_dialogue_and_a_program_no_step_scenario() {
    let dialogue = scenario(HITS);
    let steps = scenario("fixtures/scenarios/battleboats/01-handout-example.toml");
    let reference = Reference::new();
    assert!(!plays(&reference as &dyn Target, &dialogue));
    assert!(plays(&reference as &dyn Target, &steps));
    let program = from_spec(&"exec:true".parse().unwrap(), Limits::default(), NOBODY).unwrap();
    assert!(plays(program.as_ref(), &dialogue));
    assert!(!plays(program.as_ref(), &steps));
    let out = broadside()
        .args(["run", "fixtures/scenarios/battleboats/dialogue"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("none of the 9 scenarios"), "{err}");
}

#[test]
fn a_program_target_notes_the_step_scenarios_it_left_out() {
    common::needs_jdk();
    let out = broadside()
        .args([
            "run",
            "fixtures/scenarios/grenades-8x8",
            "--target",
            "java:fixtures/submissions/grenades-8x8/correct",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["scenarios"], 5);
    let notes = v["notes"].to_string();
    assert!(notes.contains("step scenarios"), "{notes}");
}

#[test]
fn a_process_the_program_leaves_in_its_group_is_a_leak_not_a_hang() {
    let r = play(
        "exec:sleep 1000 & echo 'type q to quit'; read x; echo bye; exit 0",
        "fixtures/scenarios/solo-10x10/dialogue/02-quit.toml",
        5,
    );
    let (kind, message) = fault_of(&r);
    assert_eq!(kind, FaultKind::Leak, "{message}");
    assert!(message.contains("sleep 1000"), "{message}");
}

#[test]
fn where_reads_cannot_be_seen_a_quiet_spell_stands_in() {
    common::needs_jdk();
    let out = broadside()
        .env("BROADSIDE_QUIET_INPUT", "1")
        .args([
            "run",
            HITS,
            "--target",
            "java:fixtures/submissions/battleboats/correct",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn an_empty_exec_command_is_refused() {
    let refused = "exec:  ".parse::<TargetSpec>().unwrap_err();
    assert!(refused.contains("`exec:` needs a command"), "{refused}");
}

#[test]
fn the_published_dialogues_are_built_in() {
    let out = broadside()
        .args([
            "run",
            "--assignment",
            "solo-10x10",
            "--target",
            "python:fixtures/submissions/solo-10x10/main-cannot-quit",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let failed: Vec<&str> = v["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["status"] != "passed")
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        failed,
        ["fixtures/scenarios/solo-10x10/dialogue/02-quit.toml"]
    );
}

/// Correct programs in styles the samples do not use (a second reviewer's): each passes.
#[test]
fn correct_programs_in_other_styles_pass() {
    common::needs_jdk();
    let runs = [
        // A drone count on the line after "Scanning row 3...", "Turns taken: 22, Shots
        // fired: 20", and "Boats sunk: 1 of 5" after every shot.
        (
            "java:tests/fixtures/java/styles-a",
            "fixtures/scenarios/battleboats/dialogue",
        ),
        // An intro that warns of shots "out of bounds", and x and y asked on lines of their
        // own.
        (
            "java:tests/fixtures/java/styles-b",
            "fixtures/scenarios/battleboats/dialogue",
        ),
        // Rows labelled A-H with the letter read as the row, "H wins!", "You lose your next
        // turn" after a grenade, and the grid printed again before each prompt.
        (
            "exec:LABELS=letterrow WIN=hc LOSEMSG=1 GRIDBEFORE=1 python3 -u tests/fixtures/programs/grenades/letter-rows.py",
            "fixtures/scenarios/grenades-8x8/dialogue",
        ),
        // A numbered board and a legend ("letter = sunk ship") after every shot.
        (
            "python:tests/fixtures/python/solo-draw",
            "fixtures/scenarios/solo-10x10/dialogue",
        ),
        // The row and the column asked on lines of their own, refused without an error word.
        (
            "python:tests/fixtures/python/solo-silent",
            "fixtures/scenarios/solo-10x10/dialogue",
        ),
    ];
    for (target, folder) in runs {
        let out = broadside()
            .args(["run", folder, "--target", target])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{target}:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn a_taken_cell_accepted_under_one_prompt_for_all_is_still_seen() {
    let r = play(
        "exec:NOCHECK=1 python3 -u tests/fixtures/programs/grenades/same-prompt.py",
        "fixtures/scenarios/grenades-8x8/dialogue/02-placement-refusals.toml",
        5,
    );
    assert_eq!(r.status, Status::Failed, "{r:?}");
    assert_eq!(
        r.divergence.as_ref().unwrap().check,
        "refuse-taken-placement"
    );
    let rule = r.rules.iter().find(|x| x.rule == "refuse-taken-placement");
    assert_eq!(rule.map(|x| x.verdict), Some(Verdict::Failed), "{r:?}");
    let r = play(
        "exec:python3 -u tests/fixtures/programs/grenades/same-prompt.py",
        "fixtures/scenarios/grenades-8x8/dialogue/02-placement-refusals.toml",
        5,
    );
    assert_eq!(r.status, Status::Passed, "{r:?}");
}

#[test]
fn fuzz_refuses_a_whole_program() {
    let out = broadside()
        .args([
            "fuzz",
            "--assignment",
            "battleboats",
            "--target",
            "exec:true",
            "--cases",
            "1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("is a whole program"), "{err}");
}

/// Runs `broadside run SCENARIOS --target TARGET --format json` with the way of telling that a
/// program asks set to `wait`; the report without its timings.
fn report_waiting_by(wait: &str, scenarios: &str, target: &str) -> (Option<i32>, String) {
    let out = broadside()
        .env("BROADSIDE_INPUT_WAIT", wait)
        .args(["run", scenarios, "--target", target, "--format", "json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let untimed: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("\"elapsed_ms\""))
        .collect();
    (out.status.code(), untimed.join("\n"))
}

#[test]
fn broadsides_launchers_announce_every_question_and_change_no_report() {
    common::needs_jdk();
    // With announcements alone (no look at the kernel) a program whose launcher did not
    // announce a question would time out; every scenario passes, and the reports of the
    // correct samples are the same as when the questions are read off the kernel.
    for (scenarios, target) in [
        (
            "fixtures/scenarios/solo-10x10/dialogue",
            "python:fixtures/submissions/solo-10x10/correct",
        ),
        (HITS, "java:fixtures/submissions/battleboats/correct"),
        (
            "fixtures/scenarios/battleboats/dialogue/03-off-board.toml",
            "java:fixtures/submissions/battleboats/off-board-crashes",
        ),
    ] {
        let (code, announced) = report_waiting_by("announced-only", scenarios, target);
        if target.ends_with("correct") {
            assert_eq!(code, Some(0), "{announced}");
            let (_, kernel) = report_waiting_by("kernel", scenarios, target);
            assert_eq!(announced, kernel, "{target} on {scenarios}");
        } else {
            // (This sample places its boats at random: its conversations differ run by run.)
            // The JVM's own trace, without the launcher's frames.
            assert!(announced.contains("Exception in thread"), "{announced}");
            assert!(announced.contains("ArrayIndexOutOfBounds"), "{announced}");
            assert!(!announced.contains("broadside_launch"), "{announced}");
        }
    }
}

/// Per scenario of a `--format json` report: its id, status and fault kind, and with
/// `rules` its rule verdicts (what a student is graded on; messages may name random layouts).
fn verdicts(report: &[u8], rules: bool) -> Vec<String> {
    let r: serde_json::Value = serde_json::from_slice(report).unwrap();
    r["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let rules: Vec<String> = s["rules"]
                .as_array()
                .filter(|_| rules)
                .map(|a| {
                    a.iter()
                        .map(|r| format!("{}={}", r["rule"], r["verdict"]))
                        .collect()
                })
                .unwrap_or_default();
            format!(
                "{} {} {} [{}]",
                s["published"],
                s["status"],
                s["fault"]["kind"],
                rules.join(" ")
            )
        })
        .collect()
}

/// The `--format json` report of `kind:dir` on `scenarios`, with its game server on ("1")
/// or off ("0").
fn run_served(kind: &str, dir: &std::path::Path, scenarios: &str, server: &str) -> Vec<u8> {
    let target = format!("{kind}:{}", dir.display());
    let switch = format!("BROADSIDE_{}_SERVER", kind.to_uppercase());
    broadside()
        .env(switch, server)
        .args(["run", scenarios, "--target", &target, "--format", "json"])
        .output()
        .unwrap()
        .stdout
}

fn run_java(dir: &std::path::Path, scenarios: &str, server: &str) -> Vec<u8> {
    run_served("java", dir, scenarios, server)
}

#[test]
fn every_whole_program_sample_gets_the_same_verdicts_in_five_runs_on_a_game_server_or_not() {
    common::needs_jdk();
    // Issue 35, item 15: programs place their ships and fire with their own unseeded dice;
    // broadside seeds Python's `random` and the JDK's shared randomness with the scenario's
    // seed, so every sample, correct or buggy, gets the same status, fault, points and
    // verdict on every rule in each of five runs, whether its games are played on the game
    // server (runs 1, 3, 5: one JVM or interpreter for every game) or each in a process of
    // its own (runs 2, 4). Before the seeding, three grenades-8x8 samples got five different
    // sheets in five runs.
    let mut samples = Vec::new();
    for (assignment, kind) in [
        ("battleboats", "java"),
        ("grenades-8x8", "java"),
        ("solo-10x10", "python"),
    ] {
        let root = std::path::Path::new("fixtures/submissions").join(assignment);
        let mut found: Vec<String> = std::fs::read_dir(&root)
            .unwrap()
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| format!("{kind} {assignment} {}", e.file_name().to_string_lossy()))
            .collect();
        assert!(found.len() > 5, "{}", root.display());
        found.sort();
        samples.extend(found);
    }
    common::each_two_at_a_time(&samples, |id| {
        let [kind, assignment, name] = id.split(' ').collect::<Vec<_>>()[..] else {
            unreachable!()
        };
        let scenarios = format!("fixtures/scenarios/{assignment}/dialogue");
        let dir = std::path::Path::new("fixtures/submissions")
            .join(assignment)
            .join(name);
        let sheets: Vec<Vec<String>> = (0..5)
            .map(|run| {
                let server = if run % 2 == 0 { "1" } else { "0" };
                let report = run_served(kind, &dir, &scenarios, server);
                let r: serde_json::Value = serde_json::from_slice(&report).unwrap();
                let points: Vec<String> = r["scenarios"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| format!("{}", s["score"]))
                    .collect();
                let mut sheet = verdicts(&report, true);
                sheet.extend(points);
                sheet
            })
            .collect();
        assert!(!sheets[0].is_empty(), "{id}");
        for (run, sheet) in sheets.iter().enumerate().skip(1) {
            assert_eq!(
                &sheets[0],
                sheet,
                "{id}: run {} differs from run 1",
                run + 1
            );
        }
    });
}

#[test]
fn a_game_in_the_shared_jvm_starts_with_fresh_statics_and_ends_at_system_exit() {
    common::needs_jdk();
    // The correct battleboats sample, changed as a student might: a static counter of games
    // that throws from the second game on if statics outlived their game (or a system
    // property set by the game before), a 60 MB static array (nine of them outlive a 256 MB
    // heap unless each game's classes are freed), and a `System.exit(0)` inside a
    // `catch (Exception e)` loop that must not swallow it.
    let dir = tempfile::tempdir().unwrap();
    let from = std::path::Path::new("fixtures/submissions/battleboats/correct");
    for f in std::fs::read_dir(from).unwrap().flatten() {
        std::fs::copy(f.path(), dir.path().join(f.file_name())).unwrap();
    }
    let main = dir.path().join("BattleBoatsGame.java");
    let text = std::fs::read_to_string(&main).unwrap();
    let changed = text
        .replacen(
            "    public static void main(String[] args) {\n",
            "    static int games;\n    static int[] scores = new int[15_000_000];\n\n    \
             public static void main(String[] args) {\n        \
             if (++games > 1 || System.getProperty(\"bb.played\") != null) {\n            \
             throw new IllegalStateException(\"game \" + games);\n        }\n        \
             System.setProperty(\"bb.played\", \"yes\");\n",
            1,
        )
        .replacen(
            "            System.exit(0);",
            "            try {\n                System.exit(0);\n            } catch (Exception e) {\n                \
             System.out.println(\"still here\");\n            }",
            1,
        );
    assert_ne!(changed, text);
    assert!(changed.contains("still here"), "{changed}");
    std::fs::write(&main, changed).unwrap();
    let out = run_java(dir.path(), "fixtures/scenarios/battleboats/dialogue", "1");
    let r: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        r["summary"]["passed"],
        9,
        "{}",
        String::from_utf8_lossy(&out)
    );
    let text = String::from_utf8_lossy(&out);
    assert!(!text.contains("still here"), "{text}");
    assert!(!text.contains("IllegalStateException"), "{text}");
}

#[test]
fn another_fleet_without_print_is_told_from_its_sinkings_and_charged_once() {
    common::needs_jdk();
    // Issue 35 item 10: the four-boats-of-three sample with its `print` command taken away.
    // The game ends when the program says so, its hits fit no layout of the handout's fleet,
    // and its sinkings split them into its own boats: `fleet` fails where it is judged, and
    // the final counts are judged (and right) against those boats, never "not judged" as a
    // game the program ended with the handout's boats afloat.
    let dir = tempfile::tempdir().unwrap();
    let from = std::path::Path::new("fixtures/submissions/battleboats/all-boats-length-three");
    for f in std::fs::read_dir(from).unwrap().flatten() {
        std::fs::copy(f.path(), dir.path().join(f.file_name())).unwrap();
    }
    let main = dir.path().join("BoatsMain.java");
    let text = std::fs::read_to_string(&main).unwrap();
    let changed = text.replacen(
        "line.equals(\"print\")",
        "line.equals(\"reveal the board\")",
        1,
    );
    assert_ne!(changed, text);
    std::fs::write(&main, changed).unwrap();
    let out = run_java(dir.path(), "fixtures/scenarios/battleboats/dialogue", "1");
    let r: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let verdict = |file: &str, rule: &str| -> String {
        let s = r["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["path"].as_str().unwrap().ends_with(file))
            .unwrap();
        s["rules"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["rule"] == rule)
            .map_or("absent".to_string(), |x| {
                x["verdict"].as_str().unwrap().to_string()
            })
    };
    let report = String::from_utf8_lossy(&out);
    for file in ["08-expert.toml", "09-full-game.toml"] {
        assert_eq!(verdict(file, "fleet"), "failed", "{file}: {report}");
    }
    for file in [
        "02-repeated-shots.toml",
        "08-expert.toml",
        "09-full-game.toml",
    ] {
        assert_eq!(verdict(file, "turns"), "passed", "{file}: {report}");
        assert_eq!(verdict(file, "shots"), "passed", "{file}: {report}");
    }
    assert_eq!(verdict("02-repeated-shots.toml", "fleet"), "absent");
    assert!(
        report.contains("4 boats of lengths 3, 3, 3, 3, as its hits and sinkings tell them apart"),
        "{report}"
    );
}

/// Per scenario of a `--format json` report, everything but its timing.
fn untimed(report: &[u8]) -> Vec<serde_json::Value> {
    let r: serde_json::Value = serde_json::from_slice(report).unwrap();
    r["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let mut s = s.clone();
            s.as_object_mut().unwrap().remove("elapsed_ms");
            s
        })
        .collect()
}

fn run_python(dir: &std::path::Path, scenarios: &str, server: &str) -> Vec<u8> {
    run_served("python", dir, scenarios, server)
}

#[test]
fn one_python_interpreter_for_every_game_grades_each_solo_sample_as_a_process_per_game_does() {
    // The Python game server (`drivers/python_main.py --serve`) forks a process per game
    // from an interpreter that holds none of the submission. Every solo-10x10 sample gets
    // the same report apart from its timing as with an interpreter per game: its statuses,
    // faults and messages, even where main() places its fleet with dice of its own (Python's
    // `random` is seeded with the scenario's seed either way).
    let scenarios = "fixtures/scenarios/solo-10x10/dialogue";
    let root = std::path::Path::new("fixtures/submissions/solo-10x10");
    let mut samples: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    samples.sort();
    assert!(samples.len() > 5, "{}", root.display());
    for sample in samples {
        let (served, own) = std::thread::scope(|s| {
            let served = s.spawn(|| run_python(&sample, scenarios, "1"));
            let own = run_python(&sample, scenarios, "0");
            (served.join().unwrap(), own)
        });
        assert_eq!(
            verdicts(&served, true),
            verdicts(&own, true),
            "{}",
            sample.display()
        );
        assert_eq!(untimed(&served), untimed(&own), "{}", sample.display());
    }
}

#[test]
fn a_python_game_in_the_server_starts_fresh_and_what_it_leaves_running_is_a_leak() {
    // The correct solo sample, changed as a student might: a banner printed at import, and
    // main() counting its games in a module-level list (a second game in the process that
    // played the first raises).
    let dir = tempfile::tempdir().unwrap();
    let from = std::path::Path::new("fixtures/submissions/solo-10x10/correct/battleships.py");
    let text = std::fs::read_to_string(from).unwrap();
    let counted = text.replacen(
        "def main():\n",
        "print(\"Battleships by Ada\")\nGAMES = []\n\n\ndef main():\n    GAMES.append(1)\n    \
         if len(GAMES) > 1:\n        raise RuntimeError('game %d in one process' % len(GAMES))\n",
        1,
    );
    assert_ne!(counted, text);
    std::fs::write(dir.path().join("battleships.py"), &counted).unwrap();
    let scenarios = "fixtures/scenarios/solo-10x10/dialogue";
    let report = run_python(dir.path(), scenarios, "1");
    let v: serde_json::Value = serde_json::from_slice(&report).unwrap();
    let statuses: Vec<&str> = v["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["passed"; 4], "{v:#}");

    // A game that leaves a process running: its leak names it, and the games after it (on a
    // new server) are played as before.
    let leaves = counted.replacen(
        "    GAMES.append(1)\n",
        "    GAMES.append(1)\n    import subprocess\n    subprocess.Popen(['sleep', '1019'])\n",
        1,
    );
    std::fs::write(dir.path().join("battleships.py"), &leaves).unwrap();
    for server in ["1", "0"] {
        let report = run_python(dir.path(), scenarios, server);
        let v: serde_json::Value = serde_json::from_slice(&report).unwrap();
        for s in v["scenarios"].as_array().unwrap() {
            assert_eq!(s["fault"]["kind"], "leak", "server {server}: {s:#}");
            let message = s["fault"]["message"].as_str().unwrap();
            assert!(message.contains("sleep 1019"), "server {server}: {message}");
        }
    }
    assert!(
        !broadside::target::procs::all()
            .iter()
            .any(|p| broadside::target::procs::line_of(p) == "sleep 1019"),
        "a `sleep 1019` was left running"
    );

    // A game killed by a signal is a crash named by that signal, as with an interpreter of
    // its own, and the games after it are played on a new server.
    let aborts = counted.replacen(
        "    GAMES.append(1)\n",
        "    GAMES.append(1)\n    import os, signal\n    os.kill(os.getpid(), signal.SIGABRT)\n",
        1,
    );
    std::fs::write(dir.path().join("battleships.py"), &aborts).unwrap();
    let faults = |server: &str| -> Vec<(String, String)> {
        let report = run_python(dir.path(), scenarios, server);
        let v: serde_json::Value = serde_json::from_slice(&report).unwrap();
        v["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let f = &s["fault"];
                (f["kind"].to_string(), f["message"].to_string())
            })
            .collect()
    };
    let served = faults("1");
    assert_eq!(served.len(), 4);
    for (kind, message) in &served {
        assert_eq!(kind, "\"crash\"", "{message}");
        assert!(message.contains("SIGABRT"), "{message}");
    }
    assert_eq!(served, faults("0"));
}

#[test]
fn a_game_cannot_point_the_servers_fifos_at_a_folder_of_the_machine() {
    // A game that puts a symbolic link where a game server's FIFOs once lived (its working
    // folder) and ends by a signal, so the next game starts a new server: broadside must not
    // make FIFOs in, or hand over, the folder the link names (as root it would give any
    // folder of the machine to the child's user).
    use std::os::unix::fs::MetadataExt;
    let target = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        target.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let before = std::fs::metadata(target.path()).unwrap();
    // A change of the folder's entries or owner changes its ctime, even undone.
    let changed = |m: &std::fs::Metadata| (m.uid(), m.ctime(), m.ctime_nsec());
    let dir = tempfile::tempdir().unwrap();
    let from = std::path::Path::new("fixtures/submissions/solo-10x10/correct/battleships.py");
    let text = std::fs::read_to_string(from).unwrap();
    let linked = text.replacen(
        "def main():\n",
        &format!(
            "def main():\n    import os, shutil, signal\n    \
             if os.path.isdir('.games') and not os.path.islink('.games'):\n        \
             shutil.rmtree('.games')\n    \
             if not os.path.islink('.games'):\n        \
             os.symlink({:?}, '.games')\n        \
             os.kill(os.getpid(), signal.SIGTERM)\n",
            target.path().display().to_string()
        ),
        1,
    );
    assert_ne!(linked, text);
    std::fs::write(dir.path().join("battleships.py"), &linked).unwrap();
    let _ = run_python(dir.path(), "fixtures/scenarios/solo-10x10/dialogue", "1");
    let after = std::fs::metadata(target.path()).unwrap();
    assert_eq!(
        changed(&after),
        changed(&before),
        "the folder was handed over, or something was made in it"
    );
}

/// The `--format json` reports of `kind:dir` on `scenarios` with its game server and with a
/// process per game, and the statuses of the latter.
fn both_ways(kind: &str, dir: &str, scenarios: &str) -> (Vec<u8>, Vec<u8>, Vec<String>) {
    let dir = std::path::Path::new(dir);
    let (served, own) = std::thread::scope(|s| {
        let served = s.spawn(|| run_served(kind, dir, scenarios, "1"));
        let own = run_served(kind, dir, scenarios, "0");
        (served.join().unwrap(), own)
    });
    let v: serde_json::Value = serde_json::from_slice(&own).unwrap();
    let statuses = v["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap().to_string())
        .collect();
    (served, own, statuses)
}

#[test]
fn state_kept_in_jdk_statics_does_not_change_verdicts() {
    common::needs_jdk();
    // Issue 34: a battleboats program that marks, by class and method names in strings, a
    // system property and a property of the JDK's log manager (a JDK static the game server
    // does not put back), and never says "sunk" in a game that finds an earlier game's
    // mark. A JVM per game passes it everywhere; the game server must grade it the same.
    let (served, own, statuses) = both_ways(
        "java",
        "fixtures/submissions/hostile/jdk_statics_between_games",
        "fixtures/scenarios/battleboats/dialogue",
    );
    assert_eq!(statuses, ["passed"; 9], "{}", String::from_utf8_lossy(&own));
    assert_eq!(
        verdicts(&served, true),
        verdicts(&own, true),
        "{}",
        String::from_utf8_lossy(&served)
    );
    // Staff are told the server was retired (the JSON report is the staff view).
    let v: serde_json::Value = serde_json::from_slice(&served).unwrap();
    let notes = v["notes"].to_string();
    assert!(notes.contains("state kept between games"), "{notes}");
}

#[test]
fn state_kept_in_sysv_ipc_does_not_change_verdicts() {
    // Issue 34: a solo-10x10 main() that keeps its shot count and the squares called in a
    // System V message queue (ctypes), which a game forked by the Python game server would
    // find left by the game before. An interpreter per game (each in an IPC namespace of its
    // own) passes it everywhere; the game server must grade it the same.
    let (served, own, statuses) = both_ways(
        "python",
        "fixtures/submissions/hostile/sysv_queue_between_games",
        "fixtures/scenarios/solo-10x10/dialogue",
    );
    assert_eq!(statuses, ["passed"; 4], "{}", String::from_utf8_lossy(&own));
    assert_eq!(
        verdicts(&served, true),
        verdicts(&own, true),
        "{}",
        String::from_utf8_lossy(&served)
    );
}

/// Issue 35, item 14: a `main()` that dies with a traceback (here `EOFError` at the end of
/// its input) has failed `never-crash`, not left it *not observed*: in its marking sheet, in
/// the report's opening line, in the Gradescope and PrairieLearn output a student reads
/// first, and in the class report's rule table.
#[test]
fn a_main_that_crashes_fails_never_crash_in_every_view() {
    let eof = "fixtures/scenarios/solo-10x10/dialogue/03-end-of-input.toml";
    let crashed = play(
        "python:fixtures/submissions/solo-10x10/main-dies-at-end-of-input",
        eof,
        5,
    );
    let (kind, message) = fault_of(&crashed);
    assert_eq!(kind, FaultKind::Exception, "{message}");
    assert!(message.contains("EOFError"), "{message}");
    let never_crash = |r: &ScenarioResult| {
        r.rules
            .iter()
            .find(|x| x.rule == "never-crash")
            .map(|x| x.verdict)
    };
    assert_eq!(never_crash(&crashed), Some(Verdict::Failed), "{crashed:?}");
    let report = broadside::report::Report::new("eof".into(), vec![crashed]);
    let text = broadside::report::to_text(&report, false);
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("main (rule `never-crash`) fails") && first.contains("EOFError"),
        "{text}"
    );
    assert!(text.contains("failed        never-crash"), "{text}");
    let hidden = broadside::report::HiddenResults::default();
    let gradescope = broadside::report::gradescope(&report, hidden);
    assert!(
        gradescope
            .output
            .contains("main (rule `never-crash`) fails"),
        "{}",
        gradescope.output
    );
    let prairielearn = broadside::report::prairielearn(&report, hidden);
    assert!(
        prairielearn
            .output
            .contains("main (rule `never-crash`) fails"),
        "{}",
        prairielearn.output
    );
    let fine = play("python:fixtures/submissions/solo-10x10/correct", eof, 5);
    assert_eq!(never_crash(&fine), Some(Verdict::Passed));
    let graded = vec![
        (
            "correct".to_string(),
            broadside::report::Report::new("correct".into(), vec![fine]),
        ),
        ("eof".to_string(), report),
    ];
    let summary = broadside::grade::ClassSummary::build(None, None, &graded, Vec::new()).unwrap();
    let html = broadside::grade::class_report(&summary, &graded);
    let row = html
        .split("<tr>")
        .find(|r| r.contains("<code>never-crash</code>"))
        .unwrap_or_default();
    // passed 1, failed 1, not judged 0: a 50 % failure rate.
    assert!(
        row.contains(r#"<td class="num">1</td><td class="num">1</td><td class="num">0</td>"#)
            && row.contains("50 %"),
        "{row}"
    );
}

/// A module without `main()` is `missing` (what the handout requires is not there), not a
/// `crash`, and charges no `never-crash`: no `main()` ran to crash.
#[test]
fn a_module_without_main_is_missing_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let correct =
        std::fs::read_to_string("fixtures/submissions/solo-10x10/correct/battleships.py").unwrap();
    let without = &correct[..correct.find("def main").unwrap()];
    std::fs::write(dir.path().join("battleships.py"), without).unwrap();
    let r = play(
        &format!("python:{}", dir.path().display()),
        "fixtures/scenarios/solo-10x10/dialogue/03-end-of-input.toml",
        5,
    );
    let (kind, message) = fault_of(&r);
    assert_eq!(kind, FaultKind::Missing, "{message}");
    assert!(message.contains("no main()"), "{message}");
    assert!(
        r.rules.iter().all(|x| x.verdict == Verdict::NotObserved),
        "{:?}",
        r.rules
    );
}

/// Issue 35, items 17 and 18: where broadside lost track of a game, the rules it did not
/// come to say so as broadside's own limit ("broadside could not follow the game after move
/// 3 (…), because …"), never "not observed"/"not reached" as if the program had not done
/// them; the plan's move names (`sweep`) stay out of every student view, and a move's line
/// is said with the command that shows the scenario.
#[test]
fn a_lost_track_is_said_as_broadsides_and_no_plan_word_reaches_a_student() {
    common::needs_jdk();
    // The one sample broadside still loses track of: its own ship, hit by its own rocket,
    // is drawn `*` where the reference draws `s` (no turn order explains that grid).
    let r = play(
        "java:fixtures/submissions/grenades-8x8/own-ships-not-sinkable",
        "fixtures/scenarios/grenades-8x8/dialogue/01-full-game.toml",
        10,
    );
    let unjudged: Vec<&str> = r
        .rules
        .iter()
        .filter(|x| x.verdict == Verdict::NotObserved)
        .map(|x| x.evidence.as_str())
        .collect();
    assert!(!unjudged.is_empty(), "{r:?}");
    for why in &unjudged {
        assert!(
            why.starts_with("broadside could not follow the game after move 3 (")
                && why.contains("), because "),
            "{why}"
        );
    }
    let views = [
        broadside::report::details(&r),
        serde_json::to_string(&r.rules).unwrap(),
        serde_json::to_string(&r.divergence).unwrap(),
    ];
    for shown in &views {
        for word in [
            "not observed",
            "not reached",
            "sweep",
            "layout unknown",
            "(reference",
        ] {
            assert!(!shown.contains(word), "`{word}` in:\n{shown}");
        }
    }
    let text = &views[0];
    assert!(
        text.contains("(line 11 of `broadside show grenades-8x8/01-full-game`)"),
        "{text}"
    );
    assert!(text.contains("not judged    winner"), "{text}");
    assert!(text.contains("the real board (ships shown):"), "{text}");
}

/// Issue 35, item 19: the conventions line lists each convention once (a program asking the
/// column first was listed "the column asked first" once per shot).
#[test]
fn each_convention_is_listed_once() {
    common::needs_jdk();
    let r = play(
        "java:fixtures/submissions/battleboats/column-first-prompts",
        HITS,
        10,
    );
    assert!(
        r.conventions.iter().any(|c| c == "the column asked first"),
        "{:?}",
        r.conventions
    );
    let mut once = r.conventions.clone();
    once.dedup();
    once.sort();
    once.dedup();
    assert_eq!(once.len(), r.conventions.len(), "{:?}", r.conventions);
    let text = broadside::report::details(&r);
    assert_eq!(text.matches("the column asked first").count(), 1, "{text}");
}

/// The verdict of `rule` in `r`.
fn verdict(r: &ScenarioResult, rule: &str) -> Option<Verdict> {
    r.rules.iter().find(|x| x.rule == rule).map(|x| x.verdict)
}

const GRENADES: &str = "fixtures/submissions/grenades-8x8";

/// Issue 35, item 1: a round out of the reference's turn order (an own grenade that costs
/// no turn) is charged to the lost-turn rule, and the rest of the game is still judged.
#[test]
fn an_own_grenade_that_costs_no_turn_is_charged_once_and_the_game_followed() {
    let r = play(
        &format!("java:{GRENADES}/own-grenade-costs-no-turn"),
        "fixtures/scenarios/grenades-8x8/dialogue/03-own-ship-and-grenade.toml",
        5,
    );
    assert_eq!(
        verdict(&r, "grenade-costs-turn"),
        Some(Verdict::Failed),
        "{r:?}"
    );
    for rule in [
        "own-ship-sinks",
        "winner",
        "revealed-grid",
        "computer-layout",
    ] {
        assert_eq!(verdict(&r, rule), Some(Verdict::Passed), "{rule}: {r:?}");
    }
}

/// Issue 35, item 1: a rocket the program refuses is charged to the rule it tests
/// (own-ship-sinks), not to grid-after-rocket, and play goes on.
#[test]
fn a_refused_rocket_on_an_own_ship_is_charged_to_the_rule_it_breaks() {
    let r = play(
        &format!("java:{GRENADES}/refuses-rocket-on-own-position"),
        "fixtures/scenarios/grenades-8x8/dialogue/03-own-ship-and-grenade.toml",
        5,
    );
    assert_eq!(
        verdict(&r, "own-ship-sinks"),
        Some(Verdict::Failed),
        "{r:?}"
    );
    assert_eq!(
        verdict(&r, "grenade-costs-turn"),
        Some(Verdict::Failed),
        "{r:?}"
    );
    for rule in [
        "grid-after-rocket",
        "computer-turn",
        "winner",
        "revealed-grid",
    ] {
        assert_eq!(verdict(&r, rule), Some(Verdict::Passed), "{rule}: {r:?}");
    }
    let own = r.rules.iter().find(|x| x.rule == "own-ship-sinks").unwrap();
    assert!(
        own.evidence.contains("refused the rocket"),
        "{}",
        own.evidence
    );
}

/// Issue 35, items 2 and 19: a row label glued to the first cell is read; one glyph outside
/// the alphabet (`x` for a called empty position) is charged once and the game followed.
#[test]
fn glued_labels_are_read_and_a_foreign_glyph_is_charged_once() {
    let full = "fixtures/scenarios/grenades-8x8/dialogue/01-full-game.toml";
    let r = play(&format!("java:{GRENADES}/glued-row-labels"), full, 5);
    assert_eq!(r.status, Status::Passed, "{r:?}");
    let r = play(&format!("java:{GRENADES}/x-for-empty-called"), full, 5);
    let failed: Vec<&str> = r
        .rules
        .iter()
        .filter(|x| x.verdict != Verdict::Passed)
        .map(|x| x.rule.as_str())
        .collect();
    assert_eq!(failed, ["grid-after-rocket"], "{r:?}");
    let grid = r
        .rules
        .iter()
        .find(|x| x.rule == "grid-after-rocket")
        .unwrap();
    assert!(grid.evidence.contains("`x`"), "{}", grid.evidence);
    assert!(!grid.evidence.contains("more times"), "{}", grid.evidence);
}

/// Issue 35, item 3: a final map of exactly the ships and grenades is step 7's reveal, not
/// a stray extra turn.
#[test]
fn a_final_map_of_the_items_only_is_the_reveal() {
    let r = play(
        &format!("java:{GRENADES}/reveal-items-only"),
        "fixtures/scenarios/grenades-8x8/dialogue/01-full-game.toml",
        5,
    );
    assert_eq!(r.status, Status::Passed, "{r:?}");
}

/// Issue 35, item 4: "Column (A-H):" asked first gets the letter, then the number.
#[test]
fn a_column_asked_alone_gets_the_letter_then_the_number() {
    let program = format!("java:{GRENADES}/column-then-row-asked-apart");
    let r = play(
        &program,
        "fixtures/scenarios/grenades-8x8/dialogue/01-full-game.toml",
        5,
    );
    assert_eq!(r.status, Status::Passed, "{r:?}");
    let r = play(
        &program,
        "fixtures/scenarios/grenades-8x8/dialogue/02-placement-refusals.toml",
        5,
    );
    let failed: Vec<&str> = r
        .rules
        .iter()
        .filter(|x| x.verdict != Verdict::Passed)
        .map(|x| x.rule.as_str())
        .collect();
    assert_eq!(failed, ["input-format"], "{r:?}");
}

/// Issue 35, item 6: the computer declaring itself the winner in the first person.
#[test]
fn a_winner_declared_in_the_first_person_is_read() {
    let r = play(
        &format!("java:{GRENADES}/computer-speaks-first-person"),
        "fixtures/scenarios/grenades-8x8/dialogue/01-full-game.toml",
        5,
    );
    assert_eq!(r.status, Status::Passed, "{r:?}");
}

const REPEATS: &str = "fixtures/scenarios/battleboats/dialogue/02-repeated-shots.toml";

/// Issue 35 item 7: a program that prints `usage: java BattleBoats <rows> <cols>` and exits 1
/// was a crash at its first line; it is run again with `8 8` and played.
#[test]
fn a_usage_line_naming_rows_and_cols_is_run_again_with_them() {
    let r = play("java:tests/fixtures/java/usage-exits", REPEATS, 5);
    assert_eq!(r.status, Status::Passed, "{r:?}");
    assert!(
        r.conventions
            .iter()
            .any(|c| c.contains("usage line names: `8 8`")),
        "{r:?}"
    );
    let r = play(
        "java:tests/fixtures/java/usage-exits",
        "fixtures/scenarios/battleboats/dialogue/08-expert.toml",
        5,
    );
    assert_eq!(r.status, Status::Passed, "{r:?}");
}

/// Issue 35 items 9 and 20: `print` typed at `Your move:` of a program that parses every
/// move as two numbers ends it with NumberFormatException. That was shown as the student's
/// crash (an error, 0 points); it is "no print command", and the game is played again
/// without it and judged on every other rule.
#[test]
fn print_that_ends_the_game_is_no_print_command_and_the_game_is_played_again() {
    let r = play("java:tests/fixtures/java/print-ends-game", REPEATS, 5);
    assert_eq!(r.status, Status::Passed, "{r:?}");
    let r = play(
        "java:tests/fixtures/java/print-ends-game",
        "fixtures/scenarios/battleboats/dialogue/09-full-game.toml",
        5,
    );
    assert_eq!(r.status, Status::Failed, "{r:?}");
    assert!(r.fault.is_none(), "{r:?}");
    assert_eq!(verdict(&r, "print"), Some(Verdict::Failed), "{r:?}");
    let evidence = &r.rules.iter().find(|x| x.rule == "print").unwrap().evidence;
    assert!(evidence.contains("no print command"), "{evidence}");
    for rule in [
        "hit",
        "sunk",
        "penalty-on-repeat",
        "drone-count",
        "turns",
        "shots",
    ] {
        assert_eq!(verdict(&r, rule), Some(Verdict::Passed), "{rule}: {r:?}");
    }
}

/// Issue 35 item 12: a program that asks its setup question again after every answer never
/// starts a game. That was judged as shots answered by the setup question (failed `hit`,
/// `miss`, `sunk` on a board inferred from nothing); it is the finding `never-started`,
/// every rule unjudged, flagged for the marker.
#[test]
fn a_setup_question_asked_forever_is_a_game_that_never_started() {
    for target in [
        "exec:python3 -u tests/fixtures/programs/battleboats/asks-forever.py",
        "java:fixtures/submissions/battleboats/mode-never-accepted",
    ] {
        let r = play(target, REPEATS, 5);
        assert_eq!(r.status, Status::Failed, "{target}: {r:?}");
        assert_eq!(r.score, 0.0, "{target}: {r:?}");
        assert_eq!(
            r.divergence.as_ref().map(|d| d.check.as_str()),
            Some("never-started"),
            "{target}: {r:?}"
        );
        assert!(
            r.rules.iter().all(|x| x.verdict == Verdict::NotObserved),
            "{target}: {r:?}"
        );
        assert!(
            r.conventions
                .iter()
                .any(|c| c.contains("flagged for the marker")),
            "{target}: {r:?}"
        );
        // Said as what it is, never as broadside losing track of a game that was played.
        let text = broadside::report::details(&r);
        assert!(!text.contains("could not follow"), "{target}: {text}");
        assert!(text.contains("the game never started"), "{target}: {text}");
    }
}

/// The classes of a successful compile are kept and found again by the sources' hash: the
/// same files graded again give the same report from the kept classes (an entry emptied of
/// the program's classes is what the next run gets), a changed file is a build of its own,
/// a compile error keeps nothing, and a cache folder other users can write is not used.
#[test]
fn a_compile_is_kept_for_the_same_sources_and_an_open_cache_folder_is_not_used() {
    use std::os::unix::fs::PermissionsExt;
    common::needs_jdk();
    let cache = tempfile::tempdir().unwrap();
    std::fs::set_permissions(cache.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let sources = tempfile::tempdir().unwrap();
    for f in std::fs::read_dir("fixtures/submissions/battleboats/correct").unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, sources.path().join(f.file_name().unwrap())).unwrap();
    }
    // Open to other users, as a submission's folder must be when grading runs as root.
    std::fs::set_permissions(sources.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = |cache: &std::path::Path| {
        let target = format!("java:{}", sources.path().display());
        broadside()
            .env("BROADSIDE_BUILD_CACHE", cache)
            .args(["run", HITS, "--target", &target, "--format", "json"])
            .output()
            .unwrap()
            .stdout
    };
    let entries = |dir: &std::path::Path| -> Vec<std::path::PathBuf> {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        v.sort();
        v
    };
    let first = run(cache.path());
    assert_eq!(verdicts(&first, true), verdicts(&run(cache.path()), true));
    assert!(
        String::from_utf8_lossy(&first).contains("\"status\": \"passed\""),
        "{}",
        String::from_utf8_lossy(&first)
    );
    let kept = entries(cache.path());
    assert_eq!(kept.len(), 1, "{kept:?}");
    let classes: Vec<String> = entries(&kept[0])
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        classes.contains(&"BattleBoatsGame.class".to_string()),
        "{classes:?}"
    );
    // The next run takes the kept classes: without the program's, it has no main class.
    std::fs::remove_file(kept[0].join("BattleBoatsGame.class")).unwrap();
    let emptied = String::from_utf8_lossy(&run(cache.path())).into_owned();
    assert!(!emptied.contains("\"status\": \"passed\""), "{emptied}");
    // A changed file is another build.
    let game = sources.path().join("BattleBoatsGame.java");
    let text = std::fs::read_to_string(&game).unwrap();
    std::fs::write(&game, format!("{text}\n// changed\n")).unwrap();
    assert_eq!(verdicts(&first, true), verdicts(&run(cache.path()), true));
    assert_eq!(entries(cache.path()).len(), 2);
    // A compile error keeps nothing.
    std::fs::write(&game, format!("{text}\n}}\n")).unwrap();
    let broken = String::from_utf8_lossy(&run(cache.path())).into_owned();
    assert!(broken.contains("does not compile"), "{broken}");
    assert_eq!(entries(cache.path()).len(), 2);
    // A cache folder others can write is not used.
    std::fs::write(&game, &text).unwrap();
    let open = tempfile::tempdir().unwrap();
    std::fs::set_permissions(open.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    assert_eq!(verdicts(&first, true), verdicts(&run(open.path()), true));
    assert!(entries(open.path()).is_empty());
}
