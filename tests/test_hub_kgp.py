"""The hub's KGP server (hub/kgp.py) with a client written from the specification
(kgpclient.py), on a model room: one board whose game is the engine's, as a board would play
it (a press of an empty pit or out of turn is refused, as the board refuses it). The same
server on virtual boards is in test_hub_bots.py."""
import asyncio
import concurrent.futures
import threading

import pytest

from mancala import Game, Rules
from mancala_host.errors import BoardRefused
from mancala_host.hub.kgp import Lobby
from mancala_host.hub.tournament import Tournament, parse_players

from kgpclient import Kgp
from waits import wait_for


class ModelRoom:
    """One board (key "b1") dealt players[0] v players[1]; presses are the engine's."""

    def __init__(self, players):
        self.tournament = Tournament(parse_players(players))
        self.game = Game(Rules.from_dict({"variant": "kalah", "seeds": 3}))
        self.names = list(self.tournament.games[0].names)
        self.games = 0    # the games the board has logged
        self.pressed, self.refused, self.resigned = [], [], []
        self.on_change = lambda key, tile: None
        self.lock = threading.Lock()

    def tile(self):
        return {"key": "b1", "status": "live", "state": self.game.to_dict(),
                "players": self.names, "games": self.games}

    def new_game(self):
        """The board's next game between the same players (the last one logged)."""
        with self.lock:
            self.games += 1
            self.game = Game(Rules.from_dict({"variant": "kalah", "seeds": 3}))
            tile = self.tile()
        self.on_change("b1", tile)

    def tiles(self):
        with self.lock:
            return [self.tile()]

    def press(self, key, seat, pit):
        fut = concurrent.futures.Future()
        with self.lock:
            if self.game.turn != seat or not self.game.is_legal(pit):
                self.refused.append((seat, pit))
                fut.set_exception(BoardRefused("illegal_move", "Pit %d is empty." % pit))
                return fut
            self.pressed.append((seat, pit))
            self.game.play(pit)
            tile = self.tile()
        fut.set_result({"ok": True})
        self.on_change("b1", tile)
        return fut

    def resign(self, key, seat):
        fut = concurrent.futures.Future()
        with self.lock:
            self.resigned.append(seat)
            self.game.resign(seat)
            tile = self.tile()
        fut.set_result({"ok": True})
        self.on_change("b1", tile)
        return fut


class Hub:
    """A Lobby on its own loop in a thread, as the hub runs it."""

    def __init__(self, room, **kw):
        self.room = room
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.lobby = Lobby(room, **kw)
        self.run(self.lobby.start("127.0.0.1", 0))
        self.port = self.lobby.port

    def run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(30)

    def listing(self):
        return self.run(_call(self.lobby.listing))

    def bot(self, name):
        return next(b for b in self.listing()["bots"] if b["name"] == name)

    def later(self, seconds):
        """The lobby's clock moved on by seconds (its grace waits read it every second)."""
        def moved():
            now = self.lobby.now
            self.lobby.now = lambda: now() + seconds
        self.loop.call_soon_threadsafe(moved)

    def close(self):
        self.run(self.lobby.close())
        self.run(asyncio.sleep(0.05))   # the cancelled turns end
        self.loop.call_soon_threadsafe(self.loop.stop)


async def _call(fn):
    return fn()


def join(port, name):
    c = Kgp(port)
    c.send('set info:name "%s"' % name)
    c.send("mode freeplay")
    return c


def first_legal(board):
    return next(i + 1 for i, n in enumerate(board["south"]) if n)


def play_out(client, pick=first_legal, stop_after=None):
    """Answer every state with pick(board) and yield; (the boards seen) until the hub stops."""
    seen = []
    while stop_after is None or len(seen) < stop_after:
        try:
            ident, board = client.state()
        except AssertionError:
            return seen
        seen.append(board)
        client.send("@%d move %d" % (ident, pick(board)))
        client.send("@%d yield" % ident)
        client.until(r"\d+@%d stop$" % ident)
    return seen


