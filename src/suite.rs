//! A suite's settings (`suite.toml` beside its scenarios) and how they shape the scenarios.
//!
//! A suite is a folder of scenarios graded together. Its `suite.toml` gives the title, the
//! assignment every scenario must be for, the total points the suite is worth, the folders
//! whose scenarios are hidden from students, what students may see of those, and the child
//! limits. Reading the file is [`crate::load::suites`]; this module is the pure part.

use crate::diag::{Diagnostic, Source};
use crate::report::HiddenResults;
use crate::scenario::{Scenario, Visibility};
use crate::spec::Rules;
use camino::{Utf8Path, Utf8PathBuf};
use serde::Deserialize;
use std::sync::Arc;
use toml::Spanned;

/// The name of a suite's settings file; discovery never treats it as a scenario.
pub(crate) const SUITE_FILE: &str = "suite.toml";

/// The `[limits]` table of a `suite.toml` (every field optional; flags win, defaults fill the
/// rest). Units: seconds, MiB, counts.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteLimits {
    pub cpu_secs: Option<Spanned<u64>>,
    pub memory_mib: Option<Spanned<u64>>,
    pub open_files: Option<Spanned<u64>>,
    pub file_size_mib: Option<Spanned<u64>>,
    pub processes: Option<Spanned<u64>>,
    pub timeout_secs: Option<Spanned<f64>>,
    pub scenario_timeout_secs: Option<Spanned<f64>>,
    /// Wall-clock seconds for a whole submission (default 600).
    pub submission_timeout_secs: Option<Spanned<f64>>,
}

/// The range each limit must lie in, with its unit, shared by `suite.toml` and the flags.
pub mod ranges {
    /// Seconds for a request or a scenario.
    pub const SECS: (f64, f64) = (0.05, 3600.0);
    /// Seconds for a whole submission.
    pub const SUBMISSION_SECS: (f64, f64) = (1.0, 86_400.0);
    pub const CPU_SECS: (u64, u64) = (1, 86_400);
    pub const MEMORY_MIB: (u64, u64) = (16, 1_048_576);
    pub const OPEN_FILES: (u64, u64) = (16, 4096);
    pub const FILE_SIZE_MIB: (u64, u64) = (1, 1_048_576);
    pub const PROCESSES: (u64, u64) = (4, 4096);
    /// A suite's `total_points`.
    pub(crate) const TOTAL_POINTS: (f64, f64) = (0.01, 1_000_000.0);
}

impl SuiteLimits {
    /// Each limit outside its range, as a diagnostic at its value.
    fn check(&self, source: &Source) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        let int = |name: &str, v: &Option<Spanned<u64>>, (lo, hi): (u64, u64), unit: &str| {
            v.as_ref()
                .filter(|v| !(lo..=hi).contains(v.get_ref()))
                .map(|v| {
                    Diagnostic::new(
                        source,
                        Some(v.span()),
                        format!("{name} = {} is out of range", v.get_ref()),
                    )
                    .expected(format!("{unit} from {lo} to {hi}"))
                })
        };
        let secs_in = |name: &str, v: &Option<Spanned<f64>>, (lo, hi): (f64, f64)| {
            v.as_ref()
                .filter(|v| !(v.get_ref().is_finite() && (lo..=hi).contains(v.get_ref())))
                .map(|v| {
                    Diagnostic::new(
                        source,
                        Some(v.span()),
                        format!("{name} = {} is out of range", v.get_ref()),
                    )
                    .expected(format!("seconds from {lo} to {hi}"))
                })
        };
        out.extend(int("cpu_secs", &self.cpu_secs, ranges::CPU_SECS, "seconds"));
        out.extend(int(
            "memory_mib",
            &self.memory_mib,
            ranges::MEMORY_MIB,
            "MiB",
        ));
        out.extend(int(
            "open_files",
            &self.open_files,
            ranges::OPEN_FILES,
            "a count",
        ));
        out.extend(int(
            "file_size_mib",
            &self.file_size_mib,
            ranges::FILE_SIZE_MIB,
            "MiB",
        ));
        out.extend(int(
            "processes",
            &self.processes,
            ranges::PROCESSES,
            "a count",
        ));
        let secs = |name: &str, v: &Option<Spanned<f64>>| secs_in(name, v, ranges::SECS);
        out.extend(secs("timeout_secs", &self.timeout_secs));
        out.extend(secs("scenario_timeout_secs", &self.scenario_timeout_secs));
        out.extend(secs_in(
            "submission_timeout_secs",
            &self.submission_timeout_secs,
            ranges::SUBMISSION_SECS,
        ));
        out
    }
}

