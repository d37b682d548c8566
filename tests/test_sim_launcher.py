"""`mancala-board sim`: arguments, the board process's setup, --stdio, --pty and power cuts.

Most tests run a tiny stand-in firmware (--main, see test_sim_helpers) so they check the
launcher alone; the last ones run the real firmware/main.py and say `hello` to it.
"""
import json
import os
import select
import signal
import subprocess
import time

import pytest
import serial

from test_sim_helpers import ROOT, echo_main, one_sentence, sim_command, sim_env, start_sim
from waits import HANG_S, wait_for

from mancala_host.commands import cli
from mancala_host.sim import launcher

LIB = os.path.join(ROOT, "firmware", "lib")


@pytest.mark.parametrize("args, says", [
    (["--profile", "nope"], "no board profile 'nope'"),
    (["--heapsize", "12q"], "--heapsize must be a size"),
    (["--heapsize", "0"], "--heapsize must be a size"),
    (["--missing-chip", "0x60"], "no such chip"),
    (["--missing-chip", "zz"], "I2C address like 0x5B"),
    (["--bogus"], "unrecognized arguments"),
    (["--stdio", "--pty", "x"], "not allowed with"),
    (["--main", "/nonexistent/main.py"], "is missing"),
])
def test_bad_arguments_give_one_sentence_and_exit_2(tmp_path, capsys, args, says):
    argv = ["--stdio", "--main", echo_main(tmp_path)] + args
    if "--pty" in args:
        argv = args + ["--main", echo_main(tmp_path)]
    assert cli.main(["sim"] + argv) == 2
    assert says in one_sentence(capsys.readouterr().err)


def test_a_flash_path_that_is_a_file_is_refused(tmp_path, capsys):
    blocker = tmp_path / "flash"
    blocker.write_text("not a directory")
    code = cli.main(["sim", "--stdio", "--main", echo_main(tmp_path), "--flash", str(blocker)])
    assert code == 2
    assert "cannot use" in one_sentence(capsys.readouterr().err)


def test_a_pty_link_over_a_regular_file_is_refused(tmp_path, capsys):
    existing = tmp_path / "port"
    existing.write_text("precious")
    assert cli.main(["sim", "--pty", str(existing), "--main", echo_main(tmp_path)]) == 2
    assert "not a symlink" in one_sentence(capsys.readouterr().err)
    assert existing.read_text() == "precious"


def test_the_view_without_a_terminal_says_to_use_a_headless_form(tmp_path):
    proc = subprocess.run(sim_command("--main", echo_main(tmp_path)), env=sim_env(),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=HANG_S)
    assert proc.returncode == 2
    assert "--pty LINK or --stdio" in one_sentence(proc.stderr)


def next_line(proc, timeout=HANG_S):
    """The board's next output line as JSON, failing (not hanging) if none comes.

    Reads the pipe's fd directly, because select() cannot see lines a file object buffered.
    """
    pending = _pending.setdefault(proc.pid, bytearray())
    end = time.monotonic() + timeout
    while b"\n" not in pending:
        left = end - time.monotonic()
        ready, _, _ = select.select([proc.stdout.fileno()], [], [], max(0, left))
        assert ready, "the board said nothing for %s s" % timeout
        chunk = os.read(proc.stdout.fileno(), 65536)
        assert chunk, "the board closed its output"
        pending += chunk
    line, _, rest = bytes(pending).partition(b"\n")
    pending[:] = rest
    if line.startswith(b"Traceback"):               # the board's last words, whole
        proc.wait(HANG_S)
        rest += proc.stdout.read()
        raise AssertionError("the board crashed: " + (line + b"\n" + rest).decode())
    return json.loads(line)


_pending = {}


def run_stdio(tmp_path, *args, env=None, stdin=""):
    proc = subprocess.run(sim_command("--stdio", "--main", echo_main(tmp_path), *args),
                          env=env or sim_env(), input=stdin, capture_output=True, text=True,
                          timeout=HANG_S)
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    return proc, lines


