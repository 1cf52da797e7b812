//! A handout's marking scheme as data (`specs/marking/<assignment>.toml`): its criteria with
//! their weights and clauses, the caps it puts on the mark, and the figures broadside measures
//! for the marker. Loaded from the bundled files; see `specs/marking/README.md`.

use serde::Deserialize;

/// The bundled marking schemes, `(assignment, scheme file, student-tests file)`: every
/// `specs/marking/<id>.toml`, with `<id>.tests.toml` where there is one. Found from the files:
/// a new assignment's scheme is bundled by adding it there.
pub(crate) fn bundled_files() -> Vec<(String, &'static str, Option<&'static str>)> {
    let files = crate::spec::builtin_marking_files();
    files
        .iter()
        .filter(|(name, _)| !name.ends_with(".tests.toml"))
        .filter_map(|(name, text)| {
            let id = name.strip_suffix(".toml")?;
            let tests = files
                .iter()
                .find(|(n, _)| *n == format!("{id}.tests.toml"))
                .map(|(_, t)| *t);
            Some((id.to_string(), *text, tests))
        })
        .collect()
}

include!(concat!(env!("OUT_DIR"), "/wheats.rs"));

/// The wheat of an assignment's student-tests grading: its correct sample's module
/// (`fixtures/submissions/<id>/correct`, found by build.rs from the tests file's `module`),
/// whose behaviour the samples test pins at full marks. Empty for a scheme without one.
pub fn wheat(assignment: &str) -> &'static str {
    WHEATS
        .iter()
        .find(|(id, _)| *id == assignment)
        .map_or("", |(_, text)| text)
}

/// One assignment's marking scheme.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scheme {
    pub assignment: String,
    /// The handout file and the section the scheme comes from.
    pub handout: String,
    pub section: String,
    /// What the whole mark is out of (the weights add up to it).
    pub out_of: u32,
    #[serde(rename = "criterion")]
    pub criteria: Vec<Criterion>,
    #[serde(default, rename = "cap")]
    pub caps: Vec<Cap>,
    #[serde(default, rename = "figure")]
    pub figures: Vec<FigureSpec>,
    /// The student-tests grading, when the handout asks for tests broadside can run.
    #[serde(skip)]
    pub tests: Option<TestsSpec>,
    /// The texts it was parsed from (the scheme, then its student-tests file), which
    /// `grade --resume` compares: a scheme edited since regrades.
    #[serde(skip)]
    pub source: String,
}

/// A criterion of the marking scheme.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Criterion {
    pub id: String,
    pub title: String,
    pub weight: u32,
    /// The handout's words.
    pub clause: String,
    /// How broadside computes it; absent: the marker's.
    #[serde(default)]
    pub mark: Option<Automatic>,
    /// The figures shown beside it, for the marker.
    #[serde(default)]
    pub figures: Vec<String>,
}

/// A criterion broadside marks itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Automatic {
    /// The weight times the share of the behaviour suite's score.
    Behaviour,
}

/// A cap on the whole mark when a figure finds something missing.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cap {
    pub id: String,
    /// The figure whose `missing` state triggers it.
    pub when_missing: String,
    pub max: u32,
    pub clause: String,
}

/// A figure broadside measures.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureSpec {
    pub id: String,
    pub kind: FigureKind,
    pub title: String,
    /// The handout's words the figure answers.
    pub clause: String,
    /// Files it looks at (a file kind: the one file; lints: the files, absent ones skipped).
    #[serde(default)]
    pub files: Vec<String>,
    /// Required functions (docstrings).
    #[serde(default)]
    pub functions: Vec<String>,
    /// Commits: at least this many in every window of `per_days` days.
    #[serde(default)]
    pub at_least: Option<u32>,
    #[serde(default)]
    pub per_days: Option<u32>,
    /// javac: the Java release to compile for (`--release N`), when the handout names one.
    #[serde(default)]
    pub release: Option<u32>,
}

impl FigureSpec {
    /// A figure of this spec with no numbers or rows.
    pub fn figure(&self, state: super::FigureState, summary: String) -> super::Figure {
        super::Figure {
            id: self.id.clone(),
            title: self.title.clone(),
            clause: self.clause.clone(),
            state,
            summary,
            lines: Vec::new(),
            numbers: Default::default(),
            functions: Vec::new(),
        }
    }
}

