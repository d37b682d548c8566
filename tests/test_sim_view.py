"""The terminal view: key map and touch lines, ring layout, colours and counts, and the whole
interactive loop in a pty (keys in, touches to the board, frames drawn, clean exit)."""
import json
import os
import select
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager

import pytest

from test_sim_helpers import ROOT, echo_main, start_sim
from waits import HANG_S

from mancala_host.sim import keys, view


def profile(name):
    with open(os.path.join(ROOT, "hardware", "profiles", name + ".json")) as f:
        return json.load(f)


DUO = profile("duo")
QUAD = profile("quad")


@pytest.mark.parametrize("p", [DUO, QUAD], ids=["duo", "quad"])
def test_every_pad_has_its_own_key(p):
    km = keys.key_map(p)
    assert sorted(km.values()) == sorted(p["positions"])
    assert len(set(km)) == len(km)


def test_each_side_is_a_keyboard_row_in_sowing_order_store_last():
    km = keys.key_map(DUO)
    assert [km[k] for k in "12345678"] == ["0.%d" % i for i in range(1, 8)] + ["0.S"]
    assert [km[k] for k in "qwertyui"] == ["1.%d" % i for i in range(1, 8)] + ["1.S"]
    qm = keys.key_map(QUAD)
    assert (qm["7"], qm["u"], qm["j"], qm["m"]) == ("0.S", "1.S", "2.S", "3.S")
    assert (qm["a"], qm["z"], qm["n"]) == ("2.1", "3.1", "3.6")


def test_touch_lines_name_the_pads_chip_and_electrode():
    assert keys.touch_line(DUO, "0.1", True) == "5a 0 1\n"
    assert keys.touch_line(DUO, "1.S", True) == "5b 7 1\n"
    assert keys.touch_line(DUO, "1.S", False) == "5b 7 0\n"
    assert keys.touch_line(QUAD, "3.S", True) == "5c 3 1\n"
    assert keys.chip_line(0x5B, False) == "chip 5b off\n"


def test_keys_short_long_and_quit():
    r = keys.KeyReader(DUO)
    assert r.feed("3") == ("press", "0.3", keys.SHORT_S)
    assert r.feed("E") == ("press", "1.3", keys.LONG_S)          # capital = long
    assert r.feed(" ") == ("long-armed",)
    assert r.feed("3") == ("press", "0.3", keys.LONG_S)          # Space, then the key
    assert r.feed("3") == ("press", "0.3", keys.SHORT_S)         # only the next key
    assert r.feed("z") is None                                   # no side 3 on duo
    assert r.feed("\x1b") == ("quit",) and r.feed("\x03") == ("quit",)
    assert keys.SHORT_S < 0.5 and keys.LONG_S >= 1.0


def origin_text(lines, pid, layout):
    top, left = layout.origin(pid)
    return [view.strip_ansi(lines[top + r])[left:left + layout.rings[pid][0]] for r in range(4)]


def test_layout_follows_the_board():
    duo = view.Layout(DUO)
    row = {pid: duo.cell[pid][0] for pid in DUO["positions"]}
    col = {pid: duo.cell[pid][1] for pid in DUO["positions"]}
    assert row["1.4"] < row["1.S"] == row["0.S"] < row["0.4"]      # side 1 on top
    assert col["1.7"] == col["0.1"] and col["1.1"] == col["0.7"]   # opposite pits aligned
    assert col["1.S"] < col["0.1"] < col["0.7"] < col["0.S"]       # a store at each end
    quad = view.Layout(QUAD)
    cell = quad.cell
    bottom, top = cell["0.3"][0], cell["2.3"][0]
    left, right = cell["3.3"][1], cell["1.3"][1]
    assert cell["0.S"] == (bottom, right) and cell["1.S"] == (top, right)
    assert cell["2.S"] == (top, left) and cell["3.S"] == (bottom, left)


def test_ring_cells_walk_a_closed_loop_once():
    for leds in (12, 16, 24):
        width, cells = view.ring_cells(leds)
        assert len(cells) == len(set(cells)) == leds
        for (r1, c1), (r2, c2) in zip(cells, cells[1:] + cells[:1]):
            assert abs(r1 - r2) + abs(c1 - c2) <= 2                # neighbours stay adjacent


