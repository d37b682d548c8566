"""Boots the board on CircuitPython: the same app as main.py on MicroPython, on CircuitPython's
hardware layer (mancala_fw.app.circuitpython). The protocol runs on the USB console; Ctrl-C
stops the game and its watchdog and gives the REPL (any key), where Ctrl-D starts it again."""
import supervisor

supervisor.status_bar.console = False  # the serial line carries the protocol's lines only
try:
    from mancala_fw.app.circuitpython import build
    from mancala_fw.app.loop import run

    run(build=build)
except KeyboardInterrupt:
    # The game has stopped: the watchdog it started must not reset the board under the REPL.
    import microcontroller

    microcontroller.watchdog.mode = None
except MemoryError:
    import sys

    sys.stdout.write('{"event": "log", "level": "error", "message": "CircuitPython ran out of '
                     'memory while starting the game; this board has too little heap for it."}\n')
