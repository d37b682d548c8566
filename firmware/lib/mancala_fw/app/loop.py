"""The main loop: one cooperative loop rather than asyncio.

Why not asyncio: everything here is short and non-blocking (a serial byte, a pad poll, a frame
due), so a plain loop with one select.poll() wait does the job with less heap, no task
objects and an order of work that is easy to reason about: serial, pads, display, watchdog.

Each pass reads what the serial line has (at most SERIAL_BURST bytes, so a flood cannot starve
the pads and LEDs), reads the pads when they are due, ticks the app (animation frames, menu:
after each pad read, and on every pass while an animation runs or the CPU thinks), feeds the
watchdog, and then waits in poll() for the next byte, the pads' IRQ line or the next due time.
Where the profile wires the pad chips' IRQ line, a chip tells the loop of a touch at once
(the wait wakes on the pin's interrupt) and the pads are polled only every PAD_IRQ_MS, for
the long press, the chips' health checks and the idle frames; without it they are polled
every PAD_MS. The line's edge also ends a running CPU search slice (app.autoplay), so a touch
while the CPU thinks is read as soon as one while it does not. An idle pass allocates nothing
(ipoll), so the heap is collected only right after work, never at an idle moment when a
touch may come. Any exception in a pass is reported as a log event and the loop goes on;
only a run of failing passes stops the watchdog feed, so a board stuck in an error loop
resets. KeyboardInterrupt (Ctrl-C) is not
caught: mpremote breaks in with it to deploy.
"""

import gc
import sys
import select

from mpcompat import ticks_ms, ticks_diff, ticks_add

# Pad poll interval without an IRQ line: up to this long from the MPR121's status bit to the
# app; a poll of three chips costs 0.63 ms of an RP2040 (emulated Pico; most of it waiting on
# the I2C bus), so 8 ms is ~8% of the CPU. With the IRQ line a touch is read when the line falls, and the poll is only the
# fallback: a long press is seen within PAD_IRQ_MS of its time, and idle frames (breathing,
# hint, timer: steps of 40 ms and more) go out at that rate.
PAD_MS = 8
PAD_IRQ_MS = 20
SERIAL_BURST = 512
FAILING_PASSES = 20  # consecutive failing passes after which the watchdog is left to bite
# A collection runs at the first idle pass after work (a move, a command, a CPU search, an
# animation), at most every GC_GAP_MS; the garbage of work that ends sooner waits for the end
# of the next (heap.bound_garbage bounds it).
GC_GAP_MS = 250


def _write(text):
    sys.stdout.write(text)


def run(flash="", build=None):
    """Boots the board (app.boot.start) and runs the loop until the serial line closes."""
    parts = boot(flash, _write, sys.stdout, build)
    if parts is not None:
        loop(*parts)


def boot(flash, write, stream, build=None):
    """app.boot.start(...), then app.boot is forgotten: the boot's code is used once, and its
    heap goes back to the game. A function of its own, so that no frame that lives on (run's)
    keeps app.boot's function in a slot of its value stack."""
    from mancala_fw import forget
    from mancala_fw.app.boot import start
    try:
        return start(flash, write, stream, build)
    finally:
        forget("mancala_fw.app.boot")


