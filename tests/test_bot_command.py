"""`mancala-board bot FILE.py`: a student's choose(position) against the CPU (--local) and on
a hub (the KGP server on a model room, test_hub_kgp.py); what the student got wrong is one
sentence with the position, never a traceback."""
import subprocess
import sys
import threading

import pytest

from mancala_host.bots.runner import Bot, play_hub
from test_host_sim import ENV
from test_hub_kgp import Hub, ModelRoom
from waits import wait_for


def _bot(tmp_path, body, name="mybot"):
    path = tmp_path / (name + ".py")
    path.write_text(body)
    return str(path)


def _run(*args):
    return subprocess.run([sys.executable, "-m", "mancala_host", "bot"] + list(args), env=ENV,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("body, words", [
    ("def choose(position):\n    return 1 / 0\n", "choose() raised ZeroDivisionError"),
    ("def choose(position):\n    return 9\n", "choose() returned 9, not a legal pit (1, 2, 3, 4, 5, 6)"),
    ("def choose(position):\n    return '3'\n", "choose() returned '3', not a legal pit"),
    ("import nosuchthing\n", "could not be loaded: ModuleNotFoundError"),
    ("def pick(position):\n    return 1\n", "has no function choose(position)"),
])
def test_a_student_error_is_one_sentence_with_the_position(tmp_path, body, words):
    done = _run(_bot(tmp_path, body), "--local", "1", "--games", "1")
    assert done.returncode == 1 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in done.stderr
    if "choose()" in words:
        assert "in the position pits [4, 4, 4, 4, 4, 4], store 0; theirs [4, 4, 4, 4, 4, 4]" in lines[0]


def test_a_bot_plays_the_cpu_locally_and_reports(tmp_path):
    body = "def choose(position):\n    return position.legal_moves()[-1]\n"
    done = _run(_bot(tmp_path, body), "--local", "1", "--games", "2")
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("mybot: ") and last.endswith("of 2 against CPU level 1.")


def test_a_position_plays_as_the_engine_does():
    from mancala_host.bots.runner import Position
    p = Position([4] * 6, [4] * 6)
    after, again = p.play(3)            # 4 stones from pit 3: the last lands in the store
    assert again and after.pits == [4, 4, 0, 5, 5, 5] and after.store == 1
    after, again = Position([0, 4, 4, 4, 4, 4], [3, 3, 3, 3, 3, 0], 1, 0).play(6)   # 3 seeds a pit
    assert not again and (after.pits, after.store) == ([4, 4, 4, 3, 3, 0], 0)
    assert (after.their_pits, after.their_store) == ([0, 4, 4, 4, 4, 0], 2)
    after, again = p.play(1)
    assert not again and after.pits == [4, 4, 4, 4, 4, 4] and after.their_pits == [0, 5, 5, 5, 5, 4]


def test_two_runner_bots_play_a_game_on_a_hub(tmp_path):
    hub = Hub(ModelRoom(["ann=bot", "bob=bot"]), move_s=30)
    said = []
    try:
        first = Bot(_bot(tmp_path, "def choose(p):\n    return p.legal_moves()[0]\n", "ann"))
        last = Bot(_bot(tmp_path, "def choose(p):\n    return p.legal_moves()[-1]\n", "bob"))
        for bot in (first, last):
            threading.Thread(target=play_hub, args=(bot, "127.0.0.1", hub.port, bot.name),
                             kwargs={"say": said.append}, daemon=True).start()
        wait_for("the game to end", lambda: hub.room.game.over)
        assert hub.room.refused == [] and hub.room.resigned == []
        assert {n for n in said if "joined" in n} == {
            "ann joined the class at 127.0.0.1:%d." % hub.port,
            "bob joined the class at 127.0.0.1:%d." % hub.port}
    finally:
        hub.close()
