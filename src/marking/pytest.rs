//! A student's own tests graded as Examplar grades tests (a pytest file, or for colab-6x6 the
//! asserts the notebook itself holds, run by `drivers/marking_script.py`): run against the wheat (a correct
//! implementation: a test that fails there is wrong), the spec's accepted other readings, and
//! each chaff (one function with one rule broken: a good suite fails on it). Per testable
//! function: the tests that call it, the chaffs they catch, and, in the student's words to
//! act on, what no test checks.

use super::scheme::{FigureSpec, TestsSpec};
use super::sheet::{Figure, FigureState, FunctionTests};
use super::tools::{Copy, find, read_lossy, shown};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

/// The plugin that reports each test (`drivers/pytest_marking.py`).
pub const PLUGIN: &str = include_str!("../../drivers/pytest_marking.py");

/// The runner of tests written into the module itself (`drivers/marking_script.py`).
pub const SCRIPT: &str = include_str!("../../drivers/marking_script.py");

/// Wall-clock time the tests may take on the wheat.
const WHEAT_TIMEOUT: Duration = Duration::from_secs(60);

/// One line of the plugin's output.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct Record {
    #[serde(default)]
    test: Option<String>,
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
    /// A statement that calls a required function without an assert (script style).
    #[serde(default)]
    print_only: Option<u32>,
}

#[derive(Debug, Clone, Deserialize)]
struct Broke {
    function: String,
    call: String,
}

/// What one run of the tests saw: outcome by test id, in order.
#[derive(Debug, Default)]
pub(super) struct Run {
    tests: Vec<Record>,
    collect_errors: Vec<String>,
    print_only: Vec<u32>,
    timed_out: bool,
}

