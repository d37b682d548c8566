"""Moves nobody touches: CPU seats, and the move timer that lets the CPU play for a person.

Each main-loop pass calls tick(now). When the seat to move is a CPU seat (config seats), or a
person's move_time_limit has run out, a mancala.cpu.Search starts and then works in slices of
SLICE_MS, so the pads and LEDs stay live while it thinks; its move is played like any other
(App.press) with by = "cpu" or "timeout". Any change of the game (a move, an undo, a new game,
a menu) drops a running search and restarts the turn clock. A CPU move waits until the
animation has ended and then PAUSE_MS more, so people can follow it (no pause when
animation_ms is 0, which tests and demos use for speed).

Demo mode (the `demo` command, or holding a pit once a game is over) plays every seat at
DEMO_LEVEL and starts the next game DEMO_GAP_MS after one ends, until a touch on the board or
`demo` with on = false.

A hint (a tap on the store of the person to move) is the same sliced search at HINT_LEVEL; its
pit then pulses on the board (display.hint) and goes out as a `hint` event. In the move
timer's last 10 seconds the display counts them down on the mover's store.
"""

try:
    from time import ticks_diff
except ImportError:  # CPython
    def ticks_diff(a, b):
        return ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000

PAUSE_MS = 700
DEMO_GAP_MS = 5000  # demo mode: the end of a game stays on show this long
DEMO_LEVEL = 3
THINK_MS = 1000
SLICE_MS = 15
TIMEOUT_LEVEL = 3  # the move the timer plays for an absent person: sensible, not ruthless
HINT_LEVEL = 5
COUNTDOWN_S = 10  # the move timer shows its last seconds on the store


class Autoplay:
    def __init__(self, app):
        self.app = app
        self.search = None
        self.by = None
        self.turn_started = None
        self.demo = False
        self.hinting = False  # self.search is a hint for the person to move, not a move

    def start_hint(self):
        """Think about the person's move in slices; tick() shows the pit when done."""
        if self.search is None:
            from mancala.cpu import Search
            self.search = Search(self.app.session.game, HINT_LEVEL, THINK_MS)
            self.hinting = True

    def changed(self, now):
        """The game or the seats changed: start the turn clock again."""
        self.search = None
        self.hinting = False
        self.turn_started = now

    def seconds_left(self, now):
        """Seconds until the timer plays for the person to move, or None (no limit)."""
        app = self.app
        limit = app.config["move_time_limit"]
        g = app.session.game
        if not limit or g.over or self.turn_started is None or \
                app.config["seats"][g.turn]["kind"] != "human":
            return None
        left = limit * 1000 - ticks_diff(now, self.turn_started)
        return left // 1000 if left > 0 else 0

    def tick(self, now):
        app = self.app
        g = app.session.game
        if self.turn_started is None:
            self.turn_started = now
        if not g.over:
            left = self.seconds_left(now)
            app.display.countdown(g.turn, left + 1 if left is not None and left < COUNTDOWN_S
                                  else None)
        if g.over or app.menu is not None:
            self.search = None
            self.hinting = False
            if self.demo and g.over and app.menu is None and not app.display.busy() and \
                    ticks_diff(now, self.turn_started) >= DEMO_GAP_MS:
                app.new_game("cpu")  # the next demo game (the starter rotates as usual)
            elif app.display.busy():
                self.turn_started = now
            return
        if self.hinting:
            if self.search.step(SLICE_MS):
                pit = self.search.best
                self.search = None
                self.hinting = False
                app.display.hint(app.seating.position(g.turn, pit))
                app.emit("hint", {"seat": g.turn, "pit": pit, "source": "pad"})
            return
        if self.search is None:
            if app.display.busy():
                self.turn_started = now  # the pause counts from the end of the animation
                return
            seat = app.config["seats"][g.turn]
            if self.demo:
                seat = {"kind": "cpu", "level": DEMO_LEVEL}
            waited = ticks_diff(now, self.turn_started)
            if seat["kind"] == "cpu":
                if app.config["animation_ms"] and waited < PAUSE_MS:
                    return
                level, by = seat["level"], "cpu"
            else:
                limit = app.config["move_time_limit"]
                if not limit or waited < limit * 1000:
                    return
                level, by = TIMEOUT_LEVEL, "timeout"
            from mancala.cpu import Search  # only boards that use the CPU pay for its heap
            self.search = Search(g, level, THINK_MS)
            self.by = by
        if self.search.step(SLICE_MS):
            pit = self.search.best
            by = self.by
            self.search = None
            app.press(None, pit, "cpu", by)