/// What a figure measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum FigureKind {
    /// The student's own tests (a pytest file, or asserts in the module) against the wheat,
    /// its readings and the chaffs.
    StudentTests,
    /// `pycodestyle` over the Python files: counts per rule.
    Pycodestyle,
    /// A docstring on each required function.
    Docstrings,
    /// A file that must be there (`Report.pdf`: its pages counted).
    File,
    /// GHC's `-Wall` warnings.
    GhcWall,
    /// `javac --release 11 -Xlint:all`: compiles for Java 11, and its warnings.
    Javac,
    /// A comment with an x500 in every Java file.
    X500,
    /// A comment naming the main class to run.
    MainClass,
    /// The commit history, when the submission is a git repository.
    History,
    /// Doctest examples (`-- >>>`) in the Haskell source, run in GHCi.
    Doctests,
    /// solo-10x10's `extension.py`, played and its ocean judged.
    Extension,
    /// colab-6x6's optional stretch goals, found and, where the handout fixes what they
    /// return, checked.
    StretchGoals,
}

/// How a student's own tests are graded (`specs/marking/<assignment>.tests.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestsSpec {
    /// How the tests are run: a pytest file, or asserts in the module itself.
    #[serde(default)]
    pub style: TestsStyle,
    pub module: String,
    pub tests: String,
    pub functions: Vec<String>,
    pub testable_clause: String,
    pub at_least: u32,
    pub at_least_clause: String,
    #[serde(default, rename = "assumption")]
    pub assumptions: Vec<Assumption>,
    #[serde(default, rename = "reading")]
    pub readings: Vec<Reading>,
    #[serde(rename = "chaff")]
    pub chaffs: Vec<Chaff>,
    /// The third-party packages the suites allow (`python_packages`), given to the student's
    /// tests as to every Python child; set by `grade`, never read from the scheme's file.
    #[serde(skip)]
    pub python_packages: Option<std::sync::Arc<crate::target::packages::PythonPackages>>,
}

/// How a student's tests are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TestsStyle {
    /// A pytest file (`tests`), importing the module.
    #[default]
    Pytest,
    /// Top-level asserts (and `test_*` functions) in the module itself, as a notebook holds
    /// them: run by `drivers/marking_script.py` with the required functions replaced.
    Script,
    /// Doctest examples in the Haskell module, run in GHCi against the student's module, the
    /// wheat and each chaff (the wheat with one top-level definition replaced).
    Doctest,
}

/// What callers of a function may assume, as a Python expression over its arguments.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Assumption {
    pub function: String,
    pub holds: String,
    #[serde(skip_serializing)]
    pub clause: String,
}

/// The wheat under an accepted other reading of a spec decision.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reading {
    pub decision: String,
    pub source: String,
}

/// A buggy implementation a good test suite catches.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chaff {
    pub id: String,
    pub function: String,
    pub clause: String,
    /// What no test checks when none catches it, for the student.
    pub untested: String,
    pub source: String,
}

/// Whether a TOML text is a marking scheme or a student-tests file (`broadside check` checks
/// them beside the specs).
pub(crate) fn is_marking(text: &str) -> bool {
    toml::from_str::<toml::Table>(text).is_ok_and(|t| {
        (t.contains_key("out_of") && t.contains_key("criterion")) || t.contains_key("chaff")
    })
}

/// Checks a marking scheme file (with its `.tests.toml` beside it, if any) or a student-tests
/// file.
///
/// Errors: what [`parse`] finds, as a diagnostic naming the file (and line:col for TOML).
pub(crate) fn check_file(source: &crate::diag::Source) -> Result<(), crate::diag::Diagnostic> {
    let expected = "a marking scheme (specs/marking/README.md)";
    let at = |source: &crate::diag::Source, e: toml::de::Error| {
        crate::diag::Diagnostic::new(source, e.span(), e.message().to_string()).expected(expected)
    };
    let tests_toml =
        toml::from_str::<toml::Table>(&source.text).is_ok_and(|t| t.contains_key("chaff"));
    if tests_toml {
        let tests: TestsSpec = toml::from_str(&source.text).map_err(|e| at(source, e))?;
        let scheme = source
            .path
            .strip_suffix(".tests.toml")
            .map(|p| format!("{p}.toml"))
            .unwrap_or_default();
        if std::fs::symlink_metadata(&scheme).is_err() {
            return Err(crate::diag::Diagnostic::new(
                source,
                None,
                format!(
                    "a student-tests file with no scheme beside it: {scheme} is missing (grade --marking reads it with its scheme)"
                ),
            )
            .expected(expected));
        }
        return check_tests(&tests).map_err(|e| {
            let span = source.text.find("[[chaff]]").map(|i| i..i + 9);
            crate::diag::Diagnostic::new(source, span, e).expected(expected)
        });
    }
    let scheme = toml::from_str::<Scheme>(&source.text).map_err(|e| at(source, e))?;
    // First: grade finds a scheme, and check its student-tests file, by this name.
    let stem = camino::Utf8Path::new(&source.path)
        .file_stem()
        .unwrap_or("");
    if stem != scheme.assignment {
        let span = source.text.find("assignment").map(|i| i..i + 10);
        return Err(crate::diag::Diagnostic::new(
            source,
            span,
            format!(
                "the scheme is for `{}` but the file is `{stem}.toml`; grade --marking finds a scheme by its assignment's name, `{}.toml`",
                scheme.assignment, scheme.assignment
            ),
        )
        .expected(expected));
    }
    let beside = source
        .path
        .strip_suffix(".toml")
        .map(|p| format!("{p}.tests.toml"))
        .unwrap_or_default();
    let tests = match std::fs::read_to_string(&beside) {
        Ok(text) => {
            // Its own errors are its own file's, at their line and column.
            let tests_source = crate::diag::Source::new(beside.as_str(), text.as_str());
            toml::from_str::<TestsSpec>(&text).map_err(|e| at(&tests_source, e))?;
            Some(text)
        }
        Err(_) => None,
    };
    parse(&source.text, tests.as_deref()).map_err(|e| {
        let e = if e.contains("student-tests file") && tests.is_none() {
            format!("{e} (looked for {beside})")
        } else {
            e
        };
        let span = source.text.find("out_of").map(|i| i..i + 6);
        crate::diag::Diagnostic::new(source, span, e).expected(expected)
    })?;
    Ok(())
}

