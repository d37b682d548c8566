"""What the board runs once, at power-on: start() builds the board from its profile, and
restore() loads the saved settings and game into the app (App.boot). app.loop.boot()
forgets this module once the board is built, so that on CircuitPython, which keeps every
module's bytecode on its heap, this code does not stay there through the game
(docs/performance.md section 7). Nothing made here may keep a reference to this module's
functions (a closure would keep all of them): the closures the loop keeps come from
app.commands.
"""
import gc
from binascii import hexlify

from mancala import Game
from mancala_fw import storage, forget
from mancala_fw.app import FIRMWARE_VERSION
from mancala_fw.app.flow import SETTINGS_FORMAT, _configs
from mancala_fw.app.session import Session, FORMAT as GAME_FORMAT, _limited

PROFILE_FILE = "profile.json"


def start(flash, write, stream, build=None):
    """Builds the board from flash's profile, as at power-on: returns (app, proto, pads,
    touch, wdt, held) for app.loop.loop() (held: a list of one item, the self-test's Bringup
    or None), or None when the profile cannot be loaded (then said on the line).
    write(text)/stream: the serial line (a probe may pass a sink). build: the hardware
    layer's build(profile) (default app.hardware's, MicroPython's machine)."""
    from mancala_fw.app import heap  # its low-water mark starts before anything is built
    from mancala_fw import profile as profiles
    try:
        prof = profiles.load_board(flash + PROFILE_FILE)
    except (OSError, ValueError) as e:
        # Nothing can run without a profile; say why on the serial line and stop.
        write('{"event": "log", "level": "error", "message": "The board profile %s could '
              'not be loaded: %s."}\n' % (PROFILE_FILE, str(e).replace('"', "'")))
        return None
    profiles.release_checks()  # checked once: the checks' heap goes back to the game
    prof.compact()
    from mancala_fw.app import App
    from mancala_fw.app.commands import table, bringup_maker, reporter, diag
    if build is None:
        from mancala_fw.app.hardware import build
    from mancala_fw.touch import Touch
    from mancala_fw.protocol import Protocol
    pads, display, wdt = build(prof)
    touch = Touch(prof.pad_chips, prof.pad_position)
    proto = Protocol(write, {}, None, stream)
    # The pads' IRQ line (where the profile wires it) goes to the CPU player: a touch ends
    # its search slice (app.autoplay); app.loop waits on it too.
    app = App(prof, display, proto.event, flash, getattr(pads, "irq", None))
    proto.commands = table(app)
    proto._on_error = reporter(proto)
    # Two collections, not one after each import. Before the boot's first save, because a
    # save samples diag memory's low-water mark and gc.mem_free() counts the imports' garbage
    # as used; and when all is built. Measured on the emulated Pico, quad, at boot: collecting
    # after each import as well leaves the same heap free (within 48 bytes, both ways a board
    # is made), and without the first collection the low-water mark after boot falls from
    # 138,576 to 114,800 bytes on stock MicroPython + deploy (199,520 to 195,072 on the
    # image) with nothing more kept (docs/performance.md §1).
    gc.collect()
    app.boot()
    bringup = bringup_maker(prof, pads, display, flash, app)
    # The self-test's Bringup, while the loop holds it: from boot (the calibration, the
    # gesture's window) until it is idle, and again from a diag command until it is idle
    # again (the self-test stopped, or none running for selftest.IDLE_MS); loop() then lets
    # it go, with its package (about 1.5 KB of CircuitPython's heap on duo).
    held = [bringup(True)]
    proto.commands["diag"] = diag(held, bringup, heap.report)
    gc.collect()
    heap.sample()  # diag memory's low-water mark includes the board as booted
    heap.bound_garbage()
    return app, proto, pads, touch, wdt, held


def restore(app):
    """App.boot(): loads the settings and the saved game into app; reports any problem as a
    log event. The code of App's own boot (Flow's state and saves), in a module of its own
    only so that it can be forgotten after the boot."""
    profile = app.profile
    app.board_id = hexlify(unique_id()).decode()
    problems = []
    saved, problem = storage.load(app.settings_path, SETTINGS_FORMAT)
    if problem:
        problems.append(problem)
    if saved is not None:
        app.config, bad = _configs().restore(saved.get("config"), profile)
        problems.extend(bad)
        app.games = _count(saved.get("games"))
    if problem or (saved is not None and bad):
        app._save_settings()
    from mancala_fw.app import finished
    if not app.games:  # a new flash, or lost settings: the kept games' ids are not given again
        app.games = finished.highest(app.flash)
    resumed = False
    saved, problem = storage.load(app.game_path, GAME_FORMAT)
    if problem:
        problems.append(problem)
    if saved is not None:
        try:
            session, why = saved_session(saved)
            app._use(session)
            resumed = True
            if why:
                problems.append(why)
        except ValueError as e:
            problems.append("The saved game could not be restored (%s); a new game was "
                            "started." % e)
    if resumed:
        session = app.game_on()
        if session.id > app.games:  # the settings were lost: no id is given twice
            app.games = session.id
            app._save_settings()
        elif not session.id:  # saved before games had ids
            app.number(session)
            app._save_game()
        if session.game.over and not finished.is_kept(app.flash, session.id):
            app._finished("keep", session.game.to_dict())  # the power went before it was
    else:
        session = Session(app.config["rules"], 0)
        app.number(session)
        app._use(session)
        app._save_game()
    forget("mancala_fw.app.config")  # back when a config change or the menu needs it
    forget("mancala_fw.app.finished")
    app.apply_display_settings()
    session = app.game_on()
    g = session.game
    app.emit("boot", {"firmware": FIRMWARE_VERSION, "board": profile.name,
                      "game": session.id, "resumed": resumed, "turn": g.turn,
                      "rules": g.rules.to_dict()})
    for p in problems:
        app.log("warning", p)
    app.prepare_cpu()  # a CPU seat's first move: no loading


def unique_id():
    """The chip's unique id (bytes): on a Pico the flash chip's 64-bit id, which no power cut
    or reflash changes. The app on a PC (the tests') has no chip: no bytes."""
    try:
        from machine import unique_id
        return unique_id()
    except ImportError:
        pass
    try:
        from microcontroller import cpu  # type: ignore[import-not-found]  # CircuitPython
        return cpu.uid
    except ImportError:
        return b""


def _count(n):
    """The saved game counter, or 0 if it is not one (the game files then raise it)."""
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 0


def saved_session(saved):
    """Rebuilds a saved game. Raises ValueError if the file does not describe one.
    Returns (session, problem): problem is a sentence when only the state could be
    restored (no take-backs then)."""
    state = saved.get("state")
    if not isinstance(state, dict):
        raise ValueError("the saved game has no state")
    first = saved.get("first")
    moves = saved.get("moves")
    try:
        s = Session(state.get("rules"), first)
        base = saved.get("base")
        if base is not None:  # a game recovered from its position (below)
            s.game = _limited(Game.from_dict(base))
            s.base = base
        s.replay(moves)
        s.id = _count(saved.get("game"))
        if s.game.to_dict() == state:
            return s, None
    except (ValueError, TypeError, AttributeError):
        pass
    # The move list is damaged but the state may still be a valid position.
    s = Session(Game.from_dict(state).rules.to_dict(), 0)
    s.game = _limited(Game.from_dict(state))
    s.base = state  # take-backs of later moves replay from here, not from the opening
    s.first = first if isinstance(first, int) and 0 <= first < s.game.players else 0
    s.id = _count(saved.get("game"))
    return s, "The saved game's move list was damaged; the position was kept but its " \
              "moves cannot be taken back."
