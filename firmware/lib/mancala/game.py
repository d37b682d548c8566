"""The game: a board of pits and stores, the seat to move, sowing, capture, finishing, places.

play()/resign()/undo() are the checked path, with move records (Record); push()/pop()
are the lean path for searches and counts: no checks, no record. docs/engine.md is the
manual.

Inside, the board is one flat bytearray in sowing-loop order: seat 0 pits 1..N, seat 0
store, seat 1 pits 1..N, seat 1 store, and so on, so seat s's pit i is at s*(N+1) + i-1 and
its store at s*(N+1) + N. Every count fits in a byte (a game has at most 96 stones), and an
undo snapshot is a bytes copy of it, made and given back in one copy each way. Sowing
follows a precomputed "next position" table, rebuilt only when a seat leaves the loop, so a
move is a short loop over small ints. Callers read the board through stones() and
to_dict(), never the bytearray.
"""

import sys

from mancala.rules import Rules, KALAH

_Map = dict  # type: type[dict]  # CPython's: ordered already, and the fastest there
if sys.implementation.name != "cpython":
    try:
        from collections import OrderedDict
        _Map = OrderedDict
    except ImportError:  # a port built without it
        pass


class Record(_Map):  # type: ignore[valid-type,misc]  # chosen at run time
    """A move record (docs/architecture.md section 2): a dict, so it goes into JSON as it is,
    whose keys also read as attributes: record.sown, record.capture.stones, and
    capture.opposite for the key "from" (a keyword in Python)."""

    # On MicroPython the dict under a record is an OrderedDict: its keys are an array that a
    # new key is appended to, where a dict is a hash table that twelve keys fill to the last
    # slot, rehashed six times on the way (docs/engine.md section 3 has the figures). So it
    # compares as a dict here: MicroPython's OrderedDict is never equal to a plain dict.
    # No __repr__: MicroPython's json would write what it returns.

    if _Map is not dict:
        def __eq__(self, other):
            return dict(self.items()) == other

        def __ne__(self, other):
            return not self == other

    # One __getattr__ for every field rather than a property each: it is on the board's heap
    # for the whole game.
    def __getattr__(self, name):
        try:
            return self["from" if name == "opposite" else name]
        except KeyError:
            raise AttributeError(name)


class IllegalMove(ValueError):
    """A play or resign the rules do not allow; the game is left unchanged."""


