//! The file edge: finding scenario and spec files, reading them, and loading them all.

use crate::diag::{Diagnostic, Source};
use crate::scenario::{self, Scenario};
use crate::spec::SpecSet;
use crate::suite::{LoadedSuite, SUITE_FILE, Suites};
use camino::{Utf8Path, Utf8PathBuf};
use globset::{Glob, GlobMatcher};

/// Files named by `paths`: each file as given, each folder walked for `*.toml` files
/// (hidden entries skipped), sorted within a folder so runs are deterministic. A file named
/// twice (overlapping paths) is kept once, where it first appears.
///
/// Errors: a path that does not exist or cannot be walked, as a file-level diagnostic.
pub fn discover(paths: &[Utf8PathBuf]) -> Result<Vec<Utf8PathBuf>, Diagnostic> {
    let toml: GlobMatcher = Glob::new("*.toml").expect("a valid glob").compile_matcher();
    let mut out = Vec::new();
    for path in paths {
        if path.is_file() {
            out.push(path.clone());
            continue;
        }
        if !path.is_dir() {
            let what = if path.exists() {
                "is not a regular file or folder"
            } else {
                "no such file or folder"
            };
            return Err(file_error(
                path,
                what,
                "a scenario file, a spec file or a folder of them",
            ));
        }
        let mut found = Vec::new();
        let walk = walkdir::WalkDir::new(path)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
        for entry in walk {
            let entry = entry.map_err(|e| file_error(path, &e.to_string(), "a readable folder"))?;
            // A link is never followed, and never skipped in silence: a hidden folder that
            // is a link would otherwise never run.
            if entry.file_type().is_symlink() && entry.depth() > 0 {
                let shown = entry.path().to_string_lossy().into_owned();
                return Err(file_error(
                    Utf8Path::new(&shown),
                    "is a symbolic link, which broadside does not follow inside a folder",
                    "the folder or file itself (copy it in), or its target named on the command line",
                ));
            }
            if entry.file_type().is_file()
                && toml.is_match(entry.file_name())
                && entry.file_name() != SUITE_FILE
            {
                match Utf8PathBuf::from_path_buf(entry.into_path()) {
                    Ok(p) => found.push(p),
                    Err(p) => {
                        return Err(file_error(
                            path,
                            &format!("{} is not UTF-8", p.display()),
                            "UTF-8 paths",
                        ));
                    }
                }
            }
        }
        out.extend(found);
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone().into())));
    Ok(out)
}

/// Reads one file. Errors: unreadable or not UTF-8, as a file-level diagnostic.
pub(crate) fn read_source(path: &Utf8Path) -> Result<Source, Diagnostic> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return Err(file_error(path, "is not a regular file", "a TOML file")),
        Err(e) => {
            return Err(file_error(
                path,
                &format!("cannot be read: {e}"),
                "a readable file",
            ));
        }
    }
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Ok(Source::new(path.as_str(), text)),
            Err(_) => Err(file_error(path, "is not valid UTF-8", "a UTF-8 text file")),
        },
        Err(e) => Err(file_error(
            path,
            &format!("cannot be read: {e}"),
            "a readable file",
        )),
    }
}

fn file_error(path: &Utf8Path, message: &str, expected: &str) -> Diagnostic {
    // The diagnostic names the file itself.
    Diagnostic::new(&Source::new(path.as_str(), ""), None, message.to_string()).expected(expected)
}

/// Whether a TOML file is a spec rather than a scenario (a spec names its `handout`).
pub(crate) fn is_spec(source: &Source) -> bool {
    toml::from_str::<toml::Table>(&source.text)
        .is_ok_and(|t| t.contains_key("handout") && !t.contains_key("assignment"))
}

/// The bundled specs plus those in `extra` (a file's spec replaces a bundled one of the same id).
pub fn specs(extra: &[Utf8PathBuf]) -> Result<SpecSet, Vec<Diagnostic>> {
    let mut set = SpecSet::builtin();
    let mut errors = Vec::new();
    for path in extra {
        match read_source(path).and_then(|s| crate::spec::parse(&s)) {
            Ok(spec) => set.insert_file(spec, path),
            Err(d) => errors.push(d),
        }
    }
    if errors.is_empty() {
        Ok(set)
    } else {
        Err(errors)
    }
}

/// Everything found under `paths`: the scenarios that loaded, the specs that checked, and
/// every problem found.
pub struct Loaded {
    pub scenarios: Vec<Scenario>,
    /// Spec files met among the paths (they are checked and made known to the scenarios).
    pub specs_checked: usize,
    /// Marking schemes and student-tests files met among the paths (checked, never run).
    pub marking_checked: usize,
    /// Files found, specs and scenarios together.
    pub files: usize,
    pub errors: Vec<Diagnostic>,
}

