"""A plain-Python exact Kalah solver for small boards, written apart from the compiled solver
(mancala_host.solver) so that the two check each other.

It knows the rules from docs/rules.md, not from either implementation: the board is a list of
2n+2 counts (the mover's pits 1..n, the mover's store, the other's pits 1..n, the other's
store), sown one stone at a time. solve() values every position reachable from a start by
memoised search over the whole game: the value of a position is the final store difference
still to come for the side to move, so a game's value is its store difference plus that.
"""

import sys


def sow(board, pit, n, always, wipeout):
    """Plays pit (1..n) for the side to move on board (a list, mover first); returns the next
    board from the side to move next, whether the mover moves again, and whether it is over.
    The stores in the result are what the seats gained by this move."""
    b = list(board)
    store, other_store = n, 2 * n + 1
    b[store] = b[other_store] = 0
    i = pit - 1
    stones, b[i] = b[i], 0
    while stones:
        i = (i + 1) % (2 * n + 2)
        if i == other_store:
            i = 0
        b[i] += 1
        stones -= 1
    if i < n and b[i] == 1:
        opposite = 2 * n - i
        others = [b[j] for j in range(n + 1, 2 * n + 1) if j != opposite]
        if (b[opposite] or always) and (wipeout or any(others)):
            b[store] += b[opposite] + 1
            b[opposite] = b[i] = 0
    mine, theirs = sum(b[:n]), sum(b[n + 1:2 * n + 1])
    if not mine or not theirs:
        b[store] += mine
        b[other_store] += theirs
        return b, False, True
    if i == store:
        return b, True, False
    return b[n + 1:] + b[:n + 1], False, False


def solve(n, seeds, always, wipeout):
    """{pits: value} for every position reachable from the start, pits being the mover's n
    then the other's n counts."""
    sys.setrecursionlimit(10000)
    values = {}

    def value(pits):
        known = values.get(pits)
        if known is not None:
            return known
        board = list(pits[:n]) + [0] + list(pits[n:]) + [0]
        best = None
        for pit in range(1, n + 1):
            if not board[pit - 1]:
                continue
            after, extra, over = sow(board, pit, n, always, wipeout)
            if over:
                v = after[n] - after[2 * n + 1]
            else:
                gained = after[2 * n + 1] if not extra else after[n]
                rest = value(tuple(after[:n] + after[n + 1:2 * n + 1]))
                v = gained + rest if extra else gained - rest
            if best is None or v > best:
                best = v
        values[pits] = best
        return best

    value(tuple([seeds] * (2 * n)))
    return values
