"""The CPU player: choose a pit for the seat to move, at level 1 (beginner) to 5 (strongest).

    from mancala.cpu import choose_move, Search
    pit = choose_move(game, level=5, budget_ms=1000)      # blocking, never changes game
    s = Search(game, level=5, budget_ms=1000)             # the same search in slices:
    while not s.step(15):                                 # ~15 ms of work per call, so the
        poll_pads(); draw_leds()                          # app stays live between slices
    pit = s.best

The search is an alpha-beta with null windows (PVS; negamax over two "teams": the root seat,
and everyone else, which is the paranoid search for 3-4 player Basic, there on best-reply
turns) with iterative deepening, a deadline, move ordering and a transposition table. It runs
on an explicit stack, not recursion, so it can stop after any node and resume in the next
step(). docs/cpu.md explains the choices.
"""

from mancala.searchboard import SearchBoard, RT
from mancala.evaluate import WIN, INF
from mancala.negamax import run, order

try:
    from time import ticks_ms, ticks_diff, ticks_add
except ImportError:  # CPython
    import time

    def ticks_ms():
        return int(time.monotonic() * 1000) & 0x3FFFFFFF

    def ticks_diff(a, b):
        return ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000

    def ticks_add(a, d):
        return (a + d) & 0x3FFFFFFF

MAX_PLY = 32
# Depth is counted in half plies: a move costs 2, an extra move (same seat again) costs
# EXTRA_COST, so chains of extra moves are searched deeper, as a person would read them.
EXTRA_COST = 2
# In 3-4 player games a rival's move costs RIVAL_COST half plies, so that the root still
# sees its own next move behind a round of rivals' replies.
RIVAL_COST = 2
BASIC_STEP = 2
# 1024 entries x 2 int32 arrays = 8 KB. A move searches ~2000 nodes on an RP2040, so 2048
# entries bought nothing measurable (bench/cpu.py, 200 games each: Kalah 83.5% with 2048,
# 84.8% with 1024, 81.2% with 512; Basic 2p 95.0% / 97.0%) and cost 8 KB of the heap.
TT_BITS = 10

# level: (max depth, leaf noise amplitude, percent of random moves, transposition table,
# percent of the budget used). With the fitted evaluations a small search is nearly as strong
# as a long one, so levels 3-4 are fixed depths of 2 and 4 plies, which keep the levels
# apart (measured, docs/cpu.md section 2); in Basic level 2 plays 30% random moves.
LEVELS = {1: (1, 32, 70, False, 100), 2: (1, 0, 10, False, 100), 3: (2, 0, 0, False, 100),
          4: (4, 0, 0, False, 100), 5: (MAX_PLY - 2, 0, 0, True, 100)}
BASIC_LEVELS = {2: (1, 0, 30, False, 100)}

_tt = None
_tt_rules = None
_work = None
_owner = None  # the one Search that may use the shared arrays
# Multi-player values are relative to the root seat (paranoid), so each root seat keys its
# own entries; two-player values are relative to the seat to move and stay valid from one
# move to the next, which is most of the table's gain.
_ROOT_SALT = (0x15A5A5A5, 0x0C3C3C3C, 0x1F0F0F0F, 0x06969696)


def _table(rules):
    """The transposition table, emptied when the rules change: the same stones score
    differently in Kalah and Basic (and with other capture rules), and early positions of
    the two variants hash alike."""
    global _tt, _tt_rules
    from array import array
    size = 1 << TT_BITS
    if _tt is None:
        _tt = (array("i", bytearray(4 * size)), array("i", bytearray(4 * size)))
    r = (rules.variant, rules.players, rules.pits, rules.capture, rules.wipeout_capture,
         rules.play_all_places)
    if r != _tt_rules:
        # New zero keys, made in C (a Python loop over the entries took ~200 ms of the
        # move's budget on the Pico); the values behind them are never read then.
        _tt = (None, _tt[1])
        _tt = (array("i", bytearray(4 * size)), _tt[1])
        _tt_rules = r
    return _tt


def clear_table():
    """Forget the transposition table (tests use it to make searches independent)."""
    if _tt is not None:
        for a in _tt:
            for i in range(len(a)):
                a[i] = 0


