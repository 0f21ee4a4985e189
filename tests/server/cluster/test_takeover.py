"""Taking rooms over (server/cluster/takeover.py, docs/cluster.md "Failover"): nodes in one process on the
test run's private Redis and PostgreSQL."""

from __future__ import annotations

import asyncio
import logging

import pytest

from server.app import App
from server.cluster import takeover
from server.cluster.lease import holder
from server.cluster.node import ClusterNode
from server.store import open_store
from tests.server.cluster.test_nodes import eventually
from tests.server.conftest import FAST, Running, fast_settings, stop

pytestmark = pytest.mark.postgres


async def node(pg_url: str, redis_url: str, ttl: float = 5.0, before_start=None) -> Running:
    store = await open_store(pg_url)
    app = App(store, fast_settings())
    app.cluster = ClusterNode(app, redis_url, ttl=ttl)
    await app.cluster.start()
    if before_start is not None:
        before_start(app)
    port = await app.start("127.0.0.1", 0)
    return Running(app, port, pg_url)


def spy_reads(app: App, events: list) -> None:
    """Record in ``events`` every claim (its fencing token written) and every read of rooms' logs."""
    store = app.store
    fence, open_rooms, open_room = store.fence, store.open_rooms, store.open_room
    fence_many, by_code = store.fence_many, store.open_rooms_by_code

    async def fenced_many(tokens):
        events.extend(("claim", code) for code in tokens)
        return await fence_many(tokens)

    async def rooms_by_code(codes):
        events.extend(("read", code) for code in codes)
        return await by_code(codes)

    async def fenced(code, token):
        events.append(("claim", code))
        return await fence(code, token)

    async def all_rooms():
        rows = await open_rooms()
        events.extend(("read", r["code"]) for r in rows)
        events.append(("read every open log", None))
        return rows

    async def one_room(code):
        events.append(("read", code))
        return await open_room(code)

    store.fence, store.open_rooms, store.open_room = fenced, all_rooms, one_room
    store.fence_many, store.open_rooms_by_code = fenced_many, rooms_by_code


async def make_room(n: Running) -> str:
    host = await n.client(name="Host")
    snap = await host.request({"t": "create", "config": FAST})
    await host.close()
    return snap["room"]


async def test_a_starting_node_claims_each_room_before_reading_its_log_and_never_reads_a_live_nodes_room(
        pg_url, redis_url):
    # B stays up but never looks for rooms to take over: its watch (every quarter ttl) would take D's
    # room itself when A's start is slower than that (a loaded machine), and A would find none to restore
    b = await node(pg_url, redis_url, before_start=lambda app: setattr(app.cluster, "watch", lambda: None))
    d = await node(pg_url, redis_url)
    a = None
    try:
        owned = await make_room(b)  # its room is not A's to read
        left = await make_room(d)
        await stop(d)  # a clean stop gives the lease up: the room is free
        events: list = []
        a = await node(pg_url, redis_url, before_start=lambda app: spy_reads(app, events))
        assert left in a.app.rooms and owned not in a.app.rooms
        reads = [code for what, code in events if what == "read"]
        assert owned not in reads, events
        for i, (what, code) in enumerate(events):
            if what == "read":
                assert ("claim", code) in events[:i], events
        assert (await holder(a.app.cluster.redis, "room:" + owned))[0] == b.app.cluster.id
    finally:
        for n in (a, b):
            if n is not None:
                await stop(n)


async def test_a_dead_nodes_rooms_are_taken_over_without_reading_every_open_log_and_its_stream_is_deleted(
        pg_url, redis_url):
    # a ttl of 2 s (renewed every 0.67 s): the three nodes share one loop, and a stall of a loaded
    # machine past 0.67 s let B's lease lapse with a ttl of 1 s, and A take B's room
    events: list = []
    a = await node(pg_url, redis_url, ttl=2.0, before_start=lambda app: spy_reads(app, events))
    b = await node(pg_url, redis_url, ttl=2.0)
    c = await node(pg_url, redis_url, ttl=2.0)
    r = a.app.cluster.redis
    cid = c.app.cluster.id
    try:
        kept = await make_room(b)
        gone = [await make_room(c) for _ in range(3)]
        assert await r.smembers("gb:owned:" + cid) == {g.encode() for g in gone}
        await stop(c)  # its node lease given up: A and B find it dead and share its rooms
        await eventually(lambda: all(g in a.app.rooms or g in b.app.rooms for g in gone), timeout=30)
        assert ("read every open log", None) not in events, events
        assert ("read", kept) not in events  # B's room, alive all along, was not looked at
        # nothing of the dead node stays in Redis: its stream, its set of rooms, its entry (after two ttls)
        for _ in range(300):
            if not await r.sismember("gb:nodes", cid):
                break
            await asyncio.sleep(0.1)
        assert not await r.sismember("gb:nodes", cid)
        assert not await r.exists("gb:node:" + cid, "gb:owned:" + cid)
        assert await r.sismember("gb:nodes", a.app.cluster.id) and await r.sismember("gb:nodes", b.app.cluster.id)
    finally:
        await stop(a)
        await stop(b)


async def test_claimed_leases_are_renewed_while_their_rooms_are_restored(pg_url, redis_url, monkeypatch, caplog):
    monkeypatch.setattr(takeover, "BATCH", 4)
    ttl = 2.0  # renewed every 0.67 s: a stall of a loaded machine past 0.67 s lost leases with a ttl of 1 s
    restoring = []

    def slow(app: App) -> None:
        restore = app.restore_room

        async def slowly(r):
            restoring.append(r["code"])
            await asyncio.sleep(2.5 * ttl)  # each batch's restore outlasts the ttl of the leases it claimed
            return await restore(r)

        app.restore_room = slowly

    a = await node(pg_url, redis_url, ttl=ttl, before_start=slow)
    c = await node(pg_url, redis_url, ttl=ttl)
    try:
        gone = [await make_room(c) for _ in range(6)]  # two batches
        caplog.set_level(logging.WARNING, "guobiao.cluster")
        await stop(c)
        await eventually(lambda: all(g in a.app.rooms for g in gone), timeout=60)
        assert sorted(restoring) == sorted(gone)  # each restored once: no claim was lost meanwhile
        await asyncio.sleep(2 * ttl)
        for g in gone:
            assert (await holder(a.app.cluster.redis, "room:" + g))[0] == a.app.cluster.id
            assert g in a.app.rooms
        assert "lost" not in caplog.text
    finally:
        await stop(a)


async def test_a_node_whose_own_lease_was_lost_takes_it_again(pg_url, redis_url):
    a = await node(pg_url, redis_url, ttl=1.0)
    r = a.app.cluster.redis
    me = a.app.cluster.id
    try:
        await r.delete("gb:lease:node:" + me)  # as after a pause past the ttl: the others think it dead
        await r.srem("gb:nodes", me)  # and one of them struck it off
        for _ in range(400):
            if await r.exists("gb:lease:node:" + me) and await r.sismember("gb:nodes", me):
                break
            await asyncio.sleep(0.05)
        assert await r.exists("gb:lease:node:" + me) and await r.sismember("gb:nodes", me)
        assert a.app.cluster.alive.owned
    finally:
        await stop(a)
