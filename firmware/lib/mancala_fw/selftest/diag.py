"""The `diag` command of the serial protocol: the self-test driven from the host.

selftest.Bringup.command is the handler the app registers; handle_diag(req, st) works on a
SelfTest directly (tests).
Requests (docs/hardware.md section "The diag command" has the answers):
    {"cmd": "diag", "action": "scan"}
    {"cmd": "diag", "action": "readout"}
    {"cmd": "diag", "action": "walk", "step": 3}        one ring, held until the next request
    {"cmd": "diag", "action": "walk", "period_ms": 1500} the walk runs by itself
    {"cmd": "diag", "action": "calibrate", "phase": "idle" | "touch" | "status" | "save" | "clear",
     "pad": "0.3", "ms": 2000}
    {"cmd": "diag", "action": "thresholds"}
    {"cmd": "diag", "action": "stop"}                   back to the game
    {"cmd": "diag", "action": "memory"}                 the heap (answered by the app)
"""
import json

from mpcompat import ticks_ms

from mancala_fw.protocol import BAD_REQUEST, INTERNAL, CommandError, need_int
from mancala_fw.selftest.calibration import DEFAULT, apply_calibration, build, save_calibration

ACTIONS = ("scan", "readout", "walk", "calibrate", "thresholds", "stop")
# "memory" is the app's (app.heap, wired in app.commands.diag) and never reaches handle_diag; the
# message for an unknown action names it too, so that it names every action there is.
NAMED = ACTIONS + ("memory",)
PHASES = ("idle", "touch", "status", "save", "clear")


def _bad(text):
    raise CommandError(BAD_REQUEST, text)


def _hex(addr):
    return "0x%02X" % addr


def _scan(st):
    p = st.profile
    return {"expected": [_hex(a) for a in p.pad_chips], "found": [_hex(a) for a in st.found()],
            "missing": st.scan()}


def _readout(st):
    f, b = st.readout()
    pads = []
    ids = st.profile.positions
    for i in range(len(ids)):
        pads.append([ids[i], f[i], b[i], 1 if st.touched[i] else 0])
    return {"pads": pads}


def _current(st):
    pads = st.pads

    def current(addr, e):
        chip = pads.chips[pads.addresses.index(addr)]
        return chip.thresholds(e) if chip is not None else DEFAULT
    return current


def _thresholds(st):
    current = _current(st)
    out = []
    for pid in st.profile.positions:
        addr, e = st.profile.pad[pid]
        t = current(addr, e)
        out.append([pid, t[0], t[1]])
    return {"pads": out}


def _cal_status(st):
    cal = st.cal
    ids = st.profile.positions
    phase = cal.phase
    pads = []
    for i in range(len(ids)):
        pads.append([ids[i], cal.floor(i), cal.peak[i] if cal.peak[i] >= 0 else None])
    return {"collecting": phase is not None,
            "phase": None if phase is None else (phase if phase == "idle" else ids[phase]),
            "pads": pads}


def _calibrate(req, st, now):
    phase = req.get("phase", "status")
    if phase not in PHASES:
        _bad("\"phase\" must be one of %s, got %s." % (", ".join(PHASES), json.dumps(phase)[:40]))
    ids = st.profile.positions
    if phase == "clear":
        st.cal.clear()
        return _cal_status(st)
    if phase == "status":
        return _cal_status(st)
    if phase == "save":
        return _save(st)
    ms = need_int(req, "ms", 200, 10000, 2000)
    if phase == "idle":
        st.calibrate("idle", now, ms)
    else:
        pid = req.get("pad")
        if pid not in ids:
            _bad("\"pad\" must be a position of this board (%s ... %s), got %s." % (
                ids[0], ids[-1], json.dumps(pid)[:40]))
        st.calibrate(ids.index(pid), now, ms)
    return _cal_status(st)


def _save(st):
    if st.cal.phase is not None:
        _bad("The calibration is still collecting; wait until status says collecting false.")
    good, problems = st.cal.result(st.profile.positions)
    if not good and not problems:
        _bad("No pad has been touched for calibration yet; send phase \"touch\" with a pad.")
    data = build(st.profile, _current(st), good)
    missed = apply_calibration(st.pads, data)
    try:
        save_calibration(st.calibration_path, data)
    except OSError:
        raise CommandError(INTERNAL, "The thresholds are set but could not be saved to %s: "
                           "the flash may be full." % st.calibration_path)
    for addr in missed:
        problems.append("pad controller %s did not answer, so its thresholds take effect at "
                        "the next start" % _hex(addr))
    out = {}
    for pid in good:
        out[pid] = [good[pid][0], good[pid][1]]
    return {"saved": st.calibration_path, "thresholds": out, "problems": problems}


def handle_diag(req, st, now=None):
    """The answer fields for one diag request; CommandError(bad_request) for bad ones."""
    if now is None:
        now = ticks_ms()
    action = req.get("action")
    if action not in ACTIONS:
        _bad("\"action\" must be one of %s, got %s." % (", ".join(NAMED),
                                                      json.dumps(action)[:40]))
    if action == "scan":
        return _scan(st)
    if action == "readout":
        return _readout(st)
    if action == "thresholds":
        return _thresholds(st)
    if action == "stop":
        st.stop()
        return {"active": False}
    if action == "calibrate":
        return _calibrate(req, st, now)
    if st.leds is None:
        raise CommandError(BAD_REQUEST, "This board has no LED output, so there is nothing to "
                           "walk; the boot log says why.")
    steps = len(st.order)
    if "step" in req:
        return st.show_step(need_int(req, "step", 0, steps - 1))
    st.start(now, need_int(req, "period_ms", 200, 10000, st.period_ms))
    return {"steps": steps, "period_ms": st.period_ms}
