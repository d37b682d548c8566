"""The shared Mancala rules engine: Kalah and Mancala Basic.

The same files run on the board under MicroPython and on a computer under CPython;
docs/engine.md is the manual.

    from mancala import Rules, Game, IllegalMove
    game = Game(Rules.from_dict({"variant": "kalah", "seeds": 4}), first=0)
    record = game.play(3)
"""

from mancala.rules import Rules, PRESETS, VARIANTS
from mancala.game import Game, IllegalMove, Record

__all__ = ["Rules", "Game", "IllegalMove", "PRESETS", "VARIANTS", "Record"]
VERSION = "0.1.0"
