"""Perft: counting the lines of play from a position, through the engine and through the search.

perft(game, k) is the number of different sequences of exactly k plies that can be played
from game's position. A ply is one sowing by the seat to move: an extra move (the last stone
in the mover's own store) is a ply of its own, and a line stops where its game ends, so a
finished game adds nothing deeper. Resignations are not counted. This is the leaf count of
the move tree cut at depth k, as chess programs count it; it is not a count of distinct
positions (two lines that reach the same position both count).

Two independent counters, which must agree node for node:
- game_counts() plays every line with Game.push()/pop(), the engine's own sowing;
- search_counts() runs the CPU's search loop (negamax.run), which sows with its own inlined
  copy of the rules, with everything that would cut lines short switched off: no
  transposition table, no pruning (every seat on one team and a window no score can reach),
  the real turn order (best_reply=False), and s.perft, which drops the search's shortcuts. Its node
  counter then counts every move made, so the sum of perft(1..k).

Plain Python for both runtimes: tests/test_perft.py checks tests/data/perft.json (written by
tests/data/make_perft.py) with these under CPython, test_perft_mp.py a part of it under
MicroPython.
"""

def game_counts(game, depth):
    """[perft(1), ..., perft(depth)] through Game.push()/pop()."""
    counts = [0] * depth
    _walk(game, depth, counts, 0)
    return counts


def _walk(game, depth, counts, ply):
    moves = game.legal_moves()
    counts[ply] += len(moves)
    if ply + 1 == depth:
        return
    for pit in moves:
        game.push(pit)
        if not game.over:
            _walk(game, depth, counts, ply + 1)
        game.pop()


def search_nodes(game, depth):
    """The moves the search loop makes when it searches every line depth plies deep."""
    from mancala import cpu, negamax
    from mancala.evaluate import INF
    s = cpu.Search(game, 5, 10 ** 9, seed=0, best_reply=False)  # the real turn order
    assert not s.done, "perft needs a position with two or more moves"
    s.perft = True
    s.tt = None
    s.noise = 0
    s.team = bytes(game.players)
    s.dep[0] = 2 * depth
    s.alpha[0] = INF - 1  # no score reaches it, so no move is ever cut off
    s.beta[0] = INF
    s.nodes = 0
    stop = cpu.ticks_add(cpu.ticks_ms(), 10 ** 8)  # a day: never reached
    while not negamax.run(s, stop):
        pass
    return s.nodes


def search_counts(game, depth):
    """[perft(1), ..., perft(depth)] through the search loop."""
    counts = []
    below = 0
    for k in range(1, depth + 1):
        nodes = search_nodes(game, k)
        counts.append(nodes - below)
        below = nodes
    return counts
