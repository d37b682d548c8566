"""The board's application: the game flow that pads and the serial line both drive.

The game flow, the actions every input takes (new game, press, resign, undo, set config,
demo, hint: change the game, show it, save it, then tell the serial line), is app.flow's
Flow. App is a Flow with the board's own inputs: the pads and the menu, and the CPU's tick.
A pad touch shows itself even before the game changes: the touched pit goes dark, or blinks
red if refused, while the engine has not yet played it (docs/display.md §6).

Pads arrive as touch events (kind, position id) and are turned into Flow's actions here, as
app.commands turns the serial requests into the same ones; app.menu holds the board-only
settings menu, imported when a menu opens and forgotten when it closes (its heap is the
game's the rest of the time). The CPU player is loaded once a seat is the CPU's (at boot, by
a config change or the menu, or demo mode: app.autoplay.prepare), so that its first move
does not wait for it. Neither the CPU player (app.autoplay) nor the menu holds the app: each
is handed what it reads, and says what it wants done (play this pit, start the next game,
show a hint; close, resign, start the chosen game, ...), which App does through Flow, so
every change takes the one way there. The main loop (app.loop) is handed the app, and asks
it whether the CPU thinks or the display animates (thinking(), animating()); main() below
builds everything from the profile and runs it.
"""

from mancala_fw.app.flow import Flow
from mancala_fw.app.autoplay import PLAY, NEXT_GAME, HINT
from mancala_fw.protocol import CommandError

FIRMWARE_VERSION = "0.1.0"


