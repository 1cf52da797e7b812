# Battleship side project
# my functions for the colab


def create_game(size, ships):
    fleet = {}
    for name, positions in ships.items():
        fleet[name] = list(positions)
    return {"size": size, "ships": fleet, "shots": set()}


def is_valid_position(game, position)
    row, col = position
    return 0 <= row < game["size"] and 0 <= col < game["size"]


def was_targeted(game, position):
    return position in game["shots"]


def ship_at(game, position):
    for name, positions in game["ships"].items():
        if position in positions:
            return name
    return None


def is_sunk(game, ship_name):
    for position in game["ships"][ship_name]:
        if not was_targeted(game, position):
            return False
    return True


def remaining_ships(game):
    return [name for name in game["ships"] if not is_sunk(game, name)]


def fire(game, position):
    if not is_valid_position(game, position):
        return "invalid"
    if was_targeted(game, position):
        return "repeated"
    game["shots"].add(position)
    name = ship_at(game, position)
    if name is None:
        return "miss"
    if is_sunk(game, name):
        return "sunk"
    return "hit"


def has_won(game):
    return len(remaining_ships(game)) == 0
