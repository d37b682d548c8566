"""Board profiles: load and check one, and seat a game on it.

    from mancala_fw import profile
    p = profile.load("profile.json")   # or profile.check(parsed_dict); ValueError if broken
    p = profile.load_board("profile.json")  # the same, else the image's frozen default profile
    p.name, p.sides, p.pits_per_side, p.positions      # ids "side.pit" / "side.S", loop order
    p.ring["0.3"]        -> (chain, start, leds)      # for the display
    p.chains             -> ((pin, leds), ...)         # for the LED output
    p.pad_position[0x5A] -> [id or None] * 12          # electrode -> position, for touch
    p.pad["0.3"]         -> (address, electrode)
    p.i2c_id, p.sda, p.scl, p.i2c_freq, p.pad_chips    # for the MPR121 bus
    p.budget_ma; p.lit_ma(budget) -> mA for lit channels; p.ma_per_channel
    p.min_budget_ma()
    checks.budget_error(p, ma) -> sentence or None   # the wiring checks at load (profile.checks,
    checks.max_budget_ma(p), checks.chain_worst_ma(p, c, ma)  # released after the boot's check)

    s = profile.seating(p, players, pits)  # ValueError if the board cannot seat it
    s.position(seat, pit) -> id (pit 0 = store); s.store(seat); s.sides; s.used
    s.seat_pit(id) -> (seat, pit) | (seat, 0) for a store | None when unused
    profile.can_seat(p, rules_dict) -> sentence or None   # rules: variant, players, pits
    profile.release_checks()   # the board checks once at boot, then gives their heap back
    p.compact()                # the board drops the host-only tables (xy_mm, geometry, place);
                               #   pad[id] is then looked up in pad_position

docs/profiles.md describes the file format, the checks and the power model.
"""
from mancala_fw import forget
from .board import Profile, position_id, position_ids
from .seating import Seating, can_seat, seat_error, seat_sides, seating

FORMAT = "mancala-profile/1"  # checks.py refuses any other


def check(d):
    """Checks a parsed profile dict: a Profile, or ValueError naming the field."""
    from .checks import check as run
    return run(d)


def load(path):
    """Reads and checks the profile at path: a Profile, or ValueError naming the field."""
    from .checks import load as run
    return run(path)


def load_board(path):
    """The board's own profile: the file at path (profile.json on the flash), or, when there
    is no file there, the profile frozen into the firmware image.  `make firmware` freezes it
    as the module .default (NAME, TEXT: the JSON), which exists only in the image."""
    from .checks import load as run
    try:
        from .default import TEXT  # type: ignore[import-not-found]  # only in the image
    except ImportError:
        TEXT = None
    forget(__name__ + ".default")  # TEXT lives in the image's flash, the module need not stay
    return run(path, TEXT)


def release_checks():
    """Forgets the checks module (about 10 KB of heap on the board, needed only at boot);
    check() and load() import it again if they are called later."""
    forget(__name__ + ".checks")
