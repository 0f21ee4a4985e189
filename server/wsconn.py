"""Websocket connections on websockets' Sans-I/O layer, driven by an asyncio protocol of our own.

asyncio hands the bytes of a connection to ``MessageConnection.data_received``, which feeds them to
websockets' ``ServerProtocol`` (public API: ``receive_data``, ``events_received``, ``data_to_send``).
websockets parses the HTTP request and every frame and checks them: masking, opcodes, ``max_size`` over
a whole message (close code 1009); it answers pings and the closing handshake. Here a message in
fragments is put together (at most ``MAX_FRAGMENTS`` frames, else 1009), a text message is decoded
(UTF-8, else 1007), and every message goes to ``on_message`` at once, on the loop's callback: no task,
queue or future per message.

The first event is the HTTP request: ``process_request`` (server.http) answers it in a task, a plain
HTTP response or None for the websocket handshake, all within ``open_timeout``. Once the connection
is open, ``handler(connection)`` sets ``on_message`` and ``on_close``. A connection expected to close
(a close frame sent or received, an HTTP answer sent) is aborted if the peer has not closed it after
``close_timeout``. ``Server.close`` closes the open ones with 1001 (going away).
"""

from __future__ import annotations

import asyncio
import http
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from websockets.frames import CloseCode, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import State
from websockets.server import ServerProtocol

from server import gctune

log = logging.getLogger("guobiao.conn")

MAX_FRAGMENTS = 4096  # frames of one message (websockets' asyncio implementation has the same limit)

_TEXT, _BINARY, _CONT, _PONG = Opcode.TEXT, Opcode.BINARY, Opcode.CONT, Opcode.PONG
_CONNECTING, _OPEN = State.CONNECTING, State.OPEN


@dataclass
class Options:
    handler: Callable[[MessageConnection], None]  # an open connection: sets on_message and on_close
    process_request: Callable[[MessageConnection, Request], Awaitable[Response | None]]
    max_size: int
    write_limit: int  # bytes in the transport's buffer past which ``send`` waits
    open_timeout: float
    close_timeout: float
    ping_interval: float | None = None  # websocket pings (None: none; TCP keepalive finds dead peers)
    ping_timeout: float | None = None
    server_header: str = "guobiao"


class Server:
    """What ``serve`` returns: the listening socket and the connections it accepted."""

    def __init__(self, options: Options):
        self.options = options
        self.listener: asyncio.Server | None = None
        self.all: set[MessageConnection] = set()  # not finished yet (lost, and their on_close done)
        self.closing = False
        self.finished: asyncio.Future | None = None

    @property
    def sockets(self):
        return self.listener.sockets

    @property
    def connections(self) -> list[MessageConnection]:
        """The open websocket connections."""
        return [c for c in self.all if c.protocol.state is _OPEN]

    def close(self, code: int = CloseCode.GOING_AWAY) -> None:
        """Stop accepting; close the open connections with ``code``. A handshake that completes
        after this is answered 503."""
        self.closing = True
        self.listener.close()
        for c in list(self.all):
            c.shutdown(code)

    async def wait_closed(self) -> None:
        """Until every connection is lost and its ``on_close`` has ended."""
        if self.all:
            self.finished = asyncio.get_running_loop().create_future()
            await self.finished

    def _finish(self, conn: MessageConnection) -> None:
        self.all.discard(conn)
        if not self.all and self.finished is not None and not self.finished.done():
            self.finished.set_result(None)


async def serve(host: str, port: int, options: Options, reuse_port: bool = False) -> Server:
    server = Server(options)
    loop = asyncio.get_running_loop()
    server.listener = await loop.create_server(lambda: MessageConnection(server), host, port,
                                               reuse_port=reuse_port)
    return server


