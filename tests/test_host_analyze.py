"""`mancala-board analyze`: logs of real engine games, with a blunder planted by an oracle
that is not the CPU's search (tests/reference_player.py's plain alpha-beta), bad lines, --game
and --json. Searches are capped by nodes, not the clock, so every run gives the same figures.
"""

import json

import fakeport  # noqa: F401  (puts host_tools and firmware/lib on sys.path)
import reference_player

from mancala import Game, Rules
from mancala_host.commands import cli
from mancala_host.logs import analyze, gamelog

NODES = ["--nodes", "2500", "--budget-ms", "60000"]


def mb(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def move_values(game, depth=4):
    """{pit: value for the mover} by the reference's alpha-beta (store difference)."""
    seat = game.turn
    values = {}
    for pit in game.legal_moves():
        game.push(pit)
        values[pit] = reference_player._alphabeta(game, seat, depth - 1, -10000, 10000)
        game.pop()
    return values


def _blunder(values, plant):
    """Whether the oracle's values of a position make its worst move a planted blunder:
    "stones", at least 8 stones worse than the best; "game", from a forced win to a forced
    loss (the oracle's finished games score +-1000)."""
    best = max(values.values())
    worst = min(values.values())
    if plant == "game":
        return best >= 500 and worst <= -500
    return abs(best) < 500 and best - worst >= 8


def play_game(rules, plant="stones", players_by=("human", "cpu"), opening=()):
    """A whole game of reference moves (depth 2) after the opening pits; with `plant`, seat 0
    once plays the pit the oracle rates worst (_blunder). Returns (log entry, planted move
    no.)."""
    r = Rules.from_dict(rules)
    game = Game(r, first=0)
    entry = gamelog.new_game({"profile": "duo", "firmware": "test"}, r.to_dict(),
                             [{"kind": "human"}, {"kind": "cpu", "level": 2}], 0)
    planted = None
    while not game.over:
        seat = game.turn
        n = len(entry["moves"])
        pit = opening[n] if n < len(opening) else reference_player.reference_move(game, depth=2)
        if plant and planted is None and seat == 0 and n >= 6 and game.players == 2:
            values = move_values(game)
            if _blunder(values, plant):
                pit = min(values, key=values.get)
                planted = n + 1
        game.play(pit)
        entry["moves"].append({"seat": seat, "pit": pit, "by": players_by[seat % 2]})
    state = game.to_dict()
    entry["result"] = {"places": state["places"], "stores": state["stores"]}
    return entry, planted


def write_log(path, entries, extra_lines=()):
    for entry in entries:
        gamelog.append_game(str(path), entry)
    with open(str(path), "a") as f:
        for line in extra_lines:
            f.write(line + "\n")


def test_planted_blunder_is_flagged_with_its_cost(tmp_path, capsys):
    entry, planted = play_game({"variant": "kalah"})
    assert planted, "the oracle found no blunder to plant"
    log = tmp_path / "games.jsonl"
    write_log(log, [entry])
    code, out, err = mb(capsys, "analyze", str(log), "--json", *NODES)
    assert code == 0, err
    report = json.loads(out)
    (game,) = report["games"]
    rows = game["moves"]
    assert len(rows) == len(entry["moves"])
    row = rows[planted - 1]
    assert row["seat"] == 0 and row["pit"] == entry["moves"][planted - 1]["pit"]
    assert row["best"] != row["pit"]
    assert row["mark"] == "??", row
    assert row["cost"] == analyze.GIVES_UP_WIN or row["cost"] >= analyze.BLUNDER["stones"]
    for r in rows:
        # The preferred pit costs nothing; a cost is before minus after, never below zero.
        if r["pit"] == r["best"]:
            assert r["cost"] == 0 and r["mark"] == "" and r["before"] == r["after"]
        elif not isinstance(r["cost"], str):
            assert r["cost"] >= 0
            if not isinstance(r["before"], str) and not isinstance(r["after"], str):
                assert abs(r["cost"] - max(0.0, r["before"] - r["after"])) < 0.01
        assert r["by"] == ("human" if r["seat"] == 0 else "cpu")
    seat0 = game["summary"][0]
    assert seat0["moves"] == sum(1 for r in rows if r["seat"] == 0)
    assert seat0["blunders"] == sum(1 for r in rows if r["seat"] == 0 and r["mark"] == "??") >= 1
    assert seat0["accuracy"] < 100

    # The text form: the planted row carries its mark, and nothing is wider than 100 columns.
    code, out, err = mb(capsys, "analyze", str(log), *NODES)
    assert code == 0, err
    lines = out.splitlines()
    assert all(len(line) <= analyze.WIDTH for line in lines)
    marked = [l for l in lines if l.split()[:2] == [str(planted), "0"]]
    assert len(marked) == 1 and marked[0].endswith("??")
    assert "Seat 0: %d moves" % seat0["moves"] in out
    assert "+ means that seat is ahead" in " ".join(lines)


def test_the_final_move_and_the_values_agree_with_the_result(tmp_path):
    entry, _ = play_game({"variant": "kalah", "seeds": 3}, plant=None)
    analysis = analyze.analyse_game(entry, analyze.Analyst(nodes=1500, budget_ms=60000))
    last = analysis["moves"][-1]
    places = entry["result"]["places"]
    expected = "wins" if places[last["seat"]] == 1 and places != [1, 1] else \
        (0.0 if places == [1, 1] else "loses")
    assert last["after"] == expected
    assert last["cost"] is not None and analysis["summary"][last["seat"]]["moves"] > 0


def test_bad_lines_are_skipped_and_counted(tmp_path, capsys):
    good1, _ = play_game({"variant": "kalah", "seeds": 3}, plant=None)
    good2, _ = play_game({"variant": "basic", "players": 2, "pits": 7, "seeds": 3}, plant=None)
    broken = json.loads(json.dumps(good1))
    broken["moves"][3]["seat"] = 1 - broken["moves"][3]["seat"]
    log = tmp_path / "mixed.jsonl"
    write_log(log, [good1], ["{not json", json.dumps(broken)])
    write_log(log, [good2], ['{"format": "something else"}'])
    code, out, err = mb(capsys, "analyze", str(log), *NODES)
    assert code == 0, err
    # The text is wrapped at a width, and where a line breaks depends on the temp path: the
    # checks read it with every run of whitespace made one space.
    flat = " ".join(out.split())
    assert "Game 1 (line 1 of" in flat and "Game 4 (line 4 of" in flat
    assert "Game 2 " not in flat and "Game 3 " not in flat
    assert "Skipped 3 line(s)" in flat and "(lines 2, 3, 5)" in flat
    assert analyze.rules_label(good2["rules"]) == "Basic, 2 players, 7 pits, 3 seeds"
    assert "Basic, 2 players, 7 pits, 3 seeds" in flat

    code, out, err = mb(capsys, "analyze", str(log), "--json", *NODES)
    assert code == 0
    report = json.loads(out)
    assert [g["game"] for g in report["games"]] == [1, 4]
    assert [g["line"] for g in report["games"]] == [1, 4]
    assert [g["rules"] for g in report["games"]] == [good1["rules"], good2["rules"]]
    assert [s["line"] for s in report["skipped"]] == [2, 3, 5]
    assert "Skipped 3 line(s)" in " ".join(err.split())


def test_game_choice_out_of_range_or_bad_is_one_sentence(tmp_path, capsys):
    entry, _ = play_game({"variant": "kalah", "seeds": 3}, plant=None)
    log = tmp_path / "g.jsonl"
    write_log(log, [entry], ["garbage"])
    for n in ("0", "3"):
        code, out, err = mb(capsys, "analyze", str(log), "--game", n)
        assert code != 0 and out == ""
        assert err.strip() == "%s has 2 game(s); --game must be from 1 to 2." % log
    code, out, err = mb(capsys, "analyze", str(log), "--game", "2")
    assert code != 0 and len(err.strip().splitlines()) == 1
    assert "Game 2 (line 2 of" in err and "not valid JSON" in err
    code, out, err = mb(capsys, "analyze", str(tmp_path / "missing.jsonl"))
    assert code != 0 and "Could not read the game log" in err
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"format": "mancala-game-log", "version": 1}\n')  # a game line that cannot replay
    code, out, err = mb(capsys, "analyze", str(empty))
    assert code != 0 and len(err.strip().splitlines()) == 1 and "nothing to analyse" in err


