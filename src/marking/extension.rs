//! solo-10x10's visualisation extension (`extension.py`), played and judged: broadside runs it
//! as `python3 extension.py` would, with a fleet it knows, calls ten shots, reads the ocean it
//! draws after each one, and judges the handout's expectations against the reference state:
//! "The new state of the ocean and fleet are presented ... each time after he/she shoots",
//! "The rows and columns of the ocean are numbered", and squares (i) never shot at, (ii)
//! missed, (iii) holding a hit ship of unknown type, (iv) of a sunk ship, with its type,
//! "clearly indicated": each kind drawn one way throughout, no two kinds alike, each sunk type
//! its own way, and the untouched fleet not revealed.

use super::MeasureError;
use super::scheme::FigureSpec;
use super::sheet::{Figure, FigureState};
use super::tools::find;
use crate::dialogue::session::{Session, Waited};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The fleet the extension plays: `(row, column, horizontal, length)`.
const FLEET: [(i64, i64, bool, i64); 10] = [
    (0, 0, true, 4),
    (2, 0, false, 3),
    (2, 5, true, 3),
    (6, 0, true, 2),
    (6, 5, false, 2),
    (9, 8, true, 2),
    (0, 9, true, 1),
    (4, 3, true, 1),
    (8, 2, true, 1),
    (4, 8, true, 1),
];

/// The shots: a miss, a battleship hit twice (afloat), a submarine, a destroyer and a
/// cruiser sunk, another miss.
const SHOTS: [(i64, i64); 10] = [
    (5, 5),
    (0, 0),
    (0, 1),
    (0, 9),
    (6, 0),
    (6, 1),
    (2, 5),
    (2, 6),
    (2, 7),
    (9, 0),
];

/// What a square is after some shots, in the handout's four kinds (sunk ones by type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Untried,
    Miss,
    Hit,
    Sunk(&'static str),
}

fn kind_name(k: Kind) -> String {
    match k {
        Kind::Untried => "(i) never shot at".into(),
        Kind::Miss => "(ii) missed".into(),
        Kind::Hit => "(iii) hit, not sunk".into(),
        Kind::Sunk(t) => format!("(iv) a sunk {t}"),
    }
}

fn ship_type(length: i64) -> &'static str {
    match length {
        4 => "battleship",
        3 => "cruiser",
        2 => "destroyer",
        _ => "submarine",
    }
}

fn squares(ship: (i64, i64, bool, i64)) -> Vec<(i64, i64)> {
    let (r, c, h, n) = ship;
    (0..n)
        .map(|i| if h { (r, c + i) } else { (r + i, c) })
        .collect()
}

/// Every square's kind after `shots`.
fn state(shots: &[(i64, i64)]) -> BTreeMap<(i64, i64), Kind> {
    let mut out = BTreeMap::new();
    for r in 0..10 {
        for c in 0..10 {
            let kind = if !shots.contains(&(r, c)) {
                Kind::Untried
            } else if let Some(ship) = FLEET.iter().find(|s| squares(**s).contains(&(r, c))) {
                if squares(*ship).iter().all(|sq| shots.contains(sq)) {
                    Kind::Sunk(ship_type(ship.3))
                } else {
                    Kind::Hit
                }
            } else {
                Kind::Miss
            };
            out.insert((r, c), kind);
        }
    }
    out
}

/// An ocean drawn as text: its ten rows of ten cells, and whether rows and columns are
/// numbered.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ocean {
    pub cells: Vec<Vec<String>>,
    pub rows_numbered: bool,
    pub columns_numbered: bool,
}

/// The ten cells of a drawn row, without its label: ten words, or ten characters.
fn cells_of(rest: &str) -> Option<Vec<String>> {
    let cleaned: String = rest
        .chars()
        .map(|c| if c == '|' { ' ' } else { c })
        .collect();
    let words: Vec<&str> = cleaned.split_whitespace().collect();
    if words.len() == 10 {
        return Some(words.iter().map(|w| w.to_string()).collect());
    }
    let chars: Vec<char> = cleaned.chars().filter(|c| !c.is_whitespace()).collect();
    (chars.len() == 10).then(|| chars.iter().map(|c| c.to_string()).collect())
}

