"""Commands that talk to the board once and print: info, config, new, press, resign, undo,
state, demo.

Each handler takes the parsed arguments and an open `Client` (after hello) and returns the
exit code. With `--json` they print the board's answer as JSON, for scripts.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from . import configkeys
from ..errors import BoardError
from ..render.view import board_lines, commentary, record_words, rules_label

if TYPE_CHECKING:
    from ..link.client import Client


def _out(args, answer, lines):
    if args.json:
        answer = dict((k, v) for k, v in answer.items() if k not in ("id", "ok"))
        print(json.dumps(answer, sort_keys=True))
    else:
        for line in lines:
            print(line)


def _state_lines(state, args):
    return [rules_label(state.get("rules"))] + board_lines(state, colour=args.colour)


def cmd_info(args: argparse.Namespace, client: Client) -> int:
    hello = client.hello_answer
    cfg = client.request("get_config")["config"]
    lines = [
        "Board:     %s (%s sides, %s pits a side) on %s" % (hello.get("board"), hello.get("sides", "?"),
                                                            hello.get("pits_per_side", "?"), client.name),
        "Firmware:  %s, protocol %s" % (hello.get("firmware"), hello.get("protocol")),
        "Variants:  %s" % ", ".join(hello.get("variants") or []),
        "Commands:  %s" % ", ".join(hello.get("commands") or []),
        "Rules:     %s" % rules_label(cfg.get("rules")),
        "Seats:     %s" % ", ".join(_seat_words(s) for s in cfg.get("seats") or []),
    ]
    answer = dict(hello)
    answer["config"] = cfg
    _out(args, answer, lines)
    return 0


def _seat_words(seat):
    if isinstance(seat, dict) and seat.get("kind") == "cpu":
        return "CPU level %s" % seat.get("level", "?")
    return "human" if isinstance(seat, dict) else str(seat)


def _flatten(prefix, value, out):
    if isinstance(value, dict):
        for key in sorted(value):
            _flatten(prefix + [str(key)], value[key], out)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for i, v in enumerate(value):
            _flatten(prefix + [str(i)], v, out)
    else:
        out.append("%s=%s" % (".".join(prefix), json.dumps(value)))


def config_lines(cfg: dict[str, Any]) -> list[str]:
    """The config as the dotted key=value lines that `config set` accepts."""
    out: list[str] = []
    _flatten([], cfg, out)
    return out


def cmd_config(args: argparse.Namespace, client: Client) -> int:
    if args.action == "show":
        answer = client.request("get_config")
        _out(args, answer, config_lines(answer["config"]))
        return 0
    if args.action == "set":
        if not args.pairs:
            raise BoardError("config set needs at least one key=value, e.g. rules.seeds=5.")
        current = client.request("get_config")["config"]
        subset = configkeys.build_subset(current, args.pairs)
    else:  # reset: the protocol's defaults (docs/protocol.md §6); the power limit stays
        sides = client.hello_answer.get("sides") or len(client.request("get_config")["config"].get("seats") or [0, 0])
        subset = {"rules": {"variant": "kalah"}, "rotate_starter": True, "brightness": 40,
                  "animation_ms": 120, "seats": [{"kind": "human"} for _ in range(sides)],
                  "move_time_limit": 0}
    answer = client.request("set_config", config=subset)
    lines = ["warning: %s" % w for w in answer.get("warnings") or []]
    lines += config_lines(answer["config"])
    _out(args, answer, lines)
    return 0


def _after_move(args, answer):
    lines = []
    if isinstance(answer.get("record"), dict):
        lines.append(record_words(answer["record"]))
    lines += _state_lines(answer["state"], args)
    _out(args, answer, lines)
    return 0


def cmd_new(args: argparse.Namespace, client: Client) -> int:
    fields: dict[str, Any] = {}
    if getattr(args, "state", None):
        if args.first is not None or args.rules:
            raise BoardError("new --state takes the position alone: its rules and its seat to "
                             "move are the state's.", exit_code=2)
        fields["state"] = _state_file(args.state)
    if args.first is not None:
        fields["first"] = args.first
    if args.rules:
        fields["rules"] = configkeys.build_subset({"rules": {}}, ["rules." + r for r in args.rules])["rules"]
    answer = client.request("new_game", **fields)
    lines = ["warning: %s" % w for w in answer.get("warnings") or []]
    lines.append("New game; seat %s starts." % answer.get("first", answer["state"].get("turn")))
    _out(args, answer, lines + _state_lines(answer["state"], args))
    return 0


def _state_file(path: str) -> dict:
    """new --state FILE: an engine state dict in a JSON file (or the "state" of a saved game
    or of the `state` command's answer, which hold one); BoardError in one sentence if not."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise BoardError("%s cannot be read as JSON (%s)." % (path, getattr(e, "strerror", None)
                                                           or e), exit_code=2)
    if isinstance(data, dict) and isinstance(data.get("state"), dict):
        data = data["state"]
    if not isinstance(data, dict) or "pits" not in data:
        raise BoardError("%s holds no state: a JSON object with rules, pits, stores, turn, "
                         "active, places and over." % path, exit_code=2)
    return data


def cmd_press(args: argparse.Namespace, client: Client) -> int:
    if len(args.place) > 2:
        raise BoardError("press takes a pit, or a seat and a pit (press 4, press 1 4), got %d "
                         "numbers." % len(args.place), exit_code=2)
    fields = {"pit": args.place[-1]}
    if len(args.place) == 2:
        fields["seat"] = args.place[0]
    return _after_move(args, client.request("press", **fields))


def cmd_resign(args: argparse.Namespace, client: Client) -> int:
    fields = {} if args.seat is None else {"seat": args.seat}
    return _after_move(args, client.request("resign", **fields))


def cmd_undo(args: argparse.Namespace, client: Client) -> int:
    answer = client.request("undo")
    lines = ["The last move is taken back."] + _state_lines(answer["state"], args)
    _out(args, answer, lines)
    return 0


def cmd_demo(args: argparse.Namespace, client: Client) -> int:
    fields = {"on": args.action != "off"}
    if args.seed is not None:
        fields["seed"] = args.seed
    answer = client.request("demo", **fields)
    if answer.get("on"):
        lines = ["Demo mode is on: the CPU plays every seat, game after game, until a touch on "
                 "the board or 'mancala-board demo off'."]
    else:
        lines = ["Demo mode is off: the seats play as configured again."]
    _out(args, answer, lines)
    return 0


def cmd_state(args: argparse.Namespace, client: Client) -> int:
    answer = client.request("state")
    lines = _state_lines(answer["state"], args)
    if "moves" in answer:
        lines.append("%d move(s) so far; seat %s started." % (answer["moves"], answer.get("first")))
    _out(args, answer, lines)
    return 0


__all__ = ["cmd_info", "cmd_config", "cmd_new", "cmd_press", "cmd_resign", "cmd_undo",
           "cmd_state", "cmd_demo", "config_lines", "commentary"]
