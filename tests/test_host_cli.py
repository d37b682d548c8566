"""The host tool's CLI and client against the scripted fake port: answers, refusals, faults.

Every fault must end as one sentence on stderr with a non-zero exit, never a traceback.
"""

import os
import types

import pytest

from fakeport import ANSWER, CONFIG, HELLO, LOST, FakePort, board_script, one_sentence, run

from mancala_host.commands import cli, configkeys
from mancala_host.link import session, transport
from mancala_host.errors import BoardError



def test_info_shows_hello_and_rules(monkeypatch, capsys):
    port = FakePort(board_script())
    code, out, err = run(monkeypatch, capsys, port, ["info"])
    assert code == 0, err
    assert "duo" in out and "0.1.0" in out and "Kalah, 6 pits, 4 seeds" in out
    assert [m["cmd"] for m in port.sent] == ["hello", "get_config"]
    assert port.closed


def test_silent_device_is_one_sentence(monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys, FakePort({}), ["info"])
    assert code != 0
    assert "does not answer hello" in one_sentence(err)


def test_garbage_on_the_line_is_named(monkeypatch, capsys):
    port = FakePort({"hello": [b"\x00\xffnoise here\n", b"MicroPython v1.23 on 2024\n"]})
    code, out, err = run(monkeypatch, capsys, port, ["state"])
    assert code != 0
    assert "not the board's protocol" in one_sentence(err)
    assert "noise here" in err


def test_boot_banner_before_hello_is_skipped(monkeypatch, capsys):
    port = FakePort(board_script(), greeting=[b"MicroPython v1.23; Raspberry Pi Pico\n", {"event": "boot"}])
    code, out, err = run(monkeypatch, capsys, port, ["info"])
    assert code == 0, err


def test_wrong_protocol_version(monkeypatch, capsys):
    hello = dict(HELLO, protocol=7)
    code, out, err = run(monkeypatch, capsys, FakePort({"hello": [hello]}), ["info"])
    assert code != 0 and "protocol 7" in one_sentence(err)


def test_timeout_after_hello(monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys, FakePort(board_script()), ["state"])
    assert code != 0
    assert "did not answer 'state'" in one_sentence(err)


def test_board_refusal_is_shown_word_for_word(monkeypatch, capsys):
    words = "brightness must be an integer from 0 to 100, got 300."
    refusal = {"id": ANSWER, "ok": False, "error": {"code": "bad_config", "message": words}}
    port = FakePort(board_script(set_config=[refusal]))
    code, out, err = run(monkeypatch, capsys, port, ["config", "set", "brightness=300"])
    assert code != 0
    assert words in one_sentence(err) and "bad_config" in err
    assert port.sent[-1]["config"] == {"brightness": 300}


def test_config_set_warnings_shown(monkeypatch, capsys):
    new = dict(CONFIG, rules={"variant": "basic", "players": 3, "pits": 6, "seeds": 4, "play_all_places": True})
    answer = {"id": ANSWER, "ok": True, "config": new, "warnings": ["pits changed from 7 to 6: 3 players play on 6 or 4 pits"]}
    port = FakePort(board_script(set_config=[answer]))
    code, out, err = run(monkeypatch, capsys, port, ["config", "set", "rules.variant=basic", "rules.players=3", "rules.pits=7"])
    assert code == 0, err
    assert "warning: pits changed from 7 to 6: 3 players play on 6 or 4 pits" in out
    assert "rules.players=3" in out
    assert port.sent[-1]["config"] == {"rules": {"variant": "basic", "players": 3, "pits": 7}}


def test_dotted_keys_merge_over_current_config():
    sub = configkeys.build_subset(CONFIG, ["rules.seeds=5"])
    assert sub == {"rules": dict(CONFIG["rules"], seeds=5)}
    sub = configkeys.build_subset(CONFIG, ["seats.1.kind=cpu", "seats.1.level=3"])
    assert sub == {"seats": [{"kind": "human"}, {"kind": "cpu", "level": 3}]}
    sub = configkeys.build_subset(CONFIG, ["rules.preset=kalah-empty-capture"])
    assert sub == {"rules": {"preset": "kalah-empty-capture"}}
    sub = configkeys.build_subset(CONFIG, ["rotate_starter=false", "brightness=80"])
    assert sub == {"rotate_starter": False, "brightness": 80}


