"""`replay FILE`: check every game of a log with the engine; `--step` walks one game.

The exit code is 0 when every game adds up and 1 when any does not (each one is named with
its line and the reason), so a script can check a log. A game marked unfinished (recording
stopped before it ended) adds up when its moves reach the position it records; it is counted
as unfinished, and `--step` ends it by saying so. Of the lines of one game (the same board
and game id: a stub written when recording stopped, then the game as it ended), only the one
the log keeps counts (gamelog.latest); the others are counted as superseded.
"""

from __future__ import annotations

import argparse
import sys
import time

from . import gamelog
from ..errors import BoardError
from ..render.view import board_lines, record_words, rules_label


def run(args: argparse.Namespace) -> int:
    if args.step:
        return step(args)
    total = unfinished = 0
    bad = []
    entries, superseded = gamelog.latest(gamelog.read_log(args.file))
    for number, game, reason in entries:
        total += 1
        if game is not None:
            try:
                gamelog.check_game(game)
            except ValueError as exc:
                reason = str(exc)
        if reason:
            bad.append((number, reason))
        elif game is not None and gamelog.is_unfinished(game):
            unfinished += 1
    for number, reason in bad:
        print("%s line %d: %s." % (args.file, number, reason))
    good = total - len(bad)
    print("%s: %d game(s), %d replay correctly%s, %d do not%s." % (
        args.file, total, good,
        " (%d of them unfinished: recording stopped before the game ended)" % unfinished
        if unfinished else "", len(bad),
        "; %d earlier line(s) of the same games are superseded" % len(superseded)
        if superseded else ""))
    return 1 if bad else 0


def _pick(args):
    games = gamelog.latest(gamelog.read_log(args.file))[0]
    if not 1 <= args.game <= len(games):
        raise BoardError("%s has %d game(s); --game must be from 1 to %d." % (args.file, len(games), len(games)))
    number, game, reason = games[args.game - 1]
    if reason:
        raise BoardError("Game %d (line %d of %s) cannot be shown: %s." % (args.game, number, args.file, reason))
    return number, game


def step(args: argparse.Namespace) -> int:
    number, game = _pick(args)
    try:
        engine = gamelog.start_engine(game)
    except ValueError as exc:
        raise BoardError("Game %d cannot be shown: %s." % (args.game, exc))
    interactive = args.delay is None and sys.stdin.isatty()
    print("Game %d of %s: %s; seats %s; seat %d starts; %d moves%s." % (
        args.game, args.file, rules_label(game["rules"]),
        ", ".join(_seat(s) for s in game.get("seats") or []), game["first"], len(game["moves"]),
        " (unfinished)" if gamelog.is_unfinished(game) else ""))
    _show(engine, args)
    for i, move in enumerate(game["moves"], 1):
        if interactive:
            try:
                input("-- Enter for move %d of %d (Ctrl-C to stop) --" % (i, len(game["moves"])))
            except EOFError:
                interactive = False
        elif args.delay:
            time.sleep(args.delay)
        try:
            record = gamelog.apply_move(engine, move, i)
        except ValueError as exc:
            raise BoardError("Game %d stops adding up: %s." % (args.game, exc))
        by = " [%s]" % move["by"] if move.get("by") and move["by"] != "human" else ""
        stamp = " at %.1f s" % move["t"] if isinstance(move.get("t"), (int, float)) else ""
        print("")
        print("Move %d%s%s: %s" % (i, stamp, by, record_words(record)))
        _show(engine, args)
    turn = engine.turn
    if turn is not None:  # the game is not over
        if gamelog.is_unfinished(game):
            print("")
            print("The game is unfinished: recording stopped here, with seat %d to move." % turn)
            return 0
        print("The log ends here, before the game is over.")
        return 1
    return 0


def _seat(seat):
    if isinstance(seat, dict) and seat.get("kind") == "cpu":
        return "CPU level %s" % seat.get("level", "?")
    return "human"


def _show(engine, args):
    for line in board_lines(engine.to_dict(), colour=getattr(args, "colour", False)):
        print("  " + line)
