"""Static evaluation of a SearchBoard for the CPU search, from one seat's point of view.

Scores are small ints: WIN marks a decided game, everything else stays far below it.
- Kalah: the store difference, plus a table of what k seeds in pit p are worth to the seat
  to move and to the other seat, fitted to the outcomes of self-play games (docs/cpu.md
  section 4). It replaced a leaf term for the best capture or extra move in hand.
- Basic, 2 players, 6 pits: a table of what k stones in pit p are worth to the seat to move
  and to the other seat, fitted to the outcomes of self-play games (docs/cpu.md section 4).
  Stones near the own store (extra moves and the finishing move) are worth having, stones
  far from it cost, whoever is to move; the stone count alone hardly predicts who wins.
- Basic, 2 players, 7 pits: the work left to shed, against the rival's (fewer stones is
  better, stones far from the store count more).
- Basic, 3-4 players: the stones left against the nearest rival still playing; each seat
  that has already finished ahead costs a place.

Units, for whoever turns a score into words (host_tools' analyze): Kalah KALAH_STORE per
seed of store difference; Basic 2p with 6 pits LOGIT per unit of log-odds of winning;
other Basic BASIC_LEFT per stone. unit(kalah, players, pits) says which.
"""

WIN = 10000
INF = 30000

KALAH_STORE = 4   # Kalah: per seed of store difference
BASIC_LEFT = 4    # Basic 7 pits and 3-4 players: per stone left to shed
BASIC_DIST = 4    # Basic 7 pits: per stone, times its steps to the store beyond the first / pits
LOGIT = 32        # Basic 2p, 6 pits: per unit of log-odds of winning (the fitted table)
STONES = "stones"
LOG_ODDS = "log-odds"


def unit(kalah, players, pits):
    """(what a score counts, score units per one of it) for these rules: (STONES, 4) or
    (LOG_ODDS, 32)."""
    if not kalah and players == 2 and pits == 6:
        return LOG_ODDS, LOGIT
    return STONES, KALAH_STORE if kalah else BASIC_LEFT

# Kalah: _KALAH_VALUE[12 * (pit - 1) + min(k, 11)] is what k seeds in that pit of the seat to
# move are worth to it (rows 1-6), then k seeds in the other seat's pit (rows 7-12), in the
# units of KALAH_STORE (4 per seed in a store; a unit of log-odds is ~12). Fitted by
# logistic regression, with the store difference, to the outcomes of 3000 self-play games
# of Kalah(6,4) (level 5 with the table before this one, 500 nodes a move, 2-6 random
# opening moves: `bench/cpu.py --fit kalah 3000`). Stored +128, one
# line a pit (bench/cpu.py --fit prints new ones so). A bytes constant is the only copy
# (a tuple of ints would be built at import and kept as a constant too: ~1 KB more heap).
_KALAH_VALUE = (
    b"\x80\x88\x8b\x90\x92\x93\x94\x87\x85\x86\x80\x85"
    b"\x80\x89\x8d\x8f\x92\x98\x87\x87\x82\x81\x82\x8c"
    b"\x80\x87\x8c\x8f\x94\x80\x82\x7f\x7f\x7f\x87\x97"
    b"\x80\x85\x89\x8e\x7e\x7e\x7d\x7b\x7b\x83\x8d\x91"
    b"\x80\x84\x89\x7a\x77\x7d\x81\x80\x81\x83\x86\x8f"
    b"\x80\x84\x7a\x7c\x76\x7b\x81\x88\x8c\x8c\x8e\x95"
    b"\x80\x7b\x79\x76\x74\x74\x7e\x80\x81\x7c\x81\x7e"
    b"\x80\x7b\x76\x74\x70\x7a\x7f\x81\x80\x7f\x7c\x73"
    b"\x80\x7b\x77\x74\x72\x7f\x7f\x84\x82\x7f\x7a\x6a"
    b"\x80\x7c\x78\x76\x83\x82\x84\x85\x84\x7e\x74\x6a"
    b"\x80\x7b\x78\x7c\x84\x87\x7e\x7c\x7e\x76\x73\x6d"
    b"\x80\x7b\x7a\x7e\x84\x85\x7d\x73\x71\x6f\x6f\x67")

