//! The dialogue plans' grammar, as plain data: the moves each whole-program assignment's
//! dialogue scenarios may plan and the order they must come in. The loader checks a plan
//! against it (file:line:col on a wrong move); the drivers in `dialogue` play the moves.

/// A plan that cannot be played in its order: the index of the first move that cannot,
/// and why.
pub(crate) type Misplaced = (usize, String);

/// One whole-program assignment's plan grammar.
pub struct Grammar {
    /// The assignment id (the spec's `id`).
    pub assignment: &'static str,
    /// The moves a plan may name.
    pub moves: &'static [&'static str],
    /// Checks that a plan can be played in its order. Errors: the index of the first move
    /// that cannot, and why.
    pub check: fn(&[&str]) -> Result<(), Misplaced>,
}

/// The grammars, one per whole-program assignment (each has a driver in `dialogue`).
pub(crate) static GRAMMARS: [Grammar; 3] = [
    Grammar {
        assignment: "battleboats",
        moves: &battleboats::MOVES,
        check: battleboats::check_plan,
    },
    Grammar {
        assignment: "grenades-8x8",
        moves: &grenades::MOVES,
        check: grenades::check_plan,
    },
    Grammar {
        assignment: "solo-10x10",
        moves: &solo::MOVES,
        check: solo::check_plan,
    },
];

/// The grammar of assignment `id`, if its dialogue scenarios plan moves.
pub fn grammar(id: &str) -> Option<&'static Grammar> {
    GRAMMARS.iter().find(|g| g.assignment == id)
}

/// The assignments graded as whole programs.
pub fn assignments() -> Vec<&'static str> {
    GRAMMARS.iter().map(|g| g.assignment).collect()
}

/// The moves a dialogue scenario of assignment `id` may plan; `None` for an assignment
/// without dialogues.
pub fn vocabulary(id: &str) -> Option<&'static [&'static str]> {
    grammar(id).map(|g| g.moves)
}

/// Checks that a plan of moves (all from the assignment's vocabulary) can be played in its
/// order. Errors: the index of the first move that cannot, and why.
pub(crate) fn check_plan(id: &str, moves: &[&str]) -> Result<(), Misplaced> {
    grammar(id).map_or(Ok(()), |g| (g.check)(moves))
}

/// battleboats's plan grammar.
pub mod battleboats {
    /// The moves a battleboats dialogue may plan.
    pub(crate) const MOVES: [&str; 15] = [
        "print",
        "hit-each-boat",
        "sink-smallest",
        "miss",
        "repeat-hit",
        "repeat-miss",
        "off-board",
        "off-board-far",
        "drone-row",
        "drone-col",
        "drone-bad-input",
        "missile-corner",
        "missile-off-board",
        "fire-missile-cell",
        "sink-all",
    ];

    /// Checks that a plan can be played: a repeat after a shot of its kind, a shot on a missile's
    /// cell after a missile, and nothing after `sink-all` (which ends the game).
    ///
    /// Errors: the index of the first move that cannot be played, and why.
    pub(crate) fn check_plan(moves: &[&str]) -> Result<(), super::Misplaced> {
        for (i, m) in moves.iter().enumerate() {
            let before = &moves[..i];
            let after_any = |names: &[&str]| before.iter().any(|b| names.contains(b));
            let problem = match *m {
                _ if after_any(&["sink-all"]) => {
                    Some("nothing after `sink-all` (it ends the game)")
                }
                "repeat-hit" if !after_any(&["hit-each-boat", "sink-smallest"]) => {
                    Some("a hit before `repeat-hit` (`hit-each-boat` or `sink-smallest`)")
                }
                "repeat-miss" if !after_any(&["miss"]) => Some("a `miss` before `repeat-miss`"),
                "fire-missile-cell" if !after_any(&["missile-corner", "missile-off-board"]) => {
                    Some(
                        "a missile before `fire-missile-cell` (`missile-corner` or `missile-off-board`)",
                    )
                }
                _ => None,
            };
            if let Some(p) = problem {
                return Err((i, p.to_string()));
            }
        }
        Ok(())
    }
}

/// grenades-8x8's plan grammar.
pub mod grenades {
    /// The moves a grenades-8x8 dialogue may plan.
    pub(crate) const MOVES: [&str; 9] = [
        "place-off-grid",
        "place-occupied",
        "place",
        "initial-grid",
        "fire-own-ship",
        "fire-own-grenade",
        "fire-off-grid",
        "fire-recalled",
        "sweep",
    ];

    /// Checks that a plan can be played: every placement move before `place` (which places the
    /// rest), `place` before any rocket, a re-call after a rocket, and nothing after `sweep`
    /// (which plays the game to its end).
    ///
    /// Errors: the index of the first move that cannot be played, and why.
    pub(crate) fn check_plan(moves: &[&str]) -> Result<(), super::Misplaced> {
        let placing = ["place-off-grid", "place-occupied", "place"];
        for (i, m) in moves.iter().enumerate() {
            let before = &moves[..i];
            let placed = before.contains(&"place");
            let problem = match *m {
                _ if before.contains(&"sweep") => {
                    Some("nothing after `sweep` (it plays the game to its end)")
                }
                m if placing.contains(&m) && placed => {
                    Some("every placement move before `place`, which places the rest")
                }
                m if !placing.contains(&m) && !placed => Some(
                    "`place` before any rocket (the human's ships and grenades go first, step 1)",
                ),
                "initial-grid"
                    if before
                        .iter()
                        .any(|b| b.starts_with("fire-") || *b == "sweep") =>
                {
                    Some("`initial-grid` before the first rocket (it judges what is shown then)")
                }
                "fire-recalled"
                    if !before
                        .iter()
                        .any(|b| b.starts_with("fire-") && *b != "fire-off-grid") =>
                {
                    Some("a rocket before `fire-recalled` (`fire-own-ship` or `fire-own-grenade`)")
                }
                _ => None,
            };
            if let Some(p) = problem {
                return Err((i, p.to_string()));
            }
        }
        if !moves.contains(&"place") {
            return Err((
                moves.len().saturating_sub(1),
                "a `place` move (the human's ships and grenades)".into(),
            ));
        }
        Ok(())
    }
}

/// solo-10x10's plan grammar.
pub mod solo {
    /// The moves a solo-10x10 dialogue may plan.
    pub(crate) const MOVES: [&str; 4] = ["hostile-input", "quit", "end-of-input", "play"];

    /// Checks that a plan can be played: nothing after a move that ends the game (`quit`,
    /// `end-of-input`, `play`).
    ///
    /// Errors: the index of the first move that cannot be played, and why.
    pub(crate) fn check_plan(moves: &[&str]) -> Result<(), super::Misplaced> {
        match moves
            .iter()
            .position(|m| ["quit", "end-of-input", "play"].contains(m))
        {
            Some(k) if k + 1 < moves.len() => Err((
                k + 1,
                format!("nothing after `{}` (it ends the game)", moves[k]),
            )),
            _ => Ok(()),
        }
    }
}
