"""The reference opponent for the CPU benchmarks: a plain alpha-beta to 6 plies.

Written apart from mancala.cpu on purpose: it uses only the public Game API (push/pop),
searches every line to a fixed depth with no time limit, and scores a position simply:
the store difference in Kalah, the difference in stones left in Basic (fewer is better).
Finished games score +-1000 plus that difference. Each move is one ply, an extra move too.
Moves are tried in ascending pit order and ties keep the first, so it is deterministic.
"""

DEPTH = 6
WIN = 1000


def _score(game, seat):
    other = (1 - seat) % game.players  # with 3-4 players: the seat before 1 - seat wraps
    if game.kalah:
        diff = game.stones(seat, 0) - game.stones(other, 0)
    else:
        diff = game.stones(other) - game.stones(seat)
    if game.over:
        mine, theirs = game.places[seat], game.places[other]
        if mine < theirs:
            return WIN + diff
        if mine > theirs:
            return -WIN + diff
    return diff


def _alphabeta(game, seat, depth, alpha, beta):
    if depth == 0 or game.over:
        return _score(game, seat)
    maximizing = game.turn == seat
    for pit in game.legal_moves():
        game.push(pit)
        v = _alphabeta(game, seat, depth - 1, alpha, beta)
        game.pop()
        if maximizing:
            if v > alpha:
                alpha = v
        elif v < beta:
            beta = v
        if alpha >= beta:
            break
    return alpha if maximizing else beta


def reference_move(game, depth=DEPTH):
    """The reference's pit for game.turn in a 2-player game; game is left as it was."""
    seat = game.turn
    best = None
    best_v = None
    alpha = -10 * WIN
    for pit in game.legal_moves():
        game.push(pit)
        v = _alphabeta(game, seat, depth - 1, alpha, 10 * WIN)
        game.pop()
        if best_v is None or v > best_v:
            best, best_v = pit, v
            alpha = v
    return best
