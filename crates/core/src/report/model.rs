//! The report data model every format is a view of.

use crate::fault::Fault;
use crate::scenario::{Scenario, Visibility};
use serde::{Deserialize, Serialize};

/// The JSON report's `format_version`; bumped on any incompatible change of shape.
pub const FORMAT_VERSION: u32 = 1;

/// A whole run: one target against a list of scenarios.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Report {
    pub format_version: u32,
    /// `broadside <version>`.
    pub tool: String,
    /// The target as given (`python:PATH`); in a student view each path in it is cut to its
    /// last part (`python:alice`, see [`super::without_grader_paths`]).
    pub target: String,
    pub summary: Summary,
    pub scenarios: Vec<ScenarioResult>,
    /// Faults of the submission as a whole, outside any scenario (a `leak`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<Fault>,
    /// How the target was contained, where it matters (e.g. no network isolation).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Wall-clock milliseconds the whole run took: the one field (with each scenario's
    /// `elapsed_ms`) that differs between two runs of the same inputs.
    #[serde(default)]
    pub elapsed_ms: u64,
    /// `grade` only: SHA-256 (hex) of the scenarios graded (each file's path and text, its
    /// score and visibility) and of the target, limits and student view, so `--resume`
    /// regrades a report whose suite or settings have changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenarios_digest: Option<String>,
    /// `grade` only: the name of the submission folder this report was made from, spelled
    /// so that no two names read alike (`\` doubled, control characters as `\u{1b}`, bytes
    /// that are not UTF-8 as `\xNN`), so `--resume` reuses a report only for that folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// `grade --marking` only: the submission's marking sheet (the handout's whole marking
    /// scheme, the automatic criteria marked, the marker's with their figures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marking: Option<super::marking::Sheet>,
    /// The score per handout function or group of rules, by the rubric of the spec (or of
    /// `suite.toml`); absent when no scenario played has one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rubric: Vec<super::rubric::PartScore>,
}

/// Counts over the scenarios of a report.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Summary {
    pub scenarios: usize,
    pub passed: usize,
    pub failed: usize,
    /// Scenarios the target could not finish (a fault, not a wrong answer).
    pub errors: usize,
    /// Scenarios not graded because broadside's own side failed (status `not-graded`): when
    /// not 0, the score is no grade. Left out when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_graded: usize,
    /// Points earned, as the scenario files give them: a scenario's points are shared among
    /// its checks (a dialogue's: its rules), so this may be fractional (rounded to 2
    /// decimals; written as an integer when whole).
    #[serde(serialize_with = "points2")]
    pub points: f64,
    pub max_points: u32,
    /// The grade: `points` scaled by each suite's `total_points`, rounded to 2 decimals
    /// (equal to `points` when no suite scales).
    pub score: f64,
    pub max_score: f64,
    /// False when nothing of the submission could be graded: its module does not import,
    /// it defines none of the handout's functions, it does not compile (every scenario
    /// ended in an error worth nothing, the first of them one `setup` fault shared by
    /// every `setup` fault; see `not_gradable`). Its score is 0 and PrairieLearn does not
    /// count the attempt. Left out when true.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub gradable: bool,
    /// Why the submission could not be graded (only when `gradable` is false): the
    /// `setup` fault's message, e.g. `the module does not import: importing battleships.py
    /// raised SyntaxError: …`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_gradable: Option<String>,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// Why nothing of a submission could be graded, if so (see [`Summary::gradable`]): every
