"""One board's link in the classroom hub (hub/link.py), without a board or with a model of one
(fakeboard.py): a request to a board that is not live fails at once, and is never sent later;
a fault of the hub's own stops the board on its tile, and the hub still closes."""
import pytest

from mancala_host.errors import BoardError
from fakeboard import FakeBoard, Flash
from mancala_host.hub.link import BoardLink, Listener
from waits import wait_for


def test_a_request_to_a_board_that_is_not_live_fails_at_once(tmp_path):
    # Sent after the reconnect, a new_game pressed during a blip would throw away the game
    # the board resumed: it fails at once instead, with a sentence for the page.
    link = BoardLink("b1", str(tmp_path / "no-such-port"), str(tmp_path), Listener())
    link._away("The port went away.")
    assert link.status == "offline" and link.problem == "The port went away."
    fut = link.call("new_game", first=0)
    with pytest.raises(BoardError, match=r"no-such-port is offline\.$"):
        fut.result(0)
    assert link.follower._outbox.empty()


class Faulty(Listener):
    """A room whose handling of the board's first state answer fails (a bug of the hub's)."""

    def board_ready(self, link, answer):
        raise RuntimeError("the dealer tripped")


def test_a_fault_of_the_hub_stops_the_board_on_its_tile_and_the_hub_still_closes(tmp_path, capsys):
    board = FakeBoard(Flash())
    link = BoardLink("b1", "fake://board", str(tmp_path), Faulty(), timeout=2.0)
    link.follower._opener = lambda: board
    link.start()
    # the tile says so, where before it stood still as it was, for good
    wait_for("the tile to say so", lambda: link.status == "stopped")
    assert link.problem.startswith("The hub stopped following this board after an error of its "
                                   "own (RuntimeError: the dealer tripped): restart the hub")
    link.close()
    link.join(5)     # the fault is not raised again: the other boards are closed after it
    assert "RuntimeError: the dealer tripped" in capsys.readouterr().err
