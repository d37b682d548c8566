# The CPU player on both runtimes: legal moves, the game left unchanged, the deadline kept,
# slicing, and a small deterministic match showing the levels in order.
from mancala import Game, Rules
from mancala.cpu import Search, Memory, choose_move, Rng

ALL_RULES = [
    {"variant": "kalah"},
    {"variant": "kalah", "seeds": 3, "capture": "always", "wipeout_capture": False},
    {"variant": "basic"},
    {"variant": "basic", "pits": 7},
    {"variant": "basic", "players": 3},
    {"variant": "basic", "players": 3, "pits": 4, "play_all_places": False},
    {"variant": "basic", "players": 4, "pits": 4},
    {"variant": "basic", "players": 4},
]


def test_every_level_plays_legal_moves_and_leaves_the_game_alone():
    for rules in ALL_RULES:
        for level in (1, 2, 3, 4, 5):
            game = Game(Rules.from_dict(rules))
            rng = Rng(level)
            moves = 0
            while not game.over and moves < 12:
                before = game.to_dict()
                pit = choose_move(game, level, 1000, seed=moves, max_nodes=300)
                assert game.to_dict() == before, (rules, level)
                assert pit in game.legal_moves(), (rules, level, pit)
                game.play(pit)
                # a random reply keeps the positions varied
                if not game.over:
                    legal = game.legal_moves()
                    game.play(legal[rng.below(len(legal))])
                moves += 1


def test_a_tiny_budget_stops_on_the_deadline_with_a_legal_move():
    game = Game(Rules.from_dict({"variant": "kalah"}))
    s = Search(game, 5, 30, seed=1)
    while not s.step(5):
        pass
    assert s.timed_out
    assert s.best in game.legal_moves()
    assert s.depth >= 1


def test_the_node_limit_stops_the_search():
    game = Game(Rules.from_dict({"variant": "basic", "players": 4}))
    s = Search(game, 5, 100000, seed=1, max_nodes=2000)
    s.run()
    assert s.timed_out and 2000 <= s.nodes < 2100, s.nodes


def test_slices_give_the_same_move_as_one_go():
    game = Game(Rules.from_dict({"variant": "kalah"}))
    game.play(3)
    one = Search(game, 5, 100000, seed=2, max_nodes=3000)
    one.run()
    sliced = Search(game, 5, 100000, seed=2, max_nodes=3000)
    steps = 0
    while not sliced.step(0):
        steps += 1
    assert steps > 10
    # Each node counted once however the work is sliced: the same search, node for node.
    assert (sliced.best, sliced.depth, sliced.score, sliced.nodes) == \
        (one.best, one.depth, one.score, one.nodes)


def test_pause_ends_the_slice_at_the_next_clock_look_and_the_search_resumes():
    # pause() from inside the search's clock (where a pin interrupt's scheduled callback
    # would run): the slice, far longer than the search, returns before the clock is read
    # again, and the paused search ends exactly as one never paused.
    import mancala.negamax as NEG
    game = Game(Rules.from_dict({"variant": "kalah"}))
    game.play(3)
    one = Search(game, 5, 100000, seed=2, max_nodes=3000)
    one.run()
    s = Search(game, 5, 100000, seed=2, max_nodes=3000)
    clock = NEG.ticks_ms
    looks = [0, 0, -1]  # clock reads, pauses, the read that paused last

    def pausing_clock():
        looks[0] += 1
        if looks[0] % 40 == 0:
            looks[1] += 1
            looks[2] = looks[0]
            s.pause()
        return clock()

    NEG.ticks_ms = pausing_clock
    slices = 0
    try:
        while not s.step(100000):
            slices += 1
            assert looks[2] == looks[0], "the clock was read again after pause()"
            assert not s.timed_out
            s.pause()  # between slices: the next step() still works
    finally:
        NEG.ticks_ms = clock
    assert slices >= 10 and looks[1] - 1 <= slices <= looks[1], (slices, looks)
    assert (s.best, s.depth, s.score, s.nodes) == (one.best, one.depth, one.score, one.nodes)


def test_two_searches_coexist():
    # Stepped in turns, each with its own Memory, two searches give exactly what each gives
    # alone: nothing of one search's state lives outside it.
    games = [Game(Rules.from_dict({"variant": "kalah"})),
             Game(Rules.from_dict({"variant": "basic", "players": 4}))]
    games[0].play(3)
    alone = []
    for game in games:
        s = Search(game, 5, 100000, seed=2, max_nodes=2500)
        s.run()
        alone.append((s.best, s.depth, s.score, s.nodes))
    both = [Search(game, 5, 100000, seed=2, max_nodes=2500) for game in games]
    done = [False, False]
    while not all(done):
        for i in (0, 1):
            if not done[i]:
                done[i] = both[i].step(0)
    assert [(s.best, s.depth, s.score, s.nodes) for s in both] == alone
    assert not both[0].stopped and not both[1].stopped


