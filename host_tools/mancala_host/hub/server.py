"""The hub's web page and its requests, on aiohttp (HTTP and server-sent events in one
well-kept library; the boards' lines stay in their own threads, link.py).

    GET  /                      the grid of every board (static/grid.*)
    GET  /events                server-sent events: {"tile": {...}} per change, {"standings": ...}
    GET  /snapshot              every tile, the standings and the last setting, as JSON
    GET  /board/KEY/            the projector page (web.py's) for one board, full screen
    GET  /board/KEY/events      its snapshots, as `web` sends them
    POST /api/settings          {"boards": [KEY...] or null, "variant", "players", "seeds", "move_time_limit"}
    POST /api/start | /api/pause | /api/resume | /api/lock | /api/unlock   {"boards": [...] or null}
    POST /api/label             {"board": KEY, "label": "table 3"}
    POST /api/tournament        {"players": ["Ann", "Bot=cpu2", ...], "style": "round-robin" | "swiss", ...,
                                 "replace": true to replace a tournament that is running}
    POST /api/redeal            {"board": KEY}: deal its tournament game to it again (after a refusal)
    POST /api/export            writes the export folder; answers its path
Every POST answers {"ok": true, "results": {KEY: "ok" or the board's reason}} or
{"ok": false, "error": "one sentence"}.  A POST must be application/json and, when it names an
Origin (a browser does), come from the hub's own page (same_site()).
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from aiohttp import web

from ..render.colours import seat_colours
from ..errors import BoardError
from ..views.webpage import PAGE
from . import export
from .room import Room
from .tournament import Tournament, parse_players

_STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
# The projector page asks for "/events"; under /board/KEY/ it must ask for its own board's.
_EVENTS = 'new EventSource("/events")'
if _EVENTS not in PAGE:
    raise ImportError("the projector page no longer opens %s; update hub/server.py" % _EVENTS)
FEATURE_PAGE = PAGE.replace(_EVENTS, 'new EventSource("events")').replace("__CONTROL__", "false")


def _read(name: str) -> str:
    with open(os.path.join(_STATIC, name), encoding="utf-8") as f:
        return f.read()


GRID_PAGE = _read("grid.html").replace("__STYLE__", _read("grid.css")).replace(
    "__SCRIPT__", _read("grid.js"))


class Streams:
    """The open /events streams, each an asyncio.Queue; fed from the boards' threads."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.grid: set[asyncio.Queue[str | None]] = set()
        self.boards: dict[str, set[asyncio.Queue[str | None]]] = {}

    def push(self, room: Room, key: str, tile: dict[str, Any]) -> None:
        """From any thread."""
        self.loop.call_soon_threadsafe(self._push, room, key, tile)

    def _push(self, room: Room, key: str, tile: dict[str, Any]) -> None:
        if key == "":
            data = json.dumps({"standings": _standings(room)})
        else:
            data = json.dumps({"tile": tile})
        for q in self.grid:
            q.put_nowait(data)
        if key and self.boards.get(key):
            snap = json.dumps(room.links[key].projector())
            for q in self.boards[key]:
                q.put_nowait(snap)


def _standings(room: Room) -> dict[str, Any] | None:
    t = room.tournament
    return t.to_dict() if t is not None else None


