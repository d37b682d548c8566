"""Loads a board profile (hardware/profiles/*.json) and checks every field of it.

The board runs these checks at boot and the host's `mancala-board profile check` imports the
same module, so it keeps to the common subset of MicroPython and CPython. A fault raises
ValueError with one sentence that starts "profile NAME:" and names the field, for example
"profile duo: positions.0.3.ring.start 24 overlaps ring 0.2 on chain 0 (LEDs 12-23)".
"""
import json

from .board import Profile, position_ids

FORMAT = "mancala-profile/1"  # also in profile/__init__.py, which must not import this module
ADDRESSES = (0x5A, 0x5B, 0x5C, 0x5D)  # the four MPR121 ADDR-pin choices
GPIO_LAST = 29                         # RP2040 has GP0..GP29
MAX_RING_LEDS = 64
MAX_CHAINS = 8                         # one PIO state machine per data pin, 8 on an RP2040
MAX_I2C_HZ = 400000                    # MPR121 supports fast mode, not fast mode plus


def _is_int(v):
    # MicroPython's bool is not an int, CPython's is: refuse true/false on both.
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v):
    return _is_int(v) or isinstance(v, float)


def _show(v):
    if isinstance(v, float) and v == int(v):
        v = int(v)  # 37.0 reads as 37 in a message
    try:
        return json.dumps(v)
    except Exception:
        return str(v)


def _address(text):
    """ "0x5A" -> 0x5A; None for anything else (lower case accepted)."""
    if not isinstance(text, str) or len(text) != 4 or text[:2] not in ("0x", "0X"):
        return None
    for ch in text[2:]:
        if ch not in "0123456789abcdefABCDEF":
            return None
    return int(text[2:], 16)


class _Checker:
    def __init__(self, name):
        self.name = name

    def fail(self, text):
        raise ValueError("profile %s: %s" % (self.name, text))

    def table(self, d, where, required, optional=()):
        """d must be an object with exactly the required keys (plus optional ones)."""
        if not isinstance(d, dict):
            self.fail("%s must be an object, got %s" % (where, _show(d)))
        for key in required:
            if key not in d:
                self.fail("%s is missing" % self.join(where, key))
        extra = sorted(k for k in d if k not in required and k not in optional)
        if extra:
            self.fail("%s has an unknown field %s" % (where or "the top level", _show(extra[0])))

    def join(self, where, key):
        return "%s.%s" % (where, key) if where else key

    def number(self, d, where, key, low, high=None, integer=True):
        v = d[key]
        field = self.join(where, key)
        if not (_is_int(v) if integer else _is_num(v)):
            self.fail("%s must be %s, got %s" % (
                field, "a whole number" if integer else "a number", _show(v)))
        if v < low or (high is not None and v > high):
            if high is None:
                self.fail("%s %s must be at least %s" % (field, _show(v), low))
            self.fail("%s %s is not %s-%s" % (field, _show(v), low, high))
        return v

    def pair(self, d, where, key, low):
        v = d[key]
        field = self.join(where, key)
        if not isinstance(v, list) or len(v) != 2 or not (_is_num(v[0]) and _is_num(v[1])):
            self.fail("%s must be a list of two numbers, got %s" % (field, _show(v)))
        if v[0] < low or v[1] < low:
            self.fail("%s %s must not be below %s" % (field, _show(v), low))
        return (v[0], v[1])


def load(path, default=None):
    """Read and check the profile at path; returns a Profile or raises ValueError.
    default: JSON text to check instead when there is no file at path."""
    try:
        with open(path) as f:
            d = json.load(f)
    except OSError as e:
        if default is None or e.args[0] != 2:  # only a missing file (ENOENT) falls back
            raise ValueError("profile file %s cannot be read: is it there?" % path)
        try:
            d = json.loads(default)
        except ValueError:
            raise ValueError("the image's built-in profile is not valid JSON")
    except ValueError:
        raise ValueError("profile file %s is not valid JSON" % path)
    return check(d)


