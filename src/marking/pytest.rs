//! A student's own tests graded as Examplar grades tests (a pytest file, or for colab-6x6 the
//! asserts the notebook itself holds, run by `drivers/marking_script.py`): run against the wheat (a correct
//! implementation: a test that fails there is wrong), the spec's accepted other readings, and
//! each chaff (one function with one rule broken: a good suite fails on it). Per testable
//! function: the tests that call it, the chaffs they catch, and, in the student's words to
//! act on, what no test checks.

use super::MeasureError;
use super::scheme::{FigureSpec, TestsSpec};
use super::sheet::{Figure, FigureState, FunctionTests};
use super::tools::{Copy, find, read_lossy, shown};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

/// The plugin that reports each test (`drivers/pytest_marking.py`).
pub(crate) const PLUGIN: &str = include_str!("../../drivers/pytest_marking.py");

/// The runner of tests written into the module itself (`drivers/marking_script.py`).
pub(crate) const SCRIPT: &str = include_str!("../../drivers/marking_script.py");

/// Wall-clock time the tests may take on the wheat.
const WHEAT_TIMEOUT: Duration = Duration::from_secs(60);

/// The outline of the tests file (`drivers/marking_outline.py`).
pub(crate) const OUTLINE: &str = include_str!("../../drivers/marking_outline.py");

/// How a notebook's code cells become one script (`drivers/python_notebook.py`).
use crate::target::python::NOTEBOOK;

/// Most tests a run confirms by naming each on pytest's command line.
const MOST_TESTS: usize = 5000;

/// Most lines of one kind (wrong tests, tests that call nothing, ...) a sheet lists: what the
/// tests' outcomes on the wheat can steer in a student view stays a few dozen bits.
const MOST_LINES: usize = 8;

/// One line of the plugin's output: a claim of the tests' own process, which the tests can
/// write too. Nothing in it reaches a student view as it is: tests are shown by where they
/// are written (`shown`, from the outline), outcomes are confirmed by exit statuses.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct Record {
    #[serde(default)]
    test: Option<String>,
    #[serde(default)]
    file: String,
    #[serde(default)]
    line: u32,
    #[serde(default)]
    outcome: String,
    #[serde(default)]
    calls: Vec<String>,
    #[serde(default)]
    broke: Vec<Broke>,
    #[serde(default)]
    message: String,
    #[serde(default)]
    collect_error: Option<String>,
    /// How a student view names the test: `file:line` of where it is written.
    #[serde(skip)]
    shown: String,
    /// The line it is written on, which orders the sheet's lines.
    #[serde(skip)]
    at: u32,
}

#[derive(Debug, Clone, Deserialize)]
struct Broke {
    function: String,
}

/// What one run of the tests saw: outcome by test id, in order.
#[derive(Debug, Default)]
pub(super) struct Run {
    tests: Vec<Record>,
    collect_errors: Vec<String>,
    timed_out: bool,
    /// The run's exit code (`None`: a signal or the timeout ended it).
    code: Option<i32>,
    /// Whether the run caught a buggy version, decided outside the tests' process (the exit
    /// status of a run of the tests that passed on the wheat); `None`: judge by outcomes.
    caught: Option<bool>,
}

impl Run {
    /// A run from outcomes found another way (doctest examples in GHCi): `(id, line,
    /// outcome, functions it names, message)`.
    pub(super) fn of(outcomes: Vec<(String, u32, &str, Vec<String>, String)>) -> Run {
        Run {
            tests: outcomes
                .into_iter()
                .map(|(id, line, outcome, calls, message)| Record {
                    shown: id.clone(),
                    at: line,
                    test: Some(id),
                    file: String::new(),
                    line,
                    outcome: outcome.to_string(),
                    calls,
                    broke: Vec::new(),
                    message,
                    collect_error: None,
                })
                .collect(),
            ..Run::default()
        }
    }

    /// How test `id` is shown (its name as written), or nothing when it did not run.
    fn shown_as(&self, id: &str) -> String {
        self.outcome(id)
            .map(|r| r.shown.clone())
            .unwrap_or_default()
    }

    /// The line test `id` is written at (0: not known).
    fn at(&self, id: &str) -> u32 {
        self.outcome(id).map_or(0, |r| r.at)
    }

    /// The testable functions test `id` called.
    fn calls(&self, id: &str) -> Vec<String> {
        self.outcome(id)
            .map(|r| r.calls.clone())
            .unwrap_or_default()
    }

    fn outcome(&self, id: &str) -> Option<&Record> {
        self.tests
            .iter()
            .rev()
            .find(|r| r.test.as_deref() == Some(id))
    }
    fn passed(&self, id: &str) -> bool {
        self.outcome(id).is_some_and(|r| r.outcome == "passed")
    }
}

/// The run's results, as broadside's plugin or runner wrote them to `out` (one JSON record
/// a line); where no test ran, why pytest itself failed.
///
/// Errors: pytest is not installed for the grader's Python.
fn read_run(
    out: &Path,
    built: &crate::target::build::BuildRun,
    plan: &Plan,
) -> Result<Run, MeasureError> {
    let text = std::fs::read_to_string(out).unwrap_or_default();
    let mut run = Run {
        timed_out: built.timed_out,
        code: built.code,
        ..Run::default()
    };
    for line in text.lines() {
        let Ok(r) = serde_json::from_str::<Record>(line) else {
            continue;
        };
        if let Some(e) = r.collect_error {
            run.collect_errors.push(e);
        } else if r.test.is_some() {
            run.tests.push(r);
        }
    }
    if run.tests.is_empty() && run.collect_errors.is_empty() && built.code != Some(0) {
        // pytest itself failed before any test (not installed, a broken ini).
        if built.output.contains("No module named pytest") {
            return Err(
                "pytest is not installed for the grader's Python (apt-get install python3-pytest)"
                    .into(),
            );
        }
        if plan.must_pass.is_none() && !built.timed_out && built.code != Some(5) {
            run.collect_errors.push(last_lines(&built.output, 6));
        }
    }
    Ok(run)
}

