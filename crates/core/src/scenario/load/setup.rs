//! `[setup]`: a smaller board or fleet, the ships and grenades placed before play.

use super::{Cx, board_range, on_board};
use crate::cell::{Cell, MAX_SIDE, RawCell};
use crate::engine::{Dir, Game};
use crate::scenario::model::Setup;
use crate::scenario::raw::{CellInput, DirInput, ShipInput};
use crate::scenario::schema::{RawFleetEntry, RawPlayerSetup, RawSetup};
use crate::spec::Rules;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::Arc;
use toml::Spanned;

impl Cx<'_> {
    /// Applies `[setup] rows/cols/fleet` (a handout's small worked example).
    pub(super) fn resize(&mut self, rules: Arc<Rules>, setup: &RawSetup) -> Option<Arc<Rules>> {
        if setup.rows.is_none() && setup.cols.is_none() && setup.fleet.is_none() {
            return Some(rules);
        }
        let rows = self.side(setup.rows.as_ref(), rules.rows)?;
        let cols = self.side(setup.cols.as_ref(), rules.cols)?;
        let Some(f) = &setup.fleet else {
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
        };
        let fleet = self.fleet(f, &rules, rows.max(cols))?;
        Some(Arc::new(rules.with_board_and_fleet(rows, cols, fleet)))
    }

    /// A board side from `[setup]`: 1 to [`MAX_SIDE`] cells, default the spec's.
    fn side(&mut self, v: Option<&Spanned<i64>>, default: u8) -> Option<u8> {
        match v {
            None => Some(default),
            Some(s) if (1..=i64::from(MAX_SIDE)).contains(s.get_ref()) => Some(*s.get_ref() as u8),
            Some(s) => {
                self.err(
                    s.span(),
                    format!("board side {} is out of range", s.get_ref()),
                    format!("1 to {MAX_SIDE}"),
                );
                None
            }
        }
    }

    /// A replacement `fleet` (one-player games without grenades): 1 to 64 ships with
    /// distinct names, each from 1 to `side` cells long.
    fn fleet(
        &mut self,
        f: &Spanned<Vec<RawFleetEntry>>,
        rules: &Rules,
        side: u8,
    ) -> Option<Vec<(String, u8)>> {
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
        if entries.iter().any(|(_, l)| *l == 0 || *l > side) {
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
        Some(entries)
    }

    /// The ships and grenades placed before play (one player's `ships`, or each player's
    /// `ships` and `grenades`), and who moves first.
    pub(super) fn setup(&mut self, raw: &RawSetup, rules: &Arc<Rules>, game: &mut Game) -> Setup {
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
                self.ships(ships.get_ref(), rules, game, &mut setup);
            }
        }
        if let Some(players) = &raw.players {
            if two {
                for (name, p) in players.get_ref() {
                    self.player_setup(name, p, rules, game, &mut setup);
                }
            } else {
                self.err(
                    players.span(),
                    format!("{} is a one-player game", rules.id),
                    "[setup.ships]",
                );
            }
        }
        if let Some(first) = &raw.first {
            setup.first = self.first(first, rules);
        }
        setup.items.sort();
        setup
    }

    /// A one-player `[setup.ships]`: ship name → position.
    fn ships(
        &mut self,
        ships: &BTreeMap<Spanned<String>, Spanned<ShipInput>>,
        rules: &Rules,
        game: &mut Game,
        setup: &mut Setup,
    ) {
        // In file order, so the later of two clashing ships is the one blamed.
        let mut in_file: Vec<_> = ships.iter().collect();
        in_file.sort_by_key(|(name, _)| name.span().start);
        for (name, value) in in_file {
            let Some(item) = rules.items.iter().position(|i| i.name == *name.get_ref()) else {
                let names: Vec<&str> = rules.items.iter().map(|i| i.name.as_str()).collect();
                self.err(
                    name.span(),
                    format!("{} has no ship named `{}`", rules.id, name.get_ref()),
                    format!("one of: {}", names.join(", ")),
                );
                continue;
            };
            if let Some(cells) = self.ship_cells(value, item, rules) {
                self.put(game, item, &cells, value.span(), rules, setup);
            }
        }
    }

    /// One player's `[setup.players.<name>]`: ships and grenades fill that player's fleet
    /// slots in order.
    fn player_setup(
        &mut self,
        name: &Spanned<String>,
        p: &RawPlayerSetup,
        rules: &Rules,
        game: &mut Game,
        setup: &mut Setup,
    ) {
        let Some(owner) = rules.player(name.get_ref()) else {
            self.err(
                name.span(),
                format!("unknown player `{}`", name.get_ref()),
                format!("one of: {}", rules.players.join(", ")),
            );
            return;
        };
        for (grenade, list) in [(false, &p.ships), (true, &p.grenades)] {
            let slots: Vec<usize> = (0..rules.items.len())
                .filter(|&i| rules.items[i].owner == owner && rules.items[i].grenade == grenade)
                .collect();
            for (k, value) in list.iter().enumerate() {
                let what = if grenade { "grenades" } else { "ships" };
                let Some(&item) = slots.get(k) else {
                    self.err(
                        value.span(),
                        format!("{} has more {what} than the fleet holds", name.get_ref()),
                        format!("at most {} {what}", slots.len()),
                    );
                    break;
                };
                if let Some(cells) = self.ship_cells(value, item, rules) {
                    self.put(game, item, &cells, value.span(), rules, setup);
                }
            }
        }
    }

    /// `first = PLAYER`: who moves first in a two-player game.
    fn first(&mut self, first: &Spanned<String>, rules: &Rules) -> Option<usize> {
        let two = rules.players.len() > 1;
        match rules.player(first.get_ref()) {
            Some(p) if two => Some(p),
            _ => {
                self.err(
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
                );
                None
            }
        }
    }

    pub(super) fn put(
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

    /// A ship's cells: a list of cells, a single cell (one-cell items), or `{ at, dir }`,
    /// each on the board.
    fn ship_cells(
        &mut self,
        value: &Spanned<ShipInput>,
        item: usize,
        rules: &Rules,
    ) -> Option<Vec<Cell>> {
        let span = value.span();
        let raw_cells: Vec<RawCell> = match value.get_ref() {
            ShipInput::One(cell) => vec![self.cell(cell, span.clone(), rules)?],
            ShipInput::Cells(list) => list
                .iter()
                .map(|c| self.cell(c, span.clone(), rules))
                .collect::<Option<_>>()?,
            ShipInput::Line { at, dir, unknown } => {
                let length = rules.items[item].length;
                self.line_cells(at, dir, unknown, length, span.clone(), rules)?
            }
            ShipInput::Other => {
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
            let Some(cell) = on_board(rules, c) else {
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
            };
            cells.push(cell);
        }
        Some(cells)
    }

    /// The cells of `{ at = CELL, dir = "right" }` for a ship of `length` cells (a one-cell
    /// item needs no `dir`); maybe off the board.
    fn line_cells(
        &mut self,
        at: &Option<CellInput>,
        dir: &Option<DirInput>,
        unknown: &Option<String>,
        length: u8,
        span: Range<usize>,
        rules: &Rules,
    ) -> Option<Vec<RawCell>> {
        let at = at.as_ref().and_then(|c| self.cell(c, span.clone(), rules));
        let dir = match dir {
            None if length == 1 => Some(Dir::Right),
            Some(d) => Some(self.direction(d, span.clone())?),
            None => None,
        };
        if let Some(k) = unknown {
            self.err(
                span,
                format!("unknown key `{k}` in a ship table"),
                "only `at` and `dir`",
            );
            return None;
        }
        let (Some(at), Some(dir)) = (at, dir) else {
            self.err(
                span,
                "a ship given as a table needs `at` and `dir`",
                "`{ at = CELL, dir = \"right\" | \"down\" | \"left\" | \"up\" }`",
            );
            return None;
        };
        let (dr, dc) = dir.delta();
        Some(
            (0..i64::from(length))
                .map(|i| RawCell {
                    row: at.row.saturating_add(dr * i),
                    col: at.col.saturating_add(dc * i),
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{load, problems};

    #[test]
    fn a_ship_table_reads_at_and_dir() {
        let text = "assignment = \"colab-6x6\"\n[setup.ships]\nSubmarine = { at = \"B2\", dir = \"down\" }\n[end]\nwon = false\n";
        let s = load(text).expect("loads");
        assert_eq!(s.setup.items.len(), 1);
        assert_eq!(s.setup.items[0].1.len(), 2);
    }

    #[test]
    fn a_ship_table_with_an_unknown_key_or_no_dir_is_reported_at_the_table() {
        let text = "assignment = \"colab-6x6\"\n[setup.ships]\nSubmarine = { at = \"B2\", colour = \"red\" , dir = \"up\" }\nCruiser = { at = \"A4\" }\n[end]\nwon = false\n";
        assert_eq!(
            problems(text),
            [
                "unknown key `colour` in a ship table @ { at = \"B2\", colour = \"red\" , dir = \"up\" }",
                "a ship given as a table needs `at` and `dir` @ { at = \"A4\" }",
            ]
        );
    }

    #[test]
    fn a_ship_that_is_no_position_or_a_bad_cell_is_reported() {
        let text = "assignment = \"colab-6x6\"\n[setup.ships]\nSubmarine = 3\nCruiser = [\"A4\", [1], \"A6\"]\n[end]\nwon = false\n";
        assert_eq!(
            problems(text),
            [
                "a ship's position must be a list of cells or a table @ 3",
                "a raw cell must be two integers @ [\"A4\", [1], \"A6\"]",
            ]
        );
    }

    #[test]
    fn a_replacement_fleet_must_fit_the_board() {
        let text = "assignment = \"battleboats\"\n[setup]\nrows = 3\ncols = 3\nfleet = [{ name = \"boat\", length = 4 }]\n[end]\nwon = false\n";
        assert_eq!(
            problems(text),
            ["a fleet entry's length does not fit the board @ [{ name = \"boat\", length = 4 }]"]
        );
    }
}
