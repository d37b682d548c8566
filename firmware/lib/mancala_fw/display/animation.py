"""The sowing animation: replays a move record stone by stone on the rings.

It only displays. The game state has already changed when it starts; it walks the rings
from the counts shown before the move to the state after it:
    lift   the pit played goes dark at once (the first LED change after a touch);
    sow    one stone lands every ms_per_stone, in the record's "sown" order;
    capture  the landing pit, the pit across and the store flash, then the stones move;
    sweep  at a Kalah end, the pits still holding stones flash, then everything moves;
    final  every ring shows the state after the move.
Steps are due at fixed offsets from the start (ticks_diff, so the counter may wrap); step()
applies every step that is due, so a slow frame never slows the sowing down.
"""
from mpcompat import const, ticks_diff

LIFT = const(0)
SOW = const(1)
FLASH = const(2)      # a = ring to flash
CAPTURE = const(3)    # a = landing ring, b = ring across, c = store ring, n = stones
FINAL = const(4)
EXTRA = const(5)      # a = the mover's store: it moves again

FLASH_MS = const(360)


def derive_before(record, pits, stores):
    """The counts before a sowing move, from its record and the state after it (lists
    pits[seat][pit-1] and stores[seat], changed in place). Returns False when the record
    cannot be undone this way (a Kalah sweep moved stones whose pits are not recorded)."""
    if record.get("sweep"):
        return False
    cap = record.get("capture")
    if cap:
        s = cap["seat"]
        stores[s] -= cap["stones"]
        pits[s][cap["pit"] - 1] += 1
        fs, fp = cap["from"]
        pits[fs][fp - 1] += cap["stones"] - 1
    for seat, pit in record["sown"]:
        if pit == 0:
            stores[seat] -= 1
        else:
            pits[seat][pit - 1] -= 1
    pits[record["seat"]][record["pit"] - 1] += record["stones"]
    return True


_NO_STEPS = ()  # a finished sowing's: its steps (a tuple per stone) go back to the heap


class Sowing:
    """One move's steps. rings(seat, pit) gives the ring index of a position. The steps are
    let go when the sowing ends, so a long sowing's list is not held while the CPU thinks."""

    def __init__(self):
        self.active = False
        self.hand = -1        # the ring the last stone landed in
        self._steps = _NO_STEPS  # type: list | tuple  # a list while a sowing runs
        self._next = 0
        self._start = 0

    def start(self, record, rings, ms_per_stone, now):
        """Lay out the steps of record; the first (lift) is due at once."""
        steps = []
        flash_ms = FLASH_MS if ms_per_stone else 0   # speed 0: no animation at all
        mover = record["seat"]
        steps.append((0, LIFT, rings(mover, record["pit"]), 0, 0, 0))
        t = 0
        for seat, pit in record["sown"]:
            t += ms_per_stone
            steps.append((t, SOW, rings(seat, pit), 0, 0, 0))
        cap = record.get("capture")
        if cap:
            t += ms_per_stone
            land = rings(cap["seat"], cap["pit"])
            across = rings(cap["from"][0], cap["from"][1])
            store = rings(cap["seat"], 0)
            for r in (land, across, store):
                steps.append((t, FLASH, r, 0, 0, 0))
            t += flash_ms
            steps.append((t, CAPTURE, land, across, store, cap["stones"]))
        if record.get("sweep") or record.get("finished") or record.get("over"):
            t += ms_per_stone
            steps.append((t, FLASH, -1, 0, 0, 0))   # -1: every pit that still holds stones
            t += flash_ms
        t += ms_per_stone
        steps.append((t, FINAL, 0, 0, 0, 0))
        if record.get("extra"):
            steps.append((t, EXTRA, rings(mover, 0), 0, 0, 0))
        self._steps = steps
        self._next = 0
        self._start = now
        self.hand = -1
        self.active = True

    def step(self, now, apply):
        """Apply every step due by now through apply(kind, a, b, c, n, skipping=False).
        Returns True if any step was applied."""
        if not self.active:
            return False
        elapsed = ticks_diff(now, self._start)
        steps = self._steps
        done = False
        while self._next < len(steps) and steps[self._next][0] <= elapsed:
            st = steps[self._next]
            self._next += 1
            if st[1] == SOW or st[1] == LIFT:
                self.hand = st[2] if st[1] == SOW else -1
            apply(st[1], st[2], st[3], st[4], st[5], False)
            done = True
        if self._next >= len(steps):
            self._end()
        return done

    def skip(self, apply):
        """Jump to the end: the remaining count steps are applied without flashes."""
        if not self.active:
            return False
        steps = self._steps
        while self._next < len(steps):
            st = steps[self._next]
            self._next += 1
            apply(st[1], st[2], st[3], st[4], st[5], True)
        self._end()
        return True

    def cancel(self):
        """Stop without applying the steps left (the display shows another state at once)."""
        self._end()

    def _end(self):
        self.active = False
        self.hand = -1
        self._steps = _NO_STEPS

    def upcoming(self):
        """The ring the next stone lands in, or -1 when no stone is left to sow."""
        steps = self._steps
        for i in range(self._next, len(steps)) if self.active else ():
            if steps[i][1] == SOW:
                return steps[i][2]
        return -1

    def remaining_ms(self, now):
        """How long until the last step is due (0 when idle)."""
        if not self.active:
            return 0
        left = self._steps[-1][0] - ticks_diff(now, self._start)
        return left if left > 0 else 0
