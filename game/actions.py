"""Player actions, their wire form, and the stable error codes of rejected actions.

Every action may carry ``seq``: the state's sequence number it answers. A room always sets it, so an
action answering a state the room has moved past is rejected as ``action/stale``; ``None`` skips
the check (scripts, tests). ``seq`` takes no part in equality, so an action from a client compares
equal to the same entry of ``legal_actions``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from game.tiles import NUM_KINDS, Tile

# Stable error codes (DESIGN.md "Errors": game errors).
MALFORMED = "action/malformed"  # not an action, or fields of the wrong type or range
STALE = "action/stale"  # answers a sequence number the state has moved past
NOT_YOUR_TURN = "action/not_your_turn"  # the seat has nothing to do now
ILLEGAL = "action/illegal"  # the seat may act, but not this way
HAND_OVER = "action/hand_over"  # the hand (or match) is finished
MATCH_OVER = "action/match_over"


class ActionError(ValueError):
    """A rejected action; the state it was applied to is unchanged."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Discard:
    tile: Tile
    ready: bool = False  # 报听 together with this discard (rules.declare_ready)
    seq: int | None = field(default=None, compare=False)
    name = "discard"


@dataclass(frozen=True, slots=True)
class Win:
    """和: on one's own draw, on a discard, or robbing an added kong."""

    seq: int | None = field(default=None, compare=False)
    name = "win"


@dataclass(frozen=True, slots=True)
class Pass:
    seq: int | None = field(default=None, compare=False)
    name = "pass"


@dataclass(frozen=True, slots=True)
class Chow:
    low: Tile  # lowest tile of the chow formed with the discard
    seq: int | None = field(default=None, compare=False)
    name = "chow"


@dataclass(frozen=True, slots=True)
class Pung:
    seq: int | None = field(default=None, compare=False)
    name = "pung"


@dataclass(frozen=True, slots=True)
class Kong:
    """Exposed kong on a discard (大明杠)."""

    seq: int | None = field(default=None, compare=False)
    name = "kong"


@dataclass(frozen=True, slots=True)
class ConcealedKong:
    tile: Tile
    seq: int | None = field(default=None, compare=False)
    name = "concealed_kong"


@dataclass(frozen=True, slots=True)
class AddedKong:
    tile: Tile
    seq: int | None = field(default=None, compare=False)
    name = "added_kong"


@dataclass(frozen=True, slots=True)
class Continue:
    """Between the hands of a match: this player is ready for the next hand."""

    seq: int | None = field(default=None, compare=False)
    name = "continue"


Action = Discard | Win | Pass | Chow | Pung | Kong | ConcealedKong | AddedKong | Continue
ACTION_TYPES = (Discard, Win, Pass, Chow, Pung, Kong, ConcealedKong, AddedKong, Continue)
_BY_NAME = {cls.name: cls for cls in ACTION_TYPES}
_TILE_FIELD = {Discard: "tile", Chow: "low", ConcealedKong: "tile", AddedKong: "tile"}
_KNOWN = frozenset(ACTION_TYPES)

# Shared instances (seq None) so legal_actions builds no objects on the hot path.
WIN, PASS, PUNG, KONG, CONTINUE = Win(), Pass(), Pung(), Kong(), Continue()
DISCARDS = tuple(Discard(t) for t in range(NUM_KINDS))
READY_DISCARDS = tuple(Discard(t, True) for t in range(NUM_KINDS))
CHOWS = tuple(Chow(t) for t in range(NUM_KINDS))
CONCEALED_KONGS = tuple(ConcealedKong(t) for t in range(NUM_KINDS))
ADDED_KONGS = tuple(AddedKong(t) for t in range(NUM_KINDS))
# ids of the shared instances: step() need not re-check what it built itself.
SHARED = frozenset(map(id, (WIN, PASS, PUNG, KONG, CONTINUE) + DISCARDS + READY_DISCARDS + CHOWS + CONCEALED_KONGS
                       + ADDED_KONGS))


def check(action: Any) -> None:
    """Raise ``action/malformed`` unless ``action`` is a well-formed action object."""
    cls = type(action)
    if cls not in _KNOWN:
        raise ActionError(MALFORMED, f"not an action: {action!r}")
    f = _TILE_FIELD.get(cls)
    if f is not None:
        t = getattr(action, f)
        if type(t) is not int or not 0 <= t < NUM_KINDS:
            raise ActionError(MALFORMED, f"{action.name}: {f} must be a tile 0..33, got {t!r}")
        if cls is Discard and type(action.ready) is not bool:
            raise ActionError(MALFORMED, f"discard: ready must be a bool, got {action.ready!r}")
    seq = action.seq
    if seq is not None and type(seq) is not int:
        raise ActionError(MALFORMED, f"seq must be an int, got {seq!r}")


def to_dict(action: Action) -> dict:
    """The wire/log form: ``{"a": name, ...fields}``; seq only when set, ready only when true."""
    d: dict = {"a": action.name}
    f = _TILE_FIELD.get(type(action))
    if f is not None:
        d[f] = getattr(action, f)
    if type(action) is Discard and action.ready:
        d["ready"] = True
    if action.seq is not None:
        d["seq"] = action.seq
    return d


def from_dict(d: Any) -> Action:
    """Parse the wire/log form; anything else is ``action/malformed``."""
    if not isinstance(d, dict) or not isinstance(d.get("a"), str) or d["a"] not in _BY_NAME:
        raise ActionError(MALFORMED, f"not an action: {d!r}")
    cls = _BY_NAME[d["a"]]
    allowed = {"a", "seq"}
    kwargs: dict = {"seq": d.get("seq")}
    f = _TILE_FIELD.get(cls)
    if f is not None:
        if f not in d:
            raise ActionError(MALFORMED, f"{cls.name} needs {f!r}")
        kwargs[f] = d[f]
        allowed.add(f)
    if cls is Discard:
        kwargs["ready"] = d.get("ready", False)
        allowed.add("ready")
    extra = set(d) - allowed
    if extra:
        raise ActionError(MALFORMED, f"{cls.name}: unknown fields {sorted(extra)}")
    action = cls(**kwargs)
    check(action)
    return action


def with_seq(action: Action, seq: int) -> Action:
    """The same action answering ``seq``."""
    kwargs = {"seq": seq}
    f = _TILE_FIELD.get(type(action))
    if f is not None:
        kwargs[f] = getattr(action, f)
    if type(action) is Discard:
        kwargs["ready"] = action.ready
    return type(action)(**kwargs)