/// scenario ended in an error worth nothing, and every `setup` fault among them (there is
/// one at least) says the same. A Python module that does not import fails every step
/// scenario at `hello`, and its `main()` fails every dialogue, each its own way.
fn unbuilt(results: &[ScenarioResult]) -> Option<String> {
    use crate::fault::FaultKind;
    let core = |f: &Fault| super::text::core_message(&f.message).trim_end().to_string();
    // A report of an older broadside says an import's SyntaxError as an `exception`.
    fn setup(r: &ScenarioResult) -> Option<&Fault> {
        r.fault.as_ref().filter(|f| {
            f.kind == FaultKind::Setup
                || (f.kind == FaultKind::Exception
                    && f.message.starts_with("importing ")
                    && ["SyntaxError", "IndentationError", "TabError"]
                        .iter()
                        .any(|e| f.message.contains(&format!("raised {e}"))))
        })
    }
    let first = results.iter().find_map(setup)?;
    let all_errors = results
        .iter()
        .all(|r| r.status == Status::Error && r.score == 0.0);
    let one_reason = results
        .iter()
        .filter_map(setup)
        .all(|f| core(f) == core(first));
    (all_errors && one_reason).then(|| core(first))
}

/// How a scenario ended.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Passed,
    /// The target answered, but not as expected.
    Failed,
    /// The target did not answer (a fault).
    Error,
    /// Not graded: broadside's own side failed while playing it (a `harness` fault: its
    /// driver could not be started, say). It says nothing of the submission, earns nothing
    /// and costs nothing: a report with such a scenario is no grade, `run` exits 3 and
    /// `grade` leaves the submission not graded, to be graded again with `--resume`.
    NotGraded,
}

/// One scenario's result.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScenarioResult {
    /// The scenario file, as given on the command line; in a student view, as named within
    /// its suite (`hidden/b.toml`: no folder of the grader's, see
    /// [`super::without_grader_paths`]).
    pub path: String,
    /// For a published scenario (one built into broadside, unchanged): its name as
    /// `broadside show` takes it, `ASSIGNMENT/FILE-STEM` (e.g. `colab-6x6/01-handout-example`),
    /// so a student without the files can read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    pub assignment: String,
    pub mode: String,
    pub title: String,
    pub status: Status,
    /// Points earned: `max_points` times the share of its checks (a dialogue's rules) it
    /// passed, rounded to 4 decimals; written as an integer when whole.
    #[serde(serialize_with = "points4")]
    pub points: f64,
    pub max_points: u32,
    /// What the scenario earned in the grade (`max_score` when it passed, else the share
    /// of its checks passed; by the rubric, each check weighs its part's share), rounded to
    /// 4 decimals.
    #[serde(serialize_with = "rounded4")]
    pub score: f64,
    /// What the scenario is worth in the grade, rounded to 4 decimals: `points` scaled by
    /// the suite's `total_points`; with a rubric, the shares of the parts its checks judge
    /// (the suite's total is unchanged).
    #[serde(serialize_with = "rounded4")]
    pub max_score: f64,
    pub visibility: Visibility,
    pub tags: Vec<String>,
    /// Steps in the scenario.
    pub steps: usize,
    /// Steps played before it ended (all of them when it passed).
    pub steps_run: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
    /// A step scenario's checks (each `expect`, each `state` and `[end]` key): how many it
    /// has, and how many passed (a check not reached for a fault counts as failed). Points
    /// are shared among them under `credit = "check"`. 0 for a dialogue (see `rules`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub checks: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub checks_passed: usize,
    /// A step scenario's checks by rubric part, as the harness judged them (empty without
    /// a rubric); [`super::rubric::apply`] shares the grade by them.
    #[serde(skip)]
    pub judged: Vec<super::rubric::Judged>,
    /// The divergences after the first (`divergence`), in order, each marked with how it
    /// follows from the earlier ones.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub later: Vec<Divergence>,
    /// A dialogue's marking sheet: each handout rule it judges, with its verdict and the
    /// evidence. The scenario's points are shared equally among them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleResult>,
    /// A dialogue's input conventions other than the handout's that the program needed
    /// (`mode key \`s\``, `the column asked first`), and how its layout was learnt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conventions: Vec<String>,
    /// Wall-clock milliseconds the scenario took (timing, not behaviour: redacted in
    /// snapshots).
    #[serde(default)]
    pub elapsed_ms: u64,
    /// Set in a student's view of a hidden scenario: its steps, expectations and fault
    /// message were removed (see [`super::for_students`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub details_hidden: bool,
}

