"""The board's settings menu: choose the next game and start it, or resign, without a computer.

Holding a store for a second opens the menu for the seat that owns that store
(docs/user-guide.md). The menu shows its values as stone counts on that seat's first four
pits, so it needs nothing from the display beyond showing a state:

    pit 1  variant  (1 = Kalah, 2 = Basic)      pit 3  pits per seat
    pit 2  players                              pit 4  seeds per pit
    pit 5  who plays this seat now: 0 = a person, 1..STRONGEST_LEVEL = the CPU at that level
           (app.autoplay: 5 on MicroPython, 4 on CircuitPython; games with 5 or more pits;
           it takes effect at once, also in the middle of a game)

Tapping one of those pits steps its value to the next one that this board can seat, changing
the other values as little as possible. Tapping the same store starts a new game with the
shown rules; holding it resigns that seat; touching any other store, or no touch for
IDLE_MS, closes the menu and changes nothing.
"""

from mpcompat import ticks_diff
from mancala import Rules

from mancala_fw.app import autoplay
from mancala_fw.app.config import check_rules

IDLE_MS = 20000
# What a touch means (Menu.touch); the app does it.
NOTHING = 0
CLOSE = 1
RESIGN = 2
NEW_GAME = 3
SEAT = 4
CHANGED = 5
NO_SETTING = 6
FIELDS = ("variant", "players", "pits", "seeds")
VARIANT_COUNT = {"kalah": 1, "basic": 2}


def choices(board):
    """Every (variant, players, pits, seeds) the engine accepts unchanged and board can seat."""
    out = []
    for variant in ("kalah", "basic"):
        for players in (2, 3, 4):
            for pits in (4, 6, 7):
                for seeds in (3, 4, 5):
                    rules = {"variant": variant, "players": players, "pits": pits,
                             "seeds": seeds}
                    try:
                        r = Rules.from_dict(rules)
                        if r.warnings:
                            continue
                        check_rules(rules, board)
                    except ValueError:
                        continue
                    out.append((variant, players, pits, seeds))
    return out


def step(combos, current, field):
    """The combo after current when field steps to its next possible value."""
    f = FIELDS.index(field)
    values = []
    for c in combos:
        if c[f] not in values:
            values.append(c[f])
    values.sort(key=lambda v: VARIANT_COUNT.get(v, v))
    # Prefer the values this field can take while every other value stays as it is.
    exact = [v for v in values if _with(current, f, v) in combos]
    if len(exact) > 1 and current[f] in exact:
        return _with(current, f, exact[(exact.index(current[f]) + 1) % len(exact)])
    if current[f] in values:
        start = values.index(current[f])
    else:
        start = -1
    for k in range(1, len(values) + 1):
        v = values[(start + k) % len(values)]
        best = None
        best_same = -1
        for c in combos:
            if c[f] != v:
                continue
            same = sum(1 for i in range(4) if c[i] == current[i])
            if same > best_same:
                best, best_same = c, same
        if best is not None and best != current:
            return best
    return current


def _with(combo, f, v):
    c = list(combo)
    c[f] = v
    return tuple(c)


class Menu:
    """The open menu's state. It holds no reference to the app: it is handed the board's
    profile, the game and the config's rules and seat level when it opens, and touch() and
    tick() return what a touch means (the constants below), which the app does (App)."""

    def __init__(self, board, game, rules, seat, level, store, now):
        """board: the profile (the games it can seat); game: the game in progress (the
        menu closes at any change of it); rules: the config's; seat: whose menu, level: who
        plays that seat now (0 a person, else the CPU's level); store: the store's position
        id, held to open the menu."""
        self.game = game
        self.seat = seat
        self.level = level
        self.store = store
        self.touched = now
        self.skip_release = True  # the hold that opened the menu ends with a release
        self.combos = choices(board)
        self.rules = dict(rules)
        r = rules
        self.current = (r["variant"], r["players"], r["pits"], r["seeds"])
        if self.current not in self.combos and self.combos:
            self.current = self.combos[0]

    def view(self):
        """The state to show: the values as counts on the seat's pits 1..4 (and pit 5: who
        plays the seat), everything else dark."""
        g = self.game
        pits = [[0] * g.pits for _ in range(g.players)]
        row = pits[self.seat]
        row[0] = VARIANT_COUNT[self.current[0]]
        row[1] = self.current[1]
        row[2] = self.current[2]
        row[3] = self.current[3]
        if g.pits >= 5:
            row[4] = self.level
        return {"rules": g.rules.to_dict(), "pits": pits, "stores": [0] * g.players,
                "turn": self.seat, "active": list(range(g.players)),
                "places": [None] * g.players, "over": False}

    def event(self):
        """The `menu` event's fields while open: the rules shown, and (when pit 5 shows it) who
        plays the seat: 0 a person, 1..STRONGEST_LEVEL the CPU at that level."""
        fields = {"open": True, "seat": self.seat, "rules": self.chosen_rules()}
        if self.game.pits >= 5:
            fields["plays"] = self.level
        return fields

    def seat_entry(self):
        """The config's entry for the seat, as pit 5 now shows it."""
        return {"kind": "cpu", "level": self.level} if self.level else {"kind": "human"}

    def chosen_rules(self):
        variant, players, pits, seeds = self.current
        rules = {"variant": variant, "players": players, "pits": pits, "seeds": seeds}
        # keep the variant's other options (capture, ...) when the variant stays the same
        if variant == self.rules.get("variant"):
            for k in self.rules:
                if k not in rules:
                    rules[k] = self.rules[k]
        return rules

    def touch(self, kind, pos, where, now):
        """What the touch (kind, pos; where: its (seat, pit) in the game's seating, or None)
        means: CLOSE, RESIGN (menu.seat), NEW_GAME (chosen_rules()), SEAT (pit 5 stepped:
        seat_entry()), CHANGED (a setting stepped: show and tell it), NO_SETTING (refuse it)
        or NOTHING."""
        self.touched = now
        if pos == self.store:
            if kind == "long":
                self.skip_release = True
                return RESIGN
            if kind == "release":
                if self.skip_release:
                    self.skip_release = False
                    return NOTHING
                return NEW_GAME
            return NOTHING
        if kind != "press":
            return NOTHING
        if where is None or where[1] == 0:
            if where is not None or pos.endswith(".S"):
                return CLOSE  # another store: leave without changes
            return NO_SETTING
        seat, pit = where
        if seat == self.seat and pit == 5:
            self.level = (self.level + 1) % (autoplay.STRONGEST_LEVEL + 1)
            return SEAT
        if seat != self.seat or not 1 <= pit <= 4:
            return NO_SETTING
        self.current = step(self.combos, self.current, FIELDS[pit - 1])
        return CHANGED

    def tick(self, now):
        """True when the menu has been left alone for IDLE_MS: it closes."""
        return ticks_diff(now, self.touched) >= IDLE_MS
