"""The class's export: games.csv (one row per game of every board), standings.csv (the
tournament's table, when there is one), boards.csv (per board: games, finished, unfinished,
moves, the seat that won most) and a copy of every game log, in one new folder.
"""

from __future__ import annotations

import csv
import os
import shutil
import time
from typing import Any, Protocol

from ..logs import gamelog


class Room(Protocol):
    """What the export reads of the room (room.Room is one)."""

    folder: str

    @property
    def tournament(self) -> Any: ...

    def ordered(self) -> list[Any]: ...

GAME_FIELDS = ("board", "label", "port", "started", "ended", "unfinished", "variant", "players",
               "seeds", "first", "seat0", "seat1", "tournament", "round", "moves", "stores",
               "places", "board_id", "board_game")
STANDING_FIELDS = ("place", "name", "played", "won", "drawn", "lost", "points", "stores",
                   "head_to_head")
BOARD_FIELDS = ("board", "label", "port", "status", "games", "finished", "unfinished", "moves",
                "seat0_wins", "seat1_wins", "draws")


def _games(path: str) -> list[dict[str, Any]]:
    """The games of one board's log that replay (a torn last line is left out)."""
    if not os.path.exists(path):
        return []
    try:
        return [g for _, _, g, _, _ in gamelog.good_games([path], report=lambda *a: None, unfinished=True)]
    except gamelog.NotAGameLog:
        return []


def write_folder(folder: str, boards: list[dict[str, Any]], standings: list[dict[str, Any]] | None,
                 out: str | None = None) -> str:
    """boards: [{"key", "label", "port", "status", "log"}]; returns the export folder."""
    out = out or os.path.join(folder, "export-" + time.strftime("%Y%m%d-%H%M%S"))
    n, base = 1, out
    while os.path.exists(out):
        n += 1
        out = "%s-%d" % (base, n)
    os.makedirs(os.path.join(out, "logs"))
    game_rows, board_rows = [], []
    for b in boards:
        games = _games(b["log"])
        if os.path.exists(b["log"]):
            shutil.copy2(b["log"], os.path.join(out, "logs", os.path.basename(b["log"])))
        wins = [0, 0, 0]
        for g in games:
            r, t = g["rules"], g.get("tournament") or {}
            names = t.get("players") or ["", ""]
            places = g["result"]["places"]
            if not gamelog.is_unfinished(g) and len(places) == 2:
                wins[2 if places[0] == places[1] else places.index(1)] += 1
            game_rows.append({"board": b["key"], "label": (g.get("board") or {}).get("label", b["label"]),
                              "port": b["port"], "started": g.get("started"), "ended": g.get("ended"),
                              "unfinished": gamelog.is_unfinished(g), "variant": r.get("variant"),
                              "players": r.get("players"), "seeds": r.get("seeds"), "first": g["first"],
                              "seat0": names[0], "seat1": names[1] if len(names) > 1 else "",
                              "tournament": t.get("id", ""), "round": t.get("round", ""),
                              "moves": len(g["moves"]),
                              "stores": " ".join(map(str, g["result"]["stores"])),
                              "places": " ".join(map(str, places)) if not gamelog.is_unfinished(g) else "",
                              "board_id": (g.get("board") or {}).get("id", ""),
                              "board_game": g.get("game", "")})
        finished = sum(1 for g in games if not gamelog.is_unfinished(g))
        board_rows.append({"board": b["key"], "label": b["label"], "port": b["port"],
                           "status": b["status"], "games": len(games), "finished": finished,
                           "unfinished": len(games) - finished,
                           "moves": sum(len(g["moves"]) for g in games),
                           "seat0_wins": wins[0], "seat1_wins": wins[1], "draws": wins[2]})
    _csv(os.path.join(out, "games.csv"), GAME_FIELDS, game_rows)
    _csv(os.path.join(out, "boards.csv"), BOARD_FIELDS, board_rows)
    if standings is not None:
        _csv(os.path.join(out, "standings.csv"), STANDING_FIELDS, standings)
    return out


def _csv(path: str, fields: tuple[str, ...], rows: list[dict[str, Any]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def write(room: Room) -> str:
    boards = [{"key": link.key, "label": link.label, "port": link.port, "status": link.status,
               "log": link.recorder.out} for link in room.ordered()]
    t = room.tournament
    out = write_folder(room.folder, boards, t.standings() if t is not None else None)
    cards = getattr(room, "bot_cards", None)   # the bots' report cards (grading.py)
    if cards is not None:
        cards.export(out)
    return out


def save_standings(room: Room) -> None:
    """tournament.json in the folder, atomically, so `class export` can be run afterwards."""
    import json

    t = room.tournament
    if t is None:
        return
    path = os.path.join(room.folder, "tournament.json")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(t.to_dict(), f)
    os.replace(path + ".tmp", path)


def from_folder(folder: str, cards: Any = None) -> str:
    """The export of a class folder after the hub has stopped (`class export FOLDER`), from its
    logs and its journal alone. cards(folder, bot names) makes the bots' report cards
    (grading.Cards, which grades every bot move of the logs again; command.py gives it the
    budget); the bots are the tournaments' bot entries in the journal."""
    import glob
    import json

    from ..errors import BoardError
    from .journal import FILE, Journal

    logs = sorted(glob.glob(os.path.join(folder, "board-*.jsonl")))
    if not logs:
        raise BoardError("%s holds no board's game log (board-*.jsonl): give the folder "
                         "the hub recorded into (--out)." % folder)
    standings = None
    try:
        with open(os.path.join(folder, "tournament.json"), encoding="utf-8") as f:
            standings = json.load(f)["standings"]
    except (OSError, ValueError, KeyError):
        pass
    boards = [{"key": os.path.basename(p)[6:-6], "label": "", "port": "", "status": "", "log": p}
              for p in logs]
    out = write_folder(folder, boards, standings)
    journal = os.path.join(folder, FILE)
    if cards is not None and os.path.exists(journal):
        kept = Journal(journal)
        try:
            names = kept.bot_names()
        finally:
            kept.close()
        if names:
            graded = cards(folder, names)
            graded.grade_now()
            graded.export(out)
    return out