/// A `suite.toml` as written. Every key is optional.
///
/// ```toml
/// title = "Solo battleships: published tests"
/// assignment = "solo-10x10"      # every scenario must be for this assignment
/// total_points = 50              # scale the suite's points to this total
/// hidden = ["hidden"]            # folders (relative to this file) of hidden scenarios; "." all
/// hidden_results = "status"      # students see a hidden scenario's pass/fail ("none": nothing)
/// credit = "check"               # points shared among a scenario's checks ("scenario": all or nothing)
/// python_packages = ["numpy"]    # third-party packages the course allows; broadside installs them
/// [rubric]
/// weights = { main = 3 }         # a part of the spec's rubric weighs this instead
/// # off = true                   # no rubric: each scenario weighs its points
/// [limits]
/// timeout_secs = 2
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    pub title: Option<String>,
    pub assignment: Option<Spanned<String>>,
    pub total_points: Option<Spanned<f64>>,
    #[serde(default)]
    pub hidden: Vec<Spanned<String>>,
    pub hidden_results: Option<Spanned<HiddenResults>>,
    /// How a scenario not passed is credited: `check` (the default), a share of its checks;
    /// `scenario`, nothing.
    pub credit: Option<crate::scenario::Credit>,
    /// The third-party Python packages the course allows (pip requirements: `numpy`,
    /// `numpy==1.26.4`). broadside installs them once, before grading, and provides them to
    /// every Python child (see [`crate::target::packages`]); a package a submission imports
    /// and this list does not name is the student's finding. Empty: the standard library only.
    #[serde(default)]
    pub python_packages: Vec<Spanned<String>>,
    /// How the suite's grade is shared among the handout's functions and rules (the
    /// spec's `[rubric]`, [`crate::spec::rubric`]): other weights, or none at all.
    #[serde(default)]
    pub rubric: SuiteRubric,
    #[serde(default)]
    pub limits: SuiteLimits,
}

/// A suite's `[rubric]`: the spec's rubric with other weights, or turned off.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteRubric {
    /// No rubric: each scenario weighs its points, as a spec without one.
    #[serde(default)]
    pub off: bool,
    /// A part's weight by its name (`main = 3`; 0 leaves the part ungraded).
    pub weights: Option<Spanned<std::collections::BTreeMap<String, f64>>>,
}

/// A suite read from its folder, with the file it came from (for diagnostics).
#[derive(Debug, Clone)]
pub struct LoadedSuite {
    /// The suite's folder.
    pub dir: Utf8PathBuf,
    pub source: Source,
    pub suite: Suite,
}

