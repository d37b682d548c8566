"""The level-4/5 search returns exactly the minimax value of its own evaluation.

A plain minimax over the public Game API (push/pop) with the same evaluation (evaluate.static,
whose Kalah and Basic scores the search inlines) and the same
depth must give the same root score as the explicit-stack alpha-beta with move ordering,
killers, history and (level 5) the transposition table, on random positions of Kalah and of
2, 3 and 4 player Basic (paranoid: the root seat maximizes, every other seat minimizes; in
3-4 player games, with best_reply, only the next rival replies, with its own first move,
before the root moves again, and without it every seat moves in the real order).
"""
import json
import os
import random

from mancala import Game, Rules
from mancala import evaluate as ev
from mancala.cpu import Search, Memory, Rng, LEVELS, MAX_PLY
from mancala.searchboard import SearchBoard


def _minimax(game, root, depth, ply):
    bd = SearchBoard(game, 1)
    if game.over or (not game.kalah and game.places[root] is not None):
        return ev.terminal(bd, root, ply)
    if game.kalah:
        a = game.stones(root, 0)
        c = game.stones(1 - root, 0)
        if ply and (a > bd.total // 2 or c > bd.total // 2):
            return (ev.WIN if a > c else -ev.WIN) + a - c
    if depth == 0:
        return ev.static(bd, root, game.turn)
    values = []
    for pit in game.legal_moves():
        game.push(pit)
        values.append(_minimax(game, root, depth - 1, ply + 1))
        game.pop()
    return max(values) if game.turn == root else min(values)


def _rival_reply(game):
    """The one move a rival makes in the search's best-reply turns: a move that finishes
    the rival; else one that ends in a store (an extra move), nearest the store first; else
    the one that sends the most stones past the rival's last pit; ties to the lowest pit."""
    t = game.turn
    n = game.pits
    best = None
    for pit in game.legal_moves():
        k = game.stones(t, pit)
        dist = n + 1 - pit  # steps to the rival's own store
        game.push(pit)
        if game.places[t] is not None:
            v = 2000
        elif game.turn == t:
            v = 200 + pit
        else:
            v = k - dist + 1 if k >= dist else 0
        game.pop()
        if best is None or v > best[0]:
            best = (v, pit)
    return [best[1]]


def _minimax_skip(game, root, depth, ply):
    """3-4 players as the search models them (Search's best_reply): after a rival's move
    the root moves again, and a rival makes only its own first move (_rival_reply). Played
    on Game.push/pop, handing the turn to the root after a rival's move that neither gave
    an extra move nor finished the rival."""
    if game.over or game.places[root] is not None:
        return ev.terminal(SearchBoard(game, 1), root, ply)
    if depth == 0:
        return ev.static(SearchBoard(game, 1), root, game.turn)
    t = game.turn
    values = []
    for pit in (game.legal_moves() if t == root else _rival_reply(game)):
        game.push(pit)
        if t != root and not game.over and game.turn != t and game.places[t] is None:
            game.turn = root
        values.append(_minimax_skip(game, root, depth - 1, ply + 1))
        game.pop()
    return max(values) if t == root else min(values)


def test_search_score_equals_minimax():
    rnd = random.Random(1)
    checked = 0
    for rules in ({"variant": "kalah"}, {"variant": "kalah", "capture": "always"},
                  {"variant": "basic"}, {"variant": "basic", "players": 3},
                  {"variant": "basic", "players": 4, "pits": 4}):
        for _ in range(8):
            game = Game(Rules.from_dict(rules))
            for _ in range(rnd.randrange(0, 25)):
                if game.over:
                    break
                game.play(rnd.choice(game.legal_moves()))
            if game.over or len(game.legal_moves()) < 2:
                continue
            real = _minimax(game, game.turn, 4, 0)
            want = real
            if game.players > 2:
                want = _minimax_skip(game, game.turn, 4, 0)
            for level, best_reply in ((4, True), (5, True), (5, False)):
                s = Search(game, level, 10 ** 6, seed=0, best_reply=best_reply)
                s.maxd = 4
                s.run()
                assert s.depth == 4 or abs(s.score) >= ev.WIN - 100
                assert s.score == (want if best_reply else real), (rules, level, game.to_dict())
                checked += 1
    assert checked > 60


def test_table_is_emptied_when_the_rules_change():
    # Kalah and Basic start from the same stones, which hash alike: a Kalah entry must not
    # answer for a Basic position.
    memory = Memory()
    kalah = Game(Rules.from_dict({"variant": "kalah"}))
    Search(kalah, 5, 10 ** 6, seed=0, max_nodes=300, memory=memory).run()
    keys, _ = memory.table(kalah.rules)
    assert any(keys)
    basic = Game(Rules.from_dict({"variant": "basic"}))
    keys, _ = memory.table(basic.rules)
    assert not any(keys)
    Search(basic, 5, 10 ** 6, seed=0, max_nodes=300, memory=memory).run()
    assert any(keys)
    keys, _ = memory.table(basic.rules)  # same rules: kept
    assert any(keys)
    memory.clear()
    assert not any(keys)


def test_basic_two_player_leaf_wins_exactly_when_the_mover_can_finish_at_once():
    # evaluate.static scores a Basic 2p leaf as won (WIN // 2) for the seat to move when its
    # next move empties its side. Checked against the engine in both directions on random
    # positions: the claimed move finishes and wins, and every position where some move
    # wins at once is claimed. Values are the root's: the other seat's are the negation.
    rnd = random.Random(5)
    claimed = 0
    for _ in range(300):
        game = Game(Rules.from_dict({"variant": "basic", "seeds": rnd.choice((3, 4))}))
        while not game.over:
            t = game.turn
            bd = SearchBoard(game, 1)
            v = ev.static(bd, t, t)
            assert ev.static(bd, 1 - t, t) == -v
            wins_now = []
            for pit in game.legal_moves():
                game.push(pit)
                wins_now.append(game.places[t] == 1)
                game.pop()
            if v == ev.WIN // 2:
                claimed += 1
                game.push(game.pits)
                assert game.places[t] == 1, game.to_dict()
                game.pop()
            else:
                assert abs(v) < ev.WIN // 4 and not any(wins_now), game.to_dict()
            game.play(rnd.choice(game.legal_moves()))
    assert claimed > 20


def test_basic_two_player_leaf_win_edges():
    #  seat 1:  [2 3 0 1 4 2]          seat 0 holds k stones, all in its last pit: with 8
    #  seat 0:  [0 0 0 0 0 k]  store   they reach the other store and the side is empty,
    #  with 9 the last one comes back to pit 1.
    for k, won in ((1, True), (8, True), (9, False)):
        other = [2, 3, 0, 1, 4, 2]
        rest = 48 - k - sum(other)
        game = Game.from_dict({"rules": Rules.from_dict({"variant": "basic"}).to_dict(),
                               "pits": [[0, 0, 0, 0, 0, k], other],
                               "stores": [rest // 2, rest - rest // 2], "turn": 0,
                               "active": [0, 1], "places": [None, None], "over": False})
        v = ev.static(SearchBoard(game, 1), 0, 0)
        game.play(6)
        assert (game.places[0] == 1) == won
        assert (v == ev.WIN // 2) == won, (k, v)


RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "search_results.json")


def _positions(rules):
    """The positions of tests/data/search_results.json for one rule set (its "about")."""
    rng = Rng(11)
    out = []
    for k in range(4):
        game = Game(Rules.from_dict(rules), first=k % 2)
        for _ in range(1 + 5 * k):
            if game.over:
                break
            legal = game.legal_moves()
            game.play(legal[rng.below(len(legal))])
        if not game.over:
            out.append(game)
    return out


def _result(game, level, pos, memory=None):
    s = Search(game, level, 10 ** 6, seed=5 + pos, max_nodes=1500, memory=memory)
    s.run()
    return [s.best, s.nodes, s.score, s.depth]


def test_searches_choose_what_they_chose_before_their_arrays_were_sized_to_depth():
    # Every level, alone and with one Memory kept through levels 3, 5, 1, 4, 2 (level 5's
    # longer arrays after level 3's, level 1's shorter after level 5's): the same move,
    # score, depth and node count as the search recorded before (tests/data).
    with open(RESULTS) as f:
        data = json.load(f)
    rules = data["rules"]
    alone = []
    shared = []
    memory = Memory()
    for r, spec in enumerate(rules):
        for pos, game in enumerate(_positions(spec)):
            for level in (1, 2, 3, 4, 5):
                alone.append([r, pos, level] + _result(game, level, pos))
            for level in (3, 5, 1, 4, 2):
                shared.append([r, pos, level] + _result(game, level, pos, memory))
    assert len(alone) == len(data["alone"]) and len(shared) == len(data["shared"])
    assert alone == data["alone"]
    assert shared == data["shared"]


def test_per_ply_arrays_hold_the_levels_depth_and_grow_for_a_deeper_search():
    game = Game(Rules.from_dict({"variant": "basic", "players": 4}))
    memory = Memory()
    plies = {}
    for level in (1, 3, 4, 5, 2):
        Search(game, level, 10 ** 6, seed=1, max_nodes=300, memory=memory).run()
        plies[level] = (len(memory.dep), len(memory.mv), len(memory.killer),
                        len(memory.board.sb), len(memory.board.splaces))
    # Levels 1-4 search 1, 1, 2 and 4 plies (LEVELS): their arrays hold that many plies,
    # level 5's hold MAX_PLY, and a later shallower search keeps them.
    assert plies == {1: (1,) * 5, 3: (2,) * 5, 4: (4,) * 5, 5: (MAX_PLY,) * 5,
                     2: (MAX_PLY,) * 5}
    assert [LEVELS[level][0] for level in (1, 2, 3, 4, 5)] == [1, 1, 2, 4, MAX_PLY]