/// Where each test of the tests file is written, read by Python's parser without running
/// anything (`drivers/marking_outline.py`).
#[derive(Debug, Default, Deserialize)]
struct Outline {
    #[serde(default)]
    tests: Vec<Written>,
    #[serde(default)]
    checks: Vec<Check>,
    #[serde(default)]
    print_only: Vec<u32>,
    #[serde(default)]
    error: Option<String>,
    /// A notebook's code cells, where each starts in the script they were joined into:
    /// (line, cell number as Jupyter counts code cells, the cell's first line).
    #[serde(default)]
    cells: Vec<(u32, u32, String)>,
}

impl Outline {
    /// Where `line` of the outlined file is, as the student sees it: `file:line`, or for a
    /// notebook `file, cell 14, `first line`, line 3` (issue 36: cells, not the lines of a
    /// script the student never saw).
    fn place(&self, shown_file: &str, line: u32) -> String {
        match self.cells.iter().rev().find(|(start, _, _)| *start <= line) {
            Some((start, number, first)) => {
                let first: String = first.chars().take(40).collect();
                format!(
                    "{shown_file}, cell {number}, `{first}`, line {}",
                    line - start + 1
                )
            }
            None => format!("{shown_file}:{line}"),
        }
    }
}

/// A test function (or method) as written.
#[derive(Debug, Deserialize)]
struct Written {
    /// Its first decorator's line, or the `def` line.
    first: u32,
    /// The `def` line.
    line: u32,
    name: String,
    /// The required functions it names (itself or through the file's own helpers).
    mentions: Vec<String>,
}

/// A top-level statement that holds an assert (script style).
#[derive(Debug, Deserialize)]
struct Check {
    line: u32,
    mentions: Vec<String>,
}

/// Which tests a run runs and which must pass, the same for the run that confirms the
/// wheat's outcomes and for every chaff's run, so the tests cannot tell those runs apart
/// except by the implementation's behaviour (or its source, which the sheet flags).
#[derive(Debug, Default, Clone)]
struct Plan {
    /// Test ids that must pass; `None` for the first run (every test runs, none must).
    must_pass: Option<Vec<String>>,
    /// Checks left out (script style: they did not finish on the wheat).
    skip: Vec<String>,
    /// Only collect the named tests (pytest's `--collect-only`): the run exits 0 only if
    /// every one of them exists.
    collect_only: bool,
}

/// Where the tests run: a fresh copy of the submission per run (nothing a run writes reaches
/// the next), the tests file in it, and the module's name.
struct Bench<'a> {
    root: std::path::PathBuf,
    uid: u32,
    /// The tests file, relative to the copy's working folder.
    rel: std::path::PathBuf,
    /// The module's file name (`battleships.py`; `broadside_wheat.py` for script style).
    module_name: String,
    /// Tests written into the module itself: the module file is the wheat's, apart.
    script: bool,
    env: Vec<(String, String)>,
    spec: &'a TestsSpec,
}

impl Bench<'_> {
    /// The folder of the suites' third-party packages, shown in the tests' jail, if any.
    fn packages_dir(&self) -> Vec<std::path::PathBuf> {
        self.spec
            .python_packages
            .as_ref()
            .and_then(|p| p.dir.clone())
            .into_iter()
            .collect()
    }

    /// The outline of the tests file: Python's parser over it, nothing of it run.
    fn outline(&self) -> Result<Outline, MeasureError> {
        let copy = Copy::new(&self.root, self.uid, &self.packages_dir())?;
        let tests_path = copy.ws.work.join(&self.rel);
        let dir = tests_path.parent().unwrap_or(&copy.ws.work).to_path_buf();
        write_public(&dir.join("broadside_outline.py"), OUTLINE)?;
        write_public(&dir.join("broadside_notebook.py"), NOTEBOOK)?;
        let out = dir.join(".broadside-outline.json");
        let args = vec![
            "-B".into(),
            "-I".into(),
            copy.inside(&dir.join("broadside_outline.py")),
            copy.inside(&tests_path),
            copy.inside(&out),
            if self.script { "script" } else { "pytest" }.into(),
        ];
        let built = copy.run_in(
            &dir,
            &crate::target::python::interpreter(),
            &args,
            &self.env,
            Duration::from_secs(30),
        )?;
        match std::fs::read_to_string(&out) {
            Ok(text) => serde_json::from_str(&text)
                .map_err(|e| format!("the outline of the tests file is not JSON: {e}").into()),
            // A file Python's parser chokes on (nested a million deep) is outlined as empty.
            Err(_) if built.timed_out || built.code != Some(0) => Ok(Outline {
                error: Some("the parser gave up".into()),
                ..Outline::default()
            }),
            Err(e) => Err(format!("the outline of the tests file was not written: {e}").into()),
        }
    }

    /// Runs the tests with `source` as the module, as `plan` says.
    fn run(&self, source: &str, timeout: Duration, plan: &Plan) -> Result<Run, MeasureError> {
        let copy = Copy::new(&self.root, self.uid, &self.packages_dir())?;
        let tests_path = copy.ws.work.join(&self.rel);
        let dir = tests_path.parent().unwrap_or(&copy.ws.work).to_path_buf();
        if !self.script {
            // Every copy of the student's module (any case, any folder: a tests/ package
            // puts the root first on the import path) gives way to the one under test.
            for entry in walkdir::WalkDir::new(&copy.ws.work).follow_links(false) {
                let Ok(entry) = entry else { continue };
                let name = entry.file_name().to_string_lossy();
                if entry.file_type().is_file() && name.eq_ignore_ascii_case(&self.module_name) {
                    write_public(entry.path(), source)?;
                }
            }
        }
        write_public(&dir.join(&self.module_name), source)?;
        write_public(&dir.join("broadside_pytest.py"), PLUGIN)?;
        write_public(&dir.join("broadside_script.py"), SCRIPT)?;
        write_public(&dir.join("broadside_notebook.py"), NOTEBOOK)?;
        write_public(&dir.join("broadside-pytest.ini"), "[pytest]\n")?;
        let tests_file = tests_path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let out = dir.join(".broadside-marking.jsonl");
        let inside = |p: &Path| copy.inside(p);
        let mut env = self.env.clone();
        let args = self.command(&dir, &tests_file, plan, &inside, &mut env);
        // The suites' third-party packages after the tests' folder, as the children that
        // play the scenarios have them (see crate::target::packages).
        let mut path = inside(&dir);
        if let Some(p) = &self.spec.python_packages {
            for (key, value) in p.env() {
                match key.as_str() {
                    "PYTHONPATH" => path = format!("{path}:{value}"),
                    _ => env.push((key, value)),
                }
            }
        }
        env.push(("PYTHONPATH".into(), path));
        env.push(("BROADSIDE_MARKING_OUT".into(), inside(&out)));
        let built = match copy.run_in(
            &dir,
            &crate::target::python::interpreter(),
            &args,
            &env,
            timeout,
        ) {
            Ok(b) => b,
            // Tests that fork until the wait fails end the run; what they reported stands.
            Err(e) if e.0.contains("No child processes") => crate::target::build::BuildRun {
                code: None,
                timed_out: false,
                output: String::new(),
                leftovers: Vec::new(),
            },
            Err(e) => return Err(e),
        };
        read_run(&out, &built, plan)
    }

    /// Python's arguments for a run in `dir` of the tests in `tests_file` as `plan` says:
    /// broadside's script runner (script style; what it must pass or skip said in `env`),
    /// or pytest with broadside's plugin, on the file or on exactly the tests named.
    fn command(
        &self,
        dir: &Path,
        tests_file: &str,
        plan: &Plan,
        inside: &dyn Fn(&Path) -> String,
        env: &mut Vec<(String, String)>,
    ) -> Vec<String> {
        if self.script {
            if let Some(must) = &plan.must_pass {
                env.push((
                    "BROADSIDE_MARKING_MUST_PASS".into(),
                    serde_json::to_string(must).unwrap_or_else(|_| "[]".into()),
                ));
            }
            env.push((
                "BROADSIDE_MARKING_SKIP".into(),
                serde_json::to_string(&plan.skip).unwrap_or_else(|_| "[]".into()),
            ));
            vec![
                "-B".into(),
                inside(&dir.join("broadside_script.py")),
                inside(&dir.join(tests_file)),
                inside(&dir.join(&self.module_name)),
            ]
        } else {
            let mut args: Vec<String> = vec![
                "-B".into(),
                "-m".into(),
                "pytest".into(),
                "-q".into(),
                "-p".into(),
                "no:cacheprovider".into(),
                "-p".into(),
                "broadside_pytest".into(),
                "-c".into(),
                inside(&dir.join("broadside-pytest.ini")),
                "--rootdir".into(),
                inside(dir),
            ];
            match &plan.must_pass {
                // Exactly these tests, each named: one that does not exist is a usage error
                // (exit 4), one that fails exit 1.
                Some(ids) => {
                    args.push(
                        if plan.collect_only {
                            "--collect-only"
                        } else {
                            "-x"
                        }
                        .into(),
                    );
                    let base = inside(dir);
                    args.extend(ids.iter().map(|id| format!("{base}/{id}")));
                }
                None => args.push(inside(&dir.join(tests_file))),
            }
            args
        }
    }

    /// Whether a run of exactly `plan`'s tests on `source` passed: its exit status, which
    /// is all that is taken from it.
    fn holds(&self, source: &str, timeout: Duration, plan: &Plan) -> Result<bool, MeasureError> {
        let run = self.run(source, timeout, plan)?;
        Ok(!run.timed_out && run.code == Some(0))
    }

    /// Whether a run of exactly `plan`'s tests on `source` failed: a test failed (exit 1),
    /// or the run did not finish or was killed. A run that cannot find a test (pytest's
    /// usage error, exit 4: a test whose name or cases follow the module's source) or that
    /// stops at collection fails nothing.
    fn fails(&self, source: &str, timeout: Duration, plan: &Plan) -> Result<bool, MeasureError> {
        let run = self.run(source, timeout, plan)?;
        Ok(run.timed_out || matches!(run.code, Some(1) | None))
    }
}

