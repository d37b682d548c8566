"""`web`: the live board as a local web page for a projector, kept live by server-sent events.

The board is followed by link.follower (one thread owns the line; `Projector` is its
listener), and the requests the page sends (with `--control`, a click on a pit presses it) go
through the follower's request futures. When the board goes away the page says so and the
follower waits for it; a position the events did not show is drawn from the board's own
state. Each open page holds a `/events` stream; every event is pushed to all of them as one
JSON snapshot: the state, the plan of the board (webplan.py: where each pit and store sits,
from the board's profile), the commentary so far, the last move record with the state before
it (so the page can replay the sowing stone by stone), `seq` (one more for every move, resign,
undo and new game) and `stone_ms`, the page's time per stone.
"""

from __future__ import annotations

import argparse
import http.server
import json
import queue
import threading
from typing import TYPE_CHECKING, Any, Callable

from pydantic import Field

from ..errors import BoardError
from ..hub.guard import HEADER, Guard, new_token
from ..hub.schema import Ask, BadRequest, read
from ..link.follower import Follower, Listener
from ..render.colours import seat_colours
from ..render.view import commentary, rules_label
from .webpage import PAGE
from .webplan import load_profile, plan

if TYPE_CHECKING:
    from mancala_fw.profile.board import Profile

DEFAULT_STONE_MS = 120   # the board's own default animation_ms


class Hub:
    """The latest snapshot and the queues of the pages listening."""

    def __init__(self):
        self.lock = threading.Lock()
        self.listeners = []
        self.snapshot = {}
        self.notes = []
        self.ask: Callable[..., dict[str, Any]] | None = None  # the board's answer to a request
        self.seq = 0
        self.on_state: Any = None  # web --exact: called with each new state (webexact.py)

    def publish(self, **changes: Any) -> None:
        with self.lock:
            self.snapshot.update(changes)
            self.snapshot["notes"] = self.notes[-12:]
            data = json.dumps(self.snapshot)
            for q in self.listeners:
                q.put(data)
        if self.on_state is not None and isinstance(changes.get("state"), dict):
            self.on_state(changes["state"])

    def listen(self) -> queue.Queue[str]:
        q: queue.Queue[str] = queue.Queue()
        with self.lock:
            self.listeners.append(q)
            q.put(json.dumps(self.snapshot))
        return q

    def forget(self, q: queue.Queue[str]) -> None:
        with self.lock:
            if q in self.listeners:
                self.listeners.remove(q)


def stone_ms(config: Any, fixed: int | None) -> int:
    """The page's time per stone: `--stone-ms`, else the board's animation_ms, else (the board
    shows no animation) its default, so a class still sees every stone."""
    if fixed:
        return fixed
    ms = config.get("animation_ms") if isinstance(config, dict) else None
    return ms if isinstance(ms, int) and ms > 0 else DEFAULT_STONE_MS


class Planner:
    """The page's plan for the rules being played, made again only when they change."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.rules: dict[str, Any] | None = None  # the shape (variant, players, pits) planned
        self.plan: dict[str, Any] | None = None

    def __call__(self, rules: Any) -> dict[str, Any] | None:
        shape = {k: rules.get(k) for k in ("variant", "players", "pits")} if isinstance(rules, dict) else {}
        if shape != self.rules:
            self.plan = plan(self.profile, shape)
            self.rules = shape
        return self.plan


class Projector(Listener):
    """Turns what the follower reports into the page's snapshots."""

    def __init__(self, hub: Hub, planner: Planner, hello: dict[str, Any], config: dict[str, Any],
                 fixed_ms: int | None = None) -> None:
        self.hub, self.planner, self.fixed_ms = hub, planner, fixed_ms
        self.hello, self.config = hello, config
        self.state: dict[str, Any] | None = None
        self.live = True
        self.back = False

    def on_connect(self, hello: dict[str, Any], config: dict[str, Any]) -> None:
        self.hello, self.config, self.back = hello, config, True

    def on_lost(self, reason: str) -> None:
        if self.live:
            self.live = False
            print("%s Waiting for it to come back." % reason.rstrip(), flush=True)
            self.hub.notes.append("The board went away; waiting for it to come back.")
            self.hub.publish(live=False)

    def on_state(self, answer: dict[str, Any]) -> None:
        state, hub = answer["state"], self.hub
        if self.back:
            self.back = False
            print("The board is back.", flush=True)
            hub.notes.append("The board is back.")
        if state == self.state and self.live:
            return
        self.state, self.live = state, True
        hub.seq += 1
        hub.publish(state=state, board=self.hello.get("board"), firmware=self.hello.get("firmware"),
                    title=rules_label(state.get("rules")), colours=seat_colours(),
                    plan=self.planner(state.get("rules")), record=None, before=None, hint=None,
                    seq=hub.seq, stone_ms=stone_ms(self.config, self.fixed_ms), live=True)

    def on_event(self, ev: dict[str, Any]) -> None:
        hub, name = self.hub, ev.get("event")
        text = commentary(ev) if name not in ("log", "config") else None  # not for a class
        if name == "hint":
            text = "The CPU suggests pit %s for seat %s." % (ev.get("pit"), ev.get("seat"))
        if text:
            hub.notes.append(text)
        changes: dict[str, Any] = {}
        if name in ("move", "resign"):
            changes.update(record=ev.get("record"), before=self.state)
        elif name in ("new_game", "undo"):
            changes.update(record=None, before=None)
        if changes:
            changes["hint"] = None   # the board's hint pulses until the game moves on
            hub.seq += 1
            changes["seq"] = hub.seq
        if isinstance(ev.get("state"), dict):
            self.state = state = ev["state"]
            changes.update(state=state, title=rules_label(state.get("rules")),
                           plan=self.planner(state.get("rules")))
        if name == "hint":
            changes["hint"] = {"seat": ev.get("seat"), "pit": ev.get("pit")}
        if name == "config" and isinstance(ev.get("config"), dict):
            self.config = ev["config"]
            changes["stone_ms"] = stone_ms(ev["config"], self.fixed_ms)
        changes["live"] = True
        hub.publish(**changes)