def frame_with(p, pid, leds):
    """A frame for every chain, lighting ring pid with the given (r, g, b) per LED."""
    ring = p["positions"][pid]["ring"]
    frames = {}
    for i, chain in enumerate(p["led_chains"]):
        grb = bytearray(chain["leds"] * 3)
        if i == ring["chain"]:
            for n, (r, g, b) in enumerate(leds):
                grb[3 * (ring["start"] + n):3 * (ring["start"] + n) + 3] = bytes((g, r, b))
        frames[chain["pin"]] = bytes(grb)
    return frames


def test_a_known_frame_draws_its_colours_and_lit_count():
    board = view.Board(DUO, keys.keys_by_position(DUO), view.LitCount())
    red, blue = (255, 0, 0), (0, 0, 255)
    for pin, grb in frame_with(DUO, "0.3", [red, red, blue] + [(0, 0, 0)] * 9).items():
        assert board.update(pin, grb)
        assert not board.update(pin, grb)                  # same frame: no redraw needed
    lines = board.render()
    text = origin_text(lines, "0.3", board.layout)
    assert text[0].startswith("\u25cf\u25cf\u25cf\u00b7")   # 3 lit, then dark
    assert text[1].strip(" \u00b7") == "3"                  # the count inside the ring
    assert text[3].strip() == "[3]"                         # its key under it
    assert view.fg((255, 0, 0)) + "\u25cf\u25cf" in "".join(lines)
    assert view.fg((0, 0, 255)) + "\u25cf" in "".join(lines)
    assert origin_text(lines, "0.4", board.layout)[1].strip(" \u00b7") == "0"


