"""Power cuts: SIGKILL the firmware at random moments during play, restart it on the same
flash, and check that it comes back in the last state it acknowledged over serial.

The test keeps a mirror of the game with the CPython engine, so it can pipeline several legal
commands and kill the board while it is busy with them (mid-move, mid-save). The board saves
before it acknowledges, so after a cut it is in the last acknowledged state -- or, when the cut
fell between the save and the acknowledgement, in the state of the command that was then being
carried out. Anything else (an older state, a mixture, a corrupt file) fails the test.
"""
import random
import time

import pytest

from mancala import Game, Rules

import firmware_image
from boardsim import Board
from test_rp2040_harness import needs_emulator

CUTS = 60
RULES = [{"variant": "kalah"}, {"variant": "basic", "players": 2, "pits": 7},
         {"variant": "kalah", "seeds": 3, "capture": "always"}]


def replay(commands):
    """The mirror game after commands (the board boots into a default Kalah game, seat 0)."""
    g = Game(Rules.from_dict({"variant": "kalah"}), 0)
    for c in commands:
        if c["cmd"] == "new_game":
            g = Game(Rules.from_dict(c["rules"]), c["first"])
        elif c["cmd"] == "press":
            g.play(c["pit"])
        elif c["cmd"] == "undo":
            g.undo()
    return g


def next_command(g, rng, undoable):
    if g.over or rng.random() < 0.04:
        return {"cmd": "new_game", "rules": rng.choice(RULES), "first": rng.randrange(2)}
    if undoable and rng.random() < 0.15:
        return {"cmd": "undo"}
    return {"cmd": "press", "pit": rng.choice(g.legal_moves())}


# The emulated Pico (real littlefs on the emulated flash, erases and programs written through
# to the flash file, a SIGKILL of the harness mid-save) boots in seconds, not milliseconds, and
# computes about 3x slower than a Pico: fewer cuts, spread over a longer moment, on both ways
# a board is made (stock MicroPython with deploy's files beside the saves on its littlefs, and
# the firmware image with only the profile there).
TARGETS = [("unix", None, CUTS, 0.02),
           pytest.param("rp2040", "deploy", 3, 0.6, marks=needs_emulator),
           pytest.param("rp2040", "image", 3, 0.6, marks=needs_emulator)]


@pytest.mark.parametrize("target,way,cuts,spread_s", TARGETS)
def test_power_cuts_restore_the_last_acknowledged_state(tmp_path, target, way, cuts, spread_s):
    rng = random.Random(1235 if way == "image" else 1234)  # the two ways: other bursts
    commands = []  # every command the board acknowledged, from its first boot
    flash = str(tmp_path)
    outcomes = {"acked": 0, "in_flight": 0}
    image = firmware_image.image() if way == "image" else None
    b = Board("duo", flash=flash, target=target, image=image).start()
    try:
        for cut in range(cuts):
            # pipeline a few commands, computed on the mirror, then cut the power mid-way
            g = replay(commands)
            undoable = 0
            burst = []
            for _ in range(rng.randint(1, 6)):
                c = next_command(g, rng, undoable)
                if c["cmd"] == "new_game":
                    g = Game(Rules.from_dict(c["rules"]), c["first"])
                    undoable = 0
                elif c["cmd"] == "press":
                    g.play(c["pit"])
                    undoable += 1
                else:
                    g.undo()
                    undoable -= 1
                burst.append(c)
            for i, c in enumerate(burst):
                b.send(dict(c, id=len(commands) + i))
            time.sleep(rng.random() * spread_s)
            b.kill()
            # everything the board sent before it died: answers and state-bearing events
            acked = 0
            lines = []
            while True:
                try:
                    msg = b.next_line(timeout=5)
                except Exception:
                    break
                lines.append(msg)
                if "event" in msg:
                    if "state" in msg:
                        acked = max(acked, _answers(lines) + 1)
                else:
                    assert msg["ok"], msg
                    acked = _answers(lines)
            expected_acked = replay(commands + burst[:acked]).to_dict()
            b = Board("duo", flash=flash, target=target, image=image).start()
            assert b.boot["resumed"] is True
            state = b.ok("state")["state"]
            # (the boot's log events come before the answer, so they have all been read)
            torn = [e for e in b.take_events("log") if e["level"] == "warning"]
            assert torn == [], "a save was torn: %s" % torn
            if state == expected_acked:
                commands += burst[:acked]
                outcomes["acked"] += 1
            else:
                # the cut fell between saving command acked+1 and acknowledging it
                assert acked < len(burst), (cut, state, expected_acked)
                assert state == replay(commands + burst[:acked + 1]).to_dict(), cut
                commands += burst[:acked + 1]
                outcomes["in_flight"] += 1
            # the restored game still has its history: undo works after the restart
            g = replay(commands)
            if g.history_length and not commands[-1]["cmd"] == "new_game":
                ans = b.ok("undo")
                g.undo()
                assert ans["state"] == g.to_dict()
                commands.append({"cmd": "undo"})
    finally:
        b.close()
    print("power cuts:", outcomes)


def _answers(lines):
    return sum(1 for m in lines if "event" not in m)
