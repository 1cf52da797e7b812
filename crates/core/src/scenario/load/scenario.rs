//! The entry point [`parse`], the checking context `Cx` that every concern's checks share,
//! and the scenario's own header and game.

use crate::cell::{Cell, RawCell};
use crate::diag::{self, Diagnostic, Source};
use crate::engine::Game;
use crate::scenario::model::{Check, Credit, Expected, Scenario, Setup, Step, Visibility};
use crate::scenario::schema::{RawScenario, RawState, RawStep};
use crate::spec::{Given, Rules, SpecSet};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::Arc;
use toml::Spanned;

/// Parses and checks one scenario against its spec.
///
/// Errors: every problem found, each with `file:line:col`, what is wrong and what was
/// expected: TOML syntax, unknown keys, an unknown assignment, cells off the board in a
/// setup, ships that overlap or touch where the spec forbids it, outcome words or state
/// keys the assignment cannot produce, alternatives without an `accept_also` decision.
/// Never panics.
pub fn parse(source: &Source, specs: &SpecSet) -> Result<Scenario, Vec<Diagnostic>> {
    let raw: RawScenario =
        toml::from_str(&source.text).map_err(|e| vec![diag::from_toml(source, &e)])?;
    let mut cx = Cx {
        source,
        errors: Vec::new(),
    };
    let scenario = cx.scenario(raw, specs);
    match scenario {
        Some(s) if cx.errors.is_empty() => Ok(s),
        _ => {
            cx.errors
                .sort_by_key(|d| d.span.as_ref().map_or(0, |s| s.start));
            Err(cx.errors)
        }
    }
}

pub(super) struct Cx<'a> {
    pub(super) source: &'a Source,
    pub(super) errors: Vec<Diagnostic>,
}

