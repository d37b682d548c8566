"""`mancala-board web` in real headless Chromium (Debian's chromium + chromedriver, Selenium)
against the virtual board over a pty.

- The page follows moves made by a click on it (--control) and by a touch on the board's pad,
  and lives through the board being killed and restarted. A press from another address (DNS
  rebinding), another page or without the token web printed is refused and plays nothing.
- Layout, at 1280x720, 1920x1080 and 3840x2160, on duo Kalah, quad Basic 3p and quad Basic 4p,
  after 20 seeded moves: no two pit or store boxes intersect, no label touches another label
  or a ring, everything is inside the window, and the newest note is on screen in big type.
- A sowing shows its counts stone by stone in the board's order; a capture flashes the pit,
  the pit across and the store together and leaves both pits marked; an extra move, a finished
  seat and the final places are shown.
"""

import json
import random
import urllib.error
import urllib.request

import pytest

from projector import (TOKENS, chromium, first_snapshot, page_done, play_one, play_seeded, press, snapshot,
                       start_web, stop_web, wait_for)
from test_host_sim import Sim
from waits import HANG_S

from mancala_host.commands import cli
from mancala_host.views.webpage import PAGE


@pytest.fixture
def browser(tmp_path):
    driver = chromium(str(tmp_path / "chromium-profile"), 1600, 1000)
    yield driver
    driver.quit()


def counts(driver):
    """Every ring's count on the page, as {(seat, pit): n}, pit 0 the store."""
    rings = driver.execute_script(
        "return Array.from(document.querySelectorAll('[data-seat]')).map(g => "
        "[g.dataset.seat, g.hasAttribute('data-store') ? 0 : g.dataset.pit, g.querySelector('.count').textContent]);")
    return dict(((int(s), int(p)), int(n)) for s, p, n in rings)


def click(driver, selector):
    """A real mouse click; retry if the page replaced the element meanwhile."""
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(20):
        try:
            driver.find_element("css selector", selector).click()
            return
        except StaleElementReferenceException:
            continue
    raise AssertionError("could not click " + selector)


def text_of(driver, element_id):
    return driver.find_element("id", element_id).text


def board_with_web(tmp_path, profile, settings, *web_args):
    """A sim with `settings` (config set key=value ...) and a new game, and web on it."""
    sim = Sim(tmp_path, profile).start()
    try:
        assert cli.main(["--port", sim.link, "config", "set", "animation_ms=0"] + list(settings)) == 0
        assert cli.main(["--port", sim.link, "new", "--first", "0"]) == 0
        web, url = start_web(sim.link, *web_args)
    except BaseException:
        sim.stop()
        raise
    return sim, web, url


def test_the_page_loads_nothing_from_outside():
    # The one URL in it is the SVG namespace, a name that is never fetched.
    text = PAGE.replace('"http://www.w3.org/2000/svg"', "")
    for outside in ("http://", "https://", "//cdn", "@import", "url(", "src=", "<link", "@font-face"):
        assert outside not in text, outside


def test_a_press_from_elsewhere_or_without_the_token_is_refused(tmp_path):
    """web --control answers only at its own address (DNS rebinding), and a press must come
    from its page with the token it printed; a bad press is one sentence; none of them plays."""
    sim, web, url = board_with_web(tmp_path, "duo", [], "--control")
    port = url.rstrip("/").rsplit(":", 1)[1]

    def send(path, data=None, **headers):
        req = urllib.request.Request(url + path, data=data, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=HANG_S) as r:
                return r.status, json.loads(r.read()) if data is not None else None
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, json.loads(exc.read())["error"]["message"]

    try:
        before = first_snapshot(url)["state"]
        ok = {"Content-Type": "application/json", "X-Hub-Token": TOKENS[url]}
        good = b'{"seat": 0, "pit": 3}'
        assert send("", Host="rebind.example:" + port) == (403, (
            "The live board answers only at its own address, and this request was for "
            "rebind.example:%s: open the address web printed." % port))
        assert send("press", good, **dict(ok, Host="rebind.example:" + port))[0] == 403
        assert send("press", good, **{"Content-Type": "application/json"}) == (403, (
            "Only the page, or a program given the token web printed, may press; send it in the "
            "X-Hub-Token header."))
        assert send("press", good, **dict(ok, Origin="http://evil.example")) == (403, (
            "Only the live board's own page may press; this request came from http://evil.example."))
        assert send("press", b'{"seat": 0, "pit": "x"}', **ok) == (400, 'pit should be a valid integer, not "x".')
        assert send("press", good, **dict(ok, **{"Content-Type": "text/plain"})) == (
            400, "The request must be JSON, sent as application/json.")
        assert send("press", b" " * 2000, **ok)[0] == 413
        assert snapshot(url)["state"] == before
        status, answer = send("press", good, **dict(ok, Origin=url.rstrip("/")))
        assert status == 200 and answer["ok"], answer
    finally:
        stop_web(web)
        sim.stop()


