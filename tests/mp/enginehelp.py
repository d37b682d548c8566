# Helpers for the engine scenario tests; plain Python for both runtimes.
from mancala import Game, Rules


def raises(exc, fn, *args):
    """Call fn(*args); return the exception's message, fail if exc was not raised."""
    try:
        fn(*args)
    except exc as e:
        return str(e)
    raise AssertionError("%s was not raised by %r%r" % (exc.__name__, fn, args))


def kalah(pits0, store0, pits1, store1, turn=0, **rules):
    r = {"variant": "kalah"}
    r.update(rules)
    r = Rules.from_dict(r)
    total = 12 * r.seeds
    have = sum(pits0) + sum(pits1) + store0 + store1
    assert have == total, "test board holds %d stones, not %d" % (have, total)
    return Game.from_dict({"rules": r.to_dict(), "pits": [list(pits0), list(pits1)],
                           "stores": [store0, store1], "turn": turn, "active": [0, 1],
                           "places": [None, None], "over": False})


def basic(pits, stores, turn=0, active=None, places=None, **rules):
    r = {"variant": "basic", "players": len(pits), "pits": len(pits[0])}
    r.update(rules)
    p = len(pits)
    return Game.from_dict({"rules": Rules.from_dict(r).to_dict(), "pits": [list(x) for x in pits],
                           "stores": list(stores), "turn": turn,
                           "active": list(range(p)) if active is None else active,
                           "places": [None] * p if places is None else places,
                           "over": False})


def seeds_for(total, players, pits):
    return total // (players * pits)


class Picker:
    """Seeded choices, the same sequence on both runtimes (MicroPython's random has no
    Random class)."""

    def __init__(self, seed):
        self.x = (seed * 7919 + 1) & 0x7FFFFFFF

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n

    def choice(self, items):
        return items[self.below(len(items))]
