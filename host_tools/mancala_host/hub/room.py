"""The room: every board's link, the boards found again as they come and go, the class-wide
settings, and the tournament (dealing.Dealer deals it and keeps it in the journal).

The room is the links' Listener: a link reports its board's events here, in its own thread,
and the room hands each new tile to the web server's loop (`on_change`, set by server.py) so
the page follows every board at once. The room asks a link for things through its methods
(call, show, lock, ...) and never writes its fields or uses its line.

Its durable state is the journal (journal.py, hub.sqlite in the class folder): a hub started
again on the same folder carries on the tournament where it stood.
"""

from __future__ import annotations

import concurrent.futures
import os
import re
import threading
from typing import Any, Callable

from ..errors import BoardError
from . import export, finder
from .dealing import Dealer, TournamentRunning
from .journal import FILE, Journal
from .link import BoardLink, Listener
from .tournament import Tournament

__all__ = ["Room", "TournamentRunning"]

RESCAN_S = 1.0
RULE_KEYS = ("variant", "players", "seeds")
NOT_STARTED = "No new game: "


class Room(Listener):
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
        self.journal = Journal(os.path.join(folder, FILE))
        self.dealer = Dealer(self.journal, self._send, self._dealt)
        self.setting: dict[str, Any] | None = self.journal.setting()   # the last class-wide one
        self._plans: dict[Any, Any] = {}
        self.bot_cards: Any = None   # the bots' report cards (grading.Cards), for the export
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
                if link is not None and link.port != port:
                    link.move_to(port)  # the same board on another device path after a replug
                if link is None:
                    link = self.links[key] = BoardLink(key, port, self.folder, self,
                                                       self.timeout)
                    link.start()

    def _scan(self) -> None:
        while not self.stop.wait(RESCAN_S):
            self._find()

    def close(self) -> None:
        self.stop.set()
        for link in list(self.links.values()):
            link.close()
        for link in list(self.links.values()):
            link.join(timeout=self.timeout + 2)
        self.journal.close()

    @property
    def tournament(self) -> Tournament | None:
        return self.dealer.tournament

    def standings(self) -> dict[str, Any] | None:
        """The tournament as the page shows it (with its id), or None."""
        return self.dealer.standings()

    def tile(self, link: BoardLink) -> dict[str, Any]:
        """The link's tile with the tournament's fields: the players dealt to it, and why its
        game is not being played (with "redeal": the teacher may deal it again)."""
        tile = dict(link.tile(), **self.dealer.tile(link.key))
        if not tile["problem"]:
            tile["problem"] = tile["deal_problem"]
        return tile

    def tiles(self) -> list[dict[str, Any]]:
        return [self.tile(link) for link in self.ordered()]

    def ordered(self) -> list[BoardLink]:
        """The boards by label (a board with none after those, by port), as a class counts them."""
        def order(link):
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
        self.journal.keep_setting(config)
        links = self.chosen(keys)
        results = self.each(links, "set_config", lambda link: {"config": config})
        for link in links:
            if results[link.key] == "ok":
                link.applied(config)
            else:
                link.show("Refused the setting: " + results[link.key])
        return results

    def start_games(self, keys: list[str] | None = None) -> dict[str, str]:
        """New game on every (or the chosen) board. A live board that does not start one
        (it refused, or did not answer in time) says why on its tile until its next new
        game; a board that is not live shows that already."""
        links = self.chosen(keys)
        results = self.each(links, "new_game", lambda link: {})
        for link in links:
            if results[link.key] != "ok":
                if link.status == "live":
                    link.show(NOT_STARTED + results[link.key])
            elif link.problem.startswith((NOT_STARTED, "Refused")):
                link.show("")
        return results

    def pause(self, paused: bool, keys: list[str] | None = None) -> dict[str, str]:
        return self.each(self.chosen(keys), "set_config", lambda link: {"config": {"paused": paused}})

    def lock_boards(self, locked: bool, keys: list[str] | None = None) -> dict[str, str]:
        """Locked: a change made on the board's own menu is put back at once (the board says
        so on its tile); the page's settings still apply."""
        return {link.key: link.lock(locked) for link in self.chosen(keys)}

    def label(self, key: str, text: str) -> str:
        """The board's label, kept on the board; "ok" clears a refusal the tile showed."""
        link = self.chosen([key])[0]
        result = self.each([link], "set_config", lambda link: {"config": {"label": text}})[key]
        if result == "ok" and link.problem.startswith("Refused"):
            link.show("")
        return result

    # -- the tournament -------------------------------------------------------------------
    def start_tournament(self, tournament: Tournament, replace: bool = False) -> None:
        """Deal `tournament` to the room's boards.

        A tournament that is still running (dealt and not over) is replaced only with
        `replace=True`; without it this raises `TournamentRunning` (a BoardError whose
        sentence says so) and nothing changes: the server answers it with HTTP 409 and the
        page asks the teacher to confirm. A finished tournament is replaced without asking.
        The replaced tournament's games keep its id in the logs and the export."""
        self.dealer.start(tournament, replace)
        export.save_standings(self)

    def redeal(self, key: str) -> str:
        """The tile's "deal again": the board's tournament game (one it refused, or lost when
        it was wiped) is dealt to it again. "ok", or one sentence saying why not."""
        self.chosen([key])
        return self.dealer.redeal(key)

    def press(self, key: str, seat: int, pit: int) -> concurrent.futures.Future:
        """Press seat's pit on the board, as a touch would (a bot's move, kgp.py): a Future
        of the board's answer, or of its refusal (BoardRefused, illegal_move)."""
        return self._send(key, "press", {"seat": seat, "pit": pit})

    def resign(self, key: str, seat: int) -> concurrent.futures.Future:
        """Resign seat's game on the board (a bot that forfeits it, kgp.py)."""
        return self._send(key, "resign", {"seat": seat})

    def _send(self, key: str, cmd: str, fields: dict[str, Any]) -> concurrent.futures.Future:
        link = self.links.get(key)
        if link is None:
            fut: concurrent.futures.Future = concurrent.futures.Future()
            fut.set_exception(BoardError("There is no board %s in this room." % key))
            return fut
        return link.call(cmd, **fields)

    def _dealt(self, key: str) -> None:
        """The dealer changed a tile (key) or the standings ("")."""
        if key == "":
            export.save_standings(self)
            self.on_change("", {})
        elif key in self.links:
            self.on_change(key, self.tile(self.links[key]))

    # -- Listener: what the links report, in their own threads ----------------------------
    def link_changed(self, link: BoardLink) -> None:
        self.on_change(link.key, self.tile(link))

    def board_ready(self, link: BoardLink, answer: dict[str, Any]) -> None:
        board_id = link.hello.get("board_id")
        self.dealer.ready(link.key, board_id if isinstance(board_id, str) else None, answer)

    def board_state(self, link: BoardLink, answer: dict[str, Any]) -> None:
        self.dealer.state(link.key, answer)

    def board_event(self, link: BoardLink, ev: dict[str, Any]) -> None:
        if ev.get("event") == "new_game":
            self.dealer.new_game(link.key, ev)
        elif ev.get("event") == "game_over":
            self.dealer.game_over(link.key, ev)

    def board_game(self, link: BoardLink, game: dict[str, Any]) -> None:
        self.dealer.handed_over(link.key, game)

    def board_gone(self, link: BoardLink) -> None:
        self.dealer.gone(link.key)

    def game_tag(self, link: BoardLink, board_id: str | None,
                 game: int | None) -> dict[str, Any] | None:
        return self.dealer.tag(link.key, game, board_id)

    def wants(self, link: BoardLink, board_id: str, game: int) -> bool:
        """A tournament game of the board that is not in its log yet (it ended while the hub
        was away) is fetched."""
        return self.journal.owed(board_id, game)

    def logged(self, link: BoardLink, game: dict[str, Any]) -> None:
        if game.get("board_id") and isinstance(game.get("game"), int):
            tag = self.dealer.tag(link.key, game["game"], game["board_id"])
            self.journal.log(game["board_id"], game["game"], link.key, not game["over"],
                             tag["id"] if tag else None)
