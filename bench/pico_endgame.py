"""The endgame table's cost on the emulated Pico (stock MicroPython v1.28.0 image, the
firmware and /tables as `make deploy` puts them; bench/pico_run.py): the heap a table takes
once opened, one probe's time and allocation, a level-5 root choice from the table
(Table.exact: each pit played by the engine and its next position probed), and, to set
against those, the search's time a node. Emulated time is the chip's cycle count, so one run
is a measurement.

    .venv/bin/python bench/pico_endgame.py              (prints a table, then the raw JSON)

What the tables change in level 5's play is bench/endgame_strength.py's.

The probe is measured on the file in /tables (what a deployed board reads) and on bytes in
RAM (the 8-stone table cut from the file): the image's frozen tables are bytes too, but in
its flash, read through the XIP cache, which this run does not measure.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "firmware", "lib"))

from pico_run import available, run_script  # noqa: E402

POSITIONS = 200

SCRIPT = """
import gc, json, time
from mancala import Game, Rules
from mancala.endgame import Table
from mancala.cpu import Search

BOARDS = %(boards)r
STATES = %(states)r


def us(start):
    return time.ticks_diff(time.ticks_us(), start)


time.sleep_ms(1500)  # the host enumerates the USB serial line first
out = {}
boards = []
for i in range(0, len(BOARDS), 15):
    boards.append((bytearray(BOARDS[i:i + 14]), BOARDS[i + 14]))
gc.collect()
before = gc.mem_alloc()
f = open("tables/kalah-10.bin", "rb")
table = Table(f)
gc.collect()
out["file_heap"] = gc.mem_alloc() - before


def probes(table, name):
    gc.collect()
    gc.disable()
    a = gc.mem_alloc()
    start = time.ticks_us()
    for b, turn in boards:
        table.probe(b, turn)
    t = us(start)
    out[name + "_alloc"] = gc.mem_alloc() - a
    gc.enable()
    out[name + "_us"] = t // len(boards)


probes(table, "file")
f.seek(16)
body = f.read(62985)
gc.collect()
small = Table(b"MKET\\x01\\x06\\x08\\x02" + bytes([0x12, 0xEC, 0x01, 0]) + bytes(4) + body)
del body
gc.collect()
probes(small, "bytes")
rules = Rules.from_dict({"preset": "kalah"})
games = [Game.from_dict(s) for s in STATES]
gc.collect()
worst = 0
total = 0
for g in games:
    start = time.ticks_us()
    s = Search(g, 5, 1000, endgame=table)
    t = us(start)
    total += t
    worst = max(worst, t)
out["root_us"] = total // len(games)
out["root_max_us"] = worst
g = Game(Rules.from_dict({"variant": "kalah"}))
for pit in (3, 6, 2, 4):
    g.play(pit)
start = time.ticks_us()
s = Search(g, 5, 100000, max_nodes=2000, seed=1)
while not s.step(1000):
    pass
out["node_us"] = us(start) // s.nodes
import os
fs = os.statvfs("/")
out["fs_kib"] = fs[0] * fs[2] // 1024
out["fs_free_kib"] = fs[0] * fs[3] // 1024
print("R " + json.dumps(out))
print("END")
"""


def cases():
    """Covered Kalah positions: POSITIONS flat boards (14 bytes and the seat to move) for the
    probes, and 20 state dicts with 6 to 10 stones in play for the root choices."""
    from test_board_endgame import positions
    boards = []
    for game in positions("kalah", POSITIONS, 11):
        boards += list(game._board) + [game.turn]
    states = [g.to_dict() for g in positions("kalah", 20, 12, stones=(6, 10))]
    return boards, states


def main():
    why = available()
    if why:
        print("The emulated Pico cannot run here: %s." % why)
        return 1
    boards, states = cases()
    result = None
    for line in run_script(SCRIPT % {"boards": bytes(boards), "states": states}):
        if line.startswith("R "):
            result = json.loads(line[2:])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    print("The endgame table on the emulated RP2040 (stock MicroPython v1.28.0 image, "
          "deploy's files), commit %s:" % commit)
    rows = [
        ("heap of an open 10-stone table (file object, binomials, buffer)", result["file_heap"], "bytes"),
        ("probe, file in /tables", result["file_us"], "us"),
        ("probe, bytes in RAM (8 stones)", result["bytes_us"], "us"),
        ("heap a probe allocates (file / bytes)", "%d / %d" % (result["file_alloc"], result["bytes_alloc"]), "bytes"),
        ("level-5 root choice from the table, mean / max of 20", "%d / %d" % (result["root_us"], result["root_max_us"]), "us"),
        ("a search node, level 5 (2000 nodes of Kalah)", result["node_us"], "us"),
        ("filesystem free with deploy's files and the tables, of %d" % result["fs_kib"],
         result["fs_free_kib"], "KiB"),
    ]
    for name, value, unit in rows:
        print("  %-66s %12s %s" % (name, value, unit))
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
