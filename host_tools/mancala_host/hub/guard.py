"""Who may use the hub's page and requests (docs/host-tool.md §13 states the threat model).

Every request, before its handler:
- names the hub's own address in `Host` (the bound address and port; for loopback also
  localhost, 127.0.0.1 and [::1]): a site whose name was pointed at this computer (DNS
  rebinding) is refused, as its requests name the site;
- if it is a POST and names an `Origin` (every browser does), comes from the hub's own page;
- if it is a POST, carries the hub's token in the X-Hub-Token header. The page has it from the
  hub when it loads (the grid page embeds it); programs have it from the line the hub printed
  at start, or from --token;
- when the hub serves more than this computer (--host other than loopback), carries the token
  on every request, GETs and the event streams included: the address printed at start ends
  in ?token=..., which the hub trades for a cookie (HttpOnly, SameSite=Strict) and takes off
  the address bar, so the projector never shows it.

Refusals are HTTP 403 with one JSON sentence, as every error under /api/ is.
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
import socket
from typing import Any, Awaitable, Callable

from aiohttp import web

from ..errors import BoardError

HEADER = "X-Hub-Token"
COOKIE = "mancala_hub_token"
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,128}")
_WILDCARD = ("", "0.0.0.0", "::")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def new_token() -> str:
    return secrets.token_urlsafe(18)


def check_token(text: str) -> str:
    if not _TOKEN.fullmatch(text):
        raise BoardError("A --token is 16 to 128 letters, digits, '-' or '_' (it goes in the "
                         "page's address); for example %s." % new_token())
    return text


def _ip(name: str) -> Any:
    try:
        return ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    ip = _ip(host)
    return host.lower() == "localhost" if ip is None else ip.is_loopback


def answer(status: int, error: str, **more: Any) -> web.Response:
    return web.json_response(dict({"ok": False, "error": error}, **more), status=status)


class Guard:
    """The hub's address and token, and the checks made on every request (`middleware`)."""

    def __init__(self, host: str, token: str) -> None:
        self.host = host
        self.token = check_token(token)
        self.loopback = is_loopback(host)
        self.wildcard = host in _WILDCARD
        self.ip = _ip(host)
        self.names = set() if self.ip is not None else {host.lower()}
        if self.loopback or self.wildcard:
            self.names.add("localhost")
        if self.wildcard:
            name = socket.gethostname().lower()
            self.names.update((name, name + ".local"))

    def host_ok(self, host: str, port: int | None) -> bool:
        """Whether `host` (a Host header: name or address, and port) is the hub's own."""
        m = re.fullmatch(r"(\[[0-9A-Fa-f:.]+\]|[^:\[\]]+)(?::(\d{1,5}))?", host)
        if m is None:
            return False
        name, given = m.group(1).lower(), int(m.group(2) or 80)
        if port is not None and given != port:
            return False
        ip = _ip(name)
        if ip is None:
            return name in self.names
        # an address is no rebinding: the browser connects to it as written
        return self.wildcard or ip == self.ip or (self.loopback and ip.is_loopback)

    def given(self, request: web.Request) -> str:
        return request.headers.get(HEADER) or request.cookies.get(COOKIE) or ""

    def right(self, text: str) -> bool:
        return bool(text) and hmac.compare_digest(text.encode(), self.token.encode())

    def refusal(self, request: web.Request) -> web.StreamResponse | None:
        """The answer that refuses `request`, or None to serve it."""
        sock = request.transport.get_extra_info("sockname") if request.transport else None
        port = sock[1] if isinstance(sock, tuple) and len(sock) >= 2 else None
        host = request.headers.get("Host", "")
        if not self.host_ok(host, port):
            return answer(403, "The hub answers only at its own address, and this request was "
                               "for %s: open the address the hub printed at start."
                               % (host[:80] or "no address"))
        if request.method == "POST":
            origin = request.headers.get("Origin")
            if origin is not None and origin.split("://", 1)[-1] != host:
                return answer(403, "Only the hub's own page may change the room; this request "
                                   "came from %s." % origin[:80])
            sent = request.headers.get(HEADER, "")
            if not self.right(sent):
                return answer(403, "Only the hub's page, or a program given the hub's token, may "
                                   "change the room; this request %s the %s header." % (
                                       "has a wrong token in" if sent else "has no token: send it in",
                                       HEADER))
            return None
        query = request.query.get("token")
        if query is not None and self.right(query):
            # the printed address: its token becomes a cookie, and leaves the address bar
            resp = web.Response(status=303, headers={"Location": request.rel_url.path})
            resp.set_cookie(COOKIE, self.token, httponly=True, samesite="Strict", path="/")
            return resp
        if not self.loopback and not self.right(self.given(request)):
            return answer(403, "This hub serves the network only with its token: open the "
                               "address it printed at start (it ends in ?token=...).")
        return None

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        refused = self.refusal(request)
        if refused is not None:
            return refused
        try:
            return await handler(request)
        except web.HTTPException as exc:
            if request.path.startswith("/api/") and exc.status >= 400:
                asked = "%s %s" % (request.method, request.path[:80])
                return answer(exc.status, "The hub has no request %s; docs/host-tool.md §13 lists "
                                          "them." % asked if exc.status == 404 else
                              "%s is not served: the hub's requests are POSTs." % asked
                              if exc.status == 405 else "%s: %s." % (asked, exc.reason))
            raise
