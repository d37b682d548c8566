"""The CPU's search loop: alpha-beta over two teams on an explicit stack, one function.

run(s, stop) searches for the Search object s (cpu.py) until its current iteration ends
(returns True) or until the ticks_ms deadline stop, s.max_nodes or s.halt (Search.pause())
(returns False). All the state lives in s's per-ply arrays, so the next call resumes where
this one stopped.

Written for speed on MicroPython, where every attribute lookup and call costs bytecode:
- make and unmake are inlined (only the rare paths, a Basic seat finishing and the Kalah end
  sweep, are calls); tests/test_perft.py checks this sowing against the engine's, node for
  node;
- leaves are scored right after their move is made, without entering them as nodes;
- everything the loop touches is a local; constants are const();
- run() is native code on MicroPython (its decorator; ~35% more nodes a second on the
  Pico); on CPython the decorator does nothing, and CircuitPython, which has no native
  emitter, gets the file without it (host_tools' circuitpy.without_native).
"""

from mancala.searchboard import R, RT
from mancala.evaluate import WIN, INF, KALAH_STORE, BASIC_LEFT, terminal, static, \
    _KALAH_VALUE, _PIT_VALUE, _PIT_BIAS

try:
    import micropython
except ImportError:  # CPython
    class micropython:  # type: ignore[no-redef]  # CPython's stand-in for the module
        native = staticmethod(lambda f: f)  # the decorator leaves the function as it is

from mpcompat import const, ticks_ms, ticks_diff

_EXACT = const(0)
_LOWER = const(1)
_UPPER = const(2)
_NEXT = const(0)  # try the next move of node d (or close node d)
_RET = const(1)   # the move made at ply d returned the value v (d's point of view)
_BIAS = const(32768)
_PLY = const(2)  # depth is counted in half plies; every move costs 2
_CHECK = const(3)  # look at the clock every 4 nodes (~2 ms on the Pico)
# Leaf noise values in -64..63, indexed by a position's hash, so a position keeps its noise
# within one search and alpha-beta stays consistent.
# What a search without the transposition table (levels 1-4) holds for it: never read.
_NO_TABLE = bytearray(0)
_NOISE = bytes([(i * 73 + 41) * 157 % 128 for i in range(256)])


def copy(dst, src):
    # Bytecode on purpose: the VM assigns a slice without allocating, native code allocates
    # a slice object for each.
    dst[:] = src