def test_a_seat_whose_kind_changes_drops_the_old_kinds_keys():
    # A CPU seat turned back into a person's: its level goes with it (the board refused
    # {"kind": "human", "level": 3}); the same kind keeps its level.
    cpus = dict(CONFIG, seats=[{"kind": "cpu", "level": 2}, {"kind": "cpu", "level": 4}])
    sub = configkeys.build_subset(cpus, ["seats.0.kind=human", "seats.1.kind=human"])
    assert sub == {"seats": [{"kind": "human"}, {"kind": "human"}]}
    sub = configkeys.build_subset(cpus, ["seats.1.kind=cpu"])
    assert sub == {"seats": [{"kind": "cpu", "level": 2}, {"kind": "cpu", "level": 4}]}
    sub = configkeys.build_subset(CONFIG, ["seats.1.level=5", "seats.1.kind=cpu"])
    assert sub == {"seats": [{"kind": "human"}, {"kind": "cpu", "level": 5}]}


@pytest.mark.parametrize("pair, words", [
    ("brightness", "is not key=value"),
    ("seats.5.kind=cpu", "entries 0 to 1"),
    ("brightness.x=1", "single value"),
])
def test_bad_assignments_are_explained(pair, words):
    with pytest.raises(BoardError) as info:
        configkeys.build_subset(CONFIG, [pair])
    assert words in str(info.value)


def test_press_prints_commentary(monkeypatch, capsys):
    record = {"kind": "sow", "seat": 0, "pit": 3, "stones": 4, "sown": [[0, 4], [0, 5], [0, 6], [0, 0]],
              "capture": None, "extra": True, "finished": [], "sweep": None, "over": False,
              "places": [None, None], "turn": 0}
    state = {"rules": CONFIG["rules"], "pits": [[4, 4, 0, 5, 5, 5], [4] * 6], "stores": [1, 0],
             "turn": 0, "active": [0, 1], "places": [None, None], "over": False}
    answer = {"id": ANSWER, "ok": True, "state": state, "record": record}
    port = FakePort(board_script(press=[{"event": "move", "seat": 0, "pit": 3, "record": record, "state": state}, answer]))
    code, out, err = run(monkeypatch, capsys, port, ["press", "0", "3"])
    assert code == 0, err
    assert "Seat 0 sows 4 from pit 3; the last stone lands in its own store: seat 0 moves again." in out
    assert port.sent[-1] == {"id": port.sent[-1]["id"], "cmd": "press", "seat": 0, "pit": 3}


def test_press_without_a_seat_plays_for_the_seat_to_move(monkeypatch, capsys):
    answer = {"id": ANSWER, "ok": False, "error": {"code": "illegal_move", "message": "Pit 3 is empty."}}
    port = FakePort(board_script(press=[answer]))
    code, out, err = run(monkeypatch, capsys, port, ["press", "3"])
    assert port.sent[-1] == {"id": port.sent[-1]["id"], "cmd": "press", "pit": 3}
    code, out, err = run(monkeypatch, capsys, FakePort(board_script()), ["press", "1", "2", "3"])
    assert code == 2 and "press takes a pit, or a seat and a pit (press 4, press 1 4), got 3 numbers." in err


def test_illegal_press_is_refused(monkeypatch, capsys):
    refusal = {"id": ANSWER, "ok": False, "error": {"code": "illegal_move", "message": "It is seat 1's turn, not seat 0's."}}
    code, out, err = run(monkeypatch, capsys, FakePort(board_script(press=[refusal])), ["press", "0", "3"])
    assert code == 2 and "It is seat 1's turn, not seat 0's." in one_sentence(err)


def test_line_lost_mid_command(monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys, FakePort(board_script(state=[LOST])), ["state"])
    assert code != 0 and "went away" in one_sentence(err)