impl Cx<'_> {
    pub(super) fn err(
        &mut self,
        span: Range<usize>,
        message: impl Into<String>,
        expected: impl Into<String>,
    ) {
        self.errors
            .push(Diagnostic::new(self.source, Some(span), message).expected(expected));
    }

    pub(super) fn line(&self, span: &Range<usize>) -> usize {
        self.source.line_col(span.start).0
    }

    /// The whole scenario: its spec and mode, then the header, then the game (`setup`,
    /// `steps`, `end`) or the `dialogue`.
    fn scenario(&mut self, raw: RawScenario, specs: &SpecSet) -> Option<Scenario> {
        let rules = self.rules(&raw, specs)?;
        let rules = self.resize(rules, &raw.setup)?;
        let rules = beyond_fleet(rules, &raw);
        let points = self.points(raw.points.as_ref());
        let mut scenario = Scenario {
            source: self.source.clone(),
            assignment: raw.assignment.get_ref().clone(),
            title: raw.title.clone().unwrap_or_else(|| self.stem()),
            description: raw.description.clone(),
            points,
            max_score: f64::from(points),
            credit: Credit::default(),
            given: self.given(raw.given.as_ref()),
            visibility: self.visibility(raw.visibility.as_ref()),
            tags: raw.tags.clone(),
            rules: rules.clone(),
            setup: Setup::default(),
            steps: Vec::new(),
            end: Vec::new(),
            dialogue: None,
        };
        if let Some(d) = &raw.dialogue {
            scenario.dialogue = Some(self.dialogue(d, &raw, &scenario.assignment)?);
            return Some(scenario);
        }
        self.game(&raw, &rules, &mut scenario);
        Some(scenario)
    }

    /// The rules of the scenario's assignment in its mode (before `[setup]` resizes them).
    fn rules(&mut self, raw: &RawScenario, specs: &SpecSet) -> Option<Arc<Rules>> {
        let id = raw.assignment.get_ref();
        let Some(spec) = specs.get(id) else {
            self.err(
                raw.assignment.span(),
                format!("unknown assignment `{id}`"),
                format!(
                    "one of: {}; or a course's spec file passed with --spec (or among the paths)",
                    specs.ids().join(", ")
                ),
            );
            return None;
        };
        let mode = raw.mode.as_ref().map(|m| m.get_ref().as_str());
        if let Some(rules) = spec.rules(mode) {
            return Some(rules.clone());
        }
        let m = raw.mode.as_ref().expect("a missing mode always resolves");
        let modes: Vec<&str> = spec.modes.keys().map(String::as_str).collect();
        self.err(
            m.span(),
            format!("{id} has no mode `{}`", m.get_ref()),
            format!("one of: {}", modes.join(", ")),
        );
        None
    }

    /// `points`: 0 to 1,000,000, default 1.
    fn points(&mut self, points: Option<&Spanned<i64>>) -> u32 {
        match points {
            None => 1,
            Some(p) if (0..=1_000_000).contains(p.get_ref()) => *p.get_ref() as u32,
            Some(p) => {
                self.err(
                    p.span(),
                    format!("points = {} is out of range", p.get_ref()),
                    "a whole number from 0 to 1000000",
                );
                0
            }
        }
    }

    /// `visibility`: `visible` (the default), `hidden` or `after-due-date`.
    fn visibility(&mut self, v: Option<&Spanned<String>>) -> Visibility {
        match v.map(|v| (v.get_ref().as_str(), v.span())) {
            None | Some(("visible", _)) => Visibility::Visible,
            Some(("hidden", _)) => Visibility::Hidden,
            Some(("after-due-date", _)) => Visibility::AfterDueDate,
            Some((other, span)) => {
                self.err(
                    span,
                    format!("unknown visibility `{other}`"),
                    "`visible`, `hidden` or `after-due-date`",
                );
                Visibility::Visible
            }
        }
    }

    /// `given = "own"`, or none.
    fn given(&mut self, given: Option<&Spanned<String>>) -> Option<Given> {
        match given.map(|g| (g.get_ref().as_str(), g.span())) {
            None => None,
            Some(("own", _)) => Some(Given::Own),
            Some((other, span)) => {
                self.err(
                    span,
                    format!("unknown given `{other}`"),
                    "`own` (the spec's `[checks]` decides the rest)",
                );
                None
            }
        }
    }

    /// The game of a step scenario: the setup, the steps, the `[end]` checks, into
    /// `scenario`; a scenario that checks nothing is reported.
    fn game(&mut self, raw: &RawScenario, rules: &Arc<Rules>, scenario: &mut Scenario) {
        let mut game = Game::new(rules.clone());
        let setup = self.setup(&raw.setup, rules, &mut game);
        let mut placed: BTreeSet<usize> = setup.items.iter().map(|(i, _)| *i).collect();
        let steps: Vec<Step> = raw
            .steps
            .iter()
            .filter_map(|s| self.step(s, rules, &mut placed))
            .collect();
        self.placements_first(&raw.steps);
        let end = match &raw.end {
            Some(e) => self.end(e.get_ref(), rules),
            None => Vec::new(),
        };
        let checks_something = steps
            .iter()
            .any(|s| s.expect.is_some() || !s.checks.is_empty())
            || !end.is_empty();
        if !checks_something
            && (!raw.steps.is_empty() || raw.end.is_some())
            && self.errors.is_empty()
        {
            self.errors.push(
                Diagnostic::new(self.source, None, "the scenario checks nothing: no step has `expect` or `state`, and there is no [end]")
                    .expected("at least one expectation"),
            );
        }
        if raw.steps.is_empty() && raw.end.is_none() {
            self.errors.push(
                Diagnostic::new(
                    self.source,
                    None,
                    "the scenario has no steps and no [end] checks",
                )
                .expected("at least one [[steps]] entry or an [end] table"),
            );
        }
        scenario.setup = setup;
        scenario.steps = steps;
        scenario.end = end;
    }

    /// Every handout places its fleet before play begins (solo-10x10 "To begin the game";
    /// move-limit-10x10 Part A before Part B; grenades-8x8 steps 1–2 before step 4).
    fn placements_first(&mut self, steps: &[Spanned<RawStep>]) {
        let mut shot = false;
        for step in steps {
            let st = step.get_ref();
            let plays = st.fire.is_some() || st.drone.is_some() || st.missile.is_some();
            match &st.place {
                Some(p) if shot => self.err(
                    p.span(),
                    "a placement after play has begun",
                    "every `place` step before the first `fire`, `drone` or `missile`",
                ),
                Some(_) => {}
                None => shot |= plays,
            }
        }
    }

    /// The `[end]` checks, with the table's own `decision`.
    fn end(&mut self, end: &RawState, rules: &Rules) -> Vec<Check> {
        let given = end.decision.as_ref();
        let decision = self
            .decision(given, rules)
            .or(given.map(|d| d.get_ref().clone()));
        let checks = self.checks(end, rules, decision);
        self.decision_needs_a_list(given, has_alternatives(&checks));
        checks
    }

    /// The file's name without `.toml`: the default title.
    fn stem(&self) -> String {
        self.source
            .path
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .trim_end_matches(".toml")
            .to_string()
    }

    /// A `decision` only goes with a step (or `[end]`) that lists several accepted values.
    pub(super) fn decision_needs_a_list(
        &mut self,
        decision: Option<&Spanned<String>>,
        lists: bool,
    ) {
        if let Some(d) = decision
            && !lists
        {
            self.err(
                d.span(),
                "`decision` goes only with several accepted values",
                "a list such as `expect = [\"miss\", \"hit\"]` or `moves = [3, 4]`, or no `decision`",
            );
        }
    }

    pub(super) fn decision(
        &mut self,
        d: Option<&Spanned<String>>,
        rules: &Rules,
    ) -> Option<String> {
        let d = d?;
        match rules.decision(d.get_ref()) {
            Some(dec) if dec.accept_also => Some(dec.id.clone()),
            Some(_) => {
                self.err(
                    d.span(),
                    format!("decision `{}` does not accept another reading", d.get_ref()),
                    "a decision with `accept_also = true`",
                );
                None
            }
            None => {
                let ids: Vec<&str> = rules
                    .decisions
                    .iter()
                    .filter(|d| d.accept_also)
                    .map(|d| d.id.as_str())
                    .collect();
                self.err(
                    d.span(),
                    format!("{} records no decision `{}`", rules.id, d.get_ref()),
                    if ids.is_empty() {
                        "no `decision` (this assignment accepts no alternatives)".to_string()
                    } else {
                        format!("one of: {}", ids.join(", "))
                    },
                );
                None
            }
        }
    }
}