class App(Flow):  # made as a Flow is (Flow.__init__)
    # ------------------------------------------------------------------ boot
    def boot(self):
        """Loads settings and the saved game; reports any problem as a log event. The code
        is app.boot.restore(), run once at power-on and then forgotten (app.loop.boot)."""
        from mancala_fw.app.boot import restore
        restore(self)

    # ------------------------------------------------------------------ pads
    def touch(self, kind, pos, now):
        """One touch event from the touch layer."""
        if kind == "press" and self.autoplay.demo:
            self.set_demo(False, "pad")  # a touch ends the demo, and only that
            return
        if kind == "press" and self.display.busy():
            sowing = self.display.sowing()
            self.display.finish()
            if sowing:
                return  # a touch while stones still fly skips the animation, and only that
            # the last stone has landed: the touch is judged as a move (played or refused)
        menu = self.menu
        if menu is not None:
            self._menu_touch(menu, kind, pos, now)
            return
        if self.config["paused"]:
            if kind == "press":  # a paused board plays nothing and opens no menu
                self._refuse(pos, None, None, "The board is paused: the teacher resumes it.")
            return
        seating = self.seating
        session = self.session
        if seating is None or session is None:
            return  # not booted yet: no game to touch
        where = seating.seat_pit(pos)
        if where is not None and where[1] == 0:
            self._store_touch(kind, where[0], pos, now)
            return
        if kind == "long" and session.game.over:
            self.set_demo(True, "pad")  # hold any pit once a game is over: the CPU plays on
            return
        if kind != "press":
            return
        if where is None:
            self._refuse(pos, None, None, "This pit is not used in this game.")
            return
        seat, pit = where
        if self.config["seats"][seat]["kind"] == "cpu":
            self._refuse(pos, seat, pit, "Seat %d is played by the CPU." % seat)
            return
        g = session.game
        legal = g.turn == seat and g.is_legal(pit)
        # The first LED change after a touch (budget: 30 ms from the finger, on an RP2040)
        # goes out before the engine, the save and the events: a legal pit goes dark, a
        # refused one starts blinking; the engine then plays the move or words the refusal.
        if not legal:
            self.display.refuse(pos)
            self.display.tick(None)
        elif self._lift is not None:
            self._lift(pos)
        try:
            self.press(seat, pit, "pad")
        except CommandError as e:
            if legal:
                self.display.set_state(self.state())  # cannot happen: the move was legal
            self._refuse(pos, seat, pit, e.message, shown=not legal)
        except Exception:
            self.display.set_state(self.state())  # e.g. out of heap: no pit stays lifted
            raise

    def _store_touch(self, kind, seat, pos, now):
        g = self.game_on().game
        if kind == "press" and not g.over and seat == g.turn and \
                self.config["seats"][seat]["kind"] == "human":
            self.autoplay.start_hint(g)  # a tap on your store: which pit would the CPU play?
        elif kind == "double":
            try:
                self.undo("pad")
            except CommandError as e:
                self._refuse(pos, seat, 0, e.message)
        elif kind == "long":
            from mancala_fw.app.menu import Menu
            entry = self.config["seats"][seat]
            menu = Menu(self.profile, g, self.config["rules"], seat,
                        entry["level"] if entry["kind"] == "cpu" else 0, pos, now)
            self.menu = menu
            self.display.set_state(menu.view())
            self.emit("menu", menu.event())

    def _menu_touch(self, menu, kind, pos, now):
        """A touch while the menu is open: the menu says what it means (app.menu), the app
        does it."""
        from mancala_fw.app import menu as menus  # loaded while the menu is open
        seating = self.seating
        where = seating.seat_pit(pos) if seating is not None else None
        what = menu.touch(kind, pos, where, now)
        if what == menus.CLOSE:
            self.close_menu()
        elif what == menus.RESIGN:
            self.close_menu()
            try:
                self.resign(menu.seat, "pad")
            except CommandError as e:  # the game is over, or the seat is not playing
                self._refuse(pos, menu.seat, 0, e.message)
        elif what == menus.NEW_GAME:
            self.new_game("pad", menu.chosen_rules())
        elif what == menus.NO_SETTING:
            self._refuse(pos, where[0] if where else None, where[1] if where else None,
                         "This pit has no setting.")
        elif what == menus.SEAT or what == menus.CHANGED:
            if what == menus.SEAT:  # pit 5: who plays the seat, at once
                seats = list(self.config["seats"])
                seats[menu.seat] = menu.seat_entry()
                self.set_config({"seats": seats}, "pad", True)
            self.emit("menu", menu.event())
            self.display.set_state(menu.view())

    def _refuse(self, pos, seat, pit, reason, shown=False):
        if not shown:
            self.display.refuse(pos)
            self.display.tick(None)  # the red blink starts now, before the event is sent
        self.emit("refused", {"pos": pos, "seat": seat, "pit": pit, "reason": reason})

    def tick(self, now):
        """Everything that runs on time rather than on input. The display goes first: the
        frame a touch asked for (a skipped animation) goes out before the CPU's slice and
        the menu's timers; what those change shows on the next tick."""
        self.display.tick(now)
        menu = self.menu
        if menu is not None and menu.tick(now):
            self.close_menu()
            menu = None
        a = self.autoplay
        session = self.game_on()
        g = session.game
        config = self.config
        if not g.over:
            self.display.countdown(g.turn, a.countdown(now, g, config))
        what = a.tick(now, session, config, self.display.busy(), menu is not None)
        if what == PLAY:
            failure = a.failure
            a.failure = None
            self.press(None, a.pit, "cpu", a.by, think_ms=a.think_ms)
            if failure is not None:
                raise failure  # the search failed and the seat played its first legal pit
        elif what == NEXT_GAME:
            self.new_game("cpu")
        elif what == HINT:
            self._hint(g)

    def _hint(self, g):
        """The hint autoplay found: shown (the pit, or every perfect pit of a covered
        endgame), then told (the hint event, then the serial hints waiting for it)."""
        a = self.autoplay
        exact = a.exact
        seat = g.turn
        seating = self.seating
        if seating is None:
            return  # not booted: no game to hint in
        position = seating.position
        if exact is None:
            self.display.hint(position(seat, a.pit))
        else:
            self.display.hint([position(seat, p) for p in exact["best"]])
        fields = {"seat": seat, "pit": a.pit, "source": a.source}
        if exact is not None:
            for k in exact:
                fields[k] = exact[k]
        self.emit("hint", fields)
        a.answer(seat, a.pit, exact=exact)

    # ------------------------------------------------------------------ the main loop's
    def thinking(self):
        """Whether a CPU search (a move or a hint) is running: its next slice is due at once."""
        return self.autoplay.search is not None

    def animating(self):
        """Whether the display has frames to send (an animation)."""
        return self.display.busy()


def main():
    from mancala_fw.app.loop import run
    run()
