"""The fields each command may carry, declared once: ``{command: {field: Field}}`` with the field's type
and whether it is required. The server checks every frame against these before it dispatches it
(server/schema.py: an unknown field, a missing required one or one of the wrong type is
``protocol/bad_field``); what a value means (a seat 0..3, a known room code) is the handler's to check.
"""

from __future__ import annotations

from typing import NamedTuple


class Field(NamedTuple):
    types: tuple  # exact types: True is not an int here, None is never a value
    required: bool = False


TEXT, INT, BOOL, MAP = (str,), (int,), (bool,), (dict,)
NUMBER = (int, float)
_NAMES = {str: "a string", int: "an integer", bool: "true or false", dict: "a map", float: "a number"}


def req(types: tuple) -> Field:
    return Field(types, True)


def opt(types: tuple) -> Field:
    return Field(types, False)


def describe(f: Field) -> str:
    return "a number" if f.types == NUMBER else " or ".join(_NAMES[t] for t in f.types)


def problem(cmd: dict, spec: dict[str, Field], skip: tuple = ("t",)) -> str | None:
    """What is wrong with ``cmd``'s fields under ``spec`` (its name is ``cmd["t"]``), or None."""
    t = cmd.get("t")
    for name, value in cmd.items():
        if name in skip:
            continue
        f = spec.get(name)
        if f is None:
            return f"{t}: unknown field {name!r} (it takes {sorted(spec) or 'no fields'})"
        if type(value) not in f.types:
            return f"{t}: {name} must be {describe(f)}"
    for name, f in spec.items():
        if f.required and name not in cmd:
            return f"{t}: {name} is required ({describe(f)})"
    return None
