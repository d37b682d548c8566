"""Pad touches through the MPR121 register models (MANCALA_SIM_TOUCH), the real MPR121 driver
and the touch layer: moves, refused touches, take-back, the settings menu and resigning."""
import os

import profile as profiles

from boardsim import Board, PROFILES

DUO = profiles.load(os.path.join(PROFILES, "duo.json"))


def pad(seating, seat, pit):
    """(chip address, electrode) of seat's pit (0 = its store) in this seating."""
    return DUO.pad[seating.position(seat, pit)]


def test_touches_play_refuse_and_take_back():
    kalah = profiles.seating(DUO, 2, 6)
    with Board("duo", touch=True) as b:
        b.ok("set_config", config={"animation_ms": 0})  # no animation to skip in this test
        start = b.ok("new_game", rules={"variant": "kalah"}, first=0)["state"]
        b.take_events()
        # seat 0 plays pit 3 by touch: 4 seeds end in its store, so it moves again
        b.touch(*pad(kalah, 0, 3))
        move = b.wait_event("move")
        assert (move["seat"], move["pit"], move["source"]) == (0, 3, "pad")
        assert move["record"]["extra"] is True
        after = move["state"]
        # pit 3 is empty now: the touch is refused and changes nothing
        b.touch(*pad(kalah, 0, 3))
        refused = b.wait_event("refused")
        assert refused["pos"] == kalah.position(0, 3) and (refused["seat"], refused["pit"]) == (0, 3)
        # a pit of the seat that is not to move is refused too
        b.touch(*pad(kalah, 1, 2))
        refused = b.wait_event("refused")
        assert (refused["seat"], refused["pit"]) == (1, 2) and "turn" in refused["reason"]
        # the physical pit Kalah leaves unused on the duo board
        b.touch(0x5A, 0)
        assert b.wait_event("refused")["seat"] is None
        assert b.ok("state")["state"] == after
        assert b.take_events("move") == []
        # double tap on a store takes the move back
        addr, electrode = pad(kalah, 1, 0)
        b.touch(addr, electrode)
        b.touch(addr, electrode)
        undo = b.wait_event("undo")
        assert undo["state"] == start and undo["source"] == "pad"
        assert b.ok("state")["state"] == start


def test_menu_starts_a_new_game_and_resigns():
    kalah = profiles.seating(DUO, 2, 6)
    with Board("duo", touch=True) as b:
        b.ok("set_config", config={"animation_ms": 0})
        b.ok("new_game", rules={"variant": "kalah"}, first=0)
        b.take_events()
        store = pad(kalah, 1, 0)
        # hold seat 1's store: the menu opens for seat 1
        b.touch(*store, hold_s=1.4)
        opened = b.wait_event("menu")
        assert opened["open"] is True and opened["seat"] == 1
        assert opened["rules"]["variant"] == "kalah"
        # pit 1 steps the variant to basic, pit 4 steps the seeds
        b.touch(*pad(kalah, 1, 1))
        assert b.wait_event("menu")["rules"]["variant"] == "basic"
        b.touch(*pad(kalah, 1, 4))
        chosen = b.wait_event("menu")["rules"]
        assert chosen["variant"] == "basic" and chosen["seeds"] != 4
        # a tap on the same store starts that game and saves its rules
        b.touch(*store)
        new = b.wait_event("new_game")
        assert new["source"] == "pad"
        assert [e["open"] for e in b.take_events("menu")] == [False]
        for key in ("variant", "players", "pits", "seeds"):
            assert new["state"]["rules"][key] == chosen[key]
        assert b.ok("get_config")["config"]["rules"]["variant"] == "basic"
        # hold the store to open the menu, hold it again to resign
        basic = profiles.seating(DUO, 2, new["state"]["rules"]["pits"])
        store = pad(basic, 0, 0)
        b.touch(*store, hold_s=1.4)
        assert b.wait_event("menu")["seat"] == 0
        b.touch(*store, hold_s=1.4)
        resign = b.wait_event("resign")
        assert resign["seat"] == 0 and resign["source"] == "pad" and resign["state"]["over"]
        assert b.wait_event("game_over")["places"] == [2, 1]


def test_menu_closes_without_change_on_another_store():
    kalah = profiles.seating(DUO, 2, 6)
    with Board("duo", touch=True) as b:
        state = b.ok("new_game", rules={"variant": "kalah"}, first=0)["state"]
        config = b.ok("get_config")["config"]
        b.take_events()
        b.touch(*pad(kalah, 0, 0), hold_s=1.4)
        assert b.wait_event("menu")["open"] is True
        b.touch(*pad(kalah, 0, 2))
        b.wait_event("menu")
        b.touch(*pad(kalah, 1, 0))
        closed = b.wait_event("menu")
        assert closed["open"] is False
        assert b.ok("state")["state"] == state
        assert b.ok("get_config")["config"] == config


def test_lost_pad_chip_is_survived():
    kalah = profiles.seating(DUO, 2, 6)
    with Board("duo", touch=True) as b:
        b.ok("new_game", rules={"variant": "kalah"}, first=0)
        with open(b.touch_path, "a") as f:
            f.write("chip 5a off\n")
        b.touch(*pad(kalah, 0, 3))
        assert b.ok("state")["state"]["pits"][0][2] == 4  # the unplugged chip saw nothing
        with open(b.touch_path, "a") as f:
            f.write("chip 5a on\n")
        # the driver retries about once a second; keep touching until the move comes
        for _ in range(30):
            b.touch(*pad(kalah, 0, 3))
            if b.ok("state")["state"]["pits"][0][2] == 0:
                break
        assert b.ok("state")["state"]["pits"][0][2] == 0


def test_a_touch_during_the_animation_skips_it():
    kalah = profiles.seating(DUO, 2, 6)
    with Board("duo", touch=True) as b:
        b.ok("set_config", config={"animation_ms": 1000})  # 4 stones: over 4 s of sowing
        b.ok("new_game", rules={"variant": "kalah"}, first=0)
        b.touch(*pad(kalah, 0, 3))
        after = b.wait_event("move")["state"]
        b.take_events()
        # this touch only skips the animation: seat 1's pit would otherwise be refused
        b.touch(*pad(kalah, 1, 2))
        # the animation has ended, so this touch is judged as a move again (and refused)
        b.touch(*pad(kalah, 0, 3))
        refused = b.wait_event("refused")
        assert (refused["seat"], refused["pit"]) == (0, 3)
        assert b.take_events() == []
        assert b.ok("state")["state"] == after
