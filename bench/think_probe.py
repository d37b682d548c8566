"""Runs on the board in place of main.py / code.py (bench/editions.py puts it there): level-5
CPU moves timed on the board's own clock, searched in 7 ms slices as the app does, and the
heap the search keeps (after a collection, the search still alive; the first one allocates
the CPU's shared table); then the Kalah move at levels 1-4 too, each with a Memory of its own
(the table is level 5's only). Prints one JSON line and stops. The same file on MicroPython
and CircuitPython."""
import gc
import json

from drivers.compat import ticks_ms, ticks_diff
from mancala import Rules, Game
from mancala.cpu import Search, Memory

SLICE_MS = 7  # mancala_fw.app.autoplay.SLICE_MS
POSITIONS = (
    ("kalah", {"variant": "kalah"}, (3, 6)),
    ("basic 2p", {"variant": "basic", "players": 2, "pits": 6}, (3, 4)),
    ("basic 4p", {"variant": "basic", "players": 4, "pits": 6}, (3, 4, 5, 2)),
)


def think(name, rules, opening, level, memory=None):
    game = Game(Rules.from_dict(rules))
    for pit in opening:
        game.play(pit)
    gc.collect()
    free = gc.mem_free()
    start = ticks_ms()
    search = Search(game, level, 1000, seed=1, memory=memory)
    while not search.step(SLICE_MS):
        pass
    ms = ticks_diff(ticks_ms(), start)
    gc.collect()
    return {"game": name, "level": level, "ms": ms, "nodes": search.nodes,
            "depth": search.depth, "kept": free - gc.mem_free()}


def main():
    results = []
    for name, rules, opening in POSITIONS:
        results.append(think(name, rules, opening, 5))
    gc.collect()
    name, rules, opening = POSITIONS[0]
    for level in (1, 2, 3, 4):
        results.append(think(name, rules, opening, level, Memory()))
        gc.collect()
    gc.collect()
    print(json.dumps({"event": "think_probe", "results": results, "free": gc.mem_free()}))


main()
