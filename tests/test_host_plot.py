"""`stats --plot`: every panel has data or says so, counts have whole-number ticks, every bar
carries its value, a 0 is a visible bar, and nothing but a seat is drawn in a seat's colour.

The figures are built from hand-made summaries (the shape stats.summarise returns) and read
back from matplotlib's own objects; the command-line cases go through `mancala-board stats`.
"""

import json
import random

import pytest

import fakeport  # noqa: F401  (puts host_tools and firmware/lib on sys.path)

from matplotlib.colors import to_rgb
from matplotlib.patches import Rectangle

from mancala_host.commands import cli
from mancala_host.logs import plot
from mancala_host.render.view import SEAT_COLOURS
from test_host_log import make_log


def variant(players, wins, draws=0, first_wins=0, lengths=(40, 44), margins=(6,)):
    games = sum(wins) + draws
    return {"players": players, "games": games, "wins": list(wins), "draws": draws,
            "first_wins": first_wins, "lengths": list(lengths), "margins": list(margins), "unfinished": 0}


def panels(by):
    plt, fig = plot.figure(by)
    axes = fig.axes
    yield fig, axes
    plt.close(fig)


def bars(ax):
    return [p for p in ax.patches if isinstance(p, Rectangle) and p.get_width() > 0]


def texts(ax):
    return [t.get_text() for t in ax.texts]


def far_from_seats(colour):
    rgb = to_rgb(colour)
    return all(sum(abs(a - b) for a, b in zip(rgb, to_rgb(c))) > 0.3 for c in SEAT_COLOURS)


@pytest.fixture
def class_with_zeros():
    # seat 0 never won Kalah, the starting seat never won Basic 3p, Kalah-ec only drew
    by = {"kalah 6x4": variant(2, [0, 3], first_wins=1, margins=(4, 10, 7)),
          "basic 3p 6x4": variant(3, [2, 0, 1], first_wins=0, lengths=(90, 101, 120), margins=(3, 5, 2)),
          "kalah-ec 6x4": variant(2, [0, 0], draws=2, first_wins=0, margins=())}
    gen = panels(by)
    yield by, next(gen)
    for _ in gen:
        pass


def test_every_count_axis_has_whole_number_ticks(class_with_zeros):
    by, (fig, axes) = class_with_zeros
    wins, first, length, margin = axes
    for ax in (wins, length):
        ticks = [t for t in ax.get_yticks() if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
        assert len(ticks) >= 2 and all(float(t).is_integer() for t in ticks), ticks


def test_every_bar_has_its_value_and_a_zero_is_visible(class_with_zeros):
    by, (fig, axes) = class_with_zeros
    wins, first = axes[0], axes[1]
    # wins: 2 + 3 + 2 seat bars and one draw bar, each with a label; the zeros are stubs
    win_bars = bars(wins)
    assert len(win_bars) == 2 + 3 + 2 + 1
    assert all(b.get_height() > 0 for b in win_bars)
    labels = texts(wins)
    assert sorted(labels) == sorted(["0", "3", "2", "0", "1", "0", "0", "2"])
    # the first-seat panel: 33%, 0% and 0%, all drawn and labelled
    first_bars = bars(first)
    assert len(first_bars) == 3 and all(b.get_height() > 0 for b in first_bars)
    assert sorted(t for t in texts(first) if not t.startswith("fair")) == ["0%", "0%", "33%"]


def test_a_panel_without_data_says_so(class_with_zeros):
    by, (fig, axes) = class_with_zeros
    margin = axes[3]
    notes = [t for t in texts(margin) if t.startswith("no data for")]
    assert len(notes) == 1 and "kalah-ec 6x4" in notes[0]
    assert sorted(t for t in texts(margin) if not t.startswith("no data")) == ["3.3", "7.0"]


def test_only_seats_wear_seat_colours(class_with_zeros):
    by, (fig, axes) = class_with_zeros
    wins, first, length, margin = axes
    seat_bars = [b for b in bars(wins) if not far_from_seats(b.get_facecolor())]
    assert len(seat_bars) == 7  # the draw bar is not one of them
    # the seat colours are the board's: the firmware palette's sRGB, as on the LEDs
    from mancala_fw.display import palette
    board = [tuple(c / 255.0 for c in rgb) for rgb in palette.SEAT_SRGB]
    assert {tuple(round(c, 3) for c in b.get_facecolor()[:3]) for b in seat_bars} == \
        {tuple(round(c, 3) for c in rgb) for rgb in board[:3]}
    for ax in (first, length, margin):
        for b in bars(ax):
            assert far_from_seats(b.get_facecolor()), b.get_facecolor()
    for line in first.lines:  # the fair-share marks
        assert far_from_seats(line.get_color())
    legend = fig.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["seat 0", "seat 1", "seat 2", "draws"]
    assert min(t.get_fontsize() for t in legend.get_texts()) >= 14


def test_type_is_large_enough_for_a_projector(class_with_zeros):
    by, (fig, axes) = class_with_zeros
    for ax in axes:
        assert ax.title.get_fontsize() >= 14
        for label in ax.get_xticklabels() + ax.get_yticklabels():
            assert label.get_fontsize() >= 12
        for t in ax.texts:
            assert t.get_fontsize() >= 11


def test_unsupported_extension_is_one_line_naming_the_formats(tmp_path, capsys):
    log = tmp_path / "games.jsonl"
    make_log(log, random.Random(11), count=3)
    target = tmp_path / "x.txt"
    assert cli.main(["stats", str(log), "--plot", str(target)]) == 1
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and ".png, .svg, .pdf" in err and str(target) in err
    assert not target.exists() and out == ""


def test_the_message_names_the_file_written(tmp_path, capsys):
    log = tmp_path / "games.jsonl"
    make_log(log, random.Random(12), count=3)
    assert cli.main(["stats", str(log), "--plot", str(tmp_path / "class")]) == 0
    out = capsys.readouterr().out
    assert "Plot written to %s." % (tmp_path / "class.png") in out
    assert (tmp_path / "class.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert cli.main(["stats", str(log), "--plot", str(tmp_path / "class.svg")]) == 0
    assert "Plot written to %s." % (tmp_path / "class.svg") in capsys.readouterr().out
    assert b"<svg" in (tmp_path / "class.svg").read_bytes()[:400]


def test_basic_margin_is_the_runner_ups_stones_when_the_winner_finished(tmp_path, capsys):
    log = tmp_path / "games.jsonl"
    make_log(log, random.Random(13), count=5)  # game 4 is Basic 3p, played out for every place
    from mancala import Game, Rules
    from mancala_host.logs import stats, gamelog

    games = list(gamelog.good_games([str(log)]))
    by = stats.summarise(games)
    entry = [g for _, _, g, _, _ in games if g["rules"]["players"] == 3][0]
    places = entry["result"]["places"]
    winner, runner_up = places.index(1), places.index(2)
    game = Game(Rules.from_dict(entry["rules"]), first=entry["first"])
    for m in entry["moves"]:
        game.resign(m["seat"]) if m.get("resign") else game.play(m["pit"])
        if game.to_dict()["places"][winner] == 1:
            break
    assert by["basic 3p 6x4"]["margins"] == [sum(game.to_dict()["pits"][runner_up])]