def make_app(room: Room) -> web.Application:
    app = web.Application()

    async def on_startup(app):
        streams = app["streams"] = Streams(asyncio.get_running_loop())
        room.on_change = lambda key, tile: streams.push(room, key, tile)
        room.start()

    async def on_shutdown(app):
        # an open page (a browser left on the grid) must not hold up the stop: end its stream
        streams = app["streams"]
        for q in set(streams.grid).union(*streams.boards.values()):
            q.put_nowait(None)

    async def on_cleanup(app):
        await asyncio.get_running_loop().run_in_executor(None, room.close)

    app.on_startup.append(on_startup)
    app.on_shutdown.append(on_shutdown)
    app.on_cleanup.append(on_cleanup)

    def html(text):
        return web.Response(text=text, content_type="text/html", headers={"Cache-Control": "no-store"})

    async def grid(request):
        return html(GRID_PAGE)

    def snapshot():
        return {"tiles": room.tiles(), "standings": _standings(room), "setting": room.setting,
                "folder": room.folder, "colours": seat_colours()}

    async def snap(request):
        return web.json_response(snapshot())

    async def stream(request, queues, first):
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                           "Cache-Control": "no-store"})
        await resp.prepare(request)
        q: asyncio.Queue[str | None] = asyncio.Queue()
        queues.add(q)
        try:
            await resp.write(("data: %s\n\n" % first).encode())
            while True:
                try:
                    data = await asyncio.wait_for(q.get(), 15)
                except asyncio.TimeoutError:
                    await resp.write(b": keep-alive\n\n")
                    continue
                if data is None:   # the hub is stopping
                    break
                await resp.write(("data: %s\n\n" % data).encode())
        except ConnectionResetError:
            pass
        finally:
            queues.discard(q)
        return resp

    async def events(request):
        return await stream(request, request.app["streams"].grid, json.dumps({"snapshot": snapshot()}))

    def link_of(request):
        key = request.match_info["key"]
        if key not in room.links:
            raise web.HTTPNotFound(text="There is no board %s in this room." % key)
        return key, room.links[key]

    async def feature(request):
        link_of(request)
        return html(FEATURE_PAGE)

    async def feature_events(request):
        key, link = link_of(request)
        queues = request.app["streams"].boards.setdefault(key, set())
        return await stream(request, queues, json.dumps(link.projector()))

    async def feature_snapshot(request):
        return web.json_response(link_of(request)[1].projector())

    async def body(request) -> dict[str, Any]:
        try:
            data = await request.json()
        except ValueError:
            raise BoardError("The request is not JSON.")
        if not isinstance(data, dict):
            raise BoardError("The request must be a JSON object.")
        return data

    def same_site(request) -> None:
        """Only the hub's own page, or a program that is not a browser, may change the room:
        a page from anywhere else open in the teacher's browser could otherwise post to it.
        A browser names the page's origin on a POST, and a cross-site JSON request needs a
        preflight the hub never grants."""
        if request.content_type != "application/json":
            raise BoardError("The request must be JSON, sent as application/json.")
        origin = request.headers.get("Origin")
        if origin is not None and origin.split("://", 1)[-1] != request.host:
            raise BoardError("Only the hub's own page may change the room; this request came "
                             "from %s." % origin[:80])

    def action(fn):
        async def handler(request):
            try:
                same_site(request)
                data = await body(request)
                loop = asyncio.get_running_loop()
                result = await loop.run_in_executor(None, fn, data)
            except (BoardError, ValueError) as exc:
                return web.json_response({"ok": False, "error": str(exc)})
            return web.json_response({"ok": True, "results": result})
        return handler

    def boards(data):
        keys = data.get("boards")
        if keys is not None and not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
            raise BoardError("boards must be a list of board keys, or null for every board.")
        return keys

    def tournament(data):
        players = data.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise BoardError("players must be a list of names, such as [\"Ann\", \"Ben\"].")
        rules = {k: data[k] for k in ("variant", "seeds") if data.get(k)}
        t = Tournament(parse_players(players), data.get("style") or "round-robin",
                       int(data.get("rounds") or 0), rules or None, int(data.get("cpu_level") or 1))
        room.start_tournament(t, replace=data.get("replace") is True)
        room.on_change("", {})
        return {"rounds": t.total_rounds}

    app.add_routes([
        web.get("/", grid), web.get("/snapshot", snap), web.get("/events", events),
        web.get("/board/{key}/", feature), web.get("/board/{key}/events", feature_events),
        web.get("/board/{key}/snapshot", feature_snapshot),
        web.post("/api/settings", action(lambda d: room.apply(d, boards(d)))),
        web.post("/api/start", action(lambda d: room.start_games(boards(d)))),
        web.post("/api/pause", action(lambda d: room.pause(True, boards(d)))),
        web.post("/api/resume", action(lambda d: room.pause(False, boards(d)))),
        web.post("/api/lock", action(lambda d: room.lock_boards(True, boards(d)))),
        web.post("/api/unlock", action(lambda d: room.lock_boards(False, boards(d)))),
        web.post("/api/label", action(lambda d: {d.get("board"): room.label(str(d.get("board")), d.get("label"))})),
        web.post("/api/tournament", action(tournament)),
        web.post("/api/redeal", action(lambda d: {d.get("board"): room.redeal(str(d.get("board")))})),
        web.post("/api/export", action(lambda d: {"folder": export.write(room)})),
    ])
    return app

