"""The items a room's queue carries, one small class each; the room's task takes them in order
(server.roomtask ``step``). An ``Asked`` item is a frame waiting for its answer: whoever takes it answers
it, and if the room ends first, ``App.answer_lost`` does.

A tournament's queue still carries tuples ``(kind, player, conn, req, ...)``; ``asked`` and ``kind``
read both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from server.conn import Conn


@dataclass(slots=True)
class Asked:
    pid: str
    conn: Conn
    req: tuple


@dataclass(slots=True)
class Command(Asked):
    """A room command from a frame (``act``, ``join``, ``ready``, ...)."""
    cmd: dict


@dataclass(slots=True)
class Handled(Command):
    """A command the room already took (``play_now``) whose entries need the task: commit, answer."""
    out: list


@dataclass(slots=True)
class SnapshotAsked(Asked):
    pass


@dataclass(slots=True)
class HistoryAsked(Asked):
    page: int


@dataclass(slots=True)
class ChatAsked(Asked):
    text: str


@dataclass(slots=True)
class Connect:
    """A member signed in again (their snapshot is due first)."""
    pid: str
    conn: Conn


@dataclass(slots=True)
class Disconnect:
    pid: str


@dataclass(slots=True)
class WatcherGone:
    """A disconnected spectator's grace is over: they leave unless back."""
    pid: str
    grace: float


@dataclass(slots=True)
class Leave:
    """The player's tournament table opened: they leave this room."""
    pid: str


@dataclass(slots=True)
class System:
    """A command of the room's tournament (its referee's)."""
    cmd: dict


@dataclass(slots=True)
class Resync:
    """The store took the writes it held back: every member gets a snapshot."""


@dataclass(slots=True)
class Tick:
    """The room's deadline came (server.timedqueue)."""


@dataclass(slots=True)
class Stop:
    """The server stops: the task ends where it is."""


TICK, RESYNC, STOP = Tick(), Resync(), Stop()

# Tuple items (a tournament's queue) that a frame put there: (kind, player, conn, req, ...).
ASKED_KINDS = frozenset(("cmd", "handled", "snapshot", "history", "chat", "follow"))


def is_tick(item: Any) -> bool:
    return isinstance(item, Tick) or item == ("tick",)


def kind(item: Any) -> str:
    """The item's kind, for logs and checks: a tuple's first element, else the class's name."""
    return item[0] if isinstance(item, tuple) else type(item).__name__


def asked(item: Any) -> tuple[str, Conn, tuple] | None:
    """(player, connection, request) of a frame waiting for its answer in ``item``, else None."""
    if isinstance(item, Asked):
        return item.pid, item.conn, item.req
    if isinstance(item, tuple) and item[0] in ASKED_KINDS and item[2] is not None:
        return item[1], item[2], item[3]
    return None
