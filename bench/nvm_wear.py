"""How often the CircuitPython edition erases its nvm sector: the app's real saves (settings,
the game after every move, the finished game kept when it ends) over the model of
CircuitPython 9.2.9's nvm writes that tests/test_circuitpython.py checks against
CircuitPython itself on the emulated Pico (CircuitPythonNvm: an append into erased bytes
programs pages, anything else erases the 4 KiB sector).

    .venv/bin/python bench/nvm_wear.py [--games 20] [--quick]

On CPython: the app (mancala_fw.app.App, no display) with storage.slots over the model,
seeded random games played by press() to their end, Kalah on duo and 4-player Basic on quad.
It prints the saves, the erases, the saves per erase and the largest record of each file,
and the same games without the finished game kept (the same seeds), for reference.
"""
import argparse
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tests"), os.path.join(ROOT, "firmware", "lib")]

GAMES = {"duo": {"variant": "kalah"},
         "quad": {"variant": "basic", "players": 4, "pits": 6, "seeds": 4}}


def run(profile, games, seed, keep=True):
    from test_circuitpython import CircuitPythonNvm, _on
    from mancala_fw import storage
    from mancala_fw import profile as profiles
    from mancala_fw.storage import slots
    from mancala_fw.app import App
    from mancala_fw.app.hardware import NullDisplay

    memory = CircuitPythonNvm()
    _on(slots, memory)
    for name in ("save", "load", "remove", "KEPT"):
        setattr(storage, name, getattr(slots, name))
    saves = [0]
    largest = {}
    save = slots.save

    def counted(path, obj):
        saves[0] += 1
        save(path, obj)
        import json
        size = len(json.dumps(obj, separators=slots.SEPARATORS)) + len(path) + slots.HEAD + \
            slots.TAIL
        largest[path] = max(largest.get(path, 0), size)

    storage.save = counted
    prof = profiles.load(os.path.join(ROOT, "hardware", "profiles", profile + ".json"))
    app = App(prof, NullDisplay(), lambda name, fields: None, "")
    if not keep:  # the reference: no finished game kept
        app._finished = lambda action, state=None: None
    app.boot()
    rng = random.Random(seed)
    for _ in range(games):
        app.new_game("serial", GAMES[profile])
        game = app.session.game
        while not game.over:
            app.press(None, rng.choice(game.legal_moves()), "serial")
            game = app.session.game
    erases = len([op for op in memory.ops if op[0] == "erase"])
    return saves[0], erases, largest


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--quick", action="store_true", help="(make bench BENCHFLAGS=--quick) 5 games")
    args = p.parse_args(argv)
    if args.quick:
        args.games = min(args.games, 5)
    for profile in sorted(GAMES):
        for keep in (True, False):
            saves, erases, largest = run(profile, args.games, profile, keep)
            print("%s, %s: %d games, %d saves, %d erases: one every %.1f saves; largest "
                  "records %s" % (profile, "finished game kept" if keep else "none kept",
                                  args.games, saves, erases, saves / max(erases, 1),
                                  ", ".join("%s %d bytes" % kv for kv in sorted(largest.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
