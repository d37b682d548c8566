"""The CPU player: choose a pit for the seat to move, at level 1 (beginner) to 5 (strongest).

    from mancala.cpu import choose_move, Search
    pit = choose_move(game, level=5, budget_ms=1000)      # blocking, never changes game
    s = Search(game, level=5, budget_ms=1000)             # the same search in slices:
    while not s.step(15):                                 # ~15 ms of work per call, so the
        poll_pads(); draw_leds()                          # app stays live between slices
    pit = s.best

The search is an alpha-beta (negamax over two "teams": the root seat, and everyone else, which
is the paranoid search for 3-4 player Basic) with iterative deepening, a deadline, move
ordering and a transposition table. It runs on an explicit stack, not recursion, so it can stop
after any node and resume in the next step(). docs/cpu.md explains the choices.
"""

from mancala.searchboard import SearchBoard, RT
from mancala.evaluate import WIN, INF, KALAH_STORE, KALAH_SIDE, terminal, static

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
TT_BITS = 11  # 2048 entries x 2 int32 arrays = 16 KB
_EXACT = 0
_LOWER = 1
_UPPER = 2
_ENTER = 0
_NEXT = 1
_RET = 2
_BIAS = 32768

# level: (max depth, leaf noise amplitude, percent of random moves, transposition table)
LEVELS = {1: (1, 32, 70, False), 2: (1, 0, 10, False), 3: (3, 0, 0, False),
          4: (5, 0, 0, False), 5: (MAX_PLY - 2, 0, 0, True)}

_tt = None
_work = None
_owner = None  # the one Search that may use the shared arrays
# Multi-player values are relative to the root seat (paranoid), so each root seat keys its
# own entries; two-player values are relative to the seat to move and stay valid from one
# move to the next, which is most of the table's gain.
_ROOT_SALT = (0x15A5A5A5, 0x0C3C3C3C, 0x1F0F0F0F, 0x06969696)
# Leaf noise values in -64..63, indexed by a position's hash, so a position keeps its noise
# within one search and alpha-beta stays consistent.
_NOISE = bytes([(i * 73 + 41) * 157 % 128 for i in range(256)])