def test_web_page_shows_the_board_and_follows_moves(tmp_path, browser):
    sim, web, url = board_with_web(tmp_path, "duo", [], "--control", "--stone-ms", "20")
    try:
        browser.get(url)
        wait_for("the board on the page", lambda: len(counts(browser)) == 14)
        start = counts(browser)
        assert [start[(s, p)] for s in (0, 1) for p in range(1, 7)] == [4] * 12
        assert start[(0, 0)] == 0 and start[(1, 0)] == 0
        assert "Kalah, 6 pits, 4 seeds" in text_of(browser, "title")
        assert "Seat 0 to move" in text_of(browser, "status")

        click(browser, "[data-seat='0'][data-pit='3']")
        wait_for("the click's move on the page", lambda: counts(browser)[(0, 0)] == 1)
        wait_for("its animation to end", lambda: page_done(browser, snapshot(url)["seq"]))
        after = counts(browser)
        assert [after[(0, p)] for p in range(1, 7)] == [4, 4, 0, 5, 5, 5]
        notes = text_of(browser, "notes")
        assert "Seat 0 sows 4 from pit 3; the last stone lands in its own store: seat 0 moves again." in notes

        sim.touch(0, 6)  # a finger on the board itself
        wait_for("the pad's move on the page", lambda: counts(browser)[(0, 6)] == 0 and counts(browser)[(0, 0)] == 2)
        wait_for("seat 1's turn", lambda: "Seat 1 to move" in text_of(browser, "status"))

        sim.kill()  # the cable is bumped: the page says so, and picks up again when it is back
        wait_for("the page to say so", lambda: "disconnected" in text_of(browser, "status"))
        sim.start()
        wait_for("the board back on the page", lambda: "The board is back." in text_of(browser, "notes"))
        sim.touch(1, 1)
        wait_for("a move after the restart", lambda: counts(browser)[(1, 1)] == 0)
        assert "Seat 1 sows" in text_of(browser, "notes")
    finally:
        stop_web(web)
        sim.stop()


GEOMETRY = """
const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
return {
  rings: Array.from(document.querySelectorAll('[data-seat]')).map(e =>
    [e.dataset.seat, e.hasAttribute('data-store') ? 'S' : e.dataset.pit, box(e)]),
  labels: Array.from(document.querySelectorAll('[data-label]')).map(e => [e.dataset.label, box(e)]),
  notes: Array.from(document.querySelectorAll('[data-note]')).map(e =>
    [e.hasAttribute('data-newest'), e.textContent, box(e), parseFloat(getComputedStyle(e).fontSize)]),
  head: ['title', 'status', 'caption'].map(id => [id, box(document.getElementById(id)),
        document.getElementById(id).scrollWidth <= document.getElementById(id).clientWidth]),
  size: [window.innerWidth, window.innerHeight]};
"""


def overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def inside(b, size):
    return b[0] >= 0 and b[1] >= 0 and b[2] <= size[0] and b[3] <= size[1]


def check_header(g):
    """The title, the status and the caption are whole, inside the window, and clear of each
    other, the rings and the labels."""
    where = "at %dx%d" % tuple(g["size"])
    head = [(name, b) for name, b, whole in g["head"] if b[2] > b[0]]    # the caption may be empty
    for name, b, whole in g["head"]:
        assert whole, "the %s is cut off %s" % (name, where)
    for i, (name, b) in enumerate(head):
        assert inside(b, g["size"]), "the %s is not inside the window %s" % (name, where)
        for other, c in head[i + 1:]:
            assert not overlap(b, c), "the %s and the %s collide %s" % (name, other, where)
        for _, _, c in g["rings"]:
            assert not overlap(b, c), "the %s covers a ring %s" % (name, where)
        for _, c in g["labels"]:
            assert not overlap(b, c), "the %s covers a label %s" % (name, where)


