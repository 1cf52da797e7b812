def new_game(ships):
    return {'ships': dict(ships), 'shots': set()}

def fire(game, row, col):
    if not (0 <= row <= 3 and 0 <= col <= 3):
        return 'invalid'
    if (row, col) in game['shots']:
        return 'repeated'
    game['shots'].add((row, col))
    for name, cells in game['ships'].items():
        if (row, col) in cells:
            return 'sunk' if set(cells) <= game['shots'] else 'hit'
    return 'miss'

def remaining(game):
    afloat = [name for name, cells in game['ships'].items() if not set(cells) <= game['shots']]
    return sorted(afloat)
