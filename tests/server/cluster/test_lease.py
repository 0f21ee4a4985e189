"""Leases on the test run's private Redis (server/cluster/lease.py, docs/cluster.md "Ownership")."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from server.cluster.lease import Lease, holder


@pytest.fixture
async def r(redis_url):
    client = aioredis.Redis.from_url(redis_url)
    yield client
    await client.aclose()


async def test_one_holder_at_a_time(r):
    a, b = Lease(r, "room:r1", "A", ttl=5.0), Lease(r, "room:r1", "B", ttl=5.0)
    token = await a.acquire()
    assert token is not None and a.owned
    assert await b.acquire() is None and not b.owned
    assert await holder(r, "room:r1") == ("A", token)
    assert await b.renew() is False  # never held it
    await b.release()  # not the holder: nothing happens
    assert await holder(r, "room:r1") == ("A", token)


async def test_lease_expires_after_the_owner_stops_renewing_and_another_node_takes_over(r):
    # a ttl of 1 s: B's first try must come while A's lease lasts (0.3 s let a stall of a loaded machine
    # between the two calls expire it first)
    a, b = Lease(r, "room:r2", "A", ttl=1.0), Lease(r, "room:r2", "B", ttl=1.0)
    first = await a.acquire()
    assert await b.acquire() is None
    await asyncio.sleep(1.1)  # A stopped renewing (killed)
    assert not a.owned  # its own deadline passed too: it no longer acts as the owner
    second = await b.acquire()
    assert second is not None and second > first  # the fencing token only grows
    assert await a.renew() is False  # the old owner learns it lost the lease
    assert not a.owned
    assert await holder(r, "room:r2") == ("B", second)


async def test_renewing_keeps_the_lease_past_its_ttl(r):
    # A renewal every 0.5 s for a ttl of 1.5 s: a loaded machine may delay one by 1 s (a ttl of 0.3 s
    # let a 0.2 s stall lose the lease, one of 0.9 s a 0.6 s stall).
    a, b = Lease(r, "room:r3", "A", ttl=1.5), Lease(r, "room:r3", "B", ttl=1.5)
    await a.acquire()
    lost = []
    keeper = asyncio.create_task(a.keep(lambda: lost.append(True)))
    try:
        await asyncio.sleep(3.2)  # more than two ttls
        assert a.owned and not lost
        assert await b.acquire() is None
    finally:
        keeper.cancel()
    await asyncio.sleep(1.6)
    assert await b.acquire() is not None  # once renewing stopped, it expired


async def test_released_lease_is_free_at_once_and_tokens_never_repeat(r):
    a, b = Lease(r, "room:r4", "A", ttl=30.0), Lease(r, "room:r4", "B", ttl=30.0)
    t1 = await a.acquire()
    await a.release()
    assert not a.owned
    t2 = await b.acquire()
    assert t2 == t1 + 1
    await r.delete("gb:lease:room:r4")  # even a lease key lost (flushed, expired) never resets the counter
    assert await a.acquire() == t2 + 1


async def test_keeper_reports_a_lease_taken_by_another_node(r):
    a = Lease(r, "room:r5", "A", ttl=0.6)
    await a.acquire()
    lost = asyncio.Event()
    keeper = asyncio.create_task(a.keep(lost.set, every=0.05))
    await r.set("gb:lease:room:r5", "B:99", px=5000)  # stolen: e.g. A was paused past its expiry
    await asyncio.wait_for(lost.wait(), 10.0)
    await keeper
    assert not a.owned and a.token is None


async def test_lease_is_not_owned_past_its_local_deadline_when_redis_is_unreachable(r):
    now = [100.0]
    a = Lease(r, "room:r6", "A", ttl=5.0, clock=lambda: now[0])
    await a.acquire()
    assert a.owned
    now[0] += 4.9
    assert a.owned
    now[0] += 0.2  # past the ttl by the holder's own clock, whatever Redis says
    assert not a.owned


async def test_acquire_many_takes_the_free_leases_in_one_call_with_new_tokens(r):
    from server.cluster.lease import acquire_many

    held = Lease(r, "room:held", "other", ttl=5.0)
    await held.acquire()
    old = Lease(r, "room:free", "me", ttl=5.0)
    first = await old.acquire()
    await old.release()
    leases = [Lease(r, name, "me", ttl=5.0) for name in ("room:held", "room:free", "room:new")]
    got = await acquire_many(r, leases)
    assert [lease.name for lease in got] == ["room:free", "room:new"]
    assert leases[1].token > first and leases[1].owned and not leases[0].owned
    assert await holder(r, "room:held") == ("other", held.token)
    assert await holder(r, "room:free") == ("me", leases[1].token)
