"""`mancala-board bot FILE.py`: a student's choose(position) on a hub, or against the CPU.

    mancala-board bot mybot.py [--hub HOST:PORT] [--name NAME] [--token TOKEN]
    mancala-board bot mybot.py --local LEVEL [--games N] [--time S]
"""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="the bot: a Python file with choose(position) -> pit")
    p.add_argument("--hub", default="localhost:2671",
                   help="the class's KGP address, HOST:PORT (default localhost:2671)")
    p.add_argument("--name", help="the bot's name in the class (default: the file's name)")
    p.add_argument("--token", help="the hub's token, when the hub serves more than its computer")
    p.add_argument("--local", type=int, choices=range(1, 6), metavar="LEVEL",
                   help="play the CPU at LEVEL (1-5) on this computer instead, and print the report")
    p.add_argument("--games", type=int, default=2, help="with --local: games (default 2, each "
                                                        "side sowing first once)")
    p.add_argument("--time", type=float, default=5.0,
                   help="with --local: seconds choose() has for a move (default 5)")


def run(args: argparse.Namespace) -> int:
    from .runner import Bot, BotError, play_hub, play_local

    bot = Bot(args.file)
    if args.local:
        if not 1 <= args.games <= 100:
            raise BotError("--games is 1 to 100.")
        play_local(bot, args.local, args.games, args.time)
        return 0
    host, _, port = args.hub.rpartition(":")
    if not host or not port.isdigit():
        raise BotError("--hub is HOST:PORT, like localhost:2671, not %r." % args.hub)
    return play_hub(bot, host, int(port), args.name or bot.name, args.token)
