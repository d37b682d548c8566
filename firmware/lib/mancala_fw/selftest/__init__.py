"""Board bring-up: the self-test (I2C scan, LED walk, pad readout, touch calibration), the
`diag` command, and the touch calibration saved on the flash.

The app makes one Bringup at boot; it is light, and builds the self-test (selftest.core) only
when the self-test is first used, so a board that is only playing keeps that heap:

    bringup = Bringup(profile, pads, leds, flash, log, on_stop)  # applies calibration.json
    commands["diag"] = bringup.command                           # the protocol's diag
    main loop:  if bringup.active(): bringup.step(now)           # instead of touch + display
                else: masks = pads.poll(); bringup.gesture(masks, now); ... as before

Its modules are forgotten again once they are done (calibration.py after boot, the rest when
the self-test stops), so their heap comes back for the game; using them again re-imports them.
Once idle(now) (the gesture's window has closed, and no self-test is built, or the one built
does not run and no `diag` command has come for IDLE_MS: a scan, a readout or a look at the
thresholds keeps nothing), the app release()s the Bringup and lets go of this package too
(app.loop), and the diag command (app.commands.diag) makes a Bringup(..., boot=False) for
the next `diag`: it neither applies the calibration again (the chips hold it) nor opens the
window. IDLE_MS keeps the self-test
built while a host polls the pads (`mancala-board bringup pads`), so it is not compiled
again for each poll on CircuitPython.

The gesture: every store pad held at once within BOOT_WINDOW_MS of power-up starts the
self-test with the walk stepping by itself. (Not "held while powering up": the MPR121 learns
its baseline from the first samples, so a finger already there at power-up is never seen.)
docs/hardware.md describes it all.
"""
from mancala_fw import forget
from mpcompat import ticks_ms, ticks_diff

CALIBRATION_FILE = "calibration.json"
BOOT_WINDOW_MS = 10000
IDLE_MS = 10000  # a built self-test that does not run is let go this long after the last diag
PARTS = ("diag", "core", "walk", "calibration")  # selftest.* modules built on use


def _forget(names):
    """Forgets selftest.<name> modules (mancala_fw.forget)."""
    for name in names:
        forget(__name__ + "." + name)


def wants_selftest(profile, masks):
    """True when every store pad is touched in masks (list per chip, as MPR121Group.poll())."""
    for side in range(profile.sides):
        addr, e = profile.pad[profile.store_id(side)]
        m = masks[profile.pad_chips.index(addr)]
        if m is None or not m & (1 << e):
            return False
    return True


class Bringup:
    """log(sentence): how the app reports a problem (an unusable calibration file);
    on_stop(): called when the self-test ends, so the app repaints its display.
    leds may be None (no LED output): the walk then refuses with a sentence."""

    def __init__(self, profile, pads, leds, flash="", log=None, on_stop=None, now=None,
                 boot=True):
        self.profile = profile
        self.pads = pads
        self.leds = leds
        self.path = flash + CALIBRATION_FILE
        self.on_stop = on_stop
        self.st = None
        self.booted = ticks_ms() if now is None else now
        self.used = self.booted  # the last diag command
        self.window = boot
        if not boot:
            return
        from mancala_fw.selftest.calibration import apply_calibration, load_calibration

        data, problem = load_calibration(self.path)
        if problem and log is not None:
            log(problem)
        apply_calibration(pads, data)
        _forget(("calibration",))

    def selftest(self):
        if self.st is None:
            from mancala_fw.selftest.core import SelfTest

            self.st = SelfTest(self.profile, self.pads, self.leds,
                               calibration_path=self.path, on_stop=self._stopped)
        return self.st

    def _stopped(self):
        # The self-test is over: let it go, and the app repaint the game.
        self.release()
        if self.on_stop is not None:
            self.on_stop()

    def release(self):
        """Lets go of the self-test and its modules (their heap goes back to the game)."""
        self.st = None
        _forget(PARTS)

    def command(self, req):
        """The protocol handler of `diag` (request dict -> answer fields)."""
        from mancala_fw.selftest.diag import handle_diag

        try:
            return handle_diag(req, self.selftest())
        finally:
            self.used = ticks_ms()  # after the answer: a first command compiles the self-test

    def active(self):
        return self.st is not None and self.st.active

    def idle(self, now=None):
        """True once nothing is lost if the app release()s this Bringup and makes a new one
        (boot=False) later: the gesture's window has closed, and no self-test is built, or
        the one built does not run (the walk and a calibration run until `diag stop`) and no
        diag command has come for IDLE_MS."""
        if self.window:
            return False
        st = self.st
        if st is None:
            return True
        if now is None:
            now = ticks_ms()
        return not st.active and ticks_diff(now, self.used) > IDLE_MS

    def step(self, now):
        st = self.st
        return st is not None and st.step(now)

    def gesture(self, masks, now):
        """Call with every pads.poll() while not active; True when it started the self-test."""
        if not self.window:
            return False
        if ticks_diff(now, self.booted) > BOOT_WINDOW_MS:
            self.window = False
            return False
        if not wants_selftest(self.profile, masks):
            return False
        self.window = False
        self.selftest().start(now)
        return True
