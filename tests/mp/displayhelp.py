# Helpers for the display tests; plain Python for both runtimes (tests/ imports them too).
# The LED output the display draws into, as drivers.ws2812.WS2812 presents it to the display,
# and the steps the tests repeat: a new game on a profile's display, a sowing run to its end.
from mancala import Game, Rules
from mancala_fw import profile
from mancala_fw.display import Display


class Leds:
    """The LED output as the display uses it: one GRB buffer per chain (the same object every
    time), len() chains, and show(i), which sends chain i. This one keeps nothing of a show,
    so it allocates nothing; the subclasses record what their tests read."""

    def __init__(self, lengths):
        self.bufs = [bytearray(3 * n) for n in lengths]

    def __len__(self):
        return len(self.bufs)

    def buffer(self, i):
        return self.bufs[i]

    def show(self, i):
        pass


class SentLeds(Leds):
    """Notes which chain each show() sent, in order, in sent."""

    def __init__(self, lengths):
        Leds.__init__(self, lengths)
        self.sent = []

    def show(self, i):
        self.sent.append(i)


class WireLeds(Leds):
    """show(i) copies chain i onto the 'wire' (what the LEDs show: the chains sent so far in
    this frame and the others as last sent) and checks the whole board's estimate against
    the limiter after every single show()."""

    def __init__(self, lengths, limiter=None):
        Leds.__init__(self, lengths)
        self.wire = [bytearray(3 * n) for n in lengths]
        self.sums = [0] * len(lengths)
        self.limiter = limiter
        self.worst = 0        # the highest whole-board channel sum seen on the wire
        self.over = []        # (show number, chain, sum) of every moment above the budget
        self.shows = 0

    def show(self, i):
        self.wire[i][:] = self.bufs[i]
        self.sums[i] = sum(self.bufs[i])
        self.shows += 1
        total = 0
        for s in self.sums:
            total += s
        if total > self.worst:
            self.worst = total
        if self.limiter is not None and total > self.limiter.allowed:
            self.over.append((self.shows, i, total))


def new_game(p, leds, rules, settings=None):
    """(display, game, rings): a Display on profile p drawing into leds, given settings
    (brightness %, budget mA, ms a stone) first if any, showing a new game of rules (a dict
    that names players and pits); rings holds each position's (chain, start, leds) in the
    display's ring order. Nothing is sent before the first tick."""
    d = Display(p, leds)
    if settings:
        d.settings(*settings)
    g = Game(Rules.from_dict(rules))
    d.set_game(profile.seating(p, rules["players"], rules["pits"]), g.to_dict())
    return d, g, [p.ring[pid] for pid in p.positions]


def run_out(d, t, step=33):
    """Ticks d every step ms from t while it is busy (an animation runs); returns the last
    tick's time."""
    while d.busy():
        t += step
        d.tick(t)
    return t