impl Run {
    /// A run from outcomes found another way (doctest examples in GHCi): `(id, line,
    /// outcome, functions it names, message)`.
    pub(super) fn of(outcomes: Vec<(String, u32, &str, Vec<String>, String)>) -> Run {
        Run {
            tests: outcomes
                .into_iter()
                .map(|(id, line, outcome, calls, message)| Record {
                    test: Some(id),
                    line,
                    outcome: outcome.to_string(),
                    calls,
                    broke: Vec::new(),
                    message,
                    collect_error: None,
                    print_only: None,
                })
                .collect(),
            ..Run::default()
        }
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
    /// Runs the tests with `source` as the module.
    fn run(&self, source: &str, timeout: Duration) -> Result<Run, String> {
        let copy = Copy::new(&self.root, self.uid, &[])?;
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
        write_public(&dir.join("broadside-pytest.ini"), "[pytest]\n")?;
        let module_file = dir.join(&self.module_name);
        let tests_file = tests_path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let out = dir.join(".broadside-marking.jsonl");
        let inside = |p: &Path| copy.inside(p);
        let args: Vec<String> = if self.script {
            vec![
                "-B".into(),
                inside(&dir.join("broadside_script.py")),
                inside(&dir.join(&tests_file)),
                inside(&module_file),
            ]
        } else {
            vec![
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
                inside(&dir),
                inside(&dir.join(&tests_file)),
            ]
        };
        let mut env = self.env.clone();
        env.push(("PYTHONPATH".into(), inside(&dir)));
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
            Err(e) if e.contains("No child processes") => crate::target::build::BuildRun {
                code: None,
                timed_out: false,
                output: String::new(),
                leftovers: Vec::new(),
            },
            Err(e) => return Err(e),
        };
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        let mut run = Run {
            timed_out: built.timed_out,
            ..Run::default()
        };
        for line in text.lines() {
            let Ok(r) = serde_json::from_str::<Record>(line) else {
                continue;
            };
            if let Some(line) = r.print_only {
                run.print_only.push(line);
            } else if let Some(e) = r.collect_error {
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
            if !built.timed_out && built.code != Some(5) {
                run.collect_errors.push(last_lines(&built.output, 6));
            }
        }
        Ok(run)
    }
}

fn write_public(path: &Path, text: &str) -> Result<(), String> {
    crate::target::workspace::write_readable(path, text)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
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
) -> Result<Figure, String> {
    let script = tests.style == super::scheme::TestsStyle::Script;
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
    let Some(file) = found else {
        let mut f = spec.figure(
            FigureState::Missing,
            format!("no {} in the submission", tests.tests),
        );
        f.lines.push(tests.testable_clause.clone());
        return Ok(f);
    };
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
    let bench = Bench {
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
    };
    let start = Instant::now();
    let on_wheat = bench.run(wheat, WHEAT_TIMEOUT)?;
    let took = start.elapsed();
    let shown_file = shown(root, &file);
    if on_wheat.tests.is_empty() {
        let why = match on_wheat.collect_errors.first() {
            Some(e) => format!(
                "{shown_file} does not load on a correct implementation: {}",
                last_lines(e, 1)
            ),
            None if on_wheat.timed_out => format!(
                "{shown_file} did not finish within {} s on a correct implementation",
                WHEAT_TIMEOUT.as_secs()
            ),
            None if script => format!("{shown_file} has no assert that checks a result"),
            None => format!("{shown_file} has no tests pytest can find"),
        };
        let mut f = spec.figure(FigureState::Short, why);
        if !on_wheat.print_only.is_empty() {
            f.lines.push(print_only_line(&on_wheat.print_only));
        }
        return Ok(f);
    }
    let timeout = (took * 3).clamp(Duration::from_secs(10), WHEAT_TIMEOUT);
    // A test that does not finish on the wheat is wrong and can catch nothing: the later runs
    // leave it out rather than wait for it again.
    let hung: Vec<&str> = on_wheat
        .tests
        .iter()
        .filter(|r| r.message.contains("DidNotFinishError"))
        .filter_map(|r| r.test.as_deref())
        .collect();
    let mut bench = bench;
    bench.env.push((
        "BROADSIDE_MARKING_SKIP".into(),
        serde_json::to_string(&hung).unwrap_or_else(|_| "[]".into()),
    ));
    let bench = bench;
    let mut readings = Vec::new();
    for r in &bench.spec.readings {
        readings.push((
            r.decision.clone(),
            bench.run(&format!("{wheat}\n{}", r.source), timeout)?,
        ));
    }
    let mut chaff_runs = Vec::new();
    for c in &bench.spec.chaffs {
        chaff_runs.push(bench.run(&format!("{wheat}\n{}", c.source), timeout)?);
    }
    let mut f = judge(spec, tests, &shown_file, &on_wheat, &readings, &chaff_runs);
    f.lines.extend(reads_the_implementation(root, &file, tests));
    if !on_wheat.print_only.is_empty() {
        f.lines.push(print_only_line(&on_wheat.print_only));
    }
    Ok(f)
}

/// A test's id as a student may see it: its parameters (which a test can fill with anything,
/// the implementation under test's source among it) cut to `[…]`.
fn display_id(id: &str) -> String {
    match id.find('[') {
        Some(i) => format!("{}[…]", &id[..i]),
        None => id.to_string(),
    }
}

/// What a failure on the wheat may say in a view a student sees: where and which exception
/// (`test_battleships.py:96: AssertionError`), never the text a test chose, which could
/// carry the wheat's source.
fn safe_message(message: &str) -> String {
    let located = regex::Regex::new(r"^[\w./-]+:\d+: ([\w.]+)$").expect("a valid pattern");
    let typed = regex::Regex::new(r"^([A-Z]\w*(?:Error|Exception|Exit|Interrupt))\b")
        .expect("a valid pattern");
    if message.contains("DidNotFinishError") {
        "it did not finish within 10 s".to_string()
    } else if located.is_match(message.trim()) {
        message.trim().to_string()
    } else if let Some(c) = typed.captures(message.trim()) {
        c[1].to_string()
    } else {
        String::new()
    }
}

/// Lines of the tests (and any `conftest.py`) that look at the implementation's source or at
/// broadside's files instead of its behaviour: a suite can tell the wheat from a chaff that
/// way, so the marker is told where. Tests run in the same process as what they test, so
/// nothing stops them; this says where to look.
fn reads_the_implementation(root: &Path, tests_file: &Path, tests: &TestsSpec) -> Vec<String> {
    let module = regex::escape(&tests.module);
    let pattern = format!(
        r"(?i)(getsource|getsourcelines|hashlib|__file__|broadside|open\s*\([^)]*{module}|read_text\s*\()"
    );
    let Ok(looks) = regex::Regex::new(&pattern) else {
        return Vec::new();
    };
    let mut files = vec![tests_file.to_path_buf()];
    files.extend(find(root, "conftest.py"));
    let mut out = Vec::new();
    for file in files {
        let text = read_lossy(&file);
        let at: Vec<String> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| looks.is_match(l))
            .map(|(i, _)| (i + 1).to_string())
            .take(6)
            .collect();
        if !at.is_empty() {
            out.push(format!(
                "{} reads source files or broadside's own files (line {}): the marker should check that its tests judge behaviour",
                shown(root, &file),
                at.join(", ")
            ));
        }
    }
    out
}

