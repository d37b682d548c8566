"""Runs on the board in place of code.py / main.py (bench/editions.py --live puts it there):
the board's own entry point, with one addition: after the first slice of every CPU search
(its tables are made by then, and a slice allocates nothing after that), the heap is
collected and the free memory printed as a `search_heap` line, with whether the self-test's
package is loaded (from boot until its gesture's window has closed, app.loop). That is the heap the whole
app leaves while the CPU thinks, garbage excluded, which diag memory cannot give on
CircuitPython (it has no gc.threshold, so free memory between collections says nothing).
The one collection per move costs ~15 ms inside the move's budget; the think time stays the
app's. The same file on MicroPython and CircuitPython."""
import gc
import sys

from mancala_fw.app import autoplay

_step = autoplay.Autoplay._step


def _probed_step(self, search):
    first = not self.sampled
    done = _step(self, search)
    if first:
        gc.collect()
        sys.stdout.write('{"event": "search_heap", "free": %d, "plies": %d, "table": %s, '
                         '"selftest": %s}\n'
                         % (gc.mem_free(), search.maxd,
                            "false" if getattr(search, "tt", None) is None else "true",
                            "true" if "mancala_fw.selftest" in sys.modules else "false"))
    return done


autoplay.Autoplay._step = _probed_step

if sys.implementation.name == "circuitpython":
    import supervisor

    supervisor.status_bar.console = False
    from mancala_fw.app.circuitpython import build
    from mancala_fw.app.loop import run

    run(build=build)
else:
    from mancala_fw.app.loop import run

    run()