/// The last ocean drawn in `text`: ten consecutive lines labelled 0–9 (or 1–10, or A–J),
/// each with ten cells; the column numbers are looked for on the line above.
pub(crate) fn last_ocean(text: &str) -> Option<Ocean> {
    let lines: Vec<&str> = text.lines().collect();
    let label = regex::Regex::new(r"^\s*([0-9]{1,2}|[A-Ja-j])(?:[.)]|\s*[|:])?\s+(.*)$")
        .expect("a valid pattern");
    let bare = |l: &str| cells_of(l).filter(|_| !l.trim().is_empty());
    let mut found = None;
    let mut i = 0;
    while i + 10 <= lines.len() {
        let labelled: Option<Vec<Vec<String>>> = (0..10)
            .map(|k| {
                let c = label.captures(lines[i + k])?;
                let want0 = [
                    k.to_string(),
                    (k + 1).to_string(),
                    ((b'A' + k as u8) as char).to_string(),
                ];
                want0
                    .iter()
                    .any(|w| c[1].eq_ignore_ascii_case(w))
                    .then_some(())?;
                cells_of(&c[2])
            })
            .collect();
        let (cells, rows_numbered) = match labelled {
            Some(cells) => (Some(cells), true),
            None => ((0..10).map(|k| bare(lines[i + k])).collect(), false),
        };
        if let Some(cells) = cells {
            let above = lines[..i]
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .copied()
                .unwrap_or("");
            let numbers: Vec<String> = above
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect();
            let zero: Vec<String> = (0..10).map(|n| n.to_string()).collect();
            let one: Vec<String> = (1..=10).map(|n| n.to_string()).collect();
            let letters: Vec<String> = ('a'..='j').map(|c| c.to_string()).collect();
            let digits: String = above.chars().filter(|c| !c.is_whitespace()).collect();
            let columns_numbered = [zero, one, letters].iter().any(|w| &numbers == w)
                || digits == "0123456789"
                || digits == "12345678910";
            found = Some(Ocean {
                cells,
                rows_numbered,
                columns_numbered,
            });
            i += 10;
        } else {
            i += 1;
        }
    }
    found
}

/// Plays `extension.py` of the submission at `root` and judges what it draws.
///
/// Errors: the grader could not start it (no Python, a folder it cannot prepare).
pub fn figure(spec: &FigureSpec, root: &Path, uid: u32) -> Result<Figure, MeasureError> {
    if find(root, "extension.py").is_empty() {
        return Ok(spec.figure(
            FigureState::Missing,
            "no extension.py in the submission".into(),
        ));
    }
    let path = camino::Utf8Path::from_path(root).ok_or("the submission's path is not UTF-8")?;
    let process = crate::target::python::target_as(path, uid).map_err(|e| e.to_string())?;
    let Some(mut program) = process.whole.clone() else {
        return Err("the Python target has no whole-program launcher".into());
    };
    program.starts_ahead = false;
    let fleet: Vec<String> = FLEET
        .iter()
        .map(|(r, c, h, n)| format!("[{r}, {c}, {}, {n}]", u8::from(*h)))
        .collect();
    let env = [
        (
            "BROADSIDE_FLEET".to_string(),
            format!("[{}]", fleet.join(", ")),
        ),
        ("BROADSIDE_RUN".to_string(), "extension".to_string()),
    ];
    let mut session = match Session::start(&program, &env) {
        Ok(s) => s,
        Err(f) => {
            return Ok(spec.figure(
                FigureState::Short,
                format!("extension.py does not start: {}", f.message),
            ));
        }
    };
    let (drawn, ended) = play_shots(&mut session);
    let stderr = session.take_stderr();
    let left = session.finish(&program.spare);
    let mut f = judge(spec, &drawn);
    if let Some(e) = ended {
        f.lines.insert(0, format!("the game stopped early: {e}"));
        f.state = FigureState::Short;
    }
    if stderr.contains("Traceback") {
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        f.lines.push(format!("it crashed: {last}"));
        f.state = FigureState::Short;
    }
    if !left.is_empty() {
        f.lines.push(format!(
            "it left {} process(es) running; they were killed",
            left.len()
        ));
    }
    Ok(f)
}

