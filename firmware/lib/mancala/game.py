"""The game: a board of pits and stores, the seat to move, sowing, capture, finishing, places.

The board is one flat list in sowing-loop order: seat 0 pits 1..N, seat 0 store, seat 1 pits
1..N, seat 1 store, and so on. Seat s's pit i lives at s*(N+1) + i-1, its store at
s*(N+1) + N. Sowing follows a precomputed "next position" table, rebuilt only when a seat
leaves the loop, so a move is a short loop over plain ints.

push()/pop() are the lean path for search: no checks, no record, an O(1)-ish snapshot.
play()/resign()/undo() are the checked path with move records (docs/architecture.md).
"""

from mancala.rules import Rules, KALAH


class IllegalMove(ValueError):
    """A play or resign the rules do not allow; the game is left unchanged."""


class Game:
    def __init__(self, rules, first=0):
        if not isinstance(rules, Rules):
            rules = Rules.from_dict(rules)
        self.rules = rules
        p = rules.players
        n = rules.pits
        if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < p:
            raise ValueError("first must be a seat from 0 to %d, got %r" % (p - 1, first))
        self.players = p
        self.pits = n
        self.kalah = rules.variant == KALAH
        self.board = ([rules.seeds] * n + [0]) * p
        self.turn = first
        self.active = list(range(p))
        self.places = [None] * p  # type: list
        self.over = False
        self._history = []
        self._captured = 0
        self._capture_opp = 0
        self._swept = None
        # [seat, pit] of every board index (pit 0 = store), shared by all records: read-only.
        w = n + 1
        self._names = [[i // w, (i + 1) % w] for i in range(p * w)]
        self._tables()

    # ----------------------------------------------------------------- sowing tables
    def _tables(self):
        """Build the next-position table(s) for the current active seats."""
        p = self.players
        w = self.pits + 1
        size = p * w
        if self.kalah:
            # One table per mover: the opponent's store is skipped.
            self._next = []
            for mover in range(p):
                skip = (1 - mover) * w + w - 1
                nxt = [0] * size
                for i in range(size):
                    j = (i + 1) % size
                    if j == skip:
                        j = (j + 1) % size
                    nxt[i] = j
                self._next.append(nxt)
        else:
            # Basic: every active seat's pits and store are in the loop, nobody else's.
            inloop = [False] * size
            for s in self.active:
                for i in range(s * w, s * w + w):
                    inloop[i] = True
            nxt = [0] * size
            for i in range(size):
                j = (i + 1) % size
                steps = 0
                while not inloop[j] and steps < size:
                    j = (j + 1) % size
                    steps += 1
                nxt[i] = j
            self._next = [nxt] * p

    # ----------------------------------------------------------------- queries
    def legal_moves(self):
        if self.over:
            return []
        board = self.board
        base = self.turn * (self.pits + 1)
        return [i + 1 for i in range(self.pits) if board[base + i]]

    def side_empty(self, seat):
        board = self.board
        base = seat * (self.pits + 1)
        for i in range(base, base + self.pits):
            if board[i]:
                return False
        return True

    def _next_active(self, seat):
        """The next active seat counterclockwise after seat (seat itself need not be active)."""
        p = self.players
        active = self.active
        for k in range(1, p + 1):
            s = (seat + k) % p
            if s in active:
                return s
        return None

    # ----------------------------------------------------------------- lean path
    def push(self, pit, sown=None):
        """Play pit for the seat to move without checks; pop() takes it back. When sown is a
        list, the [seat, pit] names of the positions sown are appended to it.
        Returns the board index of the last stone sown."""
        board = self.board
        self._history.append((bytes(board), self.turn, self.active, self.places, self.over,
                              self._next))
        mover = self.turn
        n = self.pits
        base = mover * (n + 1)
        store = base + n
        i = base + pit - 1
        stones = board[i]
        board[i] = 0
        nxt = self._next[mover]
        self._captured = 0
        if sown is None:
            while stones:
                i = nxt[i]
                board[i] += 1
                stones -= 1
        else:
            names = self._names
            while stones:
                i = nxt[i]
                board[i] += 1
                stones -= 1
                sown.append(names[i])
        # Only the mover's side can have run empty, unless a capture emptied the other side.
        mover_empty = True
        for j in range(base, store):
            if board[j]:
                mover_empty = False
                break
        if self.kalah:
            other = 1 - mover
            if i == store:
                if mover_empty:
                    self._kalah_end()
                return i
            if base <= i < store and board[i] == 1:
                opp = other * (n + 1) + (n - 1) - (i - base)
                if self._may_capture(other, opp):
                    got = board[opp] + 1
                    self._captured = got
                    self._capture_opp = opp
                    board[store] += got
                    board[opp] = 0
                    board[i] = 0
                    mover_empty = mover_empty or self.side_empty(mover)
                    if self.side_empty(other):
                        mover_empty = True
            if mover_empty:
                self._kalah_end()
            else:
                self.turn = other
            return i
        # Basic
        if mover_empty:
            self._finish(mover)
        elif i % (n + 1) != n:  # not a store: no extra move
            self.turn = self._next_active(mover)
        return i

    def _may_capture(self, other, opp):
        board = self.board
        if not board[opp] and self.rules.capture == "nonempty":
            return False
        if not self.rules.wipeout_capture:
            w = self.pits + 1
            for i in range(other * w, other * w + self.pits):
                if i != opp and board[i]:
                    return True
            return False
        return True

    def pop(self):
        # Snapshots keep the board as bytes (every count fits: a game has at most 96 stones), a
        # quarter of a list's heap on 64-bit words, half on the RP2040.
        (board, self.turn, self.active, self.places, self.over,
         self._next) = self._history.pop()
        self.board = list(board)

    # ----------------------------------------------------------------- endings
    def _kalah_end(self):
        board = self.board
        n = self.pits
        w = n + 1
        self._swept = [0, 0]
        for s in (0, 1):
            base = s * w
            self._swept[s] = sum(board[base:base + n])
            for i in range(base, base + n):
                board[base + n] += board[i]
                board[i] = 0
        a = board[n]
        b = board[w + n]
        self.places = [1, 1] if a == b else ([1, 2] if a > b else [2, 1])
        self._end()

    def _end(self):
        self.over = True
        self.turn = None
        self.active = []

    def _open_places(self):
        taken = [p for p in self.places if p is not None]
        return [q for q in range(1, self.players + 1) if q not in taken]

    def _finish(self, seat):
        """Basic: seat emptied its side straight after sowing."""
        places = list(self.places)
        places[seat] = self._open_places()[0]
        self.places = places
        active = [s for s in self.active if s != seat]
        self.active = active
        if self.players == 2 or not self.rules.play_all_places:
            self._rank_rest()
            return
        if len(active) == 1:
            places = list(self.places)
            places[active[0]] = self._open_places()[0]
            self.places = places
            self._end()
            return
        self.turn = self._next_active(seat)
        self._tables()

    def _rank_rest(self):
        """First finish ends the game: the others are ranked by the stones left in their own
        pits, fewer is better; equal counts share the better place (1, 2, 2, 4)."""
        n = self.pits
        w = n + 1
        board = self.board
        open_places = self._open_places()
        left = []
        for s in self.active:
            left.append((sum(board[s * w:s * w + n]), s))
        left.sort()
        places = list(self.places)
        for k in range(len(left)):
            if k and left[k][0] == left[k - 1][0]:
                places[left[k][1]] = places[left[k - 1][1]]
            else:
                places[left[k][1]] = open_places[k]
        self.places = places
        self._end()

    # ----------------------------------------------------------------- checked path
    def play(self, pit):
        """Play pit (1..N) for the seat to move. Returns the move record."""
        if self.over:
            raise IllegalMove("the game is over")
        if isinstance(pit, bool) or not isinstance(pit, int) or not 1 <= pit <= self.pits:
            raise IllegalMove("pit must be a number from 1 to %d, got %r" % (self.pits, pit))
        mover = self.turn
        n = self.pits
        w = n + 1
        start = mover * w + pit - 1
        stones = self.board[start]
        if not stones:
            raise IllegalMove("seat %d's pit %d is empty" % (mover, pit))
        sown = []  # type: list
        self.push(pit, sown)
        capture = None
        if self._captured:
            opp = self._capture_opp
            capture = {"seat": mover, "pit": sown[-1][1], "from": [opp // w, opp % w + 1],
                       "stones": self._captured}
        sweep = None
        if self.kalah and self.over:
            sweep = self._swept
        finished = [mover] if not self.kalah and self.places[mover] is not None else []
        return {"kind": "sow", "seat": mover, "pit": pit, "stones": stones, "sown": sown,
                "capture": capture, "extra": self.turn == mover,
                "finished": finished, "sweep": sweep, "over": self.over,
                "places": list(self.places), "turn": self.turn}

    def resign(self, seat):
        """seat gives up: it takes the worst open place and leaves the loop."""
        if self.over:
            raise IllegalMove("the game is over")
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in self.active:
            raise IllegalMove("seat %r is not playing" % (seat,))
        board = self.board
        self._history.append((bytes(board), self.turn, self.active, self.places, self.over,
                              self._next))
        places = list(self.places)
        places[seat] = self._open_places()[-1]
        self.places = places
        self.active = [s for s in self.active if s != seat]
        if len(self.active) == 1:
            places = list(self.places)
            places[self.active[0]] = self._open_places()[0]
            self.places = places
            self._end()
        else:
            if self.turn == seat:
                self.turn = self._next_active(seat)
            if not self.kalah:
                self._tables()
        return {"kind": "resign", "seat": seat, "finished": [], "over": self.over,
                "places": list(self.places), "turn": self.turn}

    def undo(self):
        """Take back the last play or resign."""
        if not self._history:
            raise IllegalMove("there is no move to take back")
        self.pop()

    @property
    def history_length(self):
        return len(self._history)

    def forget(self, keep):
        """Drop all but the last keep undo snapshots (a long game's take-backs cost heap);
        the moves before them can no longer be undone."""
        h = self._history
        if len(h) > keep:
            del h[:len(h) - keep]

    # ----------------------------------------------------------------- state dicts
    def to_dict(self):
        n = self.pits
        w = n + 1
        b = self.board
        return {"rules": self.rules.to_dict(),
                "pits": [b[s * w:s * w + n] for s in range(self.players)],
                "stores": [b[s * w + n] for s in range(self.players)],
                "turn": self.turn,
                "active": list(self.active),
                "places": list(self.places),
                "over": self.over}

    @classmethod
    def from_dict(cls, d):
        from mancala.state import check_state
        rules, board, turn, active, places, over = check_state(d)
        g = cls(rules, turn if turn is not None else 0)
        g.board = board
        g.turn = turn
        g.active = active
        g.places = places
        g.over = over
        g._tables()
        return g

    def __repr__(self):
        return "Game(%r)" % (self.to_dict(),)
