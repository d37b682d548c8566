"""What each ring looks like at a moment, and the repaint of those whose look changed.

A ring's look is its count, its owner seat, its level (full, rest, breathing, the hint's
pulse), its marks (worthless lights: last move, places, the timer's countdown) and at most
one short effect. board.Board keeps what each ring was last painted as; repaint() is the loop
of its tick() over the rings, kept here so that module stays about the game's flow.
"""
from mpcompat import const, ticks_diff
from . import counts
from . import palette

# Effects a ring can carry for a while; one at a time per ring, the newest wins.
FX_NONE = const(0)
FX_REFUSE = const(1)    # red blinks on a pit that is not a legal move
FX_FLASH = const(2)     # white flashes: capture, sweep
FX_PULSE = const(3)     # seat-colour blinks: extra turn (store), finish (pits)
BLINK_MS = const(90)
FX_MS = const(360)      # four blink phases
NEVER = const(255)      # in Board._c_fx: the ring is to be repainted whatever it shows


def repaint(b, lo, hi, now):
    """Paint the rings lo..hi-1 of board b (a board.Board) whose look changed since they were
    last painted; returns how many were painted. Allocates nothing. A pass over every ring
    also notes in b.pulsing the rings that breathe or pulse (b.npulsing of them): between
    two changes, only those change look."""
    painted = 0
    pulsing = b.pulsing
    whole = lo == 0 and hi == b.n
    if whole:
        b.npulsing = 0
    frame = b.frame
    fx = b.fx
    # Locals: this loop runs over every ring on every tick.
    owner = b.owner
    shown = b.shown
    hidden = b.hidden
    c_count = b._c_count
    c_fx = b._c_fx
    c_level = b._c_level
    c_marks = b._c_marks
    # What decides a ring's level and marks, taken once per tick rather than per ring.
    is_store = b.is_store
    legal = b.legal
    active = b.anim.active
    hand = b.anim.hand
    over = b.over
    places = b.places
    nplaces = len(places)
    turn = -2 if b.turn is None else b.turn   # -2: no ring's owner
    breath = palette.BREATH[(ticks_diff(now, b._breath_start) // palette.BREATH_STEP_MS) & 31]
    hinting = b.hint_ring >= 0
    hinted = b.hinted
    hint = palette.HINT[(ticks_diff(now, b._hint_start) // palette.HINT_STEP_MS) & 15]
    warn_ring = b.warn_ring
    origin = b.origin
    full = palette.FULL
    rest = palette.REST
    for r in range(lo, hi):
        seat = owner[r]
        f = FX_NONE
        if fx[r]:
            age = ticks_diff(now, b.fx_start[r])
            if age >= FX_MS or age < 0:
                fx[r] = FX_NONE
            elif (age // BLINK_MS) & 1 == 0:
                f = fx[r]
        peak = 0    # the level a breathing or pulsing ring rises to (frame.paint)
        if seat < 0 or hidden[r]:
            count = 0
            marks = 0
            level = 0
        else:
            count = shown[r]
            store = is_store[r]
            if active:
                level = full if r == hand else rest
            elif over:      # the winner's store breathes
                if store and seat < nplaces and places[seat] == 1:
                    level = breath
                    peak = full
                else:
                    level = rest
            elif hinting and hinted[r]:
                level = hint
                peak = full
            elif store and seat == turn:
                level = breath
                peak = full
            else:
                level = full if legal[r] else rest
            # The lights worth nothing: MARKs in the low 3 bits, WARNs above them.
            if over and store:  # the store shows its place as dim dots
                marks = places[seat] if seat < nplaces and places[seat] else 0
            elif r == warn_ring:
                marks = b.warn_n << 3
            else:
                marks = 1 if r == origin else 0
        if peak and whole and b.npulsing < len(pulsing):
            pulsing[b.npulsing] = r
            b.npulsing += 1
        # (A ring's seat changes only with the seating, which repaints every ring.)
        same = count == c_count[r] and f == c_fx[r] and marks == c_marks[r]
        if same and level == c_level[r]:
            continue
        if same and peak and not f:
            peak = -1  # a breath step: the ring at its brightest is as counted last time
        c_count[r] = count
        c_fx[r] = f
        c_level[r] = level
        c_marks[r] = marks
        painted += 1
        if f == FX_REFUSE:
            frame.paint(r, seat, 0, palette.RED_LED, palette.FULL)
        elif f == FX_FLASH:
            frame.paint(r, seat, 0, palette.WHITE_LED, palette.FULL)
        elif f == FX_PULSE and seat >= 0:
            frame.paint(r, seat, 0, palette.SEAT_LED[seat], palette.FULL)
        elif seat < 0:
            frame.dark(r)
        else:
            kinds = frame.kinds
            leds = frame.leds(r)
            counts.encode(count, leds, kinds)
            for _ in range(marks & 7):
                counts.add_mark(kinds, leds)
            if marks > 7:
                counts.add_warn(kinds, leds, marks >> 3)
            frame.paint(r, seat, level, None, 0, peak)
    return painted
