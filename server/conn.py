"""One websocket connection: its encoding, rate limit and outgoing messages.

A message goes straight to the socket when nothing is waiting before it and the socket's buffer holds
at most ``Limits.write_limit`` bytes: no task, queue or future per message. Past that, messages wait
in a bounded queue that a writer task sends as the client reads; a client that lets the queue fill up
(``Limits.out_queue`` messages or ``Limits.out_bytes`` bytes) is cut off (the transport is aborted)
rather than buffered without end. The kernel's own send buffer is capped at ``write_limit`` too, so what a client
that does not read can hold is set by the limits, not by the kernel's buffer sizing (megabytes on
loopback).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import struct
from collections import deque

from websockets.protocol import State

from server import codec

log = logging.getLogger("guobiao.conn")


# RFC 6455 5.2: FIN and the opcode, then the payload length; a server's frames are not masked. A message
# that goes straight out is framed here, header and payload in one ``transport.write`` (no extension is
# ever negotiated); server.wsconn, on websockets' Sans-I/O layer, does the handshake, reading, control
# frames, closing and the queued path (``ws.send``).
_FIN_BINARY, _FIN_TEXT = 0x82, 0x81
_OPEN = State.OPEN  # read once: an enum member looked up on its class costs ~1 µs, and every message asks
_pack_16, _pack_64 = struct.Struct("!BBH").pack, struct.Struct("!BBQ").pack


# The two bytes before a payload of fewer than 126 bytes (most messages), built once.
_SHORT_BINARY = [bytes((_FIN_BINARY, n)) for n in range(126)]
_SHORT_TEXT = [bytes((_FIN_TEXT, n)) for n in range(126)]


def frame(data: bytes | str) -> bytes:
    """One unfragmented, unmasked frame carrying ``data`` (str: a text frame)."""
    if type(data) is str:
        data, first = data.encode(), _FIN_TEXT
        n = len(data)
        if n < 126:
            return _SHORT_TEXT[n] + data
    else:
        first = _FIN_BINARY
        n = len(data)
        if n < 126:
            return _SHORT_BINARY[n] + data
    if n < 65536:
        return _pack_16(first, 126, n) + data
    return _pack_64(first, 127, n) + data


class TokenBucket:
    """``rate`` frames a second on average, ``burst`` at once."""

    __slots__ = ("rate", "burst", "tokens", "at")

    def __init__(self, rate: float, burst: float, now: float):
        self.rate, self.burst, self.tokens, self.at = rate, burst, burst, now

    def take(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class IdleTimer:
    """Calls ``on_idle()`` when the connection has waited ``timeout()`` seconds for a frame. One timer
    per connection, re-armed only when it fires: a frame just records when the wait for the next one
    began, so a frame adds no timer to the loop's heap."""

    __slots__ = ("loop", "on_idle", "timeout", "since", "waiting", "fired", "handle")

    def __init__(self, loop: asyncio.AbstractEventLoop, timeout, on_idle):
        self.loop = loop
        self.on_idle = on_idle
        self.timeout = timeout  # () -> seconds; read when the timer fires
        self.since = loop.time()  # when the current wait began
        self.waiting = False
        self.fired = False
        self.handle = loop.call_at(self.since + timeout(), self._check)

    def wait(self) -> None:
        """Call when the wait for a frame begins (as one is taken); set ``waiting`` False while one
        is being handled."""
        self.since = self.loop.time()
        self.waiting = True

    def _check(self) -> None:
        now = self.loop.time()
        due = self.since + self.timeout()
        if self.waiting and now >= due:
            self.fired, self.handle = True, None
            self.on_idle()
        else:  # a frame came meanwhile, or one is being handled (its wait has not begun): later
            self.handle = self.loop.call_at(due if self.waiting else now + self.timeout(), self._check)

    def stop(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None


def set_keepalive(sock: socket.socket, idle: int, interval: int, count: int) -> None:
    """TCP keepalive probes: the kernel closes the connection when a silent peer stops answering."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in (("TCP_KEEPIDLE", idle), ("TCP_KEEPINTVL", interval), ("TCP_KEEPCNT", count)):
        if hasattr(socket, name):  # Linux; elsewhere the system's defaults
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)


class Conn:
    def __init__(self, ws, limits, now: float):
        self.ws = ws
        self.limits = limits
        self.encoding = codec.BINARY  # of the last frame received: pushes use it too
        self.player: str | None = None
        self.name: str | None = None
        self.session: str | None = None  # the session it signed in with (server.auth)
        self.bucket = TokenBucket(limits.rate, limits.burst, now)
        self.chat = TokenBucket(limits.chat_rate, limits.chat_burst, now)
        self.refused = 0  # frames refused by the rate limit in a row
        self.queue: deque = deque()  # encoded messages the socket could not take yet (at most out_queue)
        self.queued = 0  # their bytes (at most out_bytes)
        self.snapshot: bytes | str | None = None  # a snapshot in the queue, not yet sent (coalesce_snapshot)
        self.corked: list | None = None  # encoded messages held back until uncork()
        self.writer: asyncio.Task | None = None  # sends the queue; runs only while it is not empty
        self.n = 0  # room messages pushed on this connection: 1, 2, 3... (a gap means ask for a snapshot)
        self.snapshot_due: str | None = None  # after resume: the room whose snapshot must come first
        self.waiting: tuple | None = None  # the request of the frame not answered yet (server.frames)
        self.since = 0.0  # when that frame was taken (loop time)
        self.inbox: deque | None = None  # frames that came meanwhile, handled once it is answered
        self.worker: asyncio.Task | None = None  # awaits a frame's handling (a sign-in, a new room...)
        self.closing: asyncio.Task | None = None  # the closing handshake of close_soon
        self.closed = False
        self.close_reason = ""
        self.dropped = 0  # messages never sent (server.metrics)
        self.act_req: tuple | None = None  # the request of the action being timed (server.metrics)
        self.act_at = 0.0  # when it was read (loop time)
        transport = ws.transport
        sock = transport.get_extra_info("socket") if transport is not None else None
        if sock is not None:
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, limits.write_limit)
                set_keepalive(sock, *limits.keepalive)
            except OSError:  # pragma: no cover - not a TCP socket
                pass

    def __repr__(self) -> str:
        return f"<Conn {self.player or '-'} {self.ws.remote_address}>"

    def send(self, msg: dict, encoding: str | None = None) -> None:
        """Send a message, or queue it behind the ones waiting; a full queue means the client cannot keep
        up: cut it off."""
        if self.closed:
            return
        self.send_data(codec.encode(msg, encoding or self.encoding))

    def send_data(self, data: bytes | str) -> None:
        """``send`` for a message already encoded."""
        if self.corked is not None:
            self.corked.append(data)
            return
        ws = self.ws
        if not self.queue:
            transport = ws.transport
            if transport.get_write_buffer_size() <= self.limits.write_limit:
                if ws.state is _OPEN:  # else it is closing: the reader notices and cleans up
                    n = len(data)  # frame(data), its commonest case without the call
                    transport.write(_SHORT_BINARY[n] + data if n < 126 and type(data) is bytes else frame(data))
                return
        self._enqueue(data)

    def cork(self) -> None:
        """Hold what is sent until ``uncork``, which writes it to the socket at once: an action's update
        and its ``ok`` leave in one write (one system call) instead of two."""
        if self.corked is None:
            self.corked = []

    def uncork(self) -> None:
        frames, self.corked = self.corked, None
        if not frames or self.closed:
            return
        ws = self.ws
        transport = ws.transport
        if self.queue or transport.get_write_buffer_size() > self.limits.write_limit:
            for data in frames:
                if not self.closed:
                    self._enqueue(data)
            return
        if ws.state is not _OPEN:
            return
        transport.write(b"".join(map(frame, frames)))  # map: no list comprehension's frame

    def _enqueue(self, data) -> None:
        if len(self.queue) >= self.limits.out_queue or self.queued + len(data) > self.limits.out_bytes:
            log.info("%r: outgoing queue full, disconnecting", self)
            self.dropped += 1
            self.abort("too slow")
            return
        self.queue.append(data)
        self.queued += len(data)
        if self.writer is None:
            self.writer = asyncio.get_running_loop().create_task(self._write())

    def wants(self, msg: dict) -> bool:
        """Whether a push is worth sending: not a message about the room whose snapshot is due (after a
        resume the snapshot comes first and already shows it), except that the room closed."""
        return self.snapshot_due is None or msg.get("room") != self.snapshot_due or msg["t"] == "closed"

    def push_shared(self, shared: codec.Shared) -> None:
        """``push`` of a message many connections get (encoded once, numbered here)."""
        if self.closed:
            return
        self.n += 1
        self.send_data(shared.data(self.encoding, self.n))

    def push(self, msg: dict, encoding: str | None = None) -> None:
        """A room message: numbered per connection."""
        if self.closed:
            return
        self.n += 1
        self.send_data(codec.encode({**msg, "n": self.n}, encoding or self.encoding))  # send's, one call less

    async def _write(self) -> None:
        """Send the queue in order, each message once the socket's buffer has room (``ws.send`` waits)."""
        try:
            while self.queue:
                await self.ws.send(self.queue[0])
                data = self.queue.popleft()
                self.queued -= len(data)
                if data is self.snapshot:
                    self.snapshot = None
        except asyncio.CancelledError:
            raise
        except Exception:  # the socket is closing; the reader notices and cleans up
            self._drop_queue()
        finally:
            if self.writer is asyncio.current_task():
                self.writer = None

    def _drop_queue(self) -> None:
        self.dropped += len(self.queue)
        self.queue.clear()
        self.queued, self.snapshot = 0, None

    def coalesce_snapshot(self) -> bool:
        """True when a snapshot sent earlier still waits in the queue: it and the messages queued after
        it bring the client up to date, so a new one would only add to what the client cannot read."""
        return self.snapshot is not None

    def queued_snapshot(self) -> None:
        """Call right after pushing a snapshot: remembers it if it went into the queue."""
        if self.queue and self.corked is None:
            self.snapshot = self.queue[-1]

    def stop_writer(self) -> None:
        if self.writer is not None:
            self.writer.cancel()
            self.writer = None

    def abort(self, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.close_reason = reason
        self.stop_writer()
        self._drop_queue()
        transport = self.ws.transport
        if transport is not None:
            transport.abort()

    async def close(self, code: int, reason: str) -> None:
        """Send what is queued, then close with ``code`` (used when a newer connection replaces us)."""
        if self.closed:
            return
        self.closed = True
        self.close_reason = reason
        await self._close(code, reason)

    def close_soon(self, code: int, reason: str) -> None:
        """``close``, from code that cannot wait: closed at once for everything else, the closing
        handshake in a task."""
        if self.closed:
            return
        self.closed = True
        self.close_reason = reason
        self.closing = asyncio.get_running_loop().create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        if self.writer is not None:
            await asyncio.wait((self.writer,), timeout=self.limits.close_timeout)
            self.stop_writer()  # timed out: drop the rest
        try:
            async with asyncio.timeout(self.limits.close_timeout):
                await self.ws.close(code, reason)
        except Exception:  # pragma: no cover - already gone
            pass