/// Whether any check lists several accepted values.
pub(super) fn has_alternatives(checks: &[Check]) -> bool {
    checks.iter().any(|c| match &c.expected {
        Expected::Count(l) => l.len() > 1,
        Expected::Bool(l) => l.len() > 1,
        Expected::Player(l) => l.len() > 1,
        _ => false,
    })
}

/// The rules with room for every ship the scenario puts down, where the spec lets a `place`
/// step go past the fleet (`[placement] beyond_fleet`, solo-10x10's decision
/// `placement-counts`: ok_to_place_ship_at is given no kind, so legality is the board and
/// the touching rule alone). Per kind, the ships `[setup.ships]` and the `place` steps name
/// (by name or kind, a step expecting only `rejected` aside) past that kind's count in the
/// fleet each get an item of their own ([`Rules::with_extra`], `battleship-2`); the rules are
/// the spec's own (the same `Arc`) when nothing goes past the fleet.
fn beyond_fleet(rules: Arc<Rules>, raw: &RawScenario) -> Arc<Rules> {
    if !rules.place_beyond_fleet || rules.players.len() > 1 {
        return rules;
    }
    let kind_of = |name: &str| {
        rules
            .items
            .iter()
            .find(|i| i.name == name || i.kind == name)
            .map(|i| i.kind.clone())
    };
    let mut named: BTreeMap<String, usize> = BTreeMap::new();
    let setup = raw.setup.ships.iter().flat_map(|s| s.get_ref().keys());
    // A step that expects only `rejected` puts nothing down (its ship stays to place).
    let placed = raw.steps.iter().filter_map(|s| {
        let s = s.get_ref();
        if s.expect
            .as_ref()
            .is_some_and(|e| e.get_ref().only_rejection())
        {
            return None;
        }
        match s.place.as_ref()?.get_ref() {
            crate::scenario::raw::PlaceInput::Table { ship: Some(n), .. } => Some(n.clone()),
            _ => None,
        }
    });
    for name in setup.map(|n| n.get_ref().clone()).chain(placed) {
        if let Some(kind) = kind_of(&name) {
            *named.entry(kind).or_default() += 1;
        }
    }
    let mut out = rules.clone();
    for (kind, n) in named {
        let mut of_kind: Vec<usize> = (0..rules.items.len())
            .filter(|&i| rules.items[i].kind == kind)
            .collect();
        while of_kind.len() < n {
            out = Arc::new(out.with_extra(of_kind[0]));
            of_kind.push(out.items.len() - 1);
        }
    }
    out
}

