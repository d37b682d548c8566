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
    def __init__(self, app, seat, store, now):
        self.app = app
        self.seat = seat
        self.store = store
        self.touched = now
        self.skip_release = True  # the hold that opened the menu ends with a release
        self.combos = choices(app.profile)
        r = app.config["rules"]
        self.rules = dict(r)
        self.current = (r["variant"], r["players"], r["pits"], r["seeds"])
        if self.current not in self.combos and self.combos:
            self.current = self.combos[0]
        self.show()

    def show(self):
        """Shows the values as counts on the seat's pits 1..4 (everything else dark)."""
        g = self.app.session.game
        pits = [[0] * g.pits for _ in range(g.players)]
        row = pits[self.seat]
        row[0] = VARIANT_COUNT[self.current[0]]
        row[1] = self.current[1]
        row[2] = self.current[2]
        row[3] = self.current[3]
        if g.pits >= 5:
            row[4] = self._seat_level()
        self.app.display.set_state({
            "rules": g.rules.to_dict(), "pits": pits, "stores": [0] * g.players,
            "turn": self.seat, "active": list(range(g.players)), "places": [None] * g.players,
            "over": False})

    def event(self):
        """The `menu` event's fields while open: the rules shown, and (when pit 5 shows it) who
        plays the seat: 0 a person, 1..STRONGEST_LEVEL the CPU at that level."""
        fields = {"open": True, "seat": self.seat, "rules": self.chosen_rules()}
        if self.app.session.game.pits >= 5:
            fields["plays"] = self._seat_level()
        return fields

    def _seat_level(self):
        seat = self.app.config["seats"][self.seat]
        return seat["level"] if seat["kind"] == "cpu" else 0

    def chosen_rules(self):
        variant, players, pits, seeds = self.current
        rules = {"variant": variant, "players": players, "pits": pits, "seeds": seeds}
        # keep the variant's other options (capture, ...) when the variant stays the same
        if variant == self.rules.get("variant"):
            for k in self.rules:
                if k not in rules:
                    rules[k] = self.rules[k]
        return rules

    def touch(self, kind, pos, now):
        app = self.app
        self.touched = now
        where = app.seating.seat_pit(pos)
        if pos == self.store:
            if kind == "long":
                self.skip_release = True
                app.close_menu()
                try:
                    app.resign(self.seat, "pad")
                except Exception as e:  # CommandError: the game is over or seat inactive
                    app._refuse(pos, self.seat, 0, getattr(e, "message", str(e)))
            elif kind == "release":
                if self.skip_release:
                    self.skip_release = False
                    return
                app.new_game("pad", self.chosen_rules())
            return
        if kind != "press":
            return
        if where is None or where[1] == 0 and pos != self.store:
            if where is not None or pos.endswith(".S"):
                app.close_menu()  # another store: leave without changes
            else:
                app._refuse(pos, None, None, "This pit has no setting.")
            return
        seat, pit = where
        if seat == self.seat and pit == 5:
            level = (self._seat_level() + 1) % (autoplay.STRONGEST_LEVEL + 1)
            entry = {"kind": "cpu", "level": level} if level else {"kind": "human"}
            seats = list(app.config["seats"])
            seats[seat] = entry
            app.set_config({"seats": seats}, "pad", True)
            app.emit("menu", self.event())
            self.show()
            return
        if seat != self.seat or not 1 <= pit <= 4:
            app._refuse(pos, seat, pit, "This pit has no setting.")
            return
        self.current = step(self.combos, self.current, FIELDS[pit - 1])
        app.emit("menu", self.event())
        self.show()

    def tick(self, now):
        if ticks_diff(now, self.touched) >= IDLE_MS:
            self.app.close_menu()
