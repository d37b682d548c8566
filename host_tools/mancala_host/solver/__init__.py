"""The exact Kalah solver: the value of a position with perfect play, and of each legal move.

A value is the final store difference with perfect play from the position on, for the seat
to move: +8 means that seat ends 8 stones ahead if both seats play perfectly. It covers
Kalah under every rule the engine plays (capture "nonempty" or "always", wipe-out captures
allowed or not, 3 to 5 seeds). There is no evaluation and no depth limit: the search core
(_kalah.c and search.c, compiled by pip) searches every line to the end, with a transposition table and a
table of exact endgame values (docs/host-tool.md, "The exact solver").

    solver = Exact(game.rules)
    solver.value(game)          # -> int, for game.turn
    solver.move_values(game)    # -> {pit: int}, each for game.turn
    solver.value(game, deadline=time.monotonic() + 5)

A search still running at its deadline (a time.monotonic() value), or past max_nodes nodes,
raises TooBig, so a caller that must answer soon (a hint, an analysis, the projector) can say
so. Ctrl-C stops a search with KeyboardInterrupt; the solver stays sound after either. The
opening book (book.py, `make book`) answers the first plies of Kalah(6,3) and (6,4) without
a search.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

from ._kalah import BudgetExceeded, Solver

if TYPE_CHECKING:
    from mancala import Game, Rules

# The tables' sizes: at most 2^TT_BITS entries of 8 bytes in the transposition table (it
# starts at 2 MiB and doubles as it fills), and the exact value of every position with at most DB_STONES
# stones in play (C(DB_STONES + 12, 12) bytes).  Measured on the host machine (bench/solver.py):
# a larger endgame table costs more to fill than it saves in these searches.
TT_BITS = 24
DB_STONES = 12
NORMAL, EXTRA, OVER = 0, 1, 2


class TooBig(ValueError):
    """The exact value needs more search than the budget (time or nodes) allows."""


def unsupported(rules: Rules) -> str | None:
    """Why the solver cannot value games of these rules, in one sentence; None if it can."""
    if rules.variant != "kalah":
        return "The exact solver covers Kalah only (%s has no exact solver here)." % (
            rules.variant.capitalize())
    return None


def position(game: Game) -> tuple[tuple[int, ...], int]:
    """The pits from the seat to move (its own first) and its store lead."""
    state = game.to_dict()
    mover = game.turn
    if mover is None:
        raise ValueError("the game is over: there is no move to value")
    other = 1 - mover
    pits = tuple(state["pits"][mover]) + tuple(state["pits"][other])
    return pits, state["stores"][mover] - state["stores"][other]


class Exact:
    """Exact values under one set of Kalah rules, with the tables kept between calls. One
    search at a time: calls from several threads wait for each other."""

    def __init__(self, rules: Rules, tt_bits: int = TT_BITS, db_stones: int = DB_STONES,
                 book: dict | None = None, threads: int = 1):
        """book: {pits: value} of positions known without search (for_rules gives the
        opening book); None: every value is searched. threads: the threads each search runs
        on (1 to 8), sharing the tables; with more than one, the values are the same but
        the node counts change from run to run, so a search given max_nodes runs on one
        thread: what a node budget reaches stays the same every time."""
        reason = unsupported(rules)
        if reason:
            raise ValueError(reason)
        self.rules = rules
        always = rules.capture == "always"
        self._solver = Solver(rules.pits, always, rules.wipeout_capture, tt_bits, db_stones,
                              threads)
        self._lock = threading.Lock()
        self.book = book or {}
        self.threads = threads

    @property
    def nodes(self) -> int:
        """Nodes searched so far, over every call."""
        return self._solver.nodes

    def pits_value(self, pits: tuple[int, ...], max_nodes: int | None = None,
                   deadline: float | None = None, guess: int = 0) -> int:
        """The value still to come for the side to move in a position given as its pits (the
        mover's, then the other seat's): from the book, else searched. max_nodes, deadline (a
        time.monotonic() value): the search's budget, None for none; guess: where the search
        starts looking (a value near the true one saves time)."""
        known = self.book.get(tuple(pits))
        if known is not None:
            return known
        with self._lock:
            self._solver.threads = 1 if max_nodes else self.threads
            try:
                return self._solver.value(pits, max_nodes or 0, guess, deadline or 0.0)
            except BudgetExceeded:
                raise TooBig("the exact value needs more search than its budget")

    def pits_moves(self, pits: tuple[int, ...], max_nodes: int | None = None,
                   deadline: float | None = None) -> dict[int, int]:
        """{pit: value} of each legal pit, for the side to move, in a position given by its
        pits; max_nodes bounds each move's search, deadline all of them."""
        values: dict[int, int] = {}
        known = self.book.get(tuple(pits))
        guess = 0 if known is None else known
        # Nearest the store first: extra moves are there, and their values make the others'
        # searches shorter through the shared table. Each search starts from the best value
        # found so far (or the book's value of the position): most moves are near it.
        for pit in range(self.rules.pits, 0, -1):
            if not pits[pit - 1]:
                continue
            after, gain, status = self._solver.play(pits, pit)
            if status == OVER:
                values[pit] = gain
            elif status == EXTRA:
                values[pit] = gain + self.pits_value(after, max_nodes, deadline, guess - gain)
            else:
                values[pit] = gain - self.pits_value(after, max_nodes, deadline, gain - guess)
            if known is None:
                guess = max(values.values())
        return dict(sorted(values.items()))

    def value(self, game: Game, max_nodes: int | None = None,
              deadline: float | None = None) -> int:
        """The final store difference with perfect play, for the seat to move."""
        pits, lead = position(game)
        return lead + self.pits_value(pits, max_nodes, deadline)

    def move_values(self, game: Game, max_nodes: int | None = None,
                    deadline: float | None = None) -> dict[int, int]:
        """{pit: final store difference with perfect play after that pit}, for the seat to
        move, for each legal pit."""
        pits, lead = position(game)
        return {pit: lead + v for pit, v in self.pits_moves(pits, max_nodes, deadline).items()}

    def stop(self) -> None:
        """Stop the search under way, from another thread: it raises TooBig (a new position
        to value makes the old one's answer moot)."""
        self._solver.stop()

    def play(self, pits: tuple[int, ...], pit: int) -> tuple[tuple[int, ...], int, int]:
        """The solver's own move: (next pits from the side to move next, the mover's gain,
        NORMAL, EXTRA or OVER); the gain includes the sweep when the move ends the game."""
        return self._solver.play(pits, pit)


