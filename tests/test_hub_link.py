"""One board's link in the classroom hub (hub/link.py), without a board: what happens to the
page's requests when the line drops."""
import pytest

from mancala_host.errors import BoardError
from mancala_host.hub.link import BoardLink
from mancala_host.hub.room import Room


def test_requests_queued_before_the_line_dropped_fail_and_are_never_sent(tmp_path):
    # Sent after the reconnect, a new_game pressed during the blip would throw away the game
    # the board resumed: it fails at once instead, and the queue is empty for the next line.
    room = Room(str(tmp_path / "class"), [], usb=False)
    link = BoardLink("b1", str(tmp_path / "no-such-port"), room.folder, room)
    link.status = "live"
    new_game = link.call("new_game", first=0)
    config = link.call("set_config", config={"paused": True})
    link._away(BoardError("the port went away"))
    assert link.requests.empty() and link.status == "offline"
    for fut, cmd in ((new_game, "new_game"), (config, "set_config")):
        with pytest.raises(BoardError, match=r"no-such-port went off line before %s was sent"
                           % cmd):
            fut.result(0)
