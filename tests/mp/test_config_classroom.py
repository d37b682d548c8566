"""app.config: the classroom keys `label` (the board's name, "table 3") and `paused` (nothing
plays until the teacher resumes). Runs under MicroPython and CPython."""
from mancala_fw.app import config


class Board:
    """What config.check needs of a board: a duo's figures."""
    sides = 2
    budget_ma = 1500
    ma_per_channel = 10
    ring_count = 16

    def idle_ma(self):
        return 100

    def seat_error(self, rules):
        return None


B = Board()


def _refused(patch, word):
    try:
        config.check(config.defaults(B), patch, B)
    except ValueError as e:
        assert word in str(e), str(e)
        assert str(e).endswith("."), str(e)
        return
    raise AssertionError("%r was taken" % (patch,))


def test_defaults_have_no_label_and_are_not_paused():
    d = config.defaults(B)
    assert d["label"] == "" and d["paused"] is False


def test_label_takes_short_printable_text():
    new, warnings = config.check(config.defaults(B), {"label": "table 3"}, B)
    assert new["label"] == "table 3" and warnings == []
    longest = "x" * config.LABEL_MAX
    assert config.check(new, {"label": longest}, B)[0]["label"] == longest
    assert config.check(new, {"label": ""}, B)[0]["label"] == ""


def test_label_refuses_long_text_control_characters_and_other_types():
    _refused({"label": "x" * (config.LABEL_MAX + 1)}, "label")
    _refused({"label": "table\n3"}, "label")
    _refused({"label": "t\u00e4ble"}, "label")
    _refused({"label": 3}, "label")
    _refused({"label": None}, "label")


def test_paused_is_true_or_false():
    new, _ = config.check(config.defaults(B), {"paused": True}, B)
    assert new["paused"] is True
    assert config.check(new, {"paused": False}, B)[0]["paused"] is False
    _refused({"paused": 1}, "paused")
    _refused({"paused": "yes"}, "paused")


def test_restore_keeps_a_good_label_and_drops_a_bad_one():
    # a pause is never restored: a board left paused by a hub that went away boots playable
    c, problems = config.restore({"label": "table 3", "paused": True}, B)
    assert (c["label"], c["paused"], problems) == ("table 3", False, [])
    c, problems = config.restore({"label": "\x07bell", "rules": {"variant": "kalah"}}, B)
    assert c["label"] == "" and len(problems) == 1 and "label" in problems[0]
