# toy battleship

def new_game(ships):
    game = {}
    game["ships"] = ships
    game["shots"] = []
    return game


def fire(game, row, col):
    if row < 0 or row > 3 or col < 0 or col > 3:
        return "invalid"
    game["shots"].append((row, col))
    for name in game["ships"]:
        if (row, col) in game["ships"][name]:
            sunk = True
            for cell in game["ships"][name]:
                if cell not in game["shots"]:
                    sunk = False
            if sunk:
                return "sunk"
            return "hit"
    return "miss"


def remaining(game):
    left = []
    for name in game["ships"]:
        for cell in game["ships"][name]:
            if cell not in game["shots"]:
                left.append(name)
                break
    return left
