"""Messages between nodes across a broken Redis connection (docs/cluster.md "Messages between nodes"):
a write whose answer was lost is sent again, and lands once."""

from __future__ import annotations

import asyncio
from urllib.parse import urlparse

import pytest

from server.app import App
from server.cluster.node import ClusterNode
from server.store import open_store
from tests.server.cluster.test_nodes import eventually, start_node
from tests.server.conftest import Running, fast_settings, stop

pytestmark = pytest.mark.postgres


class CuttingProxy:
    """A TCP proxy in front of Redis that, once armed, forwards the first command carrying ``marker``
    and then closes that client's connection instead of passing Redis's answer on: the write is done,
    its writer does not know it."""

    def __init__(self, redis_url: str, marker: bytes, swallow: bool = False):
        u = urlparse(redis_url)
        self.upstream, self.marker = (u.hostname, u.port), marker
        self.swallow = swallow  # the marked command does not reach Redis: the connection closes first
        self.cut = 0  # connections closed so

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        return f"redis://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def _client(self, reader, writer) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        state = {"drop": False}

        async def to_redis() -> None:
            while data := await reader.read(65536):
                if self.cut == 0 and self.marker in data:
                    if self.swallow:
                        self.cut += 1
                        writer.transport.abort()
                        up_writer.close()
                        return
                    state["drop"] = True
                up_writer.write(data)
                await up_writer.drain()
            up_writer.close()

        async def to_client() -> None:
            while data := await up_reader.read(65536):
                if state["drop"]:  # the marked command's answer: lost with the connection
                    self.cut += 1
                    writer.transport.abort()
                    up_writer.close()
                    return
                writer.write(data)
                await writer.drain()
            writer.close()

        await asyncio.gather(to_redis(), to_client(), return_exceptions=True)

    async def stop(self) -> None:
        self.server.close()


class HoldingProxy:
    """A TCP proxy in front of Redis that, while ``hold`` is set, keeps Redis's answers back (in order),
    and counts the questions (``GET``) its clients sent meanwhile."""

    def __init__(self, redis_url: str):
        u = urlparse(redis_url)
        self.upstream, self.hold, self.asked = (u.hostname, u.port), False, 0

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        return f"redis://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def _client(self, reader, writer) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)

        async def pipe(src, dst, answers: bool) -> None:
            while data := await src.read(65536):
                while answers and self.hold:
                    await asyncio.sleep(0.01)
                if not answers and self.hold:
                    self.asked += data.count(b"\r\nGET\r\n")
                dst.write(data)
                await dst.drain()
            dst.close()

        await asyncio.gather(pipe(reader, up_writer, False), pipe(up_reader, writer, True), return_exceptions=True)

    async def stop(self) -> None:
        self.server.close()


async def node_through(proxy: CuttingProxy | HoldingProxy, pg_url: str) -> Running:
    """A node whose Redis connections all go through ``proxy``."""
    store = await open_store(pg_url)
    app = App(store, fast_settings())
    app.cluster = ClusterNode(app, await proxy.start())
    await app.cluster.start()
    return Running(app, await app.start("127.0.0.1", 0), pg_url)


async def test_a_write_whose_answer_was_lost_is_not_handled_twice(pg_url, redis_url):
    proxy = CuttingProxy(redis_url, b"lost-answer")
    a = await node_through(proxy, pg_url)  # A talks to Redis through the proxy
    b = await start_node(pg_url, redis_url)
    try:
        seen: list[str] = []
        b.app.cluster.handlers["probe"] = lambda body: seen.append(body["text"])
        a.app.cluster.send(b.app.cluster.id, {"k": "probe", "text": "lost-answer"})
        await eventually(lambda: proxy.cut == 1 and seen)
        a.app.cluster.send(b.app.cluster.id, {"k": "probe", "text": "next"})  # after the retry, in order
        await eventually(lambda: "next" in seen)
        assert seen == ["lost-answer", "next"]
    finally:
        await stop(a)
        await stop(b)
        await proxy.stop()