@pytest.fixture
def hubs():
    made = []

    def make(players=("ann=bot", "bob=bot"), before=(), **kw):
        room = ModelRoom(list(players))
        for pit in before:      # the game as it stands when the hub starts
            room.game.play(pit)
        hub = Hub(room, **kw)
        made.append(hub)
        return hub
    yield make
    for h in made:
        h.close()


def test_two_bots_join_by_name_and_play_a_whole_game_from_their_own_side(hubs):
    hub = hubs()
    ann, bob = join(hub.port, "ann"), join(hub.port, "bob")
    seen = {}
    threads = [threading.Thread(target=lambda c=c, n=n: seen.setdefault(n, play_out(c)))
               for c, n in ((ann, "ann"), (bob, "bob"))]
    for t in threads:
        t.start()
    wait_for("the game to end", lambda: hub.room.game.over)
    ann.sock.shutdown(2), bob.sock.shutdown(2)
    for t in threads:
        t.join(30)
    room = hub.room
    assert room.refused == [] and room.resigned == []
    # every press was the bot's first legal pit of the position it was sent, from its side
    replay = Game(Rules.from_dict({"variant": "kalah", "seeds": 3}))
    boards = {"ann": iter(seen["ann"]), "bob": iter(seen["bob"])}
    for seat, pit in room.pressed:
        board = next(boards[room.names[seat]])
        state = replay.to_dict()
        assert board["south"] == state["pits"][seat] and board["north"] == state["pits"][1 - seat]
        assert board["stores"] == [state["stores"][seat], state["stores"][1 - seat]]
        assert pit == first_legal(board)
        replay.play(pit)
    assert replay.over and len(room.pressed) == len(seen["ann"]) + len(seen["bob"])
    names = {b["name"]: b for b in hub.listing()["bots"]}
    assert names["ann"]["moves"] + names["bob"]["moves"] == len(room.pressed)


def test_malformed_lines_get_error_and_the_line_stays(hubs):
    hub = hubs(move_s=60)
    c = join(hub.port, "ann")
    ident, board = c.state()
    for bad in ("@@ move", "move <1,2>", "set", "frobnicate 1", 'set info:name "x', "\xff"):
        c.send(bad)
        assert c.until(r"(?:\d+@?\d* )?(error|pong) ").group(1) == "error", bad
    c.send("7 ping")
    c.until(r"@7 pong$")
    # and it still plays: the state it was sent takes a move
    c.send("@%d move 99" % ident)            # no such pit
    c.until(r"error ")
    c.send("@%d move %d" % (ident, first_legal(board)))
    c.send("@%d yield" % ident)
    wait_for("the press", lambda: hub.room.pressed)
    assert hub.room.pressed == [(0, first_legal(board))]


def test_a_1mb_line_and_a_flood_are_cut_off_and_the_hub_goes_on(hubs):
    hub = hubs()
    big = Kgp(hub.port)
    big.sock.sendall(b"set info:name " + b"x" * 1_000_000 + b"\r\n")
    assert big.until(r"error ") and big.closed()
    flood = Kgp(hub.port)
    try:
        flood.sock.sendall(b"ping\r\n" * 20000)
    except (BrokenPipeError, ConnectionResetError):
        pass
    assert flood.closed()
    assert any(l.startswith("error") and "lines a second" in l for l in flood.seen)
    ann = join(hub.port, "ann")
    ident, _board = ann.state()
    assert ident > 0 and [b["name"] for b in hub.listing()["bots"]] == ["ann"]


def test_an_empty_pit_is_refused_by_the_board_and_the_bot_is_asked_again(hubs):
    hub = hubs(before=(1, 1))     # seat 0's pit 1 is empty, and seat 0 is to move
    ann = join(hub.port, "ann")
    ident, board = ann.state()
    assert board["south"][0] == 0
    ann.send("@%d move 1" % ident)
    ann.send("@%d yield" % ident)
    ann.until(r"@%d error \"The board refused pit 1" % ident)
    again, board2 = ann.state()
    assert again != ident and board2 == board
    ann.send("@%d move 2" % again)
    ann.send("@%d yield" % again)
    wait_for("the press", lambda: hub.room.pressed)
    assert hub.room.refused == [(0, 1)] and hub.room.pressed == [(0, 2)]


