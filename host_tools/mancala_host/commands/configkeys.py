"""`config set` arguments: dotted `key=value` pairs turned into a `set_config` subset.

`rules.seeds=5 seats.1.kind=cpu` becomes `{"rules": {...}, "seats": [...]}`. Values are read
as JSON where they parse (5, true, "x", {...}) and as plain words otherwise (cpu).

The board replaces `rules` whole (docs/protocol.md §4), so a person's `rules.seeds=5` is laid
over the current rules; once `rules.variant` or `rules.preset` is given, the rules start from
nothing but the given keys, because the old variant's options would not fit the new one.
Lists (`seats`) are sent whole with the named entries changed; a seat whose `kind` changes
starts from nothing but the given keys, so `seats.0.kind=human` turns a CPU seat back into a
person's without its old `level`.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Sequence

from ..errors import BoardError


def parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_assignments(args: Sequence[str]) -> list[tuple[list[str], Any]]:
    """[(["rules", "seeds"], 5), ...] from ["rules.seeds=5", ...]."""
    pairs = []
    for arg in args:
        key, sep, value = arg.partition("=")
        if not sep or not key or any(not part for part in key.split(".")):
            raise BoardError("%r is not key=value: write it like rules.seeds=5 or seats.1.kind=cpu." % arg)
        pairs.append((key.split("."), parse_value(value)))
    return pairs


def _set_path(node, path, value, shown):
    for i, part in enumerate(path):
        last = i == len(path) - 1
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise BoardError("%s: %s has entries 0 to %d, so %r is not one of them."
                                 % (shown, ".".join(path[:i]), len(node) - 1, part))
            part = int(part)
        elif not isinstance(node, dict):
            raise BoardError("%s: %s is a single value, not a group of settings."
                             % (shown, ".".join(path[:i])))
        if last:
            node[part] = value
        else:
            if isinstance(node, dict) and part not in node:
                node[part] = {}
            node = node[part]


def build_subset(current: dict[str, Any], args: Sequence[str]) -> dict[str, Any]:
    """The `config` subset to send for `args`, given the board's `current` config."""
    pairs = parse_assignments(args)
    touched = []
    for path, _ in pairs:
        if path[0] not in touched:
            touched.append(path[0])
    work = copy.deepcopy(current)
    fresh_rules = any(p[0] == "rules" and len(p) > 1 and p[1] in ("variant", "preset") for p, _ in pairs)
    if "rules" in touched and fresh_rules:
        work["rules"] = {}
    for path, value in pairs:
        if len(path) == 3 and path[0] == "seats" and path[2] == "kind" and path[1].isdigit():
            seats = work.get("seats")
            i = int(path[1])
            if isinstance(seats, list) and i < len(seats) and isinstance(seats[i], dict) \
                    and seats[i].get("kind") != value:
                seats[i] = {}  # another kind of seat: the old kind's keys do not fit it
    for path, value in pairs:
        shown = ".".join(path) + "=" + json.dumps(value)
        if len(path) > 1 and path[0] not in work:
            work[path[0]] = {}
        _set_path(work, path, value, shown)
    return dict((key, work[key]) for key in touched)
