"""Maps the engine's logical seats and pits onto a board's physical sides and pits.

The engine numbers seats 0..P-1 counterclockwise and each seat's pits 1..N in sowing order,
pit N next to its store; a profile numbers its sides 0..S-1 counterclockwise and their pits
1..M the same way. So a seat sits on a side, and its N pits are the N physical pits nearest
that side's store (M-N+1..M). The seats' sides keep increasing with the seat number, so the
engine's sowing loop (seat 0 pits 1..N, store, seat 1 ...) follows the physical loop and
only skips the positions nobody uses. This is code, not per-board tables.
"""


def seat_sides(sides, players):
    """The physical side of each seat: spread evenly when the sides divide among the
    players (2 on 4 sides sit opposite: 0 and 2), otherwise the first P sides in order
    (3 on 4 sides: 0, 1, 2 -- the free side is the one between the last seat and seat 0)."""
    if sides % players == 0:
        step = sides // players
        return tuple(k * step for k in range(players))
    return tuple(range(players))


def seat_error(profile, players, pits, variant=None):
    """One sentence saying why the board cannot seat this game, or None if it can."""
    what = "%s with " % variant if variant else ""
    board = "board %s cannot seat %s" % (profile.name, what)
    if not _whole(players) or players < 2:
        return "%s%s players: a game needs 2 or more" % (board, str(players))
    if players > profile.sides:
        return "%s%d players: it has %d sides" % (board, players, profile.sides)
    if not _whole(pits) or pits < 1:
        return "%s%s pits: a seat needs 1 or more" % (board, str(pits))
    if pits > profile.pits_per_side:
        return "%s%d pits: its sides have %d pits" % (board, pits, profile.pits_per_side)
    if variant == "kalah":
        # Kalah captures from the pit across the board, so its two seats must face each other.
        sides = seat_sides(profile.sides, players)
        if players != 2 or 2 * (sides[1] - sides[0]) != profile.sides:
            return "board %s cannot seat kalah with %d players: kalah needs 2 seats on " \
                   "opposite sides" % (profile.name, players)
    return None


def can_seat(profile, rules):
    """Given the engine's normalized rules dict (variant, players, pits, ...), the sentence
    saying why this board cannot seat it, or None. For set_config and new_game."""
    return seat_error(profile, rules.get("players", 2), rules.get("pits", 6),
                      rules.get("variant"))


def seating(profile, players, pits):
    """The Seating for players x pits on profile; raises ValueError if it cannot seat it."""
    return Seating(profile, players, pits)


def _whole(v):
    return isinstance(v, int) and not isinstance(v, bool)


class Seating:
    """players, pits, sides (physical side of each seat), used (ids in loop order).

    position(seat, pit) -> physical id (pit 0 = the seat's store); store(seat) -> id;
    seat_pit(id) -> (seat, pit), (seat, 0) for a store, None for a position nobody uses.
    """

    def __init__(self, profile, players, pits):
        err = seat_error(profile, players, pits)
        if err:
            raise ValueError(err)
        self.players = players
        self.pits = pits
        self.sides = seat_sides(profile.sides, players)
        first = profile.pits_per_side - pits  # seat pit i sits on physical pit first + i
        # The profile's own id strings, and no reverse table (seat_pit() looks in _ids): a
        # new game then allocates no strings, tuples or dict (4 KB of heap on quad before).
        ids_of = profile.positions  # loop order: side s pit p at s*(M+1)+p-1, store s*(M+1)+M
        w = profile.pits_per_side + 1
        self._ids = []
        for seat in range(players):
            base = self.sides[seat] * w
            ids = [ids_of[base + w - 1]]
            for pit in range(1, pits + 1):
                ids.append(ids_of[base + first + pit - 1])
            self._ids.append(tuple(ids))

    def __repr__(self):
        return "<Seating %d players x %d pits on sides %s>" % (
            self.players, self.pits, list(self.sides))

    def position(self, seat, pit):
        if not (0 <= seat < self.players) or not (0 <= pit <= self.pits):
            raise ValueError("no seat %s pit %s: seats are 0-%d and pits 0-%d" % (
                seat, pit, self.players - 1, self.pits))
        return self._ids[seat][pit]

    def store(self, seat):
        return self.position(seat, 0)

    def seat_pit(self, pid):
        for seat in range(self.players):
            ids = self._ids[seat]
            if pid in ids:
                return seat, ids.index(pid)
        return None

    @property
    def used(self):
        out = []  # type: list
        for ids in self._ids:
            out.extend(ids[1:])
            out.append(ids[0])
        return tuple(out)