def test_stdio_runs_the_board_in_the_flash_dir_with_the_fakes_first(tmp_path):
    flash = tmp_path / "flash"                       # created by the launcher
    proc, lines = run_stdio(tmp_path, "--flash", str(flash), stdin="hello\n")
    assert proc.returncode == 0, proc.stderr
    boot = lines[0]
    assert os.path.realpath(boot["cwd"]) == os.path.realpath(str(flash))
    path = boot["path"]
    # the firmware's lib as the board has it: compiled .mpy files, in a cache under build/
    lib = os.path.join(ROOT, "build", "sim", "lib")
    assert os.path.isfile(os.path.join(lib, "mancala_fw", "app", "__init__.mpy"))
    fakes = [p for p in path if os.path.isfile(os.path.join(p, "machine.mpy"))
             or os.path.isfile(os.path.join(p, "machine.py"))]
    assert fakes and path.index(fakes[0]) < path.index(lib), path
    assert LIB not in path and ".frozen" in path  # asyncio and friends stay importable
    with open(os.path.join(ROOT, "hardware", "profiles", "duo.json")) as f:
        assert boot["profile"] == f.read()
    assert (flash / "profile.json").exists()
    assert {"echo": "hello"} in lines


def test_source_runs_firmware_lib_itself(tmp_path):
    proc, lines = run_stdio(tmp_path, "--source", stdin="hello\n")
    assert proc.returncode == 0, proc.stderr
    path = lines[0]["path"]
    assert LIB in path and os.path.join(ROOT, "build", "sim", "lib") not in path, path


def test_stdio_profile_heapsize_and_missing_chip(tmp_path):
    proc, lines = run_stdio(tmp_path, "--profile", "quad", "--heapsize", "100k",
                            "--missing-chip", "0x5b")
    assert proc.returncode == 0, proc.stderr
    boot = lines[0]
    assert json.loads(boot["profile"])["name"] == "quad"
    assert 100 * 1024 - 4096 <= boot["heap"] <= 100 * 1024
    assert boot["chips"] == "5a,5c"


def test_stdio_passes_the_callers_touch_and_frame_channels_through(tmp_path):
    touch = tmp_path / "touch.txt"
    frames = tmp_path / "frames.jsonl"
    touch.write_text("")
    env = sim_env(MANCALA_SIM_TOUCH=str(touch), MANCALA_SIM_FRAMES=str(frames))
    proc = start_sim("--stdio", "--main", echo_main(tmp_path), env=env, stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE)
    try:
        boot = next_line(proc)
        assert boot["touch"] == str(touch) and boot["frames"] == str(frames)
        # pads running; duo has no chip 0x5C, so the sim has none either
        assert next_line(proc) == {"touched": {"5a": 0, "5b": 0, "5c": None}}
        with open(touch, "a") as f:                 # a finger on 0x5A electrode 4
            f.write("5a 4 1\n")
        while True:                                 # until the model reports the finger
            seen = next_line(proc)
            if seen.get("touched", {}).get("5a"):
                break
        assert seen["touched"]["5a"] == 1 << 4
    finally:
        proc.kill()
        proc.wait()
    last = json.loads(frames.read_text().splitlines()[-1])
    assert last["pin"] == 2 and bytes.fromhex(last["grb"])[3 * 4 + 1] == 255


def test_stdio_pid_is_the_board_so_sigkill_is_a_power_cut(tmp_path):
    proc = start_sim("--stdio", "--main", echo_main(tmp_path), stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE)
    try:
        next_line(proc)
        with open("/proc/%d/cmdline" % proc.pid, "rb") as f:
            cmdline = f.read().split(b"\0")
        assert b"heapsize=" + launcher.DEFAULT_HEAPSIZE.encode() in cmdline and echo_main(tmp_path).encode() in cmdline
    finally:
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(HANG_S) == -signal.SIGKILL


