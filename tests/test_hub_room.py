"""The classroom hub's room without boards: what the tournament API does to the room's state
(replacing a running tournament needs a confirmation)."""
import pytest

from mancala_host.hub.room import Room, TournamentRunning
from mancala_host.hub.tournament import Tournament, parse_players


def _tournament(*names):
    return Tournament(parse_players(list(names)))


def test_a_running_tournament_is_replaced_only_when_confirmed(tmp_path):
    room = Room(str(tmp_path / "class"), [], usb=False)
    first = _tournament("Ann", "Ben", "Cy")
    room.start_tournament(first)
    with pytest.raises(TournamentRunning, match=r"^A tournament is running \(round 1 of 3\): "
                                                r"confirm to replace it"):
        room.start_tournament(_tournament("Dee", "Eve"))
    assert room.tournament is first
    second = _tournament("Dee", "Eve")
    room.start_tournament(second, replace=True)
    assert room.tournament is second
