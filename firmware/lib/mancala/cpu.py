"""The CPU player: choose a pit for the seat to move, at level 1 (beginner) to 5 (strongest).

    from mancala.cpu import choose_move, Search, Memory
    pit = choose_move(game, level=5, budget_ms=1000)      # blocking, never changes game
    memory = Memory()                                     # the arrays a search works in
    s = Search(game, level=5, budget_ms=1000, memory=memory)   # the same search in slices:
    while not s.step(7):                                  # ~7 ms of work per call, so the
        poll_pads(); draw_leds()                          # app stays live between slices
    pit = s.best                                          # s.pause() (say from a pin
                                                          # interrupt) ends a slice early
    s = Search(game, 5, endgame=table)    # table: a mancala.endgame.Table; a position it
                                          # covers is played from it (s.exact, s.exact_pits)

The search is an alpha-beta with null windows (PVS; negamax over two "teams": the root seat,
and everyone else; in 3-4 player Basic on best-reply turns, each rival replying with its own
first move) with iterative deepening, a deadline, move ordering and a transposition table. It runs
on an explicit stack, not recursion, so it can stop after any node and resume in the next
step(). docs/cpu.md explains the choices.

A Memory holds everything a search writes: the transposition table and the per-ply arrays.
Kept from one move to the next it saves their allocation and keeps what the table learned;
a Search without one makes its own. One Memory serves one search at a time.
"""

from mancala.searchboard import SearchBoard, RT
from mancala.evaluate import WIN, INF
from mancala.negamax import run, order

from mpcompat import ticks_ms, ticks_diff, ticks_add

# The deepest search, in plies (moves): level 5's iterative deepening stops there.
MAX_PLY = 30
# Basic 2p at levels 4-5 deepens by 2 plies: an iteration never ends on the root's own
# move (an odd depth in a race flatters the seat that moves last; docs/cpu.md section 3).
BASIC_STEP = 2
# 1024 entries x 2 int32 arrays = 8 KB. A move searches ~2000 nodes on an RP2040, so 2048
# entries bought nothing measurable (docs/cpu.md section 5) and cost 8 KB of the heap.
TT_BITS = 10

# level: (max depth in plies, leaf noise amplitude, percent of random moves, transposition
# table). With the fitted evaluations a small search is nearly as strong as a long one, so
# levels 3-4 are fixed depths of 2 and 4 plies, which keep the levels apart (docs/cpu.md
# section 2); in Basic level 2 plays 30% random moves. A search's per-ply arrays hold its
# max depth, so levels 1-4 keep about a tenth of level 5's.
LEVELS = {1: (1, 32, 70, False), 2: (1, 0, 10, False), 3: (2, 0, 0, False),
          4: (4, 0, 0, False), 5: (MAX_PLY, 0, 0, True)}
BASIC_LEVELS = {2: (1, 0, 30, False)}

# Multi-player values are relative to the root seat (paranoid), so each root seat keys its
# own entries; two-player values are relative to the seat to move and stay valid from one
# move to the next, which is most of the table's gain.
_ROOT_SALT = (0x15A5A5A5, 0x0C3C3C3C, 0x1F0F0F0F, 0x06969696)
# Best-reply turns (a rival's one reply is the table's move of its position) and the real
# turn order value the same position differently: each keys its own entries. Keys stay
# below 2**30, a small int on the Pico.
_REAL_TURNS = 0x20000000


