# The CPU's SearchBoard against the engine: random games played on both must give the same
# boards, turns, active seats, places and endings, and unmake must restore every step.
# Plain functions with asserts: runs under MicroPython and CPython.
from mancala import Game, Rules
from mancala.searchboard import SearchBoard
from mancala.cpu import Rng

RULES = [
    {"variant": "kalah"},
    {"variant": "kalah", "seeds": 3},
    {"variant": "kalah", "seeds": 5, "capture": "always", "wipeout_capture": False},
    {"variant": "kalah", "capture": "always"},
    {"variant": "kalah", "wipeout_capture": False},
    {"variant": "basic"},
    {"variant": "basic", "pits": 7, "seeds": 3},
    {"variant": "basic", "players": 3},
    {"variant": "basic", "players": 3, "pits": 4, "play_all_places": False},
    {"variant": "basic", "players": 4, "pits": 4},
    {"variant": "basic", "players": 4, "play_all_places": False, "seeds": 3},
]


def _engine_view(game):
    d = game.to_dict()
    del d["rules"]
    return d


def _play_random(rules, seed):
    game = Game(Rules.from_dict(rules), first=seed % Rules.from_dict(rules).players)
    rng = Rng(seed)
    bd = SearchBoard(game, 400)
    views = [bd.to_dict()]
    ply = 0
    while not game.over:
        moves = game.legal_moves()
        pit = moves[rng.below(len(moves))]
        game.play(pit)
        bd.make(pit, ply)
        ply += 1
        got = bd.to_dict()
        assert got == _engine_view(game), (rules, seed, ply, got, _engine_view(game))
        views.append(got)
    # Walk all the way back: every snapshot must restore the position before that move.
    while ply:
        ply -= 1
        bd.unmake(ply)
        assert bd.to_dict() == views[ply], (rules, seed, ply)
    return len(views)


def test_search_board_matches_engine_on_random_games():
    total = 0
    for rules in RULES:
        for seed in range(1, 9):
            total += _play_random(rules, seed)
    assert total > 500


def test_hash_is_incremental():
    # The additive hash after moves must equal the hash of a board built from scratch.
    for rules in RULES:
        game = Game(Rules.from_dict(rules))
        rng = Rng(3)
        bd = SearchBoard(game, 400)
        ply = 0
        while not game.over and ply < 30:
            moves = game.legal_moves()
            pit = moves[rng.below(len(moves))]
            game.play(pit)
            bd.make(pit, ply)
            ply += 1
            if not game.over:
                assert bd.h == SearchBoard(game, 1).h, (rules, ply)
                assert bd.h < (1 << 30)
