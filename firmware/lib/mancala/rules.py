"""Rules of a game: the variant and its options, checked and normalized.

Rules.from_dict() takes what a person or a config file gives, fills in every default,
checks every value and raises ValueError with a sentence that names the key and the allowed
values. Rules.to_dict() is the normalized dict that goes into every state, log and config.
"""

KALAH = "kalah"
BASIC = "basic"
VARIANTS = (KALAH, BASIC)

# Named presets for the rule texts, so a person does not have to know the flags.
PRESETS = {  # type: dict
    # kalah-de.txt: capture only when the opposite pit holds stones; wipe-outs allowed.
    "kalah": {"variant": KALAH, "capture": "nonempty", "wipeout_capture": True},
    # kalah-empty-capture-de.txt: capture also from an empty opposite pit, but never a capture
    # that leaves the opponent without stones.
    "kalah-empty-capture": {"variant": KALAH, "capture": "always", "wipeout_capture": False},
    # mancala-basic-de.txt, with the defaults of its house-rule table.
    "basic": {"variant": BASIC},
}

_COMMON = ("variant", "players", "pits", "seeds")
_KALAH_KEYS = _COMMON + ("capture", "wipeout_capture")
_BASIC_KEYS = _COMMON + ("play_all_places",)


def _choice(d, key, allowed, default, what):
    v = d.get(key, default)
    # bool is an int in Python; a person who wrote true for a number made a mistake.
    if isinstance(v, bool) and not isinstance(default, bool):
        v = None
    if v not in allowed or type(v) is not type(default):
        raise ValueError(
            "%s must be %s%s, got %s" % (key, _words(allowed), what, _show(d.get(key))))
    return v


def _words(values):
    items = [_show(v) for v in values]
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]


def _show(v):
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, str):
        return '"%s"' % v
    return str(v)


class Rules:
    """Normalized rules. Build with Rules.from_dict(); read the attributes or to_dict().
    Rules compare equal when they play the same game, and hash alike."""

    def __init__(self):
        self.variant = KALAH
        self.players = 2
        self.pits = 6
        self.seeds = 4
        self.capture = "nonempty"
        self.wipeout_capture = True
        self.play_all_places = True
        self.warnings = []

    @classmethod
    def from_dict(cls, d):
        if isinstance(d, Rules):
            d = d.to_dict()
        if not isinstance(d, dict):
            raise ValueError("rules must be an object such as {\"variant\": \"kalah\"}")
        d = dict(d)
        preset = d.pop("preset", None)
        if preset is not None:
            if preset not in PRESETS:
                raise ValueError("preset must be %s, got %s" % (
                    _words(sorted(PRESETS)), _show(preset)))
            merged = dict(PRESETS[preset])
            for k in d:
                merged[k] = d[k]
            d = merged
        r = cls()
        variant = d.get("variant", KALAH)
        if variant not in VARIANTS:
            raise ValueError("variant must be %s, got %s" % (_words(VARIANTS), _show(variant)))
        r.variant = variant
        allowed = _KALAH_KEYS if variant == KALAH else _BASIC_KEYS
        for k in d:
            if k not in allowed:
                raise ValueError("%s is not a rule of %s; its rules are %s" % (
                    _show(k), variant, ", ".join(allowed)))
        if variant == KALAH:
            r.players = _choice(d, "players", (2,), 2, " for kalah")
            r.pits = _choice(d, "pits", (6,), 6, " for kalah")
            r.seeds = _choice(d, "seeds", (3, 4, 5), 4, " for kalah")
            r.capture = _choice(d, "capture", ("nonempty", "always"), "nonempty", "")
            r.wipeout_capture = _choice(d, "wipeout_capture", (True, False), True, "")
        else:
            r.players = _choice(d, "players", (2, 3, 4), 2, " for basic")
            pits = _choice(d, "pits", (4, 6, 7), 6, " for basic")
            fits = (6, 7) if r.players == 2 else (6, 4)
            if pits not in fits:
                # The rule text: "Passt die Zahl nicht zur Personenzahl, werden 6 verwendet."
                r.warnings.append("pits changed from %d to 6: %d players play on %s pits" % (
                    pits, r.players, _words(fits)))
                pits = 6
            r.pits = pits
            r.seeds = _choice(d, "seeds", (3, 4), 4, " for basic")
            r.play_all_places = _choice(d, "play_all_places", (True, False), True, "")
        return r

    def to_dict(self):
        d = {"variant": self.variant, "players": self.players, "pits": self.pits,
             "seeds": self.seeds}
        if self.variant == KALAH:
            d["capture"] = self.capture
            d["wipeout_capture"] = self.wipeout_capture
        else:
            d["play_all_places"] = self.play_all_places
        return d

    # Equal rules play the same game; Rules are values (keys of dicts, members of sets), so
    # change one only through from_dict().
    def __eq__(self, other):
        return isinstance(other, Rules) and self.to_dict() == other.to_dict()

    def __hash__(self):
        return hash(tuple(self.to_dict().items()))  # built in one order, so equal dicts agree

    def __repr__(self):
        return "Rules(%r)" % (self.to_dict(),)
