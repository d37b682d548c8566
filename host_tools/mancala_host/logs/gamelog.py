"""The game log (docs/game-log.md): one JSON object per line, one line per game.

The same code writes, reads and checks it, as python-chess does for PGN. `check_game` replays
a game with the shared engine from its rules, first seat (or starting position) and moves
alone, and says in one sentence why it does not add up; `read_log` yields each line's game or
the reason it is unreadable, so `replay`, `stats` and `export` skip bad lines, count them and
go on. A file that is not a game log at all (its first line is not a game-log entry) or is
empty is one `BoardError`, not one complaint per line.

A game of version 2 has a key: the board's id and the board's id for the game. The log is
only ever appended to, so a game written again (a recorder stopped and started, a stub of a
game that was under way, then the game as it ended) is a later line with the same key;
`latest` leaves out each line that another line of its key holds as far or further, and
readers read only the rest. `logged` and `holds` tell a recorder what a log already has.
"""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from ..errors import BoardError

if TYPE_CHECKING:
    from mancala import Game

FORMAT = "mancala-game-log"
VERSION = 2            # the version written
VERSIONS = (1, 2)      # the versions read (docs/game-log.md §7)
REQUIRED = ("format", "version", "rules", "first", "moves", "result")


def utc_now() -> str:
    """ISO 8601 UTC time to the second, the form the log uses for start and end."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def new_game(board: dict[str, Any], rules: dict[str, Any], seats: list[Any] | None, first: int,
             started: str | None = None, game_id: int | None = None,
             base: dict[str, Any] | None = None) -> dict[str, Any]:
    """A game entry with no moves yet. `board` may name the board's `id`; with `game_id` (the
    board's id for the game) the entry has a key. `base` is the starting state of a game set
    up from a position."""
    game = {"format": FORMAT, "version": VERSION, "board": board, "rules": rules,
            "first": first, "started": started, "ended": None, "moves": [], "result": None}
    if seats is not None:
        game["seats"] = seats
    if game_id is not None:
        game["game"] = game_id
    if base is not None:
        game["base"] = base
    return game


def game_key(game: dict[str, Any]) -> tuple[str, int] | None:
    """(board id, game id) of a version-2 entry that has both, else None."""
    board = game.get("board")
    board_id = board.get("id") if isinstance(board, dict) else None
    gid = game.get("game")
    if isinstance(board_id, str) and isinstance(gid, int) and not isinstance(gid, bool):
        return board_id, gid
    return None


def mark_unfinished(game: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """Close a game in progress as unfinished: its result is the position reached."""
    game["ended"] = utc_now()
    game["unfinished"] = True
    game["result"] = {"places": list(state["places"]), "stores": list(state["stores"])}
    return game


def is_unfinished(game: dict[str, Any]) -> bool:
    return game.get("unfinished") is True


def check_appendable(path: str) -> None:
    """BoardError in one sentence, before anything is recorded, if games cannot be appended to
    `path`: its folder is missing, it is a folder, or this user may not write there."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise BoardError("The game log %s is a folder: give a file, e.g. %s." % (
            path, os.path.join(path, "games.jsonl")))
    if not os.path.isdir(folder):
        raise BoardError("The folder %s for the game log does not exist: create it, or give "
                         "--out a file in a folder that does." % folder)
    if not os.access(path if os.path.exists(path) else folder, os.W_OK):
        raise BoardError("The game log %s cannot be written (permission denied): give --out a "
                         "file you may write." % path)


def append_game(path: str, game: dict[str, Any]) -> None:
    """Add one game as one line, written whole and synced, so a crash leaves either the
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


class NotAGameLog(BoardError):
    """The file is empty, or its first line is not a game-log entry: one sentence for it all."""


def _json_problem(text: str, exc: ValueError) -> str:
    """Why a log line is not JSON, in words: a line cut off by a write that stopped (a crash, a
    full disk) says so; otherwise the parser's reason and the column."""
    line = text.rstrip("\r\n")
    try:
        json.loads(line)
    except json.JSONDecodeError as inner:
        exc = inner
    except ValueError:
        pass
    if not isinstance(exc, json.JSONDecodeError):
        return "it is not valid JSON"
    if exc.msg.startswith("Unterminated") or exc.pos >= len(line.rstrip()) - 1:
        return "it is cut off after %d characters (a write that stopped partway)" % len(line)
    reason = exc.msg[:-3] if exc.msg.endswith(" at") else exc.msg
    return "it is not valid JSON (%s, column %d)" % (reason.lower(), exc.colno)