class Memory:
    """The transposition table and the per-ply arrays of a search, allocated at first use
    (the table only for level 5; the arrays as deep as the level searches, made longer when
    a deeper search comes) and reused by every later search given this Memory. The
    table is emptied when the rules change: the same stones score differently in Kalah and
    Basic (and with other capture rules), and early positions of the two variants hash
    alike. A Search given a Memory that a newer Search has taken stops at its next step()
    with its best move so far (and stopped set)."""

    def __init__(self):
        self.keys = None  # the table: keys and packed entries, array('i') each
        self.data = None
        self.rules = None
        self.shape = None
        self.plies = 0  # how deep a search the per-ply arrays hold
        self.board = None  # the last SearchBoard: its undo snapshots are reused
        self.owner = None

    def clear(self):
        """Forget what the table learned (so that a search does not depend on the last)."""
        keys = self.keys
        data = self.data
        if keys is not None and data is not None:
            for a in (keys, data):
                for i in range(len(a)):
                    a[i] = 0

    def table(self, rules):
        from array import array
        size = 1 << TT_BITS
        r = (rules.variant, rules.players, rules.pits, rules.capture, rules.wipeout_capture,
             rules.play_all_places)
        if self.keys is None or r != self.rules:
            # New zero keys, made in C (a Python loop over the entries took ~200 ms of the
            # move's budget on the Pico); the entries behind them are never read then.
            self.keys = None
            self.keys = array("i", bytearray(4 * size))
            if self.data is None:
                self.data = array("i", bytearray(4 * size))
            self.rules = r
        return self.keys, self.data

    def arrays(self, game, plies):
        """The per-ply arrays for this board shape, one entry per ply of a search up to
        plies deep: allocated at the first search, longer for a deeper one (a level-5 hint
        after a level-3 seat's moves), kept for a shallower one, reused after."""
        shape = (game.players, game.pits)
        if self.shape == shape and self.plies >= plies:
            return
        self.shape = None
        self.board = None  # let the old arrays go before the new ones are made
        n = game.pits
        m = plies
        self.mv = [bytearray(n) for _ in range(m)]   # each ply's moves, best first
        self.sc = [[0] * n for _ in range(m)]        # and their ordering scores
        self.cnt = bytearray(m)                      # how many moves
        self.idx = bytearray(m)                      # the next move to try
        self.dep = [0] * m                           # depth left, in half plies
        self.alpha = [0] * m
        self.beta = [0] * m
        self.alpha0 = [0] * m                        # alpha on entry (the table's bound)
        self.bestv = [0] * m
        self.bestm = bytearray(m)
        self.pov = bytearray(m)                      # the team whose view a value is in
        self.key = [0] * m                           # table key of the node
        self.killer = bytearray(m)
        self.hist = [0] * 32                         # history counter by (seat, pit)
        self.lazy = bytearray(m)                     # only the table's move listed so far
        self.nw = bytearray(m)                       # 1: on a null window, 2: searched again
        self.plies = m
        self.shape = shape


class Rng:
    """A small xorshift generator (30-bit), the same sequence on both runtimes."""

    def __init__(self, seed):
        self.x = (seed * 7919 + 1) & 0x3FFFFFFF or 1

    def below(self, n):
        # Masked before the shift, not after: (x << 7) & 0x3FFFFFFF is the same number, but
        # x << 7 would be past the board's small ints (31 bits) and allocate a long on
        # each call.
        x = self.x
        x ^= (x & 0x7FFFFF) << 7
        x ^= x >> 9
        x ^= (x & 0x3FFFFF) << 8
        self.x = x
        return x % n


