"""Ring buffers and the frame: paints each ring into its own GRB buffer from a pattern of
count kinds, then copies the rings that changed into the LED chains' buffers with slice
assignment, applies the power limiter to the whole frame and shows the chains that changed.

Nothing here allocates after __init__: colours go through a small per-ring table of GRB
bytes (cols), the global brightness and the ring's level are applied to that table with
integer maths, and the painter copies bytes from it by kind. On MicroPython the painter and
the limiter's scaling are viper functions; elsewhere they are plain loops.
"""
from . import counts
from . import palette
from .power import _scale

FILL = counts.KINDS          # pseudo-kind: every LED the ring's fill colour (flashes, blinks)
SLOTS = counts.KINDS + 1

try:
    from .native import paint as _paint
except (ImportError, SyntaxError):  # CPython; CircuitPython has no viper
    def _paint(buf, kinds, cols, n):
        total = 0
        o = 0
        for i in range(n):
            j = kinds[i] * 3
            g = cols[j]
            r = cols[j + 1]
            b = cols[j + 2]
            buf[o] = g
            buf[o + 1] = r
            buf[o + 2] = b
            total += g + r + b
            o += 3
        return total


def _put(cols, slot, rgb, eff):
    # GRB order, as WS2812 takes it; eff is 0..255.
    j = slot * 3
    cols[j] = rgb[1] * eff // 255
    cols[j + 1] = rgb[0] * eff // 255
    cols[j + 2] = rgb[2] * eff // 255


