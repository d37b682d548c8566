"""The game flow: every change of the game in progress takes one way, here.

Flow holds the config, the game in progress (the session, app.session) and the seating, and
offers the actions a person can take, which the pads (App, in app/__init__.py), the serial
commands (app.commands) and the CPU (App.tick, with what app.autoplay returns) all call: new
game, press, resign, undo, set config, demo, hint. Every action first changes the game, then
shows it (the display's first LED change comes before anything slow), then saves it to
flash, and only then sends its events; the protocol's answer follows the events. So
anything acknowledged over serial is on the flash (docs/protocol.md §7).

The saves: the settings (the config and the game counter) and the game in progress, each
written whole to a temporary file and renamed over the old one (mancala_fw.storage), and a
finished game kept among the last few (app.finished, loaded for it and then forgotten). A
save that fails (a full flash, a fragmented heap) is said as a log event, and the game goes
on in memory. app.config, which checks config changes, is loaded for each check and then
forgotten (its heap is the game's the rest of the time).
"""

from mpcompat import ticks_ms
from mancala import IllegalMove

from mancala_fw import storage, forget
from mancala_fw.app.session import Session
from mancala_fw.app.autoplay import Autoplay, DEMO_LEVEL
from mancala_fw.app.heap import sample as sample_heap, collect_if_due
from mancala_fw.protocol import CommandError, ILLEGAL_MOVE, NOTHING_TO_UNDO, BAD_CONFIG

SETTINGS_FILE = "settings.json"
GAME_FILE = "game.json"
SETTINGS_FORMAT = "mancala-settings"
NO_MOVE = "There is no move in this game to take back."
NO_PERSON = "No person has moved in this game yet, so there is nothing to take back."


