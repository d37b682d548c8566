"""How long a test waits before it calls something broken, and a wait for a condition.

Every wait in the tests is for an event (a line, a file, a process ending), never a
measure of speed: HANG_S is only a hang guard, reached only when something is broken, and
generous enough for a machine busy with the emulator, Chromium and other sims at once.
"""
import time

HANG_S = 90.0


def wait_for(what, check, deadline_s=HANG_S, interval_s=0.02):
    """check()'s first true value, polled every interval_s; fails after deadline_s."""
    end = time.monotonic() + deadline_s
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError("gave up waiting for %s (%.0f s)" % (what, deadline_s))
        time.sleep(interval_s)
