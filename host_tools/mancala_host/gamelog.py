"""The game log (docs/game-log.md): one JSON object per line, one line per finished game.

The same code writes, reads and checks it, as python-chess does for PGN. `check_game` replays
a game with the shared engine from its rules, first seat and moves alone, and says in one
sentence why it does not add up; `read_log` yields each line's game or the reason it is
unreadable, so `replay`, `stats` and `export` skip bad lines, count them and go on.
"""

import json
import os
import time

from .errors import BoardError

FORMAT = "mancala-game-log"
VERSION = 1
REQUIRED = ("format", "version", "rules", "first", "moves", "result")


def utc_now():
    """ISO 8601 UTC time to the second, the form the log uses for start and end."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def new_game(board, rules, seats, first, started=None):
    """A game entry with no moves yet."""
    return {"format": FORMAT, "version": VERSION, "board": board, "rules": rules,
            "seats": seats, "first": first, "started": started or utc_now(), "ended": None,
            "moves": [], "result": None}


def append_game(path, game):
    """Add one finished game as one line, written whole and synced, so a crash leaves either the
    whole line or (at worst) a torn last line that readers skip and the next write steps over."""
    line = json.dumps(game, separators=(",", ":"), sort_keys=True) + "\n"
    try:
        torn = False
        if os.path.exists(path) and os.path.getsize(path) > 0:
            with open(path, "rb") as f:
                f.seek(-1, os.SEEK_END)
                torn = f.read(1) != b"\n"
        with open(path, "a", encoding="utf-8") as f:
            f.write(("\n" if torn else "") + line)
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        raise BoardError("Could not write the game log %s: %s." % (path, exc.strerror or exc))


def read_log(path):
    """(line number, game dict or None, reason or None) for every non-empty line of the log."""
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
    except OSError as exc:
        raise BoardError("Could not read the game log %s: %s." % (path, exc.strerror or exc))
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            game = json.loads(text)
        except ValueError as exc:
            yield number, None, "it is not valid JSON (%s)" % str(exc).split(":")[0]
            continue
        reason = _shape_problem(game)
        yield number, (None if reason else game), reason


def _shape_problem(game):
    if not isinstance(game, dict):
        return "it is not a JSON object"
    if game.get("format") != FORMAT:
        return "it is not a game-log entry (format is %r, not %r)" % (game.get("format"), FORMAT)
    if game.get("version") != VERSION:
        return "its version %r is not %d, the one this tool reads" % (game.get("version"), VERSION)
    for key in REQUIRED:
        if key not in game:
            return "it has no %r" % key
    if not isinstance(game["moves"], list):
        return "its 'moves' is not a list"
    result = game["result"]
    if not isinstance(result, dict) or "places" not in result or "stores" not in result:
        return "its 'result' needs 'places' and 'stores'"
    return None


def start_engine(game):
    """The engine Game at the start of a logged game; ValueError says what is wrong."""
    try:
        from mancala import Game, Rules
    except ImportError:
        raise BoardError("The rules engine (package 'mancala') is not installed: run 'make venv' "
                         "or 'pip install -e .' in the repository.")
    try:
        rules = Rules.from_dict(game["rules"])
    except (ValueError, TypeError) as exc:
        raise ValueError("its rules are not valid: %s" % exc)
    try:
        return Game(rules, first=game["first"])
    except (ValueError, TypeError) as exc:
        raise ValueError("its first seat is not valid: %s" % exc)


def apply_move(engine, move, number):
    """Play or resign one logged move on the engine; ValueError names the move and the fault."""
    if not isinstance(move, dict) or not isinstance(move.get("seat"), int):
        raise ValueError("move %d is not {\"seat\": s, \"pit\": n} or {\"seat\": s, \"resign\": true}" % number)
    seat = move["seat"]
    if engine.over:
        raise ValueError("move %d (seat %d) comes after the game had ended" % (number, seat))
    try:
        if move.get("resign"):
            return engine.resign(seat)
        if engine.turn != seat:
            raise ValueError("move %d: seat %d plays pit %s, but it was seat %d's turn"
                             % (number, seat, move.get("pit"), engine.turn))
        return engine.play(move.get("pit"))
    except (ValueError, TypeError) as exc:
        if str(exc).startswith("move %d" % number):
            raise
        raise ValueError("move %d: seat %d cannot %s: %s" % (
            number, seat, "resign" if move.get("resign") else "play pit %s" % move.get("pit"), exc))


def check_game(game):
    """Replay `game`; return (engine, records) or raise ValueError with the reason it fails."""
    engine = start_engine(game)
    records = []
    for number, move in enumerate(game["moves"], 1):
        records.append(apply_move(engine, move, number))
    if not engine.over:
        raise ValueError("the moves stop before the game ends (seat %s would move next)" % engine.turn)
    state = engine.to_dict()
    result = game["result"]
    if state["places"] != result["places"] or state["stores"] != result["stores"]:
        raise ValueError("the log says places %s and stores %s, but the moves give places %s and "
                         "stores %s" % (json.dumps(result["places"]), json.dumps(result["stores"]),
                                        json.dumps(state["places"]), json.dumps(state["stores"])))
    return engine, records


def good_games(paths, report=None):
    """(path, line, game, records, final state) for every game that replays; `report(path, line, reason)` is
    called for each one that does not."""
    for path in paths:
        for number, game, reason in read_log(path):
            if game is not None:
                try:
                    engine, records = check_game(game)
                except ValueError as exc:
                    reason = str(exc)
            if reason:
                if report:
                    report(path, number, reason)
                continue
            yield path, number, game, records, engine.to_dict()
