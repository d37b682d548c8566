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
    POST /api/bots              {"move_s", "grace_s", "no_move"}: the bots' rules (kgpage.py)
Every POST answers {"ok": true, "results": {KEY: "ok" or the board's reason}} or
{"ok": false, "error": "one sentence"} with HTTP 400 (a request the hub does not take: nothing
changed), 403 (guard.py: not the hub's address, not its page, no token), 409 (a tournament is
running: send "replace": true to replace it) or 413 (a body over schema.MAX_BODY bytes).  A POST
is application/json, and its body is checked against its declared schema (schema.py) before
anything changes.
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
from . import export, schema
from .guard import Guard, answer, new_token
from .room import Room, TournamentRunning
from .tournament import Tournament, parse_players

_STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
# The projector page asks for "/events"; under /board/KEY/ it must ask for its own board's.
_EVENTS = 'new EventSource("/events")'
if _EVENTS not in PAGE:
    raise ImportError("the projector page no longer opens %s; update hub/server.py" % _EVENTS)
FEATURE_PAGE = PAGE.replace(_EVENTS, 'new EventSource("events")').replace("__CONTROL__", "false").replace(
    "__TOKEN__", "")


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


def action(model: Any, fn: Any) -> Any:
    """A POST handler: its body checked against `model` (schema.py), then fn(the checked
    request) in a worker thread, as the boards' requests block. The guard (guard.py) has
    checked the address, the page and the token before."""
    async def handler(request: web.Request) -> web.Response:
        if request.content_type != "application/json":
            return answer(400, "The request must be JSON, sent as application/json.")
        too_large = answer(413, "The request is larger than the hub takes (%d bytes at most)."
                           % schema.MAX_BODY)
        if (request.content_length or 0) > schema.MAX_BODY:
            return too_large
        try:
            raw = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return too_large
        try:
            ask = schema.read(model, raw)
            result = await asyncio.get_running_loop().run_in_executor(None, fn, ask)
        except TournamentRunning as exc:
            return answer(409, str(exc), confirm="replace")
        except (BoardError, ValueError) as exc:
            return answer(400, str(exc))
        return web.json_response({"ok": True, "results": result})
    return handler


def make_app(room: Room, guard: Guard | None = None) -> web.Application:
    """The hub's app; `guard` holds its address and token (default: loopback, a new token)."""
    guard = guard or Guard("127.0.0.1", new_token())
    app = web.Application(middlewares=[guard.middleware], client_max_size=schema.MAX_BODY)
    grid_page = GRID_PAGE.replace("__TOKEN__", guard.token)

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
        return html(grid_page)

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

    def chosen(ask):
        """The boards a request names, refused as a whole (before anything changes) if one is
        not in the room."""
        room.chosen(ask.boards)
        return ask.boards

    def tournament(ask):
        t = Tournament(parse_players(ask.players), ask.style, ask.rounds or 0, ask.rules(),
                       ask.cpu_level)
        room.start_tournament(t, replace=ask.replace)
        room.on_change("", {})
        return {"rounds": t.total_rounds}

    app.add_routes([
        web.get("/", grid), web.get("/snapshot", snap), web.get("/events", events),
        web.get("/board/{key}/", feature), web.get("/board/{key}/events", feature_events),
        web.get("/board/{key}/snapshot", feature_snapshot),
        web.post("/api/settings", action(schema.Settings, lambda a: room.apply(a.setting(), chosen(a)))),
        web.post("/api/start", action(schema.Boards, lambda a: room.start_games(chosen(a)))),
        web.post("/api/pause", action(schema.Boards, lambda a: room.pause(True, chosen(a)))),
        web.post("/api/resume", action(schema.Boards, lambda a: room.pause(False, chosen(a)))),
        web.post("/api/lock", action(schema.Boards, lambda a: room.lock_boards(True, chosen(a)))),
        web.post("/api/unlock", action(schema.Boards, lambda a: room.lock_boards(False, chosen(a)))),
        web.post("/api/label", action(schema.Label, lambda a: {a.board: room.label(a.board, a.label)})),
        web.post("/api/tournament", action(schema.Tournament, tournament)),
        web.post("/api/redeal", action(schema.Redeal, lambda a: {a.board: room.redeal(a.board)})),
        web.post("/api/export", action(schema.Empty, lambda a: {"folder": export.write(room)})),
    ])
    return app

