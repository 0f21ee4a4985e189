"""A checker of values against server/wire.py's declarations (``problems``): the wire tests use it on
what the server really sends."""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints

from server import wire


def _tag(td, key: str):
    return get_args(get_type_hints(td)[key])[0]


BY_T = {_tag(td, "t"): td for td in wire.MESSAGES + wire.EVENTS if td not in wire.TOURNAMENT_EVENTS}
BY_EVENT = {_tag(td, "event"): td for td in wire.TOURNAMENT_EVENTS}  # tournament_event, by its "event"
_ACTIONS = {_tag(td, "a"): td for td in get_args(wire.Action)}


def _tagged(value, args):
    """The member of a tagged union ``args`` that ``value``'s tag names, or None."""
    if not isinstance(value, dict):
        return None
    if value.get("t") == "tournament_event":
        td = BY_EVENT.get(value.get("event"))
    else:
        td = BY_T.get(value.get("t")) or _ACTIONS.get(value.get("a"))
    return td if td in args else None


def problems(value, tp, path: str = "") -> list[str]:
    """Where ``value`` differs from the annotation ``tp``: an unknown key, a missing one, a wrong type."""
    if tp is Any:
        return []
    if tp is float:
        return [] if type(value) in (int, float) else [f"{path}: {value!r} is not a number"]
    if tp in (int, str, bool, type(None)):
        return [] if type(value) is tp else [f"{path}: {value!r} is not {tp.__name__}"]
    if isinstance(tp, type) and (typing.is_typeddict(tp) or dataclasses.is_dataclass(tp)):
        if not isinstance(value, dict):
            return [f"{path}: {value!r} is not a {tp.__name__}"]
        hints = get_type_hints(tp, include_extras=True)
        keys = {k[:-1] if k.endswith("_") else k: k for k in hints}
        out = [f"{path}.{k}: not in {tp.__name__}" for k in value if k not in keys]
        for key, name in keys.items():
            ann = hints[name]
            optional = get_origin(ann) is NotRequired
            if optional:
                ann = get_args(ann)[0]
            if key in value:
                out += problems(value[key], ann, f"{path}.{key}")
            elif not optional:
                out.append(f"{path}.{key}: missing from {tp.__name__}")
        return out
    origin, args = get_origin(tp), get_args(tp)
    if origin is Literal:
        return [] if value in args else [f"{path}: {value!r} not one of {args}"]
    if origin in (Union, types.UnionType):
        if (td := _tagged(value, args)) is not None:
            return problems(value, td, path)
        if value is not None and type(None) in args:
            args = tuple(a for a in args if a is not type(None))
        tries = [problems(value, a, path) for a in args]
        return [] if any(not p for p in tries) else min(tries, key=len)
    if origin in (list, tuple):
        if not isinstance(value, (list, tuple)):
            return [f"{path}: {value!r} is not a list"]
        if origin is tuple:
            if len(value) != len(args):
                return [f"{path}: {value!r} has not {len(args)} items"]
            return [p for i, (v, a) in enumerate(zip(value, args)) for p in problems(v, a, f"{path}[{i}]")]
        return [p for i, v in enumerate(value) for p in problems(v, args[0], f"{path}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: {value!r} is not a map"]
        return [p for k, v in value.items() for p in problems(k, args[0], f"{path} key") + problems(v, args[1], f"{path}.{k}")]
    raise TypeError(tp)
