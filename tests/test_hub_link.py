"""One board's link in the classroom hub (hub/link.py), without a board: a request to a board
that is not live fails at once, and is never sent later."""
import pytest

from mancala_host.errors import BoardError
from mancala_host.hub.link import BoardLink, Listener


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