impl Outline {
    /// Keeps the claims of tests written in the tests file (`file`, shown as `shown_file`),
    /// each named by where it is written and credited only with calls of required functions
    /// it names; the rest are counted as made at collection (their distinct ids returned).
    /// One record per test id, in the order ids first came: the last record's outcome,
    /// message and calls (as [`Run::outcome`] reads them), every record's broken
    /// assumptions. Linear in the records, which the tests can write by the million.
    fn sift(&self, run: Run, file: &str, shown_file: &str, script: bool) -> (Run, Vec<String>) {
        let mut kept: Vec<Record> = Vec::new();
        let mut index: std::collections::HashMap<String, usize> = Default::default();
        let mut made: Vec<String> = Vec::new();
        let mut made_seen: std::collections::HashSet<String> = Default::default();
        for mut r in run.tests {
            let id = r.test.clone().unwrap_or_default();
            let place = if script {
                match id.strip_prefix("line ") {
                    Some(n) => self
                        .checks
                        .iter()
                        .find(|c| n.parse() == Ok(c.line))
                        .map(|c| (c.line, &c.mentions)),
                    None => self
                        .tests
                        .iter()
                        .rev()
                        .find(|t| t.name == id)
                        .map(|t| (t.line, &t.mentions)),
                }
            } else if r.file.replace('\\', "/") == file {
                self.tests
                    .iter()
                    .find(|t| (t.first..=t.line).contains(&r.line))
                    .map(|t| (t.line, &t.mentions))
            } else {
                None
            };
            let Some((line, mentions)) = place else {
                if made_seen.insert(id.clone()) {
                    made.push(id);
                }
                continue;
            };
            r.shown = self.place(shown_file, line);
            r.at = line;
            r.calls.retain(|c| mentions.contains(c));
            r.broke.retain(|b| mentions.contains(&b.function));
            match index.get(&id) {
                Some(&i) => {
                    let earlier = &mut kept[i];
                    earlier.outcome = r.outcome;
                    earlier.message = r.message;
                    earlier.calls = r.calls;
                    earlier.broke.append(&mut r.broke);
                }
                None => {
                    index.insert(id, kept.len());
                    kept.push(r);
                }
            }
        }
        (Run { tests: kept, ..run }, made)
    }
}

fn write_public(path: &Path, text: &str) -> Result<(), MeasureError> {
    crate::target::workspace::write_readable(path, text)
        .map_err(|e| format!("cannot write {}: {e}", path.display()).into())
}

fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The student-tests figure of the submission at `root`.
///
/// Errors: the grader could not run the tests (no pytest, a folder it cannot prepare).
pub fn figure(
    spec: &FigureSpec,
    tests: &TestsSpec,
    wheat: &str,
    root: &Path,
    uid: u32,
) -> Result<Figure, MeasureError> {
    let script = tests.style == super::scheme::TestsStyle::Script;
    let Some(file) = tests_file(root, tests, script) else {
        let mut f = spec.figure(
            FigureState::Missing,
            format!("no {} in the submission", tests.tests),
        );
        f.lines.push(tests.testable_clause.clone());
        return Ok(f);
    };
    let bench = Bench::new(root, &file, tests, uid, script);
    let shown_file = shown(root, &file);
    let outline = bench.outline()?;
    let start = Instant::now();
    let first = bench.run(wheat, WHEAT_TIMEOUT, &Plan::default())?;
    let took = start.elapsed();
    let tests_file = bench
        .rel
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let (mut on_wheat, made) = outline.sift(first, &tests_file, &shown_file, script);
    let mut notes = Vec::new();
    let census = census(&bench, wheat, &mut on_wheat, &made)?;
    let made = if census { made.len() } else { 0 };
    if made > 0 {
        notes.push(format!(
            "{made} test{} made at collection outside the test functions written in {shown_file} {} not counted",
            if made == 1 { "" } else { "s" },
            if made == 1 { "is" } else { "are" }
        ));
    }
    if let Some(e) = &outline.error {
        notes.push(format!("{shown_file} could not be outlined ({e})"));
    }
    let finish = |mut f: Figure, notes: Vec<String>| {
        f.lines.extend(notes);
        f.lines.extend(reads_the_implementation(root, &file, tests));
        if !outline.print_only.is_empty() {
            f.lines.push(print_only_line(&outline));
        }
        f
    };
    if on_wheat.tests.is_empty() {
        let f = no_tests_counted(spec, tests, &on_wheat, census, &shown_file, script);
        return Ok(finish(f, if census { notes } else { Vec::new() }));
    }
    let timeout = (took * 3).clamp(Duration::from_secs(10), WHEAT_TIMEOUT);
    // The tests that passed on the wheat, confirmed by a run of exactly those: the same run,
    // on each chaff, catches it when it fails. The tests' own claims decide nothing.
    let passed: Vec<String> = on_wheat
        .tests
        .iter()
        .filter(|r| r.outcome == "passed")
        .filter_map(|r| r.test.clone())
        .collect();
    let (plan, confirmed) = confirm(&bench, wheat, &on_wheat, &passed, timeout, &mut notes)?;
    // Tests that failed on the wheat by their own account: only they may follow a reading.
    let failing: Vec<String> = on_wheat
        .tests
        .iter()
        .filter(|r| r.outcome == "failed")
        .filter_map(|r| r.test.clone())
        .collect();
    if !confirmed {
        for r in &mut on_wheat.tests {
            if r.outcome == "passed" {
                r.outcome = "failed".into();
                r.message = String::new();
            }
        }
    }
    let sifting = Sifting {
        outline: &outline,
        tests_file: &tests_file,
        shown_file: &shown_file,
        script,
    };
    let readings = reading_runs(&bench, wheat, &sifting, &failing, &plan, timeout)?;
    let mut chaff_runs = Vec::new();
    for c in &bench.spec.chaffs {
        let caught = confirmed
            && !passed.is_empty()
            && bench.fails(&format!("{wheat}\n{}", c.source), timeout, &plan)?;
        chaff_runs.push(Run {
            caught: Some(caught),
            ..Run::default()
        });
    }
    let f = judge(spec, tests, &shown_file, &on_wheat, &readings, &chaff_runs);
    Ok(finish(f, notes))
}

/// Confirms the tests that `passed` on the wheat by their own account: a run of exactly
/// those must pass (at most `MOST_TESTS` of them). Returns that run's plan (which each
/// chaff and reading is run with) and whether they were confirmed; why not is noted.
///
/// Errors: the grader could not run pytest.
fn confirm(
    bench: &Bench,
    wheat: &str,
    on_wheat: &Run,
    passed: &[String],
    timeout: Duration,
    notes: &mut Vec<String>,
) -> Result<(Plan, bool), MeasureError> {
    // Checks that did not finish on the wheat are left out after (script style; a pytest
    // run names the tests it runs).
    let skip: Vec<String> = if bench.script {
        on_wheat
            .tests
            .iter()
            .filter(|r| r.outcome != "passed")
            .filter(|r| r.message.contains("did not finish"))
            .filter_map(|r| r.test.clone())
            .collect()
    } else {
        Vec::new()
    };
    let plan = Plan {
        must_pass: Some(passed.to_vec()),
        skip,
        collect_only: false,
    };
    let confirmed = if passed.is_empty() {
        true
    } else if passed.len() > MOST_TESTS {
        notes.push(format!(
            "{} tests pass on a correct implementation by their own account, more than the {MOST_TESTS} broadside confirms: none is counted",
            passed.len()
        ));
        false
    } else {
        let holds = bench.holds(wheat, timeout, &plan)?;
        if !holds {
            notes.push(
                "the tests that passed on a correct implementation did not all pass when run again by themselves: none is counted (tests that depend on the order they run in, on randomness or on the clock, or that end their own process, are not confirmed)"
                    .to_string(),
            );
        }
        holds
    };
    Ok((plan, confirmed))
}

/// The submission's tests file: the one the scheme names, else (script style) the module
/// itself when it is the submission's only .py file, else a notebook holding the cells of
/// the tests (issue 36): the one named as the module, else the only one.
fn tests_file(root: &Path, tests: &TestsSpec, script: bool) -> Option<std::path::PathBuf> {
    let found = find(root, &tests.tests).into_iter().next().or_else(|| {
        // Tests in the module itself: the module is the submission's only .py file.
        let mine: Vec<_> = find(root, "*.py")
            .into_iter()
            .filter(|p| {
                let n = p
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .to_lowercase();
                !n.starts_with("test_") && !n.starts_with("broadside_") && n != "conftest.py"
            })
            .collect();
        (script && mine.len() == 1).then(|| mine[0].clone())
    });
    // A notebook holding the Step 9 cells, when no .py does (issue 36): the one named as
    // the module, else the only one.
    found.or_else(|| {
        let notebooks = find(root, "*.ipynb");
        let named = notebooks.iter().find(|p| {
            p.file_stem()
                .is_some_and(|s| s.to_string_lossy().eq_ignore_ascii_case(&tests.module))
        });
        match (script, named) {
            (true, Some(p)) => Some(p.clone()),
            (true, None) if notebooks.len() == 1 => Some(notebooks[0].clone()),
            _ => None,
        }
    })
}

