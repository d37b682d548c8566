"""`mancala-board hint` against the scripted fake port: the answer, refusals, odd answers."""

import json

from fakeport import ANSWER, FakePort, board_script, one_sentence, run
from mancala_host.commands import hint


def test_hint_prints_the_suggested_pit(monkeypatch, capsys):
    port = FakePort(board_script(hint=[{"id": ANSWER, "ok": True, "seat": 1, "pit": 4}]))
    code, out, err = run(monkeypatch, capsys, port, ["hint"])
    assert code == 0, err
    assert out == "Seat 1 to move: the CPU suggests pit 4.\n"
    assert [m["cmd"] for m in port.sent] == ["hello", "hint"]
    assert set(port.sent[1]) == {"id", "cmd"}  # the protocol's hint takes no arguments
    assert port.closed


def test_hint_json(monkeypatch, capsys):
    port = FakePort(board_script(hint=[{"id": ANSWER, "ok": True, "seat": 0, "pit": 6}]))
    code, out, err = run(monkeypatch, capsys, port, ["--json", "hint"])
    assert code == 0, err
    assert json.loads(out) == {"seat": 0, "pit": 6}


def test_an_exact_hint_names_every_perfect_pit_and_the_outcome(monkeypatch, capsys):
    exact = {"id": ANSWER, "ok": True, "seat": 0, "pit": 6, "exact": 4, "best": [2, 3, 6],
             "outcome": "seat 0 wins by 4 with best play"}
    code, out, err = run(monkeypatch, capsys, FakePort(board_script(hint=[exact])), ["hint"])
    assert code == 0, err
    assert out == ("Seat 0 to move: pits 2, 3 and 6 are perfect (the board's endgame table); "
                   "seat 0 wins by 4 with best play.\n")
    code, out, err = run(monkeypatch, capsys, FakePort(board_script(hint=[exact])),
                         ["--json", "hint"])
    assert json.loads(out) == {"seat": 0, "pit": 6, "exact": 4, "best": [2, 3, 6],
                               "outcome": "seat 0 wins by 4 with best play"}


def test_hint_after_the_game_is_one_sentence(monkeypatch, capsys):
    refusal = {"id": ANSWER, "ok": False,
               "error": {"code": "illegal_move", "message": "The game is over; there is no move to hint."}}
    code, out, err = run(monkeypatch, capsys, FakePort(board_script(hint=[refusal])), ["hint"])
    assert code == 2 and out == ""
    assert "game on the board is over" in one_sentence(err) and "mancala-board new" in err


def test_hint_on_firmware_without_it(monkeypatch, capsys):
    refusal = {"id": ANSWER, "ok": False, "error": {"code": "unknown_cmd", "message": "unknown command 'hint'"}}
    code, out, err = run(monkeypatch, capsys, FakePort(board_script(hint=[refusal])), ["hint"])
    assert code == 2
    assert "does not know 'hint'" in one_sentence(err)


def test_hint_dropped_by_a_change_on_the_board(monkeypatch, capsys):
    refusal = {"id": ANSWER, "ok": False, "error": {"code": "hint_dropped", "message": "dropped."}}
    code, out, err = run(monkeypatch, capsys, FakePort(board_script(hint=[refusal])), ["hint"])
    assert code == 2 and out == ""
    assert "changed" in one_sentence(err) and "mancala-board hint' again" in err


def test_hint_waits_longer_than_the_boards_search():
    from mancala_fw.app import autoplay  # the firmware's search budget, as the board runs it

    class Client:
        timeout = 0.5  # a short --timeout

        def request(self, cmd, timeout):
            self.waited = timeout
            return {"seat": 0, "pit": 1}

    client = Client()
    hint.ask(client)
    assert client.waited >= client.timeout + autoplay.THINK_MS / 1000 * 1.5


def test_other_refusals_keep_the_boards_words(monkeypatch, capsys):
    refusal = {"id": ANSWER, "ok": False, "error": {"code": "busy", "message": "The menu is open."}}
    code, out, err = run(monkeypatch, capsys, FakePort(board_script(hint=[refusal])), ["hint"])
    assert code == 2
    assert one_sentence(err) == "The board refused (busy): The menu is open."


def test_hint_answer_without_a_pit(monkeypatch, capsys):
    port = FakePort(board_script(hint=[{"id": ANSWER, "ok": True, "seat": 0}]))
    code, out, err = run(monkeypatch, capsys, port, ["hint"])
    assert code == 1
    assert "without a seat and a pit" in one_sentence(err)


def test_silent_board_on_hint(monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys, FakePort(board_script()), ["hint"])
    assert code == 1
    assert "did not answer 'hint'" in one_sentence(err)
