"""A connection to Redis of its own for one loop of a node: the stream reader's and the writer's
(docs/cluster.md "Messages between nodes").

Each message between nodes costs a round trip on both sides, and through ``redis.asyncio.Redis`` one
took ~140-185 µs of a node's CPU here, half of it redis-py's own: a connection taken from the pool and
given back (a lock, checks, events), its retries, and for its socket timeout a task per command
(``asyncio.wait_for``). A loop that owns its connection needs none of it: it retries from where it
was, and one ``asyncio.timeout`` covers the call (67-99 µs, docs/performance.md "Cluster"). The
writer's writes go unanswered (``send``, CLIENT REPLY OFF): no answer to wake up for either. Commands
are packed here (``resp``), not by redis-py's general packer.
"""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis


class Link:
    def __init__(self, redis: aioredis.Redis, timeout: float):
        pool = redis.connection_pool  # the same server, credentials and protocol as the node's client
        self.conn = pool.connection_class(**{**pool.connection_kwargs, "socket_timeout": None})
        self.timeout = timeout  # seconds a call may take before the connection is dropped
        self.quiet = False  # the connection is in CLIENT REPLY OFF: Redis answers nothing sent on it

    async def call(self, *args):
        """One command and its answer (connecting first if needed); an error answer raises. Any failure
        or cancel drops the connection (an answer half read must not be the next call's); the next call
        connects again."""
        if not self.conn.is_connected:
            self.quiet = False  # (a new connection is answered)
        try:
            async with asyncio.timeout(self.timeout):
                if self.quiet:  # answered again from here on: one write, one answer to skip
                    self.quiet = False  # (before the write: a ``send`` meanwhile turns answers off again)
                    await self.conn.send_packed_command(_REPLY_ON + resp(args), check_health=False)
                    await self.conn.read_response()
                else:
                    await self.conn.send_packed_command(resp(args), check_health=False)
                return await self.conn.read_response()
        except BaseException:
            await self.conn.disconnect(nowait=True)
            raise

    async def send(self, *args) -> None:
        """One command whose answer Redis does not send (CLIENT REPLY OFF): no answer to wait for, wake
        for or parse, and no error either; the caller learns what was done by a ``call`` later, which
        Redis answers after everything sent before it."""
        if not self.conn.is_connected:
            self.quiet = False
        try:
            async with asyncio.timeout(self.timeout):
                if self.quiet:
                    await self.conn.send_packed_command(resp(args), check_health=False)
                else:
                    self.quiet = True
                    await self.conn.send_packed_command(_REPLY_OFF + resp(args), check_health=False)
        except BaseException:
            await self.conn.disconnect(nowait=True)
            raise

    @property
    def connected(self) -> bool:
        return self.conn.is_connected

    async def close(self) -> None:
        await self.conn.disconnect(nowait=True)


def resp(args: tuple) -> bytes:
    """A command in Redis's protocol, for arguments of the kinds the links send (bytes, str, numbers):
    redis-py's general packer (encoders, chunking) took twice the CPU, paid on every write and read."""
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        if isinstance(arg, str):
            arg = arg.encode()
        elif isinstance(arg, int):
            arg = b"%d" % arg
        elif isinstance(arg, float):
            arg = repr(arg).encode()
        parts.append(b"$%d\r\n%b\r\n" % (len(arg), arg))
    return b"".join(parts)


_REPLY_ON, _REPLY_OFF = resp(("CLIENT", "REPLY", "ON")), resp(("CLIENT", "REPLY", "OFF"))


def stream_entries(got) -> list:
    """(entry id, its fields as a dict) of every entry of an XREAD answer, in RESP2's shape (a list of
    [stream, entries]) or RESP3's (a map of stream -> entries)."""
    if not got:
        return []
    streams = got.values() if isinstance(got, dict) else (entries for _, entries in got)
    return [(entry_id, dict(zip(fields[::2], fields[1::2]))) for entries in streams for entry_id, fields in entries]