class Search:
    """One move choice. step(slice_ms) works for about slice_ms and returns True when done;
    best is a legal pit from the start. Attributes for tests and benches: depth (deepest
    finished iteration), nodes, score, timed_out, stopped.

    memory: a Memory to work in (default: a new one for this search).
    started: the ticks_ms() the budget counts from (default: now); a caller that loaded this
    module or made the Memory for this move passes the time it began.
    best_reply: in 3-4 player games, after a rival's move the root moves again, so that only
    the next rival replies to each of its moves, with its own first move by the move ordering
    (docs/cpu.md section 6); False searches the real turn order, every rival minimizing the
    root's score.
    endgame: a mancala.endgame.Table, or None (the caller chooses: the app gives one to
    level 5 and to the hint). When it covers the position, the search is done at once: best
    is a pit that keeps the exact value (of several, the one nearest the store), exact that
    value (the final store difference with perfect play, for the seat to move) and
    exact_pits every pit that keeps it, ascending; otherwise both are None and the search
    runs."""

    def __init__(self, game, level=5, budget_ms=1000, seed=None, max_nodes=0, memory=None,
                 best_reply=True, started=None, endgame=None):
        if isinstance(level, bool) or level not in LEVELS:
            raise ValueError("level must be 1, 2, 3, 4 or 5, got %r" % (level,))
        if game.over:
            raise ValueError("the game is over: there is no move to choose")
        self.started = ticks_ms() if started is None else started
        maxd, self.noise, rnd, use_tt = \
            LEVELS[level] if game.kalah or level not in BASIC_LEVELS else BASIC_LEVELS[level]
        # The clock is read every 4 nodes (~2 ms on the Pico) and the last step() returns
        # after that: stopping 1/25 of the budget early keeps the whole call inside it, with
        # room for a garbage collection of the app's heap in the last slice.
        self.deadline = ticks_add(self.started, budget_ms - budget_ms // 25)
        self.max_nodes = max_nodes
        moves = game.legal_moves()
        self.best = moves[0]
        self.score = 0
        self.depth = 0
        self.nodes = 0
        self.paused = 0  # run() stopped before a node it has counted (negamax.py)
        self.halt = 0  # pause() asks the running slice to return (run() reads it)
        self.perft = False  # True only to count lines (tests/mp/perft.py)
        self.timed_out = False
        self.stopped = False
        self.done = False
        self.exact = None
        self.exact_pits = None
        if endgame is not None:
            found = endgame.exact(game)
            if found is not None:
                self.exact, self.exact_pits, _ = found
                self.best = self.exact_pits[-1]
                self.score = self.exact
                self.done = True
                return
        rng = Rng(self.started if seed is None else seed)
        self.noise_salt = rng.below(256)
        self.maxd = maxd
        if len(moves) == 1 or rng.below(100) < rnd:
            self.best = moves[rng.below(len(moves))]
            self.done = True
            return
        if memory is None:
            memory = Memory()
        self.memory = memory
        self.tt = memory.table(game.rules) if use_tt else None
        self.tmask = (1 << TT_BITS) - 1
        self.root = root = game.turn
        p = game.players
        self.skip = best_reply and p > 2
        self.salt = 0 if p == 2 else _ROOT_SALT[root] ^ (0 if self.skip else _REAL_TURNS)
        self.team = bytes([0 if s == root else 1 for s in range(p)])
        memory.owner = self
        memory.arrays(game, maxd)
        self.bd = memory.board = SearchBoard(game, maxd, memory.board)
        m = memory
        (self.mv, self.sc, self.cnt, self.idx, self.dep, self.alpha, self.beta, self.alpha0,
         self.bestv, self.bestm, self.pov, self.key, self.killer, self.hist, self.lazy,
         self.nw) = (m.mv, m.sc, m.cnt, m.idx, m.dep, m.alpha, m.beta, m.alpha0, m.bestv,
                     m.bestm, m.pov, m.key, m.killer, m.hist, m.lazy, m.nw)
        for i in range(len(self.killer)):
            self.killer[i] = 0
            self.lazy[i] = 0
            self.nw[i] = 0
        for i in range(32):
            self.hist[i] = 0
        self.bestv[0] = -INF
        self.iter = 0
        # Basic 2p, deeper than 2 plies (levels 4-5): even depths only.
        self.step_plies = BASIC_STEP if not game.kalah and p == 2 and maxd > 2 else 1
        self._new_iteration()

    def _new_iteration(self):
        self.iter += self.step_plies
        self.dep[0] = 2 * self.iter
        self.alpha[0] = -INF
        self.beta[0] = INF
        self.pov[0] = 0
        self.d = 0
        self.state = 0
        self.val = 0
        # The root is entered here: the previous iteration's best move first (the table's
        # move for it when there is one).
        t = self.root
        ttm = self.best if self.iter > 1 else 0
        if self.tt:
            key = (self.bd.h + RT[t]) ^ self.salt
            self.key[0] = key
            if self.tt[0][key & self.tmask] == key:
                ttm = self.tt[1][key & self.tmask] & 7 or ttm
        self.idx[0] = 0
        self.bestv[0] = -INF
        self.bestm[0] = 0
        self.alpha0[0] = -INF
        self.lazy[0] = 0
        order(self, 0, t, ttm)

    def step(self, slice_ms=15):
        """Search for about slice_ms (never past the deadline); True when best is final."""
        if self.done:
            return True
        if self.memory.owner is not self:
            # A newer Search took over the memory: keep the best move found so far.
            self.timed_out = self.stopped = self.done = True
            return True
        self.halt = 0
        now = ticks_ms()
        stop = ticks_add(now, slice_ms)
        if ticks_diff(self.deadline, stop) < 0:
            stop = self.deadline
        while not self.done:
            if run(self, stop):
                self._finish_iteration()
                continue
            if ticks_diff(self.deadline, ticks_ms()) <= 0 or \
                    (self.max_nodes and self.nodes >= self.max_nodes):
                self.timed_out = True
                self._stop_partial()
                self.done = True
            break
        return self.done

    def pause(self):
        """Ends the running step() early: it returns False at its next look at the clock
        (within 4 nodes), and the next step() resumes the search where it stopped, node for
        node. Only sets a flag, so a pin interrupt's scheduled callback may call it while
        step() runs; without a running step() it does nothing."""
        self.halt = 1

    def _stop_partial(self):
        # The first root move of an iteration is the previous best; a move that has beaten
        # it in the unfinished iteration is the better choice.
        v = self.bestv[0]
        m = self.bestm[0]
        if m and v > -INF and (self.depth == 0 or v > self.score):
            self.best = m

    def run(self):
        while not self.step(1000):
            pass
        return self.best

    def _finish_iteration(self):
        self.best = self.bestm[0]
        self.score = self.bestv[0]
        self.depth = self.iter
        if self.iter >= self.maxd or self.score >= WIN - 100 or self.score <= 100 - WIN:
            self.done = True
        else:
            self._new_iteration()


def choose_move(game, level=5, budget_ms=1000, seed=None, max_nodes=0, memory=None,
                endgame=None):
    """A legal pit for game.turn, chosen within about budget_ms; game is not changed.
    seed makes the levels' mistakes reproducible; max_nodes caps the work (tests, benches);
    memory, a Memory kept between moves (default: a new one); endgame, a table that plays
    the positions it covers exactly (Search)."""
    return Search(game, level, budget_ms, seed, max_nodes, memory, endgame=endgame).run()
