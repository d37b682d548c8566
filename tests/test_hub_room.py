"""The classroom hub's room without boards: what the tournament API does to the room's state
(replacing a running tournament needs a confirmation)."""
import concurrent.futures

import pytest

from mancala_host.errors import BoardError, BoardRefused
from mancala_host.hub.kgp import Lobby
from mancala_host.hub.link import BoardLink
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


def test_deal_again_names_what_stands_in_its_way(tmp_path):
    room = Room(str(tmp_path / "class"), [], usb=False)
    with pytest.raises(BoardError, match="There is no board b9 in this room."):
        room.redeal("b9")
    room.links["b1"] = BoardLink("b1", str(tmp_path / "b1.pty"), room.folder, room)  # not started
    assert room.redeal("b1") == "There is no tournament to deal from."
    room.start_tournament(_tournament("Ann", "Ben"))
    assert room.redeal("b1") == "The board is not live: it is dealt to when it is back."


def test_a_restarted_room_has_its_tournament_and_setting_back(tmp_path):
    room = Room(str(tmp_path / "class"), [], usb=False)
    t = _tournament("Ann", "Ben", "Cy")
    room.start_tournament(t)
    room.setting = None
    room.journal.keep_setting({"animation_ms": 0})
    room.close()
    again = Room(str(tmp_path / "class"), [], usb=False)
    assert again.tournament.to_dict() == t.to_dict() and again.tournament.id == t.id
    assert again.setting == {"animation_ms": 0}


def test_the_export_tells_two_tournaments_apart(tmp_path):
    import csv
    import json

    from mancala import Game, Rules
    from mancala_host.hub import export
    from mancala_host.logs import gamelog

    log = tmp_path / "board-b1.jsonl"
    for tid in (1, 2):
        rules = Rules.from_dict({"variant": "kalah", "seeds": 3}).to_dict()
        game = gamelog.new_game({"profile": "duo"}, rules, [{"kind": "human"}] * 2, 0)
        engine = Game(Rules.from_dict(rules), first=0)
        engine.resign(0)
        game["moves"] = [{"seat": 0, "resign": True}]
        game["result"] = {"places": engine.to_dict()["places"], "stores": engine.to_dict()["stores"]}
        game["tournament"] = {"id": tid, "round": 1, "players": ["Ann", "Ben"]}
        gamelog.check_game(game)
        with open(str(log), "a") as f:
            f.write(json.dumps(game) + "\n")
    out = export.write_folder(str(tmp_path), [{"key": "b1", "label": "", "port": "",
                                               "status": "", "log": str(log)}], None)
    with open(out + "/games.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(r["tournament"], r["round"], r["seat0"]) for r in rows] == [("1", "1", "Ann"),
                                                                        ("2", "1", "Ann")]


class RefusingLink(BoardLink):
    """A live board that refuses new_game with the board's own reason (the protocol's
    bad_request, as docs/protocol.md gives it), and takes every other request."""

    refuse = True

    def call(self, cmd, **fields):
        fut = concurrent.futures.Future()
        if cmd == "new_game" and self.refuse:
            fut.set_exception(BoardRefused("bad_request", "The board's menu is open."))
        else:
            fut.set_result({})
        return fut


def test_a_new_game_the_board_refuses_shows_on_its_tile_until_one_starts(tmp_path):
    room = Room(str(tmp_path / "class"), [], usb=False)
    shown = []
    room.on_change = lambda key, tile: shown.append(tile["problem"])
    link = room.links["b1"] = RefusingLink("b1", str(tmp_path / "b1.pty"), room.folder, room)
    link.status = "live"
    assert room.start_games() == {"b1": "The board's menu is open."}
    assert room.tile(link)["problem"] == "No new game: The board's menu is open." == shown[-1]
    link.refuse = False
    assert room.start_games(["b1"]) == {"b1": "ok"}
    assert room.tile(link)["problem"] == "" == shown[-1]


def test_the_bots_rules_set_on_the_page_are_back_after_a_restart(tmp_path):
    room = Room(str(tmp_path / "class"), [], usb=False)
    assert Lobby(room).set_rules(move_s=12, no_move="forfeit") == {
        "move_s": 12, "grace_s": 60, "no_move": "forfeit"}
    room.close()
    again = Room(str(tmp_path / "class"), [], usb=False)
    # what the command line gives wins; the rest is the page's
    assert Lobby(again).restore_rules(grace_s=30) == {
        "move_s": 12, "grace_s": 30, "no_move": "forfeit"}
    again.close()
