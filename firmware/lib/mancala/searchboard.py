"""The CPU's own lean board: make/unmake without copying a Game, for the search in cpu.py.

A SearchBoard is built from a Game and then plays moves with make(pit, ply) and takes them
back with unmake(ply). Undo is a snapshot of the board into a bytearray preallocated for that
ply: one C-level copy of at most 28 bytes, which on MicroPython is cheaper than walking the
sowing back in bytecode, and allocates nothing. It keeps, besides the pits and stores:
- b[size + s], the stones on seat s's side (b[size + P] is a sink for stones sown into
  stores), so "side empty" and the evaluation are O(1);
- h, an additive hash: the sum of count * R[position], updated per sown stone. With R below
  2**21 and at most 96 stones h stays a MicroPython small int (31-bit on the Pico).
The rules are the engine's (game.py) exactly, including the Kalah end sweep and the Basic
finishing and ranking; tests/mp/test_cpu_board.py plays random games on both to prove it.
"""

from mancala.rules import KALAH

# Fixed pseudo-random keys, the same on every run and runtime.
_R = []
_x = 0x2545F
for _ in range(40):
    _x = (_x * 1103 + 12345) % 2097143  # < 2**21
    _R.append(_x)
R = tuple(_R[:28])
RT = tuple(_R[28:32])  # seat to move
RF = tuple(_R[32:36])  # seat finished (Basic), times its place


# Basic sowing tables by (players, pits, seats mask), built once per shape and kept.
_LOOPS = {}


