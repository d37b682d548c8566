"""Board: the whole board's rings, built from plain parameters (display.Display adds the
profile and the app's calls). It keeps what every ring shows (count, owner seat,
highlight), repaints only the rings whose look changed, and runs the sowing animation and
the short effects (refused touch, capture flash, extra turn, finish).
The API is described in display/__init__.py.
"""
from mpcompat import const, ticks_ms, ticks_diff, ticks_add
from .animation import Sowing, derive_before, LIFT, SOW, FLASH, CAPTURE, FINAL, EXTRA
from .frame import Frame
from .rings import repaint, FX_REFUSE, FX_FLASH, FX_PULSE, FX_MS, NEVER
from . import palette
from .seats import Seats

MS_PER_STONE = const(250)
COUNTDOWN_MAX = const(10)   # the move timer's countdown shows at most this many seconds


class Board(Seats):
    def __init__(self, rings, chains, show, limiter, cut=None):
        self.frame = Frame(rings, chains, show, limiter, cut)
        self.limiter = limiter
        n = len(rings)
        Seats.__init__(self, n)
        self.fx = bytearray(n)
        self.fx_start = [0] * n
        # What each ring was last painted as, so unchanged rings are skipped.
        # Bytes: counts (at most 96 stones), levels, effects and marks all fit in one;
        # _c_fx at NEVER (no effect has it) makes a ring repaint.
        self._c_count = bytearray(n)
        self._c_level = bytearray(n)
        self._c_fx = bytearray(b"\xff" * n)
        self._c_marks = bytearray(n)
        self.origin = -1              # ring of the last move's pit
        self.ms_per_stone = MS_PER_STONE
        self.anim = Sowing()
        self._breath_start = ticks_ms()
        self._pending_active = None
        self._record = None
        self._now = ticks_ms()
        self._apply = self._apply_step  # bound once, not on every tick
        # The first LED change after a touch is one ring: play() and refuse_ring() name it
        # here and the next tick paints and shows only it; the rest follows a tick later.
        self._fast = -1
        self._lifted = -1             # lift_ring() showed this pit empty before play() came
        self._p_state = None          # play()'s state and legal, taken on the next full tick
        self._p_legal = None
        self.hint_ring = -1           # the suggested pit, pulsing; -1 = none
        self.hinted = bytearray(n)    # while hint_ring >= 0: 1 for each pit that pulses
        self._hint_start = ticks_ms()
        self.warn_ring = -1           # the store showing the move timer's countdown
        self.warn_n = 0               # its WARN lights (seconds left, at most COUNTDOWN_MAX)
        # An idle tick (nothing changed, no animation or effect running) repaints only when
        # the breath or the hint's pulse takes its next step: the look of all 28 rings is
        # not worked out again every pad poll (2 ms on an RP2040) for nothing.
        self._stale = True            # something changed since the last full tick
        self._fx_until = ticks_ms()   # the last effect ends at this time ...
        self._fx_over = True          # ... and a full tick has run since (it cleared them)
        self._steps = -1              # the breath's and the hint's step at the last full tick
        # The rings that breathe or pulse (rings.repaint notes them): a store and up to 7
        # hinted pits, or the winners' stores.
        self.pulsing = bytearray(8)
        self.npulsing = 0

    # --- settings ---------------------------------------------------------------------
    def set_brightness(self, value):
        if not isinstance(value, int) or not 0 <= value <= 255:
            raise ValueError("brightness must be a whole number 0-255, got %r" % (value,))
        self.frame.brightness = value
        self._invalidate()

    def set_power_limit(self, budget_ma):
        self.limiter.set_budget(budget_ma)
        self._stale = True            # the next tick scales the frame to the new budget

    def set_speed(self, ms_per_stone):
        if not isinstance(ms_per_stone, int) or not 0 <= ms_per_stone <= 5000:
            raise ValueError("animation speed must be 0-5000 ms per stone, got %r" % (
                ms_per_stone,))
        self.ms_per_stone = ms_per_stone

    def set_hint(self, r, now=None):
        """Ring r (a pit) pulses until the next move or set_hint(-1)."""
        self.set_hints((r,) if r >= 0 else (), now)

    def set_hints(self, rs, now=None):
        """Rings rs (pits) pulse together until the next move or set_hint(-1)."""
        hinted = self.hinted
        for r in range(self.n):
            hinted[r] = 0
        for r in rs:
            hinted[r] = 1
        self.hint_ring = rs[0] if len(rs) else -1
        self._hint_start = ticks_ms() if now is None else now
        self._stale = True

    def set_countdown(self, r, seconds):
        """Store ring r shows seconds (1..COUNTDOWN_MAX) as WARN lights; r = -1 clears."""
        if r < 0 or seconds <= 0:
            r = -1
            seconds = 0
        elif seconds > COUNTDOWN_MAX:
            seconds = COUNTDOWN_MAX
        if r != self.warn_ring or seconds != self.warn_n:
            self.warn_ring = r
            self.warn_n = seconds
            self._stale = True  # only a change: the app sets it at every tick

    def _invalidate(self):
        for r in range(self.n):
            self._c_fx[r] = NEVER
        self._stale = True

    def set_seating(self, seat_rings):
        Seats.set_seating(self, seat_rings)
        self._invalidate()          # the rings' seats (and so colours) changed

    # --- state --------------------------------------------------------------------------
    def set_state(self, state, legal=None, last=None):
        """Show state at once (new game, undo, restored game); cancels any animation.
        legal: the legal pits of the seat to move (default: its non-empty pits).
        last: (seat, pit) of the last move to mark, or None."""
        self.anim.cancel()
        self._record = None
        self._fast = -1
        self._lifted = -1
        self._p_state = None
        self._p_legal = None
        self._stale = True
        self.hint_ring = -1           # a hint and a countdown belong to the position before
        self.warn_ring = -1
        self._take_state(state, legal)
        self._active = state.get("active") if state.get("rules", {}).get("variant") == "basic" \
            else None
        self._hide_finished()
        for r in range(self.n):
            self.shown[r] = self.final[r]
        self.origin = self.ring(last[0], last[1]) if last else -1
        self._breath_start = ticks_ms()

    def play(self, record, state, legal=None, now=None):
        """Animate record (from Game.play or Game.resign) towards state, the state after it.
        The rings start from what they show now, i.e. the state given before."""
        if now is None:
            now = ticks_ms()
        if self.anim.active:
            self.skip()
        self.hint_ring = -1
        self.warn_ring = -1
        self._stale = True
        if record.get("kind") != "sow":
            self.set_state(state, legal)
            self._pulse_finished(record, now)
            return
        self._record = record
        self.origin = self.ring(record["seat"], record["pit"])
        self.anim.start(record, self.ring, self.ms_per_stone, now)
        # The state after the move (turn, legal pits, final counts) is taken on the tick
        # after next: the next tick shows only the lifted pit, as fast as one ring goes.
        self._p_state = state
        self._p_legal = legal
        if self.ms_per_stone == 0:
            self._settle()                 # speed 0: every step is due now, final included
        elif self._lifted != self.origin:
            self._fast = self.origin
        # else lift_ring() has shown the lift already: the next tick is the full one.
        self._lifted = -1
        self.anim.step(now, self._apply)   # the lift

    def lift_ring(self, r, now=None):
        """Pit ring r, just touched as a legal move, goes dark now: this paints and shows
        that ring alone (the first LED change after a touch), before the engine plays the
        move; play() then takes it as the animation's lift."""
        if self.anim.active:
            self.skip()
        self.shown[r] = 0
        self.origin = r
        self._lifted = r
        self._fast = r
        self._stale = True
        self.tick(now)

    def _settle(self):
        # Take the state play() was given (before the animation's final step needs it).
        state = self._p_state
        if state is None:
            return
        self._p_state = None
        self._take_state(state, self._p_legal)
        self._p_legal = None
        rules = state.get("rules")   # no {} default: tick() must not allocate
        self._pending_active = state.get("active") \
            if rules is not None and rules.get("variant") == "basic" else None

    def show_before(self, record, state):
        """Set the shown counts to the state before record, worked out from record and the
        state after it (for a display that was not given the earlier state)."""
        pits = [list(p) for p in state["pits"]]
        stores = list(state["stores"])
        if not derive_before(record, pits, stores):
            return False
        self.set_state({"pits": pits, "stores": stores, "turn": record["seat"],
                        "active": state.get("active"), "rules": state.get("rules", {})})
        return True

    def _pulse_finished(self, record, now):
        for seat in record.get("finished") or ():
            rs = self.seat_rings[seat]
            for p in range(1, len(rs)):
                self._fx(rs[p], FX_PULSE, now)

    def _fx(self, r, kind, now):
        self.fx[r] = kind
        self.fx_start[r] = now
        self._stale = True
        self._fx_over = False
        end = ticks_add(now, FX_MS)
        if ticks_diff(end, self._fx_until) > 0:
            self._fx_until = end

    def _apply_step(self, kind, a, b, c, n, skipping):
        shown = self.shown
        if kind == LIFT:
            shown[a] = 0
        elif kind == SOW:
            shown[a] += 1
        elif kind == FLASH:
            if skipping:
                return
            if a >= 0:
                self._fx(a, FX_FLASH, self._now)
            else:
                for r in range(self.n):
                    if not self.is_store[r] and self.owner[r] >= 0 and shown[r]:
                        self._fx(r, FX_FLASH, self._now)
        elif kind == CAPTURE:
            shown[a] = 0
            shown[b] = 0
            shown[c] += n
        elif kind == FINAL:
            for r in range(self.n):
                shown[r] = self.final[r]
            self._active = self._pending_active
            self._hide_finished()
            if not skipping:
                self._pulse_finished(self._record, self._now)
            self._record = None   # the move's record (its sown list) goes back to the heap
            self._breath_start = self._now
        elif kind == EXTRA:
            if not skipping:
                self._fx(a, FX_PULSE, self._now)

    def skip(self):
        """Jump the animation to its end (a touch anywhere during it). The next tick shows
        the ring of the next stone first (the first LED change after that touch)."""
        self._now = ticks_ms()
        self._stale = True
        self._settle()
        r = self.anim.upcoming()
        if not self.anim.skip(self._apply):
            return False
        if r >= 0 and self._fast < 0:
            self._fast = r
        return True

    @property
    def animating(self):
        return self.anim.active

    def refuse_at(self, seat, pit, now=None):
        """Blink a pit red briefly: the touch was not a legal move. Changes nothing else."""
        self.refuse_ring(self.ring(seat, pit), now)

    def refuse_ring(self, r, now=None):
        self._fx(r, FX_REFUSE, ticks_ms() if now is None else now)
        if self._fast < 0 and self._p_state is None:
            self._fast = r             # the next tick shows this ring alone, at once

    # --- frames -------------------------------------------------------------------------
    def tick(self, now=None):
        """Advance the animation and effects to now, repaint the rings whose look changed,
        limit and show the frame. Returns True if LEDs changed."""
        if now is None:
            now = ticks_ms()
        self._now = now
        r = self._fast
        if r >= 0:
            # The first LED change after a touch: this ring alone, at the frame's scale;
            # if it looks as it did, the whole frame goes out at once instead.
            self._fast = -1
            if repaint(self, r, r + 1, now):
                return self.frame.commit(r)
        if not self._stale and not self.anim.active and self._p_state is None and \
                self._fx_over:
            # Idle: only the breath and the hint's pulse move, in steps.
            steps = (ticks_diff(now, self._breath_start) // palette.BREATH_STEP_MS) & 31
            if self.hint_ring >= 0:
                steps |= ((ticks_diff(now, self._hint_start) // palette.HINT_STEP_MS)
                          & 15) << 5
            if steps == self._steps:
                return False
            self._steps = steps
            # A step of the breath or the pulse: only the rings that breathe or pulse change.
            pulsing = self.pulsing
            for k in range(self.npulsing):
                r = pulsing[k]
                repaint(self, r, r + 1, now)
            return self.frame.commit(-1)
        else:
            self._steps = -1
            if ticks_diff(now, self._fx_until) > 0:
                self._fx_over = True  # this tick's repaint clears the effects that ended
        self._stale = False
        self._settle()
        if self.anim.active:
            self.anim.step(now, self._apply)
        repaint(self, 0, self.n, now)
        return self.frame.commit(-1)
