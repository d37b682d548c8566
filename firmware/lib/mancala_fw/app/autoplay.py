"""Moves nobody touches: CPU seats, and the move timer that lets the CPU play for a person.

Each main-loop pass, App.tick calls tick(), which returns what it wants done, as one of the
constants below: NOTHING; PLAY (the pit in self.pit, for self.by, "cpu" or "timeout", having
thought self.think_ms); NEXT_GAME (demo mode's next game); HINT (show the pit in self.pit, or
the endgame's perfect pits in self.exact). App does it, as it does a person's action: show,
save, then tell (App). Autoplay holds no reference to the app: tick() is handed the session,
the config and what it needs of the display and the menu, and emit and log are the two
functions it calls (the serial hints' answers, and a note).

When the seat to move is a CPU seat (config seats), or a person's move_time_limit has run
out, a mancala.cpu.Search starts and then works in slices of SLICE_MS, so the pads and LEDs
stay live while it thinks. Where the pads' IRQ line is wired (handed over at boot), a pad
change ends the running slice at the search's next look at the clock (pause(), called in the
line's interrupt: the search is native code, which a scheduled call would not interrupt), and
no slice starts while a change is waiting to be read, so a touch while the CPU thinks is read
as soon as one while it does not. Any change of the game (a move, an undo, a new game, a
menu) drops a running search and restarts the turn clock (changed()). A CPU move waits until
the animation has ended and then PAUSE_MS more, so people can follow it (no pause when
animation_ms is 0, which tests and demos use for speed).

A take-back (app.takeback: the double tap on a store, or the serial `undo`) goes back to the
last move a person made, with the CPU's moves after it, so the CPU does not play its reply
again: the person is to move. In a game no person plays (every seat the CPU's, or demo mode)
it takes back the last move and the CPU then waits (held, set by changed()) until something
else changes: a move, a new game, the seats, demo mode switched on or off.

Demo mode (the `demo` command, or holding a pit once a game is over) plays every seat at
DEMO_LEVEL and starts the next game DEMO_GAP_MS after one ends, until a touch on the board or
`demo` with on = false. Level 3 is a fixed-depth search and would play the same game every
time (rotated by the starter), so the first DEMO_OPENING moves of each demo game come from its
seed: the first move steps through the legal pits from one game to the next, the second is
drawn by mancala.cpu.Rng. The seed is the `demo` command's, or the clock's when none is given.

A hint (a tap on the store of the person to move, or the serial `hint`) is the same sliced
search at HINT_LEVEL; its pit then pulses on the board (display.hint) and goes out as a `hint`
event, and then as the answer to every serial `hint` waiting for it (their ids are in asked).
A serial hint asked while a CPU seat or the move timer is already thinking is answered with
the move that search then plays. A search dropped by a change answers those requests with
hint_dropped, so every request still gets exactly one answer (docs/protocol.md §4). In the
move timer's last 10 seconds the display counts them down on the mover's store (countdown()).

A level-5 seat and the hint play a Kalah endgame the endgame table covers from the table
(app.endgame finds it, once per set of rules; docs/cpu.md section 11), with no search: the
hint then pulses every pit that keeps the exact value, and its event and answers carry
exact, best and outcome.

STRONGEST_LEVEL is the strongest level this edition plays, the one constant that the
config's check (app.config), the setup menu (app.menu), the hint and the search cap below all
read: 5 (CPU_LEVELS, all of mancala.cpu's levels) on MicroPython, 4 on CircuitPython, which
keeps every module's bytecode on its heap, so that level 5's transposition table (8 KB more
than levels 1-4) would leave the game the least room (docs/performance.md section 7). This
module does not import the CPU, so app.config can read the constant without loading it.
"""
import sys

from mpcompat import ticks_ms, ticks_diff

from mancala_fw import forget
from mancala_fw.protocol import reply, error, HINT_DROPPED, INTERNAL
from mancala_fw.app.heap import sample as sample_heap