def check(d):
    """Check a parsed profile dict; returns a Profile or raises ValueError (one sentence)."""
    if not isinstance(d, dict):
        raise ValueError("profile ?: the top level must be a JSON object")
    name = d.get("name")
    c = _Checker(name if isinstance(name, str) and name else "?")
    if d.get("format") != FORMAT:
        c.fail("format must be %s, got %s" % (_show(FORMAT), _show(d.get("format"))))
    c.table(d, "", ("format", "name", "title", "sides", "pits_per_side", "i2c", "pad_chips",
                    "led_chains", "positions", "power", "geometry"), ("notes",))
    if not isinstance(name, str) or not name:
        c.fail("name must be a non-empty string, got %s" % _show(name))
    if not isinstance(d["title"], str):
        c.fail("title must be a string, got %s" % _show(d["title"]))
    f = {"name": name, "title": d["title"]}
    f["sides"] = c.number(d, "", "sides", 2, 4)
    f["pits_per_side"] = c.number(d, "", "pits_per_side", 1, 12)
    pins = {}  # type: dict  # GP number -> what uses it, to catch a pin doing two things
    _check_i2c(c, d["i2c"], f, pins)
    _check_chips(c, d["pad_chips"], f)
    _check_chains(c, d["led_chains"], f, pins)
    _check_positions(c, d["positions"], f)
    _check_leds(c, f)
    _check_pads(c, f)
    _check_power(c, d["power"], f)
    _check_geometry(c, d["geometry"], f)
    p = Profile(f)
    err = budget_error(p, p.budget_ma)
    if err:
        c.fail(err)
    return p


# --- the power budget against the wiring (docs/profiles.md section 4) ----------------------
# Here with the checks, not on Profile: only a profile's check needs them, and this module is
# let go after the boot's check (profile.release_checks), with their code.

def _ma(x):
    # Whole milliamps read best in messages; the inputs may be floats (0.6 mA idle per LED).
    return "%d" % int(x + 0.5)


def chain_worst_ma(p, chain, budget_ma):
    """The most chain can draw while the whole board p keeps to budget_ma."""
    leds = p.chains[chain][1]
    own_idle = p.idle_ma_per_led * leds
    full = leds * (p.idle_ma_per_led + 3 * p.ma_per_channel)
    # The limiter caps the sum over all chains, so one chain may get all the lit current.
    shared = p.lit_ma(budget_ma) + own_idle
    return full if full < shared else shared


def max_budget_ma(p):
    """The largest budget the supply and every chain's feed of board p can carry."""
    best = p.supply_ma
    for c in range(len(p.chains)):
        leds = p.chains[c][1]
        full = leds * (p.idle_ma_per_led + 3 * p.ma_per_channel)
        if full <= p.chain_feed_ma[c]:
            continue  # this chain cannot draw more than its feed even at full white
        limit = p.chain_feed_ma[c] + p.idle_ma() - p.idle_ma_per_led * leds
        if limit < best:
            best = limit
    return best


def budget_error(p, budget_ma, field="power.budget_ma"):
    """One sentence saying why budget_ma does not fit board p, or None if it does."""
    shown = "%s %s" % (field, _ma(budget_ma))
    if budget_ma > p.supply_ma:
        return "%s is more than power.supply_ma %s can deliver" % (shown, _ma(p.supply_ma))
    for c in range(len(p.chains)):
        worst = chain_worst_ma(p, c, budget_ma)
        if worst > p.chain_feed_ma[c]:
            return ("%s is more than led_chains.%d.feed_ma %s can carry: chain %d may draw "
                    "up to %s mA under it" % (shown, c, _ma(p.chain_feed_ma[c]), c, _ma(worst)))
    if budget_ma < p.min_budget_ma():
        return ("%s is too low to show anything: the board with all LEDs dark takes %s mA "
                "and one lit LED per ring needs %s mA more" % (
                    shown, _ma(p.idle_ma()), _ma(p.ma_per_channel * p.ring_count)))
    return None


