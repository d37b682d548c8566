"""Board firmware benchmarks, as RP2040 estimates (the budgets: docs/architecture.md §10).

    .venv/bin/python bench/board.py [--runs N] [--quick]

1. Touch to first LED change on the largest profile (quad), for a move, a refused pit and a
   touch that skips a running sowing animation. Under the MicroPython unix port, in one
   process with the sim fakes, a finger goes onto an MPR121 model. The CPU time is measured
   from the start of the pad poll that sees it, through the MPR121 driver, the touch layer,
   the app and the display, to the start of the first LED transfer (the DMA of a chain in
   drivers/ws2812.py). Time spent inside the fakes is not the firmware's (on a Pico the I2C
   bus and the PIO/DMA are hardware): the I2C register model and the fake DMA are wrapped
   and their time taken off; the I2C transfers are counted in bits and timed at the
   profile's bus frequency instead. Each chip's once-a-second check is made due in the
   measured poll (the worst case; the driver does one of them per poll). Then the fixed
   delays are added: the MPR121's response (~5 ms as the driver configures it), up to one
   pad-poll interval (PAD_MS in app/loop.py, 8 ms) and the LED wire time of the chain (30 us
   per LED plus the latch: a WS2812 shows what it was sent only after the reset gap). While
   the CPU thinks, the pads wait for its slice (SLICE_MS) instead of PAD_MS: printed too.
2. Animation frame time on quad: the time of one display tick that repaints while a sowing
   animation runs, without the time spent inside the fake LED output (on the Pico the PIO and
   DMA send the frame while the CPU goes on).
Times are scaled to the RP2040 as docs/architecture.md §10 says: bench/calibration.py's
add_test, the published benchmark function, takes 7984 ms on a Pico at 125 MHz; it is timed
here (a tenth of it just before and just after each touch run, which is scaled by that; six
whole runs for the frame times) and every time is multiplied by 7984 / that. Medians over --runs runs (11;
the host is shared and noisy, so the middle half of the touch runs is printed too).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "firmware", "lib"))

from boardsim import MICROPYTHON, PROFILES, micropypath  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calibration  # noqa: E402

PICO_LOOP_MS = calibration.PICO_MS
from mancala_fw.app.loop import PAD_MS as POLL_MS  # noqa: E402  the main loop's pad poll interval
from mancala_fw.app.autoplay import SLICE_MS  # noqa: E402  a CPU search's slice between two passes


def mpr121_response_ms():
    """The MPR121's response to a finger as drivers/mpr121.py configures the chip: SFI
    samples, then the touch debounce samples, each ESI ms apart (the sim's register model
    times a touch the same way)."""
    from drivers import mpr121
    debounce, _, config2 = mpr121._SAMPLING  # registers 0x5B, 0x5C, 0x5D as the driver writes them
    esi = 1 << (config2 & 7)
    return ((4, 6, 10, 18)[(config2 >> 3) & 3] + (debounce & 7)) * esi


MPR121_MS = mpr121_response_ms()
LED_NS_PER_BIT = 1250   # WS2812 at 800 kHz
LATCH_US = 280          # the reset gap after which a WS2812 shows what it was sent
TOUCH_BUDGET_MS = 30
FRAME_BUDGET_MS = 1000.0 / 30

# Runs under MicroPython in a flash dir holding quad's profile.json; prints one JSON line.
PROBE = r"""
import gc, json, time
from time import ticks_us, ticks_diff, ticks_ms, ticks_add

# calibrate(passes) is bench/calibration.py's (the published add_test), written before this
# script: ms for 10^6 passes (passes=100000 runs a tenth of them and multiplies by 10).

from mancala_fw import profile as profiles
from mancala_fw.app import App
from mancala_fw.app.commands import table
from mancala_fw.app.hardware import build
from mancala_fw.touch import Touch
from mancala_fw.protocol import Protocol
import mpr121_model

prof = profiles.load("profile.json")
pads, display, wdt = build(prof)

# The sim fakes are Python; on a Pico the I2C bus and the PIO/DMA are hardware. Time spent
# inside them is kept out of the firmware's figure (fake_us), and the I2C transfers are
# counted in bits instead (bus_bits), to be timed at the profile's bus frequency.
fake_us = [0]
bus_bits = [0]
dma_start = [None, 0, 0]  # ticks_us when the first LED transfer started, fake_us then, bytes