impl<'a> Bench<'a> {
    /// The bench for tests `file` of the submission at `root`.
    fn new(root: &Path, file: &Path, tests: &'a TestsSpec, uid: u32, script: bool) -> Bench<'a> {
        let rel = if root.is_file() {
            std::path::PathBuf::from(file.file_name().unwrap_or_default())
        } else {
            file.strip_prefix(root)
                .unwrap_or(Path::new(&tests.tests))
                .to_path_buf()
        };
        let module_name = if script {
            "broadside_wheat.py".to_string()
        } else {
            format!("{}.py", tests.module)
        };
        let assume = serde_json::to_string(&tests.assumptions).unwrap_or_else(|_| "[]".into());
        Bench {
            root: root.to_path_buf(),
            uid,
            rel,
            module_name,
            script,
            env: vec![
                ("PYTHONDONTWRITEBYTECODE".into(), "1".into()),
                ("PYTHONIOENCODING".into(), "utf-8".into()),
                ("BROADSIDE_MARKING_MODULE".into(), tests.module.clone()),
                (
                    "BROADSIDE_MARKING_FUNCTIONS".into(),
                    tests.functions.join(","),
                ),
                ("BROADSIDE_MARKING_ASSUME".into(), assume),
            ],
            spec: tests,
        }
    }
}

/// How a run's results are read against the tests file (see `Outline::sift`).
struct Sifting<'a> {
    outline: &'a Outline,
    tests_file: &'a str,
    shown_file: &'a str,
    script: bool,
}

/// Checks the tests' own account of which tests ran: pytest collects exactly the ids they
/// claim (the notebook runner's ids are checked against the outline already). False, with
/// `on_wheat`'s tests cleared, when it does not: then none is counted. `made`: the tests
/// made at collection outside the test functions written.
///
/// Errors: the grader could not run pytest.
fn census(
    bench: &Bench,
    wheat: &str,
    on_wheat: &mut Run,
    made: &[String],
) -> Result<bool, MeasureError> {
    let mut claimed: Vec<String> = on_wheat
        .tests
        .iter()
        .filter_map(|r| r.test.clone())
        .collect();
    let written: std::collections::HashSet<&String> = claimed.iter().collect();
    let also: Vec<String> = made
        .iter()
        .filter(|id| !written.contains(id))
        .cloned()
        .collect();
    claimed.extend(also);
    let census = bench.script
        || claimed.is_empty()
        || (claimed.len() <= MOST_TESTS
            && bench.holds(
                wheat,
                WHEAT_TIMEOUT,
                &Plan {
                    must_pass: Some(claimed.clone()),
                    skip: Vec::new(),
                    collect_only: true,
                },
            )?);
    if !census {
        on_wheat.tests.clear();
    }
    Ok(census)
}

/// The figure of tests of which none is counted, with why: none found, none loading on
/// the wheat, none finishing, or (`census` false) tests pytest does not find.
fn no_tests_counted(
    spec: &FigureSpec,
    tests: &TestsSpec,
    on_wheat: &Run,
    census: bool,
    shown_file: &str,
    script: bool,
) -> Figure {
    let why = match on_wheat.collect_errors.first() {
        _ if !census => format!(
            "{shown_file} ran tests that pytest does not find in it, by its own account: none is counted"
        ),
        Some(e) => format!(
            "{shown_file} does not load on a correct implementation: {}",
            collect_error_kind(e)
        ),
        None if on_wheat.timed_out => format!(
            "{shown_file} did not finish within {} s on a correct implementation",
            WHEAT_TIMEOUT.as_secs()
        ),
        None if script => format!("{shown_file} has no assert that checks a result"),
        None => format!("{shown_file} has no tests pytest can find"),
    };
    let mut f = spec.figure(FigureState::Short, why);
    f.numbers = BTreeMap::from([
        ("tests".to_string(), 0.0),
        ("passing".to_string(), 0.0),
        ("chaffs".to_string(), tests.chaffs.len() as f64),
        ("caught".to_string(), 0.0),
    ]);
    f
}

/// The runs of the wheat changed to each other reading of the handout the scheme names:
/// the tests that failed on the wheat (`failing`) and pass on the reading, confirmed by a
/// run of exactly those, follow that reading (they are not counted wrong).
///
/// Errors: the grader could not run pytest.
fn reading_runs(
    bench: &Bench,
    wheat: &str,
    sifting: &Sifting,
    failing: &[String],
    plan: &Plan,
    timeout: Duration,
) -> Result<Vec<(String, Run)>, MeasureError> {
    let mut readings = Vec::new();
    for r in &bench.spec.readings {
        let source = format!("{wheat}\n{}", r.source);
        let first = bench.run(&source, timeout, &Plan::default())?;
        let (claims, _) = sifting.outline.sift(
            first,
            sifting.tests_file,
            sifting.shown_file,
            sifting.script,
        );
        // This run's claims are not checked by pytest's collection: look them up by id.
        let claimed_right: std::collections::HashSet<&str> = claims
            .tests
            .iter()
            .filter(|c| c.outcome == "passed")
            .filter_map(|c| c.test.as_deref())
            .collect();
        let right: Vec<String> = failing
            .iter()
            .filter(|id| claimed_right.contains(id.as_str()))
            .cloned()
            .collect();
        let right_set: std::collections::HashSet<&String> = right.iter().collect();
        let holds = !right.is_empty()
            && right.len() <= MOST_TESTS
            && bench.holds(
                &source,
                timeout,
                &Plan {
                    must_pass: Some(right.clone()),
                    skip: plan.skip.clone(),
                    collect_only: false,
                },
            )?;
        let tests = if holds {
            claims
                .tests
                .into_iter()
                .filter(|c| c.test.as_ref().is_some_and(|t| right_set.contains(t)))
                .collect()
        } else {
            Vec::new()
        };
        readings.push((
            r.decision.clone(),
            Run {
                tests,
                ..Run::default()
            },
        ));
    }
    Ok(readings)
}

/// What a test file that does not load says in a view a student sees: the kind of error
/// only (`SyntaxError`), never its text, which a test file can fill with the wheat's source.
fn collect_error_kind(error: &str) -> String {
    let last = last_lines(error, 1);
    match known_exception(&last) {
        Some(kind) => kind.to_string(),
        None => "it raised an error while pytest collected it".to_string(),
    }
}

