"""`hint`: ask the board which pit its CPU suggests for the seat to move (protocol `hint`).

The board searches for up to a second (its CPU budget), in slices so that its pads and LEDs
stay live, and answers `{"seat": s, "pit": n}`; the board also shows the pit pulsing. If the
game changes on the board before the search ends, the board answers `hint_dropped`. With
`--json` the answer is printed as JSON, as drive.py does.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from ..errors import BoardError, BoardRefused
from ..link.session import connect

if TYPE_CHECKING:
    from ..link.client import Client

# The board's search takes up to its CPU budget of 1 s (app.autoplay.THINK_MS), measured on
# the board's clock; give the answer that much room and as much again beyond --timeout.
SEARCH_S = 2.0


def ask(client: Client) -> dict[str, Any]:
    """The board's hint answer: a dict with seat and pit; BoardError in one sentence if not."""
    try:
        answer = client.request("hint", timeout=client.timeout + SEARCH_S)
    except BoardRefused as exc:
        if exc.code == "illegal_move":
            raise BoardError("There is no move to hint: the game on the board is over; start one "
                             "with 'mancala-board new'.", exit_code=exc.exit_code)
        if exc.code == "hint_dropped":
            raise BoardError("The game on the board changed (a move, an undo, a new game or its "
                             "menu) before the hint was ready; run 'mancala-board hint' again.",
                             exit_code=exc.exit_code)
        if exc.code == "unknown_cmd":
            raise BoardError("The board's firmware does not know 'hint'; update it with "
                             "'mancala-board deploy'.", exit_code=exc.exit_code)
        raise
    seat, pit = answer.get("seat"), answer.get("pit")
    if not isinstance(seat, int) or not isinstance(pit, int) or isinstance(pit, bool):
        raise BoardError("The board answered 'hint' without a seat and a pit (%s); is its "
                         "firmware older than this tool?" % json.dumps(answer, sort_keys=True))
    return answer


def run(args: argparse.Namespace) -> int:
    if getattr(args, "exact", False):
        return _run_exact(args)
    with connect(args) as client:
        answer = ask(client)
    # In an endgame its table covers, the board answers exactly: the value, every pit that
    # keeps it and the outcome (docs/protocol.md section 4, hint).
    exact = isinstance(answer.get("best"), list) and isinstance(answer.get("outcome"), str)
    if args.json:
        out = {"seat": answer["seat"], "pit": answer["pit"]}
        if exact:
            out.update((k, answer.get(k)) for k in ("exact", "best", "outcome"))
        print(json.dumps(out, sort_keys=True))
    elif exact:
        best = [str(p) for p in answer["best"]]
        pits = "pit " + best[0] if len(best) == 1 else \
            "pits " + ", ".join(best[:-1]) + " and " + best[-1]
        print("Seat %d to move: %s %s perfect (the board's endgame table); %s." % (
            answer["seat"], pits, "is" if len(best) == 1 else "are", answer["outcome"]))
    else:
        print("Seat %d to move: the CPU suggests pit %d." % (answer["seat"], answer["pit"]))
    return 0


def _run_exact(args: argparse.Namespace) -> int:
    """hint --exact: the exact solver on the board's position (exact.py), within --seconds,
    with a progress line on a terminal; where it has no answer (Basic, or past the budget)
    one sentence says so and the board's CPU hint follows. Ctrl-C stops the search with one
    sentence."""
    from ..logs import exact
    from ..logs.progress import Progress
    from ..solver import searched
    budget = exact.Budget.from_args(args)
    with connect(args) as client:
        state = client.request("state").get("state")
        if not isinstance(state, dict):
            raise BoardError("The board answered 'state' without a state; is its firmware older "
                             "than this tool?")
        try:
            with Progress(searched, budget.seconds) as progress:
                answer, sentence = exact.hint_lines(state, budget, progress)
        except KeyboardInterrupt:
            raise BoardError("Stopped: Ctrl-C ended the exact search; the board is as it was.",
                             exit_code=exact.INTERRUPTED)
        if answer is None:
            board = ask(client)
    if answer is not None:
        if args.json:
            out = dict(answer, moves={str(p): v for p, v in answer["moves"].items()})
            print(json.dumps(out, sort_keys=True))
        else:
            print(sentence)
    elif args.json:
        print(json.dumps({"seat": board["seat"], "pit": board["pit"], "exact": None,
                          "why": sentence}, sort_keys=True))
    else:
        print("%s The board's CPU suggests pit %d for seat %d instead." % (
            sentence, board["pit"], board["seat"]))
    return 0
