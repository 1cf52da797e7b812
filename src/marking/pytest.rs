//! A student's own tests graded as Examplar grades tests (a pytest file, or for colab-6x6 the
//! asserts the notebook itself holds, run by `drivers/marking_script.py`): run against the wheat (a correct
//! implementation: a test that fails there is wrong), the spec's accepted other readings, and
//! each chaff (one function with one rule broken: a good suite fails on it). Per testable
//! function: the tests that call it, the chaffs they catch, and, in the student's words to
//! act on, what no test checks.

use super::scheme::{FigureSpec, TestsSpec};
use super::sheet::{Figure, FigureState, FunctionTests};
use super::tools::{Copy, find, shown};
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

/// Where the tests run: the copy, the tests' folder in it, the module file there.
struct Bench<'a> {
    copy: Copy,
    dir: std::path::PathBuf,
    tests_file: String,
    module_file: std::path::PathBuf,
    /// Tests written into the module itself: the module file is the wheat's, apart.
    script: bool,
    env: Vec<(String, String)>,
    spec: &'a TestsSpec,
}

impl Bench<'_> {
    /// Runs the tests with `source` as the module.
    fn run(&self, source: &str, timeout: Duration) -> Result<Run, String> {
        let out = self.dir.join(".broadside-marking.jsonl");
        let _ = std::fs::remove_file(&out);
        write_public(&self.module_file, source)?;
        let inside = |p: &Path| self.copy.inside(p);
        let args: Vec<String> = if self.script {
            vec![
                "-B".into(),
                inside(&self.dir.join("broadside_script.py")),
                inside(&self.dir.join(&self.tests_file)),
                inside(&self.module_file),
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
                inside(&self.dir.join("broadside-pytest.ini")),
                "--rootdir".into(),
                inside(&self.dir),
                inside(&self.dir.join(&self.tests_file)),
            ]
        };
        let mut env = self.env.clone();
        env.push(("BROADSIDE_MARKING_OUT".into(), inside(&out)));
        let built = self.copy.run_in(
            &self.dir,
            &crate::target::python::interpreter(),
            &args,
            &env,
            timeout,
        )?;
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
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644))
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
        let mut f = Figure::new(
            spec,
            FigureState::Missing,
            format!("no {} in the submission", tests.tests),
        );
        f.lines.push(tests.testable_clause.clone());
        return Ok(f);
    };
    let copy = Copy::new(root, uid, &[])?;
    let rel = file.strip_prefix(root).unwrap_or(Path::new(&tests.tests));
    let in_copy = if root.is_file() {
        copy.ws.work.join(file.file_name().unwrap_or_default())
    } else {
        copy.ws.work.join(rel)
    };
    let dir = in_copy.parent().unwrap_or(&copy.ws.work).to_path_buf();
    // The student's own module (any case) gives way to the one under test; tests written
    // into the module keep it, and the implementation under test goes beside it.
    let module_name = if script {
        "broadside_wheat.py".to_string()
    } else {
        format!("{}.py", tests.module)
    };
    for entry in std::fs::read_dir(&dir).map_err(|e| format!("cannot read the copy: {e}"))? {
        let path = entry
            .map_err(|e| format!("cannot read the copy: {e}"))?
            .path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.eq_ignore_ascii_case(&module_name) && !script {
            let _ = std::fs::remove_file(&path);
        }
    }
    write_public(&dir.join("broadside_pytest.py"), PLUGIN)?;
    write_public(&dir.join("broadside_script.py"), SCRIPT)?;
    write_public(&dir.join("broadside-pytest.ini"), "[pytest]\n")?;
    let assume = serde_json::to_string(&tests.assumptions).unwrap_or_else(|_| "[]".into());
    let bench = Bench {
        env: vec![
            ("PYTHONPATH".into(), copy.inside(&dir)),
            ("PYTHONDONTWRITEBYTECODE".into(), "1".into()),
            ("PYTHONIOENCODING".into(), "utf-8".into()),
            ("BROADSIDE_MARKING_MODULE".into(), tests.module.clone()),
            (
                "BROADSIDE_MARKING_FUNCTIONS".into(),
                tests.functions.join(","),
            ),
            ("BROADSIDE_MARKING_ASSUME".into(), assume),
        ],
        module_file: dir.join(&module_name),
        tests_file: in_copy
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned(),
        dir,
        copy,
        spec: tests,
        script,
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
        let mut f = Figure::new(spec, FigureState::Short, why);
        if !on_wheat.print_only.is_empty() {
            f.lines.push(print_only_line(&on_wheat.print_only));
        }
        return Ok(f);
    }
    let timeout = (took * 3).clamp(Duration::from_secs(10), WHEAT_TIMEOUT);
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
    if !on_wheat.print_only.is_empty() {
        f.lines.push(print_only_line(&on_wheat.print_only));
    }
    Ok(f)
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
                "{id} follows the accepted other reading `{decision}` (right, but it catches no buggy version)"
            ));
            continue;
        }
        wrong += 1;
        let why = record.map(|r| r.message.as_str()).unwrap_or("");
        lines.push(format!(
            "{id} (line {}) fails on a correct implementation, so it is wrong: {why}",
            record.map_or(0, |r| r.line)
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
                r.test.as_deref().unwrap_or_default(),
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
            lines.push(format!("{id} calls none of the testable functions itself"));
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
    let mut f = Figure::new(spec, state, summary);
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