@pytest.mark.parametrize("argv", [["--json", "state"], ["state", "--json"]])
def test_json_output_for_scripts(monkeypatch, capsys, argv):
    state = {"rules": CONFIG["rules"], "pits": [[4] * 6, [4] * 6], "stores": [0, 0], "turn": 0,
             "active": [0, 1], "places": [None, None], "over": False}
    port = FakePort(board_script(state=[{"id": ANSWER, "ok": True, "state": state, "first": 0, "moves": 0}]))
    code, out, err = run(monkeypatch, capsys, port, argv)
    import json
    assert code == 0 and json.loads(out)["state"] == state


def test_answers_left_on_the_line_by_an_earlier_program_are_not_taken(monkeypatch, capsys):
    # A program that timed out and exited leaves the board's late answers on the line, with
    # the ids it numbered from: they must not pass for this program's answers.
    state = {"rules": CONFIG["rules"], "pits": [[4] * 6, [4] * 6], "stores": [0, 0], "turn": 0,
             "active": [0, 1], "places": [None, None], "over": False}
    stale = [dict(HELLO, id=i) for i in range(1, 6)]
    port = FakePort(board_script(state=[{"id": ANSWER, "ok": True, "state": state, "first": 0,
                                         "moves": 0}]), greeting=stale)
    code, out, err = run(monkeypatch, capsys, port, ["--json", "state"])
    import json
    assert code == 0 and json.loads(out)["state"] == state, err
    assert all(r["id"] > 5 for r in port.sent)


def test_missing_port_path(capsys):
    code = cli.main(["--port", "/dev/does-not-exist-mancala", "info"])
    err = capsys.readouterr().err
    assert code != 0 and "There is no serial port at /dev/does-not-exist-mancala" in one_sentence(err)


def test_busy_port_is_named():
    master, slave = os.openpty()
    try:
        name = os.ttyname(slave)
        first = transport.SerialTransport(name)
        try:
            with pytest.raises(BoardError) as info:
                transport.SerialTransport(name)
            assert "busy" in str(info.value)
        finally:
            first.close()
    finally:
        os.close(master)
        os.close(slave)


def test_nothing_listening_on_socket_url(capsys):
    code = cli.main(["--port", "socket://127.0.0.1:9", "info"])
    err = capsys.readouterr().err
    assert code != 0 and "127.0.0.1:9" in one_sentence(err)


def _port(device, vid=None, pid=None, description="n/a"):
    return types.SimpleNamespace(device=device, vid=vid, pid=pid, description=description)


def test_find_board_by_usb_id():
    found = [_port("/dev/ttyS0"), _port("/dev/ttyACM0", 0x2E8A, 0x0005, "Board in FS mode")]
    assert transport.find_board(lambda: found) == "/dev/ttyACM0"
    with pytest.raises(BoardError) as info:
        transport.find_board(lambda: [_port("/dev/ttyS0", description="ttyS0")])
    assert "No board found" in str(info.value) and "/dev/ttyS0 (ttyS0)" in str(info.value)
    assert "'make sim'" in str(info.value)  # the way on with no board at all
    with pytest.raises(BoardError) as info:
        transport.find_board(lambda: found + [_port("/dev/ttyACM1", 0x2E8A, 0x0005)])
    assert "Several boards" in str(info.value) and "/dev/ttyACM1" in str(info.value)


def test_a_port_the_system_knows_is_no_board_gets_one_short_hello(monkeypatch, capsys):
    """/dev/ttyS0 (no USB ID) or another USB device is no board: one hello of half a second,
    not two of 2 s and 5 s (7.5 s before the answer), and the sentence says why."""
    from mancala_host.link import client as client_mod

    listed = [_port("/dev/ttyS0"), _port("/dev/ttyUSB0", 0x0403, 0x6001, "FT232R USB UART"),
              _port("/dev/ttyACM0", 0x2E8A, 0x0005, "Board in FS mode")]
    assert "no USB ID" in transport.not_a_board("/dev/ttyS0", lambda: listed)
    assert "0403:6001 (FT232R USB UART)" in transport.not_a_board("/dev/ttyUSB0", lambda: listed)
    for port in ("/dev/ttyACM0", "/dev/pts/3", "socket://localhost:7000"):
        assert transport.not_a_board(port, lambda: listed) is None
    waits = []
    real = client_mod.Client.request

    def request(self, cmd, timeout=None, **fields):
        waits.append(timeout)
        return real(self, cmd, timeout=0.01, **fields)
    monkeypatch.setattr(client_mod.Client, "request", request)
    port = FakePort({}, name="/dev/ttyS0")
    port.not_a_board = transport.not_a_board("/dev/ttyS0", lambda: listed)
    code, out, err = run(monkeypatch, capsys, port, ["--timeout", "5", "info"])
    assert code == 1 and waits == [client_mod.HELLO_NOT_A_BOARD_S] == [0.5]
    assert "does not answer hello, and it has no USB ID" in one_sentence(err)
    waits[:] = []
    code, out, err = run(monkeypatch, capsys, FakePort({}), ["--timeout", "5", "info"])
    assert code == 1 and sum(waits) <= 5  # a port that may be a board: two tries within --timeout