class Press(Ask):
    """A press from the page (--control): the seat and the pit, as the board's `press` takes them."""
    seat: int = Field(ge=0, le=3)
    pit: int = Field(ge=1, le=7)


def make_handler(hub: Hub, control: bool, guard: Guard | None = None) -> type[http.server.BaseHTTPRequestHandler]:
    """The page's handler. `guard` (hub/guard.py) holds the address and the token: every
    request must name this server's own address (DNS rebinding), and a press must come from
    this page (Origin) with the token the page was served with."""
    guarded = guard or Guard("127.0.0.1", new_token())
    page = PAGE.replace("__CONTROL__", "true" if control else "false").replace(
        "__TOKEN__", guarded.token if control else "")

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):  # the page polls nothing, but keep the terminal quiet
            pass

        def _refuse(self, code, message):
            body = json.dumps({"ok": False, "error": {"code": "refused", "message": message}})
            self._send(code, "application/json", body.encode())

        def _refused(self, post):
            """True once a refusal is sent: a Host not this server's own, or a POST from
            another page or without the token."""
            host = self.headers.get("Host", "")
            if not guarded.host_ok(host, self.connection.getsockname()[1]):
                self._refuse(403, "The live board answers only at its own address, and this request "
                                  "was for %s: open the address web printed." % (host[:80] or "no address"))
                return True
            origin = self.headers.get("Origin")
            if post and origin is not None and origin.split("://", 1)[-1] != host:
                self._refuse(403, "Only the live board's own page may press; this request came "
                                  "from %s." % origin[:80])
                return True
            if post and not guarded.right(self.headers.get(HEADER, "")):
                self._refuse(403, "Only the page, or a program given the token web printed, may "
                                  "press; send it in the %s header." % HEADER)
                return True
            return False

        def _send(self, code, ctype, body):
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self._refused(False):
                return
            if self.path in ("/", "/index.html"):
                self._send(200, "text/html; charset=utf-8", page.encode("utf-8"))
            elif self.path == "/snapshot":
                with hub.lock:
                    body = json.dumps(hub.snapshot).encode()
                self._send(200, "application/json", body)
            elif self.path == "/events":
                self._stream()
            elif self.path == "/favicon.ico":   # browsers ask; there is none
                self.send_response(204)
                self.end_headers()
            else:
                self._send(404, "text/plain", b"not found")

        def _stream(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            q = hub.listen()
            try:
                while True:
                    try:
                        data = q.get(timeout=15)
                        self.wfile.write(("data: %s\n\n" % data).encode())
                    except queue.Empty:
                        self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, OSError):
                pass
            finally:
                hub.forget(q)

        def do_POST(self):
            if self.path != "/press" or not control:
                self._refuse(403, "Start web with --control to press from the page.")
                return
            if self._refused(True):
                return
            try:
                size = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                size = -1
            if not 0 <= size <= 1024:
                self._refuse(413, "A press is a small JSON object, {\"seat\": s, \"pit\": n}, "
                                  "sent with its Content-Length.")
                self.close_connection = True
                return
            try:
                if self.headers.get_content_type() != "application/json":
                    raise BadRequest("The request must be JSON, sent as application/json.")
                ask = read(Press, self.rfile.read(size))
            except BadRequest as exc:
                self._refuse(400, str(exc))
                return
            req: dict[str, Any] = {"cmd": "press", "seat": ask.seat, "pit": ask.pit}
            try:
                answer = hub.ask(req.pop("cmd"), **req) if hub.ask else {}
            except BoardError as exc:
                answer = {"ok": False, "error": {"message": str(exc)}}
            self._send(200, "application/json", json.dumps(answer).encode())

    return Handler


def run(args: argparse.Namespace) -> int:
    hub = Hub()
    if getattr(args, "exact", False):
        from .webexact import ExactFeed
        from ..logs.exact import Budget
        hub.on_state = ExactFeed(hub, Budget.from_args(args))
    guard = Guard(args.host, new_token())
    follower = Follower(args.port, timeout=args.timeout)
    follower.connect()
    try:
        planner = Planner(load_profile(follower.hello.get("board"), args.profile))
        server = http.server.ThreadingHTTPServer((args.host, args.http_port),
                                                 make_handler(hub, args.control, guard))
    except OSError as exc:
        follower.close()
        raise BoardError("Could not serve on %s:%d: %s; choose another --http-port."
                         % (args.host, args.http_port, exc.strerror or exc))
    except BaseException:
        follower.close()
        raise
    server.daemon_threads = True
    follower.add(Projector(hub, planner, follower.hello, follower.config, args.stone_ms))
    hub.ask = lambda cmd, **fields: follower.ask(cmd, timeout=10, **fields)
    follower.start()
    host = "localhost" if args.host in ("127.0.0.1", "localhost") else args.host
    print("The live board is at http://%s:%d/ (board %s on %s); stop with Ctrl-C."
          % (host, server.server_address[1], follower.hello.get("board"), follower.name), flush=True)
    if args.control:
        print("Programs that press send the header %s: %s" % (HEADER, guard.token), flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        follower.stop()
        server.server_close()
        follower.wait(3)
    return 0