@pytest.mark.parametrize("rule", ["random", "forfeit"])
def test_a_bot_too_slow_gets_stop_and_the_rule_in_force_applies(hubs, rule):
    hub = hubs(move_s=0.5, no_move=rule)
    ann = join(hub.port, "ann")
    ident, board = ann.state()
    ann.until(r"\d+@%d stop$" % ident)
    ann.send("@%d move 1" % ident)           # after stop: silently ignored
    if rule == "random":
        wait_for("a random legal pit", lambda: hub.room.pressed)
        seat, pit = hub.room.pressed[0]
        assert seat == 0 and board["south"][pit - 1] > 0 and hub.room.resigned == []
    else:
        wait_for("the resignation", lambda: hub.room.resigned)
        assert hub.room.resigned == [0] and hub.room.pressed == [] and hub.room.game.over
    assert hub.listing()["no_move"] == rule


def test_a_bot_that_drops_comes_back_within_the_grace_and_plays_on(hubs):
    hub = hubs(grace_s=60)
    ann = join(hub.port, "ann")
    ann.state()
    ann.close()                              # dropped while asked
    wait_for("the drop", lambda: not hub.listing()["bots"][0]["connected"])
    back = join(hub.port, "ann")
    ident, board = back.state()
    back.send("@%d move 3" % ident)
    back.send("@%d yield" % ident)
    wait_for("the press", lambda: hub.room.pressed)
    assert hub.room.pressed == [(0, 3)] and hub.room.resigned == []


def test_a_bot_that_does_not_come_back_forfeits_that_game(hubs):
    hub = hubs(grace_s=0.3)
    ann = join(hub.port, "ann")
    ann.state()
    ann.close()
    wait_for("the forfeit", lambda: hub.room.resigned)
    assert hub.room.resigned == [0] and hub.room.game.over and hub.room.pressed == []
    assert hub.listing()["bots"][0]["forfeits"] == 1


def test_names_tokens_and_modes(hubs):
    hub = hubs(token="s3cret-token-of-the-class")
    bare = Kgp(hub.port)
    bare.send("mode freeplay")
    assert bare.until(r"error ") and bare.closed()
    good = Kgp(hub.port)
    good.send('set auth:token "s3cret-token-of-the-class"')
    good.send("mode freeplay")             # no name: the hub gives one
    good.send("9 ping")
    good.until(r"@9 pong")
    assert [b["name"] for b in hub.listing()["bots"] if b["connected"]] == ["bot-1"]
    other = Kgp(hub.port)
    other.send('set auth:token "s3cret-token-of-the-class"')
    other.send("mode eval")
    assert other.until(r"error \"Unsupported activity") and other.closed()
    twin = Kgp(hub.port)
    twin.send('set auth:token "s3cret-token-of-the-class"')
    twin.send('set info:name "bot-1"')
    twin.send("mode freeplay")
    assert twin.until(r"error \"A bot named bot-1 is already") and twin.closed()


def test_each_game_gives_a_bot_that_stays_away_its_own_grace(hubs):
    hub = hubs(grace_s=600)
    ann = join(hub.port, "ann")
    ann.state()
    ann.close()                              # dropped in game 1, where it is to move
    wait_for("the drop", lambda: not hub.bot("ann")["connected"])
    hub.later(601)                           # its grace in game 1 runs out
    wait_for("the forfeit", lambda: hub.room.resigned)
    assert hub.bot("ann")["forfeits"] == 1
    hub.room.new_game()                      # game 2, ann to move: a grace of its own
    wait_for("the wait for ann in game 2", lambda: (hub.bot("ann")["grace_left"] or 0) > 300)
    back = join(hub.port, "ann")
    ident, board = back.state()
    back.send("@%d move %d" % (ident, first_legal(board)))
    back.send("@%d yield" % ident)
    wait_for("the press", lambda: hub.room.pressed)
    assert hub.room.resigned == [0] and hub.room.pressed == [(0, first_legal(board))]
    assert hub.bot("ann")["forfeits"] == 1
