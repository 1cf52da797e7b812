//! The figures other than the student's tests: a linter's and a compiler's warnings, files
//! that must be there, docstrings, comments, the commit history.

use super::MeasureError;
use super::scheme::{FigureKind, FigureSpec};
use super::sheet::{Figure, FigureState};
use super::tools::{Copy, find, folder_of, read_lossy, shown};
use crate::target::program::java_lex;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Wall-clock time a linter or compiler may take.
const TOOL_TIMEOUT: Duration = Duration::from_secs(120);

/// The files a figure looks at, found under `root`.
fn files_of(spec: &FigureSpec, root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for pattern in &spec.files {
        let found = find(root, pattern);
        if pattern.starts_with('*') {
            out.extend(found);
        } else if let Some(first) = found.into_iter().next() {
            out.push(first);
        }
    }
    out.dedup();
    out
}

/// Counts by key, most first, as `key ×n` lines.
fn tally(counts: &BTreeMap<String, (usize, String)>) -> Vec<String> {
    let mut rows: Vec<(&String, &(usize, String))> = counts.iter().collect();
    rows.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(b.0)));
    rows.iter()
        .map(|(k, (n, first))| format!("{k} ×{n}, first at {first}"))
        .collect()
}

/// The copy's paths as the tool was given them, mapped back to the submission's.
fn relative(text: &str, copy: &Copy) -> String {
    let inside = copy.inside(&copy.ws.work);
    text.replace(&format!("{inside}/"), "")
}

/// Measures one figure other than the student's tests.
///
/// Errors: the grader could not run a tool (not installed), with what to install.
pub fn figure(spec: &FigureSpec, root: &Path, uid: u32) -> Result<Figure, MeasureError> {
    match spec.kind {
        FigureKind::StudentTests | FigureKind::Extension => {
            unreachable!("the student-tests and extension figures are measured apart")
        }
        FigureKind::File => Ok(file(spec, root)),
        FigureKind::Pycodestyle => pycodestyle(spec, root, uid),
        FigureKind::Docstrings => docstrings(spec, root, uid),
        FigureKind::GhcWall => ghc_wall(spec, root, uid),
        FigureKind::Doctests => doctests(spec, None, root, uid),
        FigureKind::Javac => javac(spec, root, uid),
        FigureKind::X500 => Ok(x500(spec, root)),
        FigureKind::MainClass => Ok(main_class(spec, root)),
        FigureKind::History => history(spec, root, uid),
        FigureKind::StretchGoals => stretch_goals(spec, root, uid),
    }
}

/// A file that must be there; a PDF's pages are counted.
fn file(spec: &FigureSpec, root: &Path) -> Figure {
    let want = spec.files.first().map(String::as_str).unwrap_or("");
    let Some(path) = files_of(spec, root).into_iter().next() else {
        return spec.figure(FigureState::Missing, format!("no {want} in the submission"));
    };
    let name = shown(root, &path);
    let mut notes = Vec::new();
    if path
        .file_name()
        .is_some_and(|n| n.to_string_lossy() != want)
    {
        notes.push(format!("named {name}, not {want}"));
    }
    if path.parent() != Some(root) && root.is_dir() {
        notes.push(format!("{name} is not at the submission's root"));
    }
    if want.to_lowercase().ends_with(".pdf") {
        return match pdf_pages(&path) {
            Ok(0) => spec.figure(
                FigureState::Missing,
                format!("{name} is a PDF of no pages: no report"),
            ),
            Ok(pages) => {
                let mut f = spec.figure(
                    if notes.is_empty() {
                        FigureState::Ok
                    } else {
                        FigureState::Short
                    },
                    format!(
                        "{name}: a PDF of {pages} page{}",
                        if pages == 1 { "" } else { "s" }
                    ),
                );
                f.numbers.insert("pages".into(), pages as f64);
                f.lines = notes;
                f
            }
            Err(e) => spec.figure(
                FigureState::Missing,
                format!("{name} is not a readable PDF ({e}): no report"),
            ),
        };
    }
    let mut f = spec.figure(
        if notes.is_empty() {
            FigureState::Ok
        } else {
            FigureState::Short
        },
        format!("{name} is there"),
    );
    f.lines = notes;
    f
}

/// The pages of the PDF at `path` (at most 64 MiB read; a parser panic is an unreadable PDF).
fn pdf_pages(path: &Path) -> Result<usize, MeasureError> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if meta.len() > 64 << 20 {
        return Err("larger than 64 MiB".into());
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    if !bytes.starts_with(b"%PDF-") {
        return Err("it does not start with %PDF-".into());
    }
    std::panic::catch_unwind(|| lopdf::Document::load_mem(&bytes).map(|d| d.get_pages().len()))
        .map_err(|_| MeasureError::from("the PDF parser gave up on it"))?
        .map_err(|e| e.to_string().into())
}

