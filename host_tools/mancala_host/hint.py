"""`hint`: ask the board which pit its CPU suggests for the seat to move (protocol `hint`).

The board searches for about half a second and answers `{"seat": s, "pit": n}`; the board
also shows the pit pulsing. With `--json` the answer is printed as JSON, as drive.py does.
"""

import json

from .errors import BoardError, BoardRefused
from .session import connect

# The board's search takes about half a second on an RP2040; give the answer room beyond the
# search even when --timeout is short.
SEARCH_S = 2.0


def ask(client):
    """The board's hint answer: a dict with seat and pit; BoardError in one sentence if not."""
    try:
        answer = client.request("hint", timeout=client.timeout + SEARCH_S)
    except BoardRefused as exc:
        if exc.code == "illegal_move":
            raise BoardError("There is no move to hint: the game on the board is over; start one "
                             "with 'mancala-board new'.", exit_code=exc.exit_code)
        if exc.code == "unknown_cmd":
            raise BoardError("The board's firmware does not know 'hint'; update it with "
                             "'mancala-board deploy'.", exit_code=exc.exit_code)
        raise
    seat, pit = answer.get("seat"), answer.get("pit")
    if not isinstance(seat, int) or not isinstance(pit, int) or isinstance(pit, bool):
        raise BoardError("The board answered 'hint' without a seat and a pit (%s); is its "
                         "firmware older than this tool?" % json.dumps(answer, sort_keys=True))
    return answer


def run(args):
    with connect(args) as client:
        answer = ask(client)
    if args.json:
        print(json.dumps({"seat": answer["seat"], "pit": answer["pit"]}, sort_keys=True))
    else:
        print("Seat %d to move: the CPU suggests pit %d." % (answer["seat"], answer["pit"]))
    return 0