def test_a_memory_kept_between_moves_gives_the_same_moves_as_a_new_one_when_cleared():
    game = Game(Rules.from_dict({"variant": "kalah"}))
    memory = Memory()
    for _ in range(6):
        memory.clear()
        kept = Search(game, 5, 100000, seed=3, max_nodes=1500, memory=memory)
        fresh = Search(game, 5, 100000, seed=3, max_nodes=1500)
        assert (kept.run(), kept.score) == (fresh.run(), fresh.score)
        game.play(kept.best)
        if game.over:
            break


def test_a_newer_search_on_the_same_memory_stops_the_older_with_a_legal_move():
    game = Game(Rules.from_dict({"variant": "basic", "players": 3}))
    memory = Memory()
    old = Search(game, 5, 100000, seed=1, memory=memory)
    old.step(0)
    new = Search(game, 5, 100000, seed=1, max_nodes=500, memory=memory)
    assert old.step(5) and old.stopped and old.best in game.legal_moves()
    assert new.run() in game.legal_moves() and not new.stopped


def test_the_budget_counts_from_started():
    # The app starts its clock before it loads the CPU and makes its Memory: the deadline
    # counts from then. A start already past the budget stops at the first step.
    try:
        from time import ticks_ms, ticks_add
    except ImportError:  # CPython
        from mancala.cpu import ticks_ms, ticks_add
    game = Game(Rules.from_dict({"variant": "kalah"}))
    t0 = ticks_ms()
    s = Search(game, 5, 1000, seed=1, started=t0)
    assert s.deadline == ticks_add(t0, 960)
    late = Search(game, 5, 1000, seed=1, started=ticks_add(ticks_ms(), -5000))
    assert late.step(7) and late.timed_out and late.best in game.legal_moves()
    assert late.nodes <= 4


def test_a_single_legal_move_is_played_at_once():
    game = Game.from_dict({"rules": Rules.from_dict({"variant": "kalah"}).to_dict(),
                           "pits": [[0, 0, 0, 0, 0, 1], [4, 4, 4, 4, 4, 4]],
                           "stores": [20, 3], "turn": 0, "active": [0, 1],
                           "places": [None, None], "over": False})
    s = Search(game, 5, 1000)
    assert s.step(1) and s.best == 6 and s.nodes == 0


def test_level_5_takes_a_winning_capture():
    # Seat 0 sows pit 2's one stone into empty pit 3 and captures seat 1's 10 stones.
    game = Game.from_dict({"rules": Rules.from_dict({"variant": "kalah"}).to_dict(),
                           "pits": [[0, 1, 0, 0, 0, 2], [1, 1, 1, 10, 0, 0]],
                           "stores": [16, 16], "turn": 0, "active": [0, 1],
                           "places": [None, None], "over": False})
    assert choose_move(game, 5, 100000, seed=0, max_nodes=5000) == 2


def test_bad_level_is_one_sentence():
    game = Game(Rules.from_dict({"variant": "kalah"}))
    try:
        Search(game, 9)
    except ValueError as e:
        assert "level must be" in str(e)
    else:
        raise AssertionError("level 9 was accepted")


def _match(rules, a, b, games, nodes):
    """Level a against level b, each seat half the time; a's score in half points."""
    points = 0
    for g in range(games):
        game = Game(Rules.from_dict(rules))
        seat_a = g % 2
        ply = 0
        while not game.over:
            level = a if game.turn == seat_a else b
            game.play(choose_move(game, level, 100000, seed=g * 1000 + ply, max_nodes=nodes))
            ply += 1
        mine = game.places[seat_a]
        other = game.places[1 - seat_a]
        points += 2 if mine < other else (1 if mine == other else 0)
    return points


def test_levels_in_order_small_match():
    # 6 games each (12 half points); level 5 must clearly beat level 1 in both variants.
    assert _match({"variant": "kalah"}, 5, 1, 6, 800) >= 10
    assert _match({"variant": "kalah"}, 3, 1, 6, 800) >= 9
    assert _match({"variant": "basic"}, 5, 1, 6, 800) >= 9


def test_the_generator_is_the_30_bit_xorshift():
    # The textbook form, shifted first and masked after: the sequence every seeded game and
    # CPU choice depends on, here computed with the long ints it would take on the board.
    for seed in (0, 1, 11, 135533, 0x3FFFFFFF):
        rng = Rng(seed)
        x = (seed * 7919 + 1) & 0x3FFFFFFF or 1
        for n in (1, 2, 6, 7, 100, 256, 0x3FFFFFFF) * 40:
            x ^= (x << 7) & 0x3FFFFFFF
            x ^= x >> 9
            x ^= (x << 8) & 0x3FFFFFFF
            assert rng.below(n) == x % n