/// The figure from the oceans drawn after each shot.
fn judge(spec: &FigureSpec, drawn: &[Option<Ocean>]) -> Figure {
    let shown = drawn.iter().filter(|o| o.is_some()).count();
    let mut lines = Vec::new();
    if shown == 0 {
        let mut f = spec.figure(
            FigureState::Short,
            format!(
                "extension.py runs, but no 10×10 ocean was found in what it printed after {} shots",
                drawn.len()
            ),
        );
        f.numbers.insert("oceans_drawn".into(), 0.0);
        return f;
    }
    let (symbols, hidden_ships, water) = symbols_drawn(drawn);
    let untried = symbols.get(&Kind::Untried).cloned().unwrap_or_default();
    let mut ok = shown == drawn.len();
    if shown < drawn.len() {
        lines.push(format!(
            "an ocean after {shown} of {} shots (the handout: each time after the player shoots)",
            drawn.len()
        ));
    }
    let numbered = drawn
        .iter()
        .flatten()
        .all(|o| o.rows_numbered && o.columns_numbered);
    if !numbered {
        ok = false;
        lines.push("rows and columns are not both numbered".into());
    }
    let (checks, apart) = kinds_apart(&symbols);
    ok &= apart.len() == symbols.len();
    if untried.len() > 1 {
        let revealed: BTreeSet<&String> = hidden_ships.difference(&water).collect();
        if !revealed.is_empty() {
            lines.push(format!(
                "the untouched fleet is shown: a square never shot at is drawn {} when a ship is there",
                revealed.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(" ")
            ));
        } else {
            lines.push("squares never shot at are drawn more than one way".into());
        }
        ok = false;
    }
    let sunk: Vec<&Kind> = symbols
        .keys()
        .filter(|k| matches!(k, Kind::Sunk(_)))
        .collect();
    let by_type = !sunk.is_empty() && sunk.iter().all(|k| apart.contains(*k));
    lines.splice(0..0, checks);
    let mut f = spec.figure(if ok {
            FigureState::Ok
        } else {
            FigureState::Short
        },
        format!(
            "extension.py played {} shots: an ocean after {shown}, {}numbered; {} of {} kinds of square told apart{}",
            drawn.len(),
            if numbered { "" } else { "not " },
            apart.len(),
            symbols.len(),
            if by_type { ", sunk ships by type" } else { "" }
        ),
    );
    f.lines = lines;
    f.numbers.insert("oceans_drawn".into(), shown as f64);
    f.numbers.insert("kinds_apart".into(), apart.len() as f64);
    f
}

/// Plays [`SHOTS`] with `extension.py`, each as `row col` on one line, or (when the first
/// draws no ocean that way) the row and the column apart. Returns the ocean drawn after
/// each shot, if any, and why the game stopped early.
fn play_shots(session: &mut Session) -> (Vec<Option<Ocean>>, Option<String>) {
    let timeout = session.answer_timeout();
    let mut drawn: Vec<Option<Ocean>> = Vec::new();
    let mut ended = None;
    let mut separate = false;
    match session.wait(timeout) {
        Ok(Waited::Asking) => {}
        Ok(Waited::Exited { .. }) => ended = Some("it ended before the first shot".to_string()),
        Err(f) => ended = Some(format!("before the first shot: {}", f.message)),
    }
    let _ = session.take();
    for (n, (r, c)) in SHOTS.iter().enumerate() {
        if ended.is_some() {
            break;
        }
        let lines = if separate {
            vec![r.to_string(), c.to_string()]
        } else {
            vec![format!("{r} {c}")]
        };
        let mut out = String::new();
        for line in &lines {
            session.send(line);
            match session.wait(timeout) {
                Ok(Waited::Asking) => {}
                Ok(Waited::Exited { .. }) => ended = Some(format!("it ended after shot {}", n + 1)),
                Err(f) => ended = Some(format!("at shot {}: {}", n + 1, f.message)),
            }
            out.push_str(&session.take());
            if ended.is_some() {
                break;
            }
        }
        let ocean = last_ocean(&out);
        if n == 0 && ocean.is_none() && !separate && ended.is_none() {
            // Perhaps it asks for the row and the column apart: the row was taken, give the
            // column and try the rest that way.
            session.send(&c.to_string());
            let _ = session.wait(timeout);
            let more = session.take();
            if let Some(o) = last_ocean(&more) {
                separate = true;
                drawn.push(Some(o));
                continue;
            }
        }
        drawn.push(ocean);
    }
    (drawn, ended)
}

