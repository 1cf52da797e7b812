//! `[dialogue]`: a planned game played against a whole program.

use super::Cx;
use crate::scenario::model::{Dialogue, Move};
use crate::scenario::plan;
use crate::scenario::schema::{RawDialogue, RawScenario};
use toml::Spanned;

impl Cx<'_> {
    /// Checks `[dialogue]`: moves from the assignment's vocabulary, no `setup`, `steps` or
    /// `[end]` beside it.
    pub(super) fn dialogue(
        &mut self,
        d: &Spanned<RawDialogue>,
        raw: &RawScenario,
        id: &str,
    ) -> Option<Dialogue> {
        let Some(vocabulary) = plan::vocabulary(id) else {
            self.err(
                d.span(),
                format!("{id} has no dialogue scenarios"),
                format!(
                    "`[dialogue]` only for an assignment graded as a whole program: {}",
                    plan::assignments().join(", ")
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
        let out = self.moves(&d.get_ref().moves, id, vocabulary);
        let seed = self.seed(d.get_ref().seed.as_ref());
        self.errors
            .is_empty()
            .then_some(Dialogue { moves: out, seed })
    }

    /// The moves of a dialogue, each from the assignment's `vocabulary`, in an order its
    /// plan can play.
    fn moves(
        &mut self,
        moves: &Spanned<Vec<Spanned<String>>>,
        id: &str,
        vocabulary: &[&str],
    ) -> Vec<Move> {
        let span = moves.span();
        let moves = moves.get_ref();
        if moves.is_empty() {
            self.err(
                span.clone(),
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
        // An empty list is reported above; the plan has no move to point at.
        if !moves.is_empty() && out.len() == moves.len() {
            let names: Vec<&str> = out.iter().map(|m| m.name.as_str()).collect();
            if let Err((k, why)) = plan::check_plan(id, &names) {
                match moves.get(k) {
                    Some(m) => self.err(
                        m.span(),
                        format!("move `{}` cannot be played here", m.get_ref()),
                        why,
                    ),
                    None => self.err(span, "the plan cannot be played", why),
                }
            }
        }
        out
    }

    /// A dialogue's `seed`: a whole number from 0, default 1.
    fn seed(&mut self, seed: Option<&Spanned<i64>>) -> u64 {
        match seed {
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{load, problems};

    #[test]
    fn a_dialogue_reads_its_moves_and_seed() {
        let text = "assignment = \"battleboats\"\n[dialogue]\nmoves = [\"miss\", \"repeat-miss\"]\nseed = 4\n";
        let d = load(text).expect("loads").dialogue.expect("a dialogue");
        assert_eq!((d.moves.len(), d.seed), (2, 4));
    }

    #[test]
    fn a_dialogue_without_moves_is_reported_not_a_panic() {
        for id in crate::scenario::plan::assignments() {
            let text = format!("assignment = \"{id}\"\n[dialogue]\nmoves = []\n");
            assert_eq!(problems(&text), ["a dialogue without moves @ []"], "{id}");
        }
    }

    #[test]
    fn a_negative_seed_is_reported() {
        let text = "assignment = \"battleboats\"\n[dialogue]\nmoves = [\"miss\"]\nseed = -2\n";
        assert_eq!(problems(text), ["seed = -2 is negative @ -2"]);
    }
}