class Flow:
    def __init__(self, profile, display, emit, flash="", irq=None):
        """profile: the checked board profile; display: see app.hardware.NullDisplay for the
        calls used; emit(name, fields) sends an event; flash: directory prefix for files;
        irq: the pads' IRQ line where the profile wires it (app.boot hands it over), which
        ends a CPU search slice at a touch (app.autoplay)."""
        self.profile = profile
        self.display = display
        self.emit = emit
        self.flash = flash
        self.settings_path = flash + SETTINGS_FILE
        self.game_path = flash + GAME_FILE
        self.config = _configs().defaults(profile)
        # The last game id given: a counter saved with the settings, so that a game's id
        # (board_id, game) is never given twice on this board while its flash is kept.
        self.games = 0
        self.board_id = ""  # the hex of the chip's unique id: app.boot.restore reads it
        self.session = None  # type: Session | None  # boot() makes it
        self.seating = None  # the profile's Seating of the game in progress, from boot()
        self.menu = None
        self.autoplay = Autoplay(emit, self.log, flash, irq)
        # For App's pads: display.lift(pos) shows a touched legal pit emptied at once; a
        # display without it (app.hardware.NullDisplay) shows the move from play() alone.
        self._lift = getattr(display, "lift", None)

    def game_on(self):
        """The game in progress (the session); boot() has made one."""
        session = self.session
        if session is None:
            raise RuntimeError("the app has not booted")
        return session

    def game(self):
        """The engine's Game in progress (a serial command reads its size and whether it is
        over)."""
        return self.game_on().game

    def in_demo(self):
        """Whether demo mode plays (the state command says so)."""
        return self.autoplay.demo

    def log(self, level, message):
        self.emit("log", {"level": level, "message": message})

    def hint(self, source, rid=None):
        """Starts a hint for the seat to move (Autoplay.start_hint)."""
        self.autoplay.start_hint(self.game_on().game, source, rid)

    def _use(self, session):
        """Makes session the game in progress (ValueError if this board cannot seat it)."""
        g = session.game
        from mancala_fw import profile as profiles  # loaded already: the board's profile
        seating = profiles.seating(self.profile, g.players, g.pits)
        self.session = session
        self.seating = seating
        self.display.set_game(seating, g.to_dict())
        self.autoplay.changed(ticks_ms())

    # ------------------------------------------------------------------ saving
    def _save_settings(self):
        self._save(self.settings_path, {"format": SETTINGS_FORMAT, "config": self.config,
                                        "games": self.games})

    def number(self, session):
        """Gives session the next game id, saving the counter first, so that no id is given
        twice even if the power goes before the game is saved."""
        self.games += 1
        self._save_settings()
        session.id = self.games

    def _save_game(self, state=None):
        self._save(self.game_path, self.game_on().to_saved(state))

    def _save(self, path, obj):
        try:
            storage.save(path, obj)
            # diag memory's low-water mark (the game's garbage is at its most), and on
            # CircuitPython gc.threshold's bound (app.heap) from the same reading
            collect_if_due(sample_heap())
        except (OSError, MemoryError) as e:
            # A full flash or a fragmented heap: the game goes on in memory, and the person
            # is told rather than the move being lost with an internal error.
            self.log("error", "Saving %s failed (%s); the change is kept until power-off."
                     % (path, e))

    # ------------------------------------------------------------------ actions
    def state(self):
        return self.game_on().game.to_dict()

    def set_config(self, patch, source, keep_menu=False):
        """Checks patch whole and applies it; CommandError(bad_config) if any part is wrong."""
        try:
            new, warnings = self._check(patch)
        except ValueError as e:
            raise CommandError(BAD_CONFIG, str(e))
        self._apply(new, source, keep_menu)
        return new, warnings

    def _apply(self, new, source, keep_menu=False):
        """Makes the checked config new the config: saved, shown and told."""
        if not keep_menu:
            self.close_menu()
        if new != self.config:
            seats = new["seats"] != self.config["seats"]
            if seats or new["move_time_limit"] != self.config["move_time_limit"]:
                self.autoplay.changed(ticks_ms())
            players = new["rules"]["players"] != self.config["rules"]["players"]
            self.config = new
            self._save_settings()
            self.apply_display_settings()
            self.emit("config", {"config": new, "source": source})
            if seats or players:
                self.prepare_cpu()

    def _check(self, patch):
        """app.config.check on the current config; the module is loaded for it and then
        forgotten, unless the menu (which uses it too) is open."""
        try:
            return _configs().check(self.config, patch, self.profile)
        finally:
            if self.menu is None:
                forget("mancala_fw.app.config")

    def prepare_cpu(self):
        """Loads the CPU now if a seat of this game or the next is the CPU's
        (Autoplay.prepare)."""
        players = self.config["rules"]["players"]
        session = self.session
        if session is not None and session.game.players > players:
            players = session.game.players
        self.autoplay.prepare(self.config["seats"], players)

    def apply_display_settings(self):
        c = self.config
        self.display.settings(c["brightness"], c["power_limit_ma"], c["animation_ms"])

    def next_first(self, players):
        if not self.config["rotate_starter"] or self.session is None:
            return 0
        return (self.session.first + 1) % players

    def new_game(self, source, rules=None, first=None, answer=None, position=None):
        """Starts a game; rules (optional) are checked and saved as set_config does.
        answer: as for press(), it gets the new game's state. position: an engine state
        dict to start from instead of the opening (its rules become the config's, its seat
        to move the first)."""
        warnings = []
        players = self.config["rules"]["players"]
        checked = None
        session = None
        if position is not None:
            if rules is not None or first is not None:
                raise CommandError("bad_request", "new_game takes a state alone: its rules "
                                   "and its seat to move are the state's.")
            try:
                session = Session.at(position)
            except (ValueError, TypeError, AttributeError) as e:
                raise CommandError("bad_request", "state is not a position of a game: %s."
                                   % str(e).rstrip("."))
            rules = position["rules"]
            first = session.first
        if rules is not None:
            # Checked once: app.config is loaded for it and forgotten again (its heap is the
            # game's), so a second check would load it twice.
            try:
                checked, warnings = self._check({"rules": rules})
            except ValueError as e:
                raise CommandError(BAD_CONFIG, str(e))
            players = checked["rules"]["players"]
        if first is not None and (isinstance(first, bool) or not isinstance(first, int)
                                  or not 0 <= first < players):
            raise CommandError("bad_request", "first must be a seat from 0 to %d, got %s."
                               % (players - 1, first))
        if checked is not None:
            self._apply(checked, source)
        if first is None:
            first = self.next_first(players)
        self.close_menu()
        self.display.finish()
        # The old game's take-backs go before the new game is built, so the two games'
        # snapshots never share the heap; if building fails, the old game is still there.
        self.game_on().game.undo_limit = 0
        session = session or Session(self.config["rules"], first)
        self.number(session)
        self._use(session)
        state = self.state()
        if answer is not None:
            answer["state"] = state
            answer["game"] = session.id
        self._save_game(state)
        self.emit("new_game", {"game": session.id, "state": state, "first": first,
                               "source": source})
        return first, warnings

    def press(self, seat, pit, source, by="human", answer=None, think_ms=None):
        """Plays pit for seat (None = the seat to move). Returns the move record.
        answer: a dict the caller sends back; it gets the state after the move, the same
        dict the event and the display have (one copy of it on the heap, not two).
        think_ms: how long the CPU searched for this move (its move event carries it)."""
        self.display.finish()
        try:
            record = self.game_on().play(seat, pit)
        except IllegalMove as e:
            raise CommandError(ILLEGAL_MOVE, _sentence(e))
        fields = {"pit": record["pit"], "by": by}
        if think_ms is not None:
            fields["think_ms"] = think_ms
        return self._after(record, "move", fields, source, answer)

    def resign(self, seat, source, answer=None):
        self.display.finish()
        try:
            record = self.game_on().resign(seat)
        except IllegalMove as e:
            raise CommandError(ILLEGAL_MOVE, _sentence(e))
        return self._after(record, "resign", {}, source, answer)

    def _after(self, record, event, fields, source, answer):
        """A play or resign went through: show it, save it, then tell the serial line."""
        self.close_menu()
        state = self.state()
        if answer is not None:
            answer["state"] = state
        self.display.play(record, state)
        self.display.tick(None)  # the first LED change goes out now, before the flash write
        self.autoplay.changed(ticks_ms())
        self._save_game(state)
        if state["over"]:
            self._finished("keep", state)
        fields["game"] = self.game_on().id
        fields["seat"] = record["seat"]
        fields["record"] = record
        fields["state"] = state
        fields["source"] = source
        self.emit(event, fields)
        self._game_over(state)
        return record

    def undo(self, source):
        """A take-back: back to the last move a person made, with the CPU's replies after it
        (app.takeback says what it takes back). Shows and saves the position it goes back
        to, then sends an `undo` event for each move taken back. Returns the state."""
        self.display.finish()
        session = self.game_on()
        was_over = session.game.over
        seats = self.config["seats"]
        states = []  # type: list
        a = self.autoplay
        try:
            from mancala_fw.app import takeback
            n = takeback.take_back(session, seats, a.demo, states)
            # a game no person plays: the CPU waits rather than play the move again
            held = not takeback.persons(seats, session.game.players, a.demo)
        finally:
            forget("mancala_fw.app.takeback")
        if not n:
            raise CommandError(NOTHING_TO_UNDO, NO_PERSON if len(session.moves) else NO_MOVE)
        self.close_menu()
        state = states[-1]
        self.display.set_state(state)
        a.changed(ticks_ms(), held)
        self._save_game(state)
        if was_over and not state["over"]:
            self._finished("drop")  # a reopened game is no finished game
        for s in states:
            self.emit("undo", {"game": session.id, "state": s, "source": source})
        return state

    def _finished(self, action, state=None):
        """Keeps the game in progress among the last finished games (app.finished), or drops
        it from them; a flash or heap that does not take it is said, as a failed save is."""
        session = self.game_on()
        try:
            from mancala_fw.app import finished
            if action == "keep":
                finished.keep(self.flash, session, state)
            else:
                finished.drop(self.flash, session.id)
        except (OSError, MemoryError) as e:
            self.log("error", "Keeping finished game %d failed (%s); it is in game.json "
                     "until the next game." % (session.id, e))
        finally:
            forget("mancala_fw.app.finished")

    def _game_over(self, state):
        if state["over"]:
            self.emit("game_over", {"game": self.game_on().id, "places": state["places"],
                                    "stores": state["stores"]})

    def set_demo(self, on, source, seed=None):
        """Demo mode on or off; seed (an int) fixes the openings of its games. On while a
        take-back holds the demo (app.takeback) goes on with it."""
        if on != self.autoplay.demo or on and self.autoplay.held:
            now = ticks_ms()
            if on:
                self.autoplay.start_demo(now if seed is None else seed, now)
                self.autoplay.prepare(None)  # demo mode: every seat is the CPU's
            else:
                self.autoplay.demo = False
                self.autoplay.changed(now)
            fields = {"on": on, "source": source}
            if on:
                fields["level"] = DEMO_LEVEL
            self.emit("demo", fields)

    def close_menu(self):
        if self.menu is not None:
            seat = self.menu.seat
            self.menu = None
            forget("mancala_fw.app.menu")
            forget("mancala_fw.app.config")  # the menu's check_rules held it
            self.display.set_state(self.state())
            self.emit("menu", {"open": False, "seat": seat})


def _configs():
    # app.config checks changes; it is needed now and then, so it is not kept loaded.
    from mancala_fw.app import config
    return config


def _sentence(e):
    s = str(e)
    if not s:
        return "That move is not allowed now."
    s = s[0].upper() + s[1:]
    return s if s.endswith(".") else s + "."
