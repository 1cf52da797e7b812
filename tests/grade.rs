//! `broadside grade` and `broadside merge` as an instructor meets them: one report per
//! submission, a summary that matches the reports, byte-identical reruns (timings aside),
//! `--resume`, shards that merge into the same summary, and hostile submissions that fail
//! themselves only.

mod common;
use common::broadside;

use camino::{Utf8Path, Utf8PathBuf};
use serde_json::Value;
use std::collections::BTreeMap;

const SUITE: &str = "fixtures/scenarios/solo-10x10";
const CLASS: &str = "fixtures/submissions/solo-10x10";

fn tmp() -> (tempfile::TempDir, Utf8PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
    (dir, path)
}

/// Runs `broadside grade` with `extra` flags; returns the exit code and standard error.
fn grade(suite: &str, class: &str, out: &Utf8Path, extra: &[&str]) -> (i32, String) {
    let o = broadside()
        .args([
            "grade",
            "--suite",
            suite,
            "--submissions",
            class,
            "--out",
            out.as_str(),
        ])
        .args(extra)
        .output()
        .unwrap();
    (
        o.status.code().unwrap(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn json(path: &Utf8Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every file under `dir` (relative path → text), timings replaced, so two runs compare.
fn files_without_timings(dir: &Utf8Path) -> BTreeMap<String, String> {
    let timing = [
        (r#""elapsed_ms": [0-9]+"#, r#""elapsed_ms": 0"#),
        (r#""execution_time": [0-9]+"#, r#""execution_time": 0"#),
        (r#"time="[0-9.]+""#, r#"time="0""#),
    ];
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let mut text = std::fs::read_to_string(e.path()).unwrap();
            for (pattern, with) in timing {
                text = regex::Regex::new(pattern)
                    .unwrap()
                    .replace_all(&text, with)
                    .into_owned();
            }
            let rel = e.path().strip_prefix(dir.as_std_path()).unwrap();
            (rel.to_string_lossy().into_owned(), text)
        })
        .collect()
}

#[test]
fn grading_the_samples_writes_every_report_and_a_summary_that_matches_them() {
    let (_keep, out) = tmp();
    let (code, err) = grade(SUITE, CLASS, &out, &["--jobs", "2"]);
    assert_eq!(code, 0, "{err}");
    let summary = json(&out.join("summary.json"));
    let rows = summary["submissions"].as_array().unwrap();
    let samples: Vec<String> = broadside::grade::discover(CLASS.into())
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert!(samples.len() >= 11, "{samples:?}");
    assert_eq!(rows.len(), samples.len());
    let csv_text = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let mut csv = csv::Reader::from_reader(csv_text.as_bytes());
    let header = csv.headers().unwrap().clone();
    let csv_rows: Vec<csv::StringRecord> = csv.records().map(|r| r.unwrap()).collect();
    assert_eq!(csv_rows.len(), samples.len());
    for (row, record) in rows.iter().zip(&csv_rows) {
        let id = row["id"].as_str().unwrap();
        let dir = out.join(id);
        for file in ["report.json", "results.json", "junit.xml", "report.txt"] {
            assert!(dir.join(file).is_file(), "{id}: no {file}");
        }
        let report = json(&dir.join("report.json"));
        assert_eq!(row["score"], report["summary"]["score"], "{id}");
        assert_eq!(row["passed"], report["summary"]["passed"], "{id}");
        assert_eq!(&record[0], id);
        assert_eq!(
            record[1].parse::<f64>().unwrap(),
            row["score"].as_f64().unwrap()
        );
        // Each scenario's status in the summary is the report's.
        let ids = broadside::report::scenario_ids(
            report["scenarios"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["path"].as_str().unwrap()),
        );
        for (sid, s) in ids.iter().zip(report["scenarios"].as_array().unwrap()) {
            assert_eq!(row["scenarios"][sid], s["status"], "{id} {sid}");
            let col = header.iter().position(|h| h == sid).unwrap();
            assert_eq!(Some(&record[col]), s["status"].as_str(), "{id} {sid}");
        }
        let gradescope = json(&dir.join("results.json"));
        assert_eq!(gradescope["score"], report["summary"]["score"], "{id}");
        quick_junit::Report::deserialize_from_str(
            &std::fs::read_to_string(dir.join("junit.xml")).unwrap(),
        )
        .unwrap();
    }
    let correct = rows.iter().find(|r| r["id"] == "correct").unwrap();
    assert_eq!(correct["score"], correct["max_score"]);
    assert_eq!(correct["fault_summary"], "");
    // Why a submission has errors, in its own column: the cause, not only the kind.
    let misnamed = rows
        .iter()
        .find(|r| r["id"] == "misnamed-ship-type")
        .unwrap();
    assert_eq!(
        misnamed["fault_summary"],
        "missing in 9 scenarios: `ship_type` is not defined in battleships.py"
    );
    let col = header.iter().position(|h| h == "fault_summary").unwrap();
    let record = &csv_rows[rows
        .iter()
        .position(|r| r["id"] == "misnamed-ship-type")
        .unwrap()];
    assert_eq!(&record[col], misnamed["fault_summary"].as_str().unwrap());
    // Issue 37 item 9: `faults` was empty where `fault_summary` was filled; it lists the
    // kinds `fault_summary` tells of, each once.
    assert_eq!(misnamed["faults"], serde_json::json!(["missing"]));
    let col = header.iter().position(|h| h == "faults").unwrap();
    assert_eq!(&record[col], "missing");
    for row in rows {
        assert_eq!(
            row["faults"].as_array().unwrap().is_empty(),
            row["fault_summary"] == "",
            "{row}"
        );
    }
    let rates = summary["scenarios"].as_array().unwrap();
    let rate = |s: &Value| s["failure_rate"].as_f64().unwrap();
    assert!(
        rates.windows(2).all(|w| rate(&w[0]) >= rate(&w[1])),
        "hardest first"
    );
    assert!(rate(&rates[0]) > 0.0);
}

#[test]
fn the_same_class_graded_twice_gives_the_same_bytes_timings_aside() {
    let (_a, one) = tmp();
    let (_b, two) = tmp();
    let class = "fixtures/submissions/colab-6x6";
    let suite = "fixtures/scenarios/colab-6x6";
    assert_eq!(grade(suite, class, &one, &["--jobs", "2"]).0, 0);
    assert_eq!(grade(suite, class, &two, &["--jobs", "1"]).0, 0);
    let (a, b) = (files_without_timings(&one), files_without_timings(&two));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, text) in &a {
        assert_eq!(text, &b[name], "{name} differs between two runs");
    }
}

#[test]
fn resume_skips_the_reports_already_written_and_grades_the_rest() {
    let (_keep, out) = tmp();
    let class = "fixtures/submissions/colab-6x6";
    let suite = "fixtures/scenarios/colab-6x6";
    assert_eq!(grade(suite, class, &out, &[]).0, 0);
    let before = std::fs::read_to_string(out.join("summary.json")).unwrap();
    // As if the run had been interrupted before `correct` was written.
    std::fs::remove_dir_all(out.join("correct")).unwrap();
    let (code, err) = grade(suite, class, &out, &["--resume"]);
    assert_eq!(code, 0, "{err}");
    let n = broadside::grade::discover(class.into()).unwrap().len();
    assert!(err.contains(&format!("({} resumed)", n - 1)), "{err}");
    assert!(out.join("correct/report.json").is_file());
    assert_eq!(
        std::fs::read_to_string(out.join("summary.json")).unwrap(),
        before
    );
}

#[test]
fn a_reused_out_folder_with_reports_of_submissions_not_in_the_class_is_refused_or_cleaned() {
    let (_keep, out) = tmp();
    let class = "fixtures/submissions/colab-6x6";
    let suite = "fixtures/scenarios/colab-6x6";
    assert_eq!(grade(suite, class, &out, &[]).0, 0);
    let before = std::fs::read_to_string(out.join("summary.json")).unwrap();
    // A student who left the course since the last run, and the instructor's own notes.
    std::fs::create_dir(out.join("left-the-course")).unwrap();
    std::fs::copy(
        out.join("correct/report.json"),
        out.join("left-the-course/report.json"),
    )
    .unwrap();
    std::fs::create_dir(out.join("notes")).unwrap();
    std::fs::write(out.join("notes/late.txt"), "alice: 2 days\n").unwrap();
    for extra in [&[][..], &["--resume"][..]] {
        let (code, err) = grade(suite, class, &out, extra);
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(
            err.contains("not in the class (left-the-course)") && err.contains("--clean"),
            "{err}"
        );
    }
    let (code, err) = grade(suite, class, &out, &["--clean", "--resume"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("deleted the reports of 1 submission not in the class: left-the-course"),
        "{err}"
    );
    assert!(!out.join("left-the-course").exists());
    assert!(
        out.join("notes/late.txt").is_file(),
        "a folder without a report is kept"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("summary.json")).unwrap(),
        before
    );
}

#[test]
fn shards_merge_into_the_summary_of_the_whole_class() {
    let class = "fixtures/submissions/colab-6x6";
    let suite = "fixtures/scenarios/colab-6x6";
    let (_w, whole) = tmp();
    assert_eq!(grade(suite, class, &whole, &[]).0, 0);
    let (_s, root) = tmp();
    let shards: Vec<Utf8PathBuf> = (1..=3).map(|k| root.join(format!("shard-{k}"))).collect();
    // Shard 1 named outright; 2 as GitLab's `parallel: 3` says (1-based, with the count);
    // 3 as a Kubernetes indexed Job says (0-based, the count given).
    let (code, err) = grade(suite, class, &shards[0], &["--shard", "1/3"]);
    assert_eq!(code, 0, "{err}");
    let engines: [(&str, &[(&str, &str)]); 2] = [
        ("auto", &[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "3")]),
        ("auto/3", &[("JOB_COMPLETION_INDEX", "2")]),
    ];
    for (dir, (shard, vars)) in shards[1..].iter().zip(engines) {
        let mut cmd = broadside();
        for (_, index, _, count) in broadside::grade::SHARD_ENGINES {
            cmd.env_remove(index).env_remove(count.unwrap_or(index));
        }
        let o = cmd
            .envs(vars.iter().copied())
            .args([
                "grade",
                "--suite",
                suite,
                "--submissions",
                class,
                "--out",
                dir.as_str(),
            ])
            .args(["--shard", shard])
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let merged = root.join("merged");
    let o = broadside()
        .arg("merge")
        .args(shards.iter().map(|s| s.as_str()))
        .args(["--out", merged.as_str()])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for file in ["summary.json", "summary.csv"] {
        assert_eq!(
            std::fs::read_to_string(merged.join(file)).unwrap(),
            std::fs::read_to_string(whole.join(file)).unwrap(),
            "{file}"
        );
    }
    // A missing shard is refused, naming it.
    let o = broadside()
        .args([
            "merge",
            shards[0].as_str(),
            shards[2].as_str(),
            "--out",
            merged.as_str(),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("shard 2/3 missing"));
    // The same shard twice is refused too.
    let o = broadside()
        .args([
            "merge",
            shards[0].as_str(),
            shards[0].as_str(),
            "--out",
            merged.as_str(),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn hostile_submissions_fail_themselves_only() {
    let (_c, class) = tmp();
    let correct = "fixtures/submissions/colab-6x6/correct/battleship.py";
    let hostile = [
        ("fork-bomb", "fork_bomb.py", "limit"),
        ("loop-in-fire", "loop_in_fire.py", "timeout"),
        ("kill-parent", "kill_parent.py", ""),
        ("segfault", "segfault.py", "crash"),
        ("background", "background_process.py", "leak"),
    ];
    for (id, file, _) in hostile {
        std::fs::create_dir(class.join(id)).unwrap();
        std::fs::copy(
            format!("fixtures/submissions/hostile/{file}"),
            class.join(id).join("battleship.py"),
        )
        .unwrap();
    }
    for id in ["correct-a", "correct-b", "correct-c"] {
        std::fs::create_dir(class.join(id)).unwrap();
        std::fs::copy(correct, class.join(id).join("battleship.py")).unwrap();
    }
    let (_o, out) = tmp();
    let (code, err) = grade(
        "fixtures/scenarios/colab-6x6/01-handout-example.toml",
        class.as_str(),
        &out,
        &["--jobs", "2", "--timeout", "1"],
    );
    assert_eq!(code, 0, "{err}");
    for id in ["correct-a", "correct-b", "correct-c"] {
        let r = json(&out.join(id).join("report.json"));
        assert_eq!(r["summary"]["passed"], 1, "{id} beside hostile ones: {r}");
    }
    for (id, _, fault) in hostile {
        let r = json(&out.join(id).join("report.json"));
        let s = &r["scenarios"][0];
        if fault == "leak" {
            assert_eq!(r["faults"][0]["kind"], "leak", "{id}: {r}");
        } else if !fault.is_empty() {
            assert_eq!(s["status"], "error", "{id}: {r}");
            assert_eq!(s["fault"]["kind"], fault, "{id}: {r}");
        }
    }
}

#[test]
fn wrong_inputs_are_refused_with_exit_2_or_a_clear_error() {
    let (_keep, out) = tmp();
    // Suites for assignments in several languages need --target.
    let (code, err) = grade("fixtures/scenarios", CLASS, &out, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("--target"), "{err}");
    let (code, err) = grade(SUITE, CLASS, &out, &["--target", "python:"]);
    assert_eq!(code, 2);
    assert!(err.contains("{}"), "{err}");
    let (code, err) = grade(SUITE, CLASS, &out, &["--shard", "4/3"]);
    assert_eq!(code, 2);
    assert!(err.contains("K/N"), "{err}");
    let (code, err) = grade(SUITE, "no/such/folder", &out, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("no/such/folder"), "{err}");
}

#[test]
fn a_broken_suite_toml_names_file_line_and_what_was_expected() {
    let (_keep, dir) = tmp();
    std::fs::copy(
        "fixtures/scenarios/colab-6x6/01-handout-example.toml",
        dir.join("01.toml"),
    )
    .unwrap();
    std::fs::write(
        dir.join("suite.toml"),
        "title = \"x\"\nassignment = \"solo-10x10\"\ntotal_points = -3\nhidden = [\"nope\"]\n",
    )
    .unwrap();
    let (_o, out) = tmp();
    let (code, err) = grade(dir.as_str(), CLASS, &out, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("suite.toml:3:16"), "{err}");
    assert!(
        err.contains("hidden folder `nope` is not a folder"),
        "{err}"
    );
    // The assignment check needs a valid suite, so it comes once the others are fixed.
    std::fs::write(dir.join("suite.toml"), "assignment = \"solo-10x10\"\n").unwrap();
    let (code, err) = grade(dir.as_str(), CLASS, &out, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("01.toml:1:1"), "{err}");
    assert!(err.contains("but its suite"), "{err}");
}

#[test]
fn a_hidden_scenarios_shots_never_reach_a_visible_scenarios_feedback() {
    // The spy prints every position it was ever asked about; the hidden scenario sorts before
    // the visible one, yet is played after it.
    let (_c, class) = tmp();
    std::fs::create_dir(class.join("spy")).unwrap();
    std::fs::copy(
        "tests/fixtures/python/spy/battleship.py",
        class.join("spy/battleship.py"),
    )
    .unwrap();
    let (_o, out) = tmp();
    let (code, err) = grade("tests/fixtures/spy-suite", class.as_str(), &out, &[]);
    assert_eq!(code, 0, "{err}");
    let staff = std::fs::read_to_string(out.join("spy/report.json")).unwrap();
    assert!(
        staff.contains("SPY [(1, 1)]"),
        "the visible shot is shown: {staff}"
    );
    for file in ["results.json", "report.txt"] {
        let text = std::fs::read_to_string(out.join("spy").join(file)).unwrap();
        assert!(text.contains("SPY [(1, 1)]"), "{file}: {text}");
        // F6 is (5, 5) and E6 (4, 5) as (row, col).
        assert!(
            !text.contains("(5, 5)") && !text.contains("(4, 5)"),
            "{file}: {text}"
        );
    }
}

/// Issue 37 item 9: `grade --suite /abs/path` put `/tmp/…/01-perfect-game.toml` (and the
/// submission's folder, in `target`) into the `report.txt` handed back to students and into
/// the class report. Student views name a scenario by its file name within the suite and a
/// submission by its folder's name; the staff files keep the paths as given.
#[test]
fn no_student_view_names_the_graders_folders() {
    let (_keep, root) = tmp();
    let suite = root.join("grader-only/suite");
    let later = suite.join("later");
    std::fs::create_dir_all(&later).unwrap();
    for (file, to) in [
        ("01-perfect-game.toml", &suite),
        ("05-ship-type-by-length.toml", &suite),
        ("09-place-edge-adjacent-rejected.toml", &later),
    ] {
        std::fs::copy(format!("{SUITE}/{file}"), to.join(file)).unwrap();
    }
    let class = root.join("grader-only/class");
    for sub in [
        "correct",
        "misnamed-ship-type",
        "placement-checks-first-square-only",
    ] {
        let to = class.join(sub);
        std::fs::create_dir_all(&to).unwrap();
        for f in std::fs::read_dir(format!("{CLASS}/{sub}")).unwrap() {
            let f = f.unwrap();
            if f.file_type().unwrap().is_file() {
                std::fs::copy(f.path(), to.as_std_path().join(f.file_name())).unwrap();
            }
        }
    }
    let out = root.join("out");
    let (code, err) = grade(
        suite.as_str(),
        class.as_str(),
        &out,
        &[
            "--formats",
            "json,gradescope,junit,text,html",
            "--jobs",
            "2",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let grader = root.join("grader-only");
    let read = |p: Utf8PathBuf| std::fs::read_to_string(&p).unwrap();
    let mut student = vec![(
        "class-report.html".to_string(),
        read(out.join("class-report.html")),
    )];
    for sub in [
        "correct",
        "misnamed-ship-type",
        "placement-checks-first-square-only",
    ] {
        for f in ["report.txt", "results.json"] {
            student.push((format!("{sub}/{f}"), read(out.join(sub).join(f))));
        }
    }
    // PrairieLearn's `run.sh` and a student view of `run` take absolute paths too.
    for args in [
        &["--format", "prairielearn"][..],
        &["--format", "gradescope"],
        &["--audience", "student", "--format", "text"],
        &["--audience", "student", "--format", "json"],
        &["--audience", "student", "--format", "junit"],
    ] {
        let target = format!("python:{class}/misnamed-ship-type");
        let o = broadside()
            .args(["run", suite.as_str(), "--target", &target])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(1),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        student.push((
            format!("run {args:?}"),
            String::from_utf8(o.stdout).unwrap(),
        ));
    }
    for (name, text) in &student {
        assert!(
            !text.contains(grader.as_str()),
            "{name} names {grader}:\n{text}"
        );
    }
    // The feedback still says where to look, by the scenario's file name in the suite.
    let text = read(out.join("misnamed-ship-type/report.txt"));
    assert!(text.contains("of 01-perfect-game.toml): "), "{text}");
    assert!(
        text.contains("(target: python:misnamed-ship-type)"),
        "{text}"
    );
    let text = read(out.join("placement-checks-first-square-only/report.txt"));
    assert!(
        text.contains("of later/09-place-edge-adjacent-rejected.toml): "),
        "{text}"
    );
    // The staff's own files keep the paths as given: that is where their files are.
    let staff = read(out.join("misnamed-ship-type/report.json"));
    assert!(
        staff.contains(suite.join("01-perfect-game.toml").as_str()),
        "{staff}"
    );
}

#[test]
fn a_hidden_folder_graded_alone_keeps_its_suites_settings() {
    // `suites/hidden` given alone still finds `suites/suite.toml` above it.
    let (_o, out) = tmp();
    let (code, err) = grade(
        "tests/fixtures/spy-suite/hidden",
        "fixtures/submissions/colab-6x6",
        &out,
        &["--formats", "gradescope"],
    );
    assert_eq!(code, 0, "{err}");
    let g = json(&out.join("correct/results.json"));
    assert_eq!(g["tests"][0]["visibility"], "hidden", "{g}");
}

#[test]
fn resume_grades_again_when_a_scenario_changed() {
    let (_s, suite) = tmp();
    for f in ["01-handout-example.toml", "02-repeat-on-water.toml"] {
        std::fs::copy(format!("fixtures/scenarios/colab-6x6/{f}"), suite.join(f)).unwrap();
    }
    let (_o, out) = tmp();
    let class = "fixtures/submissions/colab-6x6";
    assert_eq!(grade(suite.as_str(), class, &out, &[]).0, 0);
    let (code, err) = grade(suite.as_str(), class, &out, &["--resume"]);
    assert_eq!(code, 0, "{err}");
    let n = broadside::grade::discover(class.into()).unwrap().len();
    assert!(err.contains(&format!("({n} resumed)")), "{err}");
    // Worth more points now: every report is stale.
    let file = suite.join("02-repeat-on-water.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replacen("points = ", "points = 1", 1)).unwrap();
    let (code, err) = grade(suite.as_str(), class, &out, &["--resume"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("(0 resumed)"), "{err}");
}

#[test]
fn merge_refuses_a_shard_with_submissions_not_graded() {
    let class = "fixtures/submissions/colab-6x6";
    let suite = "fixtures/scenarios/colab-6x6/01-handout-example.toml";
    let (_s, root) = tmp();
    let shards: Vec<Utf8PathBuf> = (1..=2).map(|k| root.join(format!("shard-{k}"))).collect();
    for (k, dir) in shards.iter().enumerate() {
        assert_eq!(
            grade(suite, class, dir, &["--shard", &format!("{}/2", k + 1)]).0,
            0
        );
    }
    // As an interrupted run leaves it: one submission planned, not graded.
    let file = shards[1].join("summary.json");
    let mut v = json(&file);
    v["not_graded"] = serde_json::json!(["zed"]);
    std::fs::write(&file, v.to_string()).unwrap();
    let o = broadside()
        .args(["merge", shards[0].as_str(), shards[1].as_str(), "--out"])
        .arg(root.join("merged").as_str())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("incomplete") && err.contains("zed"), "{err}");
}

#[test]
fn out_of_range_limits_and_an_out_folder_inside_the_class_are_refused() {
    let (_o, out) = tmp();
    let (code, err) = grade(SUITE, CLASS, &out, &["--timeout=-1"]);
    assert_eq!(code, 2);
    assert!(err.contains("seconds from 0.05 to 3600"), "{err}");
    let (code, err) = grade(SUITE, CLASS, &out, &["--jobs", "0"]);
    assert_eq!(code, 2, "{err}");
    let (code, err) = grade(SUITE, CLASS, &Utf8PathBuf::from(CLASS).join("graded"), &[]);
    assert_eq!(code, 2);
    assert!(err.contains("inside the submissions folder"), "{err}");
}

#[test]
fn a_process_that_sheds_its_environment_is_still_found_and_killed() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: slot users need root");
        return;
    }
    let (_c, class) = tmp();
    std::fs::create_dir(class.join("escape")).unwrap();
    std::fs::copy(
        "tests/fixtures/python/env-escape/battleship.py",
        class.join("escape/battleship.py"),
    )
    .unwrap();
    let (_o, out) = tmp();
    let (code, err) = grade(
        "fixtures/scenarios/colab-6x6/01-handout-example.toml",
        class.as_str(),
        &out,
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let r = json(&out.join("escape/report.json"));
    let faults = r["faults"].to_string();
    assert!(
        faults.contains("leak") && faults.contains("sleep 2718"),
        "{r}"
    );
    let ps = std::process::Command::new("ps")
        .args(["-eo", "args"])
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&ps.stdout)
            .lines()
            .any(|l| l.contains("sleep 2718")),
        "the process outlived the grading"
    );
}

#[test]
fn loose_files_are_named_and_folder_names_cannot_drive_the_terminal() {
    let (_keep, out) = tmp();
    let class = tempfile::tempdir().unwrap();
    let odd = class.path().join("evil\u{1b}[2Jname");
    std::fs::create_dir(&odd).unwrap();
    std::fs::copy(
        "fixtures/submissions/solo-10x10/correct/battleships.py",
        odd.join("battleships.py"),
    )
    .unwrap();
    std::fs::write(class.path().join("class-export.zip"), "not unpacked").unwrap();
    let (code, err) = grade(
        "fixtures/scenarios/solo-10x10/01-perfect-game.toml",
        class.path().to_str().unwrap(),
        &out,
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        !err.contains('\u{1b}'),
        "a raw escape reached the terminal: {err:?}"
    );
    assert!(err.contains("evil\\u{1b}[2Jname"), "{err}");
    assert!(err.contains("class-export.zip"), "{err}");
    assert!(err.contains("is a file, not a submission folder"), "{err}");
    let summary = json(&out.join("summary.json"));
    assert_eq!(summary["submissions"].as_array().unwrap().len(), 1);
}

#[test]
fn a_folder_name_that_is_not_utf8_is_graded_under_an_escaped_id() {
    use std::os::unix::ffi::OsStrExt;
    let (_keep, out) = tmp();
    let class = tempfile::tempdir().unwrap();
    // "café" from an archive unpacked as Latin-1: the é is the single byte 0xe9.
    let latin1 = class.path().join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
    for dir in [latin1, class.path().join("plain")] {
        std::fs::create_dir(&dir).unwrap();
        std::fs::copy(
            "fixtures/submissions/solo-10x10/correct/battleships.py",
            dir.join("battleships.py"),
        )
        .unwrap();
    }
    let (code, err) = grade(
        "fixtures/scenarios/solo-10x10/01-perfect-game.toml",
        class.path().to_str().unwrap(),
        &out,
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let summary = json(&out.join("summary.json"));
    let rows = summary["submissions"].as_array().unwrap();
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["caf\\xe9", "plain"], "{summary}");
    assert!(rows[1]["score"].as_f64().unwrap() > 0.0, "{summary}");
    assert_eq!(rows[0]["score"], rows[1]["score"], "{summary}");
    let report = json(&out.join("caf\\xe9").join("report.json"));
    assert_eq!(report["scenarios"][0]["status"], "passed", "{report}");
}

/// Nothing broadside made in `out` is named with a control character, or is not UTF-8.
fn names_are_printable(out: &Utf8Path) {
    use std::os::unix::ffi::OsStrExt;
    for e in walkdir::WalkDir::new(out) {
        let e = e.unwrap();
        let name = e.file_name().as_bytes();
        assert!(
            std::str::from_utf8(name).is_ok() && !name.iter().any(|b| *b < 0x20 || *b == 0x7f),
            "{:?} made in --out",
            e.path()
        );
    }
}

/// Issue 34: a folder named with the byte 0xff and one named `bad\xffutf8` in so many
/// characters both wrote `--out/bad\xffutf8/`, the summary had two rows of one id, and
/// `--resume` gave both whichever report was written last. The class is built here, at run
/// time: a name that is not UTF-8 cannot be committed to git portably.
#[test]
fn colliding_names_get_their_own_report_folders() {
    use std::os::unix::ffi::OsStrExt;
    let (_keep, out) = tmp();
    let class = tempfile::tempdir().unwrap();
    // Each folder gets a sample with its own status in the one scenario, so a row showing
    // another folder's report is seen. Keys: the folder as the summary spells it.
    let folders: [(&[u8], &str, &str, &str); 3] = [
        (
            b"bad\xffutf8",
            "hits-kept-as-count",
            "bad\\xffutf8",
            "error",
        ),
        (b"bad\\xffutf8", "correct", "bad\\\\xffutf8", "passed"),
        (
            b"evil\x1b[2Jname",
            "hit-returns-ship-before-hit",
            "evil\\u{1b}[2Jname",
            "failed",
        ),
    ];
    for (name, sample, _, _) in folders {
        let dir = class.path().join(std::ffi::OsStr::from_bytes(name));
        std::fs::create_dir(&dir).unwrap();
        std::fs::copy(
            format!("{CLASS}/{sample}/battleships.py"),
            dir.join("battleships.py"),
        )
        .unwrap();
    }
    let suite = "fixtures/scenarios/solo-10x10/01-perfect-game.toml";
    let class_dir = class.path().to_str().unwrap();
    // Each row: its id, the folder it stands for, and its status in the summary and in
    // the report in its own folder, which must be that folder's sample's.
    let rows = |out: &Utf8Path| -> Vec<(String, String)> {
        let summary = json(&out.join("summary.json"));
        let mut seen = Vec::new();
        for row in summary["submissions"].as_array().unwrap() {
            let id = row["id"].as_str().unwrap().to_string();
            let folder = row["folder"].as_str().unwrap_or(&id).to_string();
            let (_, _, _, status) = folders
                .iter()
                .find(|f| f.2 == folder)
                .unwrap_or_else(|| panic!("{folder:?} is no folder of the class: {summary}"));
            let only = row["scenarios"].as_object().unwrap().values().next();
            assert_eq!(only, Some(&Value::from(*status)), "{summary}");
            let report = json(&out.join(&id).join("report.json"));
            assert_eq!(report["scenarios"][0]["status"], *status, "{id}: {report}");
            seen.push((id, folder));
        }
        seen
    };
    let (code, err) = grade(suite, class_dir, &out, &["--jobs", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !err.contains('\u{1b}'),
        "a raw escape reached the terminal: {err:?}"
    );
    let first = rows(&out);
    let expected = [
        ("bad\\xffutf8", "bad\\\\xffutf8"),
        ("bad\\xffutf8~2", "bad\\xffutf8"),
        ("evil\\u{1b}[2Jname", "evil\\u{1b}[2Jname"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(first, expected);
    for (id, folder) in &expected {
        let report = json(&out.join(id).join("report.json"));
        assert_eq!(report["folder"], folder.as_str(), "{id}: {report}");
    }
    // The CSV says which folder an id stands for where the id alone does not.
    let csv_text = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let mut csv = csv::Reader::from_reader(csv_text.as_bytes());
    assert_eq!(&csv.headers().unwrap()[1], "folder", "{csv_text}");
    let folder_cells: Vec<String> = csv.records().map(|r| r.unwrap()[1].to_string()).collect();
    assert_eq!(
        folder_cells,
        ["bad\\\\xffutf8", "bad\\xffutf8", ""],
        "{csv_text}"
    );
    names_are_printable(&out);
    // Resumed, every report is reused, each for its own folder.
    let before = std::fs::read_to_string(out.join("summary.json")).unwrap();
    let (code, err) = grade(suite, class_dir, &out, &["--jobs", "2", "--resume"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("(3 resumed)"), "{err}");
    assert_eq!(rows(&out), expected);
    assert_eq!(
        std::fs::read_to_string(out.join("summary.json")).unwrap(),
        before
    );
    // A report folder holding another folder's report (as the race left it) is graded
    // again, not reused.
    std::fs::copy(
        out.join("bad\\xffutf8~2/report.json"),
        out.join("bad\\xffutf8/report.json"),
    )
    .unwrap();
    let (code, err) = grade(suite, class_dir, &out, &["--jobs", "2", "--resume"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("(2 resumed)"), "{err}");
    assert_eq!(rows(&out), expected);
}

#[test]
fn the_game_started_ahead_that_no_scenario_plays_is_no_leak() {
    // Each dialogue starts the next game's JVM ahead; the last one is never played. It is
    // broadside's: stopped with the target, before the submission's leftovers are looked for
    // (as root, every process of the slot's user), so a correct program reports no fault.
    // (Kept alive past the target, the nine spares are reported as a leak: tried.)
    let (_c, class) = tmp();
    let student = class.join("ada");
    std::fs::create_dir_all(&student).unwrap();
    for f in std::fs::read_dir("fixtures/submissions/battleboats/correct").unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, student.as_std_path().join(f.file_name().unwrap())).unwrap();
    }
    let (_o, out) = tmp();
    let (code, err) = grade(
        "fixtures/scenarios/battleboats/dialogue",
        class.as_str(),
        &out,
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let r = json(&out.join("ada").join("report.json"));
    assert_eq!(r["summary"]["passed"], 9, "{r}");
    assert!(
        r["faults"].as_array().is_none_or(|f| f.is_empty()),
        "{}",
        r["faults"]
    );
}

#[test]
fn ctrl_c_gives_the_running_submissions_a_grace_then_stops_them_and_writes_the_summary() {
    let (_keep, root) = tmp();
    let class = root.join("class");
    for (id, source) in [
        (
            "correct",
            "fixtures/submissions/colab-6x6/correct/battleship.py",
        ),
        (
            "hangs",
            "fixtures/submissions/hostile/sleep_past_timeout.py",
        ),
    ] {
        std::fs::create_dir_all(class.join(id)).unwrap();
        std::fs::copy(source, class.join(id).join("battleship.py")).unwrap();
    }
    let out = root.join("graded");
    let start = std::time::Instant::now();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_broadside"))
        .args([
            "grade",
            "--suite",
            "fixtures/scenarios/colab-6x6",
            "--submissions",
        ])
        .arg(&class)
        .args(["--out", out.as_str(), "--jobs", "2", "--stop-grace", "1"])
        // Each fire() sleeps 30 s: without the stop, this submission takes minutes.
        .args(["--timeout", "60", "--scenario-timeout", "600"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once `correct` is graded (its report written), Ctrl-C.
    while !out.join("correct/report.json").is_file() {
        assert!(start.elapsed().as_secs() < 60, "correct was never graded");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        start.elapsed().as_secs() < 15,
        "the hanging submission was waited out: {err}"
    );
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("get 1 s to finish"), "{err}");
    assert!(err.contains("interrupted: 1 not graded"), "{err}");
    let summary = json(&out.join("summary.json"));
    assert_eq!(summary["not_graded"], serde_json::json!(["hangs"]));
    let ids: Vec<&str> = summary["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["correct"]);
    assert!(
        !out.join("hangs").exists(),
        "a stopped submission has no report"
    );
    // It is left for --resume, which grades only it (here a version that answers at once:
    // the same flags, so `correct` counts as graded under the same settings).
    std::fs::copy(
        "fixtures/submissions/colab-6x6/correct/battleship.py",
        class.join("hangs/battleship.py"),
    )
    .unwrap();
    let (code, err) = grade(
        "fixtures/scenarios/colab-6x6",
        class.as_str(),
        &out,
        &[
            "--resume",
            "--jobs",
            "2",
            "--timeout",
            "60",
            "--scenario-timeout",
            "600",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("(1 resumed)"), "{err}");
}

#[test]
fn a_submission_the_grader_cannot_start_is_not_graded_not_scored_zero() {
    // No `sh` on the PATH: each scenario ends in a `harness` fault, broadside's own, so the
    // submission is left not graded (listed, retried by --resume), with no report and no 0.
    let (_d, out) = tmp();
    let empty = tempfile::tempdir().unwrap();
    let o = broadside()
        .env("PATH", empty.path())
        .args([
            "grade",
            "--suite",
            "fixtures/scenarios/colab-6x6/01-handout-example.toml",
            "--submissions",
            "fixtures/submissions/colab-6x6",
            "--out",
            out.as_str(),
            "--target",
            "cmd:true {}",
            "--jobs",
            "1",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("not graded: broadside's own side failed"),
        "{err}"
    );
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert!(
        summary["submissions"].as_array().unwrap().is_empty(),
        "{summary}"
    );
    assert!(
        summary["not_graded"]
            .as_array()
            .unwrap()
            .contains(&"correct".into()),
        "{summary}"
    );
    assert!(!out.join("correct/report.json").exists());
}