def _check_i2c(c, i2c, f, pins):
    c.table(i2c, "i2c", ("id", "sda", "scl", "freq"), ("irq",))
    bus = c.number(i2c, "i2c", "id", 0, 1)
    for key in ("sda", "scl"):
        pin = c.number(i2c, "i2c", key, 0, GPIO_LAST)
        # RP2040 pin muxing: I2C0 SDA/SCL on GP0/1, 4/5, 8/9 ...; I2C1 on GP2/3, 6/7 ...
        want = 2 * bus + (1 if key == "scl" else 0)
        if pin % 4 != want:
            c.fail("i2c.%s GP%d cannot be %s of I2C%d (use GP%d, GP%d, GP%d, ...)" % (
                key, pin, key.upper(), bus, want, want + 4, want + 8))
        pins[pin] = "i2c." + key
    f["i2c_id"] = bus
    f["sda"] = i2c["sda"]
    f["scl"] = i2c["scl"]
    f["i2c_freq"] = c.number(i2c, "i2c", "freq", 10000, MAX_I2C_HZ)
    f["irq"] = None
    if "irq" in i2c:
        # The MPR121s' shared IRQ output (open drain, active low): any free GP pin.
        pin = c.number(i2c, "i2c", "irq", 0, GPIO_LAST)
        if pin in pins:
            c.fail("i2c.irq GP%d is already used as %s" % (pin, pins[pin]))
        pins[pin] = "i2c.irq"
        f["irq"] = pin


def _check_chips(c, chips, f):
    if not isinstance(chips, list) or not chips or len(chips) > len(ADDRESSES):
        c.fail("pad_chips must be a list of 1 to 4 addresses, got %s" % _show(chips))
    seen = []
    for i in range(len(chips)):
        addr = _address(chips[i])
        if addr is None or addr not in ADDRESSES:
            c.fail("pad_chips.%d %s is not an MPR121 address (\"0x5A\" to \"0x5D\")" % (
                i, _show(chips[i])))
        if addr in seen:
            c.fail("pad_chips.%d %s is listed twice" % (i, chips[i]))
        seen.append(addr)
    f["pad_chips"] = tuple(seen)


def _check_chains(c, chains, f, pins):
    if not isinstance(chains, list) or not chains or len(chains) > MAX_CHAINS:
        c.fail("led_chains must be a list of 1 to %d chains, got %s" % (MAX_CHAINS, _show(chains)))
    out = []
    feed = []
    for i in range(len(chains)):
        where = "led_chains.%d" % i
        c.table(chains[i], where, ("pin", "leds", "feed_ma"))
        pin = c.number(chains[i], where, "pin", 0, GPIO_LAST)
        if pin in pins:
            c.fail("%s.pin GP%d is already used as %s" % (where, pin, pins[pin]))
        pins[pin] = where + ".pin"
        leds = c.number(chains[i], where, "leds", 1, 2000)
        feed.append(c.number(chains[i], where, "feed_ma", 1, None, False))
        out.append((pin, leds))
    f["chains"] = tuple(out)
    f["chain_feed_ma"] = tuple(feed)


def _check_positions(c, positions, f):
    if not isinstance(positions, dict):
        c.fail("positions must be an object, got %s" % _show(positions))
    ids = position_ids(f["sides"], f["pits_per_side"])
    for pid in ids:
        if pid not in positions:
            c.fail("positions is missing %s" % pid)
    for pid in sorted(positions):
        if pid not in ids:
            c.fail("positions.%s is not a position of a board with %d sides of %d pits "
                   "(ids are \"side.pit\" and \"side.S\")" % (pid, f["sides"], f["pits_per_side"]))
    chips = f["pad_chips"]
    ring = {}
    pad = {}
    xy = {}
    for pid in ids:
        where = "positions." + pid
        entry = positions[pid]
        c.table(entry, where, ("ring", "pad", "xy_mm"))
        w = where + ".ring"
        c.table(entry["ring"], w, ("chain", "start", "leds"))
        chain = c.number(entry["ring"], w, "chain", 0, len(f["chains"]) - 1)
        start = c.number(entry["ring"], w, "start", 0)
        ring[pid] = (chain, start, c.number(entry["ring"], w, "leds", 1, MAX_RING_LEDS))
        w = where + ".pad"
        c.table(entry["pad"], w, ("chip", "electrode"))
        addr = _address(entry["pad"]["chip"])
        if addr not in chips:
            c.fail("%s.chip %s is not in pad_chips" % (w, _show(entry["pad"]["chip"])))
        pad[pid] = (addr, c.number(entry["pad"], w, "electrode", 0, 11))
        xy[pid] = c.pair(entry, where, "xy_mm", 0)
    f["ring"] = ring
    f["pad"] = pad
    f["xy_mm"] = xy