def _workspace(game):
    """The per-ply arrays, allocated once per board shape and reused by later searches."""
    global _work
    shape = (game.players, game.pits)
    if _work is None or _work[0] != shape:
        _work = None  # let the old arrays go before the new ones are made
        n = game.pits
        m = MAX_PLY + 1
        _work = (shape, None, [bytearray(n) for _ in range(m)], [[0] * n for _ in range(m)],
                 bytearray(m), bytearray(m), [0] * m, [0] * m, [0] * m, [0] * m, [0] * m,
                 bytearray(m), bytearray(m), [0] * m, bytearray(m), [0] * 32, bytearray(m),
                 bytearray(m))
    return _work


class Rng:
    """A small xorshift generator (30-bit), the same sequence on both runtimes."""

    def __init__(self, seed):
        self.x = (seed * 7919 + 1) & 0x3FFFFFFF or 1

    def below(self, n):
        x = self.x
        x ^= (x << 7) & 0x3FFFFFFF
        x ^= x >> 9
        x ^= (x << 8) & 0x3FFFFFFF
        self.x = x
        return x % n


class Search:
    """One move choice. step(slice_ms) works for about slice_ms and returns True when done;
    best is a legal pit from the start. Attributes for tests and benches: depth (deepest
    finished iteration), nodes, score, timed_out."""

    def __init__(self, game, level=5, budget_ms=1000, seed=None, max_nodes=0):
        global _work, _owner
        if isinstance(level, bool) or level not in LEVELS:
            raise ValueError("level must be 1, 2, 3, 4 or 5, got %r" % (level,))
        if game.over:
            raise ValueError("the game is over: there is no move to choose")
        self.started = ticks_ms()
        maxd, self.noise, rnd, use_tt, share = \
            LEVELS[level] if game.kalah or level not in BASIC_LEVELS else BASIC_LEVELS[level]
        budget_ms = budget_ms * share // 100
        if max_nodes:
            max_nodes = max(1, max_nodes * share // 100)
        # The clock is read every 4 nodes (~2 ms on the Pico) and the last step() returns
        # after that: stopping 1/25 of the budget early keeps the whole call inside it.
        self.deadline = ticks_add(self.started, budget_ms - budget_ms // 25)
        self.max_nodes = max_nodes
        moves = game.legal_moves()
        self.best = moves[0]
        self.score = 0
        self.depth = 0
        self.nodes = 0
        self.timed_out = False
        self.done = False
        rng = Rng(self.started if seed is None else seed)
        self.noise_salt = rng.below(256)
        self.maxd = maxd
        if len(moves) == 1 or rng.below(100) < rnd:
            self.best = moves[rng.below(len(moves))]
            self.done = True
            return
        self.tt = _table(game.rules) if use_tt else None
        self.tmask = (1 << TT_BITS) - 1
        self.extra_cost = EXTRA_COST
        self.rival_cost = 2 if game.players == 2 else RIVAL_COST
        self.root = root = game.turn
        p = game.players
        self.salt = 0 if p == 2 else _ROOT_SALT[root]
        self.team = bytes([0 if s == root else 1 for s in range(p)])
        _owner = self
        w = _workspace(game)
        self.bd = SearchBoard(game, MAX_PLY, w[1])
        _work = w[:1] + (self.bd,) + w[2:]
        (self.mv, self.sc, self.cnt, self.idx, self.dep, self.alpha, self.beta, self.alpha0,
         self.bestv, self.bestm, self.pov, self.key, self.killer, self.hist, self.lazy,
         self.nw) = w[2:]
        for i in range(MAX_PLY + 1):
            self.killer[i] = 0
            self.lazy[i] = 0
            self.nw[i] = 0
        for i in range(32):
            self.hist[i] = 0
        self.bestv[0] = -INF
        self.iter = 0
        # Basic 2p, deeper than 2 plies (levels 4-5): even depths only, so that an iteration
        # never ends on the root's own move (an odd depth in a race flatters the seat that
        # moves last).
        full = not game.kalah and p == 2 and maxd > 2 and share == 100
        self.step_plies = BASIC_STEP if full else 1
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
        if _owner is not self:
            # A newer Search took over the shared arrays: keep the best move found so far.
            self.timed_out = self.done = True
            return True
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


def choose_move(game, level=5, budget_ms=1000, seed=None, max_nodes=0):
    """A legal pit for game.turn, chosen within about budget_ms; game is not changed.
    seed makes the levels' mistakes reproducible; max_nodes caps the work (tests, benches)."""
    return Search(game, level, budget_ms, seed, max_nodes).run()
