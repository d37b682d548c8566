"""The board's config (docs/protocol.md §6): defaults, and checking a change as a whole.

check() builds the complete new config from the old one and a patch, or raises ValueError
with one sentence that names the key; nothing is half-applied because the caller only swaps
in the result. The rules go through the engine's Rules and then the profile's seating check.

What depends on the board comes in a `board` object with: sides, budget_ma, idle_ma(),
ma_per_channel, ring_count, seat_error(rules_dict) -> sentence or None (the app hands it the
profile; tests can build their own).

power_limit_ma starts safe for a computer's USB port (USB_MA, docs/profiles.md §4): a
maker's first power-on is often just the Pico's USB cable. A maker with the board's own
supply raises it, up to the profile's power.budget_ma.
"""

from mancala import Rules
from mancala_fw.app import autoplay  # loaded with the app; its levels, not the CPU

KEYS = ("rules", "rotate_starter", "brightness", "power_limit_ma", "animation_ms", "seats",
        "move_time_limit", "label", "paused")
USB_MA = 500  # what a USB 2 port must deliver; a laptop's port often gives no more
TIME_LIMITS = (0, 30, 60)
LABEL_MAX = 24  # characters of the board's name in a classroom ("table 3")


def least_ma(board):
    """The lowest power_limit_ma: the board with every LED dark, plus half a channel's
    current for each ring, so that the counts still show (dimly)."""
    return int(-(-(board.idle_ma() + board.ma_per_channel * board.ring_count / 2) // 1))


def usb_ma(board):
    """The default power_limit_ma: the whole board within USB_MA, or, where even the dimmest
    display takes more (the quad's 480 LEDs take 540 mA dark), the lowest limit."""
    low = least_ma(board)
    return int(min(board.budget_ma, low if low > USB_MA else USB_MA))


def defaults(board):
    sides = board.sides
    return {"rules": Rules.from_dict({"variant": "kalah"}).to_dict(),
            "rotate_starter": True,
            "brightness": 40,
            "power_limit_ma": usb_ma(board),
            "animation_ms": 120,
            "seats": [{"kind": "human"} for _ in range(sides)],
            "move_time_limit": 0,
            "label": "",
            "paused": False}


def _int(patch, key, low, high):
    v = patch[key]
    if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
        raise ValueError("%s must be an integer from %d to %d, got %s." % (key, low, high,
                                                                           _show(v)))
    return v


def _show(v):
    s = repr(v)
    if v is True or v is False or v is None:
        s = {True: "true", False: "false", None: "null"}[v]
    return s if len(s) <= 40 else s[:37] + "..."


def _seat(i, entry):
    key = "seats[%d]" % i
    if not isinstance(entry, dict):
        raise ValueError("%s must be an object such as {\"kind\": \"human\"}, got %s."
                         % (key, _show(entry)))
    kind = entry.get("kind")
    if kind == "human":
        # "level": null is a level unset, as a host that turns a CPU seat back into a
        # person's may send it; any other level is a mistake to say.
        extra = [k for k in entry if k != "kind" and not (k == "level" and entry[k] is None)]
        if extra:
            raise ValueError("%s: a human seat takes only \"kind\", not %s." % (key, extra[0]))
        return {"kind": "human"}
    if kind == "cpu":
        level = entry.get("level", 3)
        top = autoplay.STRONGEST_LEVEL
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= top:
            raise ValueError("%s.level must be an integer from 1 to %d, got %s%s."
                             % (key, top, _show(level), _capped(top)))
        extra = [k for k in entry if k not in ("kind", "level")]
        if extra:
            raise ValueError("%s: a cpu seat takes only \"kind\" and \"level\", not %s."
                             % (key, extra[0]))
        return {"kind": "cpu", "level": level}
    raise ValueError("%s.kind must be \"human\" or \"cpu\", got %s." % (key, _show(kind)))


def _capped(top):
    # Why this edition's range ends below the CPU's strongest level (CircuitPython's heap).
    if top >= autoplay.CPU_LEVELS:
        return ""
    return (": %d is the strongest level on CircuitPython, where level %d's search table "
            "needs more memory than the board has free" % (top, top + 1))


def _seat_levels(seats, problems):
    """Saved seats with a CPU level above this edition's strongest (a config saved on
    MicroPython, or before the cap) at the strongest level instead, each said in problems:
    the seat stays the CPU's rather than the whole key falling back to its default."""
    top = autoplay.STRONGEST_LEVEL
    if not isinstance(seats, list):
        return seats
    out = []
    for i in range(len(seats)):
        entry = seats[i]
        level = entry.get("level") if isinstance(entry, dict) else None
        if isinstance(level, int) and not isinstance(level, bool) and \
                entry.get("kind") == "cpu" and top < level <= autoplay.CPU_LEVELS:
            entry = dict(entry)
            entry["level"] = top
            problems.append("The saved seat %d played at CPU level %d, which CircuitPython "
                            "does not offer; it plays at level %d, the strongest here."
                            % (i, level, top))
        out.append(entry)
    return out


def check_rules(rules, board):
    """Normalized rules dict and warnings, or ValueError naming the rule."""
    try:
        r = Rules.from_dict(rules)
    except ValueError as e:
        raise ValueError("rules: %s." % str(e).rstrip("."))
    why = board.seat_error(r.to_dict())
    if why:
        raise ValueError("rules: %s." % why.rstrip("."))
    return r.to_dict(), list(r.warnings)


def check(old, patch, board):
    """Returns (new_config, warnings) or raises ValueError naming the key."""
    sides = board.sides
    if not isinstance(patch, dict):
        raise ValueError("config must be an object with some of the keys %s." % ", ".join(KEYS))
    for k in patch:
        if k not in KEYS:
            raise ValueError("%s is not a config key; the keys are %s." % (_show(k),
                                                                          ", ".join(KEYS)))
    new = {}
    for k in old:
        new[k] = old[k]
    warnings = []
    if "rules" in patch:
        new["rules"], warnings = check_rules(patch["rules"], board)
    if "rotate_starter" in patch:
        v = patch["rotate_starter"]
        if v is not True and v is not False:
            raise ValueError("rotate_starter must be true or false, got %s." % _show(v))
        new["rotate_starter"] = v
    if "brightness" in patch:
        new["brightness"] = _int(patch, "brightness", 0, 100)
    if "power_limit_ma" in patch:
        # The top is the profile's budget, which its supply and wiring were checked for.
        new["power_limit_ma"] = _int(patch, "power_limit_ma", least_ma(board), board.budget_ma)
    if "animation_ms" in patch:
        new["animation_ms"] = _int(patch, "animation_ms", 0, 1000)
    if "seats" in patch:
        seats = patch["seats"]
        if not isinstance(seats, list) or not 1 <= len(seats) <= sides:
            raise ValueError("seats must be a list of 1 to %d seat objects, got %s."
                             % (sides, _show(seats)))
        merged = list(old["seats"])
        for i in range(len(seats)):
            merged[i] = _seat(i, seats[i])
        new["seats"] = merged
    if "move_time_limit" in patch:
        v = patch["move_time_limit"]
        if isinstance(v, bool) or v not in TIME_LIMITS:
            raise ValueError("move_time_limit must be 0, 30 or 60 seconds, got %s." % _show(v))
        new["move_time_limit"] = v
    if "label" in patch:
        new["label"] = _label(patch["label"])
    if "paused" in patch:
        v = patch["paused"]
        if v is not True and v is not False:
            raise ValueError("paused must be true or false, got %s." % _show(v))
        new["paused"] = v
    return new, warnings


def _label(v):
    """The board's name in a classroom: printable ASCII, so every host and font shows it."""
    ok = isinstance(v, str) and len(v) <= LABEL_MAX
    if ok:
        for c in v:
            if not 32 <= ord(c) <= 126:
                ok = False
                break
    if not ok:
        raise ValueError("label must be text of at most %d printable ASCII characters, got %s."
                         % (LABEL_MAX, _show(v)))
    return v


def restore(saved, board):
    """The config from a saved dict, key by key: a bad or missing key falls back to its
    default (and is named in the returned problems), so one bad value costs only itself. A
    CPU seat saved above this edition's strongest level plays at that level (also named).
    paused is never restored: the board boots unpaused."""
    config = defaults(board)
    problems = []  # type: list
    if not isinstance(saved, dict):
        return config, problems
    for k in KEYS:
        # A pause is the classroom hub's for the session: a board always boots playable, so
        # one left paused by a hub that went away is not locked after a power cycle.
        if k in saved and k != "paused":
            value = saved[k]
            capped = []  # type: list
            if k == "seats":
                value = _seat_levels(value, capped)
            try:
                config, _ = check(config, {k: value}, board)
            except ValueError as e:
                problems.append("saved %s" % e)
            else:
                problems += capped  # said only if the seats are kept
    return config, problems