/// `pycodestyle` over the Python files: counts per rule.
fn pycodestyle(spec: &FigureSpec, root: &Path, uid: u32) -> Result<Figure, MeasureError> {
    let files = files_of(spec, root);
    if files.is_empty() {
        // A notebook's style is the marker's to read: pycodestyle checks .py files.
        let why = match find(root, "*.ipynb").first() {
            Some(nb) => format!(
                "{} is a notebook: pycodestyle checks .py files only, the marker reads its cells",
                shown(folder_of(root), nb)
            ),
            None => "no Python file to check".into(),
        };
        return Ok(spec.figure(FigureState::NotApplicable, why));
    }
    let copy = Copy::new(root, uid, &[])?;
    let base = folder_of(root);
    let mut args = vec!["-m".to_string(), "pycodestyle".to_string()];
    args.extend(
        files
            .iter()
            .map(|f| copy.inside(&copy.ws.work.join(shown(base, f)))),
    );
    let built = copy.run(
        &crate::target::python::interpreter(),
        &args,
        &[],
        TOOL_TIMEOUT,
    )?;
    if built.output.contains("No module named pycodestyle") {
        return Err("pycodestyle is not installed for the grader's Python (apt-get install python3-pycodestyle)".into());
    }
    if built.timed_out {
        return Ok(spec.figure(
            FigureState::NotMeasured,
            "pycodestyle did not finish".into(),
        ));
    }
    let text = relative(&built.output, &copy);
    let line = regex::Regex::new(r"^(.+?):(\d+):(\d+): ([EW]\d+) (.*)$").expect("a valid pattern");
    let mut counts: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut total = 0;
    for l in text.lines() {
        if let Some(c) = line.captures(l) {
            total += 1;
            let key = format!("{} {}", &c[4], &c[5]);
            let key = strip_detail(&key);
            let e = counts
                .entry(key)
                .or_insert((0, format!("{}:{}", &c[1], &c[2])));
            e.0 += 1;
        }
    }
    let names: Vec<String> = files.iter().map(|f| shown(base, f)).collect();
    let mut f = spec.figure(
        if total == 0 {
            FigureState::Ok
        } else {
            FigureState::Short
        },
        format!(
            "{total} pycodestyle issue{} in {}",
            if total == 1 { "" } else { "s" },
            names.join(", ")
        ),
    );
    f.numbers.insert("issues".into(), total as f64);
    f.numbers.insert("rules".into(), counts.len() as f64);
    f.lines = tally(&counts);
    Ok(f)
}

/// A rule's message without its particulars (`E501 line too long (88 > 79 characters)`
/// counts with every other E501).
fn strip_detail(key: &str) -> String {
    match key.find(" (") {
        Some(i) => key[..i].to_string(),
        None => key.to_string(),
    }
}

/// The docstrings of the required functions, read with Python's own parser.
fn docstrings(spec: &FigureSpec, root: &Path, uid: u32) -> Result<Figure, MeasureError> {
    let Some(file) = files_of(spec, root).into_iter().next() else {
        return Ok(spec.figure(FigureState::NotApplicable, "no module to read".into()));
    };
    let copy = Copy::new(root, uid, &[])?;
    let base = folder_of(root);
    let script = "import ast, json, sys\n\
        tree = ast.parse(open(sys.argv[1], encoding='utf-8', errors='replace').read())\n\
        found = {n.name: bool(ast.get_docstring(n)) for n in tree.body\n\
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}\n\
        print(json.dumps(found))\n";
    let args = vec![
        "-c".to_string(),
        script.to_string(),
        copy.inside(&copy.ws.work.join(shown(base, &file))),
    ];
    let built = copy.run(
        &crate::target::python::interpreter(),
        &args,
        &[],
        TOOL_TIMEOUT,
    )?;
    let name = shown(base, &file);
    let last = built.output.lines().last().unwrap_or("");
    let Ok(found) = serde_json::from_str::<BTreeMap<String, bool>>(last) else {
        return Ok(spec.figure(
            FigureState::NotApplicable,
            format!("{name} does not parse: {}", relative(last, &copy)),
        ));
    };
    let mut missing = Vec::new();
    let mut absent = Vec::new();
    for f in &spec.functions {
        match found.get(f) {
            Some(true) => {}
            Some(false) => missing.push(f.as_str()),
            None => absent.push(f.as_str()),
        }
    }
    let with = spec.functions.len() - missing.len() - absent.len();
    let mut f = spec.figure(
        if missing.is_empty() && absent.is_empty() {
            FigureState::Ok
        } else {
            FigureState::Short
        },
        format!(
            "{with} of {} required functions in {name} have a docstring",
            spec.functions.len()
        ),
    );
    if !missing.is_empty() {
        f.lines
            .push(format!("no docstring: {}", missing.join(", ")));
    }
    if !absent.is_empty() {
        f.lines.push(format!(
            "not defined at the top of {name}: {}",
            absent.join(", ")
        ));
    }
    f.numbers.insert("with_docstring".into(), with as f64);
    Ok(f)
}

/// The probe of colab-6x6's stretch goals (`drivers/marking_stretch.py`).
const STRETCH: &str = include_str!("../../drivers/marking_stretch.py");