/// What the statements that print instead of assert are worth.
fn print_only_line(lines: &[u32]) -> String {
    let at: Vec<String> = lines.iter().take(8).map(|l| l.to_string()).collect();
    format!(
        "{} statement{} call{} the functions and only print (line {}{}): they cannot fail, so they catch no bug; the marker reads their saved outputs",
        lines.len(),
        if lines.len() == 1 { "" } else { "s" },
        if lines.len() == 1 { "s" } else { "" },
        at.join(", "),
        if lines.len() > 8 { ", …" } else { "" }
    )
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
    let mut lines = Vec::new();
    let mut wrong = 0;
    for id in &ids {
        if good.contains(id) {
            continue;
        }
        let record = wheat.outcome(id);
        if record.is_some_and(|r| r.outcome == "skipped") {
            continue;
        }
        if let Some((decision, _)) = readings.iter().find(|(_, run)| run.passed(id)) {
            lines.push(format!(
                "{} follows the accepted other reading `{decision}` (right, but it catches no buggy version)",
                display_id(id)
            ));
            continue;
        }
        wrong += 1;
        let why = record.map(|r| safe_message(&r.message)).unwrap_or_default();
        let why = if why.is_empty() {
            why
        } else {
            format!(": {why}")
        };
        lines.push(format!(
            "{}{} fails on a correct implementation, so it is wrong{}",
            display_id(id),
            if id.starts_with("line ") {
                String::new()
            } else {
                format!(" (line {})", record.map_or(0, |r| r.line))
            },
            why
        ));
    }
    let mut broke = 0;
    for r in &wheat.tests {
        for b in &r.broke {
            broke += 1;
            let clause = tests
                .assumptions
                .iter()
                .find(|a| a.function == b.function)
                .map_or("", |a| a.clause.as_str());
            lines.push(format!(
                "{} calls {}, which breaks what the handout lets {} assume ({clause})",
                display_id(r.test.as_deref().unwrap_or_default()),
                b.call,
                b.function
            ));
        }
    }
    let calls = |id: &str| -> Vec<String> {
        wheat
            .outcome(id)
            .map(|r| r.calls.clone())
            .unwrap_or_default()
    };
    for id in &good {
        if calls(id).is_empty() {
            lines.push(format!(
                "{} calls none of the testable functions itself",
                display_id(id)
            ));
        }
    }
    let mut per: BTreeMap<&str, FunctionTests> = BTreeMap::new();
    for f in &tests.functions {
        per.insert(
            f,
            FunctionTests {
                function: f.clone(),
                tests: good.iter().filter(|id| calls(id).contains(f)).count(),
                chaffs: 0,
                caught: 0,
                untested: Vec::new(),
            },
        );
    }
    let mut caught_total = 0;
    for (chaff, run) in tests.chaffs.iter().zip(chaffs) {
        let caught = good.iter().any(|id| !run.passed(id));
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
    let functions: Vec<FunctionTests> = tests
        .functions
        .iter()
        .filter_map(|f| per.remove(f.as_str()))
        .collect();
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