class SearchBoard:
    """reuse: an earlier SearchBoard of the same shape whose undo arrays are taken over, so
    a search per move does not allocate them again (less time and heap churn on the Pico)."""

    def __init__(self, game, max_ply=64, reuse=None):
        self.players = p = game.players
        self.pits = n = game.pits
        self.w = w = n + 1
        self.size = size = p * w
        self.kalah = game.kalah
        rules = game.rules
        self.nonempty_only = rules.capture == "nonempty"
        self.wipeout = rules.wipeout_capture
        self.play_all = rules.play_all_places
        # b holds the pits and stores, then the side counts: b[size + s] = stones on seat
        # s's side, b[size + P] a sink for stores. One bytearray, so one copy per snapshot.
        b = bytearray(size + p + 1)
        self.b = b
        self.total = sum(game.board)
        self.own = bytes([size + (i // w if i % w != n else p) for i in range(size)])
        for i in range(size):
            b[i] = game.board[i]
            b[self.own[i]] += game.board[i]
        h = 0
        for i in range(size):
            h += game.board[i] * R[i]
        self.turn = game.turn
        self.over = game.over
        self.places = list(game.places)
        mask = 0
        for s in game.active:
            mask |= 1 << s
        self.mask = mask
        if self.kalah:
            self.nxt = [bytes(t) for t in game._next]
        else:
            self.nxt = self._loop(mask)
        for s in range(p):
            if self.places[s] is not None:
                h += RF[s] * self.places[s]
        self.h = h
        # Undo snapshots, one per ply, allocated once. The rare state (places, seats, table,
        # over) is saved only by the moves that change it: a finish or the end.
        if reuse is not None and len(reuse.sb) >= max_ply and reuse.size == size and \
                reuse.players == p:
            self.sb = reuse.sb
            self.sh = reuse.sh
            self.sturn = reuse.sturn
            self.srare = reuse.srare
            self.splaces = reuse.splaces
            self.smask = reuse.smask
            self.snxt = reuse.snxt
            return
        self.sb = [bytearray(size + p + 1) for _ in range(max_ply)]
        self.sh = [0] * max_ply
        self.sturn = [0] * max_ply
        self.srare = bytearray(max_ply)
        self.splaces = [None] * max_ply
        self.smask = [0] * max_ply
        self.snxt = [None] * max_ply
        self.ply = 0

    def _loop(self, mask):
        """Basic: the next-position table (the same for every mover) for the seats in mask."""
        shape = (self.players, self.pits, mask)
        t = _LOOPS.get(shape)
        if t is None:
            w = self.w
            size = self.size
            nxt = bytearray(size)
            for i in range(size):
                j = (i + 1) % size
                steps = 0
                while not (mask >> (j // w)) & 1 and steps < size:
                    j = (j + 1) % size
                    steps += 1
                nxt[i] = j
            t = [bytes(nxt)] * self.players
            _LOOPS[shape] = t
        return t

    def next_seat(self, seat):
        p = self.players
        mask = self.mask
        for k in range(1, p + 1):
            s = (seat + k) % p
            if (mask >> s) & 1:
                return s
        return None

    def key(self):
        return self.h + RT[self.turn]

    # ------------------------------------------------------------------ make / unmake
    def make(self, pit, ply):
        b = self.b
        self.sb[ply][:] = b
        h = self.h
        self.sh[ply] = h
        mover = self.turn
        self.sturn[ply] = mover
        self.srare[ply] = 0
        w = self.w
        n = w - 1
        size = self.size
        i = mover * w + pit - 1
        k = b[i]
        b[i] = 0
        b[size + mover] -= k
        h -= k * R[i]
        nxt = self.nxt[mover]
        own = self.own
        while k:
            i = nxt[i]
            b[i] += 1
            b[own[i]] += 1
            h += R[i]
            k -= 1
        self.h = h
        if self.kalah:
            store = mover * w + n
            other = 1 - mover
            if i != store:
                if b[i] == 1 and own[i] == size + mover:
                    opp = other * w + (n - 1) - (i - mover * w)
                    c = b[opp]
                    if (c or not self.nonempty_only) and (self.wipeout or b[size + other] > c):
                        b[store] += c + 1
                        b[opp] = 0
                        b[i] = 0
                        b[size + other] -= c
                        b[size + mover] -= 1
                        self.h = h + (c + 1) * R[store] - c * R[opp] - R[i]
                self.turn = other
            if not b[size] or not b[size + 1]:
                self._save_rare(ply)
                self._kalah_end()
            return
        if not b[size + mover]:
            self._save_rare(ply)
            self._finish(mover)
        elif own[i] != size + self.players:
            self.turn = self.next_seat(mover)

    def _save_rare(self, ply):
        self.srare[ply] = 1
        self.splaces[ply] = self.places
        self.smask[ply] = self.mask
        self.snxt[ply] = self.nxt

    def unmake(self, ply):
        self.b[:] = self.sb[ply]
        self.h = self.sh[ply]
        self.turn = self.sturn[ply]
        if self.srare[ply]:
            self.over = False
            self.places = self.splaces[ply]
            self.mask = self.smask[ply]
            self.nxt = self.snxt[ply]

    # ------------------------------------------------------------------ endings
    def _kalah_end(self):
        b = self.b
        n = self.pits
        w = n + 1
        size = self.size
        for s in (0, 1):
            base = s * w
            b[base + n] += b[size + s]
            for i in range(base, base + n):
                b[i] = 0
            b[size + s] = 0
        a = b[n]
        c = b[w + n]
        self.places = [1, 1] if a == c else ([1, 2] if a > c else [2, 1])
        self._end()

    def _end(self):
        self.over = True
        self.turn = None
        self.mask = 0

    def _open(self):
        taken = self.places
        return [q for q in range(1, self.players + 1) if q not in taken]

    def _finish(self, seat):
        places = list(self.places)
        places[seat] = self._open()[0]
        self.places = places
        self.h += RF[seat] * places[seat]
        self.mask &= ~(1 << seat)
        if self.players == 2 or not self.play_all:
            self._rank_rest()
            return
        rest = [s for s in range(self.players) if (self.mask >> s) & 1]
        if len(rest) == 1:
            places = list(self.places)
            places[rest[0]] = self._open()[0]
            self.places = places
            self._end()
            return
        self.turn = self.next_seat(seat)
        self.nxt = self._loop(self.mask)

    def _rank_rest(self):
        open_places = self._open()
        left = []
        for s in range(self.players):
            if (self.mask >> s) & 1:
                left.append((self.b[self.size + s], s))
        left.sort()
        places = list(self.places)
        for k in range(len(left)):
            if k and left[k][0] == left[k - 1][0]:
                places[left[k][1]] = places[left[k - 1][1]]
            else:
                places[left[k][1]] = open_places[k]
        self.places = places
        self._end()

    # ------------------------------------------------------------------ for tests
    def to_dict(self):
        """The engine's state-dict fields this board tracks (no rules)."""
        n = self.pits
        w = n + 1
        b = self.b
        p = self.players
        return {"pits": [list(b[s * w:s * w + n]) for s in range(p)],
                "stores": [b[s * w + n] for s in range(p)],
                "turn": self.turn,
                "active": [s for s in range(p) if (self.mask >> s) & 1],
                "places": list(self.places),
                "over": self.over}
