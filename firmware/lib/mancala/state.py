"""Checks a state dict (contract 1) before a Game accepts it.

Each failure raises ValueError with one sentence naming the key that is wrong, because
states come from flash after a power cut, from logs and from the serial line.
"""

from mancala.rules import Rules


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _need(d, key):
    if key not in d:
        raise ValueError("state is missing %s" % key)
    return d[key]


def check_state(d):
    """Returns (rules, flat board, turn, active, places, over) or raises ValueError."""
    if not isinstance(d, dict):
        raise ValueError("state must be an object")
    for k in d:
        if k not in ("rules", "pits", "stores", "turn", "active", "places", "over"):
            raise ValueError("state has an unknown key %s" % k)
    rules = Rules.from_dict(_need(d, "rules"))
    if rules.warnings:
        raise ValueError("rules in a state must be normalized: " + rules.warnings[0])
    if rules.to_dict() != d["rules"]:
        raise ValueError("rules in a state must be normalized, with every key filled in")
    p = rules.players
    n = rules.pits
    pits = _need(d, "pits")
    stores = _need(d, "stores")
    if not isinstance(pits, list) or len(pits) != p:
        raise ValueError("pits must be a list of %d seats' pits" % p)
    if not isinstance(stores, list) or len(stores) != p:
        raise ValueError("stores must be a list of %d counts" % p)
    board = []
    for s in range(p):
        row = pits[s]
        if not isinstance(row, list) or len(row) != n:
            raise ValueError("pits[%d] must be a list of %d counts" % (s, n))
        for c in row:
            if not _is_int(c) or c < 0:
                raise ValueError("pits[%d] holds %r; counts are whole numbers from 0" % (s, c))
        if not _is_int(stores[s]) or stores[s] < 0:
            raise ValueError("stores[%d] is %r; counts are whole numbers from 0" % (s, stores[s]))
        board.extend(row)
        board.append(stores[s])
    total = p * n * rules.seeds
    if sum(board) != total:
        raise ValueError("the state holds %d stones; this game has %d (%d seats x %d pits x %d)"
                         % (sum(board), total, p, n, rules.seeds))
    over = _need(d, "over")
    if over is not True and over is not False:
        raise ValueError("over must be true or false")
    turn = _need(d, "turn")
    active = _need(d, "active")
    places = _need(d, "places")
    if not isinstance(active, list) or any(not _is_int(s) or not 0 <= s < p for s in active) \
            or sorted(set(active)) != active:
        raise ValueError("active must list seats from 0 to %d in ascending order" % (p - 1))
    if not isinstance(places, list) or len(places) != p:
        raise ValueError("places must be a list of %d places or nulls" % p)
    for q in places:
        if q is not None and (not _is_int(q) or not 1 <= q <= p):
            raise ValueError("places holds %r; a place is a number from 1 to %d or null" % (q, p))
    if over:
        if turn is not None:
            raise ValueError("turn must be null when the game is over")
        if active:
            raise ValueError("active must be empty when the game is over")
        if None in places:
            raise ValueError("every seat needs a place when the game is over")
        ranked = sorted(places)
        for k in range(p):
            if not (ranked[k] == k + 1 or (k and ranked[k] == ranked[k - 1])):
                raise ValueError("places %r are not a ranking" % (places,))
    else:
        if len(active) < 2:
            raise ValueError("a running game needs at least two active seats")
        if not _is_int(turn) or turn not in active:
            raise ValueError("turn must be an active seat, got %r" % (turn,))
        taken = []
        for s in range(p):
            if (s in active) != (places[s] is None):
                raise ValueError("seat %d: an active seat has no place and a seat that left "
                                 "has one" % s)
            if places[s] is not None:
                taken.append(places[s])
        if len(set(taken)) != len(taken):
            raise ValueError("places %r: two seats hold the same place" % (places,))
        open_places = [q for q in range(1, p + 1) if q not in taken]
        if open_places and open_places[-1] - open_places[0] != len(open_places) - 1:
            raise ValueError("places %r leave a gap between finished seats" % (places,))
        if rules.variant == "kalah" or p == 2 or not rules.play_all_places:
            # Only resigned seats can have left a game that ends at the first finish; they
            # hold the worst places.
            if open_places[0] != 1:
                raise ValueError("places %r: a seat has finished, so this game is already over"
                                 % (places,))
        w = n + 1
        for s in (range(2) if rules.variant == "kalah" else active):
            # Kalah ends when a side is empty; in Basic only a seat's own move empties its side,
            # and then it has finished.
            if not any(board[s * w:s * w + n]):
                raise ValueError("seat %d's pits are empty, so %s" % (
                    s, "this game is already over" if rules.variant == "kalah"
                    else "it has finished and cannot be active"))
    return rules, board, turn, list(active), list(places), over