def check_layout(driver, players, pits, newest):
    g = driver.execute_script(GEOMETRY)
    check_header(g)
    size = g["size"]
    where = "at %dx%d" % tuple(size)
    names = sorted((int(s), p) for s, p, _ in g["rings"])
    assert names == sorted((s, p) for s in range(players) for p in [str(i) for i in range(1, pits + 1)] + ["S"]), where
    boxes = [(s, p, b) for s, p, b in g["rings"]]
    for i, (s, p, b) in enumerate(boxes):
        assert inside(b, size), "%s.%s at %s is not inside the window %s" % (s, p, b, where)
        for t, q, c in boxes[i + 1:]:
            assert not overlap(b, c), "%s.%s overlaps %s.%s %s" % (s, p, t, q, where)
    assert len(g["labels"]) == players
    for i, (s, b) in enumerate(g["labels"]):
        assert inside(b, size), "seat %s's label is not inside the window %s" % (s, where)
        for t, c in g["labels"][i + 1:]:
            assert not overlap(b, c), "the labels of seats %s and %s collide %s" % (s, t, where)
        for t, q, c in boxes:
            assert not overlap(b, c), "seat %s's label covers %s.%s %s" % (s, t, q, where)
    notes = g["notes"]
    assert notes and notes[0][0] and sum(1 for n in notes if n[0]) == 1, "the newest note comes first"
    is_newest, text, box, font_px = notes[0]
    assert text.replace("\xa0", " ") == newest
    assert inside(box, size), "the newest note %s is not inside the window %s" % (box, where)
    # Readable from the back of a room: at least 1/24 of the screen's height, the size of
    # 24-point type on a 768-line slide.
    assert font_px >= size[1] / 24, "the newest note's type is %.1f px %s" % (font_px, where)


def resize(driver, width, height):
    outer = driver.get_window_size()
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight];")
    driver.set_window_size(width + outer["width"] - inner[0], height + outer["height"] - inner[1])
    wait_for("the page laid out at %dx%d" % (width, height),
             lambda: driver.execute_script("return document.body.dataset.fitted;") == "%dx%d" % (width, height))


@pytest.mark.parametrize("profile, settings, players, pits, seed, moves, sizes", [
    ("duo", ["rules.variant=kalah"], 2, 6, 3, 20, ((1280, 720), (1920, 1080), (3840, 2160))),
    ("quad", ["rules.variant=basic", "rules.players=3", "rules.pits=6"], 3, 6, 5, 20,
     ((1280, 720), (1920, 1080), (3840, 2160))),
    ("quad", ["rules.variant=basic", "rules.players=4", "rules.pits=4"], 4, 4, 7, 20,
     ((1280, 720), (1920, 1080), (3840, 2160))),
    # the other shapes a reference board seats, more briefly
    ("duo", ["rules.variant=basic", "rules.players=2", "rules.pits=7"], 2, 7, 1, 4, ((1280, 720), (1920, 1080))),
    ("quad", ["rules.variant=kalah"], 2, 6, 2, 4, ((1280, 720), (1920, 1080))),
])
def test_the_page_fills_the_window_without_overlaps(tmp_path, browser, profile, settings, players, pits, seed,
                                                    moves, sizes):
    sim, web, url = board_with_web(tmp_path, profile, settings, "--control", "--stone-ms", "20")
    try:
        browser.get(url)
        seq = play_seeded(url, seed, moves)
        newest = snapshot(url)["notes"][-1]
        wait_for("the page to show the last move", lambda: page_done(browser, seq))
        for width, height in sizes:
            resize(browser, width, height)
            check_layout(browser, players, pits, newest)
        assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
    finally:
        stop_web(web)
        sim.stop()


