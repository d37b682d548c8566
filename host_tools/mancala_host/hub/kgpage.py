"""The hub's bots tab: GET /bots (a page readable from the back of a room, where the teacher
also sets the bots' rules), GET /bots.json (the bots of the room, the rules in force and every
bot's report card, grading.py) and POST /api/bots (the rules: schema.BotRules, with the
hub's token as every POST)."""

from __future__ import annotations

import os
from typing import Any

from aiohttp import web

from . import schema
from .server import action

_STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")


def add_routes(app: web.Application, lobby: Any, cards: Any = None, token: str = "") -> None:
    async def page(request: web.Request) -> web.Response:
        with open(os.path.join(_STATIC, "bots.html"), encoding="utf-8") as f:
            return web.Response(text=f.read().replace("__TOKEN__", token),
                                content_type="text/html", headers={"Cache-Control": "no-store"})

    async def listing(request: web.Request) -> web.Response:
        data = lobby.listing()
        data["cards"] = cards.cards() if cards is not None else []
        data["pending"] = cards.pending if cards is not None else 0
        return web.json_response(data, headers={"Cache-Control": "no-store"})

    def rules(ask: schema.BotRules) -> dict[str, Any]:
        return lobby.set_rules(ask.move_s, ask.grace_s, ask.no_move)

    app.router.add_get("/bots", page)
    app.router.add_get("/bots.json", listing)
    app.router.add_post("/api/bots", action(schema.BotRules, rules))