impl LoadedSuite {
    /// Checks the settings that serde cannot: `total_points` positive and finite, `hidden`
    /// folders inside the suite that exist, a known `assignment`.
    ///
    /// `assignment_known` says whether an assignment id has a spec.
    pub fn validate(&self, assignment_known: impl Fn(&str) -> bool) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        let s = &self.suite;
        let (lo, hi) = ranges::TOTAL_POINTS;
        if let Some(t) = &s.total_points
            && !(t.get_ref().is_finite() && (lo..=hi).contains(t.get_ref()))
        {
            out.push(
                Diagnostic::new(
                    &self.source,
                    Some(t.span()),
                    format!("total_points = {} is out of range", t.get_ref()),
                )
                .expected(format!(
                    "points from {lo} to {hi}, e.g. `total_points = 100`"
                )),
            );
        }
        out.extend(s.limits.check(&self.source));
        if let Some(a) = &s.assignment
            && !assignment_known(a.get_ref())
        {
            out.push(
                Diagnostic::new(
                    &self.source,
                    Some(a.span()),
                    format!("unknown assignment `{}`", a.get_ref()),
                )
                .expected("an assignment id that `broadside list` shows, or one of a --spec file"),
            );
        }
        for p in &s.python_packages {
            if !crate::target::packages::is_requirement(p.get_ref()) {
                out.push(
                    Diagnostic::new(
                        &self.source,
                        Some(p.span()),
                        format!("python_packages: `{}` is not a package name", p.get_ref()),
                    )
                    .expected("a package as pip names it, optionally with a version, e.g. `\"numpy\"` or `\"numpy==1.26.4\"` (no options, paths or URLs)"),
                );
            }
        }
        for h in &s.hidden {
            let rel = Utf8Path::new(h.get_ref());
            // "." hides the whole suite.
            let inside = h.get_ref() == "."
                || (!h.get_ref().is_empty()
                    && rel.is_relative()
                    && rel
                        .components()
                        .all(|c| matches!(c, camino::Utf8Component::Normal(_))));
            let problem = if !inside {
                Some("is not a folder inside the suite")
            } else if !self.dir.join(rel).is_dir() {
                Some("is not a folder")
            } else {
                None
            };
            if let Some(problem) = problem {
                out.push(
                    Diagnostic::new(
                        &self.source,
                        Some(h.span()),
                        format!("hidden folder `{}` {problem}", h.get_ref()),
                    )
                    .expected("a folder under the suite's folder, e.g. `hidden = [\"hidden\"]`, or `\".\"` for the whole suite"),
                );
            }
        }
        out
    }

    /// Applies the suite to the scenarios loaded from its folder (others are left alone):
    /// scenarios in a `hidden` folder become at least [`Visibility::Hidden`], a scenario for
    /// another assignment is an error at its `assignment` line, and with `total_points` each
    /// scenario's `max_score` becomes its share of that total.
    pub fn apply(&self, scenarios: &mut [Scenario], deeper: &[Utf8PathBuf]) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        // Compared as absolute paths: the suite's folder is one (see `load::suites`).
        let absolute = |s: &Scenario| -> Utf8PathBuf {
            std::fs::canonicalize(&s.source.path)
                .ok()
                .and_then(|p| Utf8PathBuf::from_path_buf(p).ok())
                .unwrap_or_else(|| Utf8PathBuf::from(&s.source.path))
        };
        let mine: Vec<(Utf8PathBuf, &mut Scenario)> = scenarios
            .iter_mut()
            .map(|s| (absolute(s), s))
            .filter(|(p, _)| p.starts_with(&self.dir))
            .collect();
        // A scenario under a deeper suite is that suite's for its assignment, credit and
        // points; this one's hidden folders still make it less visible.
        let own = |p: &Utf8Path| {
            !deeper
                .iter()
                .any(|d| d != &self.dir && d.starts_with(&self.dir) && p.starts_with(d))
        };
        // One rules copy per rules the suite changes the rubric of, shared by its scenarios.
        let mut rubrics = Rubrics::new();
        let raw_total: u32 = mine
            .iter()
            .filter(|(p, _)| own(p))
            .map(|(_, s)| s.points)
            .sum();
        for (path, s) in mine {
            let path = path.as_path();
            if self
                .suite
                .hidden
                .iter()
                .any(|h| h.get_ref() == "." || path.starts_with(self.dir.join(h.get_ref())))
            {
                s.visibility = s.visibility.max(Visibility::Hidden);
            }
            if !own(path) {
                continue;
            }
            if let Some(a) = &self.suite.assignment
                && a.get_ref() != &s.assignment
            {
                let at = key_span(&s.source.text, "assignment");
                out.push(
                    Diagnostic::new(
                        &s.source,
                        at,
                        format!(
                            "this scenario is for `{}` but its suite ({}) is for `{}`",
                            s.assignment,
                            self.source.path,
                            a.get_ref()
                        ),
                    )
                    .expected(format!("assignment = \"{}\"", a.get_ref())),
                );
            }
            if let Some(c) = self.suite.credit {
                s.credit = c;
            }
            if let Some(d) = self.rubric_of(s, &mut rubrics)
                && !out.iter().any(|o: &Diagnostic| o.message == d.message)
            {
                out.push(d);
            }
            if let Some(t) = &self.suite.total_points
                && raw_total > 0
            {
                s.max_score = f64::from(s.points) * t.get_ref() / f64::from(raw_total);
            }
        }
        out
    }
}

