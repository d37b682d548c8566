# The search loop allocates nothing per node, under the real MicroPython (gc.mem_alloc does
# not exist on CPython): a long search makes no more garbage than a short one, on positions
# where seats finish inside the search (4-player Basic) and in Kalah.
import gc
from mancala import Game, Rules
from mancala.cpu import Search, Rng


def _position(rules, moves):
    game = Game(Rules.from_dict(rules))
    rng = Rng(11)
    for _ in range(moves):
        legal = game.legal_moves()
        game.play(legal[rng.below(len(legal))])
    return game


def _alloc(game, nodes, best_reply):
    gc.collect()
    gc.disable()
    try:
        before = gc.mem_alloc()
        s = Search(game, 5, 10 ** 6, seed=1, max_nodes=nodes, best_reply=best_reply)
        s.run()
        return gc.mem_alloc() - before, s
    finally:
        gc.enable()


def test_no_garbage_per_node():
    # 4-player positions where seats finish about 100 times inside a 4000-node search in
    # the real turn order (best-reply turns end these searches sooner: they see deeper), a
    # 4-player position in best-reply turns (each rival's one reply), and Kalah.
    for rules, moves, best_reply in (({"variant": "basic", "players": 4, "pits": 4}, 56, False),
                                     ({"variant": "basic", "players": 4, "pits": 4}, 62, False),
                                     ({"variant": "basic", "players": 4}, 60, True),
                                     ({"variant": "kalah"}, 6, True)):
        game = _position(rules, moves)
        # The first search of a shape allocates the shared arrays, and Basic builds the
        # sowing table of each set of seats still playing once: a long search first.
        _alloc(game, 4000, best_reply)
        short, _ = _alloc(game, 100, best_reply)
        long_, s = _alloc(game, 4000, best_reply)
        assert s.nodes >= 4000, s.nodes
        assert long_ - short < 256, (rules, short, long_)
