//! Reading a scenario file: TOML → checked [`Scenario`], every problem a [`Diagnostic`].

use super::model::{
    Action, Check, Credit, Dialogue, Expect, Expected, Move, Scenario, Setup, Step, Visibility,
};
use super::schema::{RawDialogue, RawScenario, RawSetup, RawState, RawStep};
use crate::cell::{Cell, MAX_SIDE, RawCell};
use crate::diag::{self, Diagnostic, Source};
use crate::engine::{Axis, Dir, Game, Outcome, QueryValue};
use crate::spec::{Meaning, Rules, SpecSet, StateKey};
use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::Arc;
use toml::{Spanned, Value};

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

struct Cx<'a> {
    source: &'a Source,
    errors: Vec<Diagnostic>,
}

impl Cx<'_> {
    fn err(&mut self, span: Range<usize>, message: impl Into<String>, expected: impl Into<String>) {
        self.errors
            .push(Diagnostic::new(self.source, Some(span), message).expected(expected));
    }

    fn line(&self, span: &Range<usize>) -> usize {
        self.source.line_col(span.start).0
    }

    fn scenario(&mut self, raw: RawScenario, specs: &SpecSet) -> Option<Scenario> {
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
        let Some(rules) = spec.rules(mode) else {
            let m = raw.mode.as_ref().expect("a missing mode always resolves");
            let modes: Vec<&str> = spec.modes.keys().map(String::as_str).collect();
            self.err(
                m.span(),
                format!("{id} has no mode `{}`", m.get_ref()),
                format!("one of: {}", modes.join(", ")),
            );
            return None;
        };
        let rules = self.resize(rules.clone(), &raw.setup)?;
        let points = match &raw.points {
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
        };
        let visibility = match raw
            .visibility
            .as_ref()
            .map(|v| (v.get_ref().as_str(), v.span()))
        {
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
        };
        let given = match raw.given.as_ref().map(|g| (g.get_ref().as_str(), g.span())) {
            None => None,
            Some(("own", _)) => Some(crate::spec::Given::Own),
            Some((other, span)) => {
                self.err(
                    span,
                    format!("unknown given `{other}`"),
                    "`own` (the spec's `[checks]` decides the rest)",
                );
                None
            }
        };
        // Filled in below: the game (`setup`, `steps`, `end`) or the `dialogue`.
        let mut scenario = Scenario {
            source: self.source.clone(),
            assignment: id.clone(),
            title: raw.title.clone().unwrap_or_else(|| self.stem()),
            description: raw.description.clone(),
            points,
            max_score: f64::from(points),
            credit: Credit::default(),
            given,
            visibility,
            tags: raw.tags.clone(),
            rules: rules.clone(),
            setup: Setup::default(),
            steps: Vec::new(),
            end: Vec::new(),
            dialogue: None,
        };
        if let Some(d) = &raw.dialogue {
            scenario.dialogue = Some(self.dialogue(d, &raw, id)?);
            return Some(scenario);
        }
        let mut game = Game::new(rules.clone());
        let setup = self.setup(&raw.setup, &rules, &mut game);
        let mut placed: BTreeSet<usize> = setup.items.iter().map(|(i, _)| *i).collect();
        let steps: Vec<Step> = raw
            .steps
            .iter()
            .filter_map(|s| self.step(s, &rules, &mut placed))
            .collect();
        // Every handout places its fleet before play begins (solo-10x10 "To begin the game";
        // move-limit-10x10 Part A before Part B; grenades-8x8 steps 1–2 before step 4).
        let mut shot = false;
        for step in &raw.steps {
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
        let end = match &raw.end {
            Some(e) => {
                let given = e.get_ref().decision.as_ref();
                let decision = self
                    .decision(given, &rules)
                    .or(given.map(|d| d.get_ref().clone()));
                let checks = self.checks(e.get_ref(), &rules, decision);
                self.decision_needs_a_list(given, has_alternatives(&checks));
                checks
            }
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
        Some(scenario)
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

    /// Checks `[dialogue]`: moves from the assignment's vocabulary, no `setup`, `steps` or
    /// `[end]` beside it.
    fn dialogue(
        &mut self,
        d: &toml::Spanned<RawDialogue>,
        raw: &RawScenario,
        id: &str,
    ) -> Option<Dialogue> {
        let Some(vocabulary) = super::plan::vocabulary(id) else {
            self.err(
                d.span(),
                format!("{id} has no dialogue scenarios"),
                format!(
                    "`[dialogue]` only for an assignment graded as a whole program: {}",
                    super::plan::assignments().join(", ")
                ),
            );
            return None;
        };
        let setup = &raw.setup;
        let any_setup = setup.ships.is_some()
            || setup.players.is_some()
            || setup.first.is_some()
            || setup.rows.is_some()
            || setup.cols.is_some()
            || setup.fleet.is_some();
        if !raw.steps.is_empty() || raw.end.is_some() || any_setup {
            self.err(
                d.span(),
                "a dialogue scenario with `setup`, `steps` or `[end]`",
                "either `[dialogue]` (a planned game the program's own layout decides) or `setup` and `steps`, not both",
            );
            return None;
        }
        let moves = d.get_ref().moves.get_ref();
        if moves.is_empty() {
            self.err(
                d.get_ref().moves.span(),
                "a dialogue without moves",
                format!("at least one of: {}", vocabulary.join(", ")),
            );
        }
        let mut out = Vec::new();
        for m in moves {
            if vocabulary.contains(&m.get_ref().as_str()) {
                out.push(Move {
                    name: m.get_ref().clone(),
                    line: self.line(&m.span()),
                });
            } else {
                self.err(
                    m.span(),
                    format!("unknown move `{}` for {id}", m.get_ref()),
                    format!("one of: {}", vocabulary.join(", ")),
                );
            }
        }
        if out.len() == moves.len() {
            let names: Vec<&str> = out.iter().map(|m| m.name.as_str()).collect();
            if let Err((k, why)) = super::plan::check_plan(id, &names) {
                self.err(
                    moves[k].span(),
                    format!("move `{}` cannot be played here", names[k]),
                    why,
                );
            }
        }
        let seed = match &d.get_ref().seed {
            None => 1,
            Some(s) if *s.get_ref() >= 0 => *s.get_ref() as u64,
            Some(s) => {
                self.err(
                    s.span(),
                    format!("seed = {} is negative", s.get_ref()),
                    "a whole number from 0",
                );
                1
            }
        };
        self.errors
            .is_empty()
            .then_some(Dialogue { moves: out, seed })
    }

    /// Applies `[setup] rows/cols/fleet` (a handout's small worked example).
    fn resize(&mut self, rules: Arc<Rules>, setup: &RawSetup) -> Option<Arc<Rules>> {
        if setup.rows.is_none() && setup.cols.is_none() && setup.fleet.is_none() {
            return Some(rules);
        }
        let mut side = |v: &Option<Spanned<i64>>, default: u8| -> Option<u8> {
            match v {
                None => Some(default),
                Some(s) if (1..=i64::from(MAX_SIDE)).contains(s.get_ref()) => {
                    Some(*s.get_ref() as u8)
                }
                Some(s) => {
                    self.err(
                        s.span(),
                        format!("board side {} is out of range", s.get_ref()),
                        format!("1 to {MAX_SIDE}"),
                    );
                    None
                }
            }
        };
        let rows = side(&setup.rows, rules.rows)?;
        let cols = side(&setup.cols, rules.cols)?;
        let fleet = match &setup.fleet {
            None => {
                // Only the board changes; the fleet must still fit its longest ship.
                let longest = rules.items.iter().map(|i| i.length).max().unwrap_or(1);
                if longest > rows.max(cols) {
                    let span = setup
                        .rows
                        .as_ref()
                        .or(setup.cols.as_ref())
                        .map(|s| s.span())
                        .unwrap_or(0..0);
                    self.err(span, format!("the {} fleet's longest ship ({longest} cells) does not fit a {rows}×{cols} board", rules.id), "a board at least as long as the longest ship, or a `fleet` of your own");
                    return None;
                }
                return Some(Arc::new(rules.with_board(rows, cols)));
            }
            Some(f) => {
                if rules.players.len() > 1 || rules.has_grenades() {
                    self.err(
                        f.span(),
                        "this assignment's fleet cannot be replaced",
                        "no `fleet` in [setup]",
                    );
                    return None;
                }
                let entries: Vec<(String, u8)> = f
                    .get_ref()
                    .iter()
                    .map(|e| (e.name.clone(), e.length))
                    .collect();
                if entries.iter().any(|(_, l)| *l == 0 || *l > rows.max(cols)) {
                    self.err(
                        f.span(),
                        "a fleet entry's length does not fit the board",
                        "lengths from 1 to the board side",
                    );
                    return None;
                }
                let names: BTreeSet<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
                if entries.is_empty() || entries.len() > 64 || names.len() != entries.len() {
                    self.err(
                        f.span(),
                        "a replacement fleet must have 1 to 64 ships with distinct names",
                        "entries like `{ name = \"boat\", length = 3 }`, each name once",
                    );
                    return None;
                }
                entries
            }
        };
        Some(Arc::new(rules.with_board_and_fleet(rows, cols, fleet)))
    }

    fn setup(&mut self, raw: &RawSetup, rules: &Arc<Rules>, game: &mut Game) -> Setup {
        let mut setup = Setup::default();
        let two = rules.players.len() > 1;
        if let Some(ships) = &raw.ships {
            if two {
                self.err(
                    ships.span(),
                    "two-player setups list ships per player",
                    "[setup.players.<name>] with `ships` and `grenades`",
                );
            } else {
                // In file order, so the later of two clashing ships is the one blamed.
                let mut in_file: Vec<_> = ships.get_ref().iter().collect();
                in_file.sort_by_key(|(name, _)| name.span().start);
                for (name, value) in in_file {
                    let Some(item) = rules.items.iter().position(|i| i.name == *name.get_ref())
                    else {
                        let names: Vec<&str> =
                            rules.items.iter().map(|i| i.name.as_str()).collect();
                        self.err(
                            name.span(),
                            format!("{} has no ship named `{}`", rules.id, name.get_ref()),
                            format!("one of: {}", names.join(", ")),
                        );
                        continue;
                    };
                    if let Some(cells) = self.ship_cells(value, item, rules) {
                        self.put(game, item, &cells, value.span(), rules, &mut setup);
                    }
                }
            }
        }
        if let Some(players) = &raw.players {
            if !two {
                self.err(
                    players.span(),
                    format!("{} is a one-player game", rules.id),
                    "[setup.ships]",
                );
            } else {
                for (name, p) in players.get_ref() {
                    let Some(owner) = rules.player(name.get_ref()) else {
                        self.err(
                            name.span(),
                            format!("unknown player `{}`", name.get_ref()),
                            format!("one of: {}", rules.players.join(", ")),
                        );
                        continue;
                    };
                    for (grenade, list) in [(false, &p.ships), (true, &p.grenades)] {
                        let mut slots = (0..rules.items.len()).filter(|&i| {
                            rules.items[i].owner == owner && rules.items[i].grenade == grenade
                        });
                        for value in list {
                            let what = if grenade { "grenades" } else { "ships" };
                            let Some(item) = slots.next() else {
                                self.err(
                                    value.span(),
                                    format!(
                                        "{} has more {what} than the fleet holds",
                                        name.get_ref()
                                    ),
                                    format!(
                                        "at most {} {what}",
                                        rules
                                            .items
                                            .iter()
                                            .filter(|i| i.owner == owner && i.grenade == grenade)
                                            .count()
                                    ),
                                );
                                break;
                            };
                            if let Some(cells) = self.ship_cells(value, item, rules) {
                                self.put(game, item, &cells, value.span(), rules, &mut setup);
                            }
                        }
                    }
                }
            }
        }
        if let Some(first) = &raw.first {
            match rules.player(first.get_ref()) {
                Some(p) if two => setup.first = Some(p),
                _ => self.err(
                    first.span(),
                    format!(
                        "`first = \"{}\"` names no player of {}",
                        first.get_ref(),
                        rules.id
                    ),
                    if two {
                        format!("one of: {}", rules.players.join(", "))
                    } else {
                        "no `first` in a one-player game".to_string()
                    },
                ),
            }
        }
        setup.items.sort();
        setup
    }

    fn put(
        &mut self,
        game: &mut Game,
        item: usize,
        cells: &[Cell],
        span: Range<usize>,
        rules: &Rules,
        setup: &mut Setup,
    ) {
        match game.place_cells(item, cells) {
            Ok(()) => setup.items.push((item, game.item_cells(item).to_vec())),
            Err(e) => {
                let rule = match rules.touching {
                    crate::spec::Touching::Allowed => "ships that do not overlap",
                    crate::spec::Touching::ForbiddenEdge => {
                        "ships that neither overlap nor share an edge"
                    }
                    crate::spec::Touching::ForbiddenEdgeAndCorner => {
                        "ships at least one cell apart, diagonals included"
                    }
                };
                let expected = match e {
                    crate::engine::PlaceError::NotALine => format!(
                        "{} consecutive cells in one row or column",
                        rules.items[item].length
                    ),
                    crate::engine::PlaceError::OffBoard => {
                        format!("cells on the {}×{} board", rules.rows, rules.cols)
                    }
                    _ => format!("{rule} ({})", rules.id),
                };
                self.err(
                    span,
                    format!("{} {}", rules.label(item), e.describe(rules)),
                    expected,
                );
            }
        }
    }

    /// A ship's cells: a list of cells, a single cell (one-cell items), or `{ at, dir }`.
    fn ship_cells(
        &mut self,
        value: &Spanned<Value>,
        item: usize,
        rules: &Rules,
    ) -> Option<Vec<Cell>> {
        let span = value.span();
        let length = rules.items[item].length;
        let raw_cells: Vec<RawCell> = match value.get_ref() {
            // `[2, 3]`: one raw `[row, col]` pair (a one-cell item, a grenade-8x8 ship or
            // grenade), not a list of two cells.
            Value::Array(list)
                if list.len() == 2 && list.iter().all(|v| matches!(v, Value::Integer(_))) =>
            {
                vec![self.cell_value(value.get_ref(), span.clone(), rules)?]
            }
            Value::Array(list) => list
                .iter()
                .map(|v| self.cell_value(v, span.clone(), rules))
                .collect::<Option<_>>()?,
            Value::String(_) => vec![self.cell_value(value.get_ref(), span.clone(), rules)?],
            Value::Table(t) => {
                let at = t
                    .get("at")
                    .and_then(|v| self.cell_value(v, span.clone(), rules));
                let dir = match t.get("dir") {
                    None if length == 1 => Some(Dir::Right),
                    Some(v) => Some(self.direction(v, span.clone())?),
                    None => None,
                };
                if let Some(k) = t.keys().find(|k| *k != "at" && *k != "dir") {
                    self.err(
                        span,
                        format!("unknown key `{k}` in a ship table"),
                        "only `at` and `dir`",
                    );
                    return None;
                }
                match (at, dir, None::<()>) {
                    (Some(at), Some(dir), None) => {
                        let (dr, dc) = dir.delta();
                        (0..i64::from(length))
                            .map(|i| RawCell {
                                row: at.row.saturating_add(dr * i),
                                col: at.col.saturating_add(dc * i),
                            })
                            .collect()
                    }
                    _ => {
                        self.err(
                            span,
                            "a ship given as a table needs `at` and `dir`",
                            "`{ at = CELL, dir = \"right\" | \"down\" | \"left\" | \"up\" }`",
                        );
                        return None;
                    }
                }
            }
            _ => {
                self.err(
                    span,
                    "a ship's position must be a list of cells or a table",
                    format!(
                        "e.g. [\"{0}\", …] or {{ at = \"{0}\", dir = \"right\" }}",
                        rules.notation.example()
                    ),
                );
                return None;
            }
        };
        let mut cells = Vec::new();
        for c in raw_cells {
            match on_board(rules, c) {
                Some(cell) => cells.push(cell),
                None => {
                    self.err(
                        span,
                        format!(
                            "{} has cell {} off the {}×{} board",
                            rules.label(item),
                            rules.notation.format(c),
                            rules.rows,
                            rules.cols
                        ),
                        board_range(rules),
                    );
                    return None;
                }
            }
        }
        Some(cells)
    }

    /// One cell: a string in the notation, or a raw `[row, col]` pair. May be off the board.
    fn cell_value(&mut self, v: &Value, span: Range<usize>, rules: &Rules) -> Option<RawCell> {
        match v {
            Value::String(s) => match rules.notation.parse(s) {
                Ok(c) => Some(c),
                Err(expected) => {
                    self.err(
                        span,
                        format!("`{s}` is not a cell in the notation of {}", rules.id),
                        expected,
                    );
                    None
                }
            },
            Value::Array(pair) => match pair.as_slice() {
                [Value::Integer(r), Value::Integer(c)] => Some(RawCell { row: *r, col: *c }),
                _ => {
                    self.err(
                        span,
                        "a raw cell must be two integers",
                        "`[row, col]`, zero-based, e.g. `[6, 0]`",
                    );
                    None
                }
            },
            _ => {
                self.err(
                    span,
                    "not a cell",
                    format!(
                        "a cell like \"{}\" or a raw `[row, col]` pair",
                        rules.notation.example()
                    ),
                );
                None
            }
        }
    }

    /// A `dir` value: `right`, `down`, `left` or `up`; anything else is reported.
    fn direction(&mut self, v: &Value, span: Range<usize>) -> Option<Dir> {
        if let Some(d) = v.as_str().and_then(Dir::from_word) {
            return Some(d);
        }
        let shown = v.as_str().map_or_else(|| v.to_string(), String::from);
        self.err(
            span,
            format!("`{shown}` is not a direction"),
            "`dir = \"right\"`, `\"down\"`, `\"left\"` or `\"up\"`",
        );
        None
    }

    /// A `query` or `probe` name the spec does not define.
    fn unknown_name(
        &mut self,
        span: Range<usize>,
        rules: &Rules,
        what: &str,
        name: &str,
        names: &[&str],
    ) {
        let expected = if names.is_empty() {
            format!("no `{what}` (this assignment has none)")
        } else {
            format!("one of: {}", names.join(", "))
        };
        self.err(
            span,
            format!("{} has no {what} `{name}`", rules.id),
            expected,
        );
    }

    /// A `query = NAME` step with its `at` cell.
    fn query(
        &mut self,
        value: &Spanned<Value>,
        at: Option<&Spanned<Value>>,
        step: Range<usize>,
        rules: &Rules,
    ) -> Option<Action> {
        let name = value.get_ref().as_str().unwrap_or_default();
        let Some(q) = rules.query(name) else {
            let names: Vec<&str> = rules.queries.iter().map(|q| q.name.as_str()).collect();
            self.unknown_name(value.span(), rules, "query", name, &names);
            return None;
        };
        let Some(at_value) = at else {
            self.err(
                step,
                format!("query `{name}` needs the cell it asks about"),
                format!("`at = \"{}\"`", rules.notation.example()),
            );
            return None;
        };
        let cell = self.cell_value(at_value.get_ref(), at_value.span(), rules)?;
        let off_ok = matches!(
            q.meaning,
            Meaning::Valid | Meaning::Targeted | Meaning::ShipAt
        );
        if !off_ok && on_board(rules, cell).is_none() {
            self.err(
                at_value.span(),
                format!(
                    "`{}` takes a cell on the board (the handout assumes one)",
                    q.function
                ),
                board_range(rules),
            );
            return None;
        }
        Some(Action::Query {
            name: name.to_string(),
            meaning: q.meaning,
            at: cell,
        })
    }

    /// The expected answer of a query: `true`/`false`, or a ship name or `"none"`.
    fn query_value(
        &mut self,
        e: &Spanned<Value>,
        meaning: Meaning,
        rules: &Rules,
        has_decision: bool,
    ) -> Option<Expect> {
        let value = match (meaning, e.get_ref()) {
            (Meaning::ShipAt, Value::String(s)) if s == "none" => QueryValue::Ship(None),
            (Meaning::ShipAt, Value::String(s))
                if (0..rules.items.len())
                    .any(|i| !rules.items[i].grenade && rules.label(i) == *s) =>
            {
                QueryValue::Ship(Some(s.clone()))
            }
            (Meaning::ShipAt, _) => {
                let names: Vec<String> = (0..rules.items.len())
                    .filter(|&i| !rules.items[i].grenade)
                    .map(|i| rules.label(i))
                    .collect();
                self.err(
                    e.span(),
                    "this query answers with a ship name",
                    format!("one of: {}, or \"none\"", names.join(", ")),
                );
                return None;
            }
            (_, Value::Boolean(b)) => QueryValue::Bool(*b),
            // Both truth values, under an accept_also decision: any true/false answer passes.
            (_, Value::Array(a))
                if has_decision
                    && a.len() == 2
                    && a.iter().all(|v| v.as_bool().is_some())
                    && a[0] != a[1] =>
            {
                return Some(Expect {
                    outcomes: vec![Outcome::Ok],
                    ship: None,
                    owner: None,
                    count: None,
                    cells: None,
                    value: None,
                });
            }
            _ => {
                self.err(
                    e.span(),
                    "this query answers true or false",
                    "`expect = true` or `expect = false`",
                );
                return None;
            }
        };
        Some(Expect {
            outcomes: vec![Outcome::Ok],
            ship: None,
            owner: None,
            count: None,
            cells: None,
            value: Some(value),
        })
    }

    /// A `decision` only goes with a step (or `[end]`) that lists several accepted values.
    fn decision_needs_a_list(&mut self, decision: Option<&Spanned<String>>, lists: bool) {
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

    fn decision(&mut self, d: Option<&Spanned<String>>, rules: &Rules) -> Option<String> {
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

    fn step(
        &mut self,
        raw: &Spanned<RawStep>,
        rules: &Arc<Rules>,
        placed: &mut BTreeSet<usize>,
    ) -> Option<Step> {
        let span = raw.span();
        let line = self.line(&span);
        let s = raw.get_ref();
        // A decision that does not check is reported once; the step is still read as if it
        // did, so its alternatives do not cascade into a second error.
        let decision = self
            .decision(s.decision.as_ref(), rules)
            .or(s.decision.as_ref().map(|d| d.get_ref().clone()));
        let actions = [
            ("fire", &s.fire),
            ("drone", &s.drone),
            ("missile", &s.missile),
            ("place", &s.place),
            ("query", &s.query),
            ("probe", &s.probe),
            ("random_layouts", &s.random_layouts),
        ];
        let given: Vec<_> = actions.iter().filter(|(_, v)| v.is_some()).collect();
        if given.len() != 1 {
            let what = if given.is_empty() {
                "a step has no action".to_string()
            } else {
                format!("a step has {} actions", given.len())
            };
            self.err(
                span,
                what,
                "exactly one of `fire`, `drone`, `missile`, `place`, `query`, `probe`, `random_layouts`",
            );
            return None;
        }
        let (kind, value) = (given[0].0, given[0].1.as_ref().expect("present"));
        if let Some(p) = &s.player
            && (kind != "fire" || rules.players.len() < 2)
        {
            self.err(
                p.span(),
                "`player` is only for `fire` in two-player games",
                "no `player` here",
            );
        }
        if let Some(a) = &s.at
            && kind != "query"
        {
            self.err(
                a.span(),
                "`at` is only for `query` steps",
                "the cell inside the action, e.g. `fire = \"B3\"`",
            );
        }
        let action = match kind {
            "query" => self.query(value, s.at.as_ref(), span.clone(), rules)?,
            "probe" => {
                let name = value.get_ref().as_str().unwrap_or_default();
                if rules.probe(name).is_none() {
                    let names: Vec<&str> = rules.probes.iter().map(|p| p.name.as_str()).collect();
                    self.unknown_name(value.span(), rules, "probe", name, &names);
                    return None;
                }
                Action::Probe {
                    name: name.to_string(),
                }
            }
            "random_layouts" => {
                if rules.random_layout.is_none() {
                    self.err(
                        value.span(),
                        format!("{} students write no random-fleet function", rules.id),
                        "no `random_layouts` step",
                    );
                    return None;
                }
                match value
                    .get_ref()
                    .as_integer()
                    .and_then(|n| u32::try_from(n).ok())
                    .filter(|n| (2..=10_000).contains(n))
                {
                    Some(count) => Action::RandomLayouts { count },
                    None => {
                        self.err(
                            value.span(),
                            "`random_layouts` is how many fleets to draw",
                            "a whole number from 2 to 10000",
                        );
                        return None;
                    }
                }
            }
            "fire" => {
                let at = self.cell_value(value.get_ref(), value.span(), rules)?;
                let player = match &s.player {
                    Some(p) if rules.players.len() > 1 => match rules.player(p.get_ref()) {
                        Some(i) => Some(i),
                        None => {
                            self.err(
                                p.span(),
                                format!("unknown player `{}`", p.get_ref()),
                                format!("one of: {}", rules.players.join(", ")),
                            );
                            return None;
                        }
                    },
                    _ => None,
                };
                Action::Fire { player, at }
            }
            "drone" => {
                if rules.drone_uses.is_none() {
                    self.err(
                        value.span(),
                        format!("{} has no drone", rules.id),
                        "`fire` (this assignment has no powers)",
                    );
                    return None;
                }
                let t = value.get_ref().as_table();
                let pick = |k: &str| t.and_then(|t| t.get(k)).and_then(Value::as_integer);
                match (t.map(|t| t.len()), pick("row"), pick("col")) {
                    (Some(1), Some(i), None) => Action::Drone {
                        axis: Axis::Row,
                        index: i,
                    },
                    (Some(1), None, Some(i)) => Action::Drone {
                        axis: Axis::Col,
                        index: i,
                    },
                    _ => {
                        self.err(
                            value.span(),
                            "a drone scans one row or one column",
                            "`{ row = N }` or `{ col = N }`, zero-based",
                        );
                        return None;
                    }
                }
            }
            "missile" => {
                if rules.missile_uses.is_none() {
                    self.err(
                        value.span(),
                        format!("{} has no missile", rules.id),
                        "`fire` (this assignment has no missile)",
                    );
                    return None;
                }
                Action::Missile {
                    at: self.cell_value(value.get_ref(), value.span(), rules)?,
                }
            }
            _ if !rules.place_steps => {
                self.err(
                    value.span(),
                    format!("{} students write no placement code to call", rules.id),
                    "ships in [setup] (this assignment's handout gives a valid fleet)",
                );
                return None;
            }
            _ => self.place(value, rules, placed, s.expect.as_ref())?,
        };
        let expect = s
            .expect
            .as_ref()
            .and_then(|e| self.expect(e, &action, rules, decision.is_some()));
        let checks = match &s.state {
            Some(st) => {
                if let Some(d) = &st.get_ref().decision {
                    self.err(
                        d.span(),
                        "`decision` inside `state` is not read",
                        "`decision = \"…\"` on the step itself",
                    );
                }
                self.checks(st.get_ref(), rules, decision.clone())
            }
            None => Vec::new(),
        };
        // A query whose answer may be either truth value counts as a list of two.
        let either = matches!(action, Action::Query { .. })
            && expect.as_ref().is_some_and(|e| e.value.is_none());
        let lists = expect.as_ref().is_some_and(|e| e.outcomes.len() > 1)
            || has_alternatives(&checks)
            || either;
        self.decision_needs_a_list(s.decision.as_ref(), lists);
        Some(Step {
            line,
            action,
            expect,
            note: s.note.clone(),
            checks,
        })
    }

    fn place(
        &mut self,
        value: &Spanned<Value>,
        rules: &Arc<Rules>,
        placed: &mut BTreeSet<usize>,
        expect: Option<&Spanned<Value>>,
    ) -> Option<Action> {
        let span = value.span();
        let Some(t) = value.get_ref().as_table() else {
            self.err(
                span,
                "`place` must be a table",
                "`{ ship = NAME, at = CELL, dir = \"right\" }`",
            );
            return None;
        };
        if let Some(k) = t
            .keys()
            .find(|k| !["ship", "at", "dir", "player"].contains(&k.as_str()))
        {
            self.err(
                span,
                format!("unknown key `{k}` in `place`"),
                "`ship`, `at`, `dir` and (two-player games) `player`",
            );
            return None;
        }
        let player = match t.get("player") {
            None => None,
            Some(Value::String(p)) => Some(p.as_str()),
            Some(other) => {
                self.err(
                    span.clone(),
                    format!("`player = {other}` is not a player name"),
                    format!("one of: {}", rules.players.join(", ")),
                );
                return None;
            }
        };
        let owner = match player {
            None => 0,
            Some(p) => match rules.player(p) {
                Some(i) => i,
                None => {
                    self.err(
                        span.clone(),
                        format!("unknown player `{p}`"),
                        format!("one of: {}", rules.players.join(", ")),
                    );
                    return None;
                }
            },
        };
        let Some(name) = t.get("ship").and_then(Value::as_str) else {
            self.err(
                span,
                "`place` needs `ship`",
                "a ship name or kind from the fleet",
            );
            return None;
        };
        let mine = |i: &usize| rules.items[*i].owner == owner;
        // A ship named again once placed stands for the next of its kind still to place:
        // legality is the board and the touching rules only (solo-10x10's decision
        // placement-counts), so a second ship of a length is placed, not refused.
        let named = (0..rules.items.len())
            .filter(mine)
            .find(|&i| rules.items[i].name == name);
        let kind = named.map_or(name, |i| rules.items[i].kind.as_str());
        // With no other of its kind left (move-limit-10x10's one ship per type), the named
        // ship itself: the engine then refuses it as already placed, as that handout asks.
        let item = named
            .filter(|i| !placed.contains(i))
            .or_else(|| {
                (0..rules.items.len())
                    .filter(mine)
                    .find(|&i| rules.items[i].kind == kind && !placed.contains(&i))
            })
            .or(named);
        let Some(item) = item else {
            let kinds: BTreeSet<&str> = rules.items.iter().map(|i| i.kind.as_str()).collect();
            if kinds.contains(kind) {
                self.err(
                    span,
                    format!("every `{kind}` of the {} fleet is already placed", rules.id),
                    "a kind with a ship still to place, or a `rejected` expectation on earlier steps",
                );
                return None;
            }
            self.err(
                span,
                format!("no ship `{name}` in the {} fleet", rules.id),
                format!(
                    "a name or kind from: {}",
                    kinds.into_iter().collect::<Vec<_>>().join(", ")
                ),
            );
            return None;
        };
        let at = self.cell_value(
            t.get("at").unwrap_or(&Value::Boolean(false)),
            span.clone(),
            rules,
        )?;
        let dir = match t.get("dir") {
            None if rules.items[item].length == 1 => Dir::Right,
            Some(v) => self.direction(v, span.clone())?,
            None => {
                self.err(
                    span,
                    "`place` needs a direction",
                    "`dir = \"right\"`, `\"down\"`, `\"left\"` or `\"up\"`",
                );
                return None;
            }
        };
        let rejected = expect.is_some_and(|e| expects_only_rejection(e.get_ref()));
        if !rejected {
            placed.insert(item);
        }
        Some(Action::Place { item, at, dir })
    }

    fn expect(
        &mut self,
        e: &Spanned<Value>,
        action: &Action,
        rules: &Rules,
        has_decision: bool,
    ) -> Option<Expect> {
        let span = e.span();
        let allowed: Vec<Outcome> = match action {
            Action::Fire { .. } => rules.fire_outcomes(),
            Action::Drone { .. } => vec![
                Outcome::Drone,
                Outcome::UsedUp,
                Outcome::Invalid,
                Outcome::GameOver,
            ],
            Action::Missile { .. } => vec![
                Outcome::Missile,
                Outcome::UsedUp,
                Outcome::Invalid,
                Outcome::GameOver,
            ],
            Action::Place { .. } | Action::Probe { .. } | Action::RandomLayouts { .. } => {
                vec![Outcome::Ok, Outcome::Rejected]
            }
            Action::Query { meaning, .. } => {
                return self.query_value(e, *meaning, rules, has_decision);
            }
        };
        let mut out = Expect {
            outcomes: vec![],
            ship: None,
            owner: None,
            count: None,
            cells: None,
            value: None,
        };
        let words: Vec<Value> = match e.get_ref() {
            Value::String(_) => vec![e.get_ref().clone()],
            Value::Array(a) => a.clone(),
            Value::Table(t) => {
                for (k, v) in t {
                    match (k.as_str(), v) {
                        ("outcome", _) => {}
                        ("ship", Value::String(s)) => out.ship = Some(s.clone()),
                        ("owner", Value::String(s)) if rules.player(s).is_some() => {
                            out.owner = Some(s.clone())
                        }
                        ("count", Value::Integer(n)) if u32::try_from(*n).is_ok() => {
                            out.count = u32::try_from(*n).ok()
                        }
                        ("cells", Value::Table(cells)) => {
                            let mut list = Vec::new();
                            for (c, o) in cells {
                                let raw = self.cell_value(
                                    &Value::String(c.clone()),
                                    span.clone(),
                                    rules,
                                )?;
                                let Some(cell) = on_board(rules, raw) else {
                                    self.err(
                                        span.clone(),
                                        format!("missile cell `{c}` is off the board"),
                                        board_range(rules),
                                    );
                                    return None;
                                };
                                let Some(o) = o.as_str().and_then(Outcome::from_word).filter(|o| {
                                    matches!(
                                        o,
                                        Outcome::Miss
                                            | Outcome::Hit
                                            | Outcome::Sunk
                                            | Outcome::Repeated
                                    )
                                }) else {
                                    self.err(
                                        span.clone(),
                                        format!("missile cell `{c}` has no valid outcome"),
                                        "\"miss\", \"hit\", \"sunk\" or \"repeated\"",
                                    );
                                    return None;
                                };
                                list.push((cell, o));
                            }
                            list.sort();
                            out.cells = Some(list);
                        }
                        ("owner", v) => {
                            let shown = v.as_str().map_or_else(|| v.to_string(), String::from);
                            self.err(
                                span.clone(),
                                format!("`{shown}` is not a player of {}", rules.id),
                                format!("`owner` one of: {}", rules.players.join(", ")),
                            );
                            return None;
                        }
                        ("ship" | "count" | "cells", v) => {
                            self.err(
                                span.clone(),
                                format!("`{k} = {v}` has the wrong kind of value"),
                                "`ship` a name, `count` a whole number, `cells` a table of cell = outcome",
                            );
                            return None;
                        }
                        _ => {
                            self.err(span.clone(), format!("`{k}` is not a valid detail here"), "`outcome`, `ship` (a name), `owner` (a player), `count` (a whole number) or `cells` (a table of cell = outcome)");
                            return None;
                        }
                    }
                }
                match t.get("outcome") {
                    Some(Value::Array(a)) => a.clone(),
                    Some(v) => vec![v.clone()],
                    None if out.count.is_some() => vec![Value::String("drone".into())],
                    None if out.cells.is_some() => vec![Value::String("missile".into())],
                    None => {
                        self.err(
                            span,
                            "an expectation table needs `outcome`",
                            "e.g. `{ outcome = \"sunk\", ship = \"Submarine\" }`",
                        );
                        return None;
                    }
                }
            }
            _ => {
                self.err(
                    span,
                    "`expect` must be an outcome word, a list of them, or a table",
                    "e.g. `expect = \"hit\"`",
                );
                return None;
            }
        };
        if words.is_empty() {
            self.err(
                span,
                "`expect` lists no outcome",
                "at least one outcome word",
            );
            return None;
        }
        // Details belong to the actions that report them.
        let fits = match action {
            Action::Fire { .. } => out.count.is_none() && out.cells.is_none(),
            Action::Drone { .. } => {
                out.ship.is_none() && out.owner.is_none() && out.cells.is_none()
            }
            Action::Missile { .. } => {
                out.ship.is_none() && out.owner.is_none() && out.count.is_none()
            }
            _ => {
                out.ship.is_none()
                    && out.owner.is_none()
                    && out.count.is_none()
                    && out.cells.is_none()
            }
        };
        if !fits {
            self.err(span, "this expectation has a detail its action never reports", "`ship`/`owner` with `fire`, `count` with `drone`, `cells` with `missile`, none with `place`");
            return None;
        }
        for (detail, given) in [
            ("ship", out.ship.is_some()),
            ("owner", out.owner.is_some()),
            ("count", out.count.is_some()),
            ("cells", out.cells.is_some()),
        ] {
            if given && !rules.details.iter().any(|d| d == detail) {
                let shown = if rules.details.is_empty() {
                    "none".to_string()
                } else {
                    rules.details.join(", ")
                };
                self.err(
                    span,
                    format!("{} does not report a `{detail}` with its answers", rules.id),
                    format!("only these details: {shown}"),
                );
                return None;
            }
        }
        if let (Action::Missile { at }, Some(cells)) = (action, &out.cells) {
            let struck: BTreeSet<Cell> = (-1..=1)
                .flat_map(|dr| (-1..=1).map(move |dc| (dr, dc)))
                .filter_map(|(dr, dc)| {
                    on_board(
                        rules,
                        RawCell {
                            row: at.row.saturating_add(dr),
                            col: at.col.saturating_add(dc),
                        },
                    )
                })
                .collect();
            let listed: BTreeSet<Cell> = cells.iter().map(|(c, _)| *c).collect();
            if listed != struck {
                let show = |set: BTreeSet<&Cell>| {
                    set.into_iter()
                        .map(|c| rules.notation.format(RawCell::from(*c)))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let missing = show(struck.difference(&listed).collect());
                let extra = show(listed.difference(&struck).collect());
                let message = match (missing.is_empty(), extra.is_empty()) {
                    (false, true) => format!("missile `cells` leaves out {missing}"),
                    (true, false) => {
                        format!("missile `cells` lists {extra}, which the missile does not strike")
                    }
                    _ => format!("missile `cells` leaves out {missing} and lists {extra}"),
                };
                self.err(
                    span,
                    message,
                    format!(
                        "every on-board cell of the 3×3 square around the centre: {}",
                        show(struck.iter().collect())
                    ),
                );
                return None;
            }
        }
        if let Some(ship) = &out.ship
            && !rules
                .items
                .iter()
                .any(|i| !i.grenade && (i.kind == *ship || i.name == *ship))
        {
            let kinds: BTreeSet<&str> = rules
                .items
                .iter()
                .filter(|i| !i.grenade)
                .map(|i| i.kind.as_str())
                .collect();
            self.err(
                span,
                format!("`{ship}` is not a ship of {}", rules.id),
                format!(
                    "one of: {}",
                    kinds.into_iter().collect::<Vec<_>>().join(", ")
                ),
            );
            return None;
        }
        let allowed_words: Vec<&str> = allowed.iter().map(|o| o.word()).collect();
        for w in words {
            match w.as_str().and_then(Outcome::from_word) {
                Some(o) if allowed.contains(&o) => out.outcomes.push(o),
                _ => {
                    let shown = w.as_str().map_or_else(|| w.to_string(), String::from);
                    self.err(
                        span.clone(),
                        format!("`{shown}` is not an outcome {} can answer here", rules.id),
                        format!("one of: {}", allowed_words.join(", ")),
                    );
                    return None;
                }
            }
        }
        if out.outcomes.len() > 1 && !has_decision {
            self.err(
                span,
                "several accepted outcomes need a recorded ambiguity",
                "`decision = \"<id>\"` naming a spec decision with `accept_also = true`",
            );
            return None;
        }
        Some(out)
    }

    fn checks(&mut self, st: &RawState, rules: &Rules, decision: Option<String>) -> Vec<Check> {
        let mut checks = Vec::new();
        for (name, value) in st.entries() {
            let key = StateKey::from_name(name).expect("schema keys are state keys");
            let span = value.span();
            if !rules.observes(key) {
                let keys: Vec<&str> = rules.observe.iter().map(|k| k.name()).collect();
                self.err(
                    span,
                    format!("{} cannot observe `{name}`", rules.id),
                    format!("one of: {}", keys.join(", ")),
                );
                continue;
            }
            let line = self.line(&span);
            if let Some(expected) = self.state_value(key, value, rules, decision.is_some()) {
                checks.push(Check {
                    key,
                    expected,
                    line,
                });
            }
        }
        checks
    }

    fn state_value(
        &mut self,
        key: StateKey,
        value: &Spanned<Value>,
        rules: &Rules,
        has_decision: bool,
    ) -> Option<Expected> {
        let span = value.span();
        let v = value.get_ref();
        match key {
            StateKey::Remaining | StateKey::Sunk => {
                let names: Option<Vec<String>> = v
                    .as_array()
                    .and_then(|a| a.iter().map(|x| x.as_str().map(String::from)).collect());
                let Some(names) = names else {
                    self.err(
                        span,
                        format!("`{key}` must be a list of ship names"),
                        "e.g. [\"Destroyer\", \"Cruiser\"]",
                    );
                    return None;
                };
                let labels: Vec<String> = (0..rules.items.len())
                    .filter(|&i| !rules.items[i].grenade)
                    .map(|i| rules.label(i))
                    .collect();
                let distinct: BTreeSet<&String> = names.iter().collect();
                if distinct.len() != names.len() {
                    self.err(
                        span,
                        format!("`{key}` names a ship twice"),
                        "each ship at most once",
                    );
                    return None;
                }
                if let Some(bad) = names.iter().find(|n| !labels.contains(n)) {
                    self.err(
                        span,
                        format!("`{bad}` is not a ship of {}", rules.id),
                        format!("names from: {}", labels.join(", ")),
                    );
                    return None;
                }
                Some(Expected::Names(names))
            }
            StateKey::Won | StateKey::Lost => {
                let list: Option<Vec<bool>> = match v {
                    Value::Array(a) if !a.is_empty() => a.iter().map(Value::as_bool).collect(),
                    v => v.as_bool().map(|b| vec![b]),
                };
                match list {
                    Some(l) if l.len() > 1 && !has_decision => {
                        self.err(span, "several accepted values need a recorded ambiguity", "`decision = \"<id>\"` naming a spec decision with `accept_also = true`");
                        None
                    }
                    Some(l) => Some(Expected::Bool(l)),
                    None => {
                        self.err(
                            span,
                            format!("`{key}` must be true or false"),
                            "`true` or `false` (or, under a decision, `[false, true]`)",
                        );
                        None
                    }
                }
            }
            StateKey::Shots | StateKey::Turns | StateKey::Moves => {
                let list: Option<Vec<u32>> = match v {
                    Value::Integer(n) => u32::try_from(*n).ok().map(|n| vec![n]),
                    Value::Array(a) => a
                        .iter()
                        .map(|x| x.as_integer().and_then(|n| u32::try_from(n).ok()))
                        .collect(),
                    _ => None,
                };
                match list {
                    Some(l) if l.len() > 1 && !has_decision => {
                        self.err(span, "several accepted values need a recorded ambiguity", "`decision = \"<id>\"` naming a spec decision with `accept_also = true`");
                        None
                    }
                    Some(l) if !l.is_empty() => Some(Expected::Count(l)),
                    _ => {
                        self.err(
                            span,
                            format!("`{key}` must be a whole number from 0 to {}", u32::MAX),
                            "a count of 0 or more",
                        );
                        None
                    }
                }
            }
            StateKey::Next | StateKey::Winner => {
                let one = |v: &Value| match v.as_str() {
                    Some("none") if key == StateKey::Winner => Some(None),
                    Some(p) if rules.player(p).is_some() => Some(Some(p.to_string())),
                    _ => None,
                };
                let list: Option<Vec<Option<String>>> = match v {
                    Value::Array(a) if !a.is_empty() => a.iter().map(one).collect(),
                    v => one(v).map(|p| vec![p]),
                };
                match list {
                    Some(l) if l.len() > 1 && !has_decision => {
                        self.err(span, "several accepted values need a recorded ambiguity", "`decision = \"<id>\"` naming a spec decision with `accept_also = true`");
                        return None;
                    }
                    Some(l) => return Some(Expected::Player(l)),
                    None => {}
                }
                {
                    let extra = if key == StateKey::Winner {
                        ", or \"none\""
                    } else {
                        ""
                    };
                    self.err(
                        span,
                        format!("`{key}` must name a player"),
                        format!("one of: {}{extra}", rules.players.join(", ")),
                    );
                    None
                }
            }
            StateKey::Targeted => {
                let Some(list) = v.as_array() else {
                    self.err(
                        span,
                        "`targeted` must be a list of cells",
                        format!("e.g. [\"{}\"]", rules.notation.example()),
                    );
                    return None;
                };
                let mut set = BTreeSet::new();
                for c in list {
                    let raw = self.cell_value(c, span.clone(), rules)?;
                    match on_board(rules, raw) {
                        Some(cell) => {
                            set.insert(cell);
                        }
                        None => {
                            self.err(
                                span,
                                format!(
                                    "targeted cell {} is off the board",
                                    rules.notation.format(raw)
                                ),
                                board_range(rules),
                            );
                            return None;
                        }
                    }
                }
                Some(Expected::Cells(set))
            }
            StateKey::Board => {
                let Some(text) = v.as_str() else {
                    self.err(
                        span,
                        "`board` must be a string",
                        "a multi-line string, one row per line",
                    );
                    return None;
                };
                let rows = board_rows(text);
                if let Some((i, why)) = rows
                    .iter()
                    .enumerate()
                    .find_map(|(i, r)| bad_row(r, rules).map(|w| (i, w)))
                {
                    self.err(
                        span,
                        format!("`board` row {} {why}", i + 1),
                        board_alphabet(rules),
                    );
                    return None;
                }
                if rows.len() != usize::from(rules.rows) {
                    self.err(
                        span,
                        format!(
                            "`board` has {} row{}",
                            rows.len(),
                            if rows.len() == 1 { "" } else { "s" }
                        ),
                        format!("{} rows, one per line", rules.rows),
                    );
                    return None;
                }
                Some(Expected::Board(rows))
            }
        }
    }
}

/// Rows of a board string, one per line, trailing spaces ignored (a board whose untried
/// glyph is a space keeps its blank rows).
pub fn board_rows(text: &str) -> Vec<String> {
    text.lines().map(|l| l.trim_end().to_string()).collect()
}

/// Whether an `expect` value accepts only `rejected` (string, list or table form), so the
/// placement leaves its ship unplaced for later steps.
fn expects_only_rejection(v: &Value) -> bool {
    let words = match v {
        Value::Table(t) => t.get("outcome"),
        other => Some(other),
    };
    match words {
        Some(Value::String(w)) => w == "rejected",
        Some(Value::Array(a)) => !a.is_empty() && a.iter().all(|w| w.as_str() == Some("rejected")),
        _ => false,
    }
}

/// Whether any check lists several accepted values.
fn has_alternatives(checks: &[Check]) -> bool {
    checks.iter().any(|c| match &c.expected {
        Expected::Count(l) => l.len() > 1,
        Expected::Bool(l) => l.len() > 1,
        Expected::Player(l) => l.len() > 1,
        _ => false,
    })
}

/// The glyphs a board of this assignment may show.
fn glyphs(rules: &Rules) -> BTreeSet<&str> {
    let d = &rules.display;
    let mut g: BTreeSet<&str> = [&d.untried, &d.miss, &d.hit, &d.sunk, &d.ship, &d.grenade]
        .into_iter()
        .map(String::as_str)
        .collect();
    g.extend(d.sunk_by_kind.values().map(String::as_str));
    g.extend(
        d.players
            .iter()
            .flatten()
            .flat_map(|(h, gr)| [h.as_str(), gr.as_str()]),
    );
    g
}

fn board_alphabet(rules: &Rules) -> String {
    let sep = if rules.display.separator.is_empty() {
        "no separator".to_string()
    } else {
        format!("separated by {:?}", rules.display.separator)
    };
    let shown: Vec<String> = glyphs(rules)
        .into_iter()
        .map(|g| format!("{g:?}"))
        .collect();
    format!(
        "{} cells per row from {}, {sep}",
        rules.cols,
        shown.join(" ")
    )
}

/// Why a board row cannot be one of this assignment's rows (trailing spaces already trimmed).
fn bad_row(row: &str, rules: &Rules) -> Option<String> {
    let glyphs = glyphs(rules);
    let sep = &rules.display.separator;
    let cells: Vec<String> = if sep.is_empty() {
        row.chars().map(String::from).collect()
    } else {
        row.split(sep.as_str()).map(String::from).collect()
    };
    let cols = usize::from(rules.cols);
    let width_ok = if sep.is_empty() {
        cells.len() <= cols
    } else {
        cells.len() == cols
    };
    if !width_ok {
        return Some(format!("has {} cells", cells.len()));
    }
    cells
        .iter()
        .find(|c| !glyphs.contains(c.as_str()))
        .map(|c| format!("has `{c}`, which the board never shows"))
}

fn on_board(rules: &Rules, c: RawCell) -> Option<Cell> {
    rules.cell(c)
}

fn board_range(rules: &Rules) -> String {
    let n = rules.notation;
    let first = n.format(RawCell { row: 0, col: 0 });
    let last = n.format(RawCell {
        row: i64::from(rules.rows) - 1,
        col: i64::from(rules.cols) - 1,
    });
    format!("a cell from {first} to {last}")
}
