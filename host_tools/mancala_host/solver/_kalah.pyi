# The compiled core's interface (_kalah.c), for type checkers.
#
# Stopping a search: value() and endgame() run without the GIL.  Every 4,096 nodes the search
# publishes its node count, and stops when the node budget is spent (exactly: at node
# max_nodes + 1), past the deadline, or after stop() from another thread; each raises
# BudgetExceeded with reason "nodes", "time" or "stopped".  In the main thread it also takes
# the GIL back every 65,536 nodes (a few hundredths of a second) to run Python's signal
# handlers: Ctrl-C raises KeyboardInterrupt.  A stopped search stored only true bounds, so the
# solver stays sound and can be used again.
#
# Threads: one search at a time on a solver (a second value() meanwhile raises RuntimeError).
# While it runs, another thread may read nodes (the count as of the search's last checks, at
# most 4,096 behind a thread) and call stop(); nothing else.
#
# threads: a search runs on the calling thread and threads - 1 of its own, sharing the
# tables; the value is the same, the node count changes from run to run (with one thread it
# is the same every time), and the node budget is then the sum of the threads' counts as of
# their checks (it may run over by 4,096 a thread).  load_endgame() reads in threads parts.
from typing import Sequence

class BudgetExceeded(RuntimeError):
    reason: str  # "nodes", "time" or "stopped"

class Solver:
    # tt_bits: the transposition table holds at most 2^tt_bits entries of 8 bytes (at least
    # 2^16): it starts at 2^18 (2 MiB) and doubles whenever half of it is in use;
    # db_stones: the endgame table covers every position with at most that many stones, one
    # byte each (db_size of them), filled on demand or read whole by load_endgame().
    nodes: int
    db_size: int
    threads: int  # 1 to 8; settable between searches
    # The calling thread searches alone until it has searched help_after nodes (1,048,576):
    # the others start then, so a small search costs no more than on one thread.
    help_after: int
    def __init__(self, pits: int = 6, always: bool = False, wipeout: bool = True,
                 tt_bits: int = 22, db_stones: int = 12, threads: int = 1) -> None: ...
    def value(self, pits: Sequence[int], max_nodes: int = 0, guess: int = 0,
              deadline: float = 0.0) -> int: ...
    def stop(self) -> None: ...
    def play(self, pits: Sequence[int], pit: int) -> tuple[tuple[int, ...], int, int]: ...
    def endgame(self) -> bytes: ...
    def load_endgame(self, path: str, offset: int, mapped: bool = False) -> None: ...
