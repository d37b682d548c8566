"""Ring buffers and the frame: paints each ring into its own GRB buffer from a pattern of
count kinds, then copies the rings that changed into the LED chains' buffers with slice
assignment, applies the power limiter to the whole frame and shows the chains that changed.

Nothing here allocates after __init__: colours go through a small per-ring table of GRB
bytes (cols), the global brightness and the ring's level are applied to that table with
integer maths, and the painter copies bytes from it by kind. On MicroPython the painter and
the limiter's scaling are viper functions; elsewhere they are plain loops.
"""
from . import counts
from . import lights
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
    buffers, which must stay the same objects); show(i) sends chain i; limiter: power.Limiter.
    """

    def __init__(self, rings, chains, show, limiter):
        self.rings = rings
        self.chains = chains
        self.show = show
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
        self.sum = 0                 # their total, kept up to date by paint()
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

    def paint(self, r, seat, level, fill_rgb=None, fill_level=0):
        """Paint ring r from self.kinds (its pattern, already encoded) in seat's colours at
        level (0..255); with fill_rgb, every LED is that colour at fill_level instead."""
        kinds = self.kinds
        leds = len(self.bufs[r]) // 3
        cols = self.cols
        br = self.brightness
        if fill_rgb is not None:
            _put(cols, FILL, fill_rgb, br * fill_level // 255)
            for i in range(leds):
                kinds[i] = FILL
        elif seat != self._seat or level != self._level or br != self._br:
            # Rings are painted mostly in runs of one seat at one level: reuse the table.
            self._seat = seat
            self._level = level
            self._br = br
            eff = br * level // 255
            if seat >= 0:
                _put(cols, counts.ONE, lights.SEAT_LED[seat], eff)
            _put(cols, counts.TEN, lights.WHITE_LED, eff)
            _put(cols, counts.FIFTY, lights.VIOLET_LED, eff)
            _put(cols, counts.FIVE, lights.PINK_LED, eff)
            _put(cols, counts.MARK, lights.WHITE_LED, br * lights.MARK_LEVEL // 255)
            _put(cols, counts.WARN, lights.WARN_LED, br)   # steady, at full: a warning
        t = _paint(self.bufs[r], kinds, cols, leds)
        self.sum += t - self.sums[r]
        self.sums[r] = t
        self.dirty[r] = 1

    def dark(self, r):
        """Paint ring r dark."""
        kinds = self.kinds
        for i in range(len(self.bufs[r]) // 3):
            kinds[i] = counts.OFF
        self.paint(r, -1, 0)

    def total(self):
        """The frame's channel sum before limiting."""
        return self.sum

    def commit(self, only=-1):
        """Copy changed rings into the chains, limit the frame, show changed chains.
        Returns True if anything was shown. only: the one ring that was looked at (the
        first change after a touch), or -1 for all; if the frame got no brighter, that ring
        joins the others at the scale already on the wire, instead of every ring being
        copied again at a higher one (the next full commit does that).

        The LED output sends one chain per show(), so between two show() calls the LEDs
        hold a mix of this frame and the last. To keep every such mix within the budget,
        the chains whose channel sum goes down are sent first and those going up last:
        the wire's total then only falls from the last frame's (within budget) and rises
        to this frame's (within budget), never past either."""
        s = self.limiter.scale_for(self.sum)
        if only >= 0 and s > self.scale:
            s = self.scale          # within budget: the frame's sum at this scale is lower
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
                w = _scale(view, len(view), s) if s < 256 else sums[r]
                c = rings[r][0]
                chain_new[c] += w - wire[r]
                wire[r] = w
                touched[c] = 1
                dirty[r] = 0
        chain_sent = self.chain_sent
        show = self.show
        any_shown = False
        for rising in (0, 1):     # a constant tuple: no allocation
            for c in range(len(touched)):
                if touched[c] and (chain_new[c] > chain_sent[c]) == rising:
                    touched[c] = 0
                    chain_sent[c] = chain_new[c]
                    show(c)
                    any_shown = True
        return any_shown
