"""Every request to the classroom hub is checked before anything changes (hub/schema.py,
hub/guard.py), on one virtual board (unix port):
- each bad request (the table of issue rows: seeds "x", a bogus variant, cpu_level 99,
  rounds 1e9, cpu_level as a list, 9,000 player names, and more) gets HTTP 400, or 413 for a
  body too large, with one JSON sentence, and the room is the same before and after;
- a foreign Host (DNS rebinding) and a POST without the token are refused;
- a running tournament is replaced only with replace: true, and the page asks first (Chromium,
  on a second board: dealing changes its room);
- a hub served beyond loopback (--host 0.0.0.0) wants its token on every request, GETs and the
  event stream included, and its page works from the printed address in Chromium."""
import http.client
import json
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from hubsim import TOKENS, get, post, send, start_boards, start_hub, stop_hub, wait_tiles
from projector import chromium
from test_host_sim import ENV
from waits import HANG_S, wait_for


def _one_board(tmp):
    boards = start_boards(tmp, 1)
    hub, url = start_hub(tmp / "class", boards)
    try:
        wait_tiles(url, "the board live", lambda t: len(t) == 1 and
                   all(x["status"] == "live" for x in t.values()))
        assert post(url, "settings", animation_ms=0)["ok"]
    except BaseException:
        stop_hub(hub)
        boards[0].stop()
        raise
    return boards[0], hub, url


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    """One board in a hub where no tournament is dealt: nothing changes by itself."""
    board, hub, url = _one_board(tmp_path_factory.mktemp("hubreq"))
    yield board, url
    stop_hub(hub)
    board.stop()


@pytest.fixture(scope="module")
def dealing(tmp_path_factory):
    """One board in a hub whose tests deal tournaments of people only (nothing plays by
    itself), each with rules other than the last, so its tile shows when a deal is done."""
    board, hub, url = _one_board(tmp_path_factory.mktemp("hubdeal"))
    yield board, url
    stop_hub(hub)
    board.stop()


def room_now(url):
    """What a request could change: the standings, the last setting, each tile as its board
    reports it (not its clock readings), and the bots' rules."""
    snap = get(url)
    keep = ("label", "status", "problem", "state", "seats", "paused", "locked", "players", "seq")
    bots = get(url, "bots.json")
    return {"standings": snap["standings"], "setting": snap["setting"],
            "tiles": {t["key"]: {k: t[k] for k in keep} for t in snap["tiles"]},
            "bots": {k: bots[k] for k in ("move_s", "grace_s", "no_move")}}


