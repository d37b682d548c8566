"""The LED walk of the self-test: which ring is lit at each step, and the pattern it shows.

Step n lights one ring, taking the rings in chain order (chain 0 from its data pin outwards,
then chain 1, ...). The lit ring shows, counted in the direction the data travels round it:

    LED 0 of the ring      white           the "start" marker
    LEDs 1 .. k+1          the chain colour k = the ring's place in its chain (0 = first)

So every ring says "I am ring k+1 of chain c" on its own, in a way the eye reads at once:
- two rings swapped in a chain show the wrong count at their places;
- a ring on the wrong data pin shows the wrong colour;
- a ring mounted the other way round has its coloured LEDs run the other way from white;
- a ring that stays dark (and all after it) has a broken data line or no power.
Only data is checked this way; colours are chosen to be told apart under any overlay.
"""

# The colour of each chain as (r, g, b) at full level; white is kept for the start marker.
CHAIN_RGB = ((255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 160, 0),
             (0, 255, 255), (255, 0, 255), (255, 60, 0), (120, 0, 255))
CHAIN_NAMES = ("red", "green", "blue", "yellow", "cyan", "magenta", "orange", "purple")
WHITE = (255, 255, 255)
LEVEL = 48  # of 255: bright enough to see under an overlay, far below any budget


def walk_order(profile):
    """[(position id, chain, place in chain, start, leds)] in chain order."""
    order = []
    for chain in range(len(profile.chains)):
        rings = []
        for pid in profile.positions:
            c, start, leds = profile.ring[pid]
            if c == chain:
                rings.append((start, leds, pid))
        rings.sort()
        for k in range(len(rings)):
            start, leds, pid = rings[k]
            order.append((pid, chain, k, start, leds))
    return order


def lit_count(k, leds):
    """How many chain-coloured LEDs ring k shows after the marker (k+1, at most leds-1)."""
    n = k + 1
    return n if n < leds else leds - 1


def level_for(profile, order, level=LEVEL):
    """The walk's level, lowered if its brightest frame would not fit the power budget."""
    worst = 0
    for pid, chain, k, start, leds in order:
        rgb = CHAIN_RGB[chain % len(CHAIN_RGB)]
        sums = 3 * 255 + lit_count(k, leds) * (rgb[0] + rgb[1] + rgb[2])
        if sums > worst:
            worst = sums
    # mA of a frame = ma_per_channel * (sum of levels) / 255; at level L it scales by L/255.
    lit = profile.lit_ma(profile.budget_ma)
    while level > 1 and profile.ma_per_channel * worst * level / (255 * 255) > lit:
        level = level // 2
    return level


def put(buf, i, rgb, level):
    """LED i of a GRB buffer gets rgb scaled to level (integer maths only)."""
    o = 3 * i
    buf[o] = rgb[1] * level // 255
    buf[o + 1] = rgb[0] * level // 255
    buf[o + 2] = rgb[2] * level // 255


def paint_step(buffers, entry, level):
    """Draw one walk step into the chain buffers (already cleared by the caller)."""
    pid, chain, k, start, leds = entry
    buf = buffers[chain]
    put(buf, start, WHITE, level)
    rgb = CHAIN_RGB[chain % len(CHAIN_RGB)]
    for i in range(1, lit_count(k, leds) + 1):
        put(buf, start + i, rgb, level)


def describe(entry, pin):
    """What the maker should see for this step, in one sentence."""
    pid, chain, k, start, leds = entry
    return ("ring %s: chain %d on GP%d, ring %d of the chain (LEDs %d-%d): one white LED, "
            "then %d %s" % (pid, chain, pin, k + 1, start, start + leds - 1,
                            lit_count(k, leds), CHAIN_NAMES[chain % len(CHAIN_NAMES)]))


def read_ring(grb):
    """Reads back what a ring shows, from its LEDs' GRB bytes in physical order round it:
    (chain, place k, direction) with direction +1 when the colour runs the same way as the
    LED numbering and -1 when it runs the other way; None when the ring shows no marker.
    The host and the tests use it to check a wiring model against the walk."""
    n = len(grb) // 3
    marker = -1
    for i in range(n):
        g, r, b = grb[3 * i], grb[3 * i + 1], grb[3 * i + 2]
        if g and r and b and g == r == b:
            marker = i
    if marker < 0:
        return None
    best = None
    for direction in (1, -1):
        count = 0
        colour = None
        i = (marker + direction) % n
        while count < n - 1:
            o = 3 * i
            rgb = (grb[o + 1], grb[o], grb[o + 2])
            if rgb == (0, 0, 0):
                break
            if colour is None:
                colour = rgb
            elif rgb != colour:
                break
            count += 1
            i = (i + direction) % n
        if colour is not None and (best is None or count > best[1]):  # (count > 0 then)
            best = (colour, count, direction)
    if best is None:
        return None
    colour, count, direction = best
    # The nearest chain colour once both are scaled to full level, so any LEVEL reads back.
    top = max(colour)
    chain = None
    error = None
    for c in range(len(CHAIN_RGB)):
        ref = CHAIN_RGB[c]
        e = 0
        for j in range(3):
            e += abs(colour[j] * 255 // top - ref[j])
        if error is None or e < error:
            chain, error = c, e
    return (chain, count - 1, direction)
