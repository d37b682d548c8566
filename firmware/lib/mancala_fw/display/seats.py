"""Seats: which ring belongs to which seat and pit, and what each ring should show for a
game state (counts, whose turn, legal pits, seats that have left the board). Board builds
its frames and animation on top of it; nothing here paints or keeps time.
"""


class Seats:
    def __init__(self, n):
        self.n = n
        self.is_store = bytearray(n)
        self.owner = [-1] * n         # seat whose ring this is, -1 = not used by this game
        # Counts fit a byte: the largest game has 96 stones.
        self.shown = bytearray(n)     # the count each ring shows now
        self.final = bytearray(n)     # the count of the last state given
        self.legal = bytearray(n)
        self.hidden = bytearray(n)    # pits of a seat that finished (Basic): dark
        self.seat_rings = []
        self.turn = None
        self.over = False
        self.places = []
        self._active = None           # Basic: the seats still playing; None = all
        self.ring_of = {}             # position id -> ring index (display.Display fills it)

    def set_seating(self, seat_rings):
        """seat_rings[seat] = [store ring, pit 1 ring, ..., pit N ring] (ring indices).
        Rings in no list are not used by this game and stay dark."""
        self.seat_rings = seat_rings
        for r in range(self.n):
            self.owner[r] = -1
            self.is_store[r] = 0
            self.hidden[r] = 0
        for seat in range(len(seat_rings)):
            rs = seat_rings[seat]
            for pit in range(len(rs)):
                self.owner[rs[pit]] = seat
            self.is_store[rs[0]] = 1

    def seat_from(self, seating):
        """set_seating from a profile.Seating; ring_of maps position ids to ring indices."""
        rows = []
        for seat in range(seating.players):
            rows.append([self.ring_of[seating.position(seat, p)]
                         for p in range(seating.pits + 1)])
        self.set_seating(rows)

    def ring(self, seat, pit):
        return self.seat_rings[seat][pit]

    def _take_state(self, state, legal):
        # Target counts, whose turn, legal pits and who has finished, from a state dict.
        sr = self.seat_rings
        pits = state["pits"]
        stores = state["stores"]
        for seat in range(len(sr)):
            rs = sr[seat]
            self.final[rs[0]] = stores[seat]
            for p in range(1, len(rs)):
                self.final[rs[p]] = pits[seat][p - 1]
        self.turn = state.get("turn")
        self.over = bool(state.get("over"))
        self.places = state.get("places") or []
        for r in range(self.n):
            self.legal[r] = 0
        if self.turn is not None and not self.over:
            rs = sr[self.turn]
            for p in range(1, len(rs)):
                ok = (p in legal) if legal is not None else self.final[rs[p]] > 0
                self.legal[rs[p]] = 1 if ok else 0

    def _hide_finished(self):
        # Basic: a seat that finished (or resigned) leaves the board; its pits go dark.
        # At the end every pit shows again: the stones left decide the other places.
        active = self._active
        sr = self.seat_rings
        for seat in range(len(sr)):
            out = 1 if (active is not None and seat not in active and not self.over) else 0
            rs = sr[seat]
            for p in range(1, len(rs)):
                self.hidden[rs[p]] = out

    def counts_shown(self):
        """{(seat, pit): count} as the rings show it now (for tests and the terminal)."""
        out = {}
        for seat in range(len(self.seat_rings)):
            rs = self.seat_rings[seat]
            for p in range(len(rs)):
                out[(seat, p)] = self.shown[rs[p]]
        return out
