"""Boots the board: the app's main loop runs until power-off, or until a host breaks in with
Ctrl-C (mpremote, to deploy): then the board waits in MicroPython's REPL, its watchdog paused,
until it is reset."""
try:
    from mancala_fw import app

    app.main()
except KeyboardInterrupt:
    from mancala_fw.app.hardware import pause_watchdog

    pause_watchdog()
except MemoryError:
    # Only a firmware too big for this board's heap gets here (the app reports a MemoryError
    # in play and goes on): say so in one protocol line rather than a traceback.
    import sys

    sys.stdout.write('{"event": "log", "level": "error", "message": "The firmware ran out of '
                     'memory while starting; this board has too little heap for it."}\n')