class TimedBus:
    def __init__(self, bus):
        self.bus = bus

    def readfrom_mem_into(self, addr, reg, buf):
        t = ticks_us()
        bus_bits[0] += 30 + 9 * len(buf)  # S, address+W, register, Sr, address+R, data, P
        self.bus.readfrom_mem_into(addr, reg, buf)
        fake_us[0] += ticks_diff(ticks_us(), t)

    def writeto_mem(self, addr, reg, buf):
        t = ticks_us()
        bus_bits[0] += 20 + 9 * len(buf)  # S, address+W, register, data, P
        self.bus.writeto_mem(addr, reg, buf)
        fake_us[0] += ticks_diff(ticks_us(), t)


class TimedDMA:
    def __init__(self, dma):
        self.dma = dma

    def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
        t = ticks_us()
        if trigger and dma_start[0] is None:
            dma_start[0] = t
            dma_start[1] = fake_us[0]
            dma_start[2] = count
        self.dma.config(read=read, write=write, count=count, ctrl=ctrl, trigger=trigger)
        fake_us[0] += ticks_diff(ticks_us(), t)

    def active(self, value=None):
        t = ticks_us()
        r = self.dma.active(value)
        fake_us[0] += ticks_diff(ticks_us(), t)
        return r

    def close(self):
        self.dma.close()


pads.i2c = TimedBus(pads.i2c)
for chip in pads.chips:
    if chip is not None:
        chip.i2c = pads.i2c
leds = display.leds
for i in range(len(leds._dma)):
    leds._dma[i] = TimedDMA(leds._dma[i])

touch = Touch(prof.pad_chips, prof.pad_position)
proto = Protocol(lambda s: None, {}, None)
app = App(prof, display, proto.event, "")
proto.commands = table(app)
app.boot()
app.set_config({"animation_ms": 150, "brightness": 100}, "bench")

def one_touch(seat, pit, skip=False):
    # seat 0's pit 6 is a move; seat 1's pit 2 is refused (seat 0 is to move); with skip,
    # seat 0's move is being sown and the touch only skips to its end.
    app.new_game("bench", {"variant": "basic", "players": 4, "pits": 6}, 0)
    addr, electrode = prof.pad[app.seating.position(seat, pit)]
    for _ in range(5):
        display.tick(None)
        touch.update(pads.poll(), ticks_ms())
    if skip:
        app.press(0, 6, "bench")
        display.tick(None)
    mpr121_model.touch(addr, electrode, True)
    cal_before = calibrate(100000)
    gc.collect()
    gc.disable()  # the main loop collects at idle moments; keep the fakes' garbage out of it
    # Poll as the main loop does; time only the pass in which the touch is first seen, from
    # the start of its pad poll to the start of the first LED transfer (the DMA of a chain).
    give_up = ticks_add(ticks_ms(), 2000)
    out = None
    while ticks_diff(give_up, ticks_ms()) > 0:
        # Worst case: every chip's once-a-second check (a read of ECR) falls in this poll.
        for i in range(len(pads.chips)):
            pads._due[i] = ticks_ms()
        fake_us[0] = 0
        bus_bits[0] = 0
        dma_start[0] = None
        t0 = ticks_us()
        masks = pads.poll()
        t1 = ticks_us()
        poll_fake = fake_us[0]
        poll_bits = bus_bits[0]
        events = touch.update(masks, ticks_ms())
        t2 = ticks_us()
        if events:
            for kind, pos in events:
                app.touch(kind, pos, ticks_ms())
                if dma_start[0] is not None:
                    break
            if dma_start[0] is None:
                app.tick(ticks_ms())  # the rest of the main loop's pass
            if dma_start[0] is not None:
                t3 = dma_start[0]
                out = [ticks_diff(t1, t0) - poll_fake, ticks_diff(t2, t1),
                       ticks_diff(t3, t2) - (dma_start[1] - poll_fake), poll_bits,
                       dma_start[2]]
            break
        if display.busy():
            app.tick(ticks_ms())  # the main loop ticks on every pass while it animates
    gc.enable()
    mpr121_model.touch(addr, electrode, False)
    assert out is not None, "the touch changed no LED"
    # This run's own calibration, just before and after it: the host's load changes from
    # second to second, and a run is scaled by the speed the machine had while it ran.
    out.append(cal_before)
    out.append(calibrate(100000))
    give_up = ticks_add(ticks_ms(), 2000)  # wait for the release, so the next run starts clean
    while ticks_diff(give_up, ticks_ms()) > 0 and touch.held():
        touch.update(pads.poll(), ticks_ms())
        display.tick(None)
    calm = ticks_add(ticks_ms(), 500)  # past a double tap's window and a refusal's blink
    while ticks_diff(calm, ticks_ms()) > 0:
        touch.update(pads.poll(), ticks_ms())
        display.tick(None)
    return out

