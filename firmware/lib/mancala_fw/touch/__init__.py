"""Pad states -> touch events: press, release, long (held) and double (second tap).

Input is the touched mask of every pad chip (an int, or None while a chip is unavailable),
a list in the order of the chips (drivers.mpr121.MPR121Group.poll() gives exactly that);
output is a list of (kind, pad) with pad the profile's position id ("0.3", "1.S").
Debounce acts on the first edge and then ignores changes of that pad for DEBOUNCE_MS, so a
touch reaches the game at once; a long press is reported once, LONG_MS after the press; a
double is reported with the second press when it follows a short tap within DOUBLE_MS.
A pad on a chip that stops answering keeps its last state (no made-up releases) until the
chip answers again. Nothing here knows the game; the app maps pads to seats and pits.
"""

from mpcompat import const, ticks_diff

DEBOUNCE_MS = const(40)
LONG_MS = const(1000)
DOUBLE_MS = const(400)

PRESS = "press"
RELEASE = "release"
LONG = "long"
DOUBLE = "double"


class Touch:
    def __init__(self, chips, pad_position, debounce_ms=DEBOUNCE_MS, long_ms=LONG_MS,
                 double_ms=DOUBLE_MS):
        """chips: the chip addresses in the order of the masks; pad_position maps an address to
        its 12 electrodes' position ids (None = no pad), as profile.Profile.pad_position."""
        self.debounce_ms = debounce_ms
        self.long_ms = long_ms
        self.double_ms = double_ms
        index = []
        ids = []
        for c in range(len(chips)):
            electrodes = pad_position[chips[c]]
            for e in range(12):
                pid = electrodes[e]
                if pid is not None:
                    index.append(c)
                    ids.append((e, pid))
        n = len(ids)
        # Pads are listed chip by chip, so each chip's pads are one range: a chip with no pad
        # held and no pad touched is skipped whole (the common case, every pad poll).
        self._start = [0] * len(chips)
        self._end = [0] * len(chips)
        self._used = [0] * len(chips)   # per chip: the mask of its electrodes that are pads
        for i in range(n):
            c = index[i]
            if not self._used[c]:
                self._start[c] = i
            self._end[c] = i + 1
            self._used[c] |= 1 << ids[i][0]
        self._held = bytearray(len(chips))  # per chip: how many of its pads are down
        self._chip = index          # per pad: its chip's index in the masks
        self._bit = [1 << e for e, _ in ids]
        self._id = [pid for _, pid in ids]
        self._down = bytearray(n)
        self._long_sent = bytearray(n)
        self._edge = [None] * n     # ticks of the last accepted edge (None: never)
        self._tap = [None] * n      # ticks of the last short tap's press, for double
        self._events = []

    def update(self, masks, now):
        """masks: per chip, the touched mask or None. Returns the events since the last call
        (a list that is reused: read it before the next call)."""
        ev = self._events
        ev.clear()
        down = self._down
        edge = self._edge
        held = self._held
        bit = self._bit
        for c in range(len(self._start)):
            mask = masks[c]
            if mask is None or not (mask & self._used[c] or held[c]):
                continue
            for i in range(self._start[c], self._end[c]):
                # A pad neither touched nor down has nothing to report: no call for it (this
                # loop is on the way from a finger to the first LED change).
                if down[i] or mask & bit[i]:
                    self._pad(i, c, mask, now, ev, down, edge, held)
        return ev

    def _pad(self, i, c, mask, now, ev, down, edge, held):
        """One pad of chip c: debounce its edge and report press/release/double/long."""
        raw = 1 if mask & self._bit[i] else 0
        since = self.long_ms if edge[i] is None else ticks_diff(now, edge[i])
        if since < 0:
            since = self.long_ms  # an edge so old that the tick difference wrapped
        if raw != down[i] and since >= self.debounce_ms:
            down[i] = raw
            held[c] += 1 if raw else -1
            edge[i] = now
            pid = self._id[i]
            if raw:
                ev.append((PRESS, pid))
                tap = self._tap[i]
                if tap is not None and 0 <= ticks_diff(now, tap) <= self.double_ms:
                    ev.append((DOUBLE, pid))
                    self._tap[i] = None
                else:
                    self._tap[i] = now
            else:
                if self._long_sent[i]:
                    self._tap[i] = None
                self._long_sent[i] = 0
                ev.append((RELEASE, pid))
        elif down[i] and not self._long_sent[i] and since >= self.long_ms:
            self._long_sent[i] = 1
            self._tap[i] = None
            ev.append((LONG, self._id[i]))

    def held(self):
        """The position ids that are touched now."""
        return [self._id[i] for i in range(len(self._id)) if self._down[i]]
