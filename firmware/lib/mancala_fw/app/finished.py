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

FORMAT = "mancala-finished"


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


def _kept(flash):
    """[(game id, slot)] of the slots that hold a game, oldest game first. One file is on
    the heap at a time."""
    out = []
    for slot in range(storage.KEPT):
        saved = _load(flash, slot)
        if saved is not None:
            out.append((saved["game"], slot))
    out.sort()
    return out


def _slot_of(flash, gid):
    for entry in _kept(flash):
        if entry[0] == gid:
            return entry[1]
    return None


def keep(flash, session, state):
    """Saves the finished game of session (state: its final state dict). Raises OSError as
    storage.save does."""
    gid = session.id
    slot = _slot_of(flash, gid)
    if slot is None:
        kept = _kept(flash)
        if len(kept) < storage.KEPT:
            used = [entry[1] for entry in kept]
            slot = 0
            while slot in used:
                slot += 1
        else:
            slot = kept[0][1]  # the oldest game's
    saved = {"format": FORMAT, "game": gid, "first": session.first,
             "history": session.moves.decode(), "state": state}
    if session.base:
        saved["base"] = session.base
    storage.save(_path(flash, slot), saved)


def is_kept(flash, gid):
    return _slot_of(flash, gid) is not None


def drop(flash, gid):
    """Removes game gid if it is kept (a take-back reopened it). Raises OSError as
    storage.remove does."""
    slot = _slot_of(flash, gid)
    if slot is not None:
        storage.remove(_path(flash, slot))


def highest(flash):
    """The highest id of a kept game, 0 if none is."""
    kept = _kept(flash)
    return kept[-1][0] if kept else 0


def listing(flash):
    """The `games` answer's list: each kept game's id, moves, places and stores."""
    out = []
    for gid, slot in _kept(flash):
        saved = _load(flash, slot)
        state = saved["state"]
        out.append({"game": gid, "moves": len(saved["history"]),
                    "places": state.get("places"), "stores": state.get("stores")})
    return out


def fetch(flash, gid):
    """The `game` answer's fields for game gid, or None if it is not kept."""
    slot = _slot_of(flash, gid)
    if slot is None:
        return None
    saved = _load(flash, slot)
    state = saved["state"]
    answer = {"game": gid, "rules": state.get("rules"), "first": saved["first"],
              "history": saved["history"], "state": state}
    if "base" in saved:
        answer["base"] = saved["base"]
    return answer