def frame_times():
    app.new_game("bench", {"variant": "basic", "players": 4, "pits": 6}, 0)
    app.press(None, 6, "bench")
    out = []
    while display.busy():
        # The main loop ticks at most every 5 ms while animating, so a frame rarely finds
        # its chain still on the wire; here the ticks come back to back, so wait for the
        # wire first (untimed): what is timed is the frame's CPU work.
        for i in range(len(leds)):
            while leds.busy(i):
                pass
        fake_us[0] = 0
        t0 = ticks_us()
        changed = display.tick(None)
        dt = (ticks_diff(ticks_us(), t0) - fake_us[0]) / 1000
        if changed:
            out.append(dt)
        if len(out) >= 40:
            break
    return out

cal = [calibrate() for _ in range(3)]
touches = [one_touch(0, 6) for _ in range(RUNS)]
refusals = [one_touch(1, 2) for _ in range(RUNS)]
skips = [one_touch(2, 3, True) for _ in range(RUNS)]
frames = []
for _ in range(RUNS):
    # tick() allocates nothing, so on the board no collection falls inside a frame; here the
    # fakes allocate, and a collection of this 4 MB heap leaves the host's caches cold for
    # the frames after it (3 of 66 frames at 50 ms): collect before, not during.
    gc.collect()
    gc.disable()
    frames.extend(frame_times())
    gc.enable()

def idle_polls():
    # What the pads cost every PAD_MS while nobody touches: one poll, no chip check due.
    out = []
    for _ in range(20):
        for i in range(len(pads.chips)):
            pads._due[i] = ticks_add(ticks_ms(), 60000)
        fake_us[0] = 0
        bus_bits[0] = 0
        t0 = ticks_us()
        touch.update(pads.poll(), ticks_ms())
        out.append([ticks_diff(ticks_us(), t0) - fake_us[0], bus_bits[0]])
    return out

cal_idle = calibrate(100000)
idle = idle_polls()
cal_idle = (cal_idle + calibrate(100000)) / 2
cal += [calibrate() for _ in range(3)]
cal.sort()
print(json.dumps({"calibration_ms": (cal[2] + cal[3]) / 2, "touch_us": touches,
                  "refusal_us": refusals, "skip_us": skips, "idle": idle,
                  "idle_cal": cal_idle,
                  "frame_ms": frames, "i2c_hz": prof.i2c_freq}))