def read_log(path: str) -> list[tuple[int, dict[str, Any] | None, str | None]]:
    """(line number, game dict or None, reason or None) for every non-empty line of the log.

    Raises NotAGameLog for an empty file or one whose first line is not a game-log entry of
    any version (a picture, a CSV, some other JSON), so that nobody gets a complaint per line."""
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
    except OSError as exc:
        raise BoardError("Could not read the game log %s: %s." % (path, exc.strerror or exc))
    entries: list[tuple[int, dict[str, Any] | None, str | None]] = []
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            game = json.loads(text)
        except ValueError as exc:
            if not entries and FORMAT not in text:  # a torn first entry still names the format
                raise NotAGameLog("%s is not a game log (line %d is not JSON)." % (path, number))
            entries.append((number, None, _json_problem(text, exc)))
            continue
        if not entries and not (isinstance(game, dict) and game.get("format") == FORMAT):
            raise NotAGameLog("%s is not a game log (line %d is not a game-log entry)." % (path, number))
        reason = _shape_problem(game)
        entries.append((number, (None if reason else game), reason))
    if not entries:
        raise NotAGameLog("%s is empty: it holds no games." % path)
    return entries


def _shape_problem(game):
    if not isinstance(game, dict):
        return "it is not a JSON object"
    if game.get("format") != FORMAT:
        return "it is not a game-log entry (format is %r, not %r)" % (game.get("format"), FORMAT)
    if game.get("version") not in VERSIONS:
        return "its version %r is not one this tool reads (%s)" % (
            game.get("version"), " or ".join(str(v) for v in VERSIONS))
    for key in REQUIRED:
        if key not in game:
            return "it has no %r" % key
    if not isinstance(game["moves"], list):
        return "its 'moves' is not a list"
    result = game["result"]
    if not isinstance(result, dict) or "places" not in result or "stores" not in result:
        return "its 'result' needs 'places' and 'stores'"
    if "unfinished" in game and not isinstance(game["unfinished"], bool):
        return "its 'unfinished' is not true or false"
    if "game" in game and (not isinstance(game["game"], int) or isinstance(game["game"], bool)):
        return "its 'game' is not a whole number"
    if game.get("base") is not None and not isinstance(game["base"], dict):
        return "its 'base' is not a state"
    return None


def _begins(longer: dict[str, Any], shorter: dict[str, Any]) -> bool:
    """Whether `longer`'s moves begin with all of `shorter`'s (the same plays and resigns)."""
    a, b = longer["moves"], shorter["moves"]
    if len(a) < len(b):
        return False
    for x, y in zip(a, b):
        if not isinstance(x, dict) or not isinstance(y, dict) or x.get("seat") != y.get("seat") \
                or x.get("pit") != y.get("pit") or bool(x.get("resign")) != bool(y.get("resign")):
            return False
    return True


def _covers(later: dict[str, Any], j: int, earlier: dict[str, Any], i: int) -> bool:
    """Whether the line `later` (index j) holds the game of line `earlier` (index i) as far or
    further, so that `earlier` is superseded: an unfinished line by a line of the same game
    that goes on from it (or a repeat of it further down), a finished line by a repeat of it
    further down, or by a later finished line marked `retaken` (taken back after its end and
    ended again). Two finished lines with other moves are two games otherwise: a board whose
    flash was wiped counts its games from 1 again."""
    if not is_unfinished(earlier) and not is_unfinished(later) and later.get("retaken") is True:
        return j > i  # the game taken back after its end and ended again: as it ended last
    if not _begins(later, earlier):
        return False
    if is_unfinished(earlier):
        return not is_unfinished(later) or len(later["moves"]) > len(earlier["moves"]) or j > i
    return not is_unfinished(later) and len(later["moves"]) == len(earlier["moves"]) and j > i


def latest(entries: list[tuple[int, dict[str, Any] | None, str | None]]
           ) -> tuple[list[tuple[int, dict[str, Any] | None, str | None]], list[int]]:
    """The entries a reader reads, and the line numbers of those superseded. A line is
    superseded by another line with the same key that holds the same game as far or further
    (_covers): an unfinished stub by the game as it ended, a line written twice by its last
    copy. Lines without a key (version 1) and bad lines are all kept."""
    by_key: dict[tuple[str, int], list[int]] = {}
    for i, (_, game, _) in enumerate(entries):
        key = game_key(game) if game is not None else None
        if key is not None:
            by_key.setdefault(key, []).append(i)
    gone = set()
    for rows in by_key.values():
        for i in rows:
            for j in rows:
                if j != i and _covers(entries[j][1], j, entries[i][1], i):  # type: ignore[arg-type]
                    gone.add(i)
                    break
    kept = [e for i, e in enumerate(entries) if i not in gone]
    return kept, [entries[i][0] for i in sorted(gone)]