/// colab-6x6's optional stretch goals: which are there, and whether accuracy and the shot
/// history give what the handout says.
fn stretch_goals(spec: &FigureSpec, root: &Path, uid: u32) -> Result<Figure, MeasureError> {
    let Some(file) = files_of(spec, root).into_iter().next() else {
        return Ok(spec.figure(FigureState::NotApplicable, "no module to look in".into()));
    };
    let copy = Copy::new(root, uid, &[])?;
    let base = folder_of(root);
    let probe = copy.ws.work.join("broadside_stretch.py");
    std::fs::write(&probe, STRETCH).map_err(|e| format!("cannot write the probe: {e}"))?;
    // A notebook's cells are run by the notebook runner beside the probe (issue 36).
    std::fs::write(
        copy.ws.work.join("broadside_notebook.py"),
        crate::target::python::NOTEBOOK,
    )
    .map_err(|e| format!("cannot write the probe: {e}"))?;
    let args = vec![
        "-B".to_string(),
        copy.inside(&probe),
        copy.inside(&copy.ws.work.join(shown(base, &file))),
    ];
    let built = copy.run(
        &crate::target::python::interpreter(),
        &args,
        &[],
        TOOL_TIMEOUT,
    )?;
    #[derive(serde::Deserialize)]
    struct Goal {
        goal: String,
        found: bool,
        ok: Option<bool>,
        detail: String,
    }
    let line = built
        .output
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("@@broadside-stretch@@"));
    let Some(goals) = line.and_then(|l| serde_json::from_str::<Vec<Goal>>(l).ok()) else {
        return Ok(spec.figure(
            FigureState::NotApplicable,
            "the module could not be read for stretch goals".into(),
        ));
    };
    let found: Vec<&Goal> = goals.iter().filter(|g| g.found).collect();
    let wrong = found.iter().filter(|g| g.ok == Some(false)).count();
    let state = if found.is_empty() {
        FigureState::NotApplicable
    } else if wrong > 0 {
        FigureState::Short
    } else {
        FigureState::Ok
    };
    let names: Vec<&str> = found.iter().map(|g| g.goal.as_str()).collect();
    let mut f = spec.figure(
        state,
        if found.is_empty() {
            "no stretch goal found (they are optional)".into()
        } else {
            format!(
                "{} of 4 stretch goals found: {}",
                found.len(),
                names.join(", ")
            )
        },
    );
    for g in &found {
        let verdict = match g.ok {
            Some(true) => "works",
            Some(false) => "does not give what the handout says",
            None => "found by name; for the marker to try",
        };
        f.lines
            .push(format!("{}: {verdict} ({})", g.goal, g.detail));
    }
    f.numbers.insert("found".into(), found.len() as f64);
    Ok(f)
}

/// GHC's `-Wall` warnings, compiling the module (and what it imports) without linking.
fn ghc_wall(spec: &FigureSpec, root: &Path, uid: u32) -> Result<Figure, MeasureError> {
    let Some(file) = files_of(spec, root).into_iter().next() else {
        return Ok(spec.figure(FigureState::NotApplicable, "no Battleship.hs".into()));
    };
    let copy = Copy::new(root, uid, &crate::target::haskell::ghc_folders())?;
    let base = folder_of(root);
    let name = shown(base, &file);
    let in_copy = copy.ws.work.join(&name);
    let dir = in_copy.parent().unwrap_or(&copy.ws.work).to_path_buf();
    let args: Vec<String> = ["-Wall", "-O0", "-no-link", "--make", "-outputdir"]
        .map(String::from)
        .into_iter()
        .chain([
            copy.inside(&copy.ws.work.join(".broadside-build")),
            format!("-i{}", copy.inside(&dir)),
            copy.inside(&in_copy),
        ])
        .collect();
    let built = copy.run(
        &crate::target::haskell::compiler(),
        &args,
        &crate::target::haskell::ghc_library_path(),
        TOOL_TIMEOUT,
    )?;
    if built.timed_out {
        return Ok(spec.figure(FigureState::NotMeasured, "GHC did not finish".into()));
    }
    let text = relative(&built.output, &copy);
    let warning = regex::Regex::new(r"^(.+?):(\d+):\d+(?:-\d+)?: warning:.*?\[(-W[\w-]+)")
        .expect("a valid pattern");
    let error = regex::Regex::new(r"^(.+?):(\d+):\d+.*: error:").expect("a valid pattern");
    let mut counts: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut total = 0;
    let mut errors = 0;
    for l in text.lines() {
        if let Some(c) = warning.captures(l) {
            total += 1;
            counts
                .entry(c[3].to_string())
                .or_insert((0, format!("{}:{}", &c[1], &c[2])))
                .0 += 1;
        } else if error.is_match(l) {
            errors += 1;
        }
    }
    let compiles = built.code == Some(0);
    let summary = if compiles {
        format!(
            "{name} compiles with -Wall: {total} warning{}",
            if total == 1 { "" } else { "s" }
        )
    } else {
        format!(
            "{name} does not compile ({errors} error{}); {total} warnings before it stopped",
            if errors == 1 { "" } else { "s" }
        )
    };
    let mut f = spec.figure(
        if compiles && total == 0 {
            FigureState::Ok
        } else {
            FigureState::Short
        },
        summary,
    );
    f.numbers.insert("warnings".into(), total as f64);
    f.numbers.insert("errors".into(), errors as f64);
    f.lines = tally(&counts);
    Ok(f)
}

/// A doctest example: where it is, what it evaluates, what the comment says it gives.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Example {
    pub file: String,
    pub line: usize,
    pub expr: String,
    pub want: Vec<String>,
}

impl Example {
    /// The lines it should print, blank ones aside (as GHCi's output is read).
    fn expected(&self) -> Vec<String> {
        self.want
            .iter()
            .filter(|l| !l.is_empty())
            .cloned()
            .collect()
    }
}