class Game:
    """A game from its start: Game(rules, first=0), rules a Rules or a rules dict.
    undo_limit: how many plays and resigns undo() can take back (None: all of them); a
    long game's snapshots cost memory, so the board keeps only the last few."""

    def __init__(self, rules, first=0, undo_limit=None):
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
        self._board = bytearray(([rules.seeds] * n + [0]) * p)
        self.turn = first  # type: int | None  # None once the game is over
        self.active = list(range(p))
        self.places = [None] * p  # type: list
        self.over = False
        self._history = []
        self._undo_limit = None
        self.undo_limit = undo_limit
        self._captured = 0
        self._capture_opp = 0
        self._swept = None
        self._tables()

    # ----------------------------------------------------------------- sowing tables
    def _tables(self):
        """Build the next-position table(s) for the current active seats."""
        p = self.players
        w = self.pits + 1
        size = p * w
        if self.kalah:
            # One table per mover: each position's next, except that the position before
            # the opponent's store (skip) goes on past it. Built whole, not position by
            # position: a new game builds these.
            self._next = []
            for mover in range(p):
                skip = (1 - mover) * w + w - 1
                nxt = bytearray(range(1, size + 1))
                nxt[size - 1] = 0
                nxt[skip - 1] = (skip + 1) % size
                self._next.append(bytes(nxt))  # a quarter of a list's heap
        else:
            # Basic: every active seat's pits and store are in the loop, nobody else's.
            inloop = [False] * size
            for s in self.active:
                for i in range(s * w, s * w + w):
                    inloop[i] = True
            order = [0] * size
            for i in range(size):
                j = (i + 1) % size
                steps = 0
                while not inloop[j] and steps < size:
                    j = (j + 1) % size
                    steps += 1
                order[i] = j
            self._next = [bytes(order)] * p

    # ----------------------------------------------------------------- queries
    def legal_moves(self):
        """The pits (1..N) the seat to move may play, ascending; [] when the game is over."""
        if self.over:
            return []
        board = self._board
        base = self.turn * (self.pits + 1)
        moves = []  # a loop, not a comprehension: MicroPython builds a function for one
        for i in range(self.pits):
            if board[base + i]:
                moves.append(i + 1)
        return moves

    def is_legal(self, pit):
        """Whether play(pit) would be accepted now."""
        return not self.over and not isinstance(pit, bool) and isinstance(pit, int) and \
            1 <= pit <= self.pits and self._board[self.turn * (self.pits + 1) + pit - 1] > 0

    def stones(self, seat, pit=None):
        """The stones in seat's pit (1..N), in its store when pit is 0, and in all its pits
        together when pit is None."""
        n = self.pits
        if not (0 <= seat < self.players and (pit is None or 0 <= pit <= n)):
            raise ValueError("this game has no seat %r pit %r" % (seat, pit))
        base = seat * (n + 1)
        if pit is None:
            return sum(self._board[base:base + n])
        return self._board[base + (pit - 1 if pit else n)]

    def outcome(self):
        """None while the game runs; then an Outcome (outcome.py): the places and how the
        game ended."""
        from mancala.outcome import outcome
        return outcome(self)

    def copy(self, stack=True):
        """An independent game in the same position; with stack, undo() works on it as on
        this one."""
        g = Game.from_dict(self.to_dict())
        g._undo_limit = self._undo_limit
        if stack:
            g._history = list(self._history)  # snapshots are immutable: shared
        return g

    def _side_empty(self, seat):
        board = self._board
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
        list, the [seat, pit] names of the positions sown are appended to it."""
        mover = self.turn
        if mover is None:
            raise IllegalMove("the game is over")
        board = self._board
        self._history.append((bytes(board), mover, self.active, self.places, self.over,
                              self._next))
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
            w = n + 1
            while stones:
                i = nxt[i]
                board[i] += 1
                stones -= 1
                sown.append([i // w, (i + 1) % w])  # [seat, pit]; pit 0 is the store
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
                return
            if base <= i < store and board[i] == 1:
                opp = other * (n + 1) + (n - 1) - (i - base)
                if self._may_capture(other, opp):
                    got = board[opp] + 1
                    self._captured = got
                    self._capture_opp = opp
                    board[store] += got
                    board[opp] = 0
                    board[i] = 0
                    mover_empty = mover_empty or self._side_empty(mover)
                    if self._side_empty(other):
                        mover_empty = True
            if mover_empty:
                self._kalah_end()
            else:
                self.turn = other
            return
        # Basic
        if mover_empty:
            self._finish(mover)
        elif i % (n + 1) != n:  # not a store: no extra move
            self.turn = self._next_active(mover)

    def _may_capture(self, other, opp):
        board = self._board
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
        """Takes back the last push(), play() or resign()."""
        # Snapshots are bytes: a quarter of a list's heap on 64-bit words, half on the RP2040.
        (board, self.turn, self.active, self.places, self.over,
         self._next) = self._history.pop()
        self._board = bytearray(board)

    # ----------------------------------------------------------------- endings
    def _kalah_end(self):
        board = self._board
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
        board = self._board
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
        mover = self.turn
        if mover is None:  # the game is over
            raise IllegalMove("the game is over")
        n = self.pits
        # type() first: one call for the int every caller passes, the rest only for others
        if (type(pit) is not int and (isinstance(pit, bool) or not isinstance(pit, int))) \
                or not 1 <= pit <= n:
            raise IllegalMove("pit must be a number from 1 to %d, got %r" % (n, pit))
        w = n + 1
        stones = self._board[mover * w + pit - 1]
        if not stones:
            raise IllegalMove("seat %d's pit %d is empty" % (mover, pit))
        sown = []  # type: list
        self.push(pit, sown)
        if self._undo_limit is not None:
            self._trim()
        capture = None
        if self._captured:
            opp = self._capture_opp
            capture = Record((("seat", mover), ("pit", sown[-1][1]),
                              ("from", [opp // w, opp % w + 1]), ("stones", self._captured)))
        turn = self.turn
        places = self.places
        if self.kalah:
            sweep = self._swept if turn is None else None
            finished = []
        else:
            sweep = None
            finished = [] if places[mover] is None else [mover]
        # Keywords: a dict literal would be built and then copied key by key.
        return Record(kind="sow", seat=mover, pit=pit, stones=stones, sown=sown,
                      capture=capture, extra=turn == mover, finished=finished,
                      sweep=sweep, over=turn is None, places=places[:], turn=turn)

    def resign(self, seat):
        """seat gives up: it takes the worst open place and leaves the loop."""
        if self.over:
            raise IllegalMove("the game is over")
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in self.active:
            raise IllegalMove("seat %r is not playing" % (seat,))
        board = self._board
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
        self._trim()
        return Record(kind="resign", seat=seat, finished=[], over=self.over,
                      places=list(self.places), turn=self.turn)

    def undo(self):
        """Take back the last play or resign."""
        if not self._history:
            raise IllegalMove("there is no move to take back")
        self.pop()

    @property
    def history_length(self):
        """How many plays and resigns undo() can take back now."""
        return len(self._history)

    @property
    def undo_limit(self):
        return self._undo_limit

    @undo_limit.setter
    def undo_limit(self, limit):
        if limit is not None and not 0 <= limit:
            raise ValueError("undo_limit must be None or a number from 0")
        self._undo_limit = limit
        self._trim()

    def _trim(self):
        h = self._history
        keep = self._undo_limit
        if keep is not None and len(h) > keep:
            del h[:len(h) - keep]

    # ----------------------------------------------------------------- state dicts
    def to_dict(self):
        n = self.pits
        w = n + 1
        b = self._board
        return {"rules": self.rules.to_dict(),
                "pits": [list(b[s * w:s * w + n]) for s in range(self.players)],
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
        g._board = bytearray(board)
        g.turn = turn
        g.active = active
        g.places = places
        g.over = over
        g._tables()
        return g

    def __repr__(self):
        return "Game(%r)" % (self.to_dict(),)
