//! The hostile corpus (`fixtures/submissions/hostile/`): whatever a submission does, grading
//! ends in bounded time with the fault named here, and nothing the submission started is
//! left running. The corpus assumes a Linux machine where broadside runs as root (CI does): the
//! child then runs as `nobody` in its own network namespace.

use broadside::harness::run_submission;
use broadside::report::{ScenarioResult, Status};
use broadside::spec::SpecSet;
use broadside::target::{Fault, FaultKind, Process, Target, python};
use std::time::{Duration, Instant};

const CORPUS: &str = "fixtures/submissions/hostile";

fn handout_example() -> Vec<broadside::scenario::Scenario> {
    let all = broadside::published::load("colab-6x6", &SpecSet::builtin()).unwrap();
    all.into_iter()
        .filter(|s| s.source.path.ends_with("01-handout-example.toml"))
        .collect()
}

fn limited(mut t: Process) -> Process {
    t.limits.request_timeout = Duration::from_secs(2);
    t.limits.scenario_timeout = Duration::from_secs(8);
    t
}

/// Grades `file` on the handout example; returns the result, the submission's faults, and
/// how long it took. Afterwards nothing the submission started may still run.
fn grade_target(mut t: Process) -> (ScenarioResult, Vec<Fault>, Duration) {
    let start = Instant::now();
    let (mut results, faults) = run_submission(&handout_example(), &mut t);
    let took = start.elapsed();
    assert!(
        t.finish().is_empty(),
        "something was still running after the leak check"
    );
    (results.remove(0), faults, took)
}

fn grade(file: &str) -> (ScenarioResult, Vec<Fault>, Duration) {
    let path = format!("{CORPUS}/{file}");
    grade_target(limited(
        python::target(camino::Utf8Path::new(&path)).unwrap(),
    ))
}

fn fault_of(r: &ScenarioResult) -> FaultKind {
    r.fault
        .as_ref()
        .unwrap_or_else(|| panic!("{}: no fault; status {:?}", r.path, r.status))
        .kind
}

fn expect(file: &str, kind: FaultKind, within: Duration) {
    let (r, _, took) = grade(file);
    assert_eq!(fault_of(&r), kind, "{file}: {:?}", r.fault);
    assert!(took < within, "{file} took {took:?}");
}

#[test]
fn loop_at_import_is_a_timeout() {
    expect(
        "loop_at_import.py",
        FaultKind::Timeout,
        Duration::from_secs(15),
    );
}

#[test]
fn loop_in_fire_is_a_timeout() {
    expect(
        "loop_in_fire.py",
        FaultKind::Timeout,
        Duration::from_secs(15),
    );
}

#[test]
fn sleep_past_the_timeout_is_a_timeout() {
    expect(
        "sleep_past_timeout.py",
        FaultKind::Timeout,
        Duration::from_secs(15),
    );
}

#[test]
fn allocating_10_gib_hits_the_memory_limit() {
    let (r, _, _) = grade("allocate_10gib.py");
    assert_eq!(fault_of(&r), FaultKind::Limit, "{:?}", r.fault);
    assert!(r.fault.unwrap().message.contains("memory"));
}

