"""Bring-up on the host: `mancala-board profile check FILE`, `profile install NAME|FILE` (in
deploy.py) and `mancala-board diag`.

`profile check` runs the firmware's own profile checks (firmware/lib/mancala_fw/profile, the code the
board runs at boot) on a file, so a profile that passes here boots there. `diag` drives the
board's self-test over the serial protocol (the `diag` command, docs/hardware.md): the I2C
scan, the LED walk, the live pad readout as bars, and guided touch calibration.

The CLI registers: add_profile_arguments / cmd_profile and add_diag_arguments / run_diag
(which opens the board; cmd_diag(args, client) is the same with a client given).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import types
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence, TextIO

from ..errors import BoardError

if TYPE_CHECKING:
    from ..link.client import Client

def firmware_lib() -> str:
    """Puts the repository's firmware/lib on sys.path (once) and returns it: the board's own
    code (mancala_fw and the drivers it stands on), which the host uses as the board does."""
    from .deploy import repo_root

    try:
        lib = os.path.join(repo_root(), "firmware", "lib")
    except BoardError:
        raise BoardError("The board's own code (firmware/lib: its palette and profiles) is neither "
                         "beside this mancala-board nor in this folder: run it inside the project "
                         "folder, or install it from there with 'make venv'.")
    if lib not in sys.path:
        sys.path.append(lib)
    return lib


def firmware_profile() -> types.ModuleType:
    """The board's profile package (firmware/lib/mancala_fw/profile): the code the board runs."""
    firmware_lib()
    from mancala_fw import profile

    return profile


