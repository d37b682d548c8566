"""`stats --plot --exact`: one Kalah game's exact value line, read back from matplotlib's
objects: the points are seat 0's exact values from the analysis, ending at the result, and
every turning point has its ring and its move number."""

import math

from matplotlib.colors import to_rgb

from mancala_host.logs import exact, exactplot
from mancala_host.render.view import SEAT_COLOURS
from test_host_analyze import mb, play_game, write_log


def test_the_line_is_the_exact_values_and_marks_the_turning_points():
    entry, _ = play_game({"variant": "kalah", "seeds": 3}, plant=None)
    analysis = exact.analyse_game(entry, exact.Budget(None, 200000))
    # A turning point made by hand on one valued row, so that the marks are checked even in
    # a game without one.
    row = next(r for r in analysis["moves"] if r["before"] is not None)
    row["turning"] = True
    plt, fig = exactplot.figure(analysis, "a game")
    try:
        ax = fig.axes[0]
        line = max(ax.get_lines(), key=lambda l: len(l.get_xdata()))
        ys = list(line.get_ydata())
        for r, y in zip(analysis["moves"], ys):
            if r["before"] is None:
                assert math.isnan(y)
            else:
                assert y == (r["before"] if r["seat"] == 0 else -r["before"])
        stores = entry["result"]["stores"]
        assert ys[-1] == stores[0] - stores[1]
        rings = [l for l in ax.get_lines() if l.get_gid() == "turning-point"]
        turning = [r for r in analysis["moves"] if r["turning"]]
        assert len(rings) == len(turning) >= 1
        labels = [t.get_text() for t in ax.texts]
        assert all("move %d" % r["move"] in labels for r in turning)
        fills = [to_rgb(c.get_facecolor()[0][:3]) for c in ax.collections]
        assert to_rgb(SEAT_COLOURS[0]) in fills and to_rgb(SEAT_COLOURS[1]) in fills
    finally:
        plt.close(fig)


def test_stats_plot_exact_writes_the_line_beside_the_plot(tmp_path, capsys):
    kalah, _ = play_game({"variant": "kalah", "seeds": 3}, plant=None)
    basic, _ = play_game({"variant": "basic"}, plant=None)
    log = tmp_path / "class.jsonl"
    write_log(log, [basic, kalah])
    code, out, err = mb(capsys, "stats", str(log), "--plot", str(tmp_path / "class.png"),
                        "--exact", "--exact-nodes", "200000")
    assert code == 0, err
    assert (tmp_path / "class-exact.png").stat().st_size > 10000
    assert "Exact value line of Kalah game 1 written to %s" % (tmp_path / "class-exact.png") in out
    code, out, err = mb(capsys, "stats", str(log), "--plot", str(tmp_path / "c.png"), "--exact",
                        "--exact-game", "2")
    assert code != 0 and "--exact-game must be from 1 to 1" in err
    code, out, err = mb(capsys, "stats", str(log), "--exact")
    assert code != 0 and "give --plot FILE too" in err