PAUSE_MS = 700
DEMO_GAP_MS = 5000  # demo mode: the end of a game stays on show this long
DEMO_LEVEL = 3
DEMO_SEAT = {"kind": "cpu", "level": DEMO_LEVEL}  # what plays every seat in demo mode
DEMO_OPENING = 2  # moves of each demo game chosen by its seed, so no two games in a row match
THINK_MS = 1000
# A slice plus the rest of a loop pass (a pad poll and the touch layer, ~1 ms on an RP2040,
# bench/board.py) fits one pad-poll interval (app.loop.PAD_MS = 8), so a touch while the CPU
# thinks is seen as soon as when it does not; the search keeps ~7/8 of the CPU.
SLICE_MS = 7
TIMEOUT_LEVEL = 3  # the move the timer plays for an absent person: sensible, not ruthless
CPU_LEVELS = 5  # mancala.cpu plays levels 1..CPU_LEVELS
STRONGEST_LEVEL = 4 if sys.implementation.name == "circuitpython" else CPU_LEVELS
HINT_LEVEL = STRONGEST_LEVEL  # a hint is the strongest suggestion the board can make
MAX_STONES = 15  # no endgame table covers more stones in play (mancala.endgame)
COUNTDOWN_S = 10  # the move timer shows its last seconds on the store
DROPPED = "The game changed before the hint was ready; send hint again."
FAILED = "The board hit an internal error while thinking; send hint again."


# What tick() wants done (App.tick does it): constants, so that a pass allocates nothing.
NOTHING = 0
PLAY = 1  # play self.pit for the seat to move, by self.by; think_ms: self.think_ms
NEXT_GAME = 2  # demo mode: start the next game
HINT = 3  # show the hint: self.pit, self.exact (a covered endgame's fields, or None)