@micropython.native
def run(s, stop):
    bd = s.bd
    b = bd.b
    z = bd.size
    cp = copy
    own = bd.own
    team = s.team
    root = s.root
    mv = s.mv
    sc = s.sc
    cnt = s.cnt
    idx = s.idx
    dep = s.dep
    alpha = s.alpha
    beta = s.beta
    alpha0 = s.alpha0
    bestv = s.bestv
    bestm = s.bestm
    pov = s.pov
    keys = s.key
    killer = s.killer
    hist = s.hist
    lazy = s.lazy
    nw = s.nw
    tt = s.tt
    tkey = tdat = _NO_TABLE  # read only under `if tt`
    tmask = s.tmask
    if tt:
        tkey, tdat = tt
    salt = s.salt
    noise = s.noise
    nsalt = s.noise_salt
    kalah = bd.kalah
    n = bd.pits
    w = n + 1
    nonempty_only = bd.nonempty_only
    wipeout = bd.wipeout
    st_r = root * w + n
    st_o = (1 - root) * w + n
    sink = z + bd.players
    # s.perft: count every line as the rules play it (tests/mp/perft.py), without the
    # search's shortcuts below (a store past half has won, the root seat out of a Basic game).
    perft = s.perft
    half = 255 if perft else bd.total // 2
    max_nodes = s.max_nodes
    sb = bd.sb
    sh = bd.sh
    sturn = bd.sturn
    srare = bd.srare
    ktab = _KALAH_VALUE
    ptab = _PIT_VALUE
    pbias = _PIT_BIAS
    half_win = WIN // 2
    left = BASIC_LEFT
    players = bd.players
    table = not kalah and players == 2 and n == 6
    race = not kalah and players > 2
    allseats = (1 << players) - 1
    skip = s.skip
    last = len(dep)  # a ply the arrays have no entry for is a leaf
    nxt = bd.nxt
    nseat = bd.nseat
    places = bd.places
    h = bd.h
    t = bd.turn
    nodes = s.nodes
    # A search stopped by the clock resumes at the node it was about to search: that node
    # was counted then, and the clock is not read again before it is searched.
    resumed = -1
    if s.paused:
        s.paused = 0
        resumed = nodes
        nodes -= 1
    d = s.d
    state = s.state
    v = s.val
    while True:
        if state == _NEXT:
            i = idx[d]
            if i == cnt[d] and lazy[d]:
                # Only the table's move was tried so far (it did not cut off): now the rest.
                lazy[d] = 0
                order(s, d, t, mv[d][0])
                i = 1
                idx[d] = 1
            if i == cnt[d]:
                # Node d is done: its value is bestv[d].
                v = bestv[d]
                if tt:
                    key = keys[d]
                    tkey[key & tmask] = key
                    tdat[key & tmask] = ((v + _BIAS) << 11) | (dep[d] << 5) | \
                        ((_UPPER if v <= alpha0[d] else _EXACT) << 3) | bestm[d]
                if not d:
                    s.nodes = nodes
                    bd.h = h
                    bd.turn = t
                    return True
                if pov[d] != pov[d - 1]:
                    v = -v
                d -= 1
                state = _RET
                continue
            nodes += 1
            if not nodes & _CHECK and nodes != resumed:
                if s.halt or ticks_diff(stop, ticks_ms()) <= 0 or \
                        (max_nodes and nodes >= max_nodes):
                    s.nodes = nodes
                    s.paused = 1
                    s.d = d
                    s.state = state
                    bd.h = h
                    bd.turn = t
                    return False
            m = mv[d][i]
            idx[d] = i + 1
            # 2: this move failed high on a null window and is searched again in full.
            full = nw[d]
            nw[d] = 0
            # make: snapshot, then sow
            cp(sb[d], b)
            sh[d] = h
            sturn[d] = t
            mover = t
            j = t * w + m - 1
            k = b[j]
            b[j] = 0
            b[z + t] -= k
            h -= k * R[j]
            nx = nxt[t]
            while k:
                j = nx[j]
                b[j] += 1
                b[own[j]] += 1
                h += R[j]
                k -= 1
            if kalah:
                o = 1 - t
                if j != t * w + n:
                    if b[j] == 1 and own[j] == z + t:
                        opp = o * w + (n - 1) - (j - t * w)
                        k = b[opp]
                        if (k or not nonempty_only) and (wipeout or b[z + o] > k):
                            b[t * w + n] += k + 1
                            b[opp] = 0
                            b[j] = 0
                            b[z + o] -= k
                            b[z + t] -= 1
                            h += (k + 1) * R[t * w + n] - k * R[opp] - R[j]
                    t = o
                if not b[z] or not b[z + 1]:
                    bd.h = h
                    bd.turn = t
                    bd.save_rare(d)
                    bd.kalah_end()
                    t = None
            elif not b[z + mover]:
                bd.h = h
                bd.turn = t
                bd.save_rare(d)
                bd.finish(mover)
                h = bd.h
                t = bd.turn
                nxt = bd.nxt
                nseat = bd.nseat
            elif own[j] != sink:
                t = root if skip and mover != root else nseat[mover]
            c = d + 1
            dc = dep[d] - _PLY
            # Leaves: scored here, from the root's view, then handed back to d.
            if t is None or (not kalah and places[root] and not perft):
                v = terminal(bd, root, c)
            elif kalah and (b[st_r] > half or b[st_o] > half):
                # A store past half the seeds has won.
                v = (WIN if b[st_r] > b[st_o] else -WIN) + b[st_r] - b[st_o]
            elif dc <= 0 or c >= last:
                if kalah:
                    v = KALAH_STORE * (b[st_r] - b[st_o])
                    # The pits' worth to the seat to move (evaluate.kalah_table).
                    base = t * w
                    ob = (1 - t) * w
                    g = -1536
                    for p in range(n):
                        k = b[base + p]
                        g += ktab[12 * p + (k if k < 12 else 11)]
                        k = b[ob + p]
                        g += ktab[72 + 12 * p + (k if k < 12 else 11)]
                    v += g if t == root else -g
                elif table:
                    # Basic 2p, 6 pits: the fitted table (evaluate.static, inlined).
                    base = t * w
                    ob = (1 - t) * w
                    k = b[z + t]
                    if k == b[base + 5] and k < 9:
                        g = half_win  # all in the last pit: the next move finishes
                    else:
                        g = pbias
                        for p in range(6):
                            k = b[base + p]
                            g += ptab[10 * p + (k if k < 10 else 9)]
                            k = b[ob + p]
                            g += ptab[60 + 10 * p + (k if k < 10 else 9)]
                    v = g if t == root else -g
                elif race and bd.mask == allseats:
                    # Basic, 3-4 players, nobody finished yet (evaluate.static, inlined):
                    # the stones left against the nearest rival's.
                    g = 255
                    for p in range(players):
                        k = b[z + p]
                        if p != root and k < g:
                            g = k
                    v = left * (g - b[z + root])
                else:
                    v = static(bd, root, t)
                if noise:
                    v += ((_NOISE[(h ^ nsalt) & 255] - 64) * noise) >> 6
            else:
                # An inner node: enter it.
                pc = team[t]
                pov[c] = pc
                dep[c] = dc
                a = alpha[d]
                k = beta[d]
                if i and full != 2 and k - a > 1:
                    # PVS: after the first move, only prove that a move is no better than
                    # alpha (a null window, cheaper); if it is, search it again in full.
                    k = a + 1
                    nw[d] = 1
                if pc == pov[d]:
                    alpha[c] = a
                    beta[c] = k
                else:
                    alpha[c] = -k
                    beta[c] = -a
                d = c
                ttm = 0
                if tt:
                    key = (h + RT[t]) ^ salt
                    keys[d] = key
                    if tkey[key & tmask] == key:
                        data = tdat[key & tmask]
                        ttm = data & 7
                        if (data >> 5) & 63 >= dc:
                            v = (data >> 11) - _BIAS
                            k = (data >> 3) & 3
                            if k == _EXACT or (k == _LOWER and v >= beta[d]) or \
                                    (k == _UPPER and v <= alpha[d]):
                                if pc != pov[d - 1]:
                                    v = -v
                                d -= 1
                                state = _RET
                                continue
                bestv[d] = -INF
                bestm[d] = 0
                alpha0[d] = alpha[d]
                idx[d] = 0
                if ttm and b[t * w + ttm - 1]:
                    # The table's move alone first: when it cuts off, the other moves are
                    # never generated or sorted. A rival's one reply (order()) is the table's
                    # move of its position, which is all it needs.
                    mv[d][0] = ttm
                    cnt[d] = 1
                    lazy[d] = 0 if skip and pc else 1
                else:
                    order(s, d, t, ttm)
                state = _NEXT
                continue
            if pov[d]:
                v = -v
            state = _RET
        # _RET: take back the move made at ply d, whose value for d is v.
        cp(b, sb[d])
        h = sh[d]
        t = sturn[d]
        if srare[d]:
            bd.restore_rare(d)
            nxt = bd.nxt
            nseat = bd.nseat
        if nw[d]:
            if alpha[d] < v < beta[d]:
                nw[d] = 2
                idx[d] -= 1
                state = _NEXT
                continue
            nw[d] = 0
        if v > bestv[d]:
            bestv[d] = v
            m = mv[d][idx[d] - 1]
            bestm[d] = m
            if v > alpha[d]:
                alpha[d] = v
                if v >= beta[d]:
                    killer[d] = m
                    hist[t * 8 + m - 1] += dep[d]
                    if tt:
                        key = keys[d]
                        tkey[key & tmask] = key
                        tdat[key & tmask] = ((v + _BIAS) << 11) | (dep[d] << 5) | \
                            (_LOWER << 3) | m
                    if not d:
                        s.nodes = nodes
                        bd.h = h
                        bd.turn = t
                        return True
                    if pov[d] != pov[d - 1]:
                        v = -v
                    d -= 1
                    continue
        state = _NEXT