/// How a dialogue judged one handout rule.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Seen, and every time as the handout says.
    Passed,
    /// Seen at least once otherwise than the handout says (`evidence` shows it).
    Failed,
    /// Never seen: the game ended first, or gave no occasion (`evidence` says why). Earns
    /// nothing: a rule is credited only for what the program was seen to do.
    NotObserved,
}

impl Verdict {
    /// The word the text report and Gradescope show.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed => "failed",
            Verdict::NotObserved => "not judged",
        }
    }
}

/// One line of a dialogue's marking sheet.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct RuleResult {
    /// The rule's id, e.g. `penalty-on-repeat`.
    pub rule: String,
    /// What the rule says, in a sentence.
    pub title: String,
    /// The handout clause it comes from, quoted (`§4: "If the user has already attacked
    /// that location ... print penalty"`).
    pub clause: String,
    pub verdict: Verdict,
    /// Failed: what was expected, what the program did, and the move; not observed: why.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub evidence: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn points4<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    whole_or(round_to(*v, 4), s)
}

/// `v` rounded to 2 decimals, written as an integer when whole (summaries).
pub fn points2<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    whole_or(round_to(*v, 2), s)
}

/// `v` as an integer when it is whole (so all-or-nothing reports read as they always did),
/// else as a decimal.
fn whole_or<S: serde::Serializer>(v: f64, s: S) -> Result<S::Ok, S::Error> {
    if v.fract() == 0.0 && (0.0..4e15).contains(&v) {
        s.serialize_u64(v as u64)
    } else {
        s.serialize_f64(v)
    }
}

fn rounded4<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(round_to(*v, 4))
}

/// `v` rounded to `places` decimals (half away from zero).
pub fn round_to(v: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (v * f).round() / f
}

/// Where and how a target first differed from the scenario.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct Divergence {
    /// 1-based step number; `None` for the `[end]` checks.
    pub step: Option<usize>,
    /// 1-based line in the scenario file.
    pub line: usize,
    /// The action, in the assignment's notation (e.g. `fire B3`).
    pub action: String,
    /// `outcome`, or the state key that differed.
    pub check: String,
    pub expected: String,
    pub actual: String,
    /// The scenario author's note on the step, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// What the student's code printed during the step, if anything; for a dialogue, the
    /// conversation's last lines (see `conversation`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Set for a dialogue: `output` is the conversation's last lines, earlier moves included,
    /// with `> line` for each line broadside sent.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub conversation: bool,
    /// The board after the step as the reference plays it, ships shown, row 0 first.
    pub board: Vec<String>,
    /// What each glyph of `board` means (the handout's alphabet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legend: Option<String>,
    /// For a divergence after a scenario's first: how it stands to the earlier ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follows: Option<Follows>,
    /// The student function the check judges (the spec's `[checks]`, or the function the
    /// driver says decided the answer), e.g. `remaining_ships`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// The handout's words for what the answer should have been (the event's clause for an
    /// outcome, the `[checks]` row's for a state key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clause: Option<String>,
    /// The function was handed the reference's state for this check, not its own: the
    /// divergence is that function's alone, whatever happened before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub given: bool,
}

/// How a later divergence stands to the earlier ones of its scenario, so that a student
/// reads the cause first.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Follows {
    /// The same check failed the same way before: one bug, seen again.
    Again,
    /// An earlier action was answered otherwise than the reference, so the target's game
    /// had already departed from the reference's: this may follow from that.
    Consequence,
}

impl ScenarioResult {
    /// How a reader names the scenario: its published name, else its path.
    pub fn name(&self) -> &str {
        self.published.as_deref().unwrap_or(&self.path)
    }

    /// Where a line of the scenario file can be read, for feedback: `of `broadside show
    /// NAME`` for a published scenario (a student has the command, not the file), else `of
    /// PATH`. "move 4 (line 12)" is said only with it (issue 35, item 17).
    pub fn line_of(&self) -> String {
        match &self.published {
            Some(name) => format!("of `broadside show {name}`"),
            None => format!("of {}", self.path),
        }
    }

