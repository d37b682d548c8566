"""Writes tests/data/perft.json: the perft counts of every variant from its start.

    .venv/bin/python tests/data/make_perft.py       # counts through Game (tests/mp/perft.py)
    python tests/data/make_perft.py --openspiel     # also counts Kalah(6,4) with OpenSpiel
                                                    # (pip install open_spiel)

tests/test_perft.py checks the engine and the CPU's search loop against the file. The
OpenSpiel counts are an outside reference for Kalah(6,4): OpenSpiel's "mancala" is Kalah
with 4 seeds, capture only from a non-empty opposite pit, and wipe-out captures allowed.
OpenSpiel is large (about 300 MB with numpy and scipy), so `make test` does not install it:
without --openspiel the section already in the file is kept as it is.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "firmware", "lib"), os.path.join(ROOT, "tests", "mp")]

from mancala import Game, Rules  # noqa: E402
import perft  # noqa: E402

OUT = os.path.join(HERE, "perft.json")
DEPTH = 8
ENDGAME_PLIES = 6
ENDGAME_DEPTH = 8

ABOUT = [
    "Perft counts of every variant: starts, from the start with seat 0 first, to depth 8; "
    "endgames, from a position 6 plies before the end of a seeded random game (two a "
    "variant), to depth 8, so through the endings.",
    "counts[k-1] is perft(k): the number of different sequences of exactly k plies that "
    "can be played from the position. A ply is one sowing by the seat to move; an extra move "
    "(the last stone in the mover's own store) is a ply of its own; a line stops where its "
    "game ends; resignations are not plies. It counts lines, not distinct positions.",
    "Written by tests/data/make_perft.py through Game.push()/pop(); tests/test_perft.py "
    "checks the engine and the CPU's search loop (its own copy of the sowing) against it.",
    "openspiel: the same counts for Kalah(6,4) from OpenSpiel's mancala game, an engine "
    "written elsewhere (its rules: 4 seeds, capture only from a non-empty opposite pit, "
    "wipe-out captures allowed, so our rules {variant: kalah} exactly).",
]


def variants():
    """Every rules dict the engine accepts, normalized, in a fixed order."""
    out = []
    for seeds in (3, 4, 5):
        for capture in ("nonempty", "always"):
            for wipeout in (True, False):
                out.append({"variant": "kalah", "seeds": seeds, "capture": capture,
                            "wipeout_capture": wipeout})
    for players, pits in ((2, 6), (2, 7), (3, 6), (3, 4), (4, 6), (4, 4)):
        for seeds in (3, 4):
            for play_all in ((True, False) if players > 2 else (True,)):
                out.append({"variant": "basic", "players": players, "pits": pits,
                            "seeds": seeds, "play_all_places": play_all})
    return [Rules.from_dict(r).to_dict() for r in out]


def openspiel_counts(depth):
    import pyspiel
    counts = [0] * depth

    def walk(state, ply):
        moves = state.legal_actions()
        counts[ply] += len(moves)
        if ply + 1 < depth:
            for a in moves:
                child = state.child(a)
                if not child.is_terminal():
                    walk(child, ply + 1)

    walk(pyspiel.load_game("mancala").new_initial_state(), 0)
    return counts


def endgame(rules, seed):
    """A position ENDGAME_PLIES before the end of a game of seeded random moves, so the counts
    go through the endings: the Kalah sweep, Basic seats finishing and leaving the loop."""
    x = seed
    game = Game(rules)
    states = [game.to_dict()]
    while not game.over:
        moves = game.legal_moves()
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        game.push(moves[(x >> 8) % len(moves)])
        states.append(game.to_dict())
    for state in reversed(states[:-ENDGAME_PLIES]):
        if len(Game.from_dict(state).legal_moves()) > 1:  # the search needs a choice
            return state
    return states[0]


def count(state, depth):
    counts = perft.game_counts(Game.from_dict(state), depth)
    print(json.dumps(state["rules"]), counts, flush=True)
    return {"state": state, "counts": counts}


def main(argv):
    old = {}
    if os.path.exists(OUT):
        with open(OUT) as f:
            old = json.load(f)
    starts = [count(Game(rules).to_dict(), DEPTH) for rules in variants()]
    endgames = [count(endgame(rules, seed), ENDGAME_DEPTH)
                for rules in variants() for seed in (1, 2)]
    out = {"about": ABOUT, "depth": DEPTH, "starts": starts,
           "endgame_depth": ENDGAME_DEPTH, "endgames": endgames}
    if "--openspiel" in argv:
        from importlib.metadata import version
        out["openspiel"] = {"game": "mancala", "package": "open_spiel " + version("open_spiel"),
                            "rules": Rules.from_dict({"variant": "kalah"}).to_dict(),
                            "counts": openspiel_counts(DEPTH)}
    elif "openspiel" in old:
        out["openspiel"] = old["openspiel"]
    # One position a line, so a change to the counts reads as a one-line diff.
    text = "{\n" + ",\n".join(
        " %s: %s" % (json.dumps(k), "[\n  " + ",\n  ".join(json.dumps(x) for x in v) + "]"
                     if isinstance(v, list) else json.dumps(v)) for k, v in out.items()) + "\n}\n"
    assert json.loads(text) == out
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, OUT)
    print("wrote", OUT)


if __name__ == "__main__":
    main(sys.argv[1:])