class MessageConnection(asyncio.Protocol):
    """One TCP connection: plain HTTP, or a websocket once the handshake is done. ``on_lost`` is
    called once, when the transport is lost: also for a connection whose handshake never completed."""

    def __init__(self, server: Server):
        self.server = server
        self.options = opts = server.options
        # No extension offered: permessage-deflate costs 2-3x CPU and memory for small frames.
        self.protocol = ServerProtocol(max_size=opts.max_size)
        self.transport: asyncio.Transport | None = None
        self.remote_address = None
        self.request: Request | None = None  # the handshake's (its headers: server.auth)
        self.on_message: Callable[[bytes | str], None] | None = None
        self.on_close: Callable[[], asyncio.Future | None] | None = None  # its end may be awaited
        self.on_lost: Callable[[], None] | None = None
        self.lost = False
        self.born = gctune.freezes  # its cycles are young until the next freeze
        self.fragments: list | None = None  # the frames of a message not yet whole
        self.pending: list | None = None  # frames that came before the handshake was answered
        self.handshake: asyncio.Task | None = None
        self.timer: asyncio.TimerHandle | None = None  # open_timeout, then close_timeout
        self.closing = False  # the close timer runs
        self.ping_timer: asyncio.TimerHandle | None = None
        self.ping_data: bytes | None = None  # of the ping not answered yet
        self.paused = False
        self.drained: list[asyncio.Future] = []  # ``send``s waiting for the buffer to drain
        self.lost_waiter: asyncio.Future | None = None

    @property
    def state(self) -> State:
        return self.protocol.state

    def when_lost(self, callback: Callable[[], None]) -> None:
        """``callback()`` once the transport is lost: at once if it already is (a request can be
        handled after its client has gone)."""
        if self.lost:
            callback()
        else:
            self.on_lost = callback

    # -- asyncio's callbacks ----------------------------------------------------------------------

    def connection_made(self, transport) -> None:
        self.transport = transport
        self.remote_address = transport.get_extra_info("peername")
        transport.set_write_buffer_limits(self.options.write_limit)
        self.server.all.add(self)
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(self.options.open_timeout, self._open_timed_out)

    def data_received(self, data: bytes) -> None:
        protocol = self.protocol
        protocol.receive_data(data)
        events = protocol.events_received()
        self._flush()  # pongs, the echo of a close frame, the end of the stream
        if not self.closing and protocol.close_expected():
            self._expect_close()
        if not events:
            return
        if self.on_message is None:
            self._early(events)
            return
        for event in events:
            if self.on_message is None:
                return  # failed meanwhile
            self._frame(event)

    def eof_received(self) -> None:
        self.protocol.receive_eof()
        self._flush()
        # None: asyncio closes the transport (a websocket never writes after the peer's end of stream)

    def connection_lost(self, exc: Exception | None) -> None:
        self.protocol.receive_eof()  # idempotent: the state is CLOSED now
        self.lost = True
        self.on_message = None
        for handle in (self.timer, self.ping_timer):
            if handle is not None:
                handle.cancel()
        self.timer = self.ping_timer = None
        for waiter in self.drained:
            if not waiter.done():
                waiter.set_result(None)
        if self.lost_waiter is not None:
            self.lost_waiter.set_result(None)
        gctune.connection_ended(self.born)  # what it leaves in cycles is collected young if it lived briefly
        on_lost, self.on_lost = self.on_lost, None
        if on_lost is not None:
            on_lost()
        self._ended()

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        for waiter in self.drained:
            if not waiter.done():
                waiter.set_result(None)

    # -- frames -----------------------------------------------------------------------------------

    def _frame(self, frame) -> None:
        op = frame.opcode
        if op is _BINARY or op is _TEXT:
            if frame.fin:
                self._message(op, frame.data)
            else:
                self.fragments = [frame]
        elif op is _CONT:  # websockets has checked that a message in fragments is under way
            fragments = self.fragments
            fragments.append(frame)
            if frame.fin:
                self.fragments = None
                self._message(fragments[0].opcode, b"".join([f.data for f in fragments]))
            elif len(fragments) >= MAX_FRAGMENTS:
                self.fail(CloseCode.MESSAGE_TOO_BIG, "too many fragments")
        elif op is _PONG and frame.data == self.ping_data:
            self.ping_data = None
        # pings and close frames: websockets has answered them

    def _message(self, op, data: bytes) -> None:
        if op is _TEXT:
            try:
                data = data.decode()
            except UnicodeDecodeError as exc:
                self.fail(CloseCode.INVALID_DATA, f"{exc.reason} at position {exc.start}")
                return
        try:
            self.on_message(data)
        except Exception:
            log.exception("handling a message from %r", self.remote_address)

    def fail(self, code: int, reason: str) -> None:
        """Close at once with ``code`` (websockets' "fail the connection"): no more messages."""
        self.on_message = self.fragments = None
        self.protocol.fail(code, reason)
        self._flush()
        self._expect_close()

    # -- the handshake ----------------------------------------------------------------------------

    def _early(self, events: list) -> None:
        """Events before the connection is open: the request, and frames a client sent too soon."""
        if self.handshake is None and isinstance(events[0], Request):
            self.request, self.pending = events[0], events[1:]
            self.handshake = asyncio.get_running_loop().create_task(self._handshake(events[0]))
        elif self.pending is not None:
            self.pending.extend(events)

    async def _handshake(self, request: Request) -> None:
        protocol = self.protocol
        try:
            response = await self.options.process_request(self, request)
        except Exception as exc:
            protocol.handshake_exc = exc
            protocol.logger.error("process_request failed", exc_info=True)
            response = protocol.reject(http.HTTPStatus.INTERNAL_SERVER_ERROR,
                                       "Failed to open a WebSocket connection.\nSee server log for more information.\n")
        if response is None:
            response = protocol.accept(request)
        response.headers["Server"] = self.options.server_header
        if response.status_code == 101 and self.server.closing:
            response = protocol.reject(http.HTTPStatus.SERVICE_UNAVAILABLE, "Server is shutting down.\n")
        if self.lost or protocol.state is not _CONNECTING or protocol.close_expected():
            return  # gone, or ended meanwhile (the client's close frame, a request it broke off)
        protocol.send_response(response)
        self._flush()
        if protocol.state is _OPEN:
            self._opened()
        else:  # an HTTP answer: the client closes the connection
            self._expect_close()

    def _opened(self) -> None:
        self.timer.cancel()
        self.timer = None
        opts = self.options
        try:
            opts.handler(self)
        except Exception:
            log.exception("opening the connection from %r", self.remote_address)
            self.transport.abort()
            return
        if opts.ping_interval is not None:
            self.ping_timer = asyncio.get_running_loop().call_later(opts.ping_interval, self._ping)
        pending, self.pending = self.pending, None
        for event in pending or ():
            if self.on_message is not None:
                self._frame(event)

    def _open_timed_out(self) -> None:
        self.timer = None
        if self.protocol.state is _CONNECTING:
            if self.handshake is not None:
                self.handshake.cancel()  # process_request too: the handshake as a whole is bounded
            self.transport.abort()

    # -- closing ----------------------------------------------------------------------------------

    def _expect_close(self) -> None:
        """The peer should close the TCP connection now: abort it if it has not after close_timeout."""
        if self.closing or self.lost:
            return
        self.closing = True
        if self.timer is not None:
            self.timer.cancel()
        self.timer = asyncio.get_running_loop().call_later(self.options.close_timeout, self.transport.abort)

    def shutdown(self, code: int, reason: str = "") -> None:
        """Start the closing handshake, if the connection is open."""
        if self.protocol.state is _OPEN:
            self.protocol.send_close(code, reason)
            self._flush()
            self._expect_close()

    async def close(self, code: int = CloseCode.NORMAL_CLOSURE, reason: str = "") -> None:
        """The closing handshake: returns once the connection is lost (at most close_timeout)."""
        self.shutdown(code, reason)
        await self.wait_closed()

    async def wait_closed(self) -> None:
        if not self.lost:
            if self.lost_waiter is None:
                self.lost_waiter = asyncio.get_running_loop().create_future()
            await asyncio.shield(self.lost_waiter)

    def _ended(self) -> None:
        """After the loss: the application's ``on_close``, then the server forgets the connection
        (once what ``on_close`` returned, if anything, is done)."""
        server, on_close = self.server, self.on_close
        self.on_close = None
        pending = on_close() if on_close is not None else None
        if pending is None and self.handshake is not None and not self.handshake.done():
            pending = self.handshake  # process_request goes on after its client has gone
        if pending is None:
            server._finish(self)
        else:
            pending.add_done_callback(lambda _: server._finish(self))

    # -- writing ----------------------------------------------------------------------------------

    def _flush(self) -> None:
        """Write what websockets has to send; its end of stream half-closes the connection."""
        transport = self.transport
        for data in self.protocol.data_to_send():
            if data:
                transport.write(data)
            elif transport.can_write_eof():
                try:
                    transport.write_eof()
                except (OSError, RuntimeError):  # pragma: no cover - already closing
                    pass
            else:  # pragma: no cover - TLS
                transport.close()

    async def send(self, data: bytes | str) -> None:
        """One message, then wait until the transport's buffer drained below its low mark (the
        queued path of server.conn). Raises ``websockets.exceptions.InvalidState`` once it is not open."""
        if type(data) is str:
            self.protocol.send_text(data.encode())
        else:
            self.protocol.send_binary(data)
        self._flush()
        if self.paused and not self.lost:
            waiter = asyncio.get_running_loop().create_future()
            self.drained.append(waiter)
            try:
                await waiter
            finally:
                self.drained.remove(waiter)

    # -- websocket pings (Limits.ping_interval) ----------------------------------------------------

    def _ping(self) -> None:
        opts = self.options
        loop = asyncio.get_running_loop()
        if self.protocol.state is not _OPEN:
            self.ping_timer = None
            return
        self.ping_data = os.urandom(4)
        self.protocol.send_ping(self.ping_data)
        self._flush()
        if opts.ping_timeout is None:
            self.ping_timer = loop.call_later(opts.ping_interval, self._ping)
        else:
            self.ping_timer = loop.call_later(opts.ping_timeout, self._pong_due)

    def _pong_due(self) -> None:
        if self.ping_data is not None:
            self.ping_timer = None
            self.fail(CloseCode.INTERNAL_ERROR, "keepalive ping timeout")
            return
        opts = self.options
        wait = max(0.0, opts.ping_interval - opts.ping_timeout)
        self.ping_timer = asyncio.get_running_loop().call_later(wait, self._ping)