def logged(path: str) -> dict[tuple[str, int], list[dict[str, Any]]]:
    """The games of a log by key, each key's lines that `latest` keeps (more than one only
    for a board whose flash was wiped); {} for a log that is not there yet or empty.
    BoardError if the file is something else."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return {}
    try:
        entries = read_log(path)
    except NotAGameLog as exc:
        raise BoardError("%s: choose another file for the games with --out." % str(exc).rstrip("."))
    keys: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for _, game, _ in latest(entries)[0]:
        key = game_key(game) if game is not None else None
        if key is not None:
            keys.setdefault(key, []).append(game)  # type: ignore[arg-type]
    return keys


def holds(lines: list[dict[str, Any]], moves: list[dict[str, Any]], over: bool) -> bool:
    """Whether one of a key's lines already holds a game with these moves as far: the same
    finished game, or (for a game not over) any line that goes on from them."""
    game = {"moves": moves}
    for line in lines:
        if over and not is_unfinished(line) and len(line["moves"]) == len(moves) and _begins(line, game):
            return True
        if not over and _begins(line, game):
            return True
    return False


def start_engine(game: dict[str, Any]) -> Game:
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
    base = game.get("base")
    if base is not None:
        try:
            engine = Game.from_dict(base)
        except (ValueError, TypeError, KeyError) as exc:
            raise ValueError("its starting position is not valid: %s" % exc)
        if engine.rules.to_dict() != rules.to_dict():
            raise ValueError("its starting position has other rules than the game")
        if engine.turn != game["first"]:
            raise ValueError("its starting position has seat %s to move, not seat %s"
                             % (engine.turn, game["first"]))
        return engine
    try:
        return Game(rules, first=game["first"])
    except (ValueError, TypeError) as exc:
        raise ValueError("its first seat is not valid: %s" % exc)


def apply_move(engine: Game, move: dict[str, Any], number: int) -> Any:
    """Play or resign one logged move on the engine; ValueError names the move and the fault."""
    if not isinstance(move, dict) or not isinstance(move.get("seat"), int):
        raise ValueError("move %d is not {\"seat\": s, \"pit\": n} or {\"seat\": s, \"resign\": true}" % number)
    seat = move["seat"]
    turn = engine.turn
    if engine.over or turn is None:
        raise ValueError("move %d (seat %d) comes after the game had ended" % (number, seat))
    try:
        if move.get("resign"):
            return engine.resign(seat)
        if turn != seat:
            raise ValueError("move %d: seat %d plays pit %s, but it was seat %d's turn"
                             % (number, seat, move.get("pit"), turn))
        return engine.play(move.get("pit"))
    except (ValueError, TypeError) as exc:
        if str(exc).startswith("move %d" % number):
            raise
        raise ValueError("move %d: seat %d cannot %s: %s" % (
            number, seat, "resign" if move.get("resign") else "play pit %s" % move.get("pit"), exc))


def check_game(game: dict[str, Any]) -> tuple[Game, list[Any]]:
    """Replay `game`; return (engine, records) or raise ValueError with the reason it fails."""
    engine = start_engine(game)
    records = []
    for number, move in enumerate(game["moves"], 1):
        records.append(apply_move(engine, move, number))
    if is_unfinished(game):
        if engine.over:
            raise ValueError("it is marked unfinished, but its moves end the game")
    elif not engine.over:
        raise ValueError("the moves stop before the game ends (seat %s would move next) and it "
                         "is not marked unfinished" % engine.turn)
    state = engine.to_dict()
    result = game["result"]
    if state["places"] != result["places"] or state["stores"] != result["stores"]:
        raise ValueError("the log says places %s and stores %s, but the moves give places %s and "
                         "stores %s" % (json.dumps(result["places"]), json.dumps(result["stores"]),
                                        json.dumps(state["places"]), json.dumps(state["stores"])))
    return engine, records


def good_games(paths: Iterable[str],
               report: Callable[[str, int | None, str], None] | None = None,
               unfinished: bool = False) -> Iterator[tuple[str, int, dict[str, Any], list[Any], dict[str, Any]]]:
    """(path, line, game, records, final state) for every game that replays (unfinished ones
    only when `unfinished`; of the lines of one game, only the one `latest` keeps);
    `report(path, line, reason)` is called for each one that does not, and
    `report(path, None, sentence)` for a file that is not a game log."""
    for path in paths:
        try:
            entries = read_log(path)
        except NotAGameLog as exc:
            if report is None:
                raise
            report(path, None, str(exc))
            continue
        for number, game, reason in latest(entries)[0]:
            if game is not None:
                try:
                    engine, records = check_game(game)
                except ValueError as exc:
                    reason = str(exc)
            if reason:
                if report:
                    report(path, number, reason)
                continue
            assert game is not None  # read_log gives a reason for every line without a game
            if unfinished or not is_unfinished(game):
                yield path, number, game, records, engine.to_dict()