def _check_leds(c, f):
    # Each chain must be covered by its rings exactly: no LED twice, no LED without a ring.
    ids = position_ids(f["sides"], f["pits_per_side"])
    for n in range(len(f["chains"])):
        rings = sorted((f["ring"][pid][1], f["ring"][pid][2], pid)
                       for pid in ids if f["ring"][pid][0] == n)
        if not rings:
            c.fail("led_chains.%d drives no ring" % n)
        end = 0
        prev = None  # type: tuple | None  # the ring before this one on the chain
        for start, leds, pid in rings:
            if prev is not None and start < end:  # (end is 0 before the first ring)
                c.fail("positions.%s.ring.start %d overlaps ring %s on chain %d (LEDs %d-%d)" % (
                    pid, start, prev[2], n, prev[0], prev[0] + prev[1] - 1))
            if start > end:
                c.fail("led_chains.%d has a gap: LEDs %d-%d belong to no ring (%s)" % (
                    n, end, start - 1,
                    "before ring %s" % pid if prev is None else
                    "between rings %s and %s" % (prev[2], pid)))
            end = start + leds
            prev = (start, leds, pid)
        if end != f["chains"][n][1]:
            c.fail("led_chains.%d.leds is %d but its rings hold %d LEDs" % (
                n, f["chains"][n][1], end))


def _check_pads(c, f):
    used = {}  # type: dict
    for pid in position_ids(f["sides"], f["pits_per_side"]):
        key = f["pad"][pid]
        if key in used:
            c.fail("positions.%s.pad electrode %d on 0x%02X is already used by %s" % (
                pid, key[1], key[0], used[key]))
        used[key] = pid
    chips = f["pad_chips"]
    for i in range(len(chips)):
        if not any(k[0] == chips[i] for k in used):
            c.fail("pad_chips.%d 0x%02X has no pads: remove it or wire pads to it" % (i, chips[i]))


def _check_power(c, power, f):
    keys = ("budget_ma", "supply_ma", "base_ma", "idle_ma_per_led", "ma_per_channel")
    c.table(power, "power", keys)
    for key in keys:
        low = 0 if key in ("base_ma", "idle_ma_per_led") else 1
        f[key] = c.number(power, "power", key, low, None, False)


def _check_geometry(c, g, f):
    c.table(g, "geometry", ("board_mm", "pit_mm", "store_mm", "pit_ring_mm", "store_ring_mm"))
    w, h = c.pair(g, "geometry", "board_mm", 1)
    radius = {}
    for kind in ("pit", "store"):
        cup = c.number(g, "geometry", kind + "_mm", 1, None, False)
        outer, inner = c.pair(g, "geometry", kind + "_ring_mm", 0)
        if inner >= outer:
            c.fail("geometry.%s_ring_mm %s must be [outer, inner] with outer > inner" % (
                kind, _show(g[kind + "_ring_mm"])))
        radius[kind] = max(cup, outer) / 2
    ids = position_ids(f["sides"], f["pits_per_side"])
    xy = f["xy_mm"]
    r = {}
    for pid in ids:
        r[pid] = radius["store" if pid.endswith("S") else "pit"]
        x, y = xy[pid]
        if x - r[pid] < 0 or y - r[pid] < 0 or x + r[pid] > w or y + r[pid] > h:
            c.fail("positions.%s.xy_mm %s puts it past the edge of the %s x %s mm board" % (
                pid, _show(list(xy[pid])), _show(w), _show(h)))
    for i in range(len(ids)):
        for j in range(i):
            a, b = ids[i], ids[j]
            dx = xy[a][0] - xy[b][0]
            dy = xy[a][1] - xy[b][1]
            need = r[a] + r[b]
            if dx * dx + dy * dy < need * need:
                c.fail("positions.%s.xy_mm %s overlaps %s (centres closer than %s mm)" % (
                    a, _show(list(xy[a])), b, _show(need)))
    f["geometry"] = g
