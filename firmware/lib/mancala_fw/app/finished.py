"""The board's last finished games, kept with their moves so that a host that was away when a
game ended can still fetch it (docs/protocol.md §4 games, game; docs/storage.md §1).

Each is one saved file in a slot, done0.json .. done<KEPT-1>.json: storage.KEPT slots, 4 on
MicroPython's littlefs and 1 in CircuitPython's 4 KiB nvm sector. A game is kept when it ends
(before its game_over event), in the slot that holds it already (a game finished again after
a take-back), else an empty one, else the one of the oldest game. A take-back that reopens
a finished game removes it again: only a finished game is kept.

A file holds the game's id, its first seat, its moves in the game file's one-character format,
its final state and, for a game set up from a position, that position (base): what the
`game` command answers, with the rules taken from the state. The app loads this module when it
needs it (a game ends or is reopened, games or game is asked, the boot looks for the highest
id) and forgets it after.
"""

from mancala_fw import storage
from mancala_fw.protocol import CommandError, UNKNOWN_GAME, need_int

FORMAT = "mancala-finished"
GAME_ID_MAX = 0x3FFFFFFF  # game ids stay small ints on MicroPython


def _path(flash, slot):
    return "%sdone%d.json" % (flash, slot)


def _load(flash, slot):
    """The slot's saved game, or None if it holds none (or one that cannot be read: the slot
    is then free for the next)."""
    saved, _ = storage.load(_path(flash, slot), FORMAT)
    if saved is None:
        return None
    gid, state = saved.get("game"), saved.get("state")
    if not isinstance(gid, int) or not isinstance(saved.get("history"), str) or \
            not isinstance(state, dict) or not isinstance(saved.get("first"), int):
        return None
    return saved


def _kept(flash, gid=0, summary=False):
    """[(game id, slot, extra)] of the slots that hold a game, oldest game first, each file
    read once: extra is the saved game if its id is gid, else its `games` entry if summary,
    else None. Only what is asked for stays on the heap."""
    out = []
    for slot in range(storage.KEPT):
        saved = _load(flash, slot)
        if saved is not None:
            n = saved["game"]
            extra = saved if n == gid else (_entry(saved) if summary else None)
            out.append((n, slot, extra))
    out.sort(key=_first)
    return out


def _first(entry):
    return entry[0]


def _entry(saved):
    state = saved["state"]
    return {"game": saved["game"], "moves": len(saved["history"]),
            "places": state.get("places"), "stores": state.get("stores")}


def keep(flash, session, state):
    """Saves the finished game of session (state: its final state dict). Raises OSError as
    storage.save does."""
    gid = session.id
    kept = _kept(flash)
    slot = None
    for entry in kept:
        if entry[0] == gid:
            slot = entry[1]
    if slot is None and len(kept) < storage.KEPT:
        used = [entry[1] for entry in kept]
        slot = 0
        while slot in used:
            slot += 1
    if slot is None:
        slot = kept[0][1]  # the oldest game's
    kept = None
    saved = {"format": FORMAT, "game": gid, "first": session.first,
             "history": session.moves.decode(), "state": state}
    if session.base:
        saved["base"] = session.base
    storage.save(_path(flash, slot), saved)


def is_kept(flash, gid):
    for entry in _kept(flash):
        if entry[0] == gid:
            return True
    return False


def drop(flash, gid):
    """Removes game gid if it is kept (a take-back reopened it). Raises OSError as
    storage.remove does."""
    for entry in _kept(flash):
        if entry[0] == gid:
            storage.remove(_path(flash, entry[1]))


def highest(flash):
    """The highest id of a kept game, 0 if none is."""
    kept = _kept(flash)
    return kept[-1][0] if kept else 0


def listing(flash):
    """The `games` answer's list: each kept game's id, moves, places and stores."""
    return [entry[2] for entry in _kept(flash, 0, True)]


def fetch(flash, gid):
    """The `game` answer's fields for game gid, or None if it is not kept."""
    for entry in _kept(flash, gid):
        if entry[0] == gid:
            saved = entry[2]
            state = saved["state"]
            answer = {"game": gid, "rules": state.get("rules"), "first": saved["first"],
                      "history": saved["history"], "state": state}
            if "base" in saved:
                answer["base"] = saved["base"]
            return answer
    return None


def answer(name, req, flash, current):
    """The answer's fields of the games or game command (name; req, the request); current:
    the id of the game in progress. The command handlers are here rather than in
    app.commands, so that their code too is on the heap only while it runs."""
    if name == "games":
        return {"games": listing(flash)}
    n = need_int(req, "game", 1, GAME_ID_MAX)
    found = fetch(flash, n)
    if found is None:
        raise CommandError(UNKNOWN_GAME, "Game %d is not among the finished games this board "
                           "keeps%s; send games for the list." % (n, (
                               ": it is the game in progress (send state with since)"
                               if n == current else "")))
    return found
