"""The hub's dealer and journal without boards (hub/dealing.py, hub/journal.py): boards that
answer as protocol 2 says (each new game gets the board's next game id; `game` answers a
finished game or unknown_game), a dealer started again on the same journal (a hub killed and
restarted), a game that ended while the hub was away, a wiped board, a refusal, and two
tournaments told apart."""
import concurrent.futures

import pytest

from mancala_host.errors import BoardError, BoardRefused
from mancala_host.hub.dealing import Dealer, TournamentRunning
from mancala_host.hub.journal import Journal
from mancala_host.hub.tournament import Tournament, parse_players

RESULT = ([1, 2], [20, 16])   # seat 0 wins 20 to 16


class Boards:
    """The room's boards as the dealer sees them through send(): requests wait until pump()
    answers them in order, each new_game's event (with the board's next game id) before its
    answer, as a board sends them. `finished[key]` holds each board's finished games by id;
    a key in `refuse` refuses new_game with bad_config."""

    def __init__(self):
        self.pending = []
        self.sent = []
        self.ids = {}
        self.finished = {}
        self.refuse = set()
        self.dealer = None
        self.changed = []

    def send(self, key, cmd, fields):
        fut = concurrent.futures.Future()
        self.sent.append((key, cmd, fields))
        self.pending.append((key, cmd, fields, fut))
        return fut

    def pump(self):
        while self.pending:
            key, cmd, fields, fut = self.pending.pop(0)
            if cmd == "new_game" and key in self.refuse:
                fut.set_exception(BoardRefused("bad_config", "seats: this board has no level 9."))
            elif cmd == "new_game":
                self.ids[key] = (self.ids.get(key) or 0) + 1
                self.dealer.new_game(key, {"event": "new_game", "game": self.ids[key]})
                fut.set_result({"game": self.ids[key]})
            elif cmd == "game":
                kept = self.finished.get(key, {}).get(fields["game"])
                if kept is None:
                    fut.set_exception(BoardRefused("unknown_game", "no game %d here." % fields["game"]))
                else:
                    fut.set_result({"game": {"game": fields["game"], "result": {
                        "places": kept[0], "stores": kept[1]}}})
            else:
                fut.set_result({})

    def ready(self, key, over=False, board_id=None):
        """The board's line opens: its state answer names its current game."""
        gid = self.ids.get(key)
        state = {"over": over, "places": RESULT[0] if over else [None, None],
                 "stores": RESULT[1] if over else [0, 0]}
        self.dealer.ready(key, board_id or "id-" + key, {"state": state, "game": gid, "moves": 9})
        self.pump()

    def end(self, key):
        """The board's dealt game ends while the hub listens."""
        self.finished.setdefault(key, {})[self.ids[key]] = RESULT
        self.dealer.game_over(key, {"event": "game_over", "game": self.ids[key],
                                    "places": RESULT[0], "stores": RESULT[1]})
        self.pump()


def _dealer(path, boards):
    boards.dealer = Dealer(Journal(str(path)), boards.send, boards.changed.append)
    return boards.dealer


def _room(tmp_path, players=("A", "B", "C", "D"), keys=("b1", "b2")):
    boards = Boards()
    dealer = _dealer(tmp_path / "hub.sqlite", boards)
    dealer.start(Tournament(parse_players(list(players))))
    for key in keys:
        boards.ready(key)
    return boards, dealer


def _dealt(dealer):
    return {k: g.names for k, (g, _) in dealer.deals.items()}