def check_profile_file(path: str) -> tuple[bool, str]:
    """(True, summary) or (False, one sentence naming the place of the first fault)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        return False, "%s cannot be read: %s." % (path, e.strerror or e)
    except UnicodeError:
        return False, "%s is not a text file (UTF-8 JSON is needed)." % path
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        return False, "%s is not valid JSON: %s at line %d, column %d." % (
            path, e.msg[0].lower() + e.msg[1:], e.lineno, e.colno)
    try:
        p = firmware_profile().check(d)
    except ValueError as e:
        return False, "%s: %s." % (path, str(e).rstrip("."))
    return True, "%s: ok (%s: %d sides, %d pads, %d LEDs, budget %d mA)" % (
        path, p.name, p.sides, len(p.positions), p.total_leds, int(p.budget_ma + 0.5))


def add_profile_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["check", "install"],
                   help="check: run the board's profile checks on files; install: write one "
                        "(a name such as quad, or a file) to the board as its profile.json")
    p.add_argument("files", nargs="+", metavar="FILE", help="profile JSON files (install: a name or a file)")


def cmd_profile(args: argparse.Namespace) -> int:
    if args.action == "install":
        return install_profile(args)
    return cmd_profile_check(args)


def install_profile(args: argparse.Namespace) -> int:
    """`profile install NAME|FILE`: check the profile here, write it to the board's flash as
    profile.json (a new file renamed over the old one) with mpremote, reset, and check that
    the board boots with it.

    Through mpremote rather than the serial protocol: it works whatever the board runs, even
    when the profile it has stops the app at boot (the REPL still answers), and a profile is
    larger than a protocol line may be."""
    from . import deploy
    from ..link.transport import find_board

    if len(args.files) != 1:
        raise BoardError("profile install takes one profile: a name (duo, quad) or a file.")
    name_or_path = args.files[0]
    path = name_or_path if os.path.exists(name_or_path) else \
        deploy.profile_path(name_or_path, deploy.repo_root())
    ok, text = check_profile_file(path)
    if not ok:
        raise BoardError("%s; nothing was written to the board." % text.rstrip("."))
    with open(path, encoding="utf-8") as f:
        name = json.load(f)["name"]
    port = args.port or find_board()
    argv = [deploy.find_tool("mpremote"), "connect", port, "fs", "cp", path,
            ":" + deploy.PROFILE_NEW, "+", "exec",
            "import os; os.rename(%r, %r)" % (deploy.PROFILE_NEW, deploy.PROFILE_FILE), "+", "reset"]
    deploy.run_mpremote(argv, port, "write the profile to")
    reported = deploy.wait_for_hello(port, args.timeout, "profile install").get("board")
    if reported != name:
        raise BoardError("The board on %s boots with profile %s, not %s: the copy did not take; "
                         "run profile install again." % (port, reported, name))
    print("The board on %s now boots with profile %s (%s written as :%s)." % (
        port, name, path, deploy.PROFILE_FILE))
    return 0


def cmd_profile_check(args: argparse.Namespace) -> int:
    """Prints one line per file; exit code 0 when every file passes, 1 otherwise."""
    bad = 0
    for path in args.files:
        ok, text = check_profile_file(path)
        if ok:
            print(text)
        else:
            bad += 1
            print(text, file=sys.stderr)
    return 1 if bad else 0


# --- diag -------------------------------------------------------------------------------

def add_diag_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", nargs="?", default="scan",
                   choices=["scan", "pads", "walk", "calibrate", "thresholds", "stop",
                            "memory"],
                   help="scan (default): which pad controllers answer; pads: live readout; "
                        "walk: light each ring in chain order; calibrate: set the touch "
                        "thresholds; thresholds: show them; stop: back to the game; "
                        "memory: the board's heap and its lowest free since start")
    p.add_argument("--seconds", type=float, default=0,
                   help="pads: stop after this many seconds (0: until Ctrl-C)")
    p.add_argument("--once", action="store_true", help="pads: one readout, no redrawing")
    p.add_argument("--step", type=int, help="walk: light only this step (0 = first ring)")
    p.add_argument("--auto", type=float, metavar="SECONDS",
                   help="walk: let the board step by itself every SECONDS")
    p.add_argument("--delay", type=float,
                   help="walk/calibrate: wait this many seconds instead of for Enter")
    p.add_argument("--pads", help="calibrate: only these pads, e.g. 0.1,0.2 (default: all)")
    p.add_argument("--hold", type=float, default=2.0,
                   help="calibrate: seconds each measurement takes (default 2)")


def run_diag(args: argparse.Namespace) -> int:
    from ..link.session import connect

    with connect(args) as client:
        return cmd_diag(args, client)


def _diag(client, **fields):
    return client.request("diag", **fields)


def cmd_diag(args: argparse.Namespace, client: Client, out: TextIO | None = None,
             wait: Callable[[str, float | None], None] | None = None) -> int:
    """out: where text goes (default stdout); wait(text, seconds): how the maker is asked to
    do something (default: print, then Enter or --delay seconds). Tests replace both."""
    out = out or sys.stdout
    wait = wait or _console_wait(out)
    action = args.action
    if action == "scan":
        return _scan(client, out)
    if action == "pads":
        return _pads(args, client, out)
    if action == "walk":
        return _walk(args, client, out, wait)
    if action == "calibrate":
        return _calibrate(args, client, out, wait)
    if action == "memory":
        a = _diag(client, action="memory")
        print("Heap: %d bytes free, %d in use; the lowest free since the board started: %d "
              "bytes." % (a["free"], a["alloc"], a["min_free"]), file=out)
        return 0
    if action == "thresholds":
        rows = _diag(client, action="thresholds")["pads"]
        for pid, touch, release in rows:
            print("pad %-4s touch %3d  release %3d" % (pid, touch, release), file=out)
        return 0
    _diag(client, action="stop")
    print("Self-test stopped; the board shows the game again.", file=out)
    return 0


def _console_wait(out):
    def wait(text, seconds):
        if seconds is None:
            print(text + " (press Enter)", file=out, end="", flush=True)
            try:
                input()
            except EOFError:
                raise BoardError("No input: give --delay SECONDS to run without a keyboard.")
        else:
            print(text, file=out, flush=True)
            time.sleep(seconds)
    return wait


def _scan(client, out):
    a = _diag(client, action="scan")
    print("Pad controllers expected: %s; answering: %s." % (
        ", ".join(a["expected"]), ", ".join(a["found"]) or "none"), file=out)
    for sentence in a["missing"]:
        print(sentence[0].upper() + sentence[1:] + ".", file=out)
    unexpected = [c for c in a["found"] if c not in a["expected"]]
    if unexpected:
        print("Unexpected on the bus: %s answer%s but %s not in the profile (another I2C device "
              "at a pad controller's address, or a profile that lists too few pad controllers)."
              % (", ".join(unexpected), "s" if len(unexpected) == 1 else "",
                 "is" if len(unexpected) == 1 else "are"), file=out)
    if not a["missing"]:
        print("Every pad controller of the profile answers.", file=out)
    return 1 if a["missing"] else 0


BAR = 30
SCALE = 60  # counts of (baseline - filtered) a full bar stands for


def bar_lines(rows: Iterable[Sequence[Any]], thresholds: dict[str, int]) -> list[str]:
    """One line per pad: its delta as a bar with the touch threshold marked '|'."""
    lines = []
    for pid, filtered, baseline, touched in rows:
        if filtered is None:
            lines.append("%-4s %s  chip not answering" % (pid, "?" * BAR))
            continue
        delta = baseline - filtered
        n = max(0, min(BAR, delta * BAR // SCALE))
        cells = ["#"] * n + ["."] * (BAR - n)
        t = thresholds.get(pid)
        if t is not None:
            mark = min(BAR - 1, t * BAR // SCALE)
            cells[mark] = "|"
        lines.append("%-4s %s  filtered %4d  baseline %4d  delta %4d%s" % (
            pid, "".join(cells), filtered, baseline, delta, "  TOUCHED" if touched else ""))
    return lines


def _pads(args, client, out):
    thresholds = {}
    for pid, touch, release in _diag(client, action="thresholds")["pads"]:
        thresholds[pid] = touch
    live = not args.once and out.isatty()
    end = time.monotonic() + args.seconds if args.seconds else None
    shown = 0
    while True:
        lines = bar_lines(_diag(client, action="readout")["pads"], thresholds)
        if live and shown:
            out.write("\x1b[%dA" % shown)
        for line in lines:
            out.write(line + ("\x1b[K\n" if live else "\n"))
        out.flush()
        shown = len(lines)
        if args.once or (end is not None and time.monotonic() >= end):
            return 0
        time.sleep(0.1)


def _walk(args, client, out, wait):
    if args.auto:
        a = _diag(client, action="walk", period_ms=int(args.auto * 1000))
        print("The board now lights its %d rings in turn, %g s each; `mancala-board diag "
              "stop` ends it." % (a["steps"], args.auto), file=out)
        return 0
    print("Each ring lights in chain order: one white LED (the ring's first), then as many "
          "LEDs in the chain's colour as its place in the chain. A wrong count means swapped "
          "rings, a wrong colour a ring on the wrong pin, colour running the other way a ring "
          "mounted reversed.", file=out)
    if args.step is not None:
        print(_diag(client, action="walk", step=args.step)["see"], file=out)
        return 0
    n = 0
    try:
        while True:
            a = _diag(client, action="walk", step=n)
            wait("%d/%d %s." % (n + 1, a["steps"], a["see"]), args.delay)
            n += 1
            if n == a["steps"]:
                break
    finally:
        _diag(client, action="stop")
    print("Walk done.", file=out)
    return 0


def _collect(client, args, **fields):
    """Start one calibration phase and wait until the board has collected it."""
    ms = int(args.hold * 1000)
    _diag(client, action="calibrate", ms=ms, **fields)
    deadline = time.monotonic() + args.hold + 5
    while True:
        time.sleep(min(0.2, args.hold / 4))
        a = _diag(client, action="calibrate", phase="status")
        if not a["collecting"]:
            return a
        if time.monotonic() > deadline:
            raise BoardError("The board did not finish the calibration measurement; is its "
                             "main loop running?")


def _calibrate(args, client, out, wait):
    ids = [row[0] for row in _diag(client, action="thresholds")["pads"]]
    pads = ids
    if args.pads:
        pads = [p.strip() for p in args.pads.split(",") if p.strip()]
        unknown = [p for p in pads if p not in ids]
        if unknown:
            raise BoardError("This board has no pad %s; its pads are %s." % (
                unknown[0], ", ".join(ids)))
    try:
        return _guide(args, client, out, wait, pads)
    finally:
        _diag(client, action="stop")  # also after Ctrl-C: the board goes back to the game


def _guide(args, client, out, wait, pads):
    _diag(client, action="calibrate", phase="clear")
    wait("Take your hands off the board: measuring the noise for %g s." % args.hold,
         args.delay)
    _collect(client, args, phase="idle")
    for pid in pads:
        wait("Touch pad %s now and hold it until the next message." % pid, args.delay)
        status = _collect(client, args, phase="touch", pad=pid)
        row = [r for r in status["pads"] if r[0] == pid][0]
        print("  pad %s: noise %d, touched %s" % (pid, row[1], row[2]), file=out)
    # Saving restarts the chips' baseline tracking, which must not learn a finger.
    wait("Let go of the pad; saving the thresholds.", args.delay)
    a = _diag(client, action="calibrate", phase="save")
    for pid in sorted(a["thresholds"]):
        touch, release = a["thresholds"][pid]
        print("pad %-4s touch %3d  release %3d" % (pid, touch, release), file=out)
    for sentence in a["problems"]:
        print(sentence[0].upper() + sentence[1:] + ".", file=out)
    print("Saved to %s on the board; it is loaded at every start." % a["saved"], file=out)
    return 1 if a["problems"] else 0
