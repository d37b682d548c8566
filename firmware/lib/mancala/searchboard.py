"""The CPU's own lean board, built from a Game, for the search loop (negamax.run).

The loop sows on it and takes moves back itself. Undo is a snapshot of the board into a
bytearray preallocated for that ply: one C-level copy of at most 33 bytes, which on
MicroPython is cheaper than walking the sowing back in bytecode, and allocates nothing. It
keeps, besides the pits and stores:
- b[size + s], the stones on seat s's side (b[size + P] is a sink for stones sown into
  stores), so "side empty" and the evaluation are O(1);
- h, an additive hash: the sum of count * R[position], updated per sown stone. With R below
  2**21 and at most 96 stones h stays a MicroPython small int (31-bit on the Pico);
- places, a bytearray (0 = no place yet), and the seats still playing as a bit mask.
The loop calls only the rare paths here (a Basic seat finishing, the Kalah end sweep), which
allocate nothing either. The rules are the engine's (game.py) exactly, including the Kalah
end sweep and the Basic finishing and ranking: tests/test_perft.py counts the lines of play
through both, node for node, from every start and through the endings.
"""

# Fixed pseudo-random keys, the same on every run and runtime.
_R = []
_x = 0x2545F
for _ in range(40):
    _x = (_x * 1103 + 12345) % 2097143  # < 2**21
    _R.append(_x)
R = tuple(_R[:28])
RT = tuple(_R[28:32])  # seat to move
RF = tuple(_R[32:36])  # seat finished (Basic), times its place


# Basic sowing and next-seat tables by (players, pits): a list indexed by the seats mask,
# each entry built once and kept.
_LOOPS = {}  # type: dict


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
        self.total = sum(game._board)
        self.own = bytes([size + (i // w if i % w != n else p) for i in range(size)])
        for i in range(size):
            b[i] = game._board[i]
            b[self.own[i]] += game._board[i]
        h = 0
        for i in range(size):
            h += game._board[i] * R[i]
        self.turn = game.turn
        self.over = game.over
        self.places = bytearray(p)
        for s in range(p):
            q = game.places[s]
            if q is not None:
                self.places[s] = q
                h += RF[s] * q
        self.h = h
        mask = 0
        for s in game.active:
            mask |= 1 << s
        self.mask = mask
        if self.kalah:
            self.nxt = [bytes(t) for t in game._next]
            self.nseat = bytes([1, 0])
        else:
            loops = _LOOPS.get((p, n))
            if loops is None:
                loops = _LOOPS[(p, n)] = [None] * 16
            self._loops = loops
            self._set_loop()
        # Undo snapshots, one per ply, allocated once. The rare state (places, seats, table,
        # over) is saved only by the moves that change it: a finish or the end.
        if reuse is not None and len(reuse.sb) >= max_ply and reuse.size == size and \
                reuse.players == p:
            for name in ("sb", "sh", "sturn", "srare", "splaces", "smask", "tmp"):
                setattr(self, name, getattr(reuse, name))
            srare = reuse.srare
            for i in range(len(srare)):
                srare[i] = 0
            return
        self.sb = [bytearray(size + p + 1) for _ in range(max_ply)]
        self.sh = [0] * max_ply
        self.sturn = [0] * max_ply
        self.srare = bytearray(max_ply)
        self.splaces = [bytearray(p) for _ in range(max_ply)]
        self.smask = bytearray(max_ply)
        self.tmp = bytearray(2 * p + 2)

    def _set_loop(self):
        """Basic: the next-position table (the same for every mover) and the next seat to
        move, for the seats in mask; built once per shape and mask."""
        mask = self.mask
        t = self._loops[mask]
        if t is None:
            w = self.w
            p = self.players
            size = self.size
            nxt = bytearray(size)
            for i in range(size):
                j = (i + 1) % size
                steps = 0
                while not (mask >> (j // w)) & 1 and steps < size:
                    j = (j + 1) % size
                    steps += 1
                nxt[i] = j
            ns = bytearray(p)
            for s in range(p):
                ns[s] = s
                for k in range(1, p + 1):
                    if (mask >> ((s + k) % p)) & 1:
                        ns[s] = (s + k) % p
                        break
            t = ([bytes(nxt)] * p, bytes(ns))
            self._loops[mask] = t
        self.nxt, self.nseat = t

    def key(self):
        return self.h + RT[self.turn]

    # ------------------------------------------------------------------ rare paths
    # The search loop (negamax.run) sows and takes back moves itself; it calls these only for
    # a move that ends the game or takes a seat out of it, and to undo one.
    def save_rare(self, ply):
        self.srare[ply] = 1
        self.splaces[ply][:] = self.places
        self.smask[ply] = self.mask

    def restore_rare(self, ply):
        self.srare[ply] = 0
        self.over = False
        self.places[:] = self.splaces[ply]
        self.mask = self.smask[ply]
        if not self.kalah:
            self._set_loop()

    # ------------------------------------------------------------------ endings
    def kalah_end(self):
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
        places = self.places
        places[0] = 1 if a >= c else 2
        places[1] = 1 if c >= a else 2
        self._end()

    def _end(self):
        self.over = True
        self.turn = None
        self.mask = 0

    def _open(self, k):
        """The k-th (from 0) smallest place no seat holds yet."""
        places = self.places
        for q in range(1, self.players + 1):
            for s in range(self.players):
                if places[s] == q:
                    break
            else:
                if not k:
                    return q
                k -= 1
        return 0

    def finish(self, seat):
        """Basic: seat emptied its side straight after sowing."""
        places = self.places
        q = self._open(0)
        places[seat] = q
        self.h += RF[seat] * q
        self.mask &= ~(1 << seat)
        mask = self.mask
        if self.players == 2 or not self.play_all:
            self._rank_rest()
            return
        if not mask & (mask - 1):  # one seat left: it takes the next place
            for s in range(self.players):
                if (mask >> s) & 1:
                    places[s] = self._open(0)
            self._end()
            return
        self._set_loop()
        self.turn = self.nseat[seat]

    def _rank_rest(self):
        """The first finish ends the game: the others are ranked by the stones left on their
        side, fewer is better; equal counts share the better place (1, 2, 2, 4)."""
        b = self.b
        z = self.size
        p = self.players
        mask = self.mask
        rank = self.tmp
        for s in range(p):
            if (mask >> s) & 1:
                r = 0
                for o in range(p):
                    if (mask >> o) & 1 and b[z + o] < b[z + s]:
                        r += 1
                rank[s] = self._open(r)
        for s in range(p):
            if (mask >> s) & 1:
                self.places[s] = rank[s]
        self._end()
