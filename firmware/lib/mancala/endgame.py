"""Exact endgame tables for 6-pit Kalah: the value of a position with perfect play, read from
a table file made by the host's solver (`make tables`; the format is in docs/host-tool.md
section 15), and the pits that keep it.

    table = Table(source)       # source: a whole table as bytes (read in place: a frozen
                                #   module's bytes stay in flash), or a file opened "rb"
                                #   (read a byte at a time: the table is never loaded whole)
    table.covers(rules)         # these rules are the table's (6 pits, 2 seats, its capture rule)
    table.probe(board, turn)    # the value still to come for turn, or None (more than
                                #   table.stones stones in play, or a failed read)
    table.exact(game)           # None, or (value, [best pits], {pit: value})

The engine does no I/O of its own: the caller opens the file or imports the module and hands
it here (the board's mancala_fw.app.endgame finds them), so the host can read the same bytes
with the same code. probe() allocates nothing: a 1-byte buffer made once, a seek and a
readinto, and the position's rank from a binomial table made once, in small ints.
"""

from mancala.rules import KALAH

MAGIC = b"MKET"
VERSION = 1
HEADER = 16
PITS = 6
MAX_STONES = 15  # a value of 15 stones is the most that fits 4 bits
# The rules byte of the header: bit 0 capture "always", bit 1 wipe-out captures allowed.
# Each has a preset name, which is its file's name (tables/kalah-10.bin).
NAMES = {2: "kalah", 1: "kalah-empty-capture"}


def rules_byte(rules):
    """The header's rules byte for these rules, or None when no table covers them (not Kalah,
    not 6 pits a side, or a capture rule no table is made for)."""
    if rules.variant != KALAH or rules.players != 2 or rules.pits != PITS:
        return None
    byte = (1 if rules.capture == "always" else 0) | (2 if rules.wipeout_capture else 0)
    return byte if byte in NAMES else None


class Table:
    """One table file. Raises ValueError with a sentence when source is not a table this
    reader reads (magic, version, pits, size), OSError when a file cannot be read."""

    def __init__(self, source):
        self.data = None  # type: bytes | bytearray | None  # the table in place, or ...
        self.file = None  # ... or the file it is read from
        if isinstance(source, (bytes, bytearray)):
            self.data = source
            head = source[:HEADER]
            size = len(source)
        else:
            self.file = source
            source.seek(0)
            head = source.read(HEADER)
            size = source.seek(0, 2)
        if len(head) < HEADER or head[:4] != MAGIC:
            raise ValueError("it is not an endgame table (no MKET header)")
        if head[4] != VERSION:
            raise ValueError("it is a table of format %d; this firmware reads format %d"
                             % (head[4], VERSION))
        if head[5] != PITS:
            raise ValueError("it is a table for %d pits a side, not 6" % head[5])
        n = head[6]
        positions = head[8] | head[9] << 8 | head[10] << 16 | head[11] << 24
        if not 1 <= n <= MAX_STONES:
            raise ValueError("it covers %d stones, which 4 bits cannot hold" % n)
        self.stones = n
        self.rules = head[7]
        # C(b, k) for k = 0..12 and b = 0..n+11, row k at k * (n + 12): the rank's terms.
        w = n + 12
        self.width = w
        binom = [0] * (13 * w)
        for b in range(w):
            binom[b] = 1
            for k in range(1, 13):
                if k <= b:
                    binom[k * w + b] = binom[k * w + b - 1] + binom[(k - 1) * w + b - 1]
        self.binom = binom
        # C(n + 12, 12) positions: C(n + 11, 12) + C(n + 11, 11).
        if positions != binom[12 * w + w - 1] + binom[11 * w + w - 1] or size != HEADER + (positions + 1) // 2:
            raise ValueError("its size does not match its header (%d bytes for %d stones)"
                             % (size, n))
        self.buf = bytearray(1)

    def close(self):
        """Closes the file the table is read from (nothing to do for bytes)."""
        if self.file is not None:
            self.file.close()
            self.file = None

    def covers(self, rules):
        return rules_byte(rules) == self.rules

    def probe(self, board, turn):
        """The value still to come (the final store difference that perfect play adds) for
        turn, in the engine's flat board (seat 0's pits, its store, seat 1's pits, its store;
        a SearchBoard's b starts the same way); None when more stones are in play than the
        table covers, or the read failed. No allocation."""
        base = turn * 7
        other = 7 - base
        binom = self.binom
        w = self.width
        n = self.stones
        s = 0
        r = 0
        for i in range(12):
            s += board[base + i] if i < 6 else board[other + i - 6]
            if s > n:
                return None
            r += binom[(i + 1) * w + s + i]
        data = self.data
        if data is not None:
            byte = data[HEADER + (r >> 1)]
        else:
            f = self.file
            buf = self.buf
            if f is None:  # closed
                return None
            try:
                f.seek(HEADER + (r >> 1))
                if f.readinto(buf) != 1:
                    return None
            except OSError:
                return None
            byte = buf[0]
        nibble = (byte >> 4) if r & 1 else (byte & 15)
        return 2 * nibble - s

    def exact(self, game):
        """For the seat to move of a covered position: (its exact outcome, the final store
        difference with perfect play; the pits that keep it, ascending; {pit: the outcome
        after that pit}). None when the table does not cover the game or a read failed. The
        game is left as it was (each pit is played and taken back)."""
        if game.over or not game.kalah or not self.covers(game.rules):
            return None
        mover = game.turn
        b = game._board
        if self.probe(b, mover) is None:
            return None
        values = {}
        for pit in game.legal_moves():
            game.push(pit)
            try:
                b = game._board
                v = b[mover * 7 + 6] - b[(1 - mover) * 7 + 6]
                if not game.over:
                    # An extra move keeps the seat to move: its value counts for the mover;
                    # otherwise the other seat's value counts against it.
                    c = self.probe(b, game.turn)
                    if c is None:
                        return None
                    v += c if game.turn == mover else -c
            finally:
                game.pop()
            values[pit] = v
        best = max(values.values())
        return best, [p for p in sorted(values) if values[p] == best], values


def outcome(seat, value):
    """The exact outcome as a person reads it: "seat 0 wins by 4 with best play"."""
    if value > 0:
        return "seat %d wins by %d with best play" % (seat, value)
    if value < 0:
        return "seat %d wins by %d with best play" % (1 - seat, -value)
    return "a draw with best play"
