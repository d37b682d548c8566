"""Touch thresholds from measurement: collect, compute, save to flash, load and apply at boot.

A calibration run has phases. "idle": nobody touches anything, and each electrode's noise is
the largest (baseline - filtered) seen. "touch" of one pad: the maker holds that pad, and its
peak delta is recorded, together with the largest delta the other pads pick up meanwhile
(crosstalk, counted once the finger is on the named pad). A pad's floor is
max(noise, crosstalk); its thresholds sit between floor and peak: touch at half the span,
release at a quarter, so a lighter touch than the calibration one still counts and noise
never does.

The file (calibration.json on the flash) holds every chip's 12 (touch, release) pairs:
    {"format": "mancala-calibration", "chips": {"0x5A": [[20, 10], ...12 pairs], ...}}
It is written atomically by storage.save (temporary file, then rename).
"""
from mancala_fw import storage

KIND = "mancala-calibration"
MIN_SPAN = 6         # counts between floor and peak below which a pad cannot be told apart
DEFAULT = (12, 6)    # the driver's defaults, for electrodes never calibrated


def thresholds_for(floor, peak):
    """(touch, release) counts for a pad, or None when peak is too close to the floor."""
    span = peak - floor
    if span < MIN_SPAN:
        return None
    touch = floor + span // 2
    release = floor + span // 4
    if release <= floor:
        release = floor + 1
    if touch > 255:
        touch = 255
    if release >= touch:
        release = touch - 1
    return (touch, release)


def weak_pad_sentence(pid, floor, peak):
    return ("pad %s changed by only %d counts when touched (noise %d): press the whole pad, "
            "use a thinner overlay or check its wire, then calibrate it again" % (
                pid, peak - floor if peak > floor else 0, floor))


class Calibration:
    """Per-position noise, crosstalk and touched peak, filled one readout at a time."""

    def __init__(self, count):
        self.count = count
        self.noise = [0] * count
        self.cross = [0] * count
        self.peak = [-1] * count  # -1: not touched during this run
        self.phase = None         # None, "idle", or the index of the pad being touched

    def clear(self):
        for i in range(self.count):
            self.noise[i] = 0
            self.cross[i] = 0
            self.peak[i] = -1
        self.phase = None

    def sample(self, filtered, baseline):
        """One readout (lists per position; None for a pad whose chip is missing)."""
        phase = self.phase
        if phase is None:
            return
        pressed = False
        if phase != "idle" and filtered[phase] is not None:
            d = baseline[phase] - filtered[phase]
            if d > self.peak[phase]:
                self.peak[phase] = d
            # Crosstalk counts only while the finger is on this pad: the hand may still be
            # leaving the previous pad when the phase starts.
            pressed = d >= MIN_SPAN
        for i in range(self.count):
            f = filtered[i]
            if f is None or i == phase:
                continue
            d = baseline[i] - f
            if phase == "idle":
                if d < 0:
                    d = -d
                if d > self.noise[i]:
                    self.noise[i] = d
            elif pressed and d > self.cross[i]:
                self.cross[i] = d

    def floor(self, i):
        return self.noise[i] if self.noise[i] > self.cross[i] else self.cross[i]

    def result(self, positions):
        """({position: (touch, release)} for every touched pad that is good, [sentences] for
        the touched pads that are too weak)."""
        good = {}
        problems = []
        for i in range(self.count):
            if self.peak[i] < 0:
                continue
            t = thresholds_for(self.floor(i), self.peak[i])
            if t is None:
                problems.append(weak_pad_sentence(positions[i], self.floor(i), self.peak[i]))
            else:
                good[positions[i]] = t
        return good, problems


def address_text(addr):
    return "0x%02X" % addr


def build(profile, current, good):
    """The calibration dict: the current thresholds of every chip (current(addr, e) ->
    (touch, release)) with the good pads' new ones put in."""
    chips = {}
    for addr in profile.pad_chips:
        pairs = []
        for e in range(12):
            t = current(addr, e)
            pairs.append([t[0], t[1]])
        chips[address_text(addr)] = pairs
    for pid in good:
        addr, e = profile.pad[pid]
        chips[address_text(addr)][e] = [good[pid][0], good[pid][1]]
    return {"format": KIND, "chips": chips}


def save_calibration(path, data):
    """Writes the calibration atomically; raises OSError if the flash cannot be written."""
    storage.save(path, data)


def _pairs_ok(pairs):
    if not isinstance(pairs, list) or len(pairs) != 12:
        return False
    for p in pairs:
        if not isinstance(p, list) or len(p) != 2:
            return False
        t, r = p
        if isinstance(t, bool) or isinstance(r, bool) or not isinstance(t, int) \
                or not isinstance(r, int) or not 0 <= r < t <= 255:
            return False
    return True


def load_calibration(path):
    """(data, problem): data is the checked calibration dict or None; problem is one sentence
    when the file is there but unusable (the board then keeps the default thresholds)."""
    data, problem = storage.load(path, KIND)
    if data is None:
        return None, problem
    chips = data.get("chips")
    if not isinstance(chips, dict):
        return None, "%s has no \"chips\"; the default thresholds are used." % path
    for key in chips:
        addr = None
        if isinstance(key, str) and len(key) == 4 and key[:2] == "0x":
            try:
                addr = int(key[2:], 16)
            except ValueError:
                addr = None
        if addr is None or not 0x5A <= addr <= 0x5D or not _pairs_ok(chips[key]):
            return None, ("%s has a bad entry for chip %s (12 [touch, release] pairs with "
                          "0 <= release < touch <= 255 are needed); the default thresholds "
                          "are used." % (path, str(key)[:8]))
    return data, None


def apply_calibration(pads, data):
    """Writes the saved thresholds into the MPR121 drivers of pads (an MPR121Group). Returns
    the addresses whose chip was not there to take them (apply again once it answers)."""
    if data is None:
        return []
    chips = data["chips"]
    missed = []
    for i in range(len(pads.addresses)):
        addr = pads.addresses[i]
        pairs = chips.get(address_text(addr))
        if pairs is None:
            continue
        chip = pads.chips[i]
        if chip is None:
            missed.append(addr)
            continue
        try:
            for e in range(12):
                chip.set_thresholds(pairs[e][0], pairs[e][1], e)
        except OSError:
            missed.append(addr)
    return missed