pub(super) fn on_board(rules: &Rules, c: RawCell) -> Option<Cell> {
    rules.cell(c)
}

pub(super) fn board_range(rules: &Rules) -> String {
    let n = rules.notation;
    let first = n.format(RawCell { row: 0, col: 0 });
    let last = n.format(RawCell {
        row: i64::from(rules.rows) - 1,
        col: i64::from(rules.cols) - 1,
    });
    format!("a cell from {first} to {last}")
}

/// Loads scenario text for the split pieces' tests.
#[cfg(test)]
pub(super) mod testing {
    use crate::diag::Source;
    use crate::scenario::Scenario;
    use crate::spec::SpecSet;

    /// A colab-6x6 setup to which a test adds its steps.
    pub(crate) const COLAB: &str = "assignment = \"colab-6x6\"\n[setup.ships]\nSubmarine = [\"B2\", \"B3\"]\nDestroyer = [\"D3\", \"E3\", \"F3\"]\nCruiser = [\"A4\", \"A5\", \"A6\"]\n";

    /// The scenario `text` loads as, or each problem as "message @ the text it points at".
    pub fn load(text: &str) -> Result<Scenario, Vec<String>> {
        let specs = SpecSet::builtin();
        super::parse(&Source::new("t.toml", text), &specs).map_err(|errors| {
            errors
                .iter()
                .map(|d| {
                    let at = d.span.clone().map_or("", |s| &text[s]);
                    format!("{} @ {at}", d.message)
                })
                .collect()
        })
    }

    /// The problems of `text`, which must not load.
    pub fn problems(text: &str) -> Vec<String> {
        load(text).expect_err("a broken scenario")
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{COLAB, load, problems};

    #[test]
    fn a_table_of_the_wrong_kind_is_named_in_the_files_words_not_by_a_type_of_ours() {
        let cases = [
            (
                "assignment = \"colab-6x6\"\nsetup = 5\n",
                "a `[setup]` table",
            ),
            (
                "assignment = \"colab-6x6\"\nsteps = [1]\n",
                "a `[[steps]]` table",
            ),
            (
                "assignment = \"colab-6x6\"\ndialogue = 5\n",
                "a `[dialogue]` table",
            ),
            (
                &format!("{COLAB}[[steps]]\nfire = \"A1\"\nexpect = \"miss\"\nstate = 1\n"),
                "a table of state keys",
            ),
        ];
        for (text, wanted) in cases {
            let found = problems(text);
            assert!(
                found.iter().any(|p| p.contains(wanted))
                    && found.iter().all(|p| !p.contains("Raw")),
                "{found:?}"
            );
        }
    }

    #[test]
    fn a_scenario_header_reports_each_bad_field() {
        let text = format!(
            "points = -1\nvisibility = \"secret\"\ngiven = \"theirs\"\n{COLAB}[[steps]]\nfire = \"A1\"\nexpect = \"miss\"\n"
        );
        assert_eq!(
            problems(&text),
            [
                "points = -1 is out of range @ -1",
                "unknown visibility `secret` @ \"secret\"",
                "unknown given `theirs` @ \"theirs\"",
            ]
        );
    }

    #[test]
    fn an_unknown_mode_names_the_spec() {
        let text = "assignment = \"battleboats\"\nmode = \"hard\"\n";
        assert_eq!(
            problems(text),
            ["battleboats has no mode `hard` @ \"hard\""]
        );
    }

    #[test]
    fn a_placement_after_the_first_shot_is_reported() {
        let text = "assignment = \"solo-10x10\"\n[[steps]]\nfire = \"(0, 0)\"\nexpect = \"miss\"\n[[steps]]\nplace = { ship = \"battleship\", at = \"(2, 2)\", dir = \"right\" }\nexpect = \"ok\"\n";
        let found = problems(text);
        assert!(
            found
                .iter()
                .any(|p| p.starts_with("a placement after play has begun @ {")),
            "{found:?}"
        );
    }

    #[test]
    fn a_good_scenario_loads_with_its_end_checks() {
        let text =
            format!("{COLAB}[[steps]]\nfire = \"B2\"\nexpect = \"hit\"\n[end]\nwon = false\n");
        let s = load(&text).expect("loads");
        assert_eq!((s.steps.len(), s.end.len(), s.points), (1, 1, 1));
    }
}