/// The rules a suite's `[rubric]` made, by the rules they were made from.
type Rubrics = Vec<(Arc<Rules>, Arc<Rules>)>;

impl LoadedSuite {
    /// Gives `s` the suite's rubric (the spec's with the suite's weights, or none); an
    /// error names the part the spec's rubric lacks, at the suite's `[rubric]`.
    fn rubric_of(&self, s: &mut Scenario, made: &mut Rubrics) -> Option<Diagnostic> {
        let r = &self.suite.rubric;
        if !r.off && r.weights.is_none() {
            return None;
        }
        if let Some((_, new)) = made.iter().find(|(old, _)| Arc::ptr_eq(old, &s.rules)) {
            s.rules = new.clone();
            return None;
        }
        let rubric = match (&s.rules.rubric, r.off) {
            (_, true) | (None, _) => None,
            (Some(spec), false) => match r.weights.as_ref().map(|w| spec.reweighted(w.get_ref())) {
                None => Some(spec.clone()),
                Some(Ok(w)) => Some(Arc::new(w)),
                Some(Err(e)) => {
                    let at = r.weights.as_ref().map(|w| w.span());
                    return Some(
                        Diagnostic::new(&self.source, at, format!("[rubric] weights: {e}"))
                            .expected("`weights = { PART = WEIGHT }` with the spec's part names"),
                    );
                }
            },
        };
        let new = Arc::new(Rules {
            rubric,
            ..(*s.rules).clone()
        });
        made.push((s.rules.clone(), new.clone()));
        s.rules = new;
        None
    }
}

/// One `[limits]` entry of a suite, as text with where it is written, if set.
type LimitOf = fn(&SuiteLimits) -> Option<(String, std::ops::Range<usize>)>;

/// A set limit as text, with where it is written.
fn spanned<T: std::fmt::Display>(
    v: &Option<Spanned<T>>,
) -> Option<(String, std::ops::Range<usize>)> {
    v.as_ref().map(|v| (v.get_ref().to_string(), v.span()))
}

/// `hidden_results` as `suite.toml` spells it.
fn word(h: HiddenResults) -> &'static str {
    match h {
        HiddenResults::None => "none",
        HiddenResults::Status => "status",
    }
}

/// Every suite of a run, in the order their folders were given.
#[derive(Debug, Clone, Default)]
pub struct Suites(pub Vec<LoadedSuite>);

impl Suites {
    /// The limits of every suite together: each limit as the suite that sets it says (flags
    /// win over them). One run plays every suite's scenarios under one set of limits, so two
    /// suites that set a limit to different values are refused by `Suites::conflicts`.
    pub fn limits(&self) -> SuiteLimits {
        let mut out = SuiteLimits::default();
        for s in &self.0 {
            let l = &s.suite.limits;
            out.cpu_secs = out.cpu_secs.or_else(|| l.cpu_secs.clone());
            out.memory_mib = out.memory_mib.or_else(|| l.memory_mib.clone());
            out.open_files = out.open_files.or_else(|| l.open_files.clone());
            out.file_size_mib = out.file_size_mib.or_else(|| l.file_size_mib.clone());
            out.processes = out.processes.or_else(|| l.processes.clone());
            out.timeout_secs = out.timeout_secs.or_else(|| l.timeout_secs.clone());
            out.scenario_timeout_secs = out
                .scenario_timeout_secs
                .or_else(|| l.scenario_timeout_secs.clone());
            out.submission_timeout_secs = out
                .submission_timeout_secs
                .or_else(|| l.submission_timeout_secs.clone());
        }
        out
    }

