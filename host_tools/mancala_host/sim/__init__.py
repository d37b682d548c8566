"""The virtual board: the real firmware under the MicroPython unix port (docs/sim.md).

launcher.main(argv) is `mancala-board sim`; serve runs the board behind a pty or the terminal
view; view draws LED frames; keys maps keys to pad touches; fakes/ is MicroPython-side code.
"""
