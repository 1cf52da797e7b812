def new_game(ships):
    return {"ships": ships, "hits": set(), "misses": set()}


def fire(game, row, col):
    if row not in range(4) or col not in range(4):
        return "invalid"
    if (row, col) in game["hits"] or (row, col) in game["misses"]:
        return "repeated"
    for cells in game["ships"].values():
        if (row, col) in cells:
            game["hits"].add((row, col))
            return "hit"   # TODO sunk
    game["misses"].add((row, col))
    return "miss"


def remaining(game):
    return [n for n, cells in game["ships"].items()
            if not set(cells) <= game["hits"]]