def api(url, action, body, **headers):
    """(status, answer) of a POST with the token, as the page sends it; `body` as given (bytes)
    or as JSON."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return send(url, "api/" + action, data, dict({"Content-Type": "application/json",
                                                  "X-Hub-Token": TOKENS[url]}, **headers))


def one_sentence(answer):
    assert set(answer) <= {"ok", "error", "confirm"} and answer["ok"] is False, answer
    error = answer["error"]
    assert error.endswith(".") and "\n" not in error and "Traceback" not in error, error
    assert len(error) < 240, error
    return error


NAMES = ["Ann", "Ben"]
# Each with "replace": true, so that a request the schema let through would replace whatever
# tournament runs and change the room.
BAD = [
    ("tournament", dict(players=NAMES, seeds="x"), 'seeds should be a valid integer, not "x".'),
    ("tournament", dict(players=NAMES, variant="bogus"),
     "variant should be 'kalah' or 'basic', not \"bogus\"."),
    ("tournament", dict(players=NAMES, cpu_level=99),
     "cpu_level should be less than or equal to 5, not 99."),
    ("tournament", b'{"players": ["Ann", "Ben"], "style": "swiss", "rounds": 1e9, "replace": true}',
     "rounds should be a valid integer, not 1000000000.0."),
    ("tournament", dict(players=NAMES, style="swiss", rounds=3),
     "A Swiss tournament of 2 players has at most 2 rounds, not 3."),
    ("tournament", dict(players=NAMES, cpu_level=[1, 2]), "cpu_level should be a valid integer, not [1, 2]."),
    ("tournament", dict(players=["P%d" % i for i in range(65)]), "players should have at most 64 items, not 65."),
    ("tournament", dict(players=["Ann", "B" * 41]), None),
    ("tournament", dict(players=["Ann", 7]), "players[1] should be a valid string, not 7."),
    ("tournament", dict(players=NAMES, variant="basic", seeds=5), "seeds must be 3 or 4 for basic, got 5."),
    ("tournament", dict(players=NAMES, seeds=3.0), None),
    ("tournament", dict(players=NAMES, seeds=True), None),
    ("tournament", dict(players=NAMES, colour="red"), None),
    ("tournament", dict(players=["Ann", "Ann"]), None),
    ("tournament", dict(players=NAMES, style="knockout"), None),
    ("settings", dict(seeds=7), "seeds should be less than or equal to 5, not 7."),
    ("settings", dict(variant="kalah", players=4), "players must be 2 for kalah, got 4."),
    ("settings", dict(players="4"), None),
    ("settings", dict(move_time_limit=45), None),
    ("settings", dict(seats=[{"kind": "cpu", "level": 9}]), None),
    ("settings", dict(boards=["no-such-board"], seeds=3), "There is no board no-such-board in this room."),
    ("settings", dict(boards="all", seeds=3), None),
    ("pause", dict(boards=[7]), None),
    ("label", dict(board="x"), "The request needs label."),
    ("label", dict(board="x", label="y" * 25), None),
    ("export", dict(folder="/etc"), None),
    ("bots", dict(move_s=0.1), "move_s should be greater than or equal to 0.5, not 0.1."),
    ("bots", dict(), "Give at least one of move_s, grace_s or no_move."),
    ("bots", dict(no_move="never"), None),
    ("bots", dict(move_s="5"), None),
    ("bots", dict(grace_s=30, speed=2), None),
    ("start", b"[1, 2]", "The request must be a JSON object, such as {\"boards\": null}."),
    ("start", b'{"boards": ', None),
]


@pytest.mark.parametrize("action, body, error", BAD, ids=[
    "%d-%s" % (i, a) for i, (a, _, _) in enumerate(BAD)])
def test_a_bad_request_gets_400_and_changes_nothing(room, action, body, error):
    _, url = room
    if isinstance(body, dict) and action == "tournament":
        body = dict(body, replace=True)
    before = room_now(url)
    status, answer = api(url, action, body)
    assert status == 400, answer
    said = one_sentence(answer)
    if error is not None:
        assert said == error
    assert room_now(url) == before


def test_a_request_the_hub_does_not_have_is_one_json_sentence(room):
    _, url = room
    assert api(url, "no-such", {}) == (404, {"ok": False, "error": (
        "The hub has no request POST /api/no-such; docs/host-tool.md §13 lists them.")})
    req = urllib.request.Request(url + "api/start")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(req, timeout=HANG_S)
    with refused.value as r:
        assert r.code == 405 and json.loads(r.read())["error"] == (
            "GET /api/start is not served: the hub's requests are POSTs.")


def test_a_body_too_large_gets_413_in_json_and_changes_nothing(room):
    _, url = room
    before = room_now(url)
    names = ["Player number %d" % i for i in range(9000)]   # about 190 kB
    status, answer = api(url, "tournament", {"players": names, "replace": True})
    assert status == 413 and one_sentence(answer) == \
        "The request is larger than the hub takes (16384 bytes at most)."
    # the same sent in chunks, with no length said beforehand
    host, port = url.split("//")[1].rstrip("/").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=HANG_S)
    try:
        conn.request("POST", "/api/tournament", body=iter([json.dumps({"players": names}).encode()]),
                     headers={"Content-Type": "application/json", "X-Hub-Token": TOKENS[url]},
                     encode_chunked=True)
        r = conn.getresponse()
        assert r.status == 413 and json.loads(r.read())["error"].startswith("The request is larger")
    finally:
        conn.close()
    assert room_now(url) == before


def test_a_foreign_host_is_refused(room):
    """DNS rebinding: another site's name pointed at this computer; its requests name it."""
    _, url = room
    port = url.rstrip("/").rsplit(":", 1)[1]
    before = room_now(url)
    evil = "rebind.example:" + port
    status, answer = api(url, "pause", {"boards": None}, Host=evil, Origin="http://" + evil)
    assert status == 403 and one_sentence(answer).startswith(
        "The hub answers only at its own address, and this request was for rebind.example:")
    for host in (evil, "localhost:1", "localhost.rebind.example:" + port, "127.0.0.1.nip.io:" + port):
        req = urllib.request.Request(url + "snapshot", headers={"Host": host})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(req, timeout=HANG_S)
        assert refused.value.code == 403, host
        refused.value.close()
    assert room_now(url) == before
    # the hub's own names for loopback are served
    for host in ("localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port):
        req = urllib.request.Request(url + "snapshot", headers={"Host": host})
        with urllib.request.urlopen(req, timeout=HANG_S) as r:
            assert r.status == 200 and "tiles" in json.loads(r.read())


def test_a_post_without_the_token_or_from_another_site_is_refused(room):
    """A page from elsewhere in the teacher's browser, or a program without the token,
    changes nothing; a form post (not JSON) neither."""
    _, url = room
    before = room_now(url)
    status, answer = api(url, "pause", {"boards": None}, **{"X-Hub-Token": ""})
    assert status == 403 and one_sentence(answer) == (
        "Only the hub's page, or a program given the hub's token, may change the room; this "
        "request has no token: send it in the X-Hub-Token header.")
    status, answer = api(url, "pause", {"boards": None}, **{"X-Hub-Token": "x" * 24})
    assert status == 403 and "has a wrong token" in one_sentence(answer)
    status, answer = api(url, "pause", {"boards": None}, Origin="http://evil.example")
    assert status == 403 and one_sentence(answer) == (
        "Only the hub's own page may change the room; this request came from http://evil.example.")
    status, answer = api(url, "pause", b"boards=", **{"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 400 and one_sentence(answer) == "The request must be JSON, sent as application/json."
    # another site's page would need a preflight to send the token header: none is granted
    req = urllib.request.Request(url + "api/pause", method="OPTIONS", headers={
        "Origin": "http://evil.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,x-hub-token"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(req, timeout=HANG_S)
    with refused.value as r:
        assert r.code == 405 and not any(h.lower().startswith("access-control-") for h in r.headers)
    assert room_now(url) == before
    # the page's own origin, with the token, is served
    status, answer = api(url, "pause", {"boards": None}, Origin=url.rstrip("/"))
    assert status == 200 and answer["ok"], answer
    wait_tiles(url, "the board paused", lambda t: all(x["paused"] for x in t.values()))
    assert post(url, "resume")["ok"]
    wait_tiles(url, "the board resumed", lambda t: not any(x["paused"] for x in t.values()))


def _dealt(url, names, seeds):
    """The tile once the board has the first game of `names` with `seeds`, no move made."""
    def started(tile):
        st = tile["state"]
        return (tile["players"] and sorted(tile["players"]) == sorted(names) and st and
                st["rules"]["seeds"] == seeds and sum(st["stores"]) == 0 and
                all(c == seeds for row in st["pits"] for c in row))
    return wait_tiles(url, "a game of %s dealt" % (names,), lambda t: all(map(started, t.values())))


def test_a_running_tournament_is_replaced_only_when_confirmed(dealing):
    _, url = dealing
    status, answer = api(url, "tournament", {"players": ["Ann", "Ben"], "seeds": 3, "replace": True})
    assert status == 200 and answer["results"] == {"rounds": 1}
    _dealt(url, ["Ann", "Ben"], 3)
    before = room_now(url)
    status, answer = api(url, "tournament", {"players": ["Dee", "Eve"], "seeds": 5})
    assert status == 409 and answer["confirm"] == "replace"
    assert one_sentence(answer).startswith("A tournament is running (round 1 of 1): confirm")
    assert room_now(url) == before
    status, answer = api(url, "tournament", {"players": ["Dee", "Eve"], "seeds": 5, "replace": True})
    assert status == 200 and answer["ok"]
    assert [r["name"] for r in get(url)["standings"]["standings"]] == ["Dee", "Eve"]
    _dealt(url, ["Dee", "Eve"], 5)


def test_the_page_asks_before_it_replaces_a_running_tournament(dealing, tmp_path):
    """In Chromium: the page's requests carry the token it was served with; a tournament
    started while one runs opens a dialog, and only "Replace it" replaces it."""
    _, url = dealing
    assert post(url, "tournament", players=["Ann", "Ben"], seeds=3, replace=True)["ok"]
    _dealt(url, ["Ann", "Ben"], 3)
    driver = chromium(str(tmp_path / "chromium"), 1280, 720)
    try:
        driver.get(url)
        wait_for("the grid", lambda: driver.execute_script("return document.body.dataset.ready"))
        driver.find_element("id", "show-controls").click()
        driver.find_element("id", "entrants").send_keys("Kim\nLee")
        start = driver.find_element("css selector", '[data-act="tournament"]')
        start.click()
        dialog = driver.find_element("id", "replace")
        wait_for("the dialog", dialog.is_displayed)
        assert "A tournament is running" in driver.find_element("id", "replace-why").text
        driver.find_element("id", "replace-no").click()
        wait_for("the dialog closed", lambda: not dialog.is_displayed())
        assert driver.find_element("id", "answer").text == "The running tournament goes on."
        assert [r["name"] for r in get(url)["standings"]["standings"]] == ["Ann", "Ben"]
        start.click()
        wait_for("the dialog again", dialog.is_displayed)
        driver.find_element("id", "replace-yes").click()
        wait_for("the page's answer", lambda: driver.find_element("id", "answer").text == "Done.")
        assert sorted(r["name"] for r in get(url)["standings"]["standings"]) == ["Kim", "Lee"]
        _dealt(url, ["Kim", "Lee"], 4)   # the page's tournament: the rules as they are (Kalah, 4)
    finally:
        driver.quit()


TOKEN = "the-teachers-token-0123"


@pytest.fixture(scope="module")
def open_hub(tmp_path_factory):
    """A hub served on every address (--host 0.0.0.0) with a given token, holding one board
    that never answers (a link nobody made): no board is needed to test who is let in."""
    tmp = tmp_path_factory.mktemp("hubopen")
    hub, url = start_hub(tmp / "class", [], "--port", str(tmp / "no-board"),
                         "--host", "0.0.0.0", "--token", TOKEN)
    try:
        yield hub, url
    finally:
        stop_hub(hub)


def _get(url, path, **headers):
    """(status, headers, body) of a GET that is not redirected."""
    class Keep(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args):
            return None
    opener = urllib.request.build_opener(Keep)
    try:
        with opener.open(urllib.request.Request(url + path, headers=headers), timeout=HANG_S) as r:
            return r.status, r.headers, r.readline()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.headers, exc.read()


def test_a_hub_beyond_loopback_wants_its_token_on_every_request(open_hub):
    _, url = open_hub
    assert TOKENS[url] == TOKEN   # the second line printed at start
    for path in ("", "snapshot", "events", "board/x/"):
        status, _, body = _get(url, path)
        assert status == 403, path
        assert json.loads(body)["error"].startswith("This hub serves the network only with its token")
        assert _get(url, path, Cookie="mancala_hub_token=wrong-wrong-wrong-wrong")[0] == 403
    # the printed address: its token becomes a cookie, and leaves the address bar
    status, headers, _ = _get(url, "?token=" + TOKEN)
    assert status == 303 and headers["Location"] == "/"
    cookie = headers["Set-Cookie"]
    assert cookie.startswith("mancala_hub_token=%s;" % TOKEN)
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    for path in ("", "snapshot", "events"):
        status, _, line = _get(url, path, Cookie="mancala_hub_token=" + TOKEN)
        assert status == 200 and line, path
    assert _get(url, "snapshot", **{"X-Hub-Token": TOKEN})[0] == 200
    # a POST needs the header itself: a cookie is not enough
    status, answer = send(url, "api/export", b"{}", {"Content-Type": "application/json",
                                                     "Cookie": "mancala_hub_token=" + TOKEN})
    assert status == 403 and "has no token" in answer["error"]
    status, answer = send(url, "api/export", b"{}", {"Content-Type": "application/json",
                                                     "X-Hub-Token": TOKEN})
    assert status == 200 and answer["results"]["folder"]


def test_the_page_works_from_the_printed_address_in_chromium(open_hub, tmp_path):
    _, url = open_hub
    driver = chromium(str(tmp_path / "chromium"), 1280, 720)
    try:
        driver.get(url + "?token=" + TOKEN)
        # the grid: its event stream opened with the cookie, its tile drawn
        wait_for("the grid", lambda: driver.execute_script(
            "return document.body.dataset.ready && document.querySelectorAll('.tile').length") == 1)
        assert driver.current_url == url
        driver.find_element("id", "show-controls").click()
        driver.find_element("css selector", '[data-act="export"]').click()
        wait_for("the export's answer", lambda: driver.find_element("id", "answer").text.startswith(
            "Exported to "))
        # the bots tab: the teacher sets the bots' rules (its POST carries the page's token)
        driver.get(url + "bots")
        wait_for("the rules in the form", lambda: driver.execute_script(
            "return document.getElementById('move_s').value") == "5")
        driver.execute_script("document.getElementById('move_s').value = '12.5';"
                              "document.getElementById('no_move').value = 'forfeit';")
        driver.find_element("css selector", "#rules button").click()
        wait_for("the answer", lambda: driver.find_element("id", "said").text ==
                 "Set: it applies from the next move asked.")
        wait_for("the rule line", lambda: "12.5 s a move; no legal pit by then: the bot "
                 "forfeits" in driver.find_element("id", "rule").text)
        rules = get(url, "bots.json")
        assert (rules["move_s"], rules["grace_s"], rules["no_move"]) == (12.5, 60, "forfeit")
    finally:
        driver.quit()


def test_a_token_that_would_not_fit_an_address_is_one_sentence(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mancala_host", "class", "--port", str(tmp_path / "b"),
                           "--no-usb", "--out", str(tmp_path / "class"), "--token", "short"],
                          env=ENV, capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(
        "A --token is 16 to 128 letters, digits, '-' or '_'")