/// Which symbols each kind of square was drawn with, over every ocean drawn; and, of the
/// squares never shot at, the symbols of those with a ship and of those with water.
#[allow(clippy::type_complexity)]
fn symbols_drawn(
    drawn: &[Option<Ocean>],
) -> (
    BTreeMap<Kind, BTreeSet<String>>,
    BTreeSet<String>,
    BTreeSet<String>,
) {
    let mut symbols: BTreeMap<Kind, BTreeSet<String>> = BTreeMap::new();
    let mut hidden_ships = BTreeSet::new();
    let mut water = BTreeSet::new();
    for (n, ocean) in drawn.iter().enumerate() {
        let Some(ocean) = ocean else { continue };
        let st = state(&SHOTS[..=n]);
        for ((r, c), kind) in &st {
            let sym = ocean.cells[*r as usize][*c as usize].clone();
            symbols.entry(*kind).or_default().insert(sym.clone());
            if *kind == Kind::Untried {
                if FLEET.iter().any(|s| squares(*s).contains(&(*r, *c))) {
                    hidden_ships.insert(sym);
                } else {
                    water.insert(sym);
                }
            }
        }
    }
    (symbols, hidden_ships, water)
}

/// A line per kind of square: its symbols and whether it is drawn one way, apart from
/// every other kind; and the kinds that are.
fn kinds_apart(symbols: &BTreeMap<Kind, BTreeSet<String>>) -> (Vec<String>, BTreeSet<Kind>) {
    let mut checks = Vec::new();
    let mut apart = BTreeSet::new();
    for (kind, syms) in symbols {
        let list = syms
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(" ");
        let mut verdict = "ok";
        if syms.len() > 1 {
            verdict = "drawn more than one way";
        }
        let clash: Vec<String> = symbols
            .iter()
            .filter(|(k, s)| *k != kind && !s.is_disjoint(syms))
            .map(|(k, _)| kind_name(*k))
            .collect();
        if !clash.is_empty() {
            verdict = "looks like another kind";
        }
        if verdict == "ok" {
            apart.insert(*kind);
        }
        checks.push(format!(
            "{}: {list} — {verdict}{}",
            kind_name(*kind),
            if clash.is_empty() {
                String::new()
            } else {
                format!(" ({})", clash.join(", "))
            }
        ));
    }
    (checks, apart)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fleet_is_legal_and_the_shots_cover_every_kind() {
        let all: Vec<(i64, i64)> = FLEET.iter().flat_map(|s| squares(*s)).collect();
        for (i, a) in FLEET.iter().enumerate() {
            for b in &FLEET[i + 1..] {
                for (r1, c1) in squares(*a) {
                    for (r2, c2) in squares(*b) {
                        assert!(
                            (r1 - r2).abs() > 1 || (c1 - c2).abs() > 1,
                            "{a:?} touches {b:?}"
                        );
                    }
                }
            }
        }
        assert!(
            all.iter()
                .all(|(r, c)| (0..10).contains(r) && (0..10).contains(c))
        );
        let kinds: BTreeSet<Kind> = state(&SHOTS).values().copied().collect();
        assert_eq!(kinds.len(), 6, "{kinds:?}");
    }

    #[test]
    fn an_ocean_is_read_with_its_numbers() {
        let text = "You have a hit!\n    0 1 2 3 4 5 6 7 8 9\n 0  * * . . . . . . . .\n 1  . . . . . . . . . .\n 2  . . . . . . . . . .\n 3  . . . . . . . . . .\n 4  . . . . . . . . . .\n 5  . . . . . - . . . .\n 6  . . . . . . . . . .\n 7  . . . . . . . . . .\n 8  . . . . . . . . . .\n 9  . . . . . . . . . .\nEnter row and column: ";
        let o = last_ocean(text).expect("an ocean");
        assert!(o.rows_numbered && o.columns_numbered);
        assert_eq!(o.cells[0][0], "*");
        assert_eq!(o.cells[5][5], "-");
        let bare = ". . . . . . . . . .\n".repeat(10);
        let o = last_ocean(&bare).expect("an ocean");
        assert!(!o.rows_numbered && !o.columns_numbered);
    }
}
