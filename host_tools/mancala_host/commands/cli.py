"""`mancala-board`: the command line. One handler per command in COMMANDS, as mpremote does.

`main(argv)` is the whole program and returns the exit code, so tests and scripts call it
directly. Every fault a person can meet ends as one sentence on stderr and a non-zero exit;
set MANCALA_DEBUG=1 to see the traceback instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, Sequence

from ..errors import MancalaError, say


def _board_command(name):
    """A handler from drive.py that runs with an open client."""
    def run(args):
        from . import drive
        from ..link.session import connect

        with connect(args) as client:
            return getattr(drive, "cmd_" + name)(args, client)
    return run


def _module_command(module, func="run"):
    """A handler living in its own module, imported only when used (matplotlib is slow)."""
    def run(args):
        import importlib

        mod = importlib.import_module("mancala_host." + module)  # module: its path in the package
        return getattr(mod, func)(args)
    return run


# name -> (handler, one-line help, function that adds the arguments)
COMMANDS: dict[str, tuple[Callable[[argparse.Namespace], int], str, Callable[[argparse.ArgumentParser], None]]] = {}


def command(name: str, handler: Callable[[argparse.Namespace], int], help_text: str
            ) -> Callable[[Callable[[argparse.ArgumentParser], None]], Callable[[argparse.ArgumentParser], None]]:
    def add(adder):
        COMMANDS[name] = (handler, help_text, adder)
        return adder
    return add


def _number(text):
    if not text.isdigit():
        raise argparse.ArgumentTypeError("a seat or pit is a whole number, got %r" % text)
    return int(text)


def _seat(text):
    if not text.isdigit():
        raise argparse.ArgumentTypeError("a seat is a number from 0, got %r" % text)
    return int(text)


def _stone_ms(text):
    if not text.isdigit() or not 20 <= int(text) <= 2000:
        raise argparse.ArgumentTypeError("the time per stone is a whole number of ms from 20 to 2000, got %r" % text)
    return int(text)


@command("info", _board_command("info"), "show the board's hello: firmware, profile, rules")
def _a_info(p):
    pass


@command("config", _board_command("config"), "show, set (key=value ...) or reset the board's config")
def _a_config(p):
    p.add_argument("action", choices=["show", "set", "reset"])
    p.add_argument("pairs", nargs="*", metavar="KEY=VALUE",
                   help="dotted keys: rules.seeds=5 seats.1.kind=cpu rules.preset=kalah-empty-capture")


@command("new", _board_command("new"), "start a new game (optionally with rules and first seat)")
def _a_new(p):
    p.add_argument("--first", type=_seat, help="the seat that starts")
    p.add_argument("--state", metavar="FILE",
                   help="start from the position in FILE (a state dict as JSON, such as the "
                        "board's game.json or `state --json`), e.g. an endgame to practise")
    p.add_argument("rules", nargs="*", metavar="RULE=VALUE", help="e.g. variant=basic players=3")


@command("press", _board_command("press"),
         "press [SEAT] PIT, exactly like a touch on the board (no SEAT: the seat to move)")
def _a_press(p):
    p.add_argument("place", nargs="+", type=_number, metavar="[SEAT] PIT",
                   help="the pit, and before it the seat (default: the seat to move)")


@command("resign", _board_command("resign"), "resign SEAT")
def _a_resign(p):
    p.add_argument("seat", type=_seat)


@command("undo", _board_command("undo"), "take back the last move")
def _a_undo(p):
    pass


@command("state", _board_command("state"), "show the game in progress")
def _a_state(p):
    pass


@command("demo", _board_command("demo"), "demo mode: the CPU plays every seat, game after game (demo off: stop)")
def _a_demo(p):
    p.add_argument("action", nargs="?", choices=["on", "off"], default="on")
    p.add_argument("--seed", type=int, help="the same seed shows the same games again (0 to 2^30 - 1)")


@command("hint", _module_command("commands.hint"), "ask the board which pit its CPU suggests for the seat to move")
def _a_hint(p):
    from ..logs.analyze import add_exact_arguments
    add_exact_arguments(p, "Kalah: every pit that keeps the exact value with perfect play, "
                           "computed here")


@command("watch", _module_command("views.watch"), "the live board in the terminal, with commentary")
def _a_watch(p):
    p.add_argument("--events", type=int, default=0, help="stop after this many game events: moves, resigns, undos, new games, game overs (0: never)")
    p.add_argument("--plain", action="store_true", help="no redrawing: print each event's lines")


@command("web", _module_command("views.web"), "the live board as a local web page, for a projector")
def _a_web(p):
    p.add_argument("--http-port", type=int, default=8765, help="the web server's port (0: any free one)")
    p.add_argument("--host", default="127.0.0.1", help="the address to serve on (default localhost only)")
    p.add_argument("--control", action="store_true", help="clicking a pit on the page presses it on the board")
    p.add_argument("--profile", default=None, metavar="FILE",
                   help="the board's profile JSON, for the page's layout (default: hardware/profiles/BOARD.json)")
    p.add_argument("--stone-ms", type=_stone_ms, default=None, metavar="MS",
                   help="ms per stone in the page's sowing animation, 20-2000 (default: the board's animation_ms, or 120 when that is 0)")
    from ..logs.analyze import add_exact_arguments
    add_exact_arguments(p, "Kalah: show the exact value and the pits that keep it (off by "
                           "default: it gives the game away)")


@command("record", _module_command("logs.record"), "write every finished game to a game log until stopped")
def _a_record(p):
    p.add_argument("--out", default="games.jsonl", help="the game log to append to (default games.jsonl)")
    p.add_argument("--games", type=int, default=0, help="stop after this many games (0: never)")
    p.add_argument("--reconnect-timeout", type=float, default=0,
                   help="give up when the board stays away this many seconds (0: never)")


@command("replay", _module_command("logs.replay"), "check every game in a log with the engine")
def _a_replay(p):
    p.add_argument("file")
    p.add_argument("--step", action="store_true", help="walk through one game move by move")
    p.add_argument("--game", type=int, default=1, help="the game for --step, counted from 1")
    p.add_argument("--delay", type=float, default=None,
                   help="with --step: seconds between moves instead of waiting for Enter")


@command("stats", _module_command("logs.stats"), "tables (and --plot) of the games in logs")
def _a_stats(p):
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--plot", metavar="PNG", help="also draw the figures into this PNG file")
    from ..logs.analyze import add_exact_arguments
    add_exact_arguments(p, "with --plot: also draw one Kalah game's exact value line, to "
                           "PNG-exact")
    p.add_argument("--exact-game", type=int, default=1,
                   help="with --exact: which finished Kalah game, counted from 1 (default 1)")


@command("export", _module_command("logs.stats", "run_export"), "export the moves of logs (--csv)")
def _a_export(p):
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--csv", action="store_true", required=True, help="one row per move, for spreadsheets")
    p.add_argument("--out", help="write here instead of to stdout")


def _run_analyze(args: argparse.Namespace) -> int:
    """analyze, or analyze --exact (exact.py, which uses analyze's parts: one way)."""
    if getattr(args, "exact", False):
        return _module_command("logs.exactreport", "run_analyze")(args)
    return _module_command("logs.analyze")(args)


@command("analyze", _run_analyze, "each move of logged games against a deeper CPU search")
def _a_analyze(p):
    from ..logs import analyze

    analyze.add_arguments(p)


@command("deploy", _module_command("flashing.deploy"), "compile firmware/ and copy it to the board")
def _a_deploy(p):
    p.add_argument("--profile", default="duo", help="hardware/profiles/NAME.json or a path (default duo)")
    p.add_argument("--dry-run", action="store_true", help="list what would be copied, touch nothing")
    p.add_argument("--firmware", help="the firmware folder (default: the repository's firmware/)")
    p.add_argument("--build", help="where compiled files go (default: build/deploy in the repo)")
    p.add_argument("--no-tables", action="store_true",
                   help="leave the endgame tables (build/tables, made if missing) off the board")
    p.add_argument("--circuitpython", action="store_true",
                   help="a Pico running CircuitPython: copy code.py, lib/ and the profile onto "
                        "its CIRCUITPY drive (unchanged files are skipped)")
    p.add_argument("--drive", help="with --circuitpython: the mounted CIRCUITPY drive (default: "
                                   "found under /media, /run/media or /Volumes)")


@command("flash", _module_command("flashing.flash"), "copy a .uf2 image onto a Pico in BOOTSEL mode (default: make firmware's)")
def _a_flash(p):
    from ..flashing import flash

    flash.add_arguments(p)


@command("profile", _module_command("flashing.bringup", "cmd_profile"), "check profile files (profile check FILE...), or install one on the board (profile install quad)")
def _a_profile(p):
    from ..flashing import bringup

    bringup.add_profile_arguments(p)


@command("diag", _module_command("flashing.bringup", "run_diag"), "the board's self-test: scan, pads, walk, calibrate")
def _a_diag(p):
    from ..flashing import bringup

    bringup.add_diag_arguments(p)


@command("class", _module_command("hub.command"), "the classroom hub: every board on one page, settings for all, a tournament")
def _a_class(p):
    from ..hub import command as hub_command

    hub_command.add_arguments(p)


@command("bot", _module_command("bots.command"), "a student's bot (choose(position) -> pit in FILE.py) on a class hub, or against the CPU (--local)")
def _a_bot(p):
    from ..bots import command as bot_command

    bot_command.add_arguments(p)


def _add_common_options(p: argparse.ArgumentParser, suppress: bool) -> None:
    """The options every command shares. On the program they carry the defaults; on each
    command they are accepted too (`state --json` as well as `--json state`), with no default
    of their own there, so one given before the command is not overwritten. A command whose
    own option has the same name (`class --port`, `analyze --json`) keeps its own."""
    def add(*names, **kw):
        if any(n in p._option_string_actions for n in names):
            return
        if suppress:
            kw["default"] = argparse.SUPPRESS
        p.add_argument(*names, **kw)
    add("--port", "-p", help="device path or pyserial URL (default: find the board by USB ID)")
    add("--timeout", type=float, default=5.0, help="seconds to wait for an answer (default 5)")
    add("--json", action="store_true", help="print the board's answers as JSON")
    add("--colour", "--color", dest="colour", action="store_true", default=None,
        help="colour the board even when not on a terminal")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mancala-board",
        description="Configure, drive, watch, record and analyse a Mancala board over USB serial.")
    _add_common_options(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("sim", help="run the virtual board (see: mancala-board sim --help)")
    for name, (handler, help_text, adder) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        adder(p)
        _add_common_options(p, suppress=True)
        p.set_defaults(handler=handler)
    return parser


def _run_sim(argv):
    from ..sim import launcher

    result = launcher.main(argv)
    return result if isinstance(result, int) else 0


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    argv = list(argv)
    debug = bool(os.environ.get("MANCALA_DEBUG"))
    try:
        if argv and argv[0] == "sim":
            return _run_sim(argv[1:])
        parser = build_parser()
        args = parser.parse_args(argv)
        if not args.command:
            parser.print_help()
            return 2
        if args.colour is None:
            args.colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        return args.handler(args)
    except MancalaError as exc:  # every fault a person can fix: its one sentence, here only
        if debug:
            raise
        return say(exc)
    except KeyboardInterrupt:
        print("Stopped.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # a bug of ours: still one sentence, and how to see more
        if debug:
            raise
        print("Unexpected error in mancala-board (%s: %s); run with MANCALA_DEBUG=1 for details "
              "and report it." % (type(exc).__name__, exc), file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