class Autoplay:
    def __init__(self, emit, log, flash="", irq=None):
        """emit(name, fields): sends an event (name None: an answer); log(level, message);
        flash: the directory prefix of the endgame tables; irq: the pads' IRQ line
        (drivers.irqline.IrqLine) where the profile wires it, or None."""
        self.emit = emit
        self.log = log
        self.flash = flash
        self.search = None  # the mancala.cpu.Search running, or None
        self.memory = None  # the CPU's mancala.cpu.Memory, made at its first search
        self.by = None  # type: str | None  # "cpu" or "timeout": who the search plays for
        self.since = ticks_ms()  # ticks_ms() when the search for the CPU's move started
        self.turn_started = None
        self.demo = False
        self.demo_seed = 0
        self.demo_games = 0  # games demo mode has started since it was switched on
        self.held = False  # a take-back in a game no person plays: the CPU waits
        self.hinting = None  # "pad" or "serial" while self.search is a hint, not a move
        self.asked = []  # ids of the serial hint requests waiting for self.search
        self.sampled = False  # diag memory's mark was read after this search's first slice
        self.endgame = None  # the mancala.endgame.Table of endgame_rules' games, or None
        self.endgame_rules = None
        # What tick() returned PLAY or HINT with (App reads them):
        self.pit = 0
        self.think_ms = None  # type: int | None
        self.exact = None  # type: dict | None
        self.source = None  # type: str | None  # the hint's: "pad" or "serial"
        self.failure = None  # type: Exception | None  # PLAY as a fallback: raise it after
        self.irq = irq
        if irq is not None:
            irq.on_edge = self.pause  # runs in the interrupt: pause() allocates nothing

    def start_hint(self, game, source="pad", rid=None):
        """Think about game's move in slices; tick() returns HINT when done (the serial
        request rid, source "serial", is answered then: answer())."""
        if self.search is None:
            self.search = self._search(game, HINT_LEVEL, hint=True)
            self.hinting = source
        if source == "serial":  # only now: a Search that failed was answered `internal`
            self.asked.append(rid)

    def load_cpu(self):
        """Imports the CPU (mancala.cpu and the engine modules it searches with), once. Only
        boards that use the CPU load it and pay its heap (about 15 KB of bytecode on
        CircuitPython, which compiles it from source here, taking most of a second). The
        app calls it as soon as a seat is the CPU's (prepare()), so no move pays for it; a
        hint or the move timer on a board without CPU seats loads it before its budget
        starts. The Memory (the transposition table and per-ply arrays, made at the first
        search) is kept for every later search."""
        if self.memory is None:
            from mancala.cpu import Memory
            self.memory = Memory()

    def prepare(self, seats, players=0):
        """The seats or the rules changed (boot, config, menu): loads the CPU now if one of
        the first players seats (the most players of this game and the next; a board's
        seats beyond them are kept, unused) is the CPU's; seats None: demo mode, every seat
        is. Out of heap here is said once; the first search tries again."""
        if seats is not None:
            for i in range(players):
                if seats[i]["kind"] == "cpu":
                    break
            else:
                return
        try:
            self.load_cpu()
        except MemoryError:
            self.log("error", "The CPU player could not be loaded (out of memory); the "
                              "board tries again at its first move.")

    def _search(self, game, level, started=None, hint=False):
        # The budget counts from started (default: now, after the CPU is loaded). Level 5
        # and the hint play a position the endgame table covers from the table.
        self.load_cpu()
        from mancala.cpu import Search
        self.sampled = False
        table = self._endgame(game) if hint or level >= CPU_LEVELS else None
        return Search(game, min(level, STRONGEST_LEVEL), THINK_MS, memory=self.memory,
                      started=started, endgame=table)

    def _endgame(self, game):
        """The endgame table for game's rules (mancala_fw.app.endgame), looked for once per
        set of rules, when a Kalah game first has few enough stones in play for a table;
        None when there is none. A table that is there but unusable is said once, quietly."""
        if not game.kalah or game.pits != 6 or game.stones(0) + game.stones(1) > MAX_STONES:
            return None
        rules = game.rules
        if rules != self.endgame_rules:
            if self.endgame is not None:
                self.endgame.close()
            self.endgame = None
            self.endgame_rules = rules
            try:
                from mancala_fw.app.endgame import find
                self.endgame, note = find(rules, self.flash)
            except Exception as e:  # no memory to load it, say: the board plays as without
                self.endgame, note = None, "The endgame table could not be loaded (%s: %s)." % (
                    type(e).__name__, e)
            forget("mancala_fw.app.endgame")  # the table is mancala.endgame's, which stays
            if self.endgame is None:
                forget("mancala.endgame")  # ... only with a table (CircuitPython has none)
            if note:
                self.log("info", note)
        return self.endgame

    def answer(self, seat, pit, code=HINT_DROPPED, exact=None):
        """Answers the serial hints waiting: with seat and pit (and the fields of exact, a
        covered endgame's), or (pit None) with code."""
        asked = self.asked
        if not asked:
            return
        self.asked = []
        why = DROPPED if code == HINT_DROPPED else FAILED
        fields = {"seat": seat, "pit": pit}
        if exact:
            for k in exact:
                fields[k] = exact[k]
        for rid in asked:
            self.emit(None, error(rid, code, why) if pit is None else reply(rid, fields))

    def pause(self):
        """A pad changed: the running search slice returns at its next look at the clock
        (within 4 nodes, about 2 ms). The IRQ line's on_edge: it runs inside the interrupt,
        so it allocates nothing (Search.pause() only sets a flag)."""
        s = self.search
        if s is not None:
            s.pause()

    def _step(self, search):
        irq = self.irq
        if irq is not None and irq.pending:
            return False  # a pad change is waiting: the loop reads it before the next slice
        try:
            done = search.step(SLICE_MS)
            if not self.sampled:
                # diag memory's low-water mark: the search's tables are made by its first
                # slice, and a slice allocates nothing after that (heap.py); the move it
                # plays is saved and read then, a hint's garbage before its collection
                self.sampled = True
                sample_heap()
            return done
        except Exception:
            self.search = None  # not retried at every pass; the main loop reports the error
            self.hinting = None
            self.answer(None, None, INTERNAL)
            raise

    def _fall_back(self, g, e):
        # A search that cannot run (out of heap) would fail again at every pass, and after 20
        # failing passes the watchdog would reset the board into the same position: the seat
        # plays its first legal pit instead; App raises e after it, for the main loop to
        # report.
        self.search = None
        self.failure = e
        return self._play(g.legal_moves()[0], self._thought())

    def _play(self, pit, think_ms):
        self.pit = pit
        self.think_ms = think_ms
        return PLAY

    def _thought(self):
        # The move event's think_ms: the board clock from the start of the search (its
        # tables' set-up included) to the move.
        return ticks_diff(ticks_ms(), self.since)

    def start_demo(self, seed, now):
        self.demo = True
        self.demo_seed = seed & 0x3FFFFFFF
        self.demo_games = 0
        self.changed(now)

    def _opening(self, g, moves):
        """One of the first DEMO_OPENING moves of a demo game (moves: how many it has had),
        from the seed: the first move differs from the last game's, the second is drawn."""
        legal = g.legal_moves()
        seed = self.demo_seed + self.demo_games
        if not moves:
            return legal[seed % len(legal)]
        from mancala.cpu import Rng
        return legal[Rng(seed).below(len(legal))]

    def changed(self, now, held=False):
        """The game or the seats changed: start the turn clock again. held: the change was a
        take-back in a game no person plays, and the CPU waits (app.takeback)."""
        self.search = None
        self.hinting = None
        self.held = held
        self.answer(None, None)
        self.turn_started = now

    def countdown(self, now, g, config):
        """What the mover's store shows of the move timer: its last seconds, or None."""
        if config["paused"]:
            return None
        left = self.seconds_left(now, g, config)
        return left + 1 if left is not None and left < COUNTDOWN_S else None

    def seconds_left(self, now, g, config):
        """Seconds until the timer plays for the person to move in game g, or None (no
        limit)."""
        limit = config["move_time_limit"]
        if not limit or g.over or self.turn_started is None or \
                config["seats"][g.turn]["kind"] != "human":
            return None
        left = limit * 1000 - ticks_diff(now, self.turn_started)
        return left // 1000 if left > 0 else 0

    def tick(self, now, session, config, busy, menu_open):
        """What the CPU wants done now (NOTHING, PLAY, NEXT_GAME or HINT); busy: the display
        animates; menu_open: the settings menu is open. It steps a running search by one
        slice; App does the rest."""
        g = session.game
        if self.turn_started is None:
            self.turn_started = now
        if config["paused"]:  # nothing plays by itself, and the move timer waits
            if self.search is not None or self.hinting:
                self.changed(now)
            self.turn_started = now
            return NOTHING
        if g.over or menu_open:
            self.search = None
            self.hinting = None
            self.answer(None, None)
            if self.demo and g.over and not menu_open and not busy and \
                    ticks_diff(now, self.turn_started) >= DEMO_GAP_MS:
                self.demo_games += 1
                return NEXT_GAME  # the next demo game (the starter rotates as usual)
            if busy:
                self.turn_started = now
            return NOTHING
        if self.hinting:
            s = self.search
            if s is not None and self._step(s):
                self.pit = s.best
                self.source = self.hinting
                self.search = None
                self.hinting = None
                self.exact = None
                if s.exact is not None:
                    # A covered endgame: every pit that keeps the exact value pulses, and
                    # the hint says the value and how the game ends with best play.
                    from mancala.endgame import outcome
                    self.exact = {"exact": s.exact, "best": s.exact_pits,
                                  "outcome": outcome(g.turn, s.exact)}
                return HINT
            return NOTHING
        if self.search is None:
            if busy:
                self.turn_started = now  # the pause counts from the end of the animation
                return NOTHING
            if self.held:
                return NOTHING  # a take-back in a game no person plays: the CPU waits
            seat = DEMO_SEAT if self.demo else config["seats"][g.turn]
            waited = ticks_diff(now, self.turn_started)
            if seat["kind"] == "cpu":
                if config["animation_ms"] and waited < PAUSE_MS:
                    return NOTHING
                level, by = seat["level"], "cpu"
                if self.demo and len(session.moves) < DEMO_OPENING:
                    self.by = by
                    return self._play(self._opening(g, len(session.moves)), None)
            else:
                limit = config["move_time_limit"]
                if not limit or waited < limit * 1000:
                    return NOTHING
                level, by = TIMEOUT_LEVEL, "timeout"
            self.by = by
            self.since = ticks_ms()  # for the fallback's think_ms if loading fails
            try:
                self.load_cpu()  # before the clock starts: a move's budget is its search's
                self.since = ticks_ms()
                self.search = self._search(g, level, self.since)
            except Exception as e:
                return self._fall_back(g, e)
        s = self.search
        if s is None:
            return NOTHING
        try:
            done = self._step(s)
        except Exception as e:
            return self._fall_back(g, e)
        if done:
            self.search = None
            self.answer(g.turn, s.best)  # a hint asked meanwhile: the move the CPU now plays
            return self._play(s.best, self._thought())
        return NOTHING