    /// A result not yet decided (status `error` until the harness says otherwise).
    pub fn new(s: &Scenario) -> ScenarioResult {
        ScenarioResult {
            path: s.source.path.clone(),
            published: crate::published::name_of(&s.source.path, &s.source.text),
            assignment: s.assignment.clone(),
            mode: s.rules.mode.clone(),
            title: s.title.clone(),
            status: Status::Error,
            points: 0.0,
            max_points: s.points,
            score: 0.0,
            max_score: s.max_score,
            visibility: s.visibility,
            tags: s.tags.clone(),
            steps: s.steps.len(),
            steps_run: 0,
            divergence: None,
            fault: None,
            checks: 0,
            checks_passed: 0,
            judged: Vec::new(),
            later: Vec::new(),
            rules: Vec::new(),
            conventions: Vec::new(),
            elapsed_ms: 0,
            details_hidden: false,
        }
    }

    /// Marks the result passed: full points and score.
    pub fn passed(mut self) -> ScenarioResult {
        self.status = Status::Passed;
        self.points = f64::from(self.max_points);
        self.score = self.max_score;
        self
    }

    /// Credits `share` (0–1) of the scenario's points and score: the part of its checks it
    /// passed.
    pub fn credited(mut self, share: f64) -> ScenarioResult {
        let share = share.clamp(0.0, 1.0);
        self.points = round_to(f64::from(self.max_points) * share, 4);
        self.score = round_to(self.max_score * share, 4);
        self
    }

    pub fn failed(mut self, d: Divergence) -> ScenarioResult {
        self.status = Status::Failed;
        self.divergence = Some(d);
        self
    }

    /// A fault while reading the `[end]` state, after every step was played.
    pub(crate) fn errored_at_end(mut self, f: Fault) -> ScenarioResult {
        let message = format!("while reading the state at the end: {}", f.message);
        self.status = Status::Error;
        self.steps_run = self.steps;
        self.fault = Some(Fault { message, ..f });
        self
    }

    /// Marks the result not graded (see [`Status::NotGraded`]): no points, and no score.
    pub fn not_graded(mut self) -> ScenarioResult {
        self.status = Status::NotGraded;
        self.points = 0.0;
        self.score = 0.0;
        self
    }

    pub fn errored(mut self, f: Fault, step: Option<usize>) -> ScenarioResult {
        self.status = Status::Error;
        self.steps_run = step.unwrap_or(0);
        self.fault = Some(f);
        self
    }
}

impl Summary {
    /// Counts and sums over `results`.
    pub fn of(results: &[ScenarioResult]) -> Summary {
        let count = |st: Status| results.iter().filter(|r| r.status == st).count();
        let graded = || results.iter().filter(|r| r.status != Status::NotGraded);
        Summary {
            scenarios: results.len(),
            passed: count(Status::Passed),
            failed: count(Status::Failed),
            errors: count(Status::Error),
            not_graded: count(Status::NotGraded),
            points: round_to(results.iter().map(|r| r.points).sum(), 2),
            // A scenario left not graded (broadside's own failure) costs the student nothing:
            // it stands in neither the points nor the maximum.
            max_points: graded().map(|r| r.max_points).sum(),
            score: round_to(results.iter().map(|r| r.score).sum(), 2),
            max_score: round_to(graded().map(|r| r.max_score).sum(), 2),
            gradable: unbuilt(results).is_none(),
            not_gradable: unbuilt(results),
        }
    }
}

impl Report {
    /// A report over `results` for the target named `target`.
    pub fn new(target: String, results: Vec<ScenarioResult>) -> Report {
        let summary = Summary::of(&results);
        Report {
            format_version: FORMAT_VERSION,
            tool: format!("broadside {}", env!("CARGO_PKG_VERSION")),
            target,
            summary,
            scenarios: results,
            faults: Vec::new(),
            notes: Vec::new(),
            elapsed_ms: 0,
            scenarios_digest: None,
            folder: None,
            marking: None,
            rubric: Vec::new(),
        }
    }

