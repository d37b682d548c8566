"""`mancala-board class`: the hub's command line.

    mancala-board class [--port LINK ...] [--no-usb] [--out FOLDER] [--http-port N] [--host H]
                        [--token TOKEN] [--kgp-port N] [--kgp-time S] [--kgp-grace S]
                        [--kgp-no-move random|forfeit] [--grade-seconds S] [--grade-nodes N]
    mancala-board class export FOLDER [--grade-seconds S] [--grade-nodes N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
from typing import Any, Callable

from ..errors import BoardError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", nargs="?", choices=["serve", "export"], default="serve",
                   help="serve (default): hold the boards and serve the page; export FOLDER: "
                        "write the CSV export of a folder the hub recorded")
    p.add_argument("folder", nargs="?", help="with export: the folder (the hub's --out)")
    p.add_argument("--port", dest="ports", action="append", default=[], metavar="PORT",
                   help="a board's port or a virtual board's link, besides those found on USB "
                        "(give it once per board)")
    p.add_argument("--no-usb", action="store_true", help="only the --port boards: look for none on USB")
    p.add_argument("--out", default="class", help="the folder for every board's game log (default ./class)")
    p.add_argument("--http-port", type=int, default=8766, help="the page's port (0: any free one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to serve on (default localhost only); any other needs the "
                        "token on every request, as the printed address carries it")
    p.add_argument("--token", help="the token that lets a page or program change the room "
                                   "(16 to 128 letters, digits, - or _; default: a new one each "
                                   "start, printed)")
    p.add_argument("--kgp-port", type=int, default=2671,
                   help="the port students' bots join on, over the Kalah Game Protocol (default "
                        "2671, KGP's own; 0: any free one; -1: none); bound like the page")
    p.add_argument("--kgp-time", type=float,
                   help="seconds a bot has for a move (default 5, or what the page set last "
                        "in this folder)")
    p.add_argument("--kgp-grace", type=float,
                   help="seconds a bot that dropped may take to come back before it forfeits "
                        "the game it is to move in; each game gives it its own grace "
                        "(default 60, or what the page set last)")
    from ..logs.exact import SECONDS, seconds_argument
    p.add_argument("--grade-seconds", type=seconds_argument, default=SECONDS, metavar="S",
                   help="the time the exact solver may take to grade each bot move, as "
                        "analyze --exact --seconds (default %g); a move that needs more is "
                        "left ungraded" % SECONDS)
    p.add_argument("--grade-nodes", type=int, default=None, metavar="N",
                   help="also stop each pit's search after N nodes, the same on any machine "
                        "(default: no limit)")
    p.add_argument("--kgp-no-move", choices=["random", "forfeit"],
                   help="a bot with no legal pit by the time limit: a random legal pit is "
                        "played for it (random, KGP's rule; the default) or it resigns that "
                        "game (forfeit); the page's bots tab changes it too")


def _cards(args: argparse.Namespace, folder: str, bot_names: Callable[[], set[str]]) -> Any:
    """The bots' report cards of the class in folder (grading.Cards), with the command line's
    budget: the hub's and `class export`'s are made here alike."""
    from ..logs.exact import Budget
    from .grading import Cards

    if args.grade_nodes is not None and args.grade_nodes < 1000:
        raise BoardError("--grade-nodes is at least 1000.")
    return Cards(folder, bot_names, Budget(args.grade_seconds, args.grade_nodes))


def run(args: argparse.Namespace) -> int:
    from . import export

    if args.action == "export":
        if not args.folder:
            raise BoardError("Say which folder to export: mancala-board class export FOLDER.")
        if not os.path.isdir(args.folder):
            raise BoardError("There is no folder %s to export." % args.folder)
        print("Exported to %s." % export.from_folder(
            args.folder, lambda folder, names: _cards(args, folder, lambda: names)))
        return 0
    return asyncio.run(_serve(args))


async def _serve(args: argparse.Namespace) -> int:
    from aiohttp import web

    from .guard import HEADER, Guard, new_token
    from .kgp import Lobby
    from .kgpage import add_routes
    from .room import Room
    from .server import make_app

    if args.no_usb and not args.ports:
        raise BoardError("With --no-usb, give the boards with --port (once per board).")
    guard = Guard(args.host, args.token or new_token())
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as exc:
        raise BoardError("Could not make the folder %s: %s." % (args.out, exc.strerror or exc))
    if (args.kgp_time is not None and not 0.5 <= args.kgp_time <= 600) or \
            (args.kgp_grace is not None and not 0 <= args.kgp_grace <= 3600):
        raise BoardError("--kgp-time is 0.5 to 600 seconds and --kgp-grace 0 to 3600.")
    room = Room(args.out, args.ports, usb=not args.no_usb, timeout=args.timeout)
    lobby = Lobby(room, None if guard.loopback else guard.token)
    lobby.restore_rules(args.kgp_time, args.kgp_grace, args.kgp_no_move)

    def bot_names() -> set[str]:
        t = room.tournament
        named = {p.name for p in t.players.values() if p.bot} if t is not None else set()
        return named | set(lobby.bots)
    cards = _cards(args, args.out, bot_names)
    room.bot_cards = cards     # the export writes the report cards too (export.write)
    cards.start()
    app = make_app(room, guard)
    add_routes(app, lobby, cards, guard.token)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, args.host, args.http_port)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        raise BoardError("Could not serve on %s:%d: %s; choose another --http-port."
                         % (args.host, args.http_port, exc.strerror or exc))
    port = runner.addresses[0][1]
    name = ("localhost" if args.host in ("127.0.0.1", "localhost") else
            socket.gethostname() if guard.wildcard else args.host)
    where = "http://%s:%d/" % ("[%s]" % name if ":" in name else name, port)
    if not guard.loopback:   # every request needs the token: the address to open carries it
        where += "?token=" + guard.token
    print("The class is at %s (%d board(s) given, %s); games go to %s; stop with Ctrl-C."
          % (where, len(args.ports), "USB searched" if not args.no_usb else "no USB search",
             args.out), flush=True)
    print("Programs that change the room send the header %s: %s" % (HEADER, guard.token), flush=True)
    if args.kgp_port >= 0:
        try:
            await lobby.start(args.host, args.kgp_port)
        except BoardError:
            await runner.cleanup()
            raise
        print("Bots join over KGP at %s:%d%s; %g s a move, %s when a bot has none."
              % (name, lobby.port, "" if guard.loopback else " with set auth:token",
                 lobby.move_s, "a random pit" if lobby.no_move == "random" else "it forfeits"),
              flush=True)
    done = asyncio.Event()
    loop = asyncio.get_running_loop()
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):  # each stop writes the games under way
        try:
            loop.add_signal_handler(getattr(signal, name), done.set)
        except (AttributeError, NotImplementedError, RuntimeError):
            pass
    try:
        await done.wait()
    finally:
        await lobby.close()
        cards.close()
        await runner.cleanup()   # the boards' threads end and write their unfinished games
    print("Stopped: the games are in %s." % args.out, flush=True)
    return 0