def test_a_restarted_dealer_carries_on_where_it_stood(tmp_path):
    boards, dealer = _room(tmp_path)
    first = _dealt(dealer)
    assert sorted(first) == ["b1", "b2"]
    boards.end("b1")     # round 1: one game played, one under way on b2
    standings = dealer.standings()
    # the hub is killed here; a new one opens the same journal, and the boards come back
    boards2 = Boards()
    boards2.ids = dict(boards.ids)
    again = _dealer(tmp_path / "hub.sqlite", boards2)
    assert again.standings() == standings
    assert _dealt(again) == {"b2": first["b2"]}
    boards2.ready("b2")           # its game still under way: followed, nothing sent
    assert boards2.sent == []
    boards2.ready("b1")           # free: gets nothing, the round's last game is on b2
    assert _dealt(again) == {"b2": first["b2"]}
    boards2.end("b2")             # round 2 comes, dealt to both
    assert again.tournament.round == 2 and sorted(_dealt(again)) == ["b1", "b2"]
    assert [r["played"] for r in again.standings()["standings"]] == [1, 1, 1, 1]


def test_a_game_that_ended_while_the_hub_was_away_is_fetched_and_counted_once(tmp_path):
    boards, dealer = _room(tmp_path)
    dealt_b1 = boards.ids["b1"]
    # b1's game ends and a new one starts on the board's own pads while the hub is down
    boards.finished["b1"] = {dealt_b1: RESULT}
    boards.ids["b1"] += 1
    boards2 = Boards()
    boards2.ids, boards2.finished = dict(boards.ids), boards.finished
    again = _dealer(tmp_path / "hub.sqlite", boards2)
    boards2.ready("b1")
    assert ("b1", "game", {"game": dealt_b1}) in boards2.sent
    played = {r["name"]: r["played"] for r in again.standings()["standings"]}
    assert sum(played.values()) == 2
    boards2.ready("b1")    # a second reconnect does not count it again
    assert sum(r["played"] for r in again.standings()["standings"]) == 2


def test_a_wiped_board_gets_its_game_dealt_again_and_its_tile_says_so(tmp_path):
    boards, dealer = _room(tmp_path)
    names = _dealt(dealer)["b2"]
    # wiped, then a game started on its pads: the board has no record of the dealt one
    boards.ids["b2"] = 7
    boards.sent.clear()
    boards.ready("b2")
    assert [c for _, c, _ in boards.sent] == ["game", "set_config", "new_game"]
    assert _dealt(dealer)["b2"] == names and dealer.deals["b2"][1].game == 8
    assert dealer.tile("b2")["deal_problem"].startswith("The board came back without its "
                                                        "tournament game")
    # wiped and back with no game at all: dealt again at once
    boards.ids["b2"] = None
    boards.sent.clear()
    boards.ready("b2")
    assert [c for _, c, _ in boards.sent] == ["set_config", "new_game"]
    assert _dealt(dealer)["b2"] == names and dealer.deals["b2"][1].game == 1
    assert sum(r["played"] for r in dealer.standings()["standings"]) == 0


def test_a_refused_game_shows_on_the_tile_goes_to_another_board_and_is_dealt_again_on_request(tmp_path):
    boards = Boards()
    dealer = _dealer(tmp_path / "hub.sqlite", boards)
    boards.refuse.add("b1")
    dealer.start(Tournament(parse_players(["A", "B", "C", "D"])))
    boards.ready("b1")
    tile = dealer.tile("b1")
    assert tile["redeal"] and tile["players"] is None
    assert tile["deal_problem"] == ("Refused its tournament game (A v D): seats: this board "
                                    "has no level 9.")
    boards.ready("b2")
    boards.ready("b3")
    assert sorted(_dealt(dealer)) == ["b2", "b3"]     # both games of the round went elsewhere
    boards.refuse.clear()
    boards.end("b2")
    assert dealer.redeal("b1") == "ok"
    boards.pump()
    assert "b1" not in _dealt(dealer)   # nothing left in round 1 for it
    assert not dealer.tile("b1")["redeal"] and dealer.tile("b1")["deal_problem"] == ""


