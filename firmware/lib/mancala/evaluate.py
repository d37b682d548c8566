"""Static evaluation of a SearchBoard for the CPU search, from one seat's point of view.

Scores are small ints: WIN marks a decided game, everything else stays far below it.
- Kalah: the store difference, plus a smaller weight for the seeds still on each side (at
  the end each side's seeds go to its own store), plus a tempo bonus for the seat to move.
- Basic: the stones left to shed (fewer is better), against the nearest rival; in 3-4 player
  games each seat that has already finished ahead costs a place.
"""

WIN = 10000
INF = 30000

KALAH_STORE = 4
KALAH_SIDE = 1
BASIC_LEFT = 4


def decided(board, root):
    """Kalah: a store holding more than half the seeds has won. Returns the root's score or
    0 when nothing is decided yet."""
    b = board.b
    n = board.pits
    a = b[root * (n + 1) + n]
    c = b[(1 - root) * (n + 1) + n]
    half = board.total
    if 2 * a > half:
        return WIN + a - c
    if 2 * c > half:
        return -WIN + a - c
    return 0


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


def static(board, root):
    """The root's heuristic score of an undecided position."""
    sd = board.sd
    if board.kalah:
        n = board.pits
        b = board.b
        o = 1 - root
        v = KALAH_STORE * (b[root * (n + 1) + n] - b[o * (n + 1) + n]) + \
            KALAH_SIDE * (sd[root] - sd[o])
        return v
    p = board.players
    mine = sd[root]
    if p == 2:
        return BASIC_LEFT * (sd[1 - root] - mine)
    # Multi-player: race against the closest rival still playing; seats already finished
    # push the best place the root can still get down by one each.
    mask = board.mask
    near = 255
    for s in range(p):
        if s != root and (mask >> s) & 1 and sd[s] < near:
            near = sd[s]
    ahead = 0
    places = board.places
    while (ahead + 1) in places:
        ahead += 1
    return BASIC_LEFT * (near - mine) - ahead * (WIN // (2 * p))
