"""The items a room's, a tournament's or the quick match's queue carries, one small class each; the
queue's task takes them in order (server.roomtask and server.tournaments ``step``, server.lobby
``quick_loop``). An ``Asked`` item is a frame waiting for its
answer: whoever takes it answers it, and if the task ends first, ``App.answer_lost`` does.
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
    """A command the room already took (``play_now``) whose entries need the task: commit, render, answer."""
    applied: list  # rooms.effects.Applied


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
class Follow(Asked):
    """A player asks for a tournament's view (and its deltas after it)."""


@dataclass(slots=True)
class ViewAsked:
    """GET /api/tournaments/<id>: the public view, built by the tournament's task (so never ahead of
    its log: a change waiting for its write is shown once written)."""
    answer: Any  # an asyncio.Future, given the view


@dataclass(slots=True)
class Unfollow:
    pid: str


@dataclass(slots=True)
class TableEvent:
    """What a tournament's table reports (server.roomtask ``table_report``)."""
    table: str
    event: dict


@dataclass(slots=True)
class QuickAsked(Asked):
    """A player asks for a quick match (the quick-match queue, server.lobby)."""
    room_type: str
    wait: float | None  # seconds before bots fill the table; None: no bots
    hands: int = 4  # the match's length (rooms.quickmatch.HANDS)


@dataclass(slots=True)
class QuickCancel:
    """Out of the quick-match queue: asked (``conn``, ``req``), or the player went away (None)."""
    pid: str
    conn: Conn | None = None
    req: tuple | None = None


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


def kind(item: Any) -> str:
    """The item's kind, for logs."""
    return type(item).__name__


def asked(item: Any) -> tuple[str, Conn, tuple] | None:
    """(player, connection, request) of a frame waiting for its answer in ``item``, else None."""
    return (item.pid, item.conn, item.req) if isinstance(item, Asked) else None


class RoomRef:
    """What ``App.where`` holds for a player in a room: the room's task on this node
    (server.roomtask.RoomTask) or, in a cluster, a ``RemoteRoom`` standing for a room another node owns
    (server.cluster.remote). Either takes the player's items and their returning connection."""
    __slots__ = ()
    id: str

    def put(self, item) -> None:
        raise NotImplementedError

    def reconnect(self, pid: str, conn) -> None:
        raise NotImplementedError