/// Whether an example's output on the wheat says it names something the wheat lacks (the
/// student's own helper).
fn names_foreign(output: &Option<Vec<String>>) -> bool {
    output
        .as_ref()
        .is_some_and(|w| w.iter().any(|l| l.contains("not in scope")))
}

/// The doctest examples of a Haskell source: `-- >>> expr` lines, each followed by the comment
/// lines it should print (up to an empty comment, another example or the comment's end;
/// `<BLANKLINE>` for an empty line), as the doctest tool reads them.
pub(crate) fn examples(file: &str, text: &str) -> Vec<Example> {
    let comment = |l: &str| {
        l.trim_start()
            .strip_prefix("--")
            .map(|r| r.strip_prefix(' ').unwrap_or(r).to_string())
    };
    let mut out: Vec<Example> = Vec::new();
    let mut open = false;
    for (i, line) in text.lines().enumerate() {
        let body = comment(line).filter(|b| !b.starts_with('-') || b.trim().is_empty());
        match body {
            Some(b) if b.trim_start().starts_with(">>>") => {
                let expr = b.trim_start()[3..].trim().to_string();
                out.push(Example {
                    file: file.to_string(),
                    line: i + 1,
                    expr,
                    want: Vec::new(),
                });
                open = true;
            }
            Some(b) if open && !b.trim().is_empty() => {
                let b = b.trim_end();
                let b = if b.trim() == "<BLANKLINE>" { "" } else { b };
                if let Some(e) = out.last_mut() {
                    e.want.push(b.trim_start().to_string());
                }
            }
            _ => open = false,
        }
    }
    out
}

/// What one GHCi session printed for each example: `None` for the module not loading, else
/// each example's output lines (`None`: it did not finish).
fn ghci(
    copy: &Copy,
    module: &Path,
    examples: &[Example],
) -> Result<Option<Vec<Option<Vec<String>>>>, MeasureError> {
    let dir = module.parent().unwrap_or(&copy.ws.work).to_path_buf();
    let mut script = format!(":cd {}\n:load {}\n", copy.inside(&dir), copy.inside(module));
    for (i, e) in examples.iter().enumerate() {
        script.push_str(&format!(
            "putStrLn \"@@broadside-doctest-{i}@@\"\n{}\n",
            e.expr
        ));
    }
    script.push_str(&format!(
        "putStrLn \"@@broadside-doctest-{}@@\"\n:quit\n",
        examples.len()
    ));
    let script_file = dir.join(".broadside-doctest.ghci");
    std::fs::write(&script_file, script)
        .map_err(|e| format!("cannot write the GHCi script: {e}"))?;
    let args = vec![
        "--interactive".to_string(),
        "-v0".to_string(),
        "-ignore-dot-ghci".to_string(),
        format!("-ghci-script={}", copy.inside(&script_file)),
    ];
    let built = copy.run(
        &crate::target::haskell::compiler(),
        &args,
        &crate::target::haskell::ghc_library_path(),
        TOOL_TIMEOUT,
    )?;
    let text = relative(&built.output, copy);
    let marker = |i: usize| format!("@@broadside-doctest-{i}@@");
    let Some(first) = text.find(&marker(0)) else {
        return Ok(None);
    };
    if text[..first].contains(": error:") {
        return Ok(None);
    }
    Ok(Some(
        (0..examples.len())
            .map(|i| {
                let start = text.find(&marker(i))? + marker(i).len();
                let end = text[start..].find(&marker(i + 1))? + start;
                Some(
                    text[start..end]
                        .lines()
                        .map(|l| l.trim_end().to_string())
                        .filter(|l| !l.is_empty())
                        .collect(),
                )
            })
            .collect(),
    ))
}

/// `text` with the top-level definition of `name` (its signature, equations and their
/// indented lines) taken out and `new` appended: one function of a Haskell module replaced.
pub(crate) fn replace_definition(text: &str, name: &str, new: &str) -> String {
    let mut out = Vec::new();
    let mut skipping = false;
    for line in text.lines() {
        let starts = line
            .strip_prefix(name)
            .is_some_and(|rest| rest.starts_with([' ', ':']));
        if starts {
            skipping = true;
            continue;
        }
        if skipping && (line.starts_with([' ', '\t']) && !line.trim().is_empty()) {
            continue;
        }
        skipping = false;
        out.push(line);
    }
    format!("{}\n{new}", out.join("\n"))
}

