"""`mancala-board web` in real headless Chromium (Debian's chromium + chromedriver, Selenium):
the page shows the virtual board and updates after a move, made both by a click on the page
(--control) and by a touch on the board's pad, and lives through the board being killed and
restarted."""

import os
import subprocess
import sys

import pytest

from test_host_sim import ENV, Sim, wait_for

from mancala_host import cli

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


@pytest.fixture
def browser(tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    assert os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER), \
        "the web view test needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)"
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage", "--window-size=1600,1000",
                 "--user-data-dir=%s" % (tmp_path / "chromium-profile")):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    yield driver
    driver.quit()


def counts(driver):
    """Every ring's count on the page, as {(seat, pit): n}, pit 0 the store."""
    rings = driver.execute_script(
        "return Array.from(document.querySelectorAll('svg g')).map(g => "
        "[g.dataset.seat, g.dataset.pit, g.querySelector('text.count').textContent]);")
    return dict(((int(s), int(p)), int(n)) for s, p, n in rings)


def click(driver, selector):
    """A real mouse click; the page redraws on every event, so retry on a replaced element."""
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(20):
        try:
            driver.find_element("css selector", selector).click()
            return
        except StaleElementReferenceException:
            continue
    raise AssertionError("could not click " + selector)


def test_web_page_shows_the_board_and_follows_moves(tmp_path, browser):
    sim = Sim(tmp_path).start()
    web = None
    try:
        assert cli.main(["--port", sim.link, "config", "set", "animation_ms=0"]) == 0
        assert cli.main(["--port", sim.link, "new", "--first", "0"]) == 0
        web = subprocess.Popen([sys.executable, "-m", "mancala_host", "--port", sim.link, "web",
                                "--http-port", "0", "--control"],
                               env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = web.stdout.readline()
        assert line.startswith("The live board is at http://localhost:"), line + web.stderr.read()
        url = line.split(" at ")[1].split()[0]
        browser.get(url)
        wait_for("the board on the page", lambda: len(counts(browser)) == 14)
        start = counts(browser)
        assert [start[(s, p)] for s in (0, 1) for p in range(1, 7)] == [4] * 12
        assert start[(0, 0)] == 0 and start[(1, 0)] == 0
        assert "Kalah, 6 pits, 4 seeds" in browser.find_element("id", "title").text
        assert "Seat 0 to move" in browser.find_element("id", "status").text

        click(browser, "g[data-seat='0'][data-pit='3']")
        wait_for("the click's move on the page", lambda: counts(browser)[(0, 0)] == 1)
        after = counts(browser)
        assert [after[(0, p)] for p in range(1, 7)] == [4, 4, 0, 5, 5, 5]
        notes = browser.find_element("id", "notes").text
        assert "Seat 0 sows 4 from pit 3; the last stone lands in its own store: seat 0 moves again." in notes

        sim.touch(0, 6)  # a finger on the board itself
        wait_for("the pad's move on the page", lambda: counts(browser)[(0, 6)] == 0)
        assert counts(browser)[(0, 0)] == 2
        assert "Seat 1 to move" in browser.find_element("id", "status").text
        browser.save_screenshot(str(tmp_path / "web.png"))

        sim.kill()  # the cable is bumped: the page says so, and picks up again when it is back
        wait_for("the page to say so", lambda: "disconnected" in browser.find_element("id", "status").text)
        sim.start()
        wait_for("the board back on the page", lambda: "The board is back." in browser.find_element("id", "notes").text)
        sim.touch(1, 1)
        wait_for("a move after the restart", lambda: counts(browser)[(1, 1)] == 0)
        assert "Seat 1 sows" in browser.find_element("id", "notes").text
    finally:
        if web is not None:
            web.terminate()
            web.wait(10)
        sim.stop()
    assert web.returncode is not None
