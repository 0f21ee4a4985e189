"""websockets' server connection, with whole messages handed to a callback as they are read.

websockets' own path queues each frame for ``recv()`` and wakes the handler's task to take it: a task
step, a future and a coroutine chain per message, which under load was more than the game itself cost
and left thousands of suspended coroutines for each young collection to walk. Here a message goes from
``data_received`` straight to ``on_message`` (set by the handler with ``receive_with``), which handles it
at once or queues it itself (server.app). The common frame (whole, masked, text or binary) is read here;
websockets still does the handshake, every other frame and its limits (``max_size`` over a whole
fragmented message), pings, pongs and the closing handshake.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from websockets.asyncio.server import ServerConnection
from websockets.frames import CloseCode, Frame, Opcode, apply_mask
from websockets.protocol import OPEN

log = logging.getLogger("guobiao.conn")

MAX_FRAGMENTS = 64  # frames of one message (its size is capped by max_size)
_DATA = {0x1: Opcode.TEXT, 0x2: Opcode.BINARY}


class MessageConnection(ServerConnection):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.on_message: Callable[[bytes | str], None] | None = None
        self.early: list = []  # messages read before the handler called receive_with
        self.fragments: list[Frame] | None = None  # of a message still coming
        self.failed = False
        self.on_lost: Callable[[], None] | None = None  # called once, when the connection is lost

    def receive_with(self, on_message: Callable[[bytes | str], None] | None) -> None:
        """From now on every whole message (bytes, or str for a text message) goes to ``on_message``,
        starting with those read before this call."""
        self.on_message = on_message
        early, self.early = self.early, []
        for data in early:
            self._deliver(data)

    def data_received(self, data: bytes) -> None:
        """Whole, masked, unfragmented text and binary frames (what clients send) are read here; from the
        first other byte on (a control frame, a fragment, a frame not all here yet, anything irregular),
        websockets' parser takes over, and keeps the bytes until it has parsed them all. Its generator
        parser cost ~7 µs a frame: reading frames here gave 6-9 % more actions a second (saturated)."""
        protocol = self.protocol
        if (protocol.state is not OPEN or protocol.reader.buffer or self.fragments is not None
                or self.failed or self.request is None):
            super().data_received(data)
            return
        limit = protocol.max_message_size
        n, i = len(data), 0
        while i + 6 <= n and protocol.state is OPEN and not self.failed:
            first, second = data[i], data[i + 1]
            op = _DATA.get(first ^ 0x80)  # FIN, no RSV bits (no extension is negotiated), text or binary
            if op is None or second < 0x80:  # or not masked: websockets refuses it
                break
            size, head = second & 0x7F, i + 2
            if size == 126:
                size, head = int.from_bytes(data[head:head + 2], "big"), head + 2
            elif size == 127:
                break
            end = head + 4 + size
            if end > n or (limit is not None and size > limit):
                break
            payload = apply_mask(data[head + 4:end], data[head:head + 4])
            i = end
            self._message(op, payload)
        if i < n:
            super().data_received(data[i:] if i else data)

    def process_event(self, event) -> None:
        if self.request is None or not isinstance(event, Frame):
            super().process_event(event)  # the handshake request
            return
        op = event.opcode
        if self.failed:
            return  # frames parsed in the same read as the one that failed the connection
        if op is Opcode.BINARY or op is Opcode.TEXT:
            if event.fin:
                self._message(op, event.data)
            else:
                self.fragments = [event]
        elif op is Opcode.CONT:  # the protocol object refuses a continuation without a first frame
            fragments = self.fragments
            fragments.append(event)
            if event.fin:
                self.fragments = None
                self._message(fragments[0].opcode, b"".join(f.data for f in fragments))
            elif len(fragments) >= MAX_FRAGMENTS:
                self._fail(CloseCode.MESSAGE_TOO_BIG, "too many fragments")
        else:
            super().process_event(event)  # ping, pong, close

    def _message(self, op: Opcode, data) -> None:
        if op is Opcode.TEXT:
            try:
                data = bytes(data).decode()
            except UnicodeDecodeError as e:
                self._fail(CloseCode.INVALID_DATA, f"{e.reason} at position {e.start}")
                return
        elif type(data) is not bytes:
            data = bytes(data)
        if self.on_message is None:
            self.early.append(data)
        else:
            self._deliver(data)

    def _deliver(self, data) -> None:
        try:
            self.on_message(data)
        except Exception:  # a bug: the connection goes on (an exception here would kill the transport)
            log.exception("handling a message from %r", self.remote_address)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        on_lost, self.on_lost = self.on_lost, None
        if on_lost is not None:
            on_lost()
        # The protocol keeps the exception that stopped its parser (EOFError for a dropped client); the
        # exception's traceback holds the parser's frame, which holds the protocol: a cycle that only a
        # full collection would free (server.gctune runs those rarely). The traceback is not needed.
        parser_exc = self.protocol.parser_exc
        if parser_exc is not None:
            parser_exc.__traceback__ = None
        # asyncio's socket transport keeps a bound method of its own (its read callback), a cycle too;
        # nothing reads from it after the connection is lost.
        if getattr(self.transport, "_read_ready_cb", None) is not None:
            self.transport._read_ready_cb = None

    def _fail(self, code: CloseCode, reason: str) -> None:
        self.failed, self.fragments = True, None
        self.protocol.fail(code, reason)
        self.send_data()