/// A student-tests file holds together: every chaff breaks a testable function, ids are unique.
// A string error: only shown, as a diagnostic at the tests file.
fn check_tests(tests: &TestsSpec) -> Result<(), String> {
    let mut ids = std::collections::BTreeSet::new();
    for c in &tests.chaffs {
        if !tests.functions.contains(&c.function) {
            return Err(format!(
                "chaff `{}` breaks `{}`, which is not among the testable functions",
                c.id, c.function
            ));
        }
        if !ids.insert(&c.id) {
            return Err(format!("two chaffs are called `{}`", c.id));
        }
    }
    Ok(())
}

/// The bundled scheme of `assignment`, if it has one.
///
/// Panics only if a bundled file is broken, which the test `bundled_schemes_load` rules out.
pub fn bundled(assignment: &str) -> Option<Scheme> {
    let (_, text, tests) = bundled_files()
        .into_iter()
        .find(|(id, _, _)| id == assignment)?;
    Some(parse(text, tests).unwrap_or_else(|e| panic!("bundled marking scheme {assignment}: {e}")))
}

/// The scheme of `assignment` beside the spec file that defines it (`--spec`):
/// `<the spec's folder>/marking/<assignment>.toml`, with `<assignment>.tests.toml` where there
/// is one, laid out as `specs/` lays out the bundled ones. So a course's own assignment, or
/// its own weights for a bundled one, is files alone. `Ok(None)`: there is neither file.
///
/// Errors (naming the file): it cannot be read, does not hold together, is another
/// assignment's, a student-tests file is there without its scheme, or one is there while the
/// assignment's wheat is not bundled (the wheat is built into broadside from the correct
/// sample).
// A string error: only shown, as an input error.
pub fn beside(spec: &camino::Utf8Path, assignment: &str) -> Result<Option<Scheme>, String> {
    let (path, tests_path) = beside_paths(spec, assignment);
    let read = |p: &camino::Utf8Path| std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"));
    let has_tests = std::fs::symlink_metadata(&tests_path).is_ok();
    if std::fs::symlink_metadata(&path).is_err() {
        if has_tests {
            return Err(format!(
                "{tests_path} has no scheme beside it: {path} is missing (a student-tests file is read with its scheme)"
            ));
        }
        return Ok(None);
    }
    let text = read(&path)?;
    let tests = if has_tests {
        if wheat(assignment).is_empty() {
            return Err(format!(
                "{tests_path}: grading the student's own tests needs a wheat built into broadside, and {assignment} has none; remove this file, and any student-tests figure from {path}"
            ));
        }
        Some(read(&tests_path)?)
    } else {
        None
    };
    let scheme = parse(&text, tests.as_deref()).map_err(|e| {
        if e.contains("student-tests file") && tests.is_none() {
            format!("{path}: {e} (looked for {tests_path}; the bundled one is not used for a scheme of your own)")
        } else {
            format!("{path}: {e}")
        }
    })?;
    if scheme.assignment != assignment {
        return Err(format!(
            "{path}: the scheme is for `{}`, not {assignment}",
            scheme.assignment
        ));
    }
    Ok(Some(scheme))
}