/// Doctest examples (`-- >>>` lines) in the Haskell source, run in GHCi (as the doctest tool
/// would, one GHCi session for the module) and compared with what their comments say; with a
/// student-tests file, also run against the wheat and each chaff, as the student's tests.
pub(crate) fn doctests(
    spec: &FigureSpec,
    tests: Option<(&super::scheme::TestsSpec, &str)>,
    root: &Path,
    uid: u32,
) -> Result<Figure, MeasureError> {
    let files = files_of(spec, root);
    let base = folder_of(root);
    let mut all = Vec::new();
    for file in &files {
        let text = read_lossy(file);
        all.extend(examples(&shown(base, file), &text));
    }
    if all.is_empty() {
        let mut f = spec.figure(FigureState::Short, "no doctest examples (`-- >>>`)".into());
        f.numbers.insert("examples".into(), 0.0);
        f.numbers.insert("passed".into(), 0.0);
        return Ok(f);
    }
    let Some(module) = files
        .iter()
        .find(|f| f.file_name().is_some_and(|n| n == "Battleship.hs"))
        .or(files.first())
    else {
        return Ok(spec.figure(FigureState::NotApplicable, "no Haskell file".into()));
    };
    let copy = Copy::new(root, uid, &crate::target::haskell::ghc_folders())?;
    let own = ghci(&copy, &copy.ws.work.join(shown(base, module)), &all)?;
    let Some(own) = own else {
        let mut f = spec.figure(
            FigureState::Short,
            format!(
                "{} doctest examples, not run: the module does not load in GHCi",
                all.len()
            ),
        );
        f.numbers.insert("examples".into(), all.len() as f64);
        f.numbers.insert("passed".into(), 0.0);
        return Ok(f);
    };
    let mut passed = 0;
    let mut lines = Vec::new();
    for (e, got) in all.iter().zip(&own) {
        match got {
            Some(g) if *g == e.expected() => passed += 1,
            Some(g) => lines.push(format!(
                "{}:{}: >>> {} gave `{}`, the comment says `{}`",
                e.file,
                e.line,
                e.expr,
                g.join(" / ").chars().take(160).collect::<String>(),
                e.expected().join(" / ")
            )),
            None => lines.push(format!(
                "{}:{}: >>> {} did not finish",
                e.file, e.line, e.expr
            )),
        }
    }
    let summary = format!(
        "{} doctest example{}, {passed} give what their comments say on the student's own module",
        all.len(),
        if all.len() == 1 { "" } else { "s" }
    );
    let mut f = match tests {
        Some((tests, wheat)) => against_chaffs(spec, tests, wheat, &copy, module, base, &all)?,
        None => spec.figure(FigureState::Ok, String::new()),
    };
    f.summary = if f.summary.is_empty() {
        summary
    } else {
        format!("{summary}; {}", f.summary)
    };
    if passed < all.len() {
        f.state = FigureState::Short;
    }
    lines.append(&mut f.lines);
    f.lines = lines;
    f.numbers.insert("examples".into(), all.len() as f64);
    f.numbers.insert("passed".into(), passed as f64);
    Ok(f)
}

/// The examples run against the wheat, its accepted readings and each chaff, judged as the
/// pytest tests are ([`super::pytest::judge`]). An example that names something the wheat
/// lacks (the student's own helper) is left out.
fn against_chaffs(
    spec: &FigureSpec,
    tests: &super::scheme::TestsSpec,
    wheat: &str,
    copy: &Copy,
    module: &Path,
    base: &Path,
    all: &[Example],
) -> Result<Figure, MeasureError> {
    let variants_dir = copy.ws.work.join(".broadside-wheat");
    let mut n = 0;
    let mut run = |source: &str| -> Result<Option<Vec<Option<Vec<String>>>>, MeasureError> {
        n += 1;
        let dir = variants_dir.join(n.to_string());
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot write the wheat: {e}"))?;
        let file = dir.join("Battleship.hs");
        std::fs::write(&file, source).map_err(|e| format!("cannot write the wheat: {e}"))?;
        ghci(copy, &file, all)
    };
    let on_wheat = run(wheat)?.ok_or("the wheat does not load in GHCi")?;
    let name_of = |e: &Example| format!("{}:{}: >>> {}", e.file, e.line, e.expr);
    let named = |e: &Example| functions_named(e, &tests.functions);
    let to_run = |outputs: &[Option<Vec<String>>]| -> super::pytest::Run {
        super::pytest::Run::of(
            all.iter()
                .zip(outputs)
                .zip(&on_wheat)
                .map(|((e, got), on_w)| {
                    let foreign = names_foreign(on_w);
                    let want = e.expected();
                    let outcome = if foreign {
                        "skipped"
                    } else if got.as_ref() == Some(&want) {
                        "passed"
                    } else {
                        "failed"
                    };
                    let message = got
                        .as_ref()
                        .map(|g| format!("gave `{}`", g.join(" / ")))
                        .unwrap_or_default();
                    (name_of(e), e.line as u32, outcome, named(e), message)
                })
                .collect(),
        )
    };
    let wheat_run = to_run(&on_wheat);
    let mut readings = Vec::new();
    for r in &tests.readings {
        let function = r
            .source
            .lines()
            .find_map(|l| {
                l.split_whitespace()
                    .next()
                    .filter(|w| tests.functions.iter().any(|f| f == w))
            })
            .unwrap_or("");
        let outputs = run(&replace_definition(wheat, function, &r.source))?.ok_or_else(|| {
            format!(
                "the wheat under the reading `{}` does not load in GHCi",
                r.decision
            )
        })?;
        readings.push((r.decision.clone(), to_run(&outputs)));
    }
    let mut chaffs = Vec::new();
    for c in &tests.chaffs {
        // A chaff that does not load is broadside's mistake, never a catch.
        let outputs = run(&replace_definition(wheat, &c.function, &c.source))?
            .ok_or_else(|| format!("the chaff `{}` does not load in GHCi", c.id))?;
        chaffs.push(to_run(&outputs));
    }
    let foreign = on_wheat.iter().filter(|w| names_foreign(w)).count();
    let mut f = super::pytest::judge(
        spec,
        tests,
        &shown(base, module),
        &wheat_run,
        &readings,
        &chaffs,
    );
    if foreign > 0 {
        f.lines.push(format!(
            "{foreign} example{} name the student's own helpers, so they run on the student's module only",
            if foreign == 1 { "" } else { "s" }
        ));
    }
    Ok(f)
}

