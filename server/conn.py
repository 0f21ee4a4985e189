"""One websocket connection: its encoding, rate limit and bounded outgoing queue.

The writer task is the only sender on the socket. Messages wait in a bounded queue; a client that lets
it fill up is cut off (the transport is aborted) rather than buffered without end.
"""

from __future__ import annotations

import asyncio
import logging

from server import codec

log = logging.getLogger("guobiao.conn")


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


class Conn:
    def __init__(self, ws, limits, now: float):
        self.ws = ws
        self.limits = limits
        self.encoding = codec.BINARY  # of the last frame received: pushes use it too
        self.player: str | None = None
        self.name: str | None = None
        self.bucket = TokenBucket(limits.rate, limits.burst, now)
        self.chat = TokenBucket(limits.chat_rate, limits.chat_burst, now)
        self.refused = 0  # frames refused by the rate limit in a row
        self.queue: asyncio.Queue = asyncio.Queue(limits.out_queue)
        self.n = 0  # room messages pushed on this connection: 1, 2, 3... (a gap means ask for a snapshot)
        self.closed = False
        self.close_reason = ""
        self.writer = asyncio.get_running_loop().create_task(self._write())

    def __repr__(self) -> str:
        return f"<Conn {self.player or '-'} {self.ws.remote_address}>"

    def send(self, msg: dict, encoding: str | None = None) -> None:
        """Queue a message; a full queue means the client cannot keep up: cut it off."""
        if self.closed:
            return
        try:
            self.queue.put_nowait(codec.encode(msg, encoding or self.encoding))
        except asyncio.QueueFull:
            log.info("%r: outgoing queue full, disconnecting", self)
            self.abort("too slow")

    def push(self, msg: dict, encoding: str | None = None) -> None:
        """A room message: numbered per connection."""
        if self.closed:
            return
        self.n += 1
        self.send({**msg, "n": self.n}, encoding)

    async def _write(self) -> None:
        try:
            while True:
                data = await self.queue.get()
                if data is None:  # close(): everything before it is sent
                    return
                await self.ws.send(data)
        except asyncio.CancelledError:
            raise
        except Exception:  # the socket is closing; the reader notices and cleans up
            pass

    def abort(self, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.close_reason = reason
        self.writer.cancel()
        transport = self.ws.transport
        if transport is not None:
            transport.abort()

    async def close(self, code: int, reason: str) -> None:
        """Send what is queued, then close with ``code`` (used when a newer connection replaces us)."""
        if self.closed:
            return
        self.closed = True
        self.close_reason = reason
        try:
            self.queue.put_nowait(None)
            async with asyncio.timeout(self.limits.close_timeout):
                await self.writer
        except Exception:  # queue full or timed out: drop the rest
            self.writer.cancel()
        try:
            async with asyncio.timeout(self.limits.close_timeout):
                await self.ws.close(code, reason)
        except Exception:  # pragma: no cover - already gone
            pass
