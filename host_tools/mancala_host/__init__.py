"""mancala_host: the computer side of the Mancala board (console script `mancala-board`).

The library and the CLI are one code path: `mancala_host.commands.cli.main(argv)` runs a command.
"""

__version__ = "0.1.0"