def test_two_tournaments_are_told_apart_and_the_replaced_one_is_not_restored(tmp_path):
    boards, dealer = _room(tmp_path)
    old = dealer.tag("b1", boards.ids["b1"])
    with pytest.raises(TournamentRunning):
        dealer.start(Tournament(parse_players(["E", "F"])))
    assert dealer.tag("b1", boards.ids["b1"]) == old
    dealer.start(Tournament(parse_players(["E", "F"])), replace=True)
    boards.pump()
    new = [dealer.tag(k, boards.ids[k]) for k in ("b1", "b2")]
    tag = next(t for t in new if t is not None)
    assert tag["id"] != old["id"] and tag["players"] == ["E", "F"] and old["players"] != ["E", "F"]
    again = _dealer(tmp_path / "hub.sqlite", Boards())
    assert again.tid == tag["id"] and again.tournament.spec()["players"] == ["E", "F"]


def test_a_finished_games_tile_names_its_players_until_the_boards_next_game(tmp_path):
    """A finished tile said 'seat 0 (CPU 2) won': its deal was gone with the game's end. The
    dealer keeps the finished game's players for its tile until the board starts another."""
    boards, dealer = _room(tmp_path)
    first = _dealt(dealer)
    assert dealer.tile("b1")["finished_players"] is None
    boards.end("b1")
    tile = dealer.tile("b1")
    assert tile["finished_players"] == list(first["b1"]) and tile["players"] is None
    boards.end("b2")      # round 2 is dealt to both: their new games start
    for key in ("b1", "b2"):
        tile = dealer.tile(key)
        assert tile["finished_players"] is None and tile["players"] == list(_dealt(dealer)[key])


def test_a_game_handed_over_late_gets_its_own_tournament_tag(tmp_path):
    boards, dealer = _room(tmp_path)
    b1_first = boards.ids["b1"]
    boards.end("b1")
    round1 = dealer.tag("b1", b1_first, "id-b1")
    assert round1["round"] == 1 and round1["players"] == list(dealer.tournament.games[0].names)
    # b2 ends too: round 2 is dealt, its new games not started yet (the requests not answered)
    boards.finished["b2"] = {boards.ids["b2"]: RESULT}
    dealer.game_over("b2", {"event": "game_over", "game": boards.ids["b2"],
                            "places": RESULT[0], "stores": RESULT[1]})
    assert dealer.tournament.round == 2
    # a round-1 game handed over now (fetched after a gap) keeps round 1's tag, not round 2's
    assert dealer.tag("b1", b1_first, "id-b1") == round1
    boards.pump()
    assert dealer.tag("b1", boards.ids["b1"], "id-b1")["round"] == 2
    # a hub started again hands it over before the board reports ready: the board's id names it
    again = _dealer(tmp_path / "hub.sqlite", Boards())
    assert again.tag("b1", b1_first, "id-b1") == round1


def test_a_deal_that_fails_at_once_goes_back_and_waits_for_the_board(tmp_path):
    # b2's line has just dropped and the dealer has not heard yet: every request to it fails
    # at once. Its deal goes back to the queue once, and no deal goes to b2 until it answers
    # again (before, the dealer dealt to it again at once, and again, to a RecursionError).
    boards, dealer = _room(tmp_path)
    failing = set()
    send = boards.send

    def sends(key, cmd, fields):
        if key in failing:
            fut = concurrent.futures.Future()
            fut.set_exception(BoardError("The board on %s is not connected." % key))
            boards.sent.append((key, cmd, fields))
            return fut
        return send(key, cmd, fields)
    dealer.send = sends
    boards.end("b2")
    failing.add("b2")
    before = len(boards.sent)
    boards.end("b1")                         # round 2: one game for b1, one for b2
    to_b2 = [s for s in boards.sent[before:] if s[0] == "b2"]
    assert [cmd for _, cmd, _ in to_b2] == ["set_config", "new_game"]
    assert list(dealer.deals) == ["b1"]
    assert dealer.tile("b2")["deal_problem"].startswith("Could not start its tournament game")
    left = [g.names for g in dealer.tournament.games if g.round == 2 and g.board is None]
    failing.clear()
    dealer.state("b2", {"state": {"over": True}, "game": boards.ids["b2"]})   # it answers again
    boards.pump()
    assert dealer.deals["b2"][0].names in left and len(left) == 1