def test_a_folder_given_as_the_port_is_said_once(tmp_path, capsys):
    code = cli.main(["--port", str(tmp_path), "info"])
    sentence = one_sentence(capsys.readouterr().err)
    assert code == 1 and sentence.count(str(tmp_path)) == 1 and "is a folder, not a serial port" in sentence


def test_every_fault_a_person_can_fix_has_one_root_said_in_one_place(monkeypatch, capsys):
    """BoardError, the sim's UsageError and the hub's checks share MancalaError, and cli.main
    alone turns each into its sentence and exit status."""
    from mancala_host.errors import MancalaError
    from mancala_host.hub.dealing import TournamentRunning
    from mancala_host.hub.tournament import PlayersError, parse_players
    from mancala_host.sim.errors import UsageError

    for cls in (BoardError, UsageError, PlayersError, TournamentRunning):
        assert issubclass(cls, MancalaError), cls
    with pytest.raises(PlayersError, match="at least 2 players"):
        parse_players(["Ann"])
    for exc, said, code in ((UsageError("the link is taken"), "mancala-board sim: the link is taken", 2),
                            (PlayersError("A tournament needs at least 2 players, got 1."),
                             "A tournament needs at least 2 players, got 1.", 1),
                            (BoardError("The board is gone.", exit_code=3), "The board is gone.", 3)):
        def fail(args, exc=exc):
            raise exc
        monkeypatch.setitem(cli.COMMANDS, "info", (fail,) + cli.COMMANDS["info"][1:])
        assert cli.main(["info"]) == code
        assert capsys.readouterr().err == said + "\n"
    assert cli.main(["sim", "--bogus"]) == 2  # the sim's own arguments: the same place
    assert one_sentence(capsys.readouterr().err).startswith("mancala-board sim: ")


def test_unknown_command_and_bad_seat(capsys):
    with pytest.raises(SystemExit):
        cli.main(["press", "x", "3"])
    assert "a seat or pit is a whole number, got 'x'" in capsys.readouterr().err


def test_port_from_env_then_usb_then_the_sim_link(monkeypatch, tmp_path, capsys):
    master, slave = os.openpty()
    try:
        pty = os.ttyname(slave)
        monkeypatch.chdir(tmp_path)
        monkeypatch.delenv("MANCALA_PORT", raising=False)

        def no_board():
            raise BoardError("No board found: none.")
        monkeypatch.setattr(transport, "find_board", no_board)
        with pytest.raises(BoardError):
            transport.open_transport(None)
        os.symlink(pty, str(tmp_path / transport.SIM_LINK))
        line = transport.open_transport(None)
        assert line.name == transport.SIM_LINK
        line.close()
        assert "using the virtual board" in capsys.readouterr().err
        monkeypatch.setenv("MANCALA_PORT", pty)
        line = transport.open_transport(None)
        assert line.name == pty
        line.close()
    finally:
        os.close(master)
        os.close(slave)


def test_every_command_in_the_guide_exists_and_parses():
    import re
    import shlex

    doc = open(os.path.join(fakeport_root(), "docs", "host-tool.md")).read()
    parser = cli.build_parser()
    seen = set()
    for line in re.findall(r"^(?:\$ )?mancala-board (.*?)(?:\s+#.*)?$", doc, re.M):
        argv = shlex.split(line)
        if argv[0] == "sim":
            continue
        args = parser.parse_args(argv)  # exits (fails the test) on a wrong example
        seen.add(args.command)
    assert seen >= set(cli.COMMANDS) - {"sim"}, set(cli.COMMANDS) - seen


