# The board's endgame reader (mancala.endgame, mancala_fw.app.endgame) against the host
# solver's values, on MicroPython's unix port and on CPython: tests/test_endgame_reader.py
# writes the cases and the tables and runs this file under both.
#
#     endgame_check.py CASES.json FLASH_DIR
#
# CASES.json: {"rules name": [[state dict, value, exact, [best pits], {pit: value}], ...]};
# FLASH_DIR holds tables/ as a board's flash does (and a file that is no table), and
# mancala_tables.py, a stand-in for the image's frozen module, whose tables cover fewer
# stones. Prints one line per failure and "ENDGAME-RESULT checked=N failed=M".
import json
import sys

from mancala import Game, Rules
from mancala.endgame import Table, outcome
from mancala_fw.app import endgame as finder

failed = 0
checked = 0


def check(ok, *what):
    global failed, checked
    checked += 1
    if not ok:
        failed += 1
        print("FAIL", *what)


def run_cases(table, cases, name, limit):
    for state, value, exact, best, moves in cases:
        game = Game.from_dict(state)
        before = game.to_dict()
        b = game._board
        inplay = sum(b[0:6]) + sum(b[7:13])
        got = table.probe(b, game.turn)
        if inplay > limit:
            check(got is None, name, "probe beyond the table", state)
            check(table.exact(game) is None, name, "exact beyond the table", state)
            continue
        check(got == value, name, "probe", got, value, state)
        found = table.exact(game)
        check(found is not None, name, "exact is None", state)
        if found is None:
            continue
        v, pits, values = found
        check(v == exact and pits == best, name, "exact", v, pits, exact, best, state)
        want = dict((int(k), moves[k]) for k in moves)
        check(values == want, name, "move values", values, want, state)
        check(game.to_dict() == before, name, "the game changed", state)
        # Level 5 with the table plays one of the best pits and says the value.
        from mancala.cpu import Search
        s = Search(game, 5, 1000, endgame=table)
        check(s.done and s.best in best and s.exact == exact and s.exact_pits == best,
              name, "search", s.best, s.exact, state)


class Failing:
    """A table file whose reads fail (a flash error) once the table is open."""

    def __init__(self, f):
        self.f = f
        self.fail = False

    def seek(self, *args):
        if self.fail:
            raise OSError(5)
        return self.f.seek(*args)

    def read(self, n):
        return self.f.read(n)

    def readinto(self, buf):
        return self.f.readinto(buf)


def failed_reads(path, cases):
    # A read that fails gives no value, and no move from the table: the CPU searches.
    f = Failing(open(path, "rb"))
    table = Table(f)
    game = Game.from_dict(cases[0][0])
    check(table.probe(game._board, game.turn) == cases[0][1], "before the failure")
    f.fail = True
    check(table.probe(game._board, game.turn) is None, "a failed read gives a value")
    check(table.exact(game) is None, "a failed read gives moves")
    from mancala.cpu import Search
    s = Search(game, 5, 1000, max_nodes=50, endgame=table)
    check(s.exact is None and s.run() in game.legal_moves(), "search")
    f.f.close()


def no_allocation(table, cases):
    # The probe allocates nothing: 200 probes, with the collector off, use no heap.
    import gc
    boards = [(Game.from_dict(c[0])._board, c[0]["turn"]) for c in cases[:20]]
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    for _ in range(10):
        for b, turn in boards:
            table.probe(b, turn)
    used = gc.mem_alloc() - before
    gc.enable()
    check(used == 0, "the probe allocated %d bytes" % used)


def main(cases_path, flash):
    with open(cases_path) as f:
        cases = json.load(f)
    sys.path.insert(0, flash)  # mancala_tables, the frozen module's stand-in
    for name in sorted(cases):
        rules = Rules.from_dict({"preset": name})
        table, note = finder.find(rules, flash + "/")
        check(table is not None and table.file is not None and table.stones == 10,
              name, "the file in tables/", note)
        run_cases(table, cases[name], name + " (file)", 10)
        covered = [c for c in cases[name] if c[1] is not None]
        failed_reads(flash + "/tables/%s-10.bin" % name, covered)
        if sys.implementation.name == "micropython":
            no_allocation(table, cases[name])
        table.close()
        # The image's tables: bytes indexed in place, 8 stones.
        table = finder._frozen(name, table.rules)
        check(table is not None and table.file is None and table.stones == 8,
              name, "the frozen table")
        run_cases(table, cases[name], name + " (frozen)", 8)
        if sys.implementation.name == "micropython":
            no_allocation(table, cases[name])
    # A file that is no table: the frozen table serves, and one sentence says why.
    table, note = finder.find(Rules.from_dict({"preset": "kalah"}), flash + "/bad/")
    check(table is not None and table.file is None and note is not None and
          "bad/tables/kalah-10.bin is not used: it is not an endgame table" in note, "bad", note)
    # Rules that no table covers, and a folder without tables: None, and nothing to say.
    for d in ({"variant": "basic"},
              {"variant": "kalah", "capture": "always", "wipeout_capture": True},
              {"variant": "kalah", "capture": "nonempty", "wipeout_capture": False}):
        check(finder.find(Rules.from_dict(d), flash + "/") == (None, None), "no table", d)
    check(finder._from_files(flash + "/nothing", "kalah", 2) == (None, None), "no folder")
    check(outcome(0, 4) == "seat 0 wins by 4 with best play", outcome(0, 4))
    check(outcome(0, -2) == "seat 1 wins by 2 with best play", outcome(0, -2))
    check(outcome(1, 0) == "a draw with best play", outcome(1, 0))
    # A table of another format or size is refused with a sentence.
    for data, words in ((b"MKEX" + bytes(20), "no MKET header"),
                        (b"MKET\x02\x06\x08\x02" + bytes(8), "format 2"),
                        (b"MKET\x01\x07\x08\x02" + bytes(8), "7 pits"),
                        (b"MKET\x01\x06\x02\x02\x5b\x00\x00\x00" + bytes(4) + bytes(10),
                         "size does not match")):
        try:
            Table(data)
            check(False, "accepted", words)
        except ValueError as e:
            check(words in str(e), "refusal", str(e), words)
    print("ENDGAME-RESULT checked=%d failed=%d" % (checked, failed))


main(sys.argv[1], sys.argv[2])
