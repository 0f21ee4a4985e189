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


# System actions: the room applies them for the server (a referee, a tournament), never a player.
# ``legal_actions`` never lists them, so a player who sends one is refused (action/illegal); they are
# in the match's action log like any other action, so ``game.match.replay`` rebuilds their effect.


@dataclass(frozen=True, slots=True)
class StopWin:
    """停和 for the rest of the current hand (R98 第十三条3; tournament.md 1.4): no 和, plays on."""

    seq: int | None = field(default=None, compare=False)
    name = "stop_win"


@dataclass(frozen=True, slots=True)
class NoWin:
    """The player cannot win for the rest of the match: an unranked substitute that plays along (陪打),
    for 停赛 and a late player's forfeit (tournament.md 2.4, "Our decisions for tournaments")."""

    seq: int | None = field(default=None, compare=False)
    name = "no_win"


@dataclass(frozen=True, slots=True)
class TimeUp:
    """The session's time is up (R98 第六条四; tournament.md 2.6): the hand in progress is void and the
    match ends now, or with ``finish_hand`` the match ends after the hand in progress."""

    finish_hand: bool = False
    seq: int | None = field(default=None, compare=False)
    name = "time_up"


Action = Discard | Win | Pass | Chow | Pung | Kong | ConcealedKong | AddedKong | Continue | StopWin | NoWin | TimeUp
ACTION_TYPES = (Discard, Win, Pass, Chow, Pung, Kong, ConcealedKong, AddedKong, Continue)
SYSTEM_TYPES = (StopWin, NoWin, TimeUp)
_BY_NAME = {cls.name: cls for cls in ACTION_TYPES + SYSTEM_TYPES}
_TILE_FIELD = {Discard: "tile", Chow: "low", ConcealedKong: "tile", AddedKong: "tile"}
# Optional bool fields, written only when true.
_FLAG_FIELD = {Discard: "ready", TimeUp: "finish_hand"}
_KNOWN = frozenset(ACTION_TYPES + SYSTEM_TYPES)
# Per type: its tile field, its flag field and every field its wire form may carry (from_dict).
_FORM = {cls: (_TILE_FIELD.get(cls), _FLAG_FIELD.get(cls),
               frozenset({"a", "seq", _TILE_FIELD.get(cls), _FLAG_FIELD.get(cls)} - {None}))
         for cls in _KNOWN}

# Shared instances (seq None) so legal_actions builds no objects on the hot path.
WIN, PASS, PUNG, KONG, CONTINUE = Win(), Pass(), Pung(), Kong(), Continue()
DISCARDS = tuple(Discard(t) for t in range(NUM_KINDS))
READY_DISCARDS = tuple(Discard(t, True) for t in range(NUM_KINDS))
CHOWS = tuple(Chow(t) for t in range(NUM_KINDS))
CONCEALED_KONGS = tuple(ConcealedKong(t) for t in range(NUM_KINDS))
ADDED_KONGS = tuple(AddedKong(t) for t in range(NUM_KINDS))
# ids of the shared instances: step() need not re-check what it built itself.
_SHARED_INSTANCES = ((WIN, PASS, PUNG, KONG, CONTINUE) + DISCARDS + READY_DISCARDS + CHOWS + CONCEALED_KONGS
                     + ADDED_KONGS)
SHARED = frozenset(map(id, _SHARED_INSTANCES))


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
    flag = _FLAG_FIELD.get(cls)
    if flag is not None and type(getattr(action, flag)) is not bool:
        raise ActionError(MALFORMED, f"{action.name}: {flag} must be a bool, got {getattr(action, flag)!r}")
    seq = action.seq
    if seq is not None and type(seq) is not int:
        raise ActionError(MALFORMED, f"seq must be an int, got {seq!r}")


def to_dict(action: Action) -> dict:
    """The wire/log form: ``{"a": name, ...fields}``; seq only when set, ready / finish_hand only when true."""
    d: dict = {"a": action.name}
    f = _TILE_FIELD.get(type(action))
    if f is not None:
        d[f] = getattr(action, f)
    flag = _FLAG_FIELD.get(type(action))
    if flag is not None and getattr(action, flag):
        d[flag] = True
    if action.seq is not None:
        d["seq"] = action.seq
    return d


def wire_list(actions) -> list[dict]:
    """``[to_dict(a) for a in actions]`` for a prompt's legal actions: the shared instances' forms are
    made once and shared between messages (read-only: encoded, never changed)."""
    out = []
    for a in actions:
        d = _SHARED_WIRE.get(id(a))
        out.append(to_dict(a) if d is None else d)
    return out


def from_dict(d: Any) -> Action:
    """Parse the wire/log form; anything else is ``action/malformed``."""
    if not isinstance(d, dict) or not isinstance(d.get("a"), str) or d["a"] not in _BY_NAME:
        raise ActionError(MALFORMED, f"not an action: {d!r}")
    cls = _BY_NAME[d["a"]]
    f, flag, allowed = _FORM[cls]
    kwargs: dict = {"seq": d.get("seq")}
    if f is not None:
        if f not in d:
            raise ActionError(MALFORMED, f"{cls.name} needs {f!r}")
        kwargs[f] = d[f]
    if flag is not None:
        kwargs[flag] = d.get(flag, False)
    if not d.keys() <= allowed:
        raise ActionError(MALFORMED, f"{cls.name}: unknown fields {sorted(set(d) - allowed)}")
    action = cls(**kwargs)
    check(action)
    return action


def with_seq(action: Action, seq: int) -> Action:
    """The same action answering ``seq``."""
    kwargs = {"seq": seq}
    f = _TILE_FIELD.get(type(action))
    if f is not None:
        kwargs[f] = getattr(action, f)
    flag = _FLAG_FIELD.get(type(action))
    if flag is not None:
        kwargs[flag] = getattr(action, flag)
    return type(action)(**kwargs)


_SHARED_WIRE = {id(a): to_dict(a) for a in _SHARED_INSTANCES}