/// The testable `functions` example `e`'s expression names.
fn functions_named(e: &Example, functions: &[String]) -> Vec<String> {
    functions
        .iter()
        .filter(|f| {
            e.expr
                .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '\'')
                .any(|w| w == f.as_str())
        })
        .cloned()
        .collect()
}

/// What javac printed: its lint warnings by category (each with how many and where the
/// first is), how many in all, and its errors.
struct Lint {
    counts: BTreeMap<String, (usize, String)>,
    total: usize,
    errors: usize,
    /// The first error, `File.java:4: message`.
    first_error: Option<String>,
}

impl Lint {
    /// Reads javac's output `text`.
    fn of(text: &str) -> Lint {
        let warning =
            regex::Regex::new(r"^(.+?):(\d+): warning: \[(\w+)\]").expect("a valid pattern");
        let error = regex::Regex::new(r"^(.+?):(\d+): error: (.*)$").expect("a valid pattern");
        let mut lint = Lint {
            counts: BTreeMap::new(),
            total: 0,
            errors: 0,
            first_error: None,
        };
        for l in text.lines() {
            if let Some(c) = warning.captures(l) {
                lint.total += 1;
                lint.counts
                    .entry(c[3].to_string())
                    .or_insert((0, format!("{}:{}", &c[1], &c[2])))
                    .0 += 1;
            } else if let Some(c) = error.captures(l) {
                lint.errors += 1;
                lint.first_error
                    .get_or_insert_with(|| format!("{}:{}: {}", &c[1], &c[2], &c[3]));
            }
        }
        lint
    }
}

/// `javac -Xlint:all` (for the handout's Java release, when it names one): whether the code
/// compiles there, and the warnings by category.
fn javac(spec: &FigureSpec, root: &Path, uid: u32) -> Result<Figure, MeasureError> {
    let files = files_of(spec, root);
    if files.is_empty() {
        return Ok(spec.figure(FigureState::NotApplicable, "no .java file".into()));
    }
    let copy = Copy::new(root, uid, &[])?;
    let base = folder_of(root);
    let javac = crate::target::program::javac();
    let env = crate::target::program::jdk_library_path(&javac);
    // As the java: target reads them: UTF-8, or Windows' Western code page when a file is not
    // UTF-8 (a file saved on a lab PC), so an é in a comment is not a compile error.
    let utf8 = files
        .iter()
        .all(|f| std::fs::read(f).is_ok_and(|b| std::str::from_utf8(&b).is_ok()));
    let encoding = if utf8 { "UTF-8" } else { "windows-1252" };
    let compile = |release: Option<u32>| -> Result<crate::target::build::BuildRun, MeasureError> {
        let mut args: Vec<String> = [
            "-J-Xmx512m",
            "-J-XX:+UseSerialGC",
            "-J-XX:TieredStopAtLevel=1",
            "-J-XX:-UsePerfData",
            "-Xlint:all",
            "-Xmaxwarns",
            "1000",
            "-encoding",
            encoding,
            "-d",
        ]
        .map(String::from)
        .to_vec();
        args.push(copy.inside(&copy.ws.work.join(".broadside-classes")));
        if let Some(r) = release {
            args.extend(["--release".to_string(), r.to_string()]);
        }
        args.extend(
            files
                .iter()
                .map(|f| copy.inside(&copy.ws.work.join(shown(base, f)))),
        );
        copy.run(&javac, &args, &env, TOOL_TIMEOUT)
    };
    let built = compile(spec.release)?;
    if built.timed_out {
        return Ok(spec.figure(FigureState::NotMeasured, "javac did not finish".into()));
    }
    let text = relative(&built.output, &copy);
    let Lint {
        counts,
        total,
        errors,
        first_error,
    } = Lint::of(&text);
    let for_release = spec
        .release
        .map(|r| format!(" for Java {r}"))
        .unwrap_or_default();
    let compiles = built.code == Some(0);
    let mut lines = tally(&counts);
    let summary = if compiles {
        format!(
            "compiles{for_release}: {total} lint warning{}",
            if total == 1 { "" } else { "s" }
        )
    } else {
        let mut s = format!(
            "does not compile{for_release}: {errors} error{}",
            if errors == 1 { "" } else { "s" }
        );
        if let Some(e) = &first_error {
            lines.insert(0, format!("first error: {e}"));
        }
        if spec.release.is_some() && compile(None)?.code == Some(0) {
            s.push_str(
                " (it compiles for the grader's newer Java: it uses something Java 11 lacks)",
            );
        }
        s
    };
    let mut f = spec.figure(
        if compiles && total == 0 {
            FigureState::Ok
        } else {
            FigureState::Short
        },
        summary,
    );
    f.numbers.insert("warnings".into(), total as f64);
    f.numbers.insert("errors".into(), errors as f64);
    f.lines = lines;
    Ok(f)
}

