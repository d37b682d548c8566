"""The board's LED rings: counts, seat colours, highlights, the sowing animation and the
power limiter. docs/display.md explains what a person sees; this is the API the app uses.

    from mancala_fw.display import Display
    d = Display(profile, leds)        # profile.Profile; leds: drivers.ws2812.WS2812
                                      #   (buffer(i) -> GRB bytearray, the same object each
                                      #   time; show(i); len(leds) chains)
    d.set_game(seating, state)        # profile.Seating of the new game, and its state dict
    d.set_state(state)                # show a state at once (undo, restore); stops animation
    d.play(record, state)             # animate Game.play()/resign() record from the counts
                                      #   shown now to state (the state after it); the pit
                                      #   played goes dark on the next tick
    d.lift(pos)                       # position id of a pit touched as a legal move: it goes
                                      #   dark and its chain is sent now, before the engine
                                      #   plays it; play() of that move follows
    d.busy()                          # an animation is running
    d.sowing()                        # ... and stones are still to land
    d.finish()                        # skip it to the end (a touch anywhere)
    d.refuse(pos)                     # position id ("0.3"): blink it red briefly
    d.countdown(seat, seconds_left)   # move timer: the seat's store shows seconds_left
                                      #   (1..10; more shows 10) magenta lights, a bar
                                      #   ending at the top; None or 0 clears it
    d.hint(pos)                       # position id of the suggested pit (or a list of
                                      #   them: they pulse together): it pulses until the
                                      #   next play()/set_state()/set_game() or hint(None)
    d.tick(now)                       # from the main loop: advance, repaint what changed,
                                      #   limit, show; True if LEDs changed. No allocation.
    d.settings(brightness_percent, power_limit_ma, ms_per_stone)   # at once

The tick after play() or refuse() shows only the ring that changes first (the pit emptied,
the refused pit); the next tick shows the rest. play(), set_state() and set_game() clear
the countdown and the hint. Countdown and hint lights are worth nothing to
reader.read_counts (the counts still read back) and go through the power limiter.

Lower level (plain parameters, no profile), used by the tests and the bench:
    board.Board(rings, chains, show, limiter, cut=None)   rings: [(chain, start, leds)],
        chains: [bytearray], show(i), limiter: power.Limiter, cut(i): stop chain i's frame
        on the wire (the first change after a touch); then set_seating(seat_rings),
        set_state(state, legal=None, last=None), play(record, state, legal=None, now=None),
        skip(), refuse_at(seat, pit), set_brightness(0..255), set_power_limit(mA),
        set_speed(ms_per_stone), set_hint(ring), set_countdown(ring, n), tick(now)
    counts.encode(count, leds, out) / counts.decode(pattern)    the count encoding
    reader.read_counts(chains, rings)       counts read back from captured frames
    reader.classify(r, g, b, frame_max)     an LED's count kind read back
    power.Limiter, power.limit(chains, limiter)                 the current limiter
    palette.SEAT_LED / SEAT_SRGB / FULL / BREATH   colours (LED bytes and
        sRGB for screens) and levels
    rings.repaint(board, lo, hi, now)       the ring loop of Board.tick()
"""
from .board import Board
from .power import Limiter


class Display(Board):
    """Board built from a profile and a WS2812 output, with the calls app.App makes."""

    def __init__(self, profile, leds, budget_ma=None):
        chains = [leds.buffer(i) for i in range(len(profile.chains))]
        limiter = Limiter(profile.budget_ma if budget_ma is None else budget_ma,
                          profile.ma_per_channel, profile.idle_ma_per_led,
                          profile.total_leds, profile.base_ma)
        Board.__init__(self, [profile.ring[pid] for pid in profile.positions], chains,
                       leds.show, limiter, getattr(leds, "cut", None))
        for i in range(len(profile.positions)):
            self.ring_of[profile.positions[i]] = i
        self.leds = leds  # the self-test draws its LED walk straight into the output

    def set_game(self, seating, state):
        self.seat_from(seating)
        self.set_state(state)

    def lift(self, pos, now=None):
        r = self.ring_of.get(pos)
        if r is not None:
            self.lift_ring(r, now)

    def refuse(self, pos, now=None):
        r = self.ring_of.get(pos)
        if r is not None:
            self.refuse_ring(r, now)

    def countdown(self, seat, seconds_left):
        """Show the move timer's last seconds on seat's store; None or 0 clears it."""
        if seconds_left is None or seconds_left == 0:
            self.set_countdown(-1, 0)
            return
        if isinstance(seat, bool) or not isinstance(seat, int) or \
                not 0 <= seat < len(self.seat_rings):
            raise ValueError("countdown needs a seat of this game (0-%d), got %r" % (
                len(self.seat_rings) - 1, seat))
        if isinstance(seconds_left, bool) or not isinstance(seconds_left, int) or \
                seconds_left < 0:
            raise ValueError("countdown needs whole seconds 0 or more, got %r" % (
                seconds_left,))
        self.set_countdown(self.seat_rings[seat][0], seconds_left)

    def hint(self, pos, now=None):
        """Pulse the suggested pit (a position id such as "0.3"), or every pit of a list of
        them; None clears it."""
        if pos is None:
            self.set_hint(-1)
            return
        rs = []
        for p in (pos if isinstance(pos, list) else (pos,)):
            r = self.ring_of.get(p)
            if r is None or self.owner[r] < 0:
                raise ValueError("hint needs a position of this game such as \"0.3\", got %r"
                                 % (p,))
            rs.append(r)
        self.set_hints(rs, now)

    def finish(self):
        self.skip()

    def busy(self):
        return self.anim.active

    def sowing(self):
        """True while stones are still to land; after the last one only the capture, the
        finish flash or the last count are still to show."""
        return self.anim.upcoming() >= 0

    def settings(self, brightness, power_limit_ma, ms_per_stone):
        """brightness in percent (0..100, as the app's config keeps it)."""
        if not isinstance(brightness, int) or not 0 <= brightness <= 100:
            raise ValueError("brightness must be a whole number 0-100, got %r" % (brightness,))
        self.set_brightness(brightness * 255 // 100)
        self.set_power_limit(power_limit_ma)
        self.set_speed(ms_per_stone)
