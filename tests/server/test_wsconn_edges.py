"""server.wsconn at the edges of the protocol, over raw sockets where a library client would hide them:
UTF-8 across fragments, pings both ways, a handshake that never completes, frames sent before the
handshake's answer, a message handler that fails."""

import asyncio
import base64
import json
import logging
import os

import msgpack

from tests.server.conftest import start, stop
from tests.server.test_limits import closed_code
from tests.server.test_wsconn import pongs, wire


class Raw:
    """A websocket client on a bare socket: frames written and read as bytes."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int, after: bytes = b"") -> "Raw":
        """Connected and the handshake answered 101; ``after``: bytes sent right behind the request."""
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request() + after)
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 101"), head
        return cls(reader, writer)

    async def frame(self, timeout: float = 5.0) -> tuple[int, bytes]:
        """The next frame from the server: (opcode, payload)."""
        first, second = await asyncio.wait_for(self.reader.readexactly(2), timeout)
        n = second & 0x7F
        if n == 126:
            n = int.from_bytes(await self.reader.readexactly(2), "big")
        elif n == 127:
            n = int.from_bytes(await self.reader.readexactly(8), "big")
        return first & 0x0F, await self.reader.readexactly(n)

    async def until(self, opcode: int, timeout: float = 5.0) -> bytes:
        async with asyncio.timeout(timeout):
            while True:
                op, payload = await self.frame()
                if op == opcode:
                    return payload

    def close(self) -> None:
        self.writer.close()


def request() -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()


def close_code(payload: bytes) -> int:
    return int.from_bytes(payload[:2], "big")


async def test_utf8_cut_between_fragments_is_put_together_and_bad_utf8_closes_1007(server):
    c = await server.client(name="Utf")
    c.strict = False
    text = json.dumps({"t": "ping", "id": 1, "pad": "é"}, ensure_ascii=False).encode()
    cut = text.index("é".encode()) + 1  # inside the two bytes of é
    c.ws.transport.write(wire(text[:cut], op=0x1, fin=False) + wire(text[cut:], op=0x0))
    assert await pongs(c, [1]) == ["error"]  # read whole (ping takes no "pad": protocol/bad_field)
    c.ws.transport.write(wire(b'{"t": "ping", ', op=0x1, fin=False) + wire(b'"id": "\xff"}', op=0x0))
    assert await closed_code(c) == 1007


async def test_a_websocket_ping_is_answered_with_its_pong(server):
    c = await server.client(name="Pinger")
    waiter = await c.ws.ping(b"are you there")
    await asyncio.wait_for(waiter, 5)  # the pong with the same payload came back
    assert (await c.request({"t": "ping"}))["t"] == "pong"


async def test_frames_sent_right_behind_the_request_are_read_once_the_connection_is_open(server):
    raw = await Raw.open(server.port, after=wire(msgpack.packb({"t": "ping", "id": 5})))
    try:
        op, payload = await raw.frame()
        assert op == 0x2 and msgpack.unpackb(payload)["re"] == 5
    finally:
        raw.close()


async def test_a_handshake_that_never_completes_is_cut_off_after_open_timeout(tmp_path):
    s = await start(str(tmp_path / "o.db"), open_timeout=0.5)
    try:
        loop = asyncio.get_running_loop()
        reader, writer = await asyncio.open_connection("127.0.0.1", s.port)
        writer.write(b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the rest
        began = loop.time()
        try:
            got = await asyncio.wait_for(reader.read(), 5)
        except ConnectionResetError:
            got = b""
        assert got == b"" and loop.time() - began >= 0.4  # cut off, not answered
        writer.close()
        for _ in range(500):
            if not s.app.server.all:
                break
            await asyncio.sleep(0.01)
        assert not s.app.server.all
    finally:
        await stop(s)


async def test_websocket_pings_when_configured_and_a_peer_that_does_not_answer_is_closed(tmp_path):
    s = await start(str(tmp_path / "p.db"), ping_interval=0.2, ping_timeout=0.3)
    try:
        c = await s.client(name="Answers")  # websockets' client answers pings itself
        raw = await Raw.open(s.port)
        data = await raw.until(0x9)  # a ping, which this client leaves unanswered
        assert len(data) == 4
        payload = await raw.until(0x8)
        assert close_code(payload) == 1011
        raw.close()
        await asyncio.sleep(0.6)  # pings went back and forth meanwhile
        assert (await c.request({"t": "ping"}))["t"] == "pong"
    finally:
        await stop(s)


async def test_a_closing_handshake_the_peer_never_finishes_is_cut_off_after_close_timeout(tmp_path):
    s = await start(str(tmp_path / "c.db"), close_timeout=0.3, signin_timeout=0.2)
    try:
        raw = await Raw.open(s.port)
        payload = await raw.until(0x8)  # no sign-in: closed 4002; this client never sends its close frame
        assert close_code(payload) == 4002
        began = asyncio.get_running_loop().time()
        try:
            assert await asyncio.wait_for(raw.reader.read(), 5) == b""
        except ConnectionResetError:
            pass
        assert asyncio.get_running_loop().time() - began >= 0.2  # dropped once close_timeout passed
        for _ in range(500):
            if not s.app.server.all:
                break
            await asyncio.sleep(0.01)
        assert not s.app.server.all
        raw.close()
    finally:
        await stop(s)


async def test_an_exception_handling_a_message_is_logged_and_the_connection_goes_on(server, caplog):
    c = await server.client(name="Bug")
    conn = server.app.conns[c.player]
    handle = conn.ws.on_message
    calls = []

    def failing_once(frame):
        calls.append(frame)
        if len(calls) == 1:
            raise RuntimeError("a bug")
        handle(frame)

    conn.ws.on_message = failing_once
    await c.send({"t": "ping", "id": 1})
    assert (await c.request({"t": "ping"}))["t"] == "pong"
    assert len(calls) == 2 and "handling a message" in caplog.text and "a bug" in caplog.text
    caplog.clear()  # the ERROR was the point