#[test]
fn a_fork_bomb_hits_the_process_limit_and_leaves_nothing() {
    let (r, _, took) = grade("fork_bomb.py");
    assert_eq!(fault_of(&r), FaultKind::Limit, "{:?}", r.fault);
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

#[test]
fn printing_100_mb_hits_the_output_limit() {
    let (r, _, _) = grade("print_100mb.py");
    assert_eq!(fault_of(&r), FaultKind::Limit, "{:?}", r.fault);
    let f = r.fault.unwrap();
    assert!(
        f.message.len() < 64 * 1024,
        "the report must stay small: {} bytes",
        f.message.len()
    );
}

#[test]
fn writing_a_100_mb_file_hits_the_file_size_limit() {
    let (r, _, _) = grade("write_100mb_file.py");
    assert_eq!(fault_of(&r), FaultKind::Limit, "{:?}", r.fault);
    assert!(
        !std::path::Path::new(&format!("{CORPUS}/hostile_100mb.bin")).exists(),
        "wrote into the corpus"
    );
}

#[test]
fn a_stray_line_on_the_protocol_is_a_protocol_fault() {
    expect(
        "garble_protocol.py",
        FaultKind::Protocol,
        Duration::from_secs(15),
    );
}

#[test]
fn closing_the_protocol_is_a_crash() {
    expect("close_stdout.py", FaultKind::Crash, Duration::from_secs(15));
}

#[test]
fn exit_zero_mid_game_is_a_crash() {
    expect(
        "exit_zero_mid_game.py",
        FaultKind::Crash,
        Duration::from_secs(15),
    );
}

#[test]
fn killing_the_grader_fails_and_the_grader_reports() {
    // As `nobody` the child may not signal broadside: its kill raises, an exception.
    expect(
        "kill_parent.py",
        FaultKind::Exception,
        Duration::from_secs(15),
    );
}

#[test]
fn a_segfault_is_a_crash() {
    expect("segfault.py", FaultKind::Crash, Duration::from_secs(15));
}

#[test]
fn a_c_stack_overflow_is_a_crash() {
    expect(
        "recurse_deep_c.py",
        FaultKind::Crash,
        Duration::from_secs(15),
    );
}

#[test]
fn system_exit_keyboard_interrupt_and_recursion_are_exceptions() {
    for (file, name) in [
        ("raise_system_exit.py", "SystemExit"),
        ("raise_keyboard_interrupt.py", "KeyboardInterrupt"),
        ("recurse_forever.py", "RecursionError"),
    ] {
        let (r, _, _) = grade(file);
        assert_eq!(fault_of(&r), FaultKind::Exception, "{file}: {:?}", r.fault);
        assert!(r.fault.unwrap().message.contains(name), "{file}");
    }
}

#[test]
fn a_background_process_that_outlives_the_child_is_a_leak() {
    let (r, faults, _) = grade("background_process.py");
    assert_eq!(r.status, Status::Passed);
    assert_eq!(
        faults.iter().map(|f| f.kind).collect::<Vec<_>>(),
        vec![FaultKind::Leak]
    );
    assert!(
        faults[0].message.contains("sleep 300"),
        "{}",
        faults[0].message
    );
}

#[test]
fn the_network_is_out_of_reach() {
    // A listener on the grader's loopback: reachable from the host, not from the child's own
    // network namespace. No traffic leaves the machine.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let path = format!("{CORPUS}/open_network.py");
    let t = python::target(camino::Utf8Path::new(&path))
        .unwrap()
        .env("HOSTILE_PORT", &port);
    let (r, _, _) = grade_target(limited(t));
    assert_eq!(
        r.status,
        Status::Passed,
        "the child reached the network: {:?}",
        r.divergence
    );
}

#[test]
fn a_hidden_scenario_cannot_be_found_by_the_submission() {
    // The hidden scenario sits in a folder every user may read: only the jail keeps the child
    // away from it. The marker is put together at run time so no file holds it whole.
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let marker = ["HIDDEN", "MARKER", "7f3a"].join("-");
    let text = std::fs::read_to_string("fixtures/scenarios/colab-6x6/01-handout-example.toml")
        .unwrap()
        .replace(
            "title = \"",
            &format!("visibility = \"hidden\"\ntitle = \"{marker} "),
        );
    let path = dir.path().join("hidden-scenario.toml");
    std::fs::write(&path, &text).unwrap();
    let source = broadside::diag::Source::new(path.to_string_lossy(), text);
    let scenario = broadside::scenario::parse(&source, &SpecSet::builtin()).unwrap();
    let mut t = limited(
        python::target(camino::Utf8Path::new(&format!(
            "{CORPUS}/read_scenarios.py"
        )))
        .unwrap(),
    );
    t.limits.request_timeout = Duration::from_secs(8);
    let (results, _) = run_submission(std::slice::from_ref(&scenario), &mut t);
    assert_eq!(
        results[0].status,
        Status::Passed,
        "the submission found the hidden scenario: {:?}",
        results[0].divergence
    );
}

fn fake(mode: &str) -> ScenarioResult {
    let driver = format!("{}/{CORPUS}/fake_driver.py", env!("CARGO_MANIFEST_DIR"));
    grade_target(limited(Process::command(&format!(
        "python3 {driver} {mode}"
    ))))
    .0
}

#[test]
fn the_fake_driver_misbehaves_on_request() {
    assert_eq!(fake("ok").fault, None);
    for (mode, kind) in [
        ("hang", FaultKind::Timeout),
        ("garble", FaultKind::Protocol),
        ("wrong-id", FaultKind::Protocol),
        ("exit", FaultKind::Crash),
        ("crash", FaultKind::Crash),
        ("flood", FaultKind::Limit),
        ("slow", FaultKind::Timeout),
    ] {
        assert_eq!(fault_of(&fake(mode)), kind, "mode {mode}");
    }
}
