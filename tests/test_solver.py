"""The exact solver (mancala_host.solver) against facts found apart from it: the engine's
moves, brute force through the engine on positions with few stones, a separate plain-Python
solver of whole small boards (tests/kalah_reference.py), and the published value of
Kalah(6,3). Its timing targets are in bench/solver.py, not here."""

import os
import random
import signal
import threading
import time

import pytest

from kalah_reference import solve
from mancala import Game, Rules
from mancala_host.solver import EXTRA, OVER, Exact, TooBig, position, unsupported
from mancala_host.solver import database
from mancala_host.solver._kalah import BudgetExceeded, Solver

# Every combination of the two Kalah options: (capture "always", wipe-out captures allowed).
RULES = [(False, True), (True, True), (False, False), (True, False)]


def rules(always, wipeout, seeds=4):
    return Rules.from_dict({"variant": "kalah", "seeds": seeds,
                            "capture": "always" if always else "nonempty",
                            "wipeout_capture": wipeout})


def game_at(rules_, pits, turn=0, stores=None):
    """A game in a hand-built position: pits [seat 0's, seat 1's]; the stores hold the rest of
    the stones, evenly unless given."""
    if stores is None:
        rest = 12 * rules_.seeds - sum(pits[0]) - sum(pits[1])
        stores = (rest // 2, rest - rest // 2)
    return Game.from_dict({"rules": rules_.to_dict(), "pits": [list(p) for p in pits],
                           "stores": list(stores), "turn": turn, "active": [0, 1],
                           "places": [None, None], "over": False})


def random_position(rng, stones):
    """Seat 0's and seat 1's pits with the given stones in play, neither side empty."""
    while True:
        pits = [0] * 12
        for _ in range(stones):
            pits[rng.randrange(12)] += 1
        if any(pits[:6]) and any(pits[6:]):
            return pits[:6], pits[6:]


@pytest.mark.parametrize("always,wipeout", RULES)
def test_the_solvers_moves_are_the_engines(always, wipeout):
    # Seeded random games: at every position, every legal pit, the solver's sowing gives the
    # engine's next position, store gains, extra move and end (sweep included).
    r = rules(always, wipeout, seeds=5)
    solver = Exact(r)
    rng = random.Random(24 + always + 2 * wipeout)
    checked = 0
    for _ in range(30):
        game = Game(r, first=rng.randrange(2))
        while not game.over:
            pits, lead = position(game)
            mover = game.turn
            for pit in game.legal_moves():
                after, gain, status = solver.play(pits, pit)
                game.push(pit)
                state = game.to_dict()
                lead_after = state["stores"][mover] - state["stores"][1 - mover]
                assert lead_after - lead == gain, (pits, pit)
                assert (status == OVER) == game.over, (pits, pit)
                if not game.over:
                    assert (status == EXTRA) == (game.turn == mover), (pits, pit)
                    assert after == position(game)[0], (pits, pit)
                game.pop()
                checked += 1
            game.play(rng.choice(game.legal_moves()))
    assert checked > 1000


def brute_force(game):
    """The final store difference for the seat to move, by full minimax through the engine."""
    mover = game.turn
    best = None
    for pit in game.legal_moves():
        game.push(pit)
        if game.over:
            v = game.stones(mover, 0) - game.stones(1 - mover, 0)
        elif game.turn == mover:
            v = brute_force(game)
        else:
            v = -brute_force(game)
        game.pop()
        if best is None or v > best:
            best = v
    return best


@pytest.mark.parametrize("always,wipeout", RULES)
def test_positions_with_few_stones_against_brute_force(always, wipeout):
    r = rules(always, wipeout)
    rng = random.Random(7 + always + 2 * wipeout)
    # A small endgame table, so that the searched part of the solver is checked too.
    solver = Exact(r, tt_bits=12, db_stones=3)
    for _ in range(40):
        stones = rng.randrange(2, 8)
        mine, theirs = random_position(rng, stones)
        turn = rng.randrange(2)
        rest = 48 - stones
        stores = (rng.randrange(rest + 1),)
        stores += (rest - stores[0],)
        pits = [mine, theirs] if turn == 0 else [theirs, mine]
        game = game_at(r, pits, turn, stores)
        expected = brute_force(game.copy(stack=False))
        assert solver.value(game) == expected, (pits, turn)
        moves = solver.move_values(game)
        assert sorted(moves) == game.legal_moves()
        assert max(moves.values()) == expected


@pytest.mark.parametrize("n,seeds,always,wipeout", [
    (3, 3, always, wipeout) for always, wipeout in RULES] + [(4, 3, False, True)])
def test_whole_small_boards_against_the_reference(n, seeds, always, wipeout):
    # Every position reachable in Kalah(n, seeds), valued by the plain-Python reference; the
    # compiled solver must agree on each (all of them on 3 pits, a seeded sample on 4).
    reference = solve(n, seeds, always, wipeout)
    positions = sorted(reference)
    if len(positions) > 1000:
        positions = random.Random(43).sample(positions, 1000)
    for db_stones, threads in ((0, 1), (6, 1), (6, 2)):
        solver = Solver(n, always, wipeout, 16, db_stones, threads)
        solver.help_after = 0   # both threads from the start, on these small searches too
        for pits in positions:
            assert solver.value(pits) == reference[pits], (pits, db_stones, threads)


def test_the_start_of_kalah_3_3_and_4_3():
    # The reference's own start values, so that a reference gone wrong shows here too: the
    # first player wins Kalah(3,3) by 2 and Kalah(4,3) by 6 with the engine's default rules.
    assert solve(3, 3, False, True)[(3,) * 6] == 2
    assert Solver(4, False, True, 16, 8).value((3,) * 8) == 6


def test_kalah_6_3_is_a_first_player_win_by_2():
    # The published value (Irving, Donkers and Uiterwijk 2000), with the default rules.
    game = Game(rules(False, True, seeds=3))
    assert Exact(game.rules, tt_bits=22).value(game) == 2


@pytest.mark.parametrize("always,wipeout", RULES)
def test_two_threads_find_the_values_one_finds(always, wipeout):
    # Two threads share the tables and split the work; whichever finds the value first
    # answers. Seeded positions with 22 to 30 stones, each on fresh tables for both (node
    # counts differ from run to run with two threads; values may not), and Kalah(6,3)'s
    # published +2 under the default rules.
    rng = random.Random(11 + always + 2 * wipeout)
    for _ in range(6):
        mine, theirs = random_position(rng, rng.randrange(22, 31))
        one = Solver(6, always, wipeout, 18, 8).value(mine + theirs)
        two = Solver(6, always, wipeout, 18, 8, threads=2)
        two.help_after = 0      # both threads from the start (by default: after 1,048,576)
        assert two.value(mine + theirs) == one, (mine, theirs)
        assert two.threads == 2 and two.nodes > 0
    if not always and wipeout:
        assert Solver(6, always, wipeout, 20, 10, threads=2).value((3,) * 12) == 2
    # The endgame table is filled on the calling thread alone, whatever threads says.
    two = Solver(6, always, wipeout, 16, 7, threads=2)
    two.help_after = 0
    assert two.endgame() == Solver(6, always, wipeout, 16, 7).endgame()
    with pytest.raises(ValueError, match="threads must be 1 to 8, got 9"):
        Solver(threads=9)


def test_a_budget_stops_the_search_and_leaves_the_solver_sound():
    game = Game(rules(False, True, seeds=4))
    solver = Exact(game.rules, tt_bits=16)
    with pytest.raises(TooBig):
        solver.value(game, max_nodes=1000)
    # A stopped search stored nothing false: a small position is still valued exactly.
    small = game_at(game.rules, [[0, 0, 0, 1, 0, 2], [1, 0, 0, 0, 0, 0]])
    assert solver.value(small) == brute_force(small.copy(stack=False))


def test_an_endgame_database_saved_and_read_back_gives_the_same_values(tmp_path):
    # The table filled in full and saved (mancala_host.solver.database), read back into a
    # fresh solver: its values come from the file (no node searched), and a position above
    # the table's stones is valued as by a solver without one.
    full = Solver(6, True, False, 16, 5)
    solver, built = database.solver_with(str(tmp_path), 6, True, False, 5, 16)
    assert built is not None
    rng = random.Random(5)
    for _ in range(30):
        mine, theirs = random_position(rng, rng.randrange(2, 6))
        assert solver.value(mine + theirs) == full.value(mine + theirs)
    assert solver.nodes == 0
    mine, theirs = random_position(rng, 9)
    assert solver.value(mine + theirs) == Solver(6, True, False, 16, 0).value(mine + theirs)
    # Mapped instead of read, on two threads: the same values, none searched.
    mapped, again = database.solver_with(str(tmp_path), 6, True, False, 5, 16, 2, mapped=True)
    assert again is None
    for _ in range(30):
        mine, theirs = random_position(rng, rng.randrange(2, 6))
        assert mapped.value(mine + theirs) == full.value(mine + theirs)
    assert mapped.nodes == 0
    mine, theirs = random_position(rng, 9)
    assert mapped.value(mine + theirs) == full.value(mine + theirs)
    # The second time it is read, not built; a file of other rules is refused in a sentence.
    assert database.solver_with(str(tmp_path), 6, True, False, 5, 16)[1] is None
    path = database.path_for(str(tmp_path), 6, True, False, 5)
    with pytest.raises(ValueError, match="not the endgame database of these rules"):
        database.load(Solver(6, False, True, 16, 5), path, 6, False, True, 5)
    with pytest.raises(ValueError, match="does not hold an endgame table"):
        Solver(6, True, False, 16, 5).load_endgame(path, 17)
    with pytest.raises(ValueError, match="does not hold an endgame table"):
        Solver(6, True, False, 16, 5, 2).load_endgame(path, 17, mapped=True)


def test_a_deadline_already_past_stops_the_search_before_it_starts():
    solver = Solver(6, False, True, 16, 6)
    with pytest.raises(BudgetExceeded) as stopped:
        solver.value((3,) * 12, deadline=time.monotonic() - 1.0)
    assert stopped.value.reason == "time"
    assert solver.nodes == 0
    # No deadline (0) and a deadline far ahead both let it finish.
    assert solver.value((0, 0, 0, 1, 0, 2, 1, 0, 0, 0, 0, 0), deadline=0.0) == \
        solver.value((0, 0, 0, 1, 0, 2, 1, 0, 0, 0, 0, 0), deadline=time.monotonic() + 3600)


def test_a_node_budget_is_exact_and_says_so():
    solver = Solver(6, False, True, 16, 6)
    with pytest.raises(BudgetExceeded) as stopped:
        solver.value((4,) * 12, max_nodes=5000)
    assert stopped.value.reason == "nodes"
    # The node past the budget is the one that stops it.
    assert solver.nodes == 5001
    with pytest.raises(BudgetExceeded):
        solver.value((4,) * 12, max_nodes=5000)
    assert solver.nodes == 10002


def test_a_node_budget_on_two_threads_counts_both():
    # Each thread adds the others' counts at its checks (every 4,096 nodes), so the search
    # stops within a check of each thread past the budget.
    solver = Solver(6, False, True, 16, 6, threads=2)
    solver.help_after = 0
    with pytest.raises(BudgetExceeded) as stopped:
        solver.value((4,) * 12, max_nodes=50_000)
    assert stopped.value.reason == "nodes"
    assert 50_000 < solver.nodes <= 50_000 + 2 * 4096 + 1


def watch_then(solver, nodes, act, seen, done):
    """A thread that reads solver.nodes during its search until it passes nodes, then acts
    (unless done is set first: the search ended some other way)."""
    def run():
        while solver.nodes < nodes:
            seen.append(solver.nodes)
            if done.wait(0.001):
                return
        seen.append(solver.nodes)
        act()
    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_a_search_and_leaves_the_solver_sound(threads):
    # Kalah(6,6)'s start takes far longer than the 200,000 nodes after which the other thread
    # sends SIGINT; the deadline only keeps a broken build from hanging the tests.
    solver = Solver(6, False, True, 16, 4, threads)
    solver.help_after = 0
    seen, done = [], threading.Event()
    thread = watch_then(solver, 200_000, lambda: os.kill(os.getpid(), signal.SIGINT), seen,
                        done)
    try:
        with pytest.raises(KeyboardInterrupt):
            solver.value((6,) * 12, deadline=time.monotonic() + 60)
    finally:
        done.set()
        thread.join()
    # The count the other thread saw grew during the search, and the search stopped soon
    # after (Ctrl-C is looked for every 65,536 nodes of the calling thread).
    assert seen[-1] >= 200_000 and seen[0] < seen[-1]
    assert 200_000 <= solver.nodes < seen[-1] + 200_000 * threads
    small = (0, 0, 0, 1, 0, 2, 1, 0, 0, 0, 0, 0)
    game = game_at(rules(False, True), [small[:6], small[6:]])
    assert solver.value(small) == brute_force(game)


@pytest.mark.parametrize("threads", [1, 2])
def test_stop_from_another_thread_and_one_search_at_a_time(threads):
    solver = Solver(6, False, True, 16, 4, threads)
    solver.help_after = 0
    refused = []

    def second_then_stop():
        try:
            solver.value((1,) * 12)
        except RuntimeError as e:
            refused.append(str(e))
        solver.stop()
    done = threading.Event()
    thread = watch_then(solver, 100_000, second_then_stop, [], done)
    try:
        with pytest.raises(BudgetExceeded) as stopped:
            solver.value((6,) * 12, deadline=time.monotonic() + 60)
    finally:
        done.set()
        thread.join()
    assert stopped.value.reason == "stopped"
    assert refused == ["this solver is already searching (one search at a time)"]
    # stop() with no search running changes nothing for the next one.
    solver.stop()
    assert solver.value((0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0)) == Solver(6).value(
        (0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0))


def test_values_for_either_seat_and_a_store_lead():
    #        seat 1:  6  5  4  3  2  1
    #               [ 0][ 0][ 0][ 0][ 0][ 1]
    #        (28)                           (18)
    #               [ 0][ 0][ 0][ 0][ 0][ 1]
    #        seat 0:  1  2  3  4  5  6
    # Seat 0 sows pit 6 into its store, moves again with an empty side: the game ends, seat 1
    # sweeps its stone. 18 + 1 against 28 + 1: seat 0 ends 10 behind.
    r = rules(False, True)
    game = game_at(r, [[0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0]], turn=0, stores=(18, 28))
    assert Exact(r).value(game) == -10
    assert Exact(r).move_values(game) == {6: -10}
    game1 = game_at(r, [[0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0]], turn=1, stores=(18, 28))
    # Seat 1 sows its pit 1 into its pit 2; seat 0 then plays pit 6 and the game ends.
    assert Exact(r).value(game1) == brute_force(game1.copy(stack=False)) == 10


def test_bad_positions_and_rules_are_one_sentence():
    solver = Solver()
    with pytest.raises(ValueError, match="12 pits"):
        solver.value((4,) * 11)
    with pytest.raises(ValueError, match="no position to solve"):
        solver.value((0,) * 6 + (4,) * 6)
    with pytest.raises(ValueError, match="not a move"):
        solver.play((0,) + (4,) * 11, 1)
    basic = Rules.from_dict({"variant": "basic"})
    assert unsupported(basic) == "The exact solver covers Kalah only (Basic has no exact solver here)."
    with pytest.raises(ValueError, match="Kalah only"):
        Exact(basic)
    over = Game(rules(False, True))
    over.resign(0)
    with pytest.raises(ValueError, match="over"):
        Exact(over.rules).value(over)
