"""The checked board profile: the tables the display, touch layer and drivers read, and the
power arithmetic that decides which current budgets the board's wiring can carry.

A Profile is built only by profile.checks.check(), which has already refused anything
inconsistent, so nothing here re-checks the wiring.
"""


def position_id(side, pit):
    """Physical position id: "<side>.<pit>" for pit 1..M, "<side>.S" for the store (pit 0)."""
    if pit == 0:
        return "%d.S" % side
    return "%d.%d" % (side, pit)


def position_ids(sides, pits_per_side):
    """Every physical position in sowing-loop order: side 0 pits 1..M, its store, side 1..."""
    ids = []
    for side in range(sides):
        for pit in range(1, pits_per_side + 1):
            ids.append(position_id(side, pit))
        ids.append(position_id(side, 0))
    return ids


class Profile:
    """One board, checked. Attributes (all read-only by convention):

    name, title, sides, pits_per_side
    i2c_id, sda, scl, i2c_freq       the I2C bus of the pad chips (GP numbers)
    irq              GP number of the pad chips' shared IRQ line, or None (not wired)
    pad_chips        tuple of MPR121 addresses (ints), in the profile's order
    chains           tuple of (pin, leds) per LED chain; chain_feed_ma the matching feed limits
    positions        tuple of position ids in sowing-loop order
    place            id -> (side, pit), pit 0 for the store
    ring             id -> (chain, start, leds)
    pad              id -> (address, electrode)
    pad_position     address -> list of 12 ids (None for an unused electrode)
    xy_mm            id -> (x, y) centre on the top plate, millimetres, y downwards
    geometry         the profile's geometry dict as written
    budget_ma, supply_ma, base_ma, idle_ma_per_led, ma_per_channel   the power fields
    total_leds, ring_count
    """

    def __init__(self, fields):
        # fields is the checker's plain dict of already-converted values.
        self.name = fields["name"]
        self.title = fields["title"]
        self.sides = fields["sides"]
        self.pits_per_side = fields["pits_per_side"]
        self.i2c_id = fields["i2c_id"]
        self.sda = fields["sda"]
        self.scl = fields["scl"]
        self.i2c_freq = fields["i2c_freq"]
        self.irq = fields.get("irq")
        self.pad_chips = fields["pad_chips"]
        self.chains = fields["chains"]
        self.chain_feed_ma = fields["chain_feed_ma"]
        self.ring = fields["ring"]
        self.pad = fields["pad"]
        self.xy_mm = fields["xy_mm"]
        self.geometry = fields["geometry"]
        self.budget_ma = fields["budget_ma"]
        self.supply_ma = fields["supply_ma"]
        self.base_ma = fields["base_ma"]
        self.idle_ma_per_led = fields["idle_ma_per_led"]
        self.ma_per_channel = fields["ma_per_channel"]
        self.positions = tuple(position_ids(self.sides, self.pits_per_side))
        place = {}
        for side in range(self.sides):
            for pit in range(self.pits_per_side + 1):
                place[position_id(side, pit)] = (side, pit)
        self.place = place  # type: dict[str, tuple[int, int]] | None  # None once compact()
        pad_position = {}
        for addr in self.pad_chips:
            pad_position[addr] = [None] * 12
        for pid in self.positions:
            addr, electrode = self.pad[pid]
            pad_position[addr][electrode] = pid
        self.pad_position = pad_position
        total = 0
        for pin, leds in self.chains:
            total += leds
        self.total_leds = total
        self.ring_count = len(self.positions)

    def __repr__(self):
        return "<Profile %s: %d sides of %d pits, %d LEDs>" % (
            self.name, self.sides, self.pits_per_side, self.total_leds)

    def compact(self):
        """Drops the tables only the host tool uses (xy_mm, geometry, place, title) and
        answers pad[id] from pad_position: about 6 + 3 KB of the board's heap on quad. Set to
        None rather than deleted: MicroPython keeps a deleted attribute's value in the
        instance's table, still reachable."""
        self.xy_mm = None
        self.geometry = None
        self.place = None
        self.title = None
        # pad[id] is read at boot and by the self-test only: look it up in pad_position
        # rather than keep a second table of the same wiring (3 KB on quad's 28 pads).
        self.pad = _PadLookup(self.pad_position)

    def store_id(self, side):
        return position_id(side, 0)

    # --- power ---------------------------------------------------------------------------
    # Model (as WLED's and FastLED's limiters): the board draws base_ma (Pico, MPR121s, level
    # shifter), every LED draws idle_ma_per_led even when dark, and each colour channel at
    # full level draws ma_per_channel more. A budget is the total the board may draw.

    def idle_ma(self):
        """What the board draws with every LED dark."""
        return self.base_ma + self.idle_ma_per_led * self.total_leds

    def lit_ma(self, budget_ma):
        """What the limiter may spend on lit channels under budget_ma (channel sums * mA)."""
        return budget_ma - self.idle_ma()

    def min_budget_ma(self):
        """The least budget that still shows something: one LED per ring at one full channel."""
        return self.idle_ma() + self.ma_per_channel * self.ring_count

    # --- seating -------------------------------------------------------------------------

    def seat_error(self, rules):
        """profile.can_seat(self, rules): why this board cannot seat the normalized rules
        dict, or None. Here so the app can hand the Profile itself to its config check."""
        from .seating import can_seat  # seating imports this module, so import late
        return can_seat(self, rules)


class _PadLookup:
    """profile.pad after compact(): pad[id] -> (address, electrode), found in pad_position."""

    def __init__(self, pad_position):
        self.pad_position = pad_position

    def __getitem__(self, pid):
        if pid is None:
            raise KeyError(pid)  # None marks the unused electrodes in pad_position
        pp = self.pad_position
        for addr in pp:
            electrodes = pp[addr]
            if pid in electrodes:
                return addr, electrodes.index(pid)
        raise KeyError(pid)