def test_a_square_board_stands_in_the_middle_until_the_first_note(tmp_path, browser):
    """The quad page at 1280x720 used only the left half of the screen before the first move:
    the board sat in its column beside an empty notes column. At projector sizes it now
    stands in the middle, as big as the height allows, and moves aside for the notes."""
    sim, web, url = board_with_web(tmp_path, "quad", ["rules.variant=basic", "rules.players=4",
                                                      "rules.pits=6"], "--control", "--stone-ms", "20")
    where = "return (b => [b.left, b.top, b.right, b.bottom])(document.getElementById('%s').getBoundingClientRect());"
    try:
        browser.get(url)
        wait_for("the board on the page", lambda: len(counts(browser)) == 28)
        for width, height in ((1280, 720), (1920, 1080)):
            resize(browser, width, height)
            left, top, right, bottom = browser.execute_script(where % "board")
            assert abs(left - (width - right)) <= 0.02 * width, (width, left, right)
            assert bottom - top >= 0.8 * height and right - left >= 0.45 * width
        seq = play_seeded(url, 4, 1)
        wait_for("the page to show the move", lambda: page_done(browser, seq))
        for width, height in ((1280, 720), (1920, 1080)):
            resize(browser, width, height)
            board = browser.execute_script(where % "board")
            notes = browser.execute_script(where % "notes")
            assert board[0] <= 0.05 * width and notes[0] > board[2] and notes[2] >= 0.95 * width
    finally:
        stop_web(web)
        sim.stop()


# Logs every count the page shows, in order, and which rings flash together. Records may
# come in batches, so each is read from the mutation itself (the text node it added; the
# class it replaced), never from the element as it is by the time the observer runs.
RECORDER = """
window.seen = [];
window.flashes = [];
const flashing = new Set();
const name = g => g.dataset.seat + '.' + (g.hasAttribute('data-store') ? 'S' : g.dataset.pit);
new MutationObserver(list => {
  const after = new Map(), news = [];
  for (let i = list.length - 1; i >= 0; i--) {
    const m = list[i];
    if (m.type !== 'attributes') continue;
    news[i] = after.has(m.target) ? after.get(m.target) : m.target.getAttribute('class');
    after.set(m.target, m.oldValue);
  }
  list.forEach((m, i) => {
    const g = m.target.closest && m.target.closest('[data-seat]');
    if (!g) return;
    if (m.type === 'attributes') {
      if (g !== m.target) return;
      if ((' ' + news[i] + ' ').indexOf(' flash ') >= 0) flashing.add(name(g)); else flashing.delete(name(g));
      window.flashes.push(Array.from(flashing).sort().join(' '));
    } else if (m.target.classList.contains('count') && m.addedNodes.length) {
      window.seen.push(name(g) + '=' + m.addedNodes[0].data);
    }
  });
}).observe(document.getElementById('svg'),
           {subtree: true, childList: true, attributes: true, attributeFilter: ['class'], attributeOldValue: true});
"""


def test_a_sowing_is_shown_stone_by_stone_and_a_capture_plainly(tmp_path, browser):
    sim, web, url = board_with_web(tmp_path, "duo", ["rules.variant=kalah"], "--control", "--stone-ms", "60")
    try:
        browser.get(url)
        wait_for("the board on the page", lambda: len(counts(browser)) == 14)
        browser.execute_script(RECORDER)
        press(url, 0, 3)  # 4 stones: pits 4, 5, 6 and the store, so seat 0 moves again
        wait_for("the sowing to end", lambda: page_done(browser, snapshot(url)["seq"]))
        assert browser.execute_script("return window.seen;") == ["0.3=0", "0.4=5", "0.5=5", "0.6=5", "0.S=1"]
        assert "again" in browser.find_element("css selector", "[data-seat='0'][data-store]").get_attribute("class")
        assert "moves again" in browser.find_element("css selector", "[data-label='0']").text
        assert "played" in browser.find_element("css selector", "[data-seat='0'][data-pit='3']").get_attribute("class")

        # seat 0 pit 4 and seat 1 pit 6 leave one stone in seat 0's pit 3; it lands in the
        # empty pit 4 and takes seat 1's pit 3 with it: on the duo, pads 0.5 and 1.4,
        # diagonally across, since Kalah uses the 6 pits nearest each store.
        # Past the store into seat 1's row: the store's stone comes before seat 1's pits, the
        # board's order, not the order the final counts would be drawn in.
        browser.execute_script("window.seen = [];")
        press(url, 0, 4)
        wait_for("the sowing to end", lambda: page_done(browser, snapshot(url)["seq"]))
        assert browser.execute_script("return window.seen;") == ["0.4=0", "0.5=6", "0.6=6", "0.S=2", "1.1=5", "1.2=5"]
        press(url, 1, 6)
        wait_for("seat 1's move", lambda: page_done(browser, snapshot(url)["seq"]))
        before = counts(browser)
        assert before[(0, 3)] == 1 and before[(0, 4)] == 0 and before[(1, 3)] == 4
        browser.execute_script("window.seen = []; window.flashes = [];")
        press(url, 0, 3)
        wait_for("the capture to end", lambda: page_done(browser, snapshot(url)["seq"]))
        assert browser.execute_script("return window.seen;") == [
            "0.3=0", "0.4=1", "0.4=0", "1.3=0", "0.S=%d" % (before[(0, 0)] + 5)]
        assert "0.4 0.S 1.3" in browser.execute_script("return window.flashes;")
        for sel in ("[data-seat='0'][data-pit='4']", "[data-seat='1'][data-pit='3']"):
            assert "captured" in browser.find_element("css selector", sel).get_attribute("class")
        line = browser.execute_script(
            "const l = document.querySelector('.capline'); return l && [l.getAttribute('x1'), l.getAttribute('x2')];")
        assert line == ["265", "225"], "the capture joins pad 0.5 and pad 1.4 (x 265 and 225 mm) with a line"
        # The opposite pairs are drawn on the duo, whose Kalah rows are shifted by a pit.
        assert len(browser.find_elements("css selector", ".pairline")) == 6
        assert "opposite" in text_of(browser, "caption")
    finally:
        stop_web(web)
        sim.stop()


