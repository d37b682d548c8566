"""`mancala-board web --exact` in real headless Chromium against the virtual board: the page
shows the exact value and marks every pit that keeps it, as the solver computes them for the
board's position, and shows nothing of it without --exact (the default)."""

from projector import page_done, play_seeded, snapshot, start_web, stop_web, wait_for
from test_host_web import board_with_web, browser, text_of  # noqa: F401  (browser: the fixture)

from mancala import Game
from mancala_host.solver import Exact


def gold(driver):
    """(seat, pit) of every ring the page marks as keeping the exact value."""
    return sorted((int(g.get_attribute("data-seat")), int(g.get_attribute("data-pit")))
                  for g in driver.find_elements("css selector", ".exactbest"))


def test_the_page_shows_the_exact_value_only_when_turned_on(tmp_path, browser):
    sim, web, url = board_with_web(tmp_path, "duo", ["rules.seeds=3"], "--control", "--stone-ms", "20")
    try:
        browser.get(url)
        seq = play_seeded(url, seed=5, moves=10)
        wait_for("the moves on the page", lambda: page_done(browser, seq))
        assert "exact" not in snapshot(url)
        assert text_of(browser, "exact") == "" and gold(browser) == []
        stop_web(web)

        web, url = start_web(sim.link, "--control", "--stone-ms", "20", "--exact",
                             "--seconds", "600", "--exact-nodes", "3000000")
        browser.get(url)
        game = Game.from_dict(wait_for("the state", lambda: snapshot(url).get("state")))
        values = Exact(game.rules).move_values(game)
        best = max(values.values())
        keep = [(game.turn, p) for p in sorted(values) if values[p] == best]
        wait_for("the exact value on the page",
                 lambda: text_of(browser, "exact").startswith("Exact: Seat %d to move" % game.turn))
        assert ("final stores %+d" % best) in text_of(browser, "exact")
        assert gold(browser) == keep
        assert snapshot(url)["exact"]["pits"] == [p for _, p in keep]
    finally:
        stop_web(web)
        sim.stop()


class _Hub:
    """The part of the web view's hub the feed uses: what it published, in order."""

    def __init__(self):
        self.published = []

    def publish(self, **fields):
        self.published.append(fields["exact"])


def test_a_new_position_stops_the_search_of_the_old_one(tmp_path, monkeypatch):
    # No opening book: the start of Kalah(6,4) takes minutes, far inside a 600-second budget;
    # the position after it is a small endgame. The page gets that one's value without waiting
    # for the start's search, and never the start's.
    from mancala import Rules
    from mancala_host.logs.exact import Budget
    from mancala_host.views.webexact import ExactFeed
    from test_solver import game_at
    monkeypatch.setenv("MANCALA_BOOK", str(tmp_path / "no-book"))
    rules = Rules.from_dict({"variant": "kalah", "seeds": 4})
    hub = _Hub()
    feed = ExactFeed(hub, Budget(600))
    feed(Game(rules).to_dict())
    from mancala_host.solver import searched
    wait_for("the start's search under way", lambda: searched() > 0)
    small = game_at(rules, [[0, 0, 0, 1, 0, 2], [1, 0, 0, 0, 0, 0]])
    feed(small.to_dict())
    wait_for("the small position's value", lambda: hub.published)
    value = Exact(rules).value(small)
    assert hub.published == [{"text": hub.published[0]["text"], "seat": 0, "value": value,
                               "pits": hub.published[0]["pits"]}]
    assert hub.published[0]["text"].startswith("Exact: Seat 0 to move")