    /// What students may see of hidden scenarios: as the suite that says (two that say
    /// differently are refused by `Suites::conflicts`), [`HiddenResults::None`] when none
    /// says.
    pub fn hidden_results(&self) -> HiddenResults {
        self.0
            .iter()
            .find_map(|s| s.suite.hidden_results.as_ref().map(|h| *h.get_ref()))
            .unwrap_or_default()
    }

    /// The settings two suites give different values: a `[limits]` entry (a run has one set
    /// of limits) or `hidden_results` (a student's view has one policy). Each diagnostic
    /// points at the second suite's setting and names the first.
    pub(crate) fn conflicts(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        let fields: [(&str, LimitOf); 8] = [
            ("cpu_secs", |l| spanned(&l.cpu_secs)),
            ("memory_mib", |l| spanned(&l.memory_mib)),
            ("open_files", |l| spanned(&l.open_files)),
            ("file_size_mib", |l| spanned(&l.file_size_mib)),
            ("processes", |l| spanned(&l.processes)),
            ("timeout_secs", |l| spanned(&l.timeout_secs)),
            ("scenario_timeout_secs", |l| {
                spanned(&l.scenario_timeout_secs)
            }),
            ("submission_timeout_secs", |l| {
                spanned(&l.submission_timeout_secs)
            }),
        ];
        for (name, get) in fields {
            let mut first: Option<(String, &LoadedSuite)> = None;
            for s in &self.0 {
                let Some((value, span)) = get(&s.suite.limits) else {
                    continue;
                };
                match &first {
                    None => first = Some((value, s)),
                    Some((v, f)) if *v != value => out.push(
                        Diagnostic::new(
                            &s.source,
                            Some(span),
                            format!(
                                "`{name} = {value}` disagrees with `{name} = {v}` in {}: one run plays every suite's scenarios under the same limits",
                                f.source.path
                            ),
                        )
                        .expected(format!("the same `{name}` in both suites, or in one of them only")),
                    ),
                    Some(_) => {}
                }
            }
        }
        let said: Vec<(&LoadedSuite, &Spanned<HiddenResults>)> = self
            .0
            .iter()
            .filter_map(|s| s.suite.hidden_results.as_ref().map(|h| (s, h)))
            .collect();
        if let Some((first, h)) = said.first() {
            for (s, other) in &said[1..] {
                if other.get_ref() != h.get_ref() {
                    out.push(
                        Diagnostic::new(
                            &s.source,
                            Some(other.span()),
                            format!(
                                "`hidden_results = \"{}\"` disagrees with `hidden_results = \"{}\"` in {}: students see every hidden scenario of a run the same way",
                                word(*other.get_ref()),
                                word(*h.get_ref()),
                                first.source.path
                            ),
                        )
                        .expected("the same `hidden_results` in both suites, or in one of them only"),
                    );
                }
            }
        }
        out
    }

    /// The third-party Python packages every suite allows together, in order, each once.
    pub fn python_packages(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for p in self.0.iter().flat_map(|s| &s.suite.python_packages) {
            if !out.contains(p.get_ref()) {
                out.push(p.get_ref().clone());
            }
        }
        out
    }

    /// The first suite's title, if any.
    pub fn title(&self) -> Option<String> {
        self.0.iter().find_map(|s| s.suite.title.clone())
    }

    /// The assignment the suites are for, when they say and agree.
    pub fn assignment(&self) -> Option<String> {
        let mut ids = self
            .0
            .iter()
            .filter_map(|s| s.suite.assignment.as_ref().map(|a| a.get_ref().clone()));
        let first = ids.next()?;
        ids.all(|a| a == first).then_some(first)
    }
}

/// The span of a top-level `key = …` line's key in TOML `text`, if there is one.
fn key_span(text: &str, key: &str) -> Option<std::ops::Range<usize>> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let rest = line.trim_start();
        if rest.starts_with(key) && rest[key.len()..].trim_start().starts_with('=') {
            let start = at + (line.len() - rest.len());
            return Some(start..start + key.len());
        }
        at += line.len();
    }
    None
}