/// The name of a builtin exception (or pytest's `Failed`) a message starts with, or that
/// follows a `file:line: ` prefix: a fixed list, so no name a test made up reaches a view.
fn known_exception(message: &str) -> Option<&'static str> {
    const KNOWN: &[&str] = &[
        "AssertionError",
        "AttributeError",
        "ImportError",
        "IndexError",
        "KeyError",
        "ModuleNotFoundError",
        "NameError",
        "NotImplementedError",
        "RecursionError",
        "RuntimeError",
        "StopIteration",
        "SyntaxError",
        "IndentationError",
        "TypeError",
        "UnboundLocalError",
        "ValueError",
        "ZeroDivisionError",
        "Failed",
    ];
    static LOCATED: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let located =
        LOCATED.get_or_init(|| regex::Regex::new(r"^[^\s:]+:\d+: ").expect("a valid pattern"));
    let message = located.replace(message.trim(), "");
    KNOWN.iter().copied().find(|k| {
        message.starts_with(k)
            && message[k.len()..]
                .chars()
                .next()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
    })
}

/// The files whose text [`reads_the_implementation`] reads: the tests file and every other
/// `.py` of the submission but the module under test (hidden folders and deep ones
/// included: a helper can be imported from anywhere the tests put on the import path); and
/// the compiled code Python can import, whose text cannot be read.
fn files_to_read(
    root: &Path,
    tests_file: &Path,
    tests: &TestsSpec,
) -> (Vec<std::path::PathBuf>, Vec<String>) {
    let module_file = format!("{}.py", tests.module).to_lowercase();
    let is_module = |p: &Path| {
        p.file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_lowercase()
            == module_file
    };
    let mut files = vec![tests_file.to_path_buf()];
    let mut compiled = Vec::new();
    let all: Vec<std::path::PathBuf> = if root.is_dir() {
        walkdir::WalkDir::new(root)
            .follow_links(false)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(walkdir::DirEntry::into_path)
            .take(20_000)
            .collect()
    } else {
        Vec::new()
    };
    for other in all {
        let name = other
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_lowercase();
        let in_cache = other
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d == "__pycache__");
        if name.ends_with(".py") && other != tests_file && !is_module(&other) {
            files.push(other);
        } else if (name.ends_with(".pyc") || name.ends_with(".pyo")) && !in_cache
            || name.ends_with(".so")
            || name.ends_with(".pyd")
        {
            // Python imports a .pyc outside __pycache__ without its source, and a native
            // module: code whose text the marker cannot read.
            compiled.push(shown(root, &other));
        }
    }
    (files, compiled)
}

/// Lines of the student's Python files that run with the tests (the tests file, any
/// `conftest.py`, helper modules; not the module under test, which the runs replace) that
/// look at the implementation's source or broadside's files instead of its behaviour, or that
/// end their own process or build code at run time: a suite can tell the wheat from a chaff
/// that way, or make a run look as it likes, so the marker is told where. Tests run in the
/// same process as what they test, so nothing stops them; this says where to look.
fn reads_the_implementation(root: &Path, tests_file: &Path, tests: &TestsSpec) -> Vec<String> {
    let reads = r"(?i)(getsource|getsourcelines|getfile|hashlib|__file__|__code__|co_firstlineno|co_code|__loader__|get_source|broadside|\binspect\b|\blinecache\b|\bimportlib\b|\bmarshal\b|\bimport\s+dis\b|\bdis\.|\bFileIO\b|\bos\.open\b|\bos\.read\b|\bgetsize\b|\bstat\s*\(|read_bytes|read_text\s*\(|sys\.modules|sys\.argv|\bopen\s*\(|\bgetattr\s*\(|\bglobals\s*\(|\bvars\s*\()";
    let ends = r"(\bimport\s+__main__\b|\bfrom\s+__main__\b|\b_getframe\b|\bf_back\b|\bf_globals\b|\bgc\.|\b_exit\b|\bsys\.exit\b|\bos\.kill\b|\bkillpg\b|\bsignal\.|\babort\s*\(|\b__import__\b|\bexec\s*\(|\beval\s*\(|\bcompile\s*\(|\bsetprofile\b|\bsettrace\b|pytest_runtest_makereport|pytest_runtest_logreport|pytest_report_teststatus|pytest_runtest_protocol|pytest_pyfunc_call|pytest_sessionfinish|pytest_collection_modifyitems|\bexitstatus\b|\.outcome\s*=|\blongrepr\b)";
    // Fixed patterns: a broken one is broadside's bug, caught by the tests below.
    let reads = regex::Regex::new(reads).expect("a valid pattern");
    let ends = regex::Regex::new(ends).expect("a valid pattern");
    let (files, mut compiled) = files_to_read(root, tests_file, tests);
    let mut out = Vec::new();
    for file in files.iter().take(2_000) {
        let text = read_lossy(file);
        // A notebook is read cell by cell, as the student sees it; the handout's supplied
        // interface cell (Step 10: "already implemented. You do not need to write or modify
        // it"), which reads `globals()`, is not the student's code.
        let is_notebook = file
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("ipynb"));
        let parts: Vec<(Option<usize>, String)> = if is_notebook {
            notebook_cells(&text)
                .into_iter()
                .filter(|(_, source)| !source.contains("def play_battleship("))
                .map(|(n, source)| (Some(n), source))
                .collect()
        } else {
            vec![(None, text)]
        };
        for (pattern, what) in [
            (&reads, "reads source files or broadside's own files"),
            (
                &ends,
                "ends its own process, changes how pytest reports, reaches into the process's other code, or builds or watches code at run time",
            ),
        ] {
            let at: Vec<String> = parts
                .iter()
                .flat_map(|(cell, text)| {
                    text.lines()
                        .enumerate()
                        .filter(|(_, l)| pattern.is_match(l))
                        .map(move |(i, _)| match cell {
                            Some(n) => format!("cell {n} line {}", i + 1),
                            None => (i + 1).to_string(),
                        })
                })
                .take(6)
                .collect();
            if !at.is_empty() {
                out.push(format!(
                    "{} {what} ({}{}): the marker should check that its tests judge behaviour",
                    shown(root, file),
                    if is_notebook { "" } else { "line " },
                    at.join(", ")
                ));
            }
        }
    }
    if !compiled.is_empty() {
        compiled.sort();
        out.push(format!(
            "the submission ships compiled code Python can import ({}{}): the marker cannot read what it does",
            compiled.iter().take(4).cloned().collect::<Vec<_>>().join(", "),
            if compiled.len() > 4 { ", …" } else { "" }
        ));
    }
    out
}

