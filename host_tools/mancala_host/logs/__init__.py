"""The game log and its analysis: the format (gamelog.py), writing it from a board
(record.py), checking it with the engine (replay.py), tables and plots (stats.py, plot.py),
and each move against a deeper search (analyze.py)."""