def test_json_is_deterministic_and_one_game_matches_the_whole_log(tmp_path, capsys):
    a, _ = play_game({"variant": "kalah", "seeds": 3}, plant=None)
    b, _ = play_game({"variant": "kalah"})
    log = tmp_path / "g.jsonl"
    write_log(log, [a, b])
    code, out, err = mb(capsys, "--json", "analyze", str(log), *NODES)  # the global flag too
    assert code == 0, err
    whole = json.loads(out)
    assert whole["search"] == {"level": 5, "nodes": 2500, "budget_ms": 60000}
    code, out, err = mb(capsys, "analyze", str(log), "--game", "2", "--json", *NODES)
    alone = json.loads(out)
    assert alone["games"] == [whole["games"][1]]
    assert whole["games"][1]["game"] == 2 and whole["games"][1]["line"] == 2


def test_three_players_show_the_preferred_pit_only(tmp_path, capsys):
    entry, _ = play_game({"variant": "basic", "players": 3, "seeds": 3}, plant=None)
    log = tmp_path / "g.jsonl"
    write_log(log, [entry])
    code, out, err = mb(capsys, "analyze", str(log), "--json", "--nodes", "800", "--budget-ms", "60000")
    assert code == 0, err
    rows = json.loads(out)["games"][0]["moves"]
    assert all(r["before"] is None and r["after"] is None and r["cost"] is None for r in rows)
    game = Game(Rules.from_dict(entry["rules"]), first=0)
    for r in rows:
        assert r["best"] in game.legal_moves()
        game.play(r["pit"])


