"""`web --exact`: the exact value and the best pits on the projector page, for a teacher who
turns it on (it is off by default: it gives the game away).

A thread of its own values each new state of the board with the exact solver (exact.py,
within --seconds a position, so it never holds up the page; the opening book answers the
first plies at once), and publishes `exact` in the page's snapshot once the state it valued
is still the board's: {"text": one sentence, "seat", "value", "pits"} (no pits when the
solver has no value: Basic, or past the budget), or null when the game is over.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from ..logs import exact


class ExactFeed:
    """Call it with each new state; it publishes that state's exact value on the hub."""

    def __init__(self, hub: Any, budget: exact.Budget) -> None:
        self.hub = hub
        self.budget = budget
        self._cond = threading.Condition()
        self._latest: str | None = None
        self._valuing: str | None = None  # the state whose search is under way
        threading.Thread(target=self._run, daemon=True).start()

    def __call__(self, state: dict[str, Any]) -> None:
        from ..solver import stop_all
        with self._cond:
            self._latest = json.dumps(state, sort_keys=True)
            self._cond.notify()
            if self._valuing is not None and self._valuing != self._latest:
                # The position being valued is no longer the board's: its search stops at
                # once (under the lock, so never the next one's), and the thread goes on.
                stop_all()

    def _run(self) -> None:
        done: str | None = None
        while True:
            with self._cond:
                while self._latest == done:
                    self._cond.wait()
                key = self._valuing = self._latest
            assert key is not None  # the wait above ends only on a state
            done = key
            value = self.value(json.loads(key))
            with self._cond:
                self._valuing = None
                current = self._latest == key
            if current:
                self.hub.publish(exact=value)

    def value(self, state: dict[str, Any]) -> dict[str, Any] | None:
        if state.get("over"):
            return None
        try:
            answer, sentence = exact.hint_lines(state, self.budget)
        except Exception as exc:  # a state the engine refuses: say so on the page, keep serving
            return {"text": str(exc), "pits": []}
        if answer is None:
            return {"text": sentence, "pits": []}
        return {"text": "Exact: " + sentence, "seat": answer["seat"], "value": answer["value"],
                "pits": answer["pits"]}
