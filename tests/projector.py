"""Drives the projector page (`mancala-board web --control`) for the browser tests and for
docs/img/make_web_screenshots.py: Debian's headless Chromium through Selenium, and seeded
games played through the page's own /press, so every run plays the same moves.

    web, url = start_web(link, "--control", "--stone-ms", "60")
    driver = chromium(profile_dir, 1280, 720)
    driver.get(url)
    play_seeded(url, seed=3, moves=20)      # the seat to move plays a seeded random legal pit
"""
import json
import os
import random
import subprocess
import sys
import urllib.request

from test_host_sim import ENV, wait_for  # noqa: F401  (wait_for is for the callers too)
from waits import HANG_S

CHROMIUM = "/usr/bin/chromium"
TOKENS = {}   # web's url -> the token it printed (with --control)
CHROMEDRIVER = "/usr/bin/chromedriver"


def start_web(link, *args):
    """`mancala-board web` on the board at `link`, on any free port: (process, url)."""
    web = subprocess.Popen([sys.executable, "-m", "mancala_host", "--port", link, "web",
                            "--http-port", "0"] + list(args),
                           env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = web.stdout.readline()
    if not line.startswith("The live board is at http://localhost:"):
        web.kill()
        raise AssertionError("web did not start: " + line + web.stderr.read())
    url = line.split(" at ")[1].split()[0]
    if "--control" in args:   # the token a press carries, on the next line
        TOKENS[url] = web.stdout.readline().split(": ")[-1].strip()
    return web, url


def stop_web(web):
    web.terminate()
    try:
        web.wait(HANG_S)
    except subprocess.TimeoutExpired:
        web.kill()
        web.wait()


def chromium(profile_dir, width, height):
    """Headless Chromium whose page (the viewport) is width x height CSS pixels."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    assert os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER), \
        "the web view needs Debian's chromium and chromium-driver (make browser)"
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage", "--hide-scrollbars", "--force-device-scale-factor=1",
                 "--window-size=%d,%d" % (width, height), "--user-data-dir=%s" % profile_dir):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    # --window-size sizes the window; make the page itself the size asked for.
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight];")
    driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])
    return driver


def snapshot(url):
    with urllib.request.urlopen(url + "snapshot", timeout=HANG_S) as r:
        return json.loads(r.read().decode())


def first_snapshot(url):
    """The web server's snapshot, once it holds the board's state (web prints its address
    before the board's first state is in)."""
    return wait_for("the web server's first snapshot",
                    lambda: (lambda now: now if "state" in now else None)(snapshot(url)))


def press(url, seat, pit):
    """Press through the page's /press; returns the snapshot of the move, once web has it (the
    board's answer can come before web has read the move's event)."""
    before = first_snapshot(url)["seq"]
    body = json.dumps({"seat": seat, "pit": pit}).encode()
    req = urllib.request.Request(url + "press", data=body, headers={
        "Content-Type": "application/json", "X-Hub-Token": TOKENS.get(url, "")})
    with urllib.request.urlopen(req, timeout=HANG_S) as r:
        answer = json.loads(r.read().decode())
    if not answer.get("ok"):
        raise AssertionError("press %d %d: %s" % (seat, pit, answer))
    return wait_for("the move on the web server",
                    lambda: (lambda now: now if now["seq"] > before else None)(snapshot(url)))


def play_one(url, rng):
    """The seat to move plays a legal pit chosen by `rng`; the snapshot after it, or None if
    the game is over."""
    from mancala import Game

    game = Game.from_dict(first_snapshot(url)["state"])
    if game.over:
        return None
    return press(url, game.turn, rng.choice(game.legal_moves()))


def play_seeded(url, seed, moves):
    """Play up to `moves` moves (fewer if the game ends) with random.Random(seed); returns the
    `seq` of the last snapshot."""
    rng = random.Random(seed)
    for _ in range(moves):
        if play_one(url, rng) is None:
            break
    return snapshot(url)["seq"]


def page_done(driver, seq):
    """The page has drawn snapshot `seq` and finished animating it."""
    return driver.execute_script(
        "return document.body.dataset.seq === arguments[0] && !document.body.dataset.sowing;", str(seq))