def test_counts_are_read_with_the_displays_own_decoding():
    reader = view.count_reader(os.path.join(ROOT, "firmware", "lib"))
    from mancala_fw.display import counts, palette
    kinds = counts.encode(37, 12)                   # three TENs and seven ONEs
    dim = [tuple(c * 160 // 255 for c in palette.kind_led(k, 1)) for k in kinds]
    board = view.Board(DUO, {}, reader)
    for pin, grb in frame_with(DUO, "1.2", dim).items():
        board.update(pin, grb)
    assert board.ring_count("1.2") == 37
    lines = board.render()
    assert origin_text(lines, "1.2", board.layout)[1].strip(" \u00b7\u25cf") == "37"
    lit = view.LitCount()
    assert lit(board.ring_bytes("1.2"), 255) == 10   # what the fallback would have said


BREAK = r"""
import sys
lib = sys.argv[1]
sys.path[:] = [p for p in sys.path if not p.rstrip("/").endswith("firmware/lib")]
from mancala_host.sim import view
print(view.count_reader(lib).name)
"""


@pytest.mark.parametrize("broken", [False, True])
def test_a_broken_display_module_fails_the_view(tmp_path, broken):
    # The view has no fallback reader: a display module that does not import stops it with
    # that error, as it would stop the board. The unbroken copy is the control.
    lib = tmp_path / "lib"
    for package in ("mancala_fw", "drivers", "mancala", "mpcompat"):
        shutil.copytree(os.path.join(ROOT, "firmware", "lib", package), str(lib / package))
    if broken:
        (lib / "mancala_fw" / "display" / "counts.py").write_text("def decode(:\n")
    proc = subprocess.run([sys.executable, "-c", BREAK, str(lib)], cwd=str(tmp_path),
                          capture_output=True, text=True)
    if broken:
        assert proc.returncode != 0
        assert "SyntaxError" in proc.stderr and "counts.py" in proc.stderr, proc.stderr
    else:
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.split() == ["display", "decode"]


def test_dim_frames_stay_readable():
    assert view.visible_rgb(0, 0, 0) is None
    g, r, b = 0, 40, 0                               # red at brightness 40 of 255 ...
    assert view.visible_rgb(g, r, b, frame_max=40) == (255, 0, 0)   # ... alone on the board
    assert view.visible_rgb(g, r, b, frame_max=255)[0] > 100       # ... or next to a full one


# --------------------------------------------------------------------- the whole loop
def read_until(fd, buf, predicate, timeout=HANG_S):
    end = time.monotonic() + timeout
    while not predicate(buf):
        assert time.monotonic() < end, "screen never showed it; last bytes: %r" % buf[-500:]
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                buf += os.read(fd, 65536)
            except OSError:                 # the view closed the terminal
                break
    return buf


def last_screen(buf):
    """The last completely drawn screen (each draw is ESC[H ... ESC[J)."""
    text = buf.decode("utf-8", "replace")
    return text[:text.rfind("\x1b[J")].split("\x1b[H")[-1]


TERM_ROWS, TERM_COLUMNS = 60, 400


@contextmanager
def pty_sim(*args):
    """`mancala-board sim` (start_sim(*args)) in a new pty, as a terminal runs it; yields
    (the process, the pty's master end). The process is killed if it is still running at
    the end, and the pty is closed."""
    import fcntl
    import pty
    import struct
    import termios
    master, slave = pty.openpty()
    # A terminal's size, wide enough for any temporary path the screen shows (a new pty has
    # none, and the view then assumes 100 columns).
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", TERM_ROWS, TERM_COLUMNS, 0, 0))
    proc = start_sim(*args, stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    try:
        yield proc, master
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


def test_view_keys_touch_pads_and_frames_are_drawn(tmp_path):
    link = str(tmp_path / "view.pty")
    red = view.fg((255, 0, 0)) + "\u25cf"
    with pty_sim("--main", echo_main(tmp_path), "--link", link) as (proc, master):
        buf = read_until(master, b"", lambda b: b'touched' in b)       # the board is up
        assert os.path.islink(link) and link in last_screen(buf)
        os.write(master, b"5")                                         # pad 0.5 = 0x5A e4
        buf = read_until(master, buf, lambda b: red in last_screen(b))
        screen = last_screen(buf)
        assert '"5a": 16' in screen                                    # the board saw e4
        row = [line for line in screen.split("\r\n") if red in line]
        assert len(row) == 1                                           # one lit LED, once
        buf = read_until(master, buf, lambda b: red not in last_screen(b))  # released
        os.write(master, b"\x1b")
        buf = read_until(master, buf, lambda b: b"\x1b[?1049l" in b)   # screen restored
        assert proc.wait(HANG_S) == 0
    assert not os.path.lexists(link)


def quiet_view(tmp_path):
    """A View wired to a pipe instead of a board, for its touch scheduling."""
    import types
    from mancala_host.sim import terminal
    r, w = os.pipe()
    os.set_blocking(r, False)
    setup = types.SimpleNamespace(root=ROOT, heapsize="192k",
                                  args=types.SimpleNamespace(profile="duo"))
    return terminal.View(setup, DUO, None, w, r, r), r


def sent(fd):
    try:
        return os.read(fd, 4096).decode()
    except BlockingIOError:
        return ""


def test_a_quick_double_tap_reaches_the_board_as_two_whole_taps(tmp_path):
    from mancala_host.sim import terminal
    v, fd = quiet_view(tmp_path)
    v.touch("0.S", keys.SHORT_S, now=100.0)
    v.touch("0.S", keys.SHORT_S, now=100.05)          # typed again while still held
    times = sorted(t for t, _, _ in v.pending)
    assert times[2] >= times[1] + terminal.TAP_GAP_S  # a real gap after the first release
    assert times[2] - times[0] < 0.4                  # still a double tap for the firmware
    v.send_due(100.0)
    assert sent(fd) == "5a 7 1\n"
    v.send_due(200.0)
    assert sent(fd) == "5a 7 0\n5a 7 1\n5a 7 0\n"
    assert v.pending == []


def test_board_lines_become_short_status_sentences():
    from mancala_host.sim.status import summary
    move = {"event": "move", "seat": 0, "pit": 3, "state": {"turn": 1}, "record": {}}
    assert summary(json.dumps(move)) == "Seat 0 played pit 3. Seat 1 to move."
    move["state"].update(turn=None, over=True)
    assert summary(json.dumps(move)) == "Seat 0 played pit 3. The game is over."
    refused = {"event": "refused", "pos": "0.3", "seat": 0, "pit": 2, "reason": "It is seat 1's turn."}
    assert summary(json.dumps(refused)) == "Not a move on seat 0's pit 2: It is seat 1's turn."
    refused.update(seat=None, pit=None, pos="0.7")
    assert summary(json.dumps(refused)).startswith("Not a move on pad 0.7:")
    assert summary("Traceback (most recent call last):") == "Traceback (most recent call last):"
    assert summary('{"id": 4, "ok": true, "state": {}}') is None       # no news for a person


KALAH = {"variant": "kalah", "players": 2, "pits": 6, "seeds": 4, "capture": "nonempty",
         "wipeout_capture": True}


def test_the_footer_speaks_in_sentences():
    from mancala_host.sim.status import Status
    st = Status()
    say = lambda **msg: st.summary(json.dumps(msg))  # noqa: E731
    # whose turn it is, right after boot
    assert say(event="boot", firmware="0.1.0", board="duo", resumed=False, turn=1, rules=KALAH) == \
        "Board started: firmware 0.1.0, duo profile. Seat 1 to move."
    assert say(event="boot", firmware="0.1.0", board="duo", resumed=True, turn=None) == (
        "Board started: firmware 0.1.0, duo profile, saved game restored. The game is over: hold "
        "a store for the menu to start a new one.")
    # a move, in the words `watch` uses, with a finished seat
    record = {"kind": "sow", "seat": 2, "pit": 4, "stones": 1, "sown": [[2, 0]], "capture": None,
              "extra": False, "finished": [2], "sweep": None, "over": False,
              "places": [None, None, 1, None], "turn": 3}
    assert say(event="move", seat=2, pit=4, record=record, state={"turn": 3}) == (
        "Seat 2 sows 1 from pit 4; the last stone lands in its own store; seat 2 finishes in "
        "place 1; seat 3 to move.")
    # a hint and demo mode
    assert say(event="hint", seat=0, pit=4, source="pad") == \
        "Hint for seat 0: the CPU would play pit 4, which pulses until the seat moves."
    assert say(event="demo", on=True, source="pad", level=3) == \
        "Demo mode: the CPU plays every seat at level 3, game after game. Touch any pad to stop it."
    assert say(event="demo", on=False, source="pad") == "Demo mode has ended; the seats play as set again."
    # game over, in stones for Kalah
    assert say(event="game_over", places=[1, 2], stores=[28, 20]) == "Game over. Seat 0 wins, 28 stones to 20."
    assert say(event="game_over", places=[1, 1], stores=[24, 24]) == "Game over. A draw, 24 stones each."
    # the menu's values, each with the pit that sets it and what it is
    assert say(event="config", config={"seats": [{"kind": "human"}, {"kind": "cpu", "level": 2}]}) == \
        "Settings changed."
    assert say(event="menu", open=True, seat=1, rules={"variant": "basic", "players": 3, "pits": 6, "seeds": 4},
               plays=2) == (
        "Menu of seat 1, for the next game: pit 1 variant Basic, pit 2 players 3, pit 3 pits 6, "
        "pit 4 seeds 4, pit 5 seat 1 played by the CPU at level 2. Tap a pit to change it, the store "
        "to start, another store to close.")
    assert say(event="config", config={"seats": [{"kind": "human"}, {"kind": "human"}]}) == \
        "Settings changed: seat 1 is now played by a person."
    assert say(event="menu", open=False, seat=1) == "Menu closed."
    # Basic: the winner is who sows all its stones first; 3 players get their places
    say(event="new_game", first=0, state={"rules": dict(KALAH, variant="basic", players=3), "turn": 0})
    assert say(event="game_over", places=[2, 3, 1], stores=[5, 3, 9]) == \
        "Game over. Seat 2 wins; seat 0 second, seat 1 third."


def _fill(p, pid, rgb):
    return frame_with(p, pid, [rgb] * p["positions"][pid]["ring"]["leds"])


def test_a_pulsing_store_keeps_its_count():
    reader = view.count_reader(os.path.join(ROOT, "firmware", "lib"))
    from mancala_fw.display import counts, palette
    board = view.Board(DUO, {}, reader)
    store = "0.S"
    leds = DUO["positions"][store]["ring"]["leds"]
    shown = [palette.kind_led(k, 0) for k in counts.encode(13, leds)]
    for pin, grb in frame_with(DUO, store, shown).items():
        board.update(pin, grb)
    counted = lambda: origin_text(board.render(), store, board.layout)[1].strip(" \u00b7\u25cf")  # noqa: E731
    assert counted() == "13"
    # the extra-move pulse fills the store with its seat colour: still 13, not the LED count
    for rgb in (palette.SEAT_LED[0], tuple(c // 3 for c in palette.SEAT_LED[0]), palette.WHITE_LED):
        for pin, grb in _fill(DUO, store, rgb).items():
            board.update(pin, grb)
        assert counted() == "13", rgb
    for pin, grb in frame_with(DUO, store, [palette.kind_led(k, 0) for k in counts.encode(14, leds)]).items():
        board.update(pin, grb)
    assert counted() == "14"


def test_an_unused_pit_looks_different_from_an_empty_one():
    board = view.Board(DUO, keys.keys_by_position(DUO), view.LitCount())
    for pin, grb in frame_with(DUO, "0.3", [(0, 0, 0)] * 12).items():
        board.update(pin, grb)
    path = os.path.join(ROOT, "hardware", "profiles", "duo.json")
    used = view.used_positions(path, 2, 6)  # Kalah on the duo leaves one pit a side dark
    assert used is not None and len(used) == 14
    assert board.set_used(used) and not board.set_used(used)
    lines = board.render()
    unused = [pid for pid in DUO["positions"] if pid not in used]
    assert len(unused) == 2
    for pid in unused:
        text = origin_text(lines, pid, board.layout)
        assert "\u00b7" not in "".join(text[:3]) and text[1].strip() == view.UNUSED
    empty = origin_text(lines, "0.3", board.layout) if "0.3" in used else None
    some_used = empty or origin_text(lines, sorted(used)[0], board.layout)
    assert "\u00b7" in some_used[0] and some_used[1].strip(" \u00b7") == "0"
    assert view.used_positions(path, 3, 6) is None  # a game the duo cannot seat: all drawn


def test_a_terminal_too_small_for_the_board_gets_one_line(tmp_path):
    v, fd = quiet_view(tmp_path)
    full = v.screen(100, 40)
    assert len(full) > 10 and not any(line.startswith("Terminal ") for line in full)
    need = max(len(view.strip_ansi("  " + line)) for line in v.board.render()) + 1
    small = v.screen(need - 1, 40)
    assert small == ["Terminal %dx40, board needs %dx%d: make the window bigger." % (
        need - 1, need, len(v.board.render()) + 1 + len(v.footer(need)) + terminal_news_lines())]
    short = v.screen(100, 5)
    assert len(short) == 1 and short[0].startswith("Terminal 100x5, board needs")
    assert len(v.screen(20, 5)[0]) <= 19  # the warning itself fits the width


def terminal_news_lines():
    from mancala_host.sim import terminal
    return terminal.NEWS_LINES


def view_of(tmp_path, p, name):
    import types
    from mancala_host.sim import terminal
    r, w = os.pipe()
    setup = types.SimpleNamespace(root=ROOT, heapsize="192k", profile_path=os.path.join(
        ROOT, "hardware", "profiles", name + ".json"), args=types.SimpleNamespace(profile=name))
    return terminal.View(setup, p, None, w, r, r)


@pytest.mark.parametrize("p, name", [(DUO, "duo"), (QUAD, "quad")], ids=["duo", "quad"])
def test_every_size_that_shows_the_board_shows_whose_turn_it_is_and_the_whole_footer(tmp_path, p, name):
    """Quad at 120x40 cut the board's lines (the menu, whose turn it is) without a word, and
    80 columns cut 'quit: Esc or Ctrl-C' to 'qui'. Either the whole screen fits, news
    included at its longest, or the one line says how big the terminal must be."""
    v = view_of(tmp_path, p, name)
    v.board_line(json.dumps({"event": "menu", "open": True, "seat": 0, "rules": KALAH,
                             "plays": 3}).encode())
    assert len(terminal_wrap(v.last_line, 79)) >= 3  # a long sentence: the news at its longest
    shown = 0
    for width in (80, 81, 100, 120, 160):
        for height in (24, 33, 40, 41, 42, 50):
            lines = [view.strip_ansi(line) for line in v.screen(width, height)]
            if len(lines) == 1:
                assert lines[0].startswith("Terminal %dx%d, board needs" % (width, height))
                continue
            shown += 1
            text = "\n".join(lines)
            assert len(lines) <= height and all(len(line) < width for line in lines)
            assert "quit: Esc or Ctrl-C" in text and "counts: " in text
            said = " ".join(line.strip() for line in lines if not line.startswith("note:"))
            assert v.last_line in " ".join(said.split()), (width, height)
    assert shown >= (14 if name == "duo" else 6)
    assert len(v.screen(120, 40)) > 1 or name == "duo"  # the quad board fits a 120x40 window


def terminal_wrap(text, width):
    from mancala_host.sim import terminal
    return terminal.wrap(text, width, 9)


def test_the_note_names_a_pad_as_the_board_does(tmp_path):
    """'Touched pad 0.4.' while the board says 'pit 3': the note uses the game's words."""
    v = view_of(tmp_path, DUO, "duo")
    v.touch("0.4", keys.SHORT_S, now=100.0)
    assert v.note == "Touched pad 0.4 (key 4)."  # no game known yet: the pad's own id
    v.board_line(json.dumps({"event": "new_game", "first": 0, "state": {
        "rules": KALAH, "turn": 0}}).encode())
    v.touch("0.4", keys.SHORT_S, now=101.0)
    assert v.note == "Touched seat 0's pit 3 (key 4)."
    v.touch("1.S", keys.LONG_S, now=102.0)
    assert v.note == "Long press on seat 1's store (key i)."
    v.touch("0.1", keys.SHORT_S, now=105.0)
    assert v.note == "Touched pad 0.1, which this game does not use (key 1)."


def test_a_host_talks_to_the_view_board_over_its_pty(tmp_path):
    import serial  # pyserial: the host tool's own transport
    link = str(tmp_path / "view.pty")
    with pty_sim("--main", echo_main(tmp_path), "--link", link) as (proc, master):
        buf = read_until(master, b"", lambda b: b"touched" in b and b"no host" in b)
        with serial.Serial(link, timeout=HANG_S) as port:
            port.write(b"ping\n")
            assert json.loads(port.readline()) == {"echo": "ping"}
            buf = read_until(master, buf, lambda b: "a host is connected" in last_screen(b))
        buf = read_until(master, buf, lambda b: "serial: no host" in last_screen(b))
        os.write(master, b"\x1b")
        assert proc.wait(HANG_S) == 0


def test_view_plays_a_pit_on_the_real_firmware(tmp_path):
    """`make sim` as a newcomer meets it: the default board, a key, a move."""
    with pty_sim("--flash", str(tmp_path / "flash"),
                 "--link", str(tmp_path / "sim.pty")) as (proc, master):
        buf = read_until(master, b"", lambda b: "Board started" in last_screen(b))
        assert "Seat 0 to move." in last_screen(buf)   # whose turn it is, right after boot
        os.write(master, b"3")              # physical pit 0.3 = Kalah pit 2 of seat 0
        buf = read_until(master, buf, lambda b: "Seat 0 sows" in last_screen(b))
        assert "Seat 0 sows 4 from pit 2; the last stone lands in its own pit 6; seat 1 to move." \
            in view.strip_ansi(last_screen(buf)).replace("\r\n", " ")
        # the sowing animation ends with the four pits after 0.3 at 5 and 0.3 at 0
        fives = lambda b: view.strip_ansi(last_screen(b)).count("\u00b7 5 \u00b7")  # noqa: E731
        buf = read_until(master, buf, lambda b: fives(b) == 4)
        row = [line for line in view.strip_ansi(last_screen(buf)).split("\r\n") if " 5 " in line][0]
        # the unused pit 0.1 (a dash), then 0.2 with 4, the emptied 0.3 (its LED marks the
        # pit played), and the four pits that got a stone
        assert row.split() == ["-", "\u00b7", "4", "\u00b7", "\u25cf", "0", "\u00b7"] + ["\u00b7", "5", "\u00b7"] * 4
        os.write(master, b"\x03")                       # Ctrl-C quits cleanly too
        read_until(master, buf, lambda b: b"\x1b[?1049l" in b)
        assert proc.wait(HANG_S) == 0


def test_the_readme_and_display_doc_explain_every_light_the_legend_shows():
    """The README explained white 'ten' lights while the legend also shows 'fifty' and 'five'."""
    import re
    from mancala_host.sim.status import legend
    shown = [item.strip() for item in view.strip_ansi(legend(2)).split(view.LIT)][1:]
    marks = [item for item in shown if not item.startswith("seat ")]
    assert marks == ["ten", "fifty", "five"]
    readme = " ".join(open(os.path.join(ROOT, "README.md")).read().split())
    table = open(os.path.join(ROOT, "docs", "display.md")).read()
    for mark in marks:
        row = re.search(r"^\| %s \| (\d+) \| (\w+) \|" % mark, table, re.M)
        assert row, mark
        assert re.search(r"\b%s\b" % row.group(2), readme) and re.search(r"\b%s\b" % mark, readme), mark
