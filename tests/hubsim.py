"""Virtual boards for the classroom hub's tests and bench: N sims, each on its own pty
(`mancala-board sim --pty LINK --flash DIR`), started together, and `mancala-board class` on
them as a process of its own, with its page's JSON requests.

    boards = start_boards(tmp_path, 6)            # test_host_sim.Sim objects, all answering
    hub, url = start_hub(tmp_path / "class", boards)
    post(url, "settings", variant="kalah", seeds=3)   # with the token the hub printed
    tile = wait_tile(url, boards[0].link, lambda t: t["status"] == "live")
"""
import json
import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request

from boardsim import TapWriter
from hub_paths import slug
from test_host_sim import ENV, Sim
from waits import HANG_S, wait_for

TOKENS = {}   # the hub's url -> its token, read from the line it prints at start


class HubSim(Sim):
    def launch(self):
        """Start the sim without waiting for it (start_boards waits for all of them)."""
        wait = self._answers
        self.starts += 1
        self.touch_path = str(self.dir / ("touch%d.txt" % self.starts))
        open(self.touch_path, "w").close()
        self.taps = TapWriter(self.touch_path)
        log = open(str(self.dir / "sim.log"), "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mancala_host", "sim", "--pty", self.link, "--flash",
             str(self.flash), "--profile", self.profile_name, "--heapsize", "320k"],
            env=dict(ENV, MANCALA_SIM_TOUCH=self.touch_path), stdout=log,
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
            cwd=str(self.dir))
        log.close()
        return wait

    @property
    def key(self):
        return slug(self.link)


def start_boards(tmp_path, n):
    boards = []
    for i in range(n):
        d = tmp_path / ("b%d" % (i + 1))
        d.mkdir()
        boards.append(HubSim(d))
    waits = [b.launch() for b in boards]
    for w in waits:
        wait_for("a virtual board to answer hello", w)
    return boards


def start_hub(folder, boards, *more):
    args = [sys.executable, "-m", "mancala_host", "class", "--no-usb", "--out", str(folder),
            "--http-port", "0"] + ([] if "--kgp-port" in more else ["--kgp-port", "0"])
    for b in boards:
        args += ["--port", b.link]
    hub = subprocess.Popen(args + list(more), env=ENV, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    line = hub.stdout.readline()
    if not line.startswith("The class is at http://"):
        hub.kill()
        raise AssertionError("the hub did not start: " + line + hub.stderr.read())
    token = hub.stdout.readline().split(": ")[-1].strip()
    _drain(hub)
    url = line.split(" at ")[1].split()[0].split("?")[0]
    if "--host" in more:   # another address than loopback: a test reaches it on loopback
        url = "http://127.0.0.1:" + url.rsplit(":", 1)[1]
    TOKENS[url] = token
    return hub, url


def _drain(hub):
    """Read the hub's stdout and stderr from now on, into hub.out and hub.err (lists of
    lines), so that a hub that writes much never stops on a full pipe, and a failing test can
    show what it said."""
    hub.out, hub.err = [], []

    def read(stream, lines):
        for line in stream:
            lines.append(line)

    for stream, lines in ((hub.stdout, hub.out), (hub.stderr, hub.err)):
        threading.Thread(target=read, args=(stream, lines), daemon=True).start()


def next_line(hub, n):
    """The hub's nth line on stdout after its url and token (1: the next), once printed."""
    return wait_for("the hub's line %d (stderr: %r)" % (n, hub.err[-5:]),
                    lambda: hub.out[n - 1] if len(hub.out) >= n else None)


def stop_hub(hub):
    hub.terminate()
    try:
        return hub.wait(HANG_S)
    except subprocess.TimeoutExpired:
        hub.kill()
        hub.wait()
        raise AssertionError("the hub did not stop on SIGTERM")


def get(url, path="snapshot"):
    req = urllib.request.Request(url + path, headers={"X-Hub-Token": TOKENS.get(url, "")})
    with urllib.request.urlopen(req, timeout=HANG_S) as r:
        return json.loads(r.read().decode())


def send(url, path, data, headers):
    """(HTTP status, the JSON answer) of a POST to the hub, whatever the status."""
    req = urllib.request.Request(url + path, data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=HANG_S) as r:
            return r.status, json.loads(r.read().decode())
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, json.loads(exc.read().decode())


def post(url, action, **body):
    """The hub's answer to a POST with its token, as its page sends it."""
    return send(url, "api/" + action, json.dumps(body).encode(),
                {"Content-Type": "application/json", "X-Hub-Token": TOKENS.get(url, "")})[1]


def tiles(url):
    return {t["key"]: t for t in get(url)["tiles"]}


def wait_tiles(url, what, check, deadline_s=HANG_S):
    """The tiles once check(tiles by key) holds; a failure names each tile's last status."""
    last = {}

    def ready():
        t = tiles(url)
        last.clear()
        last.update(t)
        return t if check(t) else None

    try:
        return wait_for(what, ready, deadline_s)
    except AssertionError as exc:
        raise AssertionError("%s; the tiles last said %s" % (exc, {
            k: (t.get("status"), t.get("problem")) for k, t in last.items()})) from None
