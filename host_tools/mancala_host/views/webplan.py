"""Where the projector page draws each pit and store: the board profile's own positions
(`xy_mm`, the top plate seen from above with side 0 at the bottom) for the pits and stores a
game's seats use, found with the firmware's seating code, so the page is laid out as the board.

    profile = load_profile("duo")              # hardware/profiles/duo.json, or a path
    plan(profile, rules)                        # JSON-ready dict for the page (below)

The page scales the plan to its window; everything here is in mm.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from ..errors import BoardError

if TYPE_CHECKING:
    from mancala_fw.profile.board import Profile


def _profile_package():
    from ..flashing.bringup import firmware_profile

    return firmware_profile()


def load_profile(board: str | None, path: str | None = None) -> Profile:
    """The checked Profile of the board `board` (hello's name): `path` if given, else the
    repository's hardware/profiles/BOARD.json. One sentence if it cannot be had."""
    if path is None:
        from ..flashing.deploy import repo_root

        try:
            folder = os.path.join(repo_root(), "hardware", "profiles")
        except BoardError:
            folder = None
        path = os.path.join(folder, "%s.json" % board) if folder else None
        if not path or not os.path.exists(path):
            raise BoardError("There is no profile file for board %s here (hardware/profiles/%s.json); "
                             "give the board's profile with --profile FILE." % (board, board))
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except OSError as exc:
        raise BoardError("The profile %s cannot be read: %s." % (path, exc.strerror or exc))
    except ValueError:
        raise BoardError("The profile %s is not valid JSON; check it with "
                         "'mancala-board profile check %s'." % (path, path))
    try:
        profile = _profile_package().check(d)
    except ValueError as exc:
        raise BoardError("%s: %s." % (path, str(exc).rstrip(".")))
    if board and profile.name != board:
        raise BoardError("The profile %s is for board %s, but the board is %s; give its own "
                         "profile with --profile FILE." % (path, profile.name, board))
    return profile


def _label_side(centre, board_mm, clear):
    """Which way a seat's label goes from its row: toward the board's middle if there is room
    there (`clear` mm), else away from it; as 'up', 'down', 'left' or 'right' on the page, and
    whether that is inside the board."""
    dx, dy = board_mm[0] / 2 - centre[0], board_mm[1] / 2 - centre[1]
    inside = max(abs(dx), abs(dy)) >= clear
    if not inside:
        dx, dy = -dx, -dy
    if abs(dx) > abs(dy):
        return ("right" if dx > 0 else "left"), inside
    return ("down" if dy > 0 else "up"), inside


def plan(profile: Profile, rules: dict[str, Any]) -> dict[str, Any]:
    """The page's plan of a game with `rules` (players, pits, variant) on `profile`:

    {"board_mm": [w, h], "pit_mm": d, "store_mm": d,
     "seats": [{"side": k, "pits": [[x, y], ...pit 1..N], "store": [x, y],
                "label": [x, y], "toward": "up" | "down" | "left" | "right",
                "inside": bool}, ...],      # the label's anchor, and which way it grows

     "unused": [[x, y], ...],      # positions no seat uses in this game (dark on the board)
     "opposite": "straight" | "shifted" | None}   # Kalah: do the capture pairs face each other?
    """
    players, pits = rules.get("players", 2), rules.get("pits", 6)
    try:
        seating = _profile_package().seating(profile, players, pits)
    except ValueError as exc:
        raise BoardError("%s." % str(exc).rstrip("."))
    geo = profile.geometry
    board_mm = list(geo["board_mm"])
    pit_mm, store_mm = geo["pit_mm"], geo["store_mm"]
    xy = profile.xy_mm
    seats = []
    for s in range(players):
        row = [list(xy[seating.position(s, p)]) for p in range(1, pits + 1)]
        cx = sum(p[0] for p in row) / len(row)
        cy = sum(p[1] for p in row) / len(row)
        toward, inside = _label_side((cx, cy), board_mm, 3 * pit_mm)
        step = pit_mm / 2 + pit_mm * 0.25
        off = {"up": (0, -step), "down": (0, step), "left": (-step, 0), "right": (step, 0)}[toward]
        seats.append({"side": seating.sides[s], "pits": row, "store": list(xy[seating.store(s)]),
                      "label": [round(cx + off[0], 1), round(cy + off[1], 1)], "toward": toward,
                      "inside": inside})
    used = set(seating.used)
    unused = [list(xy[pos]) for pos in profile.positions if pos not in used]
    opposite = None
    if rules.get("variant") == "kalah" and players == 2:
        opposite = "straight"
        for i in range(pits):
            a, b = seats[0]["pits"][i], seats[1]["pits"][pits - 1 - i]
            if abs(a[0] - b[0]) > 1 and abs(a[1] - b[1]) > 1:
                opposite = "shifted"
    return {"board": profile.name, "board_mm": board_mm, "pit_mm": pit_mm, "store_mm": store_mm,
            "seats": seats, "unused": unused, "opposite": opposite}