def test_resignation_row(tmp_path, capsys):
    entry, _ = play_game({"variant": "kalah", "seeds": 3}, plant=None)
    r = Rules.from_dict(entry["rules"])
    game = Game(r, first=0)
    for move in entry["moves"][:5]:
        game.play(move["pit"])
    seat = game.turn
    game.resign(seat)
    entry["moves"] = entry["moves"][:5] + [{"seat": seat, "resign": True}]
    state = game.to_dict()
    entry["result"] = {"places": state["places"], "stores": state["stores"]}
    log = tmp_path / "g.jsonl"
    write_log(log, [entry])
    code, out, err = mb(capsys, "analyze", str(log), *NODES)
    assert code == 0, err
    assert "    6  %4d  -        resigns" % seat in out


def test_basic_blunder_is_flagged_in_points_of_chance(tmp_path, capsys):
    # 2-player, 6-pit Basic: the CPU's evaluation estimates the log-odds of winning, so
    # values are the mover's chance to win in %. The planted move throws a forced win away
    # for a forced loss (by the oracle, which is not the CPU's search).
    entry, planted = play_game({"variant": "basic"}, plant="game", opening=[6])
    assert planted, "the oracle found no blunder to plant"
    log = tmp_path / "basic.jsonl"
    write_log(log, [entry])
    code, out, err = mb(capsys, "analyze", str(log), "--json", *NODES)
    assert code == 0, err
    (game,) = json.loads(out)["games"]
    assert game["unit"] == analyze.CHANCE
    rows = game["moves"]
    row = rows[planted - 1]
    assert row["best"] != row["pit"] and row["mark"] == "??", row
    assert row["cost"] in (analyze.GIVES_UP_WIN, analyze.WALKS_INTO_LOSS) or \
        row["cost"] >= analyze.BLUNDER[analyze.CHANCE]
    numbers = [v for r in rows for v in (r["before"], r["after"]) if not isinstance(v, str)]
    assert numbers and all(0 <= v <= 100 for v in numbers)
    for r in rows:
        if r["seat"] == rows[0]["seat"] and r["pit"] == r["best"]:
            assert r["before"] == r["after"] and r["cost"] == 0

    # The text names the unit above the table and in the cost column, and prints values as %.
    code, out, err = mb(capsys, "analyze", str(log), *NODES)
    assert code == 0, err
    flat = " ".join(out.split())
    assert "Values: the mover's chance to win in %" in flat
    assert "cost (points of chance to win)" in flat
    lines = out.splitlines()
    assert all(len(line) <= analyze.WIDTH for line in lines)
    first = [l for l in lines if l.split()[:2] == ["1", "0"]]
    assert len(first) == 1 and first[0].split()[5].endswith("%")
    marked = [l for l in lines if l.split()[:2] == [str(planted), "0"]]
    assert len(marked) == 1 and marked[0].endswith("??")


def test_values_of_the_other_seat_are_the_complement():
    # 2-player Basic: a position's chance for the seat that just moved is 100 minus the chance
    # of the seat to move; in stones it is the negation.
    g = Game(Rules.from_dict({"variant": "basic"}), first=0)
    g.play(1)
    assert g.turn == 1
    analyst = analyze.Analyst(nodes=500)
    _, mover = analyst.position(g)
    assert 0 < mover < 100 and analyst.after(g, 0) == round(100.0 - mover, 1)
    k = Game(Rules.from_dict({"variant": "kalah"}), first=0)
    k.play(1)
    assert k.turn == 1
    _, mover = analyst.position(k)
    assert analyst.after(k, 0) == -mover


