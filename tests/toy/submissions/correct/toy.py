"""Toy battleship, 4 x 4."""


def new_game(ships):
    """A game: each ship's cells, and the cells shot so far."""
    copied = {name: list(cells) for name, cells in ships.items()}
    return {"ships": copied, "shots": set()}


def fire(game, row, col):
    """The outcome of a shot at (row, col)."""
    if not (0 <= row < 4 and 0 <= col < 4):
        return "invalid"
    if (row, col) in game["shots"]:
        return "repeated"
    game["shots"].add((row, col))
    for cells in game["ships"].values():
        if (row, col) in cells:
            if all(c in game["shots"] for c in cells):
                return "sunk"
            return "hit"
    return "miss"


def remaining(game):
    """The ships still afloat, in the order they were given."""
    return [name for name, cells in game["ships"].items()
            if not all(c in game["shots"] for c in cells)]
