"""The CPU's own lean board: make/unmake without copying a Game, for the search in cpu.py.

A SearchBoard is built from a Game and then plays moves with make(pit, ply) and takes them
back with unmake(ply). Undo is a snapshot of the board into a bytearray preallocated for that
ply: one C-level copy of at most 28 bytes, which on MicroPython is cheaper than walking the
sowing back in bytecode, and allocates nothing. It keeps, besides the pits and stores:
- sd[s], the stones on seat s's side (sd[P] is a sink for stones sown into stores), so
  "side empty" and the evaluation are O(1);
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


class SearchBoard:
    def __init__(self, game, max_ply=64):
        self.players = p = game.players
        self.pits = n = game.pits
        self.w = w = n + 1
        self.size = size = p * w
        self.kalah = game.kalah
        rules = game.rules
        self.nonempty_only = rules.capture == "nonempty"
        self.wipeout = rules.wipeout_capture
        self.play_all = rules.play_all_places
        self.b = bytearray(game.board)
        self.total = sum(game.board)
        self.own = bytes([(i // w if i % w != n else p) for i in range(size)])
        sd = bytearray(p + 1)
        for i in range(size):
            sd[self.own[i]] += game.board[i]
        self.sd = sd
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
        self._tables = {}
        if self.kalah:
            self.nxt = [bytes(t) for t in game._next]
        else:
            self.nxt = self._loop(mask)
        for s in range(p):
            if self.places[s] is not None:
                h += RF[s] * self.places[s]
        self.h = h
        # Undo snapshots, one per ply, allocated once.
        self.sb = [bytearray(size) for _ in range(max_ply)]
        self.ssd = [bytearray(p + 1) for _ in range(max_ply)]
        self.sh = [0] * max_ply
        self.sturn = [0] * max_ply
        self.sover = [False] * max_ply
        self.splaces = [None] * max_ply
        self.smask = [0] * max_ply
        self.snxt = [None] * max_ply

    def _loop(self, mask):
        """Basic: the next-position table (the same for every mover) for the seats in mask."""
        t = self._tables.get(mask)
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
            self._tables[mask] = t
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
        sd = self.sd
        self.sb[ply][:] = b
        self.ssd[ply][:] = sd
        self.sh[ply] = self.h
        mover = self.turn
        self.sturn[ply] = mover
        self.sover[ply] = self.over
        self.splaces[ply] = self.places
        self.smask[ply] = self.mask
        self.snxt[ply] = self.nxt
        w = self.w
        n = w - 1
        i = mover * w + pit - 1
        k = b[i]
        b[i] = 0
        sd[mover] -= k
        h = self.h - k * R[i]
        nxt = self.nxt[mover]
        own = self.own
        while k:
            i = nxt[i]
            b[i] += 1
            sd[own[i]] += 1
            h += R[i]
            k -= 1
        self.h = h
        if self.kalah:
            store = mover * w + n
            other = 1 - mover
            if i != store:
                if b[i] == 1 and own[i] == mover:
                    opp = other * w + (n - 1) - (i - mover * w)
                    c = b[opp]
                    if (c or not self.nonempty_only) and (self.wipeout or sd[other] > c):
                        b[store] += c + 1
                        b[opp] = 0
                        b[i] = 0
                        sd[other] -= c
                        sd[mover] -= 1
                        self.h = h + (c + 1) * R[store] - c * R[opp] - R[i]
                self.turn = other
            if not sd[0] or not sd[1]:
                self._kalah_end()
            return
        if not sd[mover]:
            self._finish(mover)
        elif own[i] != self.players:
            self.turn = self.next_seat(mover)

    def unmake(self, ply):
        self.b[:] = self.sb[ply]
        self.sd[:] = self.ssd[ply]
        self.h = self.sh[ply]
        self.turn = self.sturn[ply]
        self.over = self.sover[ply]
        self.places = self.splaces[ply]
        self.mask = self.smask[ply]
        self.nxt = self.snxt[ply]

    # ------------------------------------------------------------------ endings
    def _kalah_end(self):
        b = self.b
        n = self.pits
        w = n + 1
        for s in (0, 1):
            base = s * w
            b[base + n] += self.sd[s]
            for i in range(base, base + n):
                b[i] = 0
            self.sd[s] = 0
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
                left.append((self.sd[s], s))
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