def loop(app, proto, pads, touch, wdt, held=None):
    from mancala_fw.app.heap import sample as sample_heap
    from mancala_fw import forget
    from mancala_fw.app.commands import report  # loaded by the boot
    poller = select.poll()
    stdin = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
    poller.register(sys.stdin, select.POLLIN)
    # The wait: the serial line, and the pads' IRQ line where it is wired.
    irq = getattr(pads, "irq", None)
    waiter = poller
    pad_ms = PAD_MS
    if irq is not None:
        waiter = select.poll()
        waiter.register(sys.stdin, select.POLLIN)
        waiter.register(irq, select.POLLIN)
        pad_ms = PAD_IRQ_MS
        # The boot handed the line to the CPU player too: a pad change ends a CPU search
        # slice at once, and no slice starts while one is waiting to be read (app.autoplay).
    # ipoll(): MicroPython's poll that allocates nothing, so an idle board allocates nothing
    # and never needs a collection; CPython (tests) has only poll().
    check = getattr(poller, "ipoll", None)
    wait_on = getattr(waiter, "ipoll", waiter.poll)
    wait_self_test = getattr(poller, "ipoll", poller.poll)
    byte = bytearray(1)
    feed = proto.feed
    now = ticks_ms()
    next_pad = now
    last_gc = now
    worked = True  # since the last collection: the boot's garbage is there
    failing = 0
    line_open = True
    bringup = None
    while True:
        busy = False  # this pass did work that allocates, or work is still going on
        try:
            # Serial: everything that is waiting, up to a burst.
            n = 0
            while line_open and n < SERIAL_BURST:
                flags = _ready(poller, check)
                if not flags:
                    break
                # MicroPython's sys.stdin has readinto(); the stubs give it to neither stream.
                if flags & select.POLLIN and stdin.readinto(byte) == 1:  # type: ignore[union-attr]
                    feed(byte[0])
                    n += 1
                else:
                    # The host closed the line (on the sim: end of stdin): the board's power
                    # is the process, so it stops with its host.
                    line_open = False
            if not line_open:
                return
            if held is not None:
                bringup = held[0]  # as the serial line's diag command may just have made it
            now = ticks_ms()
            if bringup is not None and bringup.active():
                # Self-test mode: it owns the pads and the LEDs until `diag stop`.
                next_pad = ticks_add(now, pad_ms)
                bringup.step(now)
                busy = True
            else:
                polled = ticks_diff(now, next_pad) >= 0 or (irq is not None and irq.due(now))
                if polled:
                    next_pad = ticks_add(now, pad_ms)
                    masks = pads.poll()
                    if bringup is None or not bringup.gesture(masks, now):
                        for kind, pos in touch.update(masks, now):
                            app.touch(kind, pos, now)
                            busy = True
                    if bringup is not None and bringup.idle(now):
                        # Nothing of the self-test runs: its heap goes back to the game
                        # until the next diag command.
                        bringup.release()
                        held[0] = bringup = None
                        forget("mancala_fw.selftest")
                        busy = True  # collect the garbage
                # Idle frames (breathing, hint, timer) go out only right after a pad poll:
                # with no IRQ line a chain is then off the wire (<= 3.9 ms on quad) before the
                # next poll; with it, the touch's first frame cuts an idle frame short
                # (docs/display.md §6).
                if polled or app.animating() or app.thinking():
                    app.tick(now)
                busy = busy or app.animating() or app.thinking()
            failing = 0
        except Exception as e:  # keep the board alive; the watchdog decides if it is stuck
            failing += 1
            busy = True
            report(proto, e)
        if wdt is not None and failing < FAILING_PASSES:
            wdt.feed()
        if n:
            worked = True
        elif busy:
            worked = True
        else:
            now = ticks_ms()
            if worked and ticks_diff(now, last_gc) >= GC_GAP_MS:
                # Work has just ended (a move, a command, a search, an animation): collect
                # its garbage now, and not at some idle moment later, when a touch may come
                # (a read of the heap and a collection: about 16 ms on an RP2040). An idle
                # pass allocates nothing, so an idle board has nothing to collect.
                sample_heap()  # diag memory: free memory is at its lowest before a collection
                gc.collect()
                last_gc = now
                worked = False
        if n == 0:
            wait = ticks_diff(next_pad, ticks_ms())
            if app.thinking() and not (bringup is not None and bringup.active()):
                wait = 0  # the CPU is thinking: its next slice is due at once
            elif app.animating():
                wait = 0 if wait < 0 else min(wait, 5)
            if wait > 0:
                # The self-test reads the chips its own way, so their line may stay low.
                (wait_self_test if bringup is not None and bringup.active() else wait_on)(wait)


def _ready(poller, ipoll):
    """The serial line's poll flags now (0: nothing waiting); through ipoll (MicroPython's
    poll that allocates nothing) where there is one."""
    if ipoll is None:
        ready = poller.poll(0)
        return ready[0][1] if ready else 0
    for entry in ipoll(0):
        return entry[1]
    return 0