/// Discovers and loads every spec and scenario file under `paths`. Spec files among the
/// paths are checked first and added to `specs`, so a scenario may name a spec that sits
/// beside it; spec files are checked, never run.
pub fn load(paths: &[Utf8PathBuf], specs: &SpecSet) -> Loaded {
    let mut loaded = Loaded {
        scenarios: Vec::new(),
        specs_checked: 0,
        marking_checked: 0,
        files: 0,
        errors: Vec::new(),
    };
    let files = match discover(paths) {
        Ok(f) => f,
        Err(d) => {
            loaded.errors.push(d);
            return loaded;
        }
    };
    // A suite.toml named outright is read by `suites`, not as a scenario.
    let files: Vec<Utf8PathBuf> = files
        .into_iter()
        .filter(|f| f.file_name() != Some(SUITE_FILE))
        .collect();
    loaded.files = files.len();
    let mut specs = specs.clone();
    let mut scenario_sources = Vec::new();
    for file in files {
        match read_source(&file) {
            Ok(source) if crate::marking::scheme::is_marking(&source.text) => {
                match crate::marking::scheme::check_file(&source) {
                    Ok(()) => loaded.marking_checked += 1,
                    Err(d) => loaded.errors.push(d),
                }
            }
            Ok(source) if is_spec(&source) => match crate::spec::parse(&source) {
                Ok(spec) => {
                    specs.insert(spec);
                    loaded.specs_checked += 1;
                }
                Err(d) => loaded.errors.push(d),
            },
            Ok(source) => scenario_sources.push(source),
            Err(d) => loaded.errors.push(d),
        }
    }
    for source in scenario_sources {
        match scenario::parse(&source, &specs) {
            Ok(s) => loaded.scenarios.push(s),
            Err(ds) => loaded.errors.extend(ds),
        }
    }
    loaded
}

/// The `suite.toml` of every folder among `paths` that has one, in order, each checked
/// ([`LoadedSuite::validate`]); `known` says whether an assignment id has a spec.
///
/// Errors: a file that is not valid TOML, has keys broadside does not know, or fails a check.
pub fn suites(
    paths: &[Utf8PathBuf],
    known: impl Fn(&str) -> bool,
) -> Result<Suites, Vec<Diagnostic>> {
    let mut out: Vec<LoadedSuite> = Vec::new();
    let mut errors = Vec::new();
    // The suite each path belongs to, and every suite below a folder given: a hidden
    // folder's own `suite.toml` must not be ignored because its parent was named.
    let mut dirs: Vec<Utf8PathBuf> = paths.iter().filter_map(|p| suite_dir(p)).collect();
    for path in paths.iter().filter(|p| p.is_dir()) {
        dirs.extend(suites_below(path));
    }
    for dir in dirs {
        if out.iter().any(|s| s.dir == dir) {
            continue;
        }
        let file = dir.join(SUITE_FILE);
        let source = match read_source(&file) {
            Ok(s) => s,
            Err(d) => {
                errors.push(d);
                continue;
            }
        };
        match toml::from_str(&source.text) {
            Ok(suite) => {
                let loaded = LoadedSuite { dir, source, suite };
                errors.extend(loaded.validate(&known));
                out.push(loaded);
            }
            Err(e) => errors.push(crate::diag::from_toml(&source, &e)),
        }
    }
    if errors.is_empty() {
        Ok(Suites(out))
    } else {
        Err(errors)
    }
}

/// The folders under `path` (not `path` itself; hidden entries skipped, links not
/// followed) that hold a `suite.toml`, as absolute paths.
fn suites_below(path: &Utf8Path) -> Vec<Utf8PathBuf> {
    walkdir::WalkDir::new(path)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .flatten()
        .filter(|e| e.file_type().is_file() && e.file_name() == SUITE_FILE)
        .filter_map(|e| std::fs::canonicalize(e.path().parent()?).ok())
        .filter_map(|p| Utf8PathBuf::from_path_buf(p).ok())
        .collect()
}

/// The suite a path belongs to: the nearest folder holding a `suite.toml`, the path itself
/// or any folder above it (so `suites/hidden`, or `.` inside it, still gets
/// `suites/suite.toml`'s hidden folders), as an absolute path. A path to a `suite.toml`
/// names its folder.
fn suite_dir(path: &Utf8Path) -> Option<Utf8PathBuf> {
    let start = if path.file_name() == Some(SUITE_FILE) {
        path.parent()
            .filter(|p| !p.as_str().is_empty())
            .unwrap_or(Utf8Path::new("."))
    } else {
        path
    };
    let absolute = Utf8PathBuf::from_path_buf(std::fs::canonicalize(start).ok()?).ok()?;
    absolute
        .ancestors()
        .find(|dir| dir.join(SUITE_FILE).is_file())
        .map(Utf8Path::to_path_buf)
}

/// Loads the scenarios under `paths` ([`load`]) and the suites of the folders among them
/// ([`suites`]), and applies each suite to its own scenarios (hidden folders, the assignment
/// check, `total_points`). Every problem found is in the returned `Loaded::errors`.
pub fn load_suites(paths: &[Utf8PathBuf], specs: &SpecSet) -> (Loaded, Suites) {
    let mut loaded = load(paths, specs);
    let seen: std::collections::BTreeSet<String> = loaded
        .scenarios
        .iter()
        .map(|s| s.assignment.clone())
        .collect();
    let known = |id: &str| specs.get(id).is_some() || seen.contains(id);
    let suites = match suites(paths, known) {
        Ok(s) => s,
        Err(ds) => {
            loaded.errors.extend(ds);
            return (loaded, Suites::default());
        }
    };
    loaded.errors.extend(suites.conflicts());
    let dirs: Vec<Utf8PathBuf> = suites.0.iter().map(|s| s.dir.clone()).collect();
    for suite in &suites.0 {
        let errors = suite.apply(&mut loaded.scenarios, &dirs);
        loaded.errors.extend(errors);
    }
    (loaded, suites)
}