/// Where [`beside`] looks for `assignment`'s scheme and student-tests file next to `spec`.
pub fn beside_paths(
    spec: &camino::Utf8Path,
    assignment: &str,
) -> (camino::Utf8PathBuf, camino::Utf8PathBuf) {
    let folder = spec
        .parent()
        .unwrap_or(camino::Utf8Path::new("."))
        .join("marking");
    (
        folder.join(format!("{assignment}.toml")),
        folder.join(format!("{assignment}.tests.toml")),
    )
}

/// Parses a scheme and its student-tests file, and checks that it holds together: the
/// weights add up to `out_of`, every figure a criterion or cap names exists.
///
/// Errors: the TOML is malformed (with line and column) or the scheme does not hold together.
// A string error: bundled files, refused by a test before release; only ever shown.
pub fn parse(text: &str, tests: Option<&str>) -> Result<Scheme, String> {
    let mut scheme: Scheme = toml::from_str(text).map_err(|e| e.to_string())?;
    if let Some(tests) = tests {
        scheme.tests = Some(toml::from_str(tests).map_err(|e| e.to_string())?);
    }
    scheme.source = format!("{text}\n{}", tests.unwrap_or(""));
    if scheme.out_of == 0 {
        return Err("out_of is 0; a mark is out of something".into());
    }
    let total: u64 = scheme.criteria.iter().map(|c| u64::from(c.weight)).sum();
    if total != u64::from(scheme.out_of) {
        return Err(format!(
            "the criteria's weights add up to {total}, not out_of = {}",
            scheme.out_of
        ));
    }
    for (what, ids) in [
        (
            "criteria",
            scheme.criteria.iter().map(|c| &c.id).collect::<Vec<_>>(),
        ),
        ("figures", scheme.figures.iter().map(|f| &f.id).collect()),
    ] {
        let mut seen = std::collections::BTreeSet::new();
        if let Some(id) = ids.into_iter().find(|id| !seen.insert(*id)) {
            return Err(format!("two {what} are called `{id}`"));
        }
    }
    if let Some(cap) = scheme.caps.iter().find(|c| c.max > scheme.out_of) {
        return Err(format!(
            "cap `{}` is {}, above out_of = {}",
            cap.id, cap.max, scheme.out_of
        ));
    }
    if let Some(tests) = &scheme.tests {
        check_tests(tests)?;
    }
    let named = scheme
        .criteria
        .iter()
        .flat_map(|c| c.figures.iter())
        .chain(scheme.caps.iter().map(|c| &c.when_missing));
    for id in named {
        if !scheme.figures.iter().any(|f| &f.id == id) {
            return Err(format!("no figure `{id}`, which a criterion or cap names"));
        }
    }
    let pytest = scheme
        .figures
        .iter()
        .any(|f| matches!(f.kind, FigureKind::StudentTests | FigureKind::Doctests));
    if pytest != scheme.tests.is_some() {
        return Err(
            "a student-tests figure needs a student-tests file, and only it uses one".into(),
        );
    }
    Ok(scheme)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_schemes_load() {
        let files = bundled_files();
        // One per bundled spec: every assignment has its marking scheme.
        let specs = crate::spec::SpecSet::builtin();
        assert_eq!(
            files.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
            specs.ids()
        );
        for (id, _, tests) in files {
            let s = bundled(&id).expect("bundled");
            assert_eq!(s.assignment, id);
            // A scheme that grades the student's tests has its wheat, found by build.rs.
            assert_eq!(tests.is_some(), !wheat(&id).is_empty(), "{id}");
        }
    }

    #[test]
    fn weights_must_add_up() {
        let text = r#"
assignment = "x"
handout = "h"
section = "s"
out_of = 100
[[criterion]]
id = "a"
title = "A"
weight = 60
clause = "c"
"#;
        let e = parse(text, None).unwrap_err();
        assert!(e.contains("add up to 60"), "{e}");
    }

    #[test]
    fn a_named_figure_must_exist() {
        let text = r#"
assignment = "x"
handout = "h"
section = "s"
out_of = 10
[[criterion]]
id = "a"
title = "A"
weight = 10
clause = "c"
figures = ["lint"]
"#;
        let e = parse(text, None).unwrap_err();
        assert!(e.contains("no figure `lint`"), "{e}");
    }

    #[test]
    fn every_chaff_names_a_testable_function() {
        let s = bundled("solo-10x10").unwrap();
        let t = s.tests.unwrap();
        for c in &t.chaffs {
            assert!(t.functions.contains(&c.function), "{}", c.id);
        }
        for f in &t.functions {
            assert!(
                t.chaffs.iter().filter(|c| &c.function == f).count() >= 2,
                "{f} has fewer than two chaffs"
            );
        }
    }
}
