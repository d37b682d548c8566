"""Screenshots of the projector page (`mancala-board web`) for docs/host-tool.md, from the
virtual board and Debian's headless Chromium: duo Kalah and quad Basic with 4 players, at
1280x720 and 1920x1080. The games are seeded, so every run shows the same position.

    .venv/bin/python docs/img/make_web_screenshots.py      # writes docs/img/web-*.png
"""
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "host_tools"))
import projector  # noqa: E402

from mancala_host.commands import cli  # noqa: E402

# (name, profile, settings, seed, stop): play seeded moves until stop(record, moves) says so.
SHOTS = (
    ("duo", "duo", ["rules.variant=kalah"], 3,
     lambda rec, n: n >= 8 and bool(rec.get("capture"))),          # a capture, across the board
    ("quad", "quad", ["rules.variant=basic", "rules.players=4", "rules.pits=6"], 7,
     lambda rec, n: n >= 14),
)
SIZES = ((1280, 720), (1920, 1080))


def start_sim(folder, profile):
    link = os.path.join(folder, "board.pty")
    sim = subprocess.Popen([sys.executable, "-m", "mancala_host", "sim", "--pty", link,
                            "--flash", os.path.join(folder, "flash"), "--profile", profile],
                           env=projector.ENV, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, start_new_session=True)

    def answers():
        if sim.poll() is not None:
            raise SystemExit("the virtual board did not start")
        return os.path.exists(link) and cli.main(["--port", link, "info"]) == 0
    projector.wait_for("the virtual board", answers)
    return sim, link


def shoot(name, profile, settings, seed, stop, folder):
    sim, link = start_sim(folder, profile)
    try:
        assert cli.main(["--port", link, "config", "set", "animation_ms=0"] + settings) == 0
        assert cli.main(["--port", link, "new", "--first", "0"]) == 0
        web, url = projector.start_web(link, "--control", "--stone-ms", "20")
        try:
            rng, n = random.Random(seed), 0
            while True:
                snap = projector.play_one(url, rng)
                if snap is None:
                    break
                n += 1
                if stop(snap["record"] or {}, n):
                    break
            seq = projector.snapshot(url)["seq"]
            for w, h in SIZES:
                driver = projector.chromium(os.path.join(folder, "chromium-%d" % w), w, h)
                try:
                    driver.get(url)
                    projector.wait_for("the page", lambda: projector.page_done(driver, seq) and
                                       driver.execute_script("return document.body.dataset.fitted;") == "%dx%d" % (w, h))
                    time.sleep(0.3)   # the last paint
                    out = os.path.join(HERE, "web-%s-%dx%d.png" % (name, w, h))
                    driver.save_screenshot(out)
                    print("wrote", os.path.relpath(out, ROOT))
                finally:
                    driver.quit()
        finally:
            projector.stop_web(web)
    finally:
        os.killpg(sim.pid, 15)
        sim.wait()


def main():
    for shot in SHOTS:
        with tempfile.TemporaryDirectory(prefix="mancala-web-shot-") as folder:
            shoot(*shot, folder=folder)


if __name__ == "__main__":
    main()
