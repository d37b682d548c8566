"""What handing games over costs the board (protocol version 2: game ids, `state` since,
the finished games it keeps, `games` and `game`), on the emulated Pico.

    .venv/bin/python bench/handover.py [--way deploy|image|circuitpython ...] [--profile quad]
                                       [--quick]

For each way the board is made (stock MicroPython with deploy's .mpy files; the firmware
image from make firmware; stock CircuitPython 9.2.9 with deploy --circuitpython's files) it
boots the board on a new flash as bench/soak.py does (with the firmware's own entry point),
animations off, and plays 4-player Basic games on quad
(Kalah on duo) over serial: seeded random legal pits, then one seat resigning after another,
so that each game's last resignation ends it (--quick: 10 moves, for make bench's quick run).
It reads:

- heap: what each step allocates: `diag memory`'s `free` just before it (with `"reset":
  true`, which starts the low-water mark there) less its `min_free` just after. The board
  reads the free heap after every save and right before the collection that follows each
  request, so the figure counts the step's garbage: what the heap must have free for it.
  MicroPython also collects by itself once 12 KB have been allocated since the last
  collection (gc.threshold, app.heap.THRESHOLD; docs/protocol.md §4 diag), so a step that
  allocates more reads lower than it allocated: each step is measured three times and the
  largest is given.
- `lowest`: the lowest free heap over all the steps measured, garbage counted. The steps: a resignation that does not end the game (the reference: a save and
  the events), the one that ends it (the same and the finished game kept), `state` with
  `since` 0, `games` with every slot full, and `game` of the longest kept game. What a
  `diag memory` request itself takes is read the same way and taken off each figure.
- flash: on MicroPython the littlefs blocks in use (littlefs-python on the flash file, the rp2
  port's geometry) after boot and once all the finished-game slots are full; on
  CircuitPython the bytes of the newest record of each file in the nvm sector.

Emulated time and heap are the chip's own, so one run is a measurement.
"""
import argparse
import json
import os
import random
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host_tools"))
sys.path.insert(0, os.path.join(ROOT, "firmware", "lib"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from editions import booted, request  # noqa: E402
from soak import start  # noqa: E402
from mancala import Game  # noqa: E402
from mancala_host.sim import rp2040, circuitpy_flash  # noqa: E402

RULES = {"duo": {"variant": "kalah"},
         "quad": {"variant": "basic", "players": 4, "pits": 6, "seeds": 4}}
KEPT = {"deploy": 4, "image": 4, "circuitpython": 1}
MOVES = 40  # random moves before the resignations


LOWEST = []  # each step's min_free


def cost(proc, it, cmd, **args):
    """(bytes allocated by the request cmd, its answer), garbage counted."""
    before = request(proc, it, "diag", action="memory", reset=True)
    answer = request(proc, it, cmd, **args)
    after = request(proc, it, "diag", action="memory")
    LOWEST.append(after["min_free"])
    return before["free"] - after["min_free"], answer


def largest(proc, it, cmd, **args):
    """cost() three times: the largest, and the answer."""
    spent = []
    for _ in range(3):
        n, answer = cost(proc, it, cmd, **args)
        spent.append(n)
    return max(spent), answer


def littlefs_blocks(flash):
    with open(os.path.join(flash, rp2040.FLASH_FILE), "rb") as f:
        f.seek(rp2040.FS_OFFSET)
        fs = rp2040._littlefs(f.read(rp2040.FS_BLOCK * rp2040.FS_BLOCKS))
    return fs.used_block_count


def nvm_records(flash):
    """{path: bytes of its newest record} in the nvm sector of the flash file."""
    from mancala_fw.storage import slots

    with open(os.path.join(flash, rp2040.FLASH_FILE), "rb") as f:
        f.seek(circuitpy_flash.NVM_OFFSET)
        cells = bytearray(f.read(slots.SECTOR))
    files = {}
    at = 0
    while at < slots.SECTOR:
        if cells[at] == 0xFF:
            at += 1
            continue
        found = {}
        size = slots._record(cells, at, found)
        if not size:
            at += 1
            continue
        for path in found:
            files[path] = size
        at += size
    return files


def play(proc, it, rules, rng, moves):
    """One game: MOVES seeded random legal pits, then resignations until it ends. Returns
    (bytes the last non-final resignation allocated, bytes the final one allocated, game id,
    moves)."""
    answer = request(proc, it, "new_game", rules=rules, first=0)
    gid, state = answer["game"], answer["state"]
    for _ in range(moves):
        if state["over"]:
            break
        state = request(proc, it, "press", pit=rng.choice(Game.from_dict(state).legal_moves()))["state"]
    reference = None
    while not state["over"]:
        spent, answer = cost(proc, it, "resign")
        state = answer["state"]
        if not state["over"]:
            reference = spent
    return reference, spent, gid


def measure(way, profile, out, moves=MOVES):
    rules = RULES[profile]
    rng = random.Random("handover")
    with tempfile.TemporaryDirectory() as tmp:
        flash = os.path.join(tmp, "flash")
        proc = start(way, flash, profile, probe=False)
        it = booted(proc)
        try:
            request(proc, it, "set_config", config={"animation_ms": 0})
            boot = request(proc, it, "diag", action="memory")
            blocks = littlefs_blocks(flash) if way != "circuitpython" else None
            diag = [cost(proc, it, "diag", action="memory")[0] for _ in range(3)]
            base = min(diag)
            keeps, references, ids = [], [], []
            for _ in range(KEPT[way] + 1):
                reference, spent, gid = play(proc, it, rules, rng, moves)
                keeps.append(spent - base)
                if reference is not None:
                    references.append(reference - base)
                ids.append(gid)
            since, whole = largest(proc, it, "state", since=0)
            listed_cost, listed = largest(proc, it, "games")
            longest = max(listed["games"], key=lambda g: g["moves"])
            fetch_cost, fetched = largest(proc, it, "game", game=longest["game"])
            assert len(fetched["history"]) == longest["moves"]
            figures = {
                "way": way, "profile": profile, "free_after_boot": boot["free"],
                "diag_request": base,
                "resign_not_ending": references, "resign_ending_and_keeping": keeps,
                "state_since_0": since - base, "state_moves": whole["moves"],
                "games": listed_cost - base, "kept": [g["game"] for g in listed["games"]],
                "game": fetch_cost - base, "game_moves": longest["moves"],
                "lowest": min(LOWEST)}
            if way == "circuitpython":
                figures["nvm_record_bytes"] = nvm_records(flash)
            else:
                figures["littlefs_blocks_after_boot"] = blocks
                figures["littlefs_blocks_with_slots_full"] = littlefs_blocks(flash)
                figures["littlefs_block_bytes"] = rp2040.FS_BLOCK
        finally:
            proc.kill()
            proc.wait()
    out.write(json.dumps(figures) + "\n")
    out.flush()
    return figures


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--way", choices=sorted(KEPT), action="append",
                   help="the way the board is made (default: all three)")
    p.add_argument("--profile", choices=sorted(RULES), default="quad")
    p.add_argument("--quick", action="store_true", help="10 moves before the resignations")
    args = p.parse_args(argv)
    for way in args.way or sorted(KEPT):
        measure(way, args.profile, sys.stdout, 10 if args.quick else MOVES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