def test_a_temporary_flash_is_removed_after_a_power_cut(tmp_path):
    proc = start_sim("--stdio", "--main", echo_main(tmp_path), stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE)
    try:
        flash = next_line(proc)["cwd"]
        assert os.path.isdir(flash)
    finally:
        proc.kill()
        proc.wait()
    wait_for("the temporary flash to be removed", lambda: not os.path.exists(flash))


def start_pty(tmp_path, *args):
    link = str(tmp_path / "board.pty")
    proc = start_sim("--pty", link, *args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     text=True)
    banner = proc.stdout.readline()
    assert link in banner, banner + proc.stderr.read()
    return proc, link


def exchange(link, text):
    """Open the port like a host tool, send one line, read the answer, close the port."""
    with serial.Serial(link, timeout=HANG_S) as port:
        port.write((text + "\n").encode())
        while True:
            line = port.readline()
            assert line.endswith(b"\n"), "no answer to %r" % text
            if not line.startswith(b"{"):
                port.timeout = 2
                try:
                    line += port.read(4096)
                except serial.SerialException:      # the board died and took the pty along
                    pass
                raise AssertionError("the board said: " + line.decode())
            answer = json.loads(line)
            if "echo" in answer or "id" in answer:
                return answer


def child_pids(launcher_pid):
    """{"board": [...], "devices": [...]}: the launcher's children by what they run."""
    with open("/proc/%d/task/%d/children" % (launcher_pid, launcher_pid)) as f:
        pids = [int(p) for p in f.read().split()]
    out = {"board": [], "devices": []}
    for pid in pids:
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue  # gone meanwhile
        if len(argv) < 2:
            continue  # a zombie has no command line
        out["devices" if argv[1].endswith(b"devices.py") else "board"].append(pid)
    return out


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_pty_line_survives_the_host_closing_and_reopening_it(tmp_path):
    proc, link = start_pty(tmp_path, "--main", echo_main(tmp_path))
    try:
        assert os.path.islink(link)
        for i in range(3):
            assert exchange(link, "ping %d" % i) == {"echo": "ping %d" % i}
    finally:
        proc.terminate()
        assert proc.wait(HANG_S) == 0
    assert not os.path.lexists(link)                # removed on SIGTERM


def test_killing_the_pty_launcher_kills_the_board(tmp_path):
    proc, link = start_pty(tmp_path, "--main", echo_main(tmp_path))
    try:
        assert exchange(link, "up") == {"echo": "up"}
        children = child_pids(proc.pid)
        board, devices = children["board"], children["devices"]
        assert len(board) == 1 and alive(board[0])
        assert len(devices) == 1 and alive(devices[0])  # the MPR121 models' process
    finally:
        proc.kill()
        proc.wait()
    wait_for("the board to die with its launcher", lambda: not alive(board[0]))
    wait_for("the devices to end with the board", lambda: not alive(devices[0]))


def test_real_firmware_answers_hello_over_stdio(tmp_path):
    proc = start_sim("--stdio", "--flash", str(tmp_path / "flash"),
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        proc.stdin.write(b'{"id": 1, "cmd": "hello"}\n')
        proc.stdin.flush()
        while True:
            answer = next_line(proc)
            if answer.get("id") == 1:
                break
    finally:
        proc.kill()
        proc.wait()
    assert answer["ok"] is True and answer["protocol"] == 2 and answer["board"] == "duo"


def test_real_firmware_answers_hello_over_the_pty_again_after_reopening(tmp_path):
    proc, link = start_pty(tmp_path, "--flash", str(tmp_path / "flash"))
    try:
        for i in range(2):
            answer = exchange(link, json.dumps({"id": i, "cmd": "hello"}))
            assert answer["id"] == i and answer["ok"] is True and answer["board"] == "duo"
    finally:
        proc.terminate()
        proc.wait(HANG_S)