/// The comments of a Java (or C-like) source, with the line each starts on (the lexer that
/// also tells a Java program's code from its comments: [`java_lex`]).
fn comments(text: &str) -> Vec<(usize, String)> {
    java_lex(text).1
}

/// An x500 (a University of Minnesota login: letters then digits, `park1623`) in a comment of
/// every Java file.
fn x500(spec: &FigureSpec, root: &Path) -> Figure {
    let files = files_of(spec, root);
    let base = folder_of(root);
    let id = regex::Regex::new(r"\b[a-z]{2,8}[0-9]{1,5}\b").expect("a valid pattern");
    // Words of that shape in comments that are not logins.
    const NOT_LOGINS: [&str; 12] = [
        "utf8", "utf16", "java11", "java17", "jdk11", "jdk17", "md5", "sha1", "sha256", "base64",
        "int32", "int64",
    ];
    let mut without = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for file in &files {
        let text = read_lossy(file);
        let found: Vec<String> = comments(&text)
            .iter()
            .flat_map(|(_, c)| {
                id.find_iter(c)
                    .map(|m| m.as_str().to_string())
                    .filter(|w| !NOT_LOGINS.contains(&w.as_str()))
                    .collect::<Vec<_>>()
            })
            .collect();
        if found.is_empty() {
            without.push(shown(base, file));
        }
        seen.extend(found);
    }
    if files.is_empty() {
        return spec.figure(FigureState::NotApplicable, "no .java file".into());
    }
    let mut f = spec.figure(
        if without.is_empty() {
            FigureState::Ok
        } else {
            FigureState::Short
        },
        format!(
            "{} of {} files have an x500 in a comment",
            files.len() - without.len(),
            files.len()
        ),
    );
    if !seen.is_empty() {
        f.lines.push(format!(
            "x500s seen: {}",
            seen.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    if !without.is_empty() {
        f.lines.push(format!("none in: {}", without.join(", ")));
    }
    f
}

/// A comment that names the class whose main method is to be run.
fn main_class(spec: &FigureSpec, root: &Path) -> Figure {
    let files = files_of(spec, root);
    let base = folder_of(root);
    let main = regex::Regex::new(r"public\s+static\s+void\s+main\s*\(").expect("a valid pattern");
    let mut mains = Vec::new();
    let mut texts = Vec::new();
    for file in &files {
        let text = read_lossy(file);
        if main.is_match(&text) {
            let class = file
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            mains.push(class);
        }
        texts.push((shown(base, file), text));
    }
    if mains.is_empty() {
        return spec.figure(
            FigureState::NotApplicable,
            "no class has a main method".into(),
        );
    }
    let word = regex::Regex::new(r"(?i)\b(main|run)\b").expect("a valid pattern");
    for (name, text) in &texts {
        for (line, c) in comments(text) {
            if word.is_match(&c) && mains.iter().any(|m| c.contains(m.as_str())) {
                let said: String = c.split_whitespace().collect::<Vec<_>>().join(" ");
                let said: String = said.chars().take(100).collect();
                return spec.figure(FigureState::Ok, format!("{name}:{line}: \"{said}\""));
            }
        }
    }
    spec.figure(
        FigureState::Short,
        format!(
            "no comment names the main class to run (main methods in: {})",
            mains.join(", ")
        ),
    )
}

/// The commit history, when the submission is a git repository: commits, dates, the longest
/// gap, and the periods short of the handout's rule. `git log` runs contained on a copy.
fn history(spec: &FigureSpec, root: &Path, uid: u32) -> Result<Figure, MeasureError> {
    if !root.join(".git").exists() {
        return Ok(spec.figure(
            FigureState::NotApplicable,
            "not a git repository (no .git folder in the submission)".into(),
        ));
    }
    let copy = Copy::new(root, uid, &[])?;
    let args: Vec<String> = [
        "-c",
        "core.fsmonitor=false",
        "-c",
        "safe.directory=*",
        "--no-pager",
        "log",
        "--no-color",
        "--format=%ct",
    ]
    .map(String::from)
    .to_vec();
    // The dates go to a file (the tool's output keeps only its last 64 KiB).
    let dates = copy.ws.work.join(".broadside-commit-dates");
    let mut args = args;
    args.push(format!("--output={}", copy.inside(&dates)));
    let env = [
        ("GIT_CONFIG_NOSYSTEM".to_string(), "1".to_string()),
        (
            "GIT_DIR".to_string(),
            copy.inside(&copy.ws.work.join(".git")),
        ),
    ];
    let built = copy.run("git", &args, &env, TOOL_TIMEOUT)?;
    if built.code != Some(0) {
        let last = built.output.lines().last().unwrap_or("");
        if last.contains("does not have any commits") {
            return Ok(spec.figure(
                FigureState::Short,
                "a git repository with no commits".into(),
            ));
        }
        return Ok(spec.figure(
            FigureState::NotApplicable,
            format!("git cannot read its history: {last}"),
        ));
    }
    let text = std::fs::read_to_string(&dates).unwrap_or_default();
    let mut times: Vec<i64> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
    times.sort_unstable();
    Ok(history_figure(spec, &times))
}

/// The history figure from commit times (Unix seconds, sorted).
pub(crate) fn history_figure(spec: &FigureSpec, times: &[i64]) -> Figure {
    const DAY: i64 = 86_400;
    let (Some(&first), Some(&last)) = (times.first(), times.last()) else {
        return spec.figure(
            FigureState::Short,
            "a git repository with no commits".into(),
        );
    };
    let per_days = i64::from(spec.per_days.unwrap_or(14)).max(1);
    let at_least = spec.at_least.unwrap_or(1) as usize;
    let date = |t: i64| {
        let days = t.div_euclid(DAY);
        civil(days)
    };
    let gap = times.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    // Whole periods from the first commit; the last one ends with the last commit.
    let period = per_days * DAY;
    let periods = ((last - first + period - 1) / period).max(1) as usize;
    let short = (0..periods)
        .filter(|p| {
            let start = first + *p as i64 * period;
            let open_end = *p + 1 == periods;
            let inside = |t: i64| t >= start && (t < start + period || open_end);
            times.iter().filter(|&&t| inside(t)).count() < at_least
        })
        .count();
    let days_active = times
        .iter()
        .map(|t| t.div_euclid(DAY))
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let regular = short == 0
        && times.len() >= at_least
        && (days_active > 1 || times.len() == 1 && at_least <= 1);
    let mut f = spec.figure(if regular {
            FigureState::Ok
        } else {
            FigureState::Short
        },
        format!(
            "{} commit{} on {days_active} day{} from {} to {}; longest gap {:.1} days; {short} of {periods} {per_days}-day periods have fewer than {at_least} commits",
            times.len(),
            if times.len() == 1 { "" } else { "s" },
            if days_active == 1 { "" } else { "s" },
            date(first),
            date(last),
            gap as f64 / DAY as f64,
        ),
    );
    if days_active == 1 && times.len() > 1 {
        f.lines.push("every commit is from one day".into());
    }
    f.numbers = BTreeMap::from([
        ("commits".to_string(), times.len() as f64),
        ("days_active".to_string(), days_active as f64),
        (
            "longest_gap_days".to_string(),
            (gap as f64 / DAY as f64 * 10.0).round() / 10.0,
        ),
        ("periods_short".to_string(), short as f64),
    ]);
    f
}

/// The date (`YYYY-MM-DD`, UTC) of a day count since 1970-01-01 (Howard Hinnant's
/// days-to-civil).
fn civil(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: FigureKind) -> FigureSpec {
        FigureSpec {
            id: "f".into(),
            kind,
            title: "t".into(),
            clause: "c".into(),
            files: vec![],
            functions: vec![],
            at_least: Some(2),
            per_days: Some(14),
            release: None,
        }
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil(0), "1970-01-01");
        assert_eq!(civil(20_454), "2026-01-01");
        assert_eq!(civil(11_016), "2000-02-29");
    }

    #[test]
    fn a_history_in_one_day_is_short_and_a_regular_one_is_not() {
        let day = 86_400;
        let start = 1_790_000_000;
        let one_day = [start, start + 60, start + 3600];
        let f = history_figure(&spec(FigureKind::History), &one_day);
        assert_eq!(
            f.state,
            FigureState::Short,
            "three commits in one day: {}",
            f.summary
        );
        let regular: Vec<i64> = (0..8).map(|i| start + i * 6 * day).collect();
        let f = history_figure(&spec(FigureKind::History), &regular);
        assert_eq!(f.state, FigureState::Ok, "{}", f.summary);
        let gap = [start, start + day, start + 40 * day, start + 41 * day];
        let f = history_figure(&spec(FigureKind::History), &gap);
        assert_eq!(f.state, FigureState::Short, "{}", f.summary);
        assert_eq!(f.numbers["periods_short"], 1.0, "{}", f.summary);
        assert_eq!(f.numbers["longest_gap_days"], 39.0);
    }

    #[test]
    fn doctest_examples_are_read_as_doctest_reads_them() {
        let text = "-- | On the board?\n--\n-- >>> coordInBound (0, 0)\n-- True\n-- >>> words \"a b\"\n-- [\"a\",\"b\"]\n--\n-- not output\nf = 1\n  -- >>> 1 + 1\n  -- 2\n";
        let e = examples("B.hs", text);
        assert_eq!(e.len(), 3, "{e:?}");
        assert_eq!((e[0].line, e[0].expr.as_str()), (3, "coordInBound (0, 0)"));
        assert_eq!(e[0].want, ["True"]);
        assert_eq!(e[1].want, ["[\"a\",\"b\"]"]);
        assert_eq!(e[2].want, ["2"]);
    }

    #[test]
    fn a_definition_is_replaced_with_its_signature_and_indented_lines() {
        let text = "f :: Int\nf = g\n  where\n    g = 1\n\nff :: Int\nff = 2\nh = f\n";
        let out = replace_definition(text, "f", "f :: Int\nf = 3\n");
        assert_eq!(out, "\nff :: Int\nff = 2\nh = f\nf :: Int\nf = 3\n");
    }

    #[test]
    fn comments_are_found_in_lines_and_blocks() {
        let text = "// Written by park1623\nclass A { /* run\n Main */ int x; } // end\nString s = \"// by abcd1234\"; char q = '\\'';";
        let c = comments(text);
        assert_eq!(c.len(), 3, "{c:?}");
        assert_eq!(c[0], (1, " Written by park1623".to_string()));
        assert_eq!(c[1].0, 2);
        assert!(c[1].1.contains("Main"));
    }
}
