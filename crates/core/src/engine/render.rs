//! Drawing a board in the handout's alphabet.

use super::game::Game;
use crate::cell::Cell;

impl Game {
    /// The board as rows of glyphs joined by the spec's separator, row 0 first.
    /// With `reveal`, unshot ships and grenades are drawn too (the divergence view).
    pub fn render(&self, reveal: bool) -> Vec<String> {
        let rules = self.rules();
        let d = &rules.display;
        (0..rules.rows)
            .map(|row| {
                (0..rules.cols)
                    .map(|col| {
                        let cell = Cell { row, col };
                        let shot = self.was_targeted(cell);
                        let Some(i) = self.occupant(cell) else {
                            return if shot {
                                d.miss.as_str()
                            } else {
                                d.untried.as_str()
                            };
                        };
                        let item = &rules.items[i];
                        let owned = d.players.get(item.owner).and_then(|g| g.as_ref());
                        if !shot && !reveal {
                            return d.untried.as_str();
                        }
                        if item.grenade {
                            return owned.map_or(d.grenade.as_str(), |g| g.1.as_str());
                        }
                        if !shot {
                            return owned.map_or(d.ship.as_str(), |g| g.0.as_str());
                        }
                        if self.is_sunk(i) {
                            if let Some(g) = d.sunk_by_kind.get(&item.kind) {
                                return g.as_str();
                            }
                            return owned.map_or(d.sunk.as_str(), |g| g.0.as_str());
                        }
                        owned.map_or(d.hit.as_str(), |g| g.0.as_str())
                    })
                    .collect::<Vec<_>>()
                    .join(&d.separator)
            })
            .collect()
    }
}