/// A notebook's code cells, numbered from 1 as Jupyter numbers them after "Restart and run
/// all" (markdown and empty code cells not counted), with their source; empty when `text` is
/// not a notebook.
fn notebook_cells(text: &str) -> Vec<(usize, String)> {
    let Ok(nb) = serde_json::from_str::<serde_json::Value>(text) else {
        return Vec::new();
    };
    let cells = nb["cells"].as_array().cloned().unwrap_or_default();
    cells
        .iter()
        .filter(|c| c["cell_type"] == "code")
        .map(|c| match &c["source"] {
            serde_json::Value::Array(lines) => {
                lines.iter().filter_map(|l| l.as_str()).collect::<String>()
            }
            other => other.as_str().unwrap_or_default().to_string(),
        })
        // Jupyter runs no empty cell and numbers none (as drivers/python_notebook.py counts).
        .filter(|source| !source.trim().is_empty())
        .enumerate()
        .map(|(i, source)| (i + 1, source))
        .collect()
}

/// What the statements that print instead of assert are worth.
fn print_only_line(outline: &Outline) -> String {
    let lines = &outline.print_only;
    // A notebook's statements by their cell (`cell 14, `print(...)`, line 1`).
    let at: Vec<String> = lines
        .iter()
        .take(8)
        .map(|&l| match outline.cells.is_empty() {
            true => l.to_string(),
            false => outline.place("", l).trim_start_matches(", ").to_string(),
        })
        .collect();
    format!(
        "{} statement{} call{} the functions and only print ({}{}{}): they cannot fail, so they catch no bug; the marker reads their saved outputs",
        lines.len(),
        if lines.len() == 1 { "" } else { "s" },
        if lines.len() == 1 { "s" } else { "" },
        if outline.cells.is_empty() {
            "line "
        } else {
            ""
        },
        at.join(if outline.cells.is_empty() { ", " } else { "; " }),
        if lines.len() > 8 { ", …" } else { "" }
    )
}

/// Lines of one kind, one per test (by where it is written), in the order of the lines they
/// name (never the order the tests ran in, which the tests choose), at most [`MOST_LINES`].
#[derive(Default)]
struct Listed {
    keys: BTreeSet<String>,
    lines: Vec<(u32, String)>,
}

impl Listed {
    fn add(&mut self, key: String, at: u32, line: String) {
        if self.keys.insert(key) {
            self.lines.push((at, line));
        }
    }

    fn into_lines(mut self, what: &str, out: &mut Vec<String>) {
        self.lines.sort();
        let more = self.lines.len().saturating_sub(MOST_LINES);
        out.extend(self.lines.into_iter().take(MOST_LINES).map(|(_, l)| l));
        if more > 0 {
            out.push(format!("… and {more} more {what}"));
        }
    }
}

