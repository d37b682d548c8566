"""The room: every board's link, the boards found again as they come and go, the class-wide
settings, and the tournament dealt to the boards.

The links run in their own threads; `changed` hands each new tile to the web server's loop
(`on_change`, set by server.py) so the page follows every board at once.
"""

from __future__ import annotations

import concurrent.futures
import os
import threading
from typing import Any, Callable

from ..errors import BoardError
from . import export, finder
from .link import BoardLink
from .tournament import Tournament

RESCAN_S = 1.0


class TournamentRunning(BoardError):
    """start_tournament without replace=True while a tournament runs (HTTP 409)."""

RULE_KEYS = ("variant", "players", "seeds")


class Room:
    def __init__(self, folder: str, ports: list[str], usb: bool = True, timeout: float = 5.0,
                 list_ports: Callable[[], Any] | None = None) -> None:
        self.folder = folder
        os.makedirs(folder, exist_ok=True)
        self.ports, self.usb, self.timeout = list(ports), usb, timeout
        self.list_ports = list_ports
        self.links: dict[str, BoardLink] = {}
        self.lock = threading.RLock()
        self.stop = threading.Event()
        self.on_change: Callable[[str, dict[str, Any]], None] = lambda key, tile: None
        self.tournament: Tournament | None = None
        self.setting: dict[str, Any] | None = None   # the last class-wide setting
        self._plans: dict[Any, Any] = {}
        self._scanner = threading.Thread(target=self._scan, daemon=True, name="finder")

    # -- boards ---------------------------------------------------------------------------
    def start(self) -> None:
        self._find()
        self._scanner.start()

    def _find(self) -> None:
        found = finder.given_boards(self.ports)
        if self.usb:
            try:
                found.update(finder.usb_boards(self.list_ports))
            except Exception:  # a port listing that fails this second is tried again
                pass
        with self.lock:
            for key, port in found.items():
                link = self.links.get(key)
                if link is not None and link.port != port and link.status != "live":
                    link.port = port  # the same board on another device path after a replug
                if link is None:
                    link = self.links[key] = BoardLink(key, port, self, self.timeout)
                    link.start()

    def _scan(self) -> None:
        while not self.stop.wait(RESCAN_S):
            self._find()

    def close(self) -> None:
        self.stop.set()
        for link in list(self.links.values()):
            link.stop.set()
        for link in list(self.links.values()):
            link.join(timeout=self.timeout + 2)

    def changed(self, link: BoardLink) -> None:
        self.on_change(link.key, link.tile())

    def tiles(self) -> list[dict[str, Any]]:
        return [link.tile() for link in self.ordered()]

    def ordered(self) -> list[BoardLink]:
        """The boards by label (a board with none after those, by port), as a class counts them."""
        def order(link):
            import re
            parts = re.split(r"(\d+)", link.label or "~" + link.port)
            return [int(p) if p.isdigit() else p for p in parts]
        return sorted(self.links.values(), key=order)

    def plan_for(self, board: str | None, rules: Any) -> Any:
        from ..views.web import Planner
        from ..views.webplan import load_profile

        if not board:
            return None
        with self.lock:
            if board not in self._plans:
                try:
                    self._plans[board] = Planner(load_profile(board))
                except BoardError:
                    self._plans[board] = None
            planner = self._plans[board]
        return planner(rules) if planner is not None else None

    def chosen(self, keys: list[str] | None) -> list[BoardLink]:
        if not keys:
            return self.ordered()
        missing = [k for k in keys if k not in self.links]
        if missing:
            raise BoardError("There is no board %s in this room." % ", ".join(missing))
        return [self.links[k] for k in keys]

    # -- settings for all -----------------------------------------------------------------
    def each(self, links: list[BoardLink], cmd: str, fields_for: Callable[[BoardLink], dict[str, Any]],
             wait: float = 10.0) -> dict[str, str]:
        """Send cmd to every board at once; {key: "ok" or the reason it refused}."""
        futures = {link.key: link.call(cmd, **fields_for(link)) for link in links}
        results = {}
        for key, fut in futures.items():
            try:
                fut.result(wait)
                results[key] = "ok"
            except concurrent.futures.TimeoutError:
                results[key] = "The board did not answer in time."
            except BoardError as exc:
                results[key] = getattr(exc, "board_message", None) or str(exc)
        return results

    def apply(self, setting: dict[str, Any], keys: list[str] | None = None) -> dict[str, str]:
        """One setting for all (or the chosen) boards: variant, players, seeds (the rules of
        the next game), move_time_limit, animation_ms (0: no sowing animation, and no
        pause before a CPU move) and seats (as the board's config takes them)."""
        config: dict[str, Any] = {}
        rules = {k: setting[k] for k in RULE_KEYS if setting.get(k) not in (None, "")}
        if rules:
            rules.setdefault("variant", "kalah")
            config["rules"] = rules
        for key in ("move_time_limit", "animation_ms", "seats"):
            if setting.get(key) not in (None, ""):
                config[key] = setting[key]
        if not config:
            raise BoardError("Give at least one of variant, players, seeds, move_time_limit, "
                             "animation_ms or seats.")
        self.setting = config
        links = self.chosen(keys)
        results = self.each(links, "set_config", lambda link: {"config": config})
        for link in links:
            if results[link.key] == "ok":
                link.problem = ""
                if link.locked is not None:
                    link.locked = dict(link.locked, **config)
            else:
                link.problem = "Refused the setting: " + results[link.key]
            self.changed(link)
        return results

    def start_games(self, keys: list[str] | None = None) -> dict[str, str]:
        return self.each(self.chosen(keys), "new_game", lambda link: {})

    def pause(self, paused: bool, keys: list[str] | None = None) -> dict[str, str]:
        return self.each(self.chosen(keys), "set_config", lambda link: {"config": {"paused": paused}})

    def lock_boards(self, locked: bool, keys: list[str] | None = None) -> dict[str, str]:
        """Locked: a change made on the board's own menu is put back at once (the board says
        so on its tile); the page's settings still apply."""
        results = {}
        for link in self.chosen(keys):
            if link.status != "live":
                results[link.key] = "%s is %s." % (link.name_for_people(), link.status)
                continue
            link.locked = {k: link.config[k] for k in ("rules", "seats", "move_time_limit")
                           if k in link.config} if locked else None
            results[link.key] = "ok"
            self.changed(link)
        return results

    def relock(self, link: BoardLink) -> None:
        """In the link's own thread: its menu changed a locked setting; put it back."""
        kept = link.locked or {}
        differs = {k: v for k, v in kept.items() if link.config.get(k) != v}
        if differs and link.client is not None:
            link.client.request("set_config", config=differs)
            link.problem = "Locked: the change made on the board was put back."

    def label(self, key: str, text: str) -> str:
        """The board's label, kept on the board; "ok" clears a refusal the tile showed."""
        link = self.chosen([key])[0]
        result = self.each([link], "set_config", lambda link: {"config": {"label": text}})[key]
        if result == "ok" and link.problem.startswith("Refused"):
            link.problem = ""
            self.changed(link)
        return result

    # -- the tournament -------------------------------------------------------------------
    def start_tournament(self, tournament: Tournament, replace: bool = False) -> None:
        """Deal `tournament` to the room's boards.

        A tournament that is still running (dealt and not over) is replaced only with
        `replace=True`; without it this raises `TournamentRunning` (a BoardError whose
        sentence says so) and nothing changes: the server answers it with HTTP 409 and the
        page asks the teacher to confirm. A finished tournament is replaced without asking.
        The replaced tournament's games keep its id in the logs and the export."""
        with self.lock:
            old = self.tournament
            if old is not None and not old.over and not replace:
                raise TournamentRunning(
                    "A tournament is running (round %d of %d): confirm to replace it; its "
                    "games so far stay in the logs." % (old.round, old.total_rounds))
            self.tournament = tournament
            for link in self.links.values():
                link.dealt = None
            export.save_standings(self)
        for link in self.ordered():
            self._deal(link)

    def _deal(self, link: BoardLink) -> None:
        """Give a free live board the next game of the round, from the board's own thread or
        another one (through the link's request queue)."""
        t = self.tournament
        if t is None or link.status != "live" or link.dealt is not None:
            return
        with self.lock:
            if link.dealt is not None:  # dealt meanwhile from another thread
                return
            game = t.next_game(link.key)
            if game is None:
                return
            link.dealt, link.dealt_started = game, False
        seats = [t.seat(game.names[0]), t.seat(game.names[1])]
        if threading.current_thread() is link:
            client = link.client
            assert client is not None
            try:
                client.request("set_config", config={"seats": seats, "paused": False})
                client.request("new_game", rules=t.rules, first=0)
            except BoardError as exc:
                self._undeal(link, str(exc))
                raise
            return
        fut1 = link.call("set_config", config={"seats": seats, "paused": False})
        fut2 = link.call("new_game", rules=t.rules, first=0)
        def undeal_on_refusal(f: Any) -> None:
            if f.exception():
                self._undeal(link, str(f.exception()))

        for fut in (fut1, fut2):
            fut.add_done_callback(undeal_on_refusal)

    def _undeal(self, link: BoardLink, why: str) -> None:
        with self.lock:
            game, link.dealt = link.dealt, None
            if game is not None and self.tournament is not None:
                self.tournament.give_back(game)
        link.problem = "Could not start the tournament game: " + why
        self.changed(link)

    def board_ready(self, link: BoardLink, answer: dict[str, Any]) -> None:
        self.board_state(link, answer)
        self._deal(link)

    def board_state(self, link: BoardLink, answer: dict[str, Any]) -> None:
        """A state read after a gap: a dealt game that ended meanwhile is scored from it."""
        state = answer.get("state") or {}
        if link.dealt is not None and link.dealt.board == link.key and state.get("over") \
                and link.dealt_started:
            self.board_game_over(link, state["places"], state["stores"])
        elif link.dealt is None:
            self._deal(link)

    def board_new_game(self, link: BoardLink, ev: dict[str, Any]) -> None:
        if link.dealt is None:
            return
        if link.dealt_started:  # a new game over the dealt one
            link.dealt_started = False
            self._undeal(link, "a new game was started on the board before it ended")
            return
        link.dealt_started = True

    def board_game_over(self, link: BoardLink, places: list[int], stores: list[int]) -> None:
        with self.lock:
            game, t = link.dealt, self.tournament
            if game is None or t is None or not link.dealt_started:
                return
            link.dealt, link.dealt_started = None, False
            t.finish(game, places, stores)
            export.save_standings(self)
        self.on_change("", {})   # the standings changed
        for other in self.ordered():
            self._deal(other)
