"""`web --exact`: the exact value and the best pits on the projector page, for a teacher who
turns it on (it is off by default: it gives the game away).

A thread of its own values each new state of the board with the exact solver (exact.py,
bounded by --exact-nodes a move, so it never holds up the page), and publishes `exact` in the
page's snapshot once the state it valued is still the board's: {"text": one sentence,
"seat", "value", "pits"} (no pits when the solver has no value: Basic, or too big), or null
when the game is over.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from ..logs import exact


class ExactFeed:
    """Call it with each new state; it publishes that state's exact value on the hub."""

    def __init__(self, hub: Any, nodes: int) -> None:
        self.hub = hub
        self.nodes = nodes
        self._cond = threading.Condition()
        self._latest: str | None = None
        threading.Thread(target=self._run, daemon=True).start()

    def __call__(self, state: dict[str, Any]) -> None:
        with self._cond:
            self._latest = json.dumps(state, sort_keys=True)
            self._cond.notify()

    def _run(self) -> None:
        done: str | None = None
        while True:
            with self._cond:
                while self._latest == done:
                    self._cond.wait()
                key = self._latest
            assert key is not None  # the wait above ends only on a state
            done = key
            value = self.value(json.loads(key))
            with self._cond:
                current = self._latest == key
            if current:
                self.hub.publish(exact=value)

    def value(self, state: dict[str, Any]) -> dict[str, Any] | None:
        if state.get("over"):
            return None
        try:
            answer, sentence = exact.hint_lines(state, self.nodes)
        except Exception as exc:  # a state the engine refuses: say so on the page, keep serving
            return {"text": str(exc), "pits": []}
        if answer is None:
            return {"text": sentence, "pits": []}
        return {"text": "Exact: " + sentence, "seat": answer["seat"], "value": answer["value"],
                "pits": answer["pits"]}