/// The figure from the runs: tests right on the wheat (or a reading), chaffs caught.
pub(super) fn judge(
    spec: &FigureSpec,
    tests: &TestsSpec,
    file: &str,
    wheat: &Run,
    readings: &[(String, Run)],
    chaffs: &[Run],
) -> Figure {
    let mut ids: Vec<&str> = Vec::new();
    for r in &wheat.tests {
        let id = r.test.as_deref().unwrap_or_default();
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let good: BTreeSet<&str> = ids.iter().copied().filter(|id| wheat.passed(id)).collect();
    // Each kind of line names a test (all its cases) once, and lists at most MOST_LINES.
    let (wrong, wrong_lines, readings_lines) = wrong_on_the_wheat(&ids, &good, wheat, readings);
    let broke_lines = broken_assumptions(wheat, tests);
    // One per test and function, however often the tests say it happened.
    let broke = broke_lines.keys.len() as u32;
    let mut lines = Vec::new();
    for (listed, what) in [
        (wrong_lines, "tests wrong"),
        (broke_lines, "calls that break an assumption"),
        (readings_lines, "tests that follow another reading"),
        (
            idle(&good, wheat),
            "tests that call none of the testable functions",
        ),
    ] {
        listed.into_lines(what, &mut lines);
    }
    let (functions, caught_total) = per_function(tests, &good, wheat, chaffs);
    let enough = functions
        .iter()
        .filter(|r| r.tests >= tests.at_least as usize)
        .count();
    let state = if wrong == 0
        && broke == 0
        && caught_total == tests.chaffs.len()
        && enough == functions.len()
    {
        FigureState::Ok
    } else {
        FigureState::Short
    };
    if wheat.timed_out {
        lines.push(format!("{file} did not finish on a correct implementation"));
    }
    let (noun, enough_words) = match tests.style {
        super::scheme::TestsStyle::Script => ("checks", "are checked".to_string()),
        super::scheme::TestsStyle::Doctest => ("examples", "are checked".to_string()),
        super::scheme::TestsStyle::Pytest => {
            ("tests", format!("have at least {} tests", tests.at_least))
        }
    };
    let noun = if ids.len() == 1 {
        noun.trim_end_matches('s')
    } else {
        noun
    };
    let summary = format!(
        "{} {noun} in {file}, {} pass on a correct implementation; they catch {caught_total} of {} buggy versions; {enough} of {} testable functions {enough_words}",
        ids.len(),
        good.len(),
        tests.chaffs.len(),
        functions.len(),
    );
    let mut f = spec.figure(state, summary);
    f.lines = lines;
    f.numbers = BTreeMap::from([
        ("tests".to_string(), ids.len() as f64),
        ("passing".to_string(), good.len() as f64),
        ("wrong".to_string(), f64::from(wrong)),
        ("chaffs".to_string(), tests.chaffs.len() as f64),
        ("caught".to_string(), caught_total as f64),
        ("assumptions_broken".to_string(), f64::from(broke)),
    ]);
    f.functions = functions;
    f
}

/// The tests (`ids`, those not `good`) that fail on the wheat: how many are wrong, their
/// lines, and the lines of those that follow an accepted other reading instead (right, but
/// catching nothing). Skipped tests are neither.
fn wrong_on_the_wheat(
    ids: &[&str],
    good: &BTreeSet<&str>,
    wheat: &Run,
    readings: &[(String, Run)],
) -> (u32, Listed, Listed) {
    let mut readings_lines = Listed::default();
    let mut wrong_lines = Listed::default();
    let mut wrong = 0;
    for id in ids {
        if good.contains(id) {
            continue;
        }
        let record = wheat.outcome(id);
        if record.is_some_and(|r| r.outcome == "skipped") {
            continue;
        }
        if let Some((decision, _)) = readings.iter().find(|(_, run)| run.passed(id)) {
            readings_lines.add(
                wheat.shown_as(id),
                wheat.at(id),
                format!(
                    "{} follows the accepted other reading `{decision}` (right, but it catches no buggy version)",
                    wheat.shown_as(id)
                ),
            );
            continue;
        }
        wrong += 1;
        let message = record.map(|r| r.message.as_str()).unwrap_or_default();
        let why = if message.contains("did not finish") || message.contains("DidNotFinishError") {
            ": it did not finish within 10 s".to_string()
        } else {
            known_exception(message)
                .map(|k| format!(": {k}"))
                .unwrap_or_default()
        };
        wrong_lines.add(
            wheat.shown_as(id),
            wheat.at(id),
            format!(
                "{} fails on a correct implementation, so it is wrong{why}",
                wheat.shown_as(id)
            ),
        );
    }
    (wrong, wrong_lines, readings_lines)
}

/// The calls the tests made with arguments the handout lets the function assume away, one
/// line per test and function.
fn broken_assumptions(wheat: &Run, tests: &TestsSpec) -> Listed {
    let mut broke_lines = Listed::default();
    for r in &wheat.tests {
        for b in &r.broke {
            let clause = tests
                .assumptions
                .iter()
                .find(|a| a.function == b.function)
                .map_or("", |a| a.clause.as_str());
            broke_lines.add(
                format!("{}\t{}", r.shown, b.function),
                r.at,
                format!(
                    "{} calls {} with arguments that break what the handout lets {} assume ({clause})",
                    r.shown, b.function, b.function
                ),
            );
        }
    }
    broke_lines
}

/// The `good` tests that call none of the testable functions themselves (a test whose
/// every case is idle).
fn idle(good: &BTreeSet<&str>, wheat: &Run) -> Listed {
    let mut idle_lines = Listed::default();
    let busy: BTreeSet<String> = good
        .iter()
        .filter(|id| !wheat.calls(id).is_empty())
        .map(|id| wheat.shown_as(id))
        .collect();
    for id in good {
        if !busy.contains(&wheat.shown_as(id)) {
            idle_lines.add(
                wheat.shown_as(id),
                wheat.at(id),
                format!(
                    "{} calls none of the testable functions itself",
                    wheat.shown_as(id)
                ),
            );
        }
    }
    idle_lines
}

/// Each testable function's row: the `good` tests that call it and the chaffs of it they
/// catch (with what the uncaught ones leave untested); and how many chaffs were caught in
/// all.
fn per_function(
    tests: &TestsSpec,
    good: &BTreeSet<&str>,
    wheat: &Run,
    chaffs: &[Run],
) -> (Vec<FunctionTests>, usize) {
    let mut per: BTreeMap<&str, FunctionTests> = BTreeMap::new();
    for f in &tests.functions {
        per.insert(
            f,
            FunctionTests {
                function: f.clone(),
                tests: good.iter().filter(|id| wheat.calls(id).contains(f)).count(),
                chaffs: 0,
                caught: 0,
                untested: Vec::new(),
            },
        );
    }
    let mut caught_total = 0;
    for (chaff, run) in tests.chaffs.iter().zip(chaffs) {
        let caught = run
            .caught
            .unwrap_or_else(|| good.iter().any(|id| !run.passed(id)));
        let Some(row) = per.get_mut(chaff.function.as_str()) else {
            continue;
        };
        row.chaffs += 1;
        if caught {
            row.caught += 1;
            caught_total += 1;
        } else {
            row.untested.push(format!(
                "{} (the handout: {})",
                chaff.untested, chaff.clause
            ));
        }
    }
    let functions = tests
        .functions
        .iter()
        .filter_map(|f| per.remove(f.as_str()))
        .collect();
    (functions, caught_total)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reading the module under test another way than `open` (importlib, raw file objects
    /// and descriptors, the code object) or reaching the grader's runner is flagged, in the
    /// tests file and in a helper module; the module under test itself is not read.
    #[test]
    fn reading_the_module_through_importlib_or_raw_files_is_flagged() {
        let scheme = super::super::scheme::bundled("solo-10x10").expect("a bundled scheme");
        let tests = scheme.tests.expect("solo-10x10 has a tests figure");
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let file = root.join("test_battleships.py");
        std::fs::write(
            &file,
            "import importlib.util\nfrom battleships import *\n\n\ndef test_a():\n    assert hit\n",
        )
        .unwrap();
        std::fs::write(
            root.join("helpers.py"),
            "import io, os\nA = io.FileIO('x').read()\nB = os.read(os.open('x', 0), 9)\nC = hit.__code__.co_code\nP = 'battle' + 'ships.py'\nD = open(P).read()\n",
        )
        .unwrap();
        std::fs::write(root.join("battleships.py"), "import inspect\n").unwrap();
        let lines = reads_the_implementation(root, &file, &tests);
        assert_eq!(
            lines,
            [
                "test_battleships.py reads source files or broadside's own files (line 1): the marker should check that its tests judge behaviour",
                "helpers.py reads source files or broadside's own files (line 2, 3, 4, 6): the marker should check that its tests judge behaviour",
            ],
            "{lines:#?}"
        );
    }

    #[test]
    fn only_known_exception_names_are_shown() {
        assert_eq!(
            known_exception("test_x.py:12: AssertionError"),
            Some("AssertionError")
        );
        assert_eq!(known_exception("KeyError: 'x'"), Some("KeyError"));
        assert_eq!(known_exception("Failed: anything at all"), Some("Failed"));
        assert_eq!(known_exception("AssertionErrorLEAK def is_sunk"), None);
        assert_eq!(known_exception("Def_is_sunk_Error: x"), None);
        assert_eq!(known_exception("test_x.py:12: DefIsSunkError"), None);
    }
}