def _table():
    global _tt
    if _tt is None:
        from array import array
        size = 1 << TT_BITS
        _tt = (array("i", bytearray(4 * size)), array("i", bytearray(4 * size)))
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
                 bytearray(m), bytearray(m), [0] * m, bytearray(m), [0] * 32)
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
        self.deadline = ticks_add(self.started, budget_ms)
        self.max_nodes = max_nodes
        moves = game.legal_moves()
        self.best = moves[0]
        self.score = 0
        self.depth = 0
        self.nodes = 0
        self.timed_out = False
        self.done = False
        rng = Rng(self.started if seed is None else seed)
        maxd, self.noise, rnd, use_tt = LEVELS[level]
        self.noise_salt = rng.below(256)
        self.maxd = maxd
        if len(moves) == 1 or rng.below(100) < rnd:
            self.best = moves[rng.below(len(moves))]
            self.done = True
            return
        self.tt = _table() if use_tt else None
        self.root = root = game.turn
        p = game.players
        self.salt = 0 if p == 2 else _ROOT_SALT[root]
        self.team = bytes([0 if s == root else 1 for s in range(p)])
        _owner = self
        w = _workspace(game)
        self.bd = SearchBoard(game, MAX_PLY, w[1])
        _work = w[:1] + (self.bd,) + w[2:]
        (self.mv, self.sc, self.cnt, self.idx, self.dep, self.alpha, self.beta, self.alpha0,
         self.bestv, self.bestm, self.pov, self.key, self.killer, self.hist) = w[2:]
        for i in range(MAX_PLY + 1):
            self.killer[i] = 0
        for i in range(32):
            self.hist[i] = 0
        self.bestv[0] = -INF
        self.iter = 0
        self._new_iteration()

    def _new_iteration(self):
        self.iter += 1
        self.dep[0] = 2 * self.iter
        self.alpha[0] = -INF
        self.beta[0] = INF
        self.pov[0] = 0
        self.d = 0
        self.state = _ENTER
        self.val = 0

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
            if self._run(stop):
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

    def _run(self, stop):
        """Searches until the current iteration ends (True) or until stop or the node limit
        (False); all state lives in the per-ply arrays, so the next call resumes here."""
        bd = self.bd
        b = bd.b
        z = bd.size
        team = self.team
        root = self.root
        mv = self.mv
        sc = self.sc
        cnt = self.cnt
        idx = self.idx
        dep = self.dep
        alpha = self.alpha
        beta = self.beta
        alpha0 = self.alpha0
        bestv = self.bestv
        bestm = self.bestm
        pov = self.pov
        keys = self.key
        killer = self.killer
        hist = self.hist
        tt = self.tt
        tkey = tdat = None
        tmask = (1 << TT_BITS) - 1
        if tt:
            tkey, tdat = tt
        salt = self.salt
        noise = self.noise
        nsalt = self.noise_salt
        kalah = bd.kalah
        n = bd.pits
        w = n + 1
        loop = 2 * n + 1
        nonempty_only = bd.nonempty_only
        st_r = root * w + n
        st_o = (1 - root) * w + n
        sd_r = z + root
        sd_o = z + 1 - root
        half = bd.total // 2
        max_nodes = self.max_nodes
        sturn = bd.sturn
        extra = EXTRA_COST
        rival = 2 if bd.players == 2 else RIVAL_COST
        last = MAX_PLY - 1
        nodes = self.nodes
        d = self.d
        state = self.state
        val = self.val
        while True:
            if state == _ENTER:
                nodes += 1
                if not nodes & 31:
                    if ticks_diff(stop, ticks_ms()) <= 0 or (max_nodes and nodes >= max_nodes):
                        self.nodes = nodes
                        self.d = d
                        self.state = state
                        return False
                t = bd.turn
                if t is None or (not kalah and bd.places[root] is not None):
                    v = terminal(bd, root, d)
                    val = v if pov[d] == 0 else -v
                    state = _RET
                    continue
                if kalah:
                    # Inline Kalah scoring: a store past half the seeds has won.
                    sa = b[st_r]
                    sb = b[st_o]
                    if d and (sa > half or sb > half):
                        v = (WIN if sa > sb else -WIN) + sa - sb
                        val = v if pov[d] == 0 else -v
                        state = _RET
                        continue
                    if dep[d] <= 0 or d >= last:
                        v = KALAH_STORE * (sa - sb) + KALAH_SIDE * (b[sd_r] - b[sd_o])
                        if noise:
                            v += ((_NOISE[(bd.h ^ nsalt) & 255] - 64) * noise) >> 6
                        val = v if pov[d] == 0 else -v
                        state = _RET
                        continue
                elif dep[d] <= 0 or d >= last:
                    v = static(bd, root)
                    if noise:
                        v += ((_NOISE[(bd.h ^ nsalt) & 255] - 64) * noise) >> 6
                    val = v if pov[d] == 0 else -v
                    state = _RET
                    continue
                ttm = 0
                if tt:
                    key = (bd.h + RT[t]) ^ salt
                    keys[d] = key
                    slot = key & tmask
                    if tkey[slot] == key:
                        data = tdat[slot]
                        ttm = data & 7
                        if d and (data >> 5) & 63 >= dep[d]:
                            tv = (data >> 11) - _BIAS
                            flag = (data >> 3) & 3
                            if flag == _EXACT or (flag == _LOWER and tv >= beta[d]) or \
                                    (flag == _UPPER and tv <= alpha[d]):
                                val = tv
                                state = _RET
                                continue
                # Move ordering: table move, finishing moves (Basic), extra moves, captures
                # (Kalah) or stones shed (Basic), killer; insertion sort into this ply's list.
                base = t * w
                ml = mv[d]
                sl = sc[d]
                kl = killer[d]
                c = 0
                if not kalah:
                    mask = bd.mask
                    active = (mask & 1) + ((mask >> 1) & 1) + ((mask >> 2) & 1) + (mask >> 3)
                    room = active * w - n
                    mine = b[z + t]
                for p in range(n):
                    k = b[base + p]
                    if not k:
                        continue
                    pit = p + 1
                    dist = n - p
                    if pit == ttm:
                        s = 1000
                    elif kalah:
                        if k == dist or (k > dist and (k - dist) % loop == 0):
                            s = 200 + p
                        else:
                            s = hist[t * 8 + p]
                            if s > 99:
                                s = 99
                            r = (p + k) % loop
                            if r < n and k <= loop and (r == p or not b[base + r]):
                                cap = b[(1 - t) * w + n - 1 - r]
                                if cap or not nonempty_only:
                                    s = 100 + cap
                    else:
                        if k == mine and p == n - 1 and k <= room:
                            s = 2000
                        elif k >= dist and (k - dist) % w == 0:
                            s = 200 + p
                        else:
                            s = k - dist + 1 if k >= dist else 0
                    if pit == kl:
                        s += 50
                    j = c
                    while j and sl[j - 1] < s:
                        ml[j] = ml[j - 1]
                        sl[j] = sl[j - 1]
                        j -= 1
                    ml[j] = pit
                    sl[j] = s
                    c += 1
                cnt[d] = c
                idx[d] = 0
                bestv[d] = -INF
                bestm[d] = 0
                alpha0[d] = alpha[d]
                state = _NEXT
            elif state == _NEXT:
                i = idx[d]
                if i == cnt[d]:
                    val = bestv[d]
                    if tt:
                        key = keys[d]
                        slot = key & tmask
                        tkey[slot] = key
                        tdat[slot] = ((val + _BIAS) << 11) | (dep[d] << 5) | \
                            ((_UPPER if val <= alpha0[d] else _EXACT) << 3) | bestm[d]
                    if not d:
                        self.nodes = nodes
                        self._finish_iteration()
                        return True
                    state = _RET
                    continue
                m = mv[d][i]
                idx[d] = i + 1
                bd.make(m, d)
                c = d + 1
                nt = bd.turn
                mover = sturn[d]
                dep[c] = dep[d] - (extra if nt == mover else (2 if mover == root else rival))
                pc = pov[d] if nt is None else team[nt]
                pov[c] = pc
                if pc == pov[d]:
                    alpha[c] = alpha[d]
                    beta[c] = beta[d]
                else:
                    alpha[c] = -beta[d]
                    beta[c] = -alpha[d]
                d = c
                state = _ENTER
            else:
                pd = d - 1
                v = val if pov[d] == pov[pd] else -val
                bd.unmake(pd)
                d = pd
                if v > bestv[d]:
                    bestv[d] = v
                    bestm[d] = mv[d][idx[d] - 1]
                    if v > alpha[d]:
                        alpha[d] = v
                        if v >= beta[d]:
                            killer[d] = bestm[d]
                            hist[bd.turn * 8 + bestm[d] - 1] += dep[d]
                            if tt:
                                key = keys[d]
                                slot = key & tmask
                                tkey[slot] = key
                                tdat[slot] = ((v + _BIAS) << 11) | (dep[d] << 5) | \
                                    (_LOWER << 3) | bestm[d]
                            val = v
                            state = _RET
                            continue
                state = _NEXT


def choose_move(game, level=5, budget_ms=1000, seed=None, max_nodes=0):
    """A legal pit for game.turn, chosen within about budget_ms; game is not changed.
    seed makes the levels' mistakes reproducible; max_nodes caps the work (tests, benches)."""
    return Search(game, level, budget_ms, seed, max_nodes).run()
