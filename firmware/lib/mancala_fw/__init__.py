"""The board's own firmware, under one name that clashes with nothing on PyPI or in the
standard library: app (game flow and main loop), display, touch, protocol, storage, profile
(board profiles and seating) and selftest (bring-up). The rules engine `mancala` and the
device drivers `drivers` stay top-level packages of their own, as others may reuse them."""

import sys


def forget(name):
    """Drops the module name ("package.module") from the interpreter, so the heap it holds
    can be collected; importing it again loads it again.

    The board loads some code only while it is used, because a loaded module stays on the
    heap: CircuitPython compiles every module from source into its heap (it cannot load our
    .mpy files), and a module from a .mpy file on the flash is on MicroPython's heap too (only
    the image's frozen modules are not). What is forgotten, and when: the profile's checks
    (profile.release_checks) and app.boot once the board is built; app.hardware on
    CircuitPython once it has made the display; app.config and app.menu after a config change
    or the menu; the self-test's modules once it is idle (selftest.IDLE_MS after the last
    diag). The CPU (mancala.cpu) is the other way round: never forgotten, but loaded only when
    a seat is the CPU's. docs/performance.md sections 2 and 7 have what each gives back.

    A module is forgotten only if nothing kept refers to its functions or classes (a closure
    made by one keeps the whole module): the parts that outlive it come from modules that stay.
    """
    # dict.pop, not del/delattr: MicroPython keeps a deleted attribute's value in its table
    # slot (so the module would stay reachable); a popped dict entry is cleared.
    sys.modules.pop(name, None)
    package, _, leaf = name.rpartition(".")
    parent = sys.modules.get(package)
    if parent is not None:
        parent.__dict__.pop(leaf, None)
