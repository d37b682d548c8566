"""Static evaluation of a SearchBoard for the CPU search, from one seat's point of view.

Scores are small ints: WIN marks a decided game, everything else stays far below it.
- Kalah: the store difference. A weight for the seeds on each side was tried and lost
  games against the reference, so KALAH_SIDE is 0 (docs/cpu.md).
- Basic: the work left to shed (fewer stones is better, stones far from the store count
  more, a ready extra move counts less), against the nearest rival; in 3-4 player games
  each seat that has already finished ahead costs a place. The distance and extra-move
  terms were tuned in matches against the reference player (docs/cpu.md).
"""

WIN = 10000
INF = 30000

KALAH_STORE = 4
KALAH_SIDE = 0
BASIC_LEFT = 4
BASIC_DIST = 4
BASIC_EXTRA = 0
BASIC_RIVAL = 4  # in quarters: how much the nearest rival's work counts in 3-4 player games


def terminal(board, root, ply):
    """The root's score once the game is over (Kalah) or the root's place is fixed (Basic).
    Sooner wins and later losses score better by one point per ply."""
    if board.kalah:
        n = board.pits
        b = board.b
        diff = b[root * (n + 1) + n] - b[(1 - root) * (n + 1) + n]
        if diff > 0:
            return WIN - ply + diff
        if diff < 0:
            return -WIN + ply + diff
        return 0
    p = board.players
    q = board.places[root]
    v = (WIN * (p + 1 - 2 * q)) // (p - 1)
    return v - ply if v > 0 else v + ply


def _work(b, base, n, w):
    """Basic: how much a seat still has to shed. Stones far from the store count more (a far
    pit mostly sows into the seat's own pits), and a pit that ends in a store (an extra
    move) counts as a tempo in hand."""
    dist = 0
    extra = 0
    for p in range(n):
        k = b[base + p]
        if k:
            d = n - p
            dist += k * (d - 1)
            if k == d or (k > d and (k - d) % w == 0):
                extra += 1
    return BASIC_DIST * dist // n - BASIC_EXTRA * extra


def static(board, root):
    """The root's heuristic score of an undecided position."""
    b = board.b
    z = board.size
    n = board.pits
    w = n + 1
    if board.kalah:
        o = 1 - root
        return KALAH_STORE * (b[root * w + n] - b[o * w + n]) + \
            KALAH_SIDE * (b[z + root] - b[z + o])
    p = board.players
    if p > 2 and not BASIC_MULTI_WORK:
        return _multi_left(board, root)
    mine = BASIC_LEFT * b[z + root] + _work(b, root * w, n, w)
    if p == 2:
        o = 1 - root
        return BASIC_LEFT * b[z + o] + _work(b, o * w, n, w) - mine
    # Multi-player: race against the closest rival still playing; seats already finished
    # push the best place the root can still get down by one each.
    mask = board.mask
    near = 30000
    for s in range(p):
        if s != root and (mask >> s) & 1:
            v = BASIC_LEFT * b[z + s] + _work(b, s * w, n, w)
            if v < near:
                near = v
    ahead = _ahead(board.places)
    return (BASIC_RIVAL * near) // 4 - mine - ahead * (WIN // (2 * p))


BASIC_MULTI_WORK = False


def _multi_left(board, root):
    b = board.b
    z = board.size
    p = board.players
    mask = board.mask
    near = 255
    for s in range(p):
        if s != root and (mask >> s) & 1 and b[z + s] < near:
            near = b[z + s]
    ahead = _ahead(board.places)
    return BASIC_LEFT * ((BASIC_RIVAL * near) // 4 - b[z + root]) - ahead * (WIN // (2 * p))


def _ahead(places):
    """How many places are already taken, best first (1, 2, ... held by finished seats)."""
    ahead = 0
    for q in range(1, len(places) + 1):
        for x in places:
            if x == q:
                ahead += 1
                break
        else:
            return ahead
    return ahead


def kalah_threat(b, t, n, nonempty_only):
    """Kalah: the most the seat to move t can add to its store with its next move alone (an
    extra move counts 1, a capture the captured seeds + 1). The search adds it at leaves
    (negamax.KALAH_THREAT) as a cheap stand-in for a quiescence search; negamax inlines
    the same loop for speed, and tests compare the two."""
    w = n + 1
    base = t * w
    ob = (1 - t) * w + n - 1
    g = 0
    for p in range(n):
        k = b[base + p]
        if k:
            r = p + k
            if r == n:
                if g < 1:
                    g = 1
            elif r < n and not b[base + r]:
                k = b[ob - r]
                if k >= g and (k or not nonempty_only):
                    g = k + 1
    return g
