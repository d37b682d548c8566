"""The room's durable state: one SQLite file in the class folder (`hub.sqlite`), so a hub that
is stopped, killed or loses its power carries on where it stood when it is started again on
the same folder.

What it keeps:
- every tournament started in the room, with its id and what it was made from; the current
  one is the last that was not replaced;
- each tournament's games: the pairing (round, slot, seats), the board it was dealt to, the
  board's id and the board's own game id once the board started it, and the result;
- the index of games written to the boards' game logs, by (board id, game id), so a game
  the hub fetches from a board after a gap is written once.

Python's sqlite3 in WAL mode: a reader (the page) never waits for a writer, every change is
one transaction, and a transaction that a SIGKILL cuts short is rolled back on the next open.
The connection is shared by the boards' threads behind one lock (SQLite serialises writers
in any case; the hub writes a few rows a game).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

from ..errors import BoardError
from .tournament import Game

FILE = "hub.sqlite"
VERSION = 1

SCHEMA = """
CREATE TABLE tournament (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    started   TEXT NOT NULL,
    spec      TEXT NOT NULL,           -- JSON: players, style, rounds, rules, cpu_level
    replaced  TEXT                     -- when another tournament took its place
);
CREATE TABLE game (
    tournament INTEGER NOT NULL REFERENCES tournament(id),
    round      INTEGER NOT NULL,
    slot       INTEGER NOT NULL,
    seat0      TEXT NOT NULL,
    seat1      TEXT NOT NULL,
    board      TEXT,                   -- the hub's key of the board it is dealt to
    board_id   TEXT,                   -- that board's own id (hello's board_id)
    prior      INTEGER,                -- the board's game id when it was dealt
    game       INTEGER,                -- the board's id of the dealt game, once started
    places     TEXT,                   -- JSON, once played
    stores     TEXT,
    ended      TEXT,
    PRIMARY KEY (tournament, round, slot)
);
CREATE TABLE logged (
    board_id   TEXT NOT NULL,
    game       INTEGER NOT NULL,
    board      TEXT NOT NULL,          -- the hub's key: the log is board-KEY.jsonl
    unfinished INTEGER NOT NULL,
    tournament INTEGER,
    at         TEXT NOT NULL,
    PRIMARY KEY (board_id, game)
);
CREATE TABLE setting (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S")


class Deal:
    """Where a tournament game stands on its board, as the journal keeps it."""

    def __init__(self, board: str, board_id: str | None = None, prior: int | None = None,
                 game: int | None = None) -> None:
        self.board, self.board_id, self.prior, self.game = board, board_id, prior, game

    @property
    def started(self) -> bool:
        return self.game is not None


class Journal:
    def __init__(self, path: str) -> None:
        self.path = path
        self.lock = threading.RLock()
        try:
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                                      timeout=10.0)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")   # a result survives a power cut too
            self.db.execute("PRAGMA foreign_keys=ON")
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:   # a new journal: the schema in one transaction
                self.db.executescript("BEGIN IMMEDIATE;" + SCHEMA +
                                      "PRAGMA user_version=%d; COMMIT;" % VERSION)
            elif version != VERSION:
                raise BoardError("%s was written by another version of the hub (journal "
                                 "version %d, this hub reads %d): give another --out folder."
                                 % (path, version, VERSION))
        except sqlite3.DatabaseError as exc:
            raise BoardError("The hub's journal %s cannot be read (%s): move it away to "
                             "start afresh in this folder." % (path, exc))

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def close(self) -> None:
        with self.lock:
            self.db.close()

    # -- tournaments ----------------------------------------------------------------------
    def new_tournament(self, spec: dict[str, Any], games: list[Game]) -> int:
        """A new tournament with its first round; the one before it is marked replaced."""
        with self._tx() as db:
            db.execute("UPDATE tournament SET replaced = ? WHERE replaced IS NULL", (_now(),))
            tid = db.execute("INSERT INTO tournament (started, spec) VALUES (?, ?)",
                             (_now(), json.dumps(spec))).lastrowid
            assert tid is not None   # an INSERT's
            self._add(db, tid, games)
        return tid

    @staticmethod
    def _add(db: sqlite3.Connection, tid: int, games: list[Game]) -> None:
        db.executemany("INSERT INTO game (tournament, round, slot, seat0, seat1) VALUES "
                       "(?, ?, ?, ?, ?)",
                       [(tid, g.round, g.slot, g.names[0], g.names[1]) for g in games])

    def current(self) -> tuple[int, dict[str, Any], list[Game], dict[tuple[int, int], Deal]] | None:
        """The tournament that was not replaced: (id, spec, games, deals by (round, slot))."""
        with self.lock:
            row = self.db.execute("SELECT id, spec FROM tournament WHERE replaced IS NULL "
                                  "ORDER BY id DESC LIMIT 1").fetchone()
            if row is None:
                return None
            tid, spec = row[0], json.loads(row[1])
            rows = self.db.execute(
                "SELECT round, slot, seat0, seat1, board, board_id, prior, game, places, stores "
                "FROM game WHERE tournament = ? ORDER BY round, slot", (tid,)).fetchall()
        games, deals = [], {}
        for rnd, slot, s0, s1, board, board_id, prior, game_id, places, stores in rows:
            g = Game(rnd, s0, s1, slot)
            g.board = board
            if places is not None:
                g.places, g.stores = json.loads(places), json.loads(stores)
            elif board is not None:
                deals[(rnd, slot)] = Deal(board, board_id, prior, game_id)
            games.append(g)
        return tid, spec, games, deals

    def dealt(self, tid: int, game: Game, deal: Deal | None) -> None:
        """game went to deal.board (None: it was given back, to be dealt again)."""
        with self._tx() as db:
            db.execute("UPDATE game SET board = ?, board_id = ?, prior = ?, game = ? "
                       "WHERE tournament = ? AND round = ? AND slot = ?",
                       (deal.board, deal.board_id, deal.prior, deal.game, tid, game.round,
                        game.slot) if deal is not None else
                       (None, None, None, None, tid, game.round, game.slot))

    def finished(self, tid: int, game: Game, next_round: list[Game]) -> None:
        """game's result, and the next round's games when it completed its round, at once."""
        with self._tx() as db:
            db.execute("UPDATE game SET places = ?, stores = ?, ended = ? "
                       "WHERE tournament = ? AND round = ? AND slot = ?",
                       (json.dumps(game.places), json.dumps(game.stores), _now(), tid,
                        game.round, game.slot))
            self._add(db, tid, next_round)

    # -- the index of logged games ---------------------------------------------------------
    def is_logged(self, board_id: str, game: int) -> bool:
        with self.lock:
            return self.db.execute("SELECT 1 FROM logged WHERE board_id = ? AND game = ?",
                                   (board_id, game)).fetchone() is not None

    def log(self, board_id: str, game: int, board: str, unfinished: bool,
            tournament: int | None) -> None:
        """The game (board_id, game) is in board-BOARD.jsonl; a finished copy replaces the
        note of an unfinished one."""
        with self._tx() as db:
            db.execute("INSERT INTO logged (board_id, game, board, unfinished, tournament, at) "
                       "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (board_id, game) DO UPDATE SET "
                       "unfinished = excluded.unfinished, at = excluded.at",
                       (board_id, game, board, int(unfinished), tournament, _now()))

    def owed(self, board_id: str, game: int) -> bool:
        """Whether (board_id, game) is a tournament game that is not logged finished."""
        with self.lock:
            return self.db.execute(
                "SELECT 1 FROM game g WHERE g.board_id = ? AND g.game = ? AND NOT EXISTS "
                "(SELECT 1 FROM logged l WHERE l.board_id = g.board_id AND l.game = g.game "
                "AND l.unfinished = 0)", (board_id, game)).fetchone() is not None

    def tag(self, board_id: str, game: int) -> dict[str, Any] | None:
        """The tournament tag of the board's game `game`, if a tournament dealt it."""
        with self.lock:
            row = self.db.execute(
                "SELECT tournament, round, seat0, seat1 FROM game WHERE board_id = ? AND "
                "game = ? ORDER BY tournament DESC LIMIT 1", (board_id, game)).fetchone()
        return None if row is None else {"id": row[0], "round": row[1],
                                         "players": [row[2], row[3]]}

    def logged_count(self) -> int:
        with self.lock:
            return self.db.execute("SELECT COUNT(*) FROM logged").fetchone()[0]

    def bot_names(self) -> set[str]:
        """The name of every bot entry (`Name=bot`) of every tournament in the room, replaced
        ones too: whose moves the report cards grade."""
        with self.lock:
            specs = [json.loads(row[0]) for row in self.db.execute("SELECT spec FROM tournament")]
        return {entry[:-4] for spec in specs for entry in spec.get("players") or []
                if isinstance(entry, str) and entry.endswith("=bot")}

    # -- the last class-wide setting ------------------------------------------------------
    def setting(self, key: str = "last") -> dict[str, Any] | None:
        """The last class-wide setting ("last"), or another kept value (the bots' rules)."""
        with self.lock:
            row = self.db.execute("SELECT value FROM setting WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def keep_setting(self, value: dict[str, Any], key: str = "last") -> None:
        with self._tx() as db:
            db.execute("INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT (key) "
                       "DO UPDATE SET value = excluded.value", (key, json.dumps(value)))
