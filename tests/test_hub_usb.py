"""The hub finds its boards on USB by their USB IDs, through pyserial's own port list
(serial.tools.list_ports.comports, replaced here by a fake list): MicroPython and CircuitPython
boards alike, each named by its USB serial number so a replug on another device path is the
same board. The room holds a virtual board listed that way, and follows it to its new path."""
import os
import types

import pytest
import serial.tools.list_ports

from hubsim import start_boards
from mancala_host.hub import finder
from mancala_host.hub.room import Room
from waits import wait_for


def _port(device, vid=None, pid=None, serial_number=None):
    return types.SimpleNamespace(device=device, vid=vid, pid=pid, serial_number=serial_number,
                                 description="n/a")


def test_every_board_on_usb_is_found_by_its_usb_id(monkeypatch):
    ports = [_port("/dev/ttyS0"),
             _port("/dev/ttyACM0", 0x2E8A, 0x0005, "E6614103E7452D2F"),   # MicroPython
             _port("/dev/ttyACM1", 0x239A, 0x80F4),                        # CircuitPython, no serial
             _port("/dev/ttyACM2", 0x239A, 0x8000, "4B1D"),                # another Adafruit board
             _port("/dev/ttyUSB0", 0x2E8A, 0x000A, "E661")]                # a Pico running C
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: ports)
    assert finder.usb_boards() == {"usb-E6614103E7452D2F": "/dev/ttyACM0",
                                   "usb-_dev_ttyACM1": "/dev/ttyACM1"}
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: ports[:1])
    assert finder.usb_boards() == {}


@pytest.fixture
def board(tmp_path):
    boards = start_boards(tmp_path, 1)
    yield boards[0]
    boards[0].stop()


def test_the_room_holds_a_board_found_on_usb_and_follows_it_to_another_path(
        tmp_path, monkeypatch, board):
    listed = [_port("/dev/ttyS0"), _port(board.link, 0x2E8A, 0x0005, "E6614103E7452D2F")]
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: list(listed))
    room = Room(str(tmp_path / "class"), [], usb=True)
    room.start()
    try:
        link = wait_for("the board found on USB", lambda: room.links.get("usb-E6614103E7452D2F"))
        wait_for("the board live", lambda: link.status == "live")
        assert list(room.links) == ["usb-E6614103E7452D2F"]
        assert link.port == board.link and link.hello["board"] == "duo"
        # unplugged, then back on another device path (as /dev/ttyACM0 may become ttyACM1)
        board.kill()
        wait_for("the tile off line", lambda: link.status == "offline")
        again = str(tmp_path / "ttyACM1")
        os.symlink(board.link, again)
        listed[1] = _port(again, 0x2E8A, 0x0005, "E6614103E7452D2F")
        wait_for("the room to follow the board's serial number", lambda: link.port == again)
        board.start()
        wait_for("the board live on its new path", lambda: link.status == "live")
        assert list(room.links) == ["usb-E6614103E7452D2F"]
    finally:
        room.close()
