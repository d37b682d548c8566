"""Students' bots: the Kalah Game Protocol's lines (wire.py) and the runner that plays a
student's `choose(position)` on a hub or against the CPU (runner.py, command.py)."""