def test_finished_seats_and_the_final_places(tmp_path, browser):
    sim, web, url = board_with_web(
        tmp_path, "quad", ["rules.variant=basic", "rules.players=3", "rules.pits=4", "rules.seeds=3"],
        "--control", "--stone-ms", "20")
    try:
        browser.get(url)
        rng = random.Random(11)
        seen_finish = False
        while True:
            snap = play_one(url, rng)
            if snap is None:
                break
            st, seq = snap["state"], snap["seq"]
            done = [s for s, p in enumerate(st["places"]) if p is not None]
            if done and not st["over"] and not seen_finish:
                wait_for("the page to show the finish", lambda: page_done(browser, seq))
                label = browser.find_element("css selector", "[data-label='%d']" % done[0]).text
                assert "%s place" % ("1st", "2nd", "3rd")[st["places"][done[0]] - 1] in label
                ring = browser.find_element("css selector", "[data-seat='%d'][data-pit='1']" % done[0])
                assert "dim" in ring.get_attribute("class")
                seen_finish = True
        assert seen_finish and st["over"], "a seeded game ends, with a seat finishing first"
        wait_for("the page to show the end", lambda: page_done(browser, seq))
        for s, place in enumerate(st["places"]):
            assert "%s place" % ("1st", "2nd", "3rd")[place - 1] in \
                browser.find_element("css selector", "[data-label='%d']" % s).text
        winner = st["places"].index(1)
        assert text_of(browser, "status") == "Game over: seat %d wins" % winner
        resize(browser, 1280, 720)
        check_header(browser.execute_script(GEOMETRY))
    finally:
        stop_web(web)
        sim.stop()


def test_a_hint_pulses_on_the_page_until_the_move(tmp_path, browser):
    sim, web, url = board_with_web(tmp_path, "duo", ["rules.variant=kalah"], "--control", "--stone-ms", "20")
    try:
        browser.get(url)
        wait_for("the board on the page", lambda: len(counts(browser)) == 14)
        sim.touch(0, 0)  # seat 0, to move, taps its own store: the CPU's hint
        snap = wait_for("the hint on the web server", lambda: snapshot(url).get("hint"))
        assert snap["seat"] == 0 and 1 <= snap["pit"] <= 6
        hinted = wait_for("the hint on the page", lambda: browser.find_elements("css selector", ".hinted"))
        assert [(h.get_attribute("data-seat"), h.get_attribute("data-pit")) for h in hinted] == [("0", str(snap["pit"]))]
        assert "The CPU suggests pit %d for seat 0." % snap["pit"] in text_of(browser, "notes")
        press(url, 0, snap["pit"])
        wait_for("the hint gone after the move", lambda: not browser.find_elements("css selector", ".hinted"))
    finally:
        stop_web(web)
        sim.stop()
