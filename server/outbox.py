"""What a room's or a tournament's task may ask of the server: send to members, answer frames, persist,
and say that it changed or ended. ``server.app.App`` provides both; the tasks hold it as an outbox of
these few members and use nothing else of it (tests/server/test_outbox.py checks both sides).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Protocol, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover
    from rooms.room import Room
    from server.app import Settings
    from server.codec import Shared
    from server.conn import Conn
    from server.profiles import Ratings
    from server.roomtask import RoomTask
    from server.store import Store
    from server.tournaments import TournamentTask


@runtime_checkable
class RoomOutbox(Protocol):
    """What ``server.roomtask.RoomTask`` uses."""

    store: Store  # persist: the room's log (write, append), its matches, closing it; paused while faulty
    spectator_grace: float  # seconds a disconnected spectator stays (server.quotas)
    ratings: Ratings  # report: a finished match, for ratings and statistics (server.profiles)
    settings: Settings  # the external bots' specs (docs/bots.md), for the seats they play

    def now(self) -> float: ...

    def connection(self, pid: str) -> Conn | None:
        """A member's connection, here or through another node (for snapshots after a pause)."""

    def auto_acted(self, n: int) -> None:
        """Report: ``n`` moves the room made for seats (bots, 托管, timeouts) are durable (server.metrics)."""

    def deliver(self, pid: str, msg: dict, shared: Shared | None = None) -> None:
        """A push to a member (dropped if offline); ``shared``: ``msg`` encoded once for several."""

    def reply(self, conn: Conn, req: tuple, msg: dict) -> None:
        """The answer to a frame."""

    async def display_names(self, ids: set[str]) -> dict[str, str]: ...

    def members_changed(self, task: RoomTask, old: set, new: set) -> None:
        """Report: who is in the room changed (the lobby's ``where``); ``old == new``: only what the
        lobby lists of it (a name read late), which a cluster writes to its shared lobby again."""

    def room_gone(self, task: RoomTask) -> None:
        """Report: the room closed (or stopped on a bug)."""


@runtime_checkable
class TournamentOutbox(Protocol):
    """What ``server.tournaments.TournamentTask`` uses."""

    store: Store  # persist: the tournament's log; its tables' logs read back
    conns: Mapping[str, Conn]  # who is online (seated at once, or counted late)
    rooms: Mapping[str, RoomTask]  # its tables' rooms, to hand them the referee's commands
    tournaments: Mapping[str, TournamentTask]  # the seats bot competitors hold (server.botzone.held)
    settings: Settings  # the external bots a tournament may register (docs/tournaments.md)
    linger: float  # seconds a finished tournament stays listed
    cluster: Any  # server.cluster.node.ClusterNode in cluster mode (its summary listed on every node), else None

    def now(self) -> float: ...

    def deliver(self, pid: str, msg: dict) -> None: ...

    def reply(self, conn: Conn, req: tuple, msg: dict) -> None: ...

    async def display_names(self, ids: set[str]) -> dict[str, str]: ...

    def make_table(self, e) -> Room:
        """A table's room, in memory only (server.events)."""

    async def open_table(self, tournament: TournamentTask, e, room: Room, db_id: int) -> RoomTask:
        """A table's room, written with the tournament's log, registered (server.events)."""

    def seat_table(self, task: RoomTask, e) -> None: ...

    def followed(self, pid: str, task: TournamentTask) -> None:
        """``pid`` follows ``task`` now, and no other tournament (server.events)."""

    def tournament_gone(self, task: TournamentTask) -> None:
        """Report: the tournament is no longer kept."""