# Basic 2p, 6 pits: _PIT_VALUE[10 * (pit - 1) + min(k, 9)] is what k stones in that pit of the
# seat to move are worth to it (rows 1-6), then k stones in the other seat's pit (rows 7-12),
# 32 units per unit of log-odds of winning. Fitted by logistic regression to the outcomes of
# 3000 self-play games (level 5, 500 nodes a move, 2-6 random opening moves), positions with
# fewer than 20 stones on the sides: earlier ones the stones do not predict (docs/cpu.md).
# Stored +128, one line a pit, as _KALAH_VALUE.
_PIT_VALUE = (
    b"\x80\x77\x7a\x83\x88\x86\x9b\x96\x88\x73"
    b"\x80\x84\x8d\x8f\x9b\x9c\x93\x93\x84\x86"
    b"\x80\x8b\x94\x98\x93\x8c\x84\x7a\x7f\x7d"
    b"\x80\x91\x9c\x99\x92\x81\x76\x77\x84\x83"
    b"\x80\x96\x99\x94\x89\x7f\x7e\x83\x78\x7a"
    b"\x80\x8d\x97\x8a\x81\x7b\x7b\x79\x6f\x8c"
    b"\x80\x88\x84\x7e\x79\x75\x65\x71\x76\x8e"
    b"\x80\x86\x79\x79\x6d\x70\x78\x7d\x8b\x87"
    b"\x80\x7c\x6f\x6e\x72\x7a\x84\x8d\x89\x8a"
    b"\x80\x75\x68\x68\x72\x85\x90\x8e\x84\x81"
    b"\x80\x6d\x68\x6e\x7a\x85\x86\x81\x8d\x8b"
    b"\x80\x6e\x64\x70\x7a\x82\x82\x83\x8c\x76")
_PIT_BIAS = -6 - 12 * 128


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


def _work(b, z, s, n):
    """Basic: how much seat s still has to shed, the stones on its side plus stones far from
    the store counting more (a far pit mostly sows into the seat's own pits)."""
    base = s * (n + 1)
    dist = 0
    for p in range(n):
        dist += b[base + p] * (n - 1 - p)
    return BASIC_LEFT * b[z + s] + BASIC_DIST * dist // n


def static(board, root, turn):
    """The root's heuristic score of an undecided position with turn to move."""
    b = board.b
    z = board.size
    n = board.pits
    w = n + 1
    if board.kalah:
        v = kalah_table(b, turn, n)
        return KALAH_STORE * (b[root * w + n] - b[(1 - root) * w + n]) + \
            (v if turn == root else -v)
    p = board.players
    if p == 2 and n == 6:
        base = turn * w
        other = (1 - turn) * w
        k = b[z + turn]
        if k == b[base + 5] and k < 9:
            # All the mover's stones lie in its last pit, no more than reach the other
            # store: its next move empties its side and wins.
            v = WIN // 2
            return v if turn == root else -v
        v = _PIT_BIAS
        t = _PIT_VALUE
        for i in range(6):
            k = b[base + i]
            v += t[10 * i + (k if k < 10 else 9)]
            k = b[other + i]
            v += t[60 + 10 * i + (k if k < 10 else 9)]
        return v if turn == root else -v
    if p == 2:
        return _work(b, z, 1 - root, n) - _work(b, z, root, n)
    # 3-4 players: race against the closest rival still playing; seats already finished
    # push the best place the root can still get down by one each.
    mask = board.mask
    near = 255
    for s in range(p):
        if s != root and (mask >> s) & 1 and b[z + s] < near:
            near = b[z + s]
    return BASIC_LEFT * (near - b[z + root]) - _ahead(board.places) * (WIN // (2 * p))


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


def kalah_table(b, t, n):
    """Kalah: the pits' worth to the seat to move t (negamax inlines the same loop)."""
    base = t * (n + 1)
    other = (1 - t) * (n + 1)
    v = -12 * 128
    for p in range(n):
        k = b[base + p]
        v += _KALAH_VALUE[12 * p + (k if k < 12 else 11)]
        k = b[other + p]
        v += _KALAH_VALUE[72 + 12 * p + (k if k < 12 else 11)]
    return v
