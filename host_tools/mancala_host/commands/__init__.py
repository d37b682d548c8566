"""The command line: the command table (cli.py, the console script's `main`) and the
commands with no layer of their own: drive.py (info, config, new, press, resign, undo, state,
demo) with configkeys.py (config's dotted keys), and hint.py.  Every other command's handler
lives in its layer (logs, views, flashing, hub, sim) and is imported only when it runs."""
