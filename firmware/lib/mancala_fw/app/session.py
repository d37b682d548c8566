"""The game in progress: the engine's Game plus what the board needs around it.

A game is saved as its id (the board's game counter, app.App.games), its rules, its first
seat, the moves from the start and the engine's state dict (and, for a game recovered from its position alone, that position as "base": the
moves start there). At boot the moves are replayed, which rebuilds the engine's undo history; the
state dict is the check that the replay came out right (and the fallback if it did not).
The moves are one character each, "1".."7" for a play of that pit by the seat to move and
"A".."D" for a resignation of seat 0..3, kept in a bytearray: a long 4-player game has
hundreds of moves, and a list would take 8 bytes a move and a growing block of heap.
(Files written before this format hold a list of ints, -1-s for a resignation; they load.)

The engine keeps an undo snapshot per move, which over a long 4-player game is tens of KB, so
the session's games keep only the last KEEP of them (Game's undo_limit); an undo with no
snapshot left replays the move list from the start.
"""

from mancala import Game, Rules, IllegalMove

FORMAT = "mancala-game"
KEEP = 8  # undo snapshots kept in the engine; older take-backs replay from the start


class Session:
    def __init__(self, rules, first=0):
        self.game = Game(Rules.from_dict(rules), first, KEEP)
        self.first = first
        self.moves = bytearray()
        self.base = None  # the state the moves start from, when not the opening (a recovery)
        self.id = 0  # the game's id on this board (docs/protocol.md §4 new_game); the app sets it

    @classmethod
    def at(cls, state):
        """A game set up in the position of state (an engine state dict: new_game's
        "state"); take-backs go back to it, not further. ValueError with a sentence if state
        is not a position of a game."""
        game = Game.from_dict(state)
        if game.over or game.turn is None:
            raise ValueError("it is a finished game; give one with a seat to move")
        s = cls(game.rules.to_dict(), game.turn)
        s.game = _limited(game)
        s.base = game.to_dict()
        return s

    def play(self, seat, pit):
        """Plays pit for seat (None = the seat to move). Returns the move record, or raises
        IllegalMove with a sentence for a person."""
        g = self.game
        turn = g.turn
        if g.over or turn is None:
            raise IllegalMove("The game is over; start a new game.")
        if seat is not None and seat != turn:
            raise IllegalMove("It is seat %d's turn, not seat %s's." % (turn, seat))
        if not isinstance(pit, int) or not 1 <= pit <= g.pits:
            raise IllegalMove("Pit must be a number from 1 to %d, got %s." % (g.pits, pit))
        if pit not in g.legal_moves():
            raise IllegalMove("Pit %d of seat %d is empty; choose a pit with stones."
                              % (pit, turn))
        record = g.play(pit)
        self.moves.append(48 + pit)  # "1".."7"
        return record

    def resign(self, seat):
        g = self.game
        if g.over:
            raise IllegalMove("The game is over; start a new game.")
        if seat is None:
            seat = g.turn
        if seat not in g.active:
            raise IllegalMove("Seat %s is not playing, so it cannot resign." % seat)
        record = g.resign(seat)
        self.moves.append(65 + seat)  # "A".."D"
        return record

    def undo(self):
        """Takes back the last play or resignation; False if there was none."""
        if not self.moves:
            return False
        if self.game.history_length:
            self.game.undo()
            self.moves[-1:] = b""  # MicroPython's bytearray has no pop() and no del
        else:
            game, moves = self.game, self.moves
            self.game = _limited(Game.from_dict(self.base)) if self.base else \
                Game(game.rules, self.first, KEEP)
            self.moves = bytearray()
            try:
                self.replay(moves[:-1])
            except Exception:
                self.game, self.moves = game, moves  # e.g. out of heap: nothing is lost
                raise
        return True

    def replay(self, moves):
        """moves: the bytearray (or the saved string) of this format, or an old list of ints.
        Raises ValueError or TypeError on anything else."""
        if isinstance(moves, str):
            moves = moves.encode()
        for m in moves:
            if isinstance(moves, list):  # the old format
                m = 48 + m if m >= 1 else 64 - m
            if 49 <= m <= 55:
                self.play(None, m - 48)
            elif 65 <= m <= 68:
                self.resign(m - 65)
            else:
                raise ValueError("move %r" % m)

    def to_saved(self, state=None):
        """The game file's dict; state: the game's to_dict() when the caller has it already
        (one fewer copy of the position on the heap while a move is saved)."""
        saved = {"format": FORMAT, "game": self.id, "first": self.first,
                 "moves": self.moves.decode(),
                 "state": self.game.to_dict() if state is None else state}
        if self.base:
            saved["base"] = self.base
        return saved


def _limited(game):
    game.undo_limit = KEEP
    return game
