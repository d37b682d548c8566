"""The port held by another program: what the tool says, with a real pty and a plain raw reader
(not only a second mancala-board), and with scripted lines for answers cut up by such a reader.

A raw reader on the board's line takes a share of every answer: the tool must not blame the
firmware for that. The reader here is a few lines of Python that opens the pty raw and reads
it, as `cat` or a terminal program would.
"""

import os
import subprocess
import sys

import pytest

from fakeport import ANSWER, HELLO, FakePort, board_script, one_sentence, run

from mancala_host.commands import cli
from mancala_host.link import transport
from test_host_sim import ENV, Sim, wait_for

RAW_READER = r"""
import os, sys, termios, tty
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
tty.setraw(fd, termios.TCSANOW)
print("open", flush=True)
while True:
    try:
        if not os.read(fd, 1):   # a hang-up when another opener closes: keep holding it
            os.read(0, 1)
    except OSError:
        os.read(0, 1)
"""


@pytest.fixture
def sim(tmp_path):
    board = Sim(tmp_path).start()
    yield board
    board.stop()


@pytest.fixture
def raw_reader(sim):
    proc = subprocess.Popen([sys.executable, "-c", RAW_READER, sim.link], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "open\n"
    yield proc
    proc.kill()
    proc.wait()


def test_a_raw_reader_on_the_port_is_named(sim, raw_reader, capsys):
    code = cli.main(["--port", sim.link, "info"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    sentence = one_sentence(err)
    assert sentence.startswith("The port %s is open in another program too (" % sim.link)
    assert "pid %d" % raw_reader.pid in sentence
    assert "which would take part of the board's answers: close it and try again." in sentence
    assert "firmware" not in sentence and "protocol" not in sentence
    # once it is closed, the board answers as usual
    raw_reader.kill()
    raw_reader.wait()
    assert wait_for("the port to be free", lambda: cli.main(["--port", sim.link, "info"]) == 0)
    assert "Board:     duo" in capsys.readouterr().out


def test_the_holders_are_found_through_the_symlink(sim, raw_reader):
    found = transport.holders(sim.link)
    assert any(h.endswith("pid %d" % raw_reader.pid) for h in found), found
    assert transport.holders(os.path.realpath(sim.link)) == found
    assert transport.holders("socket://localhost:1") == []


def test_a_busy_port_names_the_program_holding_it(sim, capsys):
    holder = transport.SerialTransport(sim.link)  # exclusive, as every mancala-board opens it
    try:
        # the holder is this very process, which holders() leaves out: the sentence stays general
        code = cli.main(["--port", sim.link, "info"])
        err = capsys.readouterr().err
        assert code == 1 and "is busy: another program (a terminal, mpremote or another mancala-board)" in err
    finally:
        holder.close()
    proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.path[:0] = sys.argv[2:]\n"
                             "from mancala_host.link.transport import SerialTransport\n"
                             "t = SerialTransport(sys.argv[1]); print('open', flush=True); sys.stdin.read()",
                             sim.link] + sys.path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "open\n"
        code = cli.main(["--port", sim.link, "info"])
        err = capsys.readouterr().err
        assert code == 1 and "is busy: another program (" in err and "pid %d)" % proc.pid in err
    finally:
        proc.kill()
        proc.wait()


def test_an_answer_cut_up_by_another_reader_is_not_blamed_on_the_firmware(monkeypatch, capsys):
    # a reader that took the tokens '"protocol": 2,' out of the middle of the hello answer
    cut = dict(HELLO)
    del cut["protocol"]
    code, out, err = run(monkeypatch, capsys, FakePort({"hello": [cut]}), ["info"])
    sentence = one_sentence(err)
    assert code == 1 and "The answer to hello on fake://board came without its protocol version" in sentence
    assert "another program may have the port open" in sentence and "update the firmware" not in sentence
    # fragments of lines, and silence, mention it too
    code, out, err = run(monkeypatch, capsys, FakePort({"hello": [b'"board": "duo"}\n', b'{"id": 1, "ok"\n']}), ["info"])
    assert "not the board's protocol" in one_sentence(err) and "another program may have the port open" in err
    code, out, err = run(monkeypatch, capsys, FakePort({}), ["info"])
    assert "does not answer hello" in one_sentence(err) and "another program may have the port open" in err


def test_a_second_sim_does_not_take_over_a_running_sims_link(sim, capsys):
    target = os.readlink(sim.link)
    not_make = dict((k, v) for k, v in ENV.items() if k != "MAKELEVEL")  # as run by hand
    second = subprocess.run([sys.executable, "-m", "mancala_host", "sim", "--pty", sim.link,
                             "--profile", "duo"], env=not_make, cwd=str(sim.dir), capture_output=True,
                            text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert second.returncode == 2 and second.stdout == ""
    assert second.stderr == ("mancala-board sim: %s belongs to the virtual board already running "
                             "here (pid %d); stop that one first, or give this one another link "
                             "(--link LINK, or --pty LINK)\n" % (sim.link, sim.proc.pid))
    assert os.readlink(sim.link) == target
    # a second `make sim`: make's options go through SIMFLAGS, and the sentence says how
    second = subprocess.run([sys.executable, "-m", "mancala_host", "sim", "--pty", sim.link],
                            env=dict(ENV, MAKELEVEL="1"), cwd=str(sim.dir), capture_output=True,
                            text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert second.returncode == 2
    assert second.stderr.endswith('give this one another link (make sim SIMFLAGS="--link b2.pty")\n')
    assert cli.main(["--port", sim.link, "info"]) == 0  # the first one still answers on it
    assert "Board:     duo" in capsys.readouterr().out
    # once it stops, the link is free for the next one (a stale lock file is no owner)
    sim.kill()
    assert os.path.exists(os.path.join(str(sim.dir), "." + os.path.basename(sim.link) + ".lock"))
    sim.start()  # waits until it answers hello on the link
    lock = os.path.join(str(sim.dir), "." + os.path.basename(sim.link) + ".lock")
    assert open(lock).read() == "%d\n" % sim.proc.pid


def test_a_leftover_sim_link_gets_a_hint_about_the_virtual_board(sim, monkeypatch, capsys, tmp_path):
    sim.kill()  # a power cut: the link stays behind, its pty is gone
    assert os.path.islink(sim.link) and os.readlink(sim.link).startswith("/dev/pts/")
    # The killed sim's pty number is free for the next pty anyone on the machine opens, so the
    # link is pointed at a number past the kernel's limit, which no pty can ever have.
    with open("/proc/sys/kernel/pty/max") as f:
        gone = "/dev/pts/%d" % (int(f.read()) + 1)
    os.unlink(sim.link)
    os.symlink(gone, sim.link)
    assert not os.path.exists(sim.link)
    code = cli.main(["--port", sim.link, "info"])
    sentence = one_sentence(capsys.readouterr().err)
    assert code == 1 and sentence == (
        "%s is a link left behind by a virtual board that is no longer running (its pty %s is "
        "gone): start the board again with 'make sim' (or 'mancala-board sim') in this folder, "
        "or delete the link." % (sim.link, os.readlink(sim.link)))
    # found by itself (no --port, no USB board): the same hint
    folder = tmp_path / "class"
    folder.mkdir()
    os.symlink(os.readlink(sim.link), str(folder / transport.SIM_LINK))
    monkeypatch.chdir(folder)
    monkeypatch.delenv("MANCALA_PORT", raising=False)
    monkeypatch.setattr(transport, "find_board", lambda: (_ for _ in ()).throw(
        transport.BoardError("No board found: none.")))
    code = cli.main(["info"])
    sentence = one_sentence(capsys.readouterr().err)
    assert code == 1 and sentence.startswith("No USB board found, and mancala-sim.pty is a link "
                                             "left behind by a virtual board that is no longer running")
