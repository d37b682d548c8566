"""The reference player is itself correct: it matches a plain minimax without pruning, takes
an obvious win, and leaves the game unchanged."""
from mancala import Game, Rules

import reference_player as ref


def _minimax(game, seat, depth):
    if depth == 0 or game.over:
        return ref._score(game, seat)
    values = []
    for pit in game.legal_moves():
        game.push(pit)
        values.append(_minimax(game, seat, depth - 1))
        game.pop()
    return max(values) if game.turn == seat else min(values)


def _minimax_move(game, depth):
    seat = game.turn
    best, best_v = None, None
    for pit in game.legal_moves():
        game.push(pit)
        v = _minimax(game, seat, depth - 1)
        game.pop()
        if best_v is None or v > best_v:
            best, best_v = pit, v
    return best


def test_alphabeta_equals_minimax_on_random_positions():
    import random
    rnd = random.Random(5)
    for variant in ("kalah", "basic"):
        for _ in range(8):
            game = Game(Rules.from_dict({"variant": variant}))
            for _ in range(rnd.randrange(0, 12)):
                if game.over:
                    break
                game.play(rnd.choice(game.legal_moves()))
            if game.over:
                continue
            before = game.to_dict()
            assert ref.reference_move(game, 4) == _minimax_move(game, 4)
            assert game.to_dict() == before


def test_reference_takes_the_capture_that_wins():
    game = Game.from_dict({"rules": Rules.from_dict({"variant": "kalah"}).to_dict(),
                           "pits": [[0, 1, 0, 0, 0, 2], [1, 1, 1, 10, 0, 0]],
                           "stores": [16, 16], "turn": 0, "active": [0, 1],
                           "places": [None, None], "over": False})
    assert ref.reference_move(game) == 2