def test_basic_values_see_a_finish():
    g = Game.from_dict({"rules": Rules.from_dict({"variant": "basic"}).to_dict(),
                        "pits": [[0, 0, 0, 0, 0, 1], [3, 3, 3, 3, 3, 3]],  # seat 0: one stone
                        "stores": [21, 8], "turn": 0, "active": [0, 1],
                        "places": [None, None], "over": False})
    analyst = analyze.Analyst(nodes=500)
    pit, value = analyst.position(g)
    assert pit == 6 and value == analyze.WINS  # its last stone goes: seat 0 is out first


def test_seven_pit_basic_is_valued_in_stones_left():
    g = Game(Rules.from_dict({"variant": "basic", "pits": 7}), first=0)
    analyst = analyze.Analyst(nodes=300)
    assert analyst.unit(g) == analyze.STONES
    assert "stones left to shed" in analyze.unit_sentence(g.rules.to_dict(), analyze.STONES)


def _random_kalah_game(seed, by=("human", "cpu"), seats=({"kind": "human"}, {"kind": "human"})):
    """A seeded random Kalah(6,3) game as record logs it: moves with `by`, seats at the start."""
    import random
    rnd = random.Random(seed)
    rules = Rules.from_dict({"variant": "kalah", "seeds": 3})
    game = Game(rules, first=0)
    entry = gamelog.new_game({"profile": "duo"}, rules.to_dict(), [dict(s) for s in seats], 0)
    while not game.over:
        seat, pit = game.turn, rnd.choice(game.legal_moves())
        game.play(pit)
        entry["moves"].append({"seat": seat, "pit": pit, "by": by[seat]})
    state = game.to_dict()
    entry["result"] = {"places": state["places"], "stores": state["stores"]}
    return entry


def test_where_the_search_sees_the_end_the_words_come_from_the_exact_value(tmp_path, capsys):
    """Move 33 of this game: a 300-node search sees a win before it and none after, and
    called it 'gives up the win ??', while the exact solver has seat 0 winning by 12 before
    and by 2 after (analyze --exact: no turning point). Now the row takes the exact values."""
    entry = _random_kalah_game(2)
    analysis = analyze.analyse_game(entry, analyze.Analyst(nodes=300, budget_ms=60000))
    row = analysis["moves"][32]
    assert (row["move"], row["seat"]) == (33, 0)
    assert row["exact"] and (row["before"], row["after"]) == (12.0, 2.0)
    assert (row["cost"], row["mark"]) == (10.0, "??")
    engine = gamelog.start_engine(entry)
    for number, (r, move) in enumerate(zip(analysis["moves"], entry["moves"]), 1):
        if r["exact"]:  # every exact row agrees with the solver, best pit included
            values = analyze.exact_moves(engine)
            assert r["before"] == max(values.values()) and r["after"] == values[r["pit"]]
            assert values[r["best"]] == max(values.values())
        if r["cost"] == analyze.GIVES_UP_WIN:
            assert r["exact"] and r["before"] > 0 >= r["after"], r
        gamelog.apply_move(engine, move, number)
    assert sum(r["exact"] for r in analysis["moves"]) >= 3
    log = tmp_path / "g.jsonl"
    write_log(log, [entry])
    code, out, err = mb(capsys, "analyze", str(log), "--nodes", "300", "--budget-ms", "60000")
    line = [l for l in out.splitlines() if l.split()[:2] == ["33", "0"]][0]
    assert line.split()[-4:] == ["+12*", "+2*", "10.0", "??"] and "gives up" not in line


def test_the_header_names_the_seats_as_the_rows_do(tmp_path, capsys):
    """The seats logged at the start said 'human' while every seat-1 row said cpu (the
    board's config changed after the game began): the header follows the rows."""
    entry = _random_kalah_game(3, seats=({"kind": "human"}, {"kind": "human"}))
    log = tmp_path / "g.jsonl"
    write_log(log, [entry])
    code, out, err = mb(capsys, "analyze", str(log), "--nodes", "50")
    head = " ".join(out.split("\n\n")[1].split())
    assert "seat 0 human, seat 1 CPU;" in head, head
    entry["seats"][1] = {"kind": "cpu", "level": 4}
    entry["moves"][0]["by"] = "cpu"
    write_log(log.with_name("h.jsonl"), [entry])
    code, out, err = mb(capsys, "analyze", str(log.with_name("h.jsonl")), "--nodes", "50")
    head = " ".join(out.split("\n\n")[1].split())
    assert "seat 0 human and CPU, seat 1 CPU level 4;" in head, head