def order(s, d, t, ttm):
    """Fills node d's move list, best first: the table move; in Basic a move that finishes;
    moves ending in a store (extra move), nearest the store first; captures in Kalah by
    size; then the ply's killer; then the history counter (Kalah) or the stones a move sheds
    (Basic). An insertion sort into preallocated lists.
    A rival's reply on best-reply turns (3-4 players) is one move, the rival's own first by
    these rules without the table move and the killer: a function of the position alone."""
    one = s.skip and s.team[t]
    if one:
        ttm = 0
    bd = s.bd
    b = bd.b
    n = bd.pits
    w = n + 1
    z = bd.size
    base = t * w
    ml = s.mv[d]
    sl = s.sc[d]
    kl = 0 if one else s.killer[d]
    hist = s.hist
    kalah = bd.kalah
    loop = 2 * n + 1
    c = 0
    if kalah:
        nonempty_only = bd.nonempty_only
        obase = (1 - t) * w + n - 1
    else:
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
            v = 5000
        elif kalah:
            if k == dist or (k > dist and (k - dist) % loop == 0):
                v = 200 + p
            else:
                v = hist[t * 8 + p]
                if v > 99:
                    v = 99
                r = (p + k) % loop
                if r < n and k <= loop and (r == p or not b[base + r]):
                    cap = b[obase - r]
                    if cap or not nonempty_only:
                        v = 100 + cap
        else:
            if k == mine and p == n - 1 and k <= room:
                v = 2000
            elif k >= dist and (k - dist) % w == 0:
                v = 200 + p
            else:
                v = k - dist + 1 if k >= dist else 0
        if pit == kl:
            v += 50
        j = c
        while j and sl[j - 1] < v:
            ml[j] = ml[j - 1]
            sl[j] = sl[j - 1]
            j -= 1
        ml[j] = pit
        sl[j] = v
        c += 1
    s.cnt[d] = 1 if one and c else c