"""


def probe(runs):
    flash = tempfile.mkdtemp(prefix="mancala-bench-")
    try:
        shutil.copy(os.path.join(PROFILES, "quad.json"), os.path.join(flash, "profile.json"))
        with open(os.path.join(flash, "probe.py"), "w") as f:
            f.write(calibration.source() + "RUNS = %d\n" % runs + PROBE)
        env = dict(os.environ, MICROPYPATH=micropypath())
        out = subprocess.run([MICROPYTHON, "-X", "heapsize=4M", "probe.py"], cwd=flash, env=env,
                             capture_output=True, text=True, timeout=600)
        for line in out.stdout.splitlines():
            if line.startswith('{"'):
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if "calibration_ms" in msg:
                    return msg
        raise SystemExit("the probe failed:\n" + out.stdout[-2000:] + out.stderr[-2000:])
    finally:
        shutil.rmtree(flash, ignore_errors=True)


def pico_ms(us, run):
    """Microseconds of one probe run on the unix port -> ms on the RP2040, scaled by the
    calibration taken just before and after that run."""
    return us * PICO_LOOP_MS / ((run[5] + run[6]) / 2) / 1000


def report_touch(what, runs, i2c_hz, chain_wait=False):
    """Prints the touch -> first LED change figure of one kind of touch; returns its worst
    case in ms. runs: per run [poll us, touch layer us, app+display us, I2C bits, LED bytes,
    calibration before, calibration after]."""
    poll_cpu = statistics.median([pico_ms(x[0], x) for x in runs])
    layer = statistics.median([pico_ms(x[1], x) for x in runs])
    to_led = statistics.median([pico_ms(x[2], x) for x in runs])
    cpus = sorted(pico_ms(x[0] + x[1] + x[2], x) for x in runs)
    cpu = statistics.median(cpus)
    bits = max(x[3] for x in runs)
    i2c = bits * 1000.0 / i2c_hz
    nbytes = max(x[4] for x in runs)
    led = (nbytes * 8 * LED_NS_PER_BIT / 1000 + LATCH_US) / 1000
    # While an animation runs, its frames keep the chains busy: drivers/ws2812.py holds a
    # chain's next show() until (leds * 30 + 280 + 999) // 1000 + 1 ms after the last one.
    # That last one went out in an earlier pass of the main loop, before this pad poll, so
    # the wait is at most that guard less this CPU path.
    guard = (nbytes // 3 * 30 + LATCH_US + 999) // 1000 + 1
    wait = max(0.0, guard - cpu) if chain_wait else 0
    total = MPR121_MS + POLL_MS + i2c + cpu + wait + led
    print("touch -> first LED change, %s (quad): CPU from the pad poll that sees it to the "
          "start of the first LED transfer %.1f ms on RP2040 (median of %d runs, each scaled "
          "by its own calibration; middle half %.1f-%.1f)"
          % (what, cpu, len(runs), cpus[len(cpus) // 4], cpus[(3 * len(cpus)) // 4]))
    print("  of which (medians): pad poll %.1f (MPR121 driver; the sim's I2C model not "
          "counted), touch layer %.1f, app + display up to the DMA start %.1f"
          % (poll_cpu, layer, to_led))
    print("  worst case: MPR121 response ~%d + pad poll interval up to %d + I2C wire %.1f "
          "(%d bits at %d kHz) + CPU %.1f%s + LED wire %.1f (%d bytes at 800 kHz + %d us "
          "latch) = %.1f ms; budget %d ms -> %s"
          % (MPR121_MS, POLL_MS, i2c, bits, i2c_hz // 1000, cpu,
             " + %.1f waiting for the last animation frame's chain (a %d ms guard less the "
             "CPU)" % (wait, guard)
             if chain_wait else "", led, nbytes, LATCH_US,
             total, TOUCH_BUDGET_MS, "OK" if total <= TOUCH_BUDGET_MS else "OVER"))
    return total, i2c, cpu, led


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--quick", action="store_true", help="3 runs (make bench BENCHFLAGS=--quick)")
    args = ap.parse_args(argv)
    if args.quick:
        args.runs = 3
    m = probe(args.runs)
    ratio = PICO_LOOP_MS / m["calibration_ms"]
    frame = statistics.median(m["frame_ms"]) * ratio
    ordered = sorted(m["frame_ms"])
    frame_p90 = ordered[(9 * len(ordered)) // 10] * ratio
    frame_worst = ordered[-1] * ratio
    print("calibration: add_test %.1f ms here (median of 6) -> RP2040 factor %.0fx"
          % (m["calibration_ms"], ratio))
    _, i2c, cpu, led = report_touch("a move", m["touch_us"], m["i2c_hz"])
    report_touch("a refused pit", m["refusal_us"], m["i2c_hz"])
    report_touch("a touch that skips the sowing animation", m["skip_us"], m["i2c_hz"], True)
    idle_cpu = statistics.median([x[0] for x in m["idle"]]) * PICO_LOOP_MS / m["idle_cal"] / 1000
    idle_bus = max(x[1] for x in m["idle"]) * 1000.0 / m["i2c_hz"]
    # While the CPU thinks (its seat's move, a hint), the loop polls the pads between its
    # slices: a slice and the pass's own poll apart, if that is longer than PAD_MS.
    between = max(POLL_MS, SLICE_MS + idle_cpu + idle_bus)
    thinking = MPR121_MS + between + i2c + cpu + led
    print("while the CPU thinks (a hint, a CPU seat's move): the pads are polled up to %.1f ms "
          "apart (a %d ms slice, SLICE_MS in app/autoplay.py, and a poll), so a touch then takes"
          " up to %.1f ms to its first LED change -> %s"
          % (between, SLICE_MS, thinking, "OK" if thinking <= TOUCH_BUDGET_MS else "OVER"))
    print("pads while idle: a poll and the touch layer take %.2f ms of CPU + %.2f ms on the I2C "
          "bus (the CPU waits for it) every %d ms: %.0f%% of the CPU (median of %d polls)"
          % (idle_cpu, idle_bus, POLL_MS, 100 * (idle_cpu + idle_bus) / POLL_MS,
             len(m["idle"])))
    print("animation frame (quad): median %.1f ms, 90th percentile %.1f ms, slowest %.1f ms on "
          "RP2040 (%d frames); budget %.1f ms (30 fps) -> %s"
          % (frame, frame_p90, frame_worst, len(ordered), FRAME_BUDGET_MS,
             "OK" if frame_p90 <= FRAME_BUDGET_MS else "OVER"))

if __name__ == "__main__":
    main()