class Frame:
    """rings: list of (chain, start, leds); chains: list of GRB bytearrays (the LED driver's
    buffers, which must stay the same objects); show(i) sends chain i; limiter: power.Limiter;
    cut(i), if given, stops chain i's frame still on the wire (drivers.ws2812.WS2812.cut):
    the first change after a touch then need not wait for an idle frame to end.
    """

    def __init__(self, rings, chains, show, limiter, cut=None):
        self.rings = rings
        self.chains = chains
        self.show = show
        self.cut = cut
        self.limiter = limiter
        n = len(rings)
        self.bufs = []
        self.views = []
        longest = 0
        for chain, start, leds in rings:
            if chain >= len(chains) or (start + leds) * 3 > len(chains[chain]):
                raise ValueError("ring at chain %d LED %d (%d LEDs) is outside its chain" % (
                    chain, start, leds))
            self.bufs.append(bytearray(3 * leds))
            longest = leds if leds > longest else longest
            # One view per ring into its chain, made once: copies and scaling use it.
            self.views.append(memoryview(chains[chain])[start * 3:(start + leds) * 3])
        # The pattern of kinds of the ring being painted: one ring at a time, so one buffer.
        self.kinds = bytearray(longest)
        self.sums = [0] * n          # channel sum of each ring as painted (before limiting)
        # What the limiter counts for each ring: its sum, or for a ring that breathes or
        # pulses, the sum at its brightest (paint()'s peak); and their total.
        self.peaks = [0] * n
        self.sum = 0
        self.dirty = bytearray(n)    # painted since the last commit
        self.cols = bytearray(3 * SLOTS)   # slot OFF stays 0, 0, 0
        self._seat = self._level = self._br = -1   # what cols holds now
        self.brightness = 255
        self.scale = 256             # the limiter's last scale (256 = untouched)
        self._touched = bytearray(len(chains))
        # Channel sums as copied into the chains (after limiting): per ring, per chain as
        # it will be after this commit, and per chain as last sent (what the LEDs show).
        self.wire = [0] * n
        self.chain_new = [0] * len(chains)
        self.chain_sent = [0] * len(chains)

    def leds(self, r):
        """How many LEDs ring r has."""
        return len(self.bufs[r]) // 3

    def paint(self, r, seat, level, fill_rgb=None, fill_level=0, peak=0):
        """Paint ring r from self.kinds (its pattern, already encoded) in seat's colours at
        level (0..255); with fill_rgb, every LED is that colour at fill_level instead.
        peak: the level the ring rises to while it breathes or pulses (0: it does not; -1:
        as for its last paint, which had the same pattern at another level). The limiter
        counts the ring at that level, so its scale stays put through the breath: each
        breath step then changes one ring and sends one chain, not every chain."""
        kinds = self.kinds
        leds = len(self.bufs[r]) // 3
        buf = self.bufs[r]
        if fill_rgb is not None:
            _put(self.cols, FILL, fill_rgb, self.brightness * fill_level // 255)
            for i in range(leds):
                kinds[i] = FILL
            peak = 0
        top = self.peaks[r] if peak < 0 else 0
        if peak > level:
            # The ring at its brightest, painted first only to count it (the same bytes
            # every step of the breath, so the limiter's scale stays put).
            self._table(seat, peak)
            top = _paint(buf, kinds, self.cols, leds)
        if fill_rgb is None and (level != self._level or seat != self._seat or
                                 self.brightness != self._br):
            self._table(seat, level)  # rings come mostly in runs of one seat at one level
        t = _paint(buf, kinds, self.cols, leds)
        self.sums[r] = t
        if top < t:
            top = t
        self.sum += top - self.peaks[r]
        self.peaks[r] = top
        self.dirty[r] = 1

    def _table(self, seat, level):
        """The colour table for seat at level, with the brightness applied."""
        br = self.brightness
        self._seat = seat
        self._level = level
        self._br = br
        cols = self.cols
        eff = br * level // 255
        if seat >= 0:
            _put(cols, counts.ONE, palette.SEAT_LED[seat], eff)
        _put(cols, counts.TEN, palette.WHITE_LED, eff)
        _put(cols, counts.FIFTY, palette.VIOLET_LED, eff)
        _put(cols, counts.FIVE, palette.PINK_LED, eff)
        _put(cols, counts.MARK, palette.WHITE_LED, br * palette.MARK_LEVEL // 255)
        _put(cols, counts.WARN, palette.WARN_LED, br)   # steady, at full: a warning

    def _fit(self, r):
        """The scale for ring r alone that keeps the wire's total within the budget, the
        other rings staying as they were sent (at most the frame's scale)."""
        other = -self.wire[r]
        for w in self.chain_new:
            other += w
        t = self.sums[r]
        room = self.limiter.allowed - other
        if t <= 0:
            return self.scale
        fit = room * 256 // t if room > 0 else 0
        return fit if fit < self.scale else self.scale

    def dark(self, r):
        """Paint ring r dark."""
        kinds = self.kinds
        for i in range(len(self.bufs[r]) // 3):
            kinds[i] = counts.OFF
        self.paint(r, -1, 0)

    def total(self):
        """The frame's channel sum before limiting, breathing rings counted at their peak."""
        return self.sum

    def commit(self, only=-1):
        """Copy changed rings into the chains, limit the frame, show changed chains.
        Returns True if anything was shown. only: the one ring that was looked at (the
        first change after a touch), or -1 for all. That ring joins the others at the scale
        already on the wire, instead of every ring being copied again at a new one (the
        next full commit does that); if the frame got brighter (a red blink), that ring
        alone is scaled further, as far as keeps the whole wire within the budget.

        The LED output sends one chain per show(), so between two show() calls the LEDs
        hold a mix of this frame and the last. To keep every such mix within the budget,
        the chains whose channel sum goes down are sent first and those going up last:
        the wire's total then only falls from the last frame's (within budget) and rises
        to this frame's (within budget), never past either.

        With only, a chain's frame still on the wire is cut short first (self.cut): that
        frame is an older look of the same chain, which the one sent now replaces whole."""
        s = self.limiter.scale_for(self.sum)
        ring_s = -1
        if only >= 0 and s != self.scale:
            if s < self.scale:
                ring_s = self._fit(only)
            s = self.scale          # darker: within budget at this scale too
        everything = s != self.scale
        self.scale = s
        lo = 0
        hi = len(self.rings)
        if only >= 0 and not everything:
            lo = only               # no other ring was painted since the last commit
            hi = only + 1
        touched = self._touched
        dirty = self.dirty
        rings = self.rings
        bufs = self.bufs
        views = self.views
        sums = self.sums
        wire = self.wire
        chain_new = self.chain_new
        for r in range(lo, hi):
            if everything or dirty[r]:
                view = views[r]
                view[:] = bufs[r]
                sr = s if ring_s < 0 else ring_s
                w = _scale(view, len(view), sr) if sr < 256 else sums[r]
                c = rings[r][0]
                chain_new[c] += w - wire[r]
                wire[r] = w
                touched[c] = 1
                dirty[r] = 0
        if ring_s >= 0 and ring_s != s:
            dirty[only] = 1         # the next full commit copies it at the frame's scale
        chain_sent = self.chain_sent
        show = self.show
        cut = self.cut if only >= 0 else None
        any_shown = False
        for rising in (0, 1):     # a constant tuple: no allocation
            for c in range(len(touched)):
                if touched[c] and (chain_new[c] > chain_sent[c]) == rising:
                    touched[c] = 0
                    chain_sent[c] = chain_new[c]
                    if cut is not None:
                        cut(c)
                    show(c)
                    any_shown = True
        return any_shown
