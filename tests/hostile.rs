//! The hostile corpus (`fixtures/submissions/hostile/`): whatever a submission does, grading
//! ends in bounded time with the fault named here, and nothing the submission started is
//! left running. The corpus assumes a Linux machine where broadside runs as root (CI does): the
//! child then runs as `nobody` in its own network namespace.

use broadside::play::{Quiet, run_submission};
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
    let (mut results, faults) = run_submission(&handout_example(), &mut t, &mut Quiet);
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
fn a_stray_line_on_the_drivers_channel_is_a_crash_that_says_so() {
    // The student's code runs in the driver's executor, which holds no protocol stream: the
    // stray line lands on the executor's channel to the driver, which ends at once.
    let (r, _, took) = grade("garble_protocol.py");
    assert_eq!(fault_of(&r), FaultKind::Crash, "{:?}", r.fault);
    assert!(
        r.fault
            .unwrap()
            .message
            .contains("broke the driver's channel"),
        "the crash says why"
    );
    assert!(took < Duration::from_secs(15), "took {took:?}");
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
fn killing_its_parent_kills_only_the_driver_and_the_grader_reports() {
    // The student's code runs in the driver's executor, whose parent is the driver's judge
    // (the same user): the kill ends the driver, a crash of the submission's, and broadside
    // (another user) goes on to report it.
    expect("kill_parent.py", FaultKind::Crash, Duration::from_secs(15));
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
    // A user of its own: the fork bombs of the other hostile tests, running at the same time
    // as the shared unprivileged user, must not use up its process limit (a clean-clone CI run
    // once saw its driver's fork fail with EAGAIN).
    let users = broadside::target::limits::claim_uid_block().unwrap();
    let mut t = limited(
        python::target_as(
            camino::Utf8Path::new(&format!("{CORPUS}/read_scenarios.py")),
            users.base,
        )
        .unwrap(),
    );
    // The search runs for 5 s of wall time: on a loaded machine the scenario needs room
    // beyond that, or it ends as a timeout and says nothing about the jail.
    t.limits.request_timeout = Duration::from_secs(30);
    t.limits.scenario_timeout = Duration::from_secs(60);
    let (results, _) = run_submission(std::slice::from_ref(&scenario), &mut t, &mut Quiet);
    assert_eq!(
        results[0].status,
        Status::Passed,
        "the submission found the hidden scenario: {:?} {:?}",
        results[0].divergence,
        results[0].fault
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

/// The colab-6x6 handout example, marked hidden, with a title saying so.
fn hidden_handout_example() -> broadside::scenario::Scenario {
    let text = std::fs::read_to_string("fixtures/scenarios/colab-6x6/01-handout-example.toml")
        .unwrap()
        .replace("title = \"", "visibility = \"hidden\"\ntitle = \"");
    let source = broadside::diag::Source::new("hidden/01-handout-example.toml", text);
    broadside::scenario::parse(&source, &SpecSet::builtin()).unwrap()
}

/// Every view a student may be shown of `report`, as text.
fn student_views(report: &broadside::report::Report) -> Vec<(&'static str, String)> {
    use broadside::report::{
        HiddenResults, for_students, to_gradescope, to_json, to_junit, to_text,
    };
    let mut views = Vec::new();
    for hidden in [HiddenResults::None, HiddenResults::Status] {
        let student = for_students(report, hidden);
        views.push(("json", to_json(&student)));
        views.push(("text", to_text(&student, false)));
        views.push(("junit", to_junit(&student)));
        views.push(("gradescope", to_gradescope(report, hidden)));
    }
    views
}

#[test]
fn what_a_leftover_process_carries_never_reaches_a_student_view() {
    let path = format!("{CORPUS}/leak_ships_in_command_line.py");
    let mut t = limited(python::target(camino::Utf8Path::new(&path)).unwrap());
    let scenarios = [handout_example().remove(0), hidden_handout_example()];
    let (results, faults) = run_submission(&scenarios, &mut t, &mut Quiet);
    assert!(
        faults
            .iter()
            .any(|f| f.kind == FaultKind::Leak && f.message.contains("SHIPS:")),
        "staff see what was left running: {faults:?}"
    );
    let mut report = broadside::report::Report::new("leaky".into(), results);
    report.faults = faults;
    for (view, text) in student_views(&report) {
        assert!(
            !text.contains("SHIPS:"),
            "{view} quotes the leftover's command line:\n{text}"
        );
        assert!(
            text.contains("leak") || view == "junit",
            "{view} must still name the leak"
        );
    }
}

#[test]
fn a_hidden_scenarios_timing_is_in_no_student_view() {
    let path = format!("{CORPUS}/sleep_by_row.py");
    let mut t = limited(python::target(camino::Utf8Path::new(&path)).unwrap());
    let scenarios = [handout_example().remove(0), hidden_handout_example()];
    let (results, _) = run_submission(&scenarios, &mut t, &mut Quiet);
    assert!(results.iter().all(|r| r.status == Status::Passed));
    let hidden_ms = results[1].elapsed_ms;
    assert!(
        hidden_ms >= 100,
        "the hidden scenario's shots took {hidden_ms} ms"
    );
    let visible_ms = results[0].elapsed_ms;
    let mut report = broadside::report::Report::new("sleepy".into(), results);
    report.elapsed_ms = visible_ms + hidden_ms + 7;
    for hidden in [
        broadside::report::HiddenResults::None,
        broadside::report::HiddenResults::Status,
    ] {
        let student = broadside::report::for_students(&report, hidden);
        assert_eq!(
            student.elapsed_ms, visible_ms,
            "only the listed scenarios' time"
        );
        for r in &student.scenarios {
            if r.visibility != broadside::scenario::Visibility::Visible {
                assert_eq!(r.elapsed_ms, 0, "{}", r.path);
            }
        }
    }
}

#[test]
fn crossing_the_cpu_budget_is_a_cpu_limit() {
    let path = format!("{CORPUS}/burn_cpu.py");
    let mut t = python::target(camino::Utf8Path::new(&path)).unwrap();
    t.limits.cpu_secs = 2;
    t.limits.request_timeout = Duration::from_secs(20);
    t.limits.scenario_timeout = Duration::from_secs(30);
    let (r, _, took) = grade_target(t);
    let f = r.fault.as_ref().expect("a fault");
    assert_eq!(f.kind, FaultKind::Limit, "{f:?}");
    assert!(f.message.contains("CPU seconds"), "{}", f.message);
    assert!(took < Duration::from_secs(15), "took {took:?}");
}

#[test]
fn a_hard_link_in_the_submission_is_not_copied_and_the_report_says_so() {
    // A file only root may read, linked into the submission folder: the copy would hand it
    // to the submission's user.
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret");
    std::fs::write(&secret, "root only").unwrap();
    std::fs::set_permissions(&secret, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let sub = dir.path().join("submission");
    std::fs::create_dir(&sub).unwrap();
    std::fs::copy(
        "fixtures/submissions/colab-6x6/correct/battleship.py",
        sub.join("battleship.py"),
    )
    .unwrap();
    std::fs::hard_link(&secret, sub.join("notes.txt")).unwrap();
    let to = tempfile::tempdir().unwrap();
    let skipped = broadside::target::workspace::copy_tree(&sub, to.path(), &|_, _| true).unwrap();
    assert_eq!(skipped, vec!["notes.txt".to_string()]);
    assert!(!to.path().join("notes.txt").exists());
    assert!(to.path().join("battleship.py").is_file());
    let t = python::target(camino::Utf8Path::new(sub.to_str().unwrap())).unwrap();
    assert!(
        t.notes()
            .iter()
            .any(|n| n.contains("hard links") && n.contains("notes.txt")),
        "{:?}",
        t.notes()
    );
    // A submission that is itself a hard link is refused.
    let single = dir.path().join("battleship.py");
    std::fs::hard_link(sub.join("battleship.py"), &single).unwrap();
    let refused = python::target(camino::Utf8Path::new(single.to_str().unwrap()));
    assert!(refused.is_err());
}

#[test]
fn a_submission_that_stays_under_every_timeout_still_meets_its_budget() {
    let path = format!("{CORPUS}/sleep_under_timeout.py");
    let mut t = limited(python::target(camino::Utf8Path::new(&path)).unwrap());
    t.limits.submission_timeout = Duration::from_secs(4);
    let scenarios = broadside::published::load("colab-6x6", &SpecSet::builtin()).unwrap();
    let start = Instant::now();
    let (results, _) = run_submission(&scenarios, &mut t, &mut Quiet);
    let took = start.elapsed();
    assert!(took < Duration::from_secs(12), "took {took:?}");
    let not_run: Vec<&ScenarioResult> = results
        .iter()
        .filter(|r| {
            r.fault
                .as_ref()
                .is_some_and(|f| f.kind == FaultKind::NotRun)
        })
        .collect();
    assert!(not_run.len() >= 20, "only {} not run", not_run.len());
    for r in &not_run {
        assert_eq!(r.points, 0.0);
        assert!(
            r.fault
                .as_ref()
                .unwrap()
                .message
                .contains("submission_timeout_secs")
        );
    }
    // The scenarios played before the budget ran out were graded as usual.
    assert!(results.iter().any(|r| r.status == Status::Passed));
}

#[test]
fn shared_memory_a_submission_leaves_is_its_own_and_gone_with_it() {
    let _ = std::fs::remove_file("/dev/shm/broadside-shm-drop");
    let key = "1112687699"; // 0x42524453, as /proc/sysvipc/shm lists keys
    let segments = || std::fs::read_to_string("/proc/sysvipc/shm").unwrap_or_default();
    assert!(
        !segments().split_whitespace().any(|w| w == key),
        "left from an earlier run"
    );
    let (r, faults, _) = grade("shared_memory_drop.py");
    assert_eq!(r.status, Status::Passed, "{:?}", r.fault);
    assert!(faults.is_empty(), "{faults:?}");
    assert!(
        !std::path::Path::new("/dev/shm/broadside-shm-drop").exists(),
        "the file dropped in /dev/shm reached the host's"
    );
    assert!(
        !segments().split_whitespace().any(|w| w == key),
        "the System V segment outlived the submission"
    );
}

#[test]
fn under_run_a_daemon_that_sheds_the_mark_is_found_by_its_user_and_killed() {
    let alive = || {
        broadside::target::procs::all()
            .iter()
            .any(|p| broadside::target::procs::line_of(p).contains("daemon-left-behind"))
    };
    assert!(!alive(), "a daemon from an earlier run is still there");
    let out = assert_cmd::Command::cargo_bin("broadside")
        .unwrap()
        .args([
            "run",
            "fixtures/scenarios/colab-6x6/01-handout-example.toml",
            "--target",
            &format!("python:{CORPUS}/daemon_without_mark.py"),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let faults = v["faults"].as_array().cloned().unwrap_or_default();
    assert!(
        faults.iter().any(|f| f["kind"] == "leak"
            && f["message"]
                .as_str()
                .unwrap_or("")
                .contains("daemon-left-behind")),
        "{faults:?}"
    );
    assert!(!alive(), "the daemon outlived `run`");
    assert_eq!(v["summary"]["passed"], 1, "the scores themselves are right");
}

#[test]
fn a_module_that_patches_the_driver_gains_nothing() {
    // The patches reach only the executor's copy of the driver: the judge, in a process of
    // its own, decides every answer from the raw values, so the one bug still costs its
    // scenario and nothing else changes.
    let all = broadside::published::load("colab-6x6", &SpecSet::builtin()).unwrap();
    let path = format!("{CORPUS}/patch_driver_at_import.py");
    let mut t = python::target(camino::Utf8Path::new(&path)).unwrap();
    let (results, faults) = run_submission(&all, &mut t, &mut Quiet);
    assert!(t.finish().is_empty(), "something was still running");
    assert!(faults.is_empty(), "{faults:?}");
    let failed: Vec<&str> = results
        .iter()
        .filter(|r| r.status != Status::Passed)
        .map(|r| r.path.rsplit('/').next().unwrap_or(&r.path))
        .collect();
    assert_eq!(failed, ["16-create-game-independent-games.toml"]);
    let probe = results
        .iter()
        .find(|r| r.path.ends_with("16-create-game-independent-games.toml"))
        .unwrap();
    assert_eq!(probe.status, Status::Failed, "{:?}", probe.fault);
    let why = format!("{:?}", probe.divergence);
    assert!(why.contains("shared, not copied"), "{why}");
}

/// Grades `path` (a `python:` target) on every published colab-6x6 scenario; nothing it
/// started may be left running.
fn grade_colab(path: &str) -> (Vec<ScenarioResult>, Vec<Fault>) {
    let all = broadside::published::load("colab-6x6", &SpecSet::builtin()).unwrap();
    let mut t = python::target(camino::Utf8Path::new(path)).unwrap();
    let graded = run_submission(&all, &mut t, &mut Quiet);
    assert!(t.finish().is_empty(), "{path}: something was still running");
    graded
}

fn not_passed(results: &[ScenarioResult]) -> Vec<&str> {
    results
        .iter()
        .filter(|r| r.status != Status::Passed)
        .map(|r| r.path.rsplit('/').next().unwrap_or(&r.path))
        .collect()
}

fn points(results: &[ScenarioResult]) -> (f64, u32) {
    (
        results.iter().map(|r| r.points).sum(),
        results.iter().map(|r| r.max_points).sum(),
    )
}

#[test]
fn patched_fetch_cannot_hide_shared_fleet_lists() {
    // The executor, patched to answer every object of a `fetch` on its own, never says two
    // objects are one; the judge once asked it whether a game's list was the caller's and so
    // gave full marks. It now tells sharing by value (a marker added through one object shows
    // through the other), so the patched code scores what the honest code with the bug does.
    let (honest, faults) = grade_colab("fixtures/submissions/colab-6x6/game-stores-callers-lists");
    assert!(faults.is_empty(), "{faults:?}");
    let (patched, faults) = grade_colab(&format!("{CORPUS}/patch_fetch_copies.py"));
    assert!(faults.is_empty(), "{faults:?}");
    assert_eq!(
        not_passed(&patched),
        ["16-create-game-independent-games.toml"]
    );
    assert_eq!(not_passed(&patched), not_passed(&honest));
    let probe = patched
        .iter()
        .find(|r| r.path.ends_with("16-create-game-independent-games.toml"))
        .unwrap();
    assert_eq!(probe.status, Status::Failed, "{:?}", probe.fault);
    let why = format!("{:?}", probe.divergence);
    assert!(why.contains("shared, not copied"), "{why}");
    let (got, max) = points(&patched);
    assert_eq!((got, max), points(&honest), "the patch gains nothing");
    assert!(got < f64::from(max), "{got} of {max}");
}

#[test]
fn an_executor_that_skips_the_judges_adds_is_a_crash() {
    // The judge tells the executor to add a marker to a list and looks for it there: an
    // executor that skips the add (so no marker shows where it should not, and shared lists
    // would go unseen) has not done as told, which is the submission's crash, not a pass.
    let (results, faults) = grade_colab(&format!("{CORPUS}/patch_skip_pokes.py"));
    assert!(faults.is_empty(), "{faults:?}");
    assert_eq!(
        not_passed(&results),
        ["16-create-game-independent-games.toml"]
    );
    let probe = results
        .iter()
        .find(|r| r.path.ends_with("16-create-game-independent-games.toml"))
        .unwrap();
    assert_eq!(fault_of(probe), FaultKind::Crash, "{:?}", probe.fault);
    let message = &probe.fault.as_ref().unwrap().message;
    assert!(
        message.contains("did not do as the driver's judge told it"),
        "the crash says why: {message}"
    );
    assert_eq!(probe.points, 0.0);
}

#[test]
fn five_children_under_the_limit_each_are_one_tree_over_it() {
    // As root this machine gives broadside a memory cgroup per child: the budget holds for
    // the whole tree. Without one only the per-process limit would hold (README).
    assert!(
        broadside::target::cgroup::MemoryGroup::new(64).is_some(),
        "this machine gives broadside no memory cgroup (a cgroup file system mounted \
         read-write, run as root): the tree's memory budget cannot be checked"
    );
    let (r, _, took) = grade("fork_memory_tree.py");
    assert_eq!(fault_of(&r), FaultKind::Limit, "{:?}", r.fault);
    assert!(
        r.fault.unwrap().message.contains("together"),
        "the report says the processes together went over"
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");
}