def test_every_option_the_docs_write_after_a_command_is_one():
    """Inline examples in README and docs/ (`state --json`, `mancala-board new --first 1`):
    each option written after a command's name is one that command takes, and a whole
    `mancala-board` example with options parses."""
    import glob
    import re
    import shlex

    parser = cli.build_parser()
    commands = parser._subparsers._group_actions[0].choices
    root = fakeport_root()
    docs = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    checked = 0
    for path in docs:
        text = open(path).read()
        for span in re.findall(r"`([^`\n]+)`", text):
            words = span.split()
            whole = words[0] == "mancala-board"
            if whole:
                words = words[1:]
                while words and words[0].startswith("-"):   # options before the command
                    words = words[2:] if words[0] in ("--port", "-p", "--timeout") else words[1:]
            if not words or words[0] not in commands or words[0] == "sim":
                continue
            own = commands[words[0]]._option_string_actions
            for word in words[1:]:
                option = word.strip("[]").split("=")[0]
                if option.startswith("--"):
                    assert option in own, "%s: `%s`" % (os.path.basename(path), span)
                    checked += 1
            if whole and ("--" in span or "=" in span) and not re.search(r"\b[A-Z]{3,}\b", span):
                parser.parse_args(shlex.split(span)[1:])  # exits (fails the test) if wrong
    assert checked > 20


def test_common_options_go_before_or_after_the_command():
    """`--port`, `--timeout`, `--json` and `--colour` mean the same on either side of any
    command; a command's own option of that name (`class --port`) stays its own."""
    parser = cli.build_parser()
    common = ["--port", "x.pty", "--timeout", "2", "--json", "--colour"]
    for name in cli.COMMANDS:
        rest = {"config": ["show"], "press": ["3"], "resign": ["1"], "replay": ["a.jsonl"],
                "stats": ["a.jsonl"], "export": ["a.jsonl", "--csv"], "analyze": ["a.jsonl"],
                "profile": ["check", "f.json"], "bot": ["b.py"]}.get(name, [])
        before = vars(parser.parse_args(common + [name] + rest))
        after = vars(parser.parse_args([name] + rest + common))
        if name == "class":
            assert after["ports"] == ["x.pty"] and after["port"] is None
            continue
        if name == "analyze":
            assert after["json_out"] and not after["json"]
            after["json"], after["json_out"] = True, False
        assert before == after, name
    defaults = vars(parser.parse_args(["state"]))
    assert (defaults["port"], defaults["timeout"], defaults["json"]) == (None, 5.0, False)


def fakeport_root():
    import fakeport
    return fakeport.ROOT


def test_a_newcomer_finds_the_way_from_the_readme_and_every_step_parses():
    """README and docs/README.md lead to docs/start-here.md, which leads through the virtual
    board, the host tool and the hub; the user guide sends a person with a computer to the
    host tool's manual. Every command on the start page is one the tool takes."""
    import re
    import shlex
    from mancala_host.sim import launcher

    root = fakeport_root()
    read = lambda *path: open(os.path.join(root, *path)).read()  # noqa: E731
    assert "(docs/start-here.md)" in read("README.md")
    assert "(start-here.md)" in read("docs", "README.md")
    start = read("docs", "start-here.md")
    for page in ("(sim.md)", "(host-tool.md)", "(user-guide.md)"):
        assert page in start, page
    intro = read("docs", "user-guide.md").split("## Contents")[0]
    assert "(host-tool.md)" in intro
    lines = re.findall(r"^(?:\.venv/bin/)?mancala-board (.*?)\s*(?:&\s*)?(?:#.*)?$", start, re.M)
    assert len(lines) >= 9
    for line in lines:
        argv = shlex.split(line)
        if argv[0] == "sim":
            launcher._parser().parse_args(argv[1:])   # raises on a wrong example
        else:
            cli.build_parser().parse_args(argv)       # exits (fails the test) on a wrong one
