"""The projector page served by `web`: one self-contained HTML file (no outside resources, no
web fonts: the system's sans-serif), put together from static/projector.html, .css and .js.

The board is drawn where the profile puts each pit and store (webplan.py, in mm) and scaled
to fill the window, beside or under the commentary, whichever gives the bigger board. Every
sowing is replayed stone by stone in the board's own order and rhythm (the board's
mancala_fw/display/animation.py): the pit played empties, one stone lands per step, a
capture flashes the pit, the pit across and the store, then the final counts and an extra
move's "again" follow.

Test hooks: every pit and store is an element with `data-seat` and `data-pit` (1..N) or
`data-store`; every commentary note has `data-note`, the newest also `data-newest`; each
seat's label has `data-label`.
"""

import os

_STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")


def _read(name):
    with open(os.path.join(_STATIC, name), encoding="utf-8") as f:
        return f.read()


# One response holds everything: the style and the script go inline. web.py fills in
# __CONTROL__ ("true" with --control) and __TOKEN__ (the token a press carries, with --control).
PAGE = _read("projector.html").replace("__STYLE__", _read("projector.css")).replace(
    "__SCRIPT__", _read("projector.js"))