async def test_a_write_that_never_reached_redis_is_sent_again_before_the_next(pg_url, redis_url):
    """The writer does not wait for Redis's answers (CLIENT REPLY OFF): a write lost with its connection
    is found missing by the writer's next question (the number of its last write landed) and sent
    again, in order with the writes after it."""
    proxy = CuttingProxy(redis_url, b"lost-write", swallow=True)
    a = await node_through(proxy, pg_url)  # A talks to Redis through the proxy
    b = await start_node(pg_url, redis_url)
    try:
        seen: list[str] = []
        b.app.cluster.handlers["probe"] = lambda body: seen.append(body["text"])
        a.app.cluster.send(b.app.cluster.id, {"k": "probe", "text": "before"})
        await eventually(lambda: seen == ["before"])
        a.app.cluster.send(b.app.cluster.id, {"k": "probe", "text": "lost-write"})
        await eventually(lambda: proxy.cut == 1)
        for text in ("after-1", "after-2"):
            a.app.cluster.send(b.app.cluster.id, {"k": "probe", "text": text})
        await eventually(lambda: len(seen) >= 4)
        await asyncio.sleep(0.3)
        assert seen == ["before", "lost-write", "after-1", "after-2"]
    finally:
        await stop(a)
        await stop(b)
        await proxy.stop()


async def test_a_write_redis_refused_unheard_is_sent_again_and_the_next_wait_behind_it(pg_url, redis_url):
    """Redis answers none of the writer's writes, errors included: after its scripts were flushed, the
    writes fail unheard (NOSCRIPT), the later ones are not landed before the first (each lands only as
    the writer's next), and all are sent again, in order, once the writer asks how far Redis got."""
    import redis.asyncio as aioredis

    a = await start_node(pg_url, redis_url)
    b = await start_node(pg_url, redis_url)
    admin = aioredis.Redis.from_url(redis_url)
    try:
        seen: list[int] = []
        b.app.cluster.handlers["probe"] = lambda body: seen.append(body["i"])
        a.app.cluster.send(b.app.cluster.id, {"k": "probe", "i": 0})
        await eventually(lambda: seen == [0])
        await admin.script_flush()
        for i in range(1, 6):
            a.app.cluster.send(b.app.cluster.id, {"k": "probe", "i": i})
            await asyncio.sleep(0.005)
        await eventually(lambda: len(seen) >= 6)
        await asyncio.sleep(0.3)
        assert seen == list(range(6))
    finally:
        await admin.aclose()
        await stop(a)
        await stop(b)


async def test_the_stream_reader_and_writer_keep_a_connection_each_and_take_none_from_the_pool(pg_url, redis_url):
    """Every message between nodes is a write on one side and a read on the other: neither takes a
    connection from the client's pool and gives it back each time (a lock, checks and events each way,
    and a task per command for its socket timeout: half of a round trip's CPU here)."""
    a = await start_node(pg_url, redis_url)
    b = await start_node(pg_url, redis_url)
    try:
        taken: list[str] = []
        for node in (a, b):
            pool = node.app.cluster.redis.connection_pool
            real = pool.get_connection

            async def get_connection(*args, real=real, **kwargs):
                taken.append(asyncio.current_task().get_name())
                return await real(*args, **kwargs)

            pool.get_connection = get_connection
        seen: list[int] = []
        b.app.cluster.handlers["probe"] = lambda body: seen.append(body["i"])
        for i in range(20):
            a.app.cluster.send(b.app.cluster.id, {"k": "probe", "i": i})
            await eventually(lambda: len(seen) == i + 1)  # one write and one read each
        assert seen == list(range(20))
        streams = [t for t in taken if t.endswith((" reader", " writer")) or " -> " in t]
        assert not streams, streams
    finally:
        await stop(a)
        await stop(b)


async def test_what_one_entry_brings_a_player_leaves_in_one_write_to_their_socket(pg_url, redis_url):
    """An action's answer and update for a player on another node come in one stream entry, and go to
    their websocket in one write (one system call, one read for the client), as the owner's room task
    corks them for a player of its own."""
    from tests.server.cluster.test_nodes import guest_in_remote_room

    a = await start_node(pg_url, redis_url)
    b = await start_node(pg_url, redis_url)
    try:
        host, snap, guest = await guest_in_remote_room(a, b)
        transport = a.app.conns[guest.player].ws.transport
        writes: list[bytes] = []
        real = transport.write
        transport.write = lambda data: (writes.append(bytes(data)), real(data))[1]
        for i in (1, 2):
            b.app.cluster.send(a.app.cluster.id, {"k": "deliver", "pid": guest.player, "msg": {"t": "probe", "i": i}})
        await guest.wait_for(lambda m: m.get("t") == "probe" and m.get("i") == 2)
        probes = [w for w in writes if b"probe" in w]
        assert len(probes) == 1 and probes[0].count(b"probe") == 2, writes
    finally:
        await stop(a)
        await stop(b)