    /// A report over `results`, the results of `scenarios`, with the grade shared by the
    /// scenarios' rubric ([`super::rubric::apply`]).
    pub fn graded(
        target: String,
        scenarios: &[crate::scenario::Scenario],
        mut results: Vec<ScenarioResult>,
    ) -> Report {
        let rubric = super::rubric::apply(scenarios, &mut results);
        Report {
            rubric,
            ..Report::new(target, results)
        }
    }

    /// Why the report is no grade, when broadside itself failed to play some scenario
    /// (status `not-graded`): how many, and the first one's fault (`harness` faults name
    /// broadside's own programs, never a scenario's steps).
    pub fn not_graded(&self) -> Option<String> {
        let first = self
            .scenarios
            .iter()
            .find(|r| r.status == Status::NotGraded)?;
        let n = self.summary.not_graded;
        Some(format!(
            "{n} scenario{} not graded: broadside's own side failed ({})",
            if n == 1 { "" } else { "s" },
            first.fault.as_ref().map_or("", |f| f.message.as_str())
        ))
    }

    /// Whether every scenario passed and the submission left nothing behind.
    pub fn all_passed(&self) -> bool {
        self.summary.passed == self.summary.scenarios && self.faults.is_empty()
    }
}

/// Short names for scenario files: each path without the folder all of them share and
/// without `.toml` (`fixtures/scenarios/solo-10x10/fire-hit.toml` among its siblings gives
/// `fire-hit`; a single file gives its stem). Used where a column or test needs a name.
pub fn scenario_ids<'a>(paths: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    relative_paths(paths)
        .into_iter()
        .map(|s| match s.strip_suffix(".toml") {
            Some(stem) => stem.to_string(),
            None => s,
        })
        .collect()
}

/// Each path without the folder all of them share (`/srv/suite/hidden/b.toml` among
/// `/srv/suite/a.toml` gives `hidden/b.toml`; a single file gives its file name): a
/// scenario's file as named within its suite, whatever the path it was loaded by.
pub(crate) fn relative_paths<'a>(paths: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    use camino::Utf8Path;
    let paths: Vec<&Utf8Path> = paths.into_iter().map(Utf8Path::new).collect();
    let mut common: Option<&Utf8Path> = paths.first().and_then(|p| p.parent());
    for p in &paths {
        while let Some(c) = common {
            if p.starts_with(c) {
                break;
            }
            common = c.parent();
        }
    }
    paths
        .iter()
        .map(|p| {
            let rel = common.and_then(|c| p.strip_prefix(c).ok()).unwrap_or(p);
            rel.as_str().to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::scenario_ids;

    #[test]
    fn scenario_ids_drop_the_shared_folder_and_the_extension() {
        let ids = scenario_ids(["s/solo/a.toml", "s/solo/hidden/b.toml", "s/solo/c.toml"]);
        assert_eq!(ids, ["a", "hidden/b", "c"]);
        assert_eq!(scenario_ids(["x/one.toml"]), ["one"]);
        assert_eq!(scenario_ids(["a.toml", "b/c.toml"]), ["a", "b/c"]);
    }

    #[test]
    fn relative_paths_keep_the_file_name_and_are_already_relative_once_made() {
        use super::relative_paths;
        let rel = relative_paths(["/srv/suite/a.toml", "/srv/suite/hidden/b.toml"]);
        assert_eq!(rel, ["a.toml", "hidden/b.toml"]);
        assert_eq!(relative_paths(rel.iter().map(String::as_str)), rel);
        assert_eq!(relative_paths(["/tmp/x/one.toml"]), ["one.toml"]);
        assert_eq!(
            relative_paths(["/a/x.toml", "/b/y.toml"]),
            ["a/x.toml", "b/y.toml"]
        );
    }
}
