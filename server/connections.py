"""Websocket connections: admitted per address at the handshake, each one's life (its frames go to
``on_message``, server.frames; closed when idle), and what its end means for the player's room and
quick-match place. A mixin of ``server.app.App``.
"""

from __future__ import annotations

import asyncio
import logging

from server.conn import Conn, IdleTimer
from server.quotas import address_of, is_loopback
from server.roomitems import Disconnect, QuickCancel, RoomRef

log = logging.getLogger("guobiao.server")

CLOSE_IDLE = 4002
QUICK_GRACE = 30.0  # seconds a quick-match player whose connection closed keeps their place (a reload)


class Connections:
    """Mixin of ``server.app.App``: websocket connections."""

    def admit_address(self, ws) -> bool:
        """At a websocket handshake: whether one more connection from its address is allowed
        (``Limits.per_address``); if so it is counted until the connection is lost."""
        lim = self.limits
        address = address_of(ws.remote_address[0] if ws.remote_address else "")
        if not lim.per_address or (lim.exempt_loopback and is_loopback(address)):
            return True
        if self.addresses[address] >= lim.per_address:
            log.info("refused a connection from %s: %d open", address, self.addresses[address])
            return False
        self.addresses[address] += 1
        ws.when_lost(lambda: self._address_closed(address))
        return True

    def admit_http(self, connection) -> str | None:
        """At a plain HTTP request: None if its address may have it answered, else why not. Within the
        rate (``Limits.http_rate``) and the open HTTP connections (``Limits.http_per_address``), the
        connection is counted until it is lost."""
        lim = self.limits
        ra = connection.remote_address
        address = address_of(ra[0] if ra else "")
        if lim.exempt_loopback and is_loopback(address):
            return None
        if lim.http_per_address and self.http_open[address] >= lim.http_per_address:
            return "too_many_connections"
        if not self.http_rates.take(address, self.loop.time()):
            return "too_many_requests"
        self.http_open[address] += 1
        connection.when_lost(lambda: self._http_closed(address))
        return None

    def _http_closed(self, address: str) -> None:
        self.http_open[address] -= 1
        if self.http_open[address] <= 0:
            del self.http_open[address]

    def _address_closed(self, address: str) -> None:
        self.addresses[address] -= 1
        if self.addresses[address] <= 0:
            del self.addresses[address]

    def opened(self, ws) -> None:
        """A websocket connection is open (server.wsconn): its frames go to ``on_message`` as they are
        read (which handles each or queues it behind an unanswered one); it is closed when no frame
        came for the idle timeout."""
        conn = Conn(ws, self.limits, self.loop.time())
        idle = IdleTimer(self.loop, lambda: self.limits.idle_timeout if conn.player else self.limits.signin_timeout,
                         lambda: conn.close_soon(CLOSE_IDLE, "idle" if conn.player else "no sign-in"))
        idle.wait()
        ws.on_message = lambda frame: self.on_message(conn, idle, frame)
        ws.on_close = lambda: self._ended(conn, idle)

    def _ended(self, conn: Conn, idle: IdleTimer) -> asyncio.Task | None:
        """The connection is lost. A frame still being handled (a sign-in, a new room) ends first: the
        connection is closed for the rest once it has (its task is returned)."""
        idle.stop()
        worker = conn.worker
        if worker is None:
            self.on_close(conn)
            return None
        worker.add_done_callback(lambda _: self.on_close(conn))
        return worker

    def on_close(self, conn: Conn) -> None:
        conn.closed = True
        conn.stop_writer()
        self.metrics.conn_closed(conn)
        pid = conn.player
        if pid is None or self.conns.get(pid) is not conn:
            return  # not signed in, or already replaced by a newer connection
        del self.conns[pid]
        # A quick-match place outlives a reload (and keeps its time waited); one who stays away leaves.
        if (old := self.quick_away.pop(pid, None)) is not None:
            old.cancel()
        self.quick_away[pid] = self.loop.call_later(QUICK_GRACE, self._quick_gone, pid)
        task = self.where.get(pid)
        if isinstance(task, RoomRef):
            task.put(Disconnect(pid))
        if self.cluster is not None:
            self.cluster.tourneys.disconnected(pid)  # a tournament on another node drops its stand-in

    def _quick_gone(self, pid: str) -> None:
        self.quick_away.pop(pid, None)
        if pid not in self.conns:
            self.quick_queue.put_nowait(QuickCancel(pid))
