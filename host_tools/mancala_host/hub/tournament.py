"""A class tournament: round robin or Swiss pairings, seats rotating, results from the boards'
game ends, and the standings (docs/user-guide.md, "A class tournament", states the rule).

Pure logic, no I/O: the room deals `next_game()` to a free board and hands back the result with
`finish(game, places, stores)`. A round's games are dealt as boards come free; the next round
starts when every game of the round has ended, so nobody is booked at two boards at once.

Points: a win 1, a draw 1/2, a loss 0. Ties are broken by the store difference (the player's
seeds in store minus the opponent's, summed over their games), then by the points scored in
the games among the tied players (head to head), then by name. A player without an opponent
in a round plays the CPU (`GAP`): that game counts for the player, and the CPU is not ranked.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..errors import MancalaError

GAP = "CPU"


class Player:
    def __init__(self, name: str, level: int | None = None, bot: bool = False) -> None:
        self.name = name
        self.level = level  # None: a person at the board; 1..5: the CPU plays for this entrant
        self.bot = bot      # a student's bot over KGP (hub/kgp.py) plays for this entrant

    def seat(self) -> dict[str, Any]:
        """A bot's seat is a person's to the board: the hub presses its pits."""
        return {"kind": "human"} if self.level is None else {"kind": "cpu", "level": self.level}

    def entry(self) -> str:
        return self.name + ("=bot" if self.bot else "" if self.level is None else "=cpu%d" % self.level)


class PlayersError(MancalaError, ValueError):
    """A list of players the hub cannot run a tournament for, in one sentence."""


def parse_players(texts: list[str]) -> list[Player]:
    """Player entries from 'Ann', 'Cpu=cpu2' or 'deep=bot' (the bot of that name, over KGP);
    PlayersError (a ValueError) in one sentence."""
    players, names = [], set()
    for text in texts:
        name, _, kind = (t.strip() for t in text.partition("="))
        if not name:
            raise PlayersError("A player needs a name: %r has none." % text)
        if name == GAP or name in names:
            raise PlayersError("Each player needs a name of their own: %r is taken." % name)
        level, bot = None, kind == "bot"
        if kind and not bot:
            if not (kind.startswith("cpu") and kind[3:].isdigit() and 1 <= int(kind[3:]) <= 5):
                raise PlayersError("%r: after '=' write cpu1 to cpu5 (the CPU plays for %s) or "
                                   "bot (%s's bot plays, over KGP)." % (text, name, name))
            level = int(kind[3:])
        names.add(name)
        players.append(Player(name, level, bot))
    if len(players) < 2:
        raise PlayersError("A tournament needs at least 2 players, got %d." % len(players))
    return players


def round_robin(names: list[str]) -> list[list[tuple[str, str]]]:
    """Every pair once (the circle method), GAP filling an odd count; seat 0 (who sows first)
    goes to whichever of the two has had it fewer times so far, so it rotates."""
    ring = list(names) + ([GAP] if len(names) % 2 else [])
    n = len(ring)
    firsts = dict.fromkeys(ring, 0)
    rounds = []
    for r in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if firsts[b] < firsts[a] or (firsts[a] == firsts[b] and (r + i) % 2):
                a, b = b, a
            firsts[a] += 1
            pairs.append((a, b))
        rounds.append(pairs)
        ring = [ring[0], ring[-1]] + ring[1:-1]
    return rounds


class Game:
    """One pairing: seat 0 and seat 1, and once played the result. (round, slot) names it
    within its tournament."""

    def __init__(self, round_no: int, seat0: str, seat1: str, slot: int = 0) -> None:
        self.round = round_no
        self.slot = slot
        self.names = (seat0, seat1)
        self.board: str | None = None  # the board's key once dealt
        self.places: list[int] | None = None
        self.stores: list[int] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "slot": self.slot, "seats": list(self.names), "board": self.board,
                "places": self.places, "stores": self.stores}


class Tournament:
    def __init__(self, players: list[Player], style: str = "round-robin", rounds: int = 0,
                 rules: dict[str, Any] | None = None, cpu_level: int = 1) -> None:
        if style not in ("round-robin", "swiss"):
            raise ValueError("The tournament is round-robin or swiss, not %r." % style)
        self.players = {p.name: p for p in players}
        self.style = style
        self.rules = dict(rules or {"variant": "kalah"})
        if self.rules.get("players", 2) != 2:
            raise ValueError("A tournament game has 2 players, not %s." % self.rules.get("players"))
        self.cpu_level = cpu_level
        names = [p.name for p in players]
        if style == "round-robin":
            self.plan = round_robin(names)
            self.total_rounds = len(self.plan)
        else:
            self.plan = []
            self.total_rounds = rounds or max(1, (len(names) - 1).bit_length())
        self.games: list[Game] = []
        self.round = 0
        self._queue: list[Game] = []
        self.id: int | None = None   # the journal's id, once the room keeps it
        self._next_round()

    def spec(self) -> dict[str, Any]:
        """What the tournament was made from (restore() takes it back)."""
        return {"players": [p.entry() for p in self.players.values()],
                "style": self.style, "rounds": self.total_rounds, "rules": self.rules,
                "cpu_level": self.cpu_level}

    @classmethod
    def restore(cls, spec: dict[str, Any], games: list[Game]) -> Tournament:
        """The tournament made from spec with its games as they stood (every round dealt so
        far, results and boards filled in): the journal's copy after a restart. The games
        of the last round that are neither dealt nor played are dealt again."""
        t = cls(parse_players(spec["players"]), spec["style"], spec["rounds"], spec["rules"],
                spec["cpu_level"])
        if games:
            t.games = sorted(games, key=lambda g: (g.round, g.slot))
            t.round = max(g.round for g in games)
            t._queue = [g for g in t.games
                        if g.round == t.round and g.places is None and g.board is None]
        return t

    # -- dealing --------------------------------------------------------------------------
    def _next_round(self) -> None:
        if self.round >= self.total_rounds:
            return
        pairs = self.plan[self.round] if self.style == "round-robin" else self._swiss_pairs()
        self.round += 1
        new = [Game(self.round, a, b, slot) for slot, (a, b) in enumerate(pairs)]
        self.games += new
        self._queue += new

    def round_games(self) -> list[Game]:
        """The games of the round being played."""
        return [g for g in self.games if g.round == self.round]

    def seat(self, name: str) -> dict[str, Any]:
        if name == GAP:
            return {"kind": "cpu", "level": self.cpu_level}
        return self.players[name].seat()

    def next_game(self, board: str) -> Game | None:
        """The next game of the round for the free board `board`, or None."""
        if not self._queue:
            return None
        game = self._queue.pop(0)
        game.board = board
        return game

    def give_back(self, game: Game) -> None:
        """A dealt game that did not happen (its board went to another game): deal it again."""
        game.board = None
        if game.places is None and game not in self._queue:
            self._queue.insert(0, game)

    def finish(self, game: Game, places: list[int], stores: list[int]) -> list[Game]:
        """Score game; returns the next round's games when this one completed its round."""
        game.places, game.stores = list(places), list(stores)
        if all(g.places is not None for g in self.games if g.round == self.round):
            before = self.round
            self._next_round()
            if self.round != before:
                return self.round_games()
        return []

    @property
    def over(self) -> bool:
        return self.round >= self.total_rounds and all(g.places is not None for g in self.games)

    # -- standings ------------------------------------------------------------------------
    def _score(self, game: Game, side: int) -> Fraction:
        places = game.places or []
        if places[0] == places[1]:
            return Fraction(1, 2)
        return Fraction(1 if places[side] == 1 else 0)

    def _tally(self, among: set[str] | None = None) -> dict[str, dict[str, Any]]:
        rows: dict[str, dict[str, Any]] = {
            n: {"name": n, "played": 0, "won": 0, "drawn": 0, "lost": 0, "points": Fraction(0),
                "stores": 0} for n in self.players}
        for g in self.games:
            if g.places is None or g.stores is None:
                continue
            for side in (0, 1):
                me, them = g.names[side], g.names[1 - side]
                if me not in rows or (among is not None and them not in among):
                    continue
                row, s = rows[me], self._score(g, side)
                row["played"] += 1
                row["points"] += s
                row["stores"] += g.stores[side] - g.stores[1 - side]
                row["won" if s == 1 else "drawn" if s else "lost"] += 1
        return rows

    def standings(self) -> list[dict[str, Any]]:
        """Rows best first: points, then store difference, then head to head, then name."""
        rows = self._tally()
        groups: dict[tuple[Fraction, int], list[str]] = {}
        for n, r in rows.items():
            groups.setdefault((r["points"], r["stores"]), []).append(n)
        h2h: dict[str, Fraction] = {}
        for names in groups.values():
            if len(names) > 1:
                sub = self._tally(set(names))
                for n in names:
                    h2h[n] = sub[n]["points"]
        order = sorted(rows, key=lambda n: (-rows[n]["points"], -rows[n]["stores"],
                                            -h2h.get(n, Fraction(0)), n))
        out = []
        for place, n in enumerate(order, 1):
            r = dict(rows[n], place=place, points=float(rows[n]["points"]),
                     head_to_head=float(h2h[n]) if n in h2h else None)
            out.append(r)
        return out

    def _swiss_pairs(self) -> list[tuple[str, str]]:
        """Pairs by standings, best first, each with the next one it has not met yet; with an
        odd count the lowest-ranked player who has not yet played the CPU plays it."""
        order = [r["name"] for r in self.standings()]
        met = {(g.names[0], g.names[1]) for g in self.games} | {(g.names[1], g.names[0]) for g in self.games}
        firsts = {n: sum(1 for g in self.games if g.names[0] == n) for n in order}
        pairs = []
        if len(order) % 2:
            had = {n for g in self.games for n in g.names if GAP in g.names}
            gap = next((n for n in reversed(order) if n not in had), order[-1])
            order.remove(gap)
            pairs.append((gap, GAP))
        while order:
            a = order.pop(0)
            b = next((n for n in order if (a, n) not in met), order[0])
            order.remove(b)
            pairs.append((a, b) if firsts[a] <= firsts[b] else (b, a))
        return pairs

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "style": self.style, "round": self.round, "rounds": self.total_rounds,
                "over": self.over, "standings": self.standings(),
                "games": [g.to_dict() for g in self.games]}