async def test_messages_between_nodes_flow_again_after_redis_drops_every_connection(pg_url, redis_url, caplog):
    """The reader and the writer own their connections: when Redis drops them (a restart, a network
    cut) they connect again by themselves, the reader from the last entry it handled: nothing lost,
    nothing twice, in order."""
    import redis.asyncio as aioredis

    a = await start_node(pg_url, redis_url)
    b = await start_node(pg_url, redis_url)
    admin = aioredis.Redis.from_url(redis_url)
    try:
        seen: list[int] = []
        b.app.cluster.handlers["probe"] = lambda body: seen.append(body["i"])
        for i in range(5):
            a.app.cluster.send(b.app.cluster.id, {"k": "probe", "i": i})
        await eventually(lambda: len(seen) == 5)
        await admin.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
        for i in range(5, 10):
            a.app.cluster.send(b.app.cluster.id, {"k": "probe", "i": i})
            await asyncio.sleep(0.05)
        await eventually(lambda: len(seen) >= 10)
        await asyncio.sleep(0.3)
        assert seen == list(range(10))
        assert "cluster: reading gb:node:" + b.app.cluster.id + " failed" in caplog.text  # it did lose it
    finally:
        await admin.aclose()
        await stop(a)
        await stop(b)


async def test_the_writer_writes_on_while_its_question_waits_for_redis(pg_url, redis_url):
    """The writer's question (how far its unanswered writes got) is answered after everything sent
    before it; what is queued meanwhile is written at once, not after the answer, in order."""
    proxy = HoldingProxy(redis_url)
    a = await node_through(proxy, pg_url)  # A's answers from Redis can be held back
    b = await start_node(pg_url, redis_url)
    try:
        seen: list[str] = []
        b.app.cluster.handlers["probe"] = lambda body: seen.append(body["text"])
        send = lambda text: a.app.cluster.send(b.app.cluster.id, {"k": "probe", "text": text})  # noqa: E731
        send("first")
        await eventually(lambda: seen == ["first"])
        proxy.hold = True
        send("second")  # unanswered: its question follows CONFIRM_AFTER later, and its answer is held
        await eventually(lambda: proxy.asked >= 1 and seen == ["first", "second"])
        send("third")
        await eventually(lambda: seen == ["first", "second", "third"], timeout=1.0)  # the answer still held
        landed = asyncio.ensure_future(a.app.cluster.outbox.join())
        await asyncio.sleep(0.1)
        assert proxy.hold and not landed.done()  # not known to have landed before the answer
        proxy.hold = False
        await asyncio.wait_for(landed, 5.0)  # the answers say all three landed
        send("fourth")
        await eventually(lambda: seen[-1] == "fourth")
        assert seen == ["first", "second", "third", "fourth"]
    finally:
        proxy.hold = False
        await stop(a)
        await stop(b)
        await proxy.stop()


def test_an_xread_answer_is_read_alike_in_either_protocol():
    from server.cluster.link import stream_entries

    entries = [[b"1-0", [b"m", b"one"]], [b"2-0", [b"m", b"two"]]]
    want = [(b"1-0", {b"m": b"one"}), (b"2-0", {b"m": b"two"})]
    assert stream_entries([[b"gb:node:x", entries]]) == want  # RESP2: [stream, entries] pairs
    assert stream_entries({b"gb:node:x": entries}) == want  # RESP3: a map
    assert stream_entries(None) == [] and stream_entries({}) == []  # BLOCK ran out


async def test_the_links_own_packing_is_what_redis_reads(redis_url):
    """The links pack their commands themselves (``resp``): byte for byte redis-py's packing, and Redis
    reads every kind of argument they send, binary and empty ones included."""
    import redis.asyncio as aioredis
    from redis.asyncio.connection import Connection

    from server.cluster.link import Link, resp

    values = [b"", b"\x00\r\n\xff" * 3, "é中", "", -7, 2**40, 0.5, b"x" * 70_000]
    for value in values:
        args = ("EVALSHA", "ab" * 20, 2, "gb:sent:n", "gb:node:x", 3, value)
        assert resp(args) == b"".join(Connection().pack_command(*args))
    client = aioredis.Redis.from_url(redis_url)
    link = Link(client, 5.0)
    try:
        for i, value in enumerate(values):
            key = f"gb:test:resp:{i}"
            await link.send("SET", key, value)  # unanswered (CLIENT REPLY OFF) ...
            want = value if isinstance(value, bytes) else str(value).encode()
            assert await link.call("GET", key) == want  # ... then answered again
        await link.call("DEL", *(f"gb:test:resp:{i}" for i in range(len(values))))
    finally:
        await link.close()
        await client.aclose()