_SOLVERS: dict = {}
# The threads of a shared solver's search: both cores of a two-core machine, where the time
# budget of hint, analyze, web --exact and the hub's grading then buys twice the search.
THREADS = min(2, os.cpu_count() or 1)


def for_rules(rules: Rules) -> Exact:
    """One shared solver for each set of rules, so that its tables serve every caller, on
    THREADS threads, with the opening book (shipped in the package) and the full endgame
    table that `make book` wrote for them if they are there (book.load, book.load_endgame: BookError in one sentence if a file is not one)."""
    from . import book
    key = (rules.pits, rules.capture, rules.wipeout_capture, book.default_folder(),
           book.tables_folder())
    solver = _SOLVERS.get(key)
    if solver is None:
        always, opening = rules.capture == "always", rules.pits == book.PITS
        known = book.load(always, rules.wipeout_capture) \
            if opening and not unsupported(rules) else {}
        solver = Exact(rules, book=known, threads=THREADS)
        if opening:
            book.load_endgame(solver._solver, always, rules.wipeout_capture, DB_STONES)
        _SOLVERS[key] = solver
    return solver


def searched() -> int:
    """Nodes searched so far by the shared solvers (for_rules), all rules together: what a
    progress line counts. It may be read while a search runs in another thread."""
    return sum(solver.nodes for solver in list(_SOLVERS.values()))


def stop_all() -> None:
    """Stop the search under way on any shared solver (for_rules), from another thread: it
    raises TooBig. A solver with no search under way is left as it is."""
    for solver in list(_SOLVERS.values()):
        solver.stop()
