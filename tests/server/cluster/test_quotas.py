"""Quotas shared by a cluster's nodes (server/cluster/quotas.py, docs/cluster.md "Quotas"): nodes in one
process on the test run's private Redis and PostgreSQL. Every client comes from 127.0.0.1, so the tests
that count addresses run with loopback counted (``guobiao serve --count-loopback``)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
import redis.asyncio as aioredis

from server.app import App
from server.cluster.node import ClusterNode
from server.codec import ProtocolError
from server.quotas import Quotas
from server.store import open_store
from tests.server.cluster.test_nodes import eventually
from tests.server.conftest import FAST, Running, fast_settings, stop

pytestmark = pytest.mark.postgres


async def node(pg_url: str, redis_url: str, quotas: Quotas, ttl: float = 5.0, **limits) -> Running:
    settings = fast_settings(**limits)
    settings.quotas = quotas
    app = App(await open_store(pg_url), settings)
    app.cluster = ClusterNode(app, redis_url, ttl=ttl)
    await app.cluster.start()
    return Running(app, await app.start("127.0.0.1", 0), pg_url)


async def two_nodes(pg_url: str, redis_url: str, q: Quotas) -> tuple[Running, Running]:
    """Two nodes counting loopback clients (the tests' clients) against the per-address quotas."""
    return (await node(pg_url, redis_url, q, exempt_loopback=False),
            await node(pg_url, redis_url, q, exempt_loopback=False))


def quotas(**kw) -> Quotas:
    return Quotas(**{"timer_minimums": {}, "creates": (1e3, 1e3), "rematches": (1e3, 1e3), **kw})


async def signed_in(n: Running, token: str):
    """The account of ``token`` signed in on node ``n``."""
    c = await n.client()
    assert (await c.request({"t": "resume", "token": token}))["t"] == "welcome"
    return c


async def until(ask, want, timeout: float = 10.0) -> None:
    """Poll ``await ask()`` until it answers ``want``."""
    end = asyncio.get_running_loop().time() + timeout
    while await ask() != want:
        assert asyncio.get_running_loop().time() < end, "not reached in time"
        await asyncio.sleep(0.02)


async def room_left_open(host, n: Running, joiner_name: str) -> dict:
    """``host`` creates a room, a player on node ``n`` joins it and stays, ``host`` leaves: the room is
    open and counts for ``host``'s account. Its snapshot."""
    snap = await host.request({"t": "create", "config": FAST})
    assert snap["t"] == "snapshot", snap
    joiner = await n.client(name=joiner_name)
    assert (await joiner.request({"t": "join", "code": snap["info"]["invite"]}))["t"] == "ok"
    assert (await host.request({"t": "leave"}))["t"] == "ok"
    snap["joiner"] = joiner
    return snap


async def test_an_accounts_open_rooms_are_counted_over_both_nodes(pg_url, redis_url):
    q = quotas(rooms_per_account=2)
    a, b = await node(pg_url, redis_url, q), await node(pg_url, redis_url, q)
    try:
        host = await a.client(name="Host")
        await room_left_open(host, b, "J1")  # on A
        await host.close()
        on_b = await signed_in(b, host.token)
        await room_left_open(on_b, a, "J2")  # on B
        await on_b.close()
        back = await signed_in(a, host.token)  # A made one of the two only
        r = await back.request({"t": "create", "config": FAST})
        assert r["t"] == "error" and r["code"] == "lobby/too_many_rooms", r
        assert r["message"] == "you have 2 open rooms already"
    finally:
        await stop(a)
        await stop(b)


async def test_rooms_from_one_address_and_creations_are_counted_over_both_nodes(pg_url, redis_url):
    q = quotas(rooms_per_address=2, creates=(0.001, 3))
    a, b = await two_nodes(pg_url, redis_url, q)
    try:
        for n, name in ((a, "X"), (b, "Y")):  # each stays in its room
            c = await n.client(name=name)
            assert (await c.request({"t": "create", "config": FAST}))["t"] == "snapshot"
        z = await a.client(name="Z")
        r = await z.request({"t": "create", "config": FAST})
        assert r["code"] == "lobby/too_many_rooms" and r["message"] == "2 rooms are open from your address", r
        # creations per account: a burst of 3 over both nodes (rooms left empty close at once)
        q.rooms_per_address = 100
        maker = await b.client(name="Maker")
        for n in (a, b, a):
            c = await signed_in(n, maker.token)
            assert (await c.request({"t": "create", "config": FAST}))["t"] == "snapshot"
            assert (await c.request({"t": "leave"}))["t"] == "ok"
        r = await (await signed_in(b, maker.token)).request({"t": "create", "config": FAST})
        assert r["code"] == "lobby/too_often", r
    finally:
        await stop(a)
        await stop(b)


async def test_a_burst_of_guest_accounts_spread_over_nodes_is_refused_at_the_shared_limit(pg_url, redis_url):
    q = quotas(accounts=(0.001, 4))
    a, b = await two_nodes(pg_url, redis_url, q)
    try:
        for n in (a, b, a, b):
            await n.client(name="Guest")
        for n in (a, b):  # each node made 2 of the address's 4
            r = await (await n.client()).request({"t": "guest", "name": "More"})
            assert r["t"] == "error" and r["code"] == "auth/too_many_accounts", r
    finally:
        await stop(a)
        await stop(b)


async def test_tournaments_from_one_address_are_counted_over_both_nodes(pg_url, redis_url):
    q = quotas(tournaments_per_address=1)
    a, b = await two_nodes(pg_url, redis_url, q)
    try:
        cfg = {"name": "Cup", "hands": 2, "starts": [int(a.app.now()) + 3600]}
        org = await a.client(name="Org")
        assert (await org.request({"t": "tournament_create", "config": cfg}))["t"] == "tournament"
        other = await b.client(name="Other")
        r = await other.request({"t": "tournament_create", "config": {**cfg, "name": "Cup 2"}})
        assert r["code"] == "lobby/too_many_tournaments", r
        assert r["message"] == "1 tournaments from your address are not over yet"
    finally:
        await stop(a)
        await stop(b)


async def test_a_room_taken_over_still_counts_and_closing_it_there_frees_its_count(pg_url, redis_url):
    q = quotas(rooms_per_account=1)
    a, b = await node(pg_url, redis_url, q, ttl=2.0), await node(pg_url, redis_url, q, ttl=2.0)
    try:
        host = await a.client(name="Host")
        snap = await room_left_open(host, b, "Joiner")
        await stop(a)  # its room goes on on B
        await eventually(lambda: snap["room"] in b.app.rooms, timeout=30)
        back = await signed_in(b, host.token)
        r = await back.request({"t": "create", "config": FAST})
        assert r["code"] == "lobby/too_many_rooms", r  # B never saw it made, Redis did
        assert (await snap["joiner"].request({"t": "leave"}))["t"] == "ok"  # the room closes, on B
        await until(lambda: b.app.cluster.redis.exists(f"gb:quota:rooms:account:{host.player}"), 0)
        assert (await back.request({"t": "create", "config": FAST}))["t"] == "snapshot"
    finally:
        await stop(b)


async def test_a_count_whose_release_was_lost_is_recounted_once_its_room_is_closed(pg_url, redis_url):
    """A node that closed a room and died before its release reached Redis: the next check finds the
    room neither open nor leased and drops it (past its grace)."""
    q = quotas(rooms_per_account=1)
    a, b = await node(pg_url, redis_url, q), await node(pg_url, redis_url, q)
    try:
        for n in (a, b):
            n.app.book.grace = 300  # ms a room just opened counts whatever Redis says of it
        host = await a.client(name="Host")
        snap = await room_left_open(host, a, "Joiner")
        on_b = await signed_in(b, host.token)
        assert (await on_b.request({"t": "create", "config": FAST}))["code"] == "lobby/too_many_rooms"
        record = "gb:quota:room:" + snap["room"]
        await until(lambda: a.app.cluster.redis.exists(record), 1)  # written after the room's creator heard
        await a.app.cluster.redis.delete(record)  # its release finds nothing: as if it was lost
        assert (await snap["joiner"].request({"t": "leave"}))["t"] == "ok"
        await eventually(lambda: snap["room"] not in a.app.rooms)
        await until(lambda: a.app.cluster.redis.exists("gb:lease:room:" + snap["room"]), 0)  # (out of gb:rooms first)
        end = asyncio.get_running_loop().time() + 5  # and its grace over
        while (r := await on_b.request({"t": "create", "config": FAST}))["t"] != "snapshot":
            assert r["code"] == "lobby/too_many_rooms" and asyncio.get_running_loop().time() < end, r
            await asyncio.sleep(0.05)
        assert await a.app.cluster.redis.zscore(f"gb:quota:rooms:account:{host.player}", snap["room"]) is None
    finally:
        await stop(a)
        await stop(b)


@pytest.fixture
async def books(redis_url):
    """Two nodes' books of quotas on one Redis, and one whose Redis cannot be reached."""
    from server.cluster.quotas import SharedBook
    from tests.support.services import free_port

    q = quotas(accounts=(0.001, 3), replays=(0.001, 3), invites=(0.001, 3), rematches=(0.001, 3),
               rooms_per_account=1)
    clients = [aioredis.Redis.from_url(redis_url) for _ in range(2)]
    clients.append(aioredis.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0"))
    out = [SharedBook(q, True, SimpleNamespace(redis=r)) for r in clients]
    yield out
    for r in clients:
        await r.aclose()


async def test_every_rate_is_one_bucket_for_every_node_and_its_key_goes_once_full(books):
    a, b, _ = books
    now = 0.0
    for ask in (lambda book: book.replay("10.0.0.1", now), lambda book: book.invite("10.0.0.1", now)):
        assert [await ask(book) for book in (a, b, a, b)] == [True, True, True, False]
        assert not await ask(a)
    for book in (a, b, a):
        await book.account("10.0.0.2", now)
    with pytest.raises(ProtocolError) as e:
        await b.account("10.0.0.2", now)
    assert e.value.code == "auth/too_many_accounts"
    await b.account("127.0.0.1", now)  # loopback exempt, as in one process
    put = []
    for book in (a, b, a):
        await book.rematch_then("p1", SimpleNamespace(put=put.append), "cmd")
    with pytest.raises(ProtocolError) as e:
        await b.rematch_then("p1", SimpleNamespace(put=put.append), "cmd")
    assert e.value.code == "lobby/too_often" and put == ["cmd"] * 3
    a.q.invites = (50.0, 3)  # full again 20 ms after its last token is taken: the key goes
    assert await a.invite("10.0.0.3", now)
    assert 0 < await a.redis.pttl("gb:quota:rate:invites:10.0.0.3") <= 20
    await until(lambda: a.redis.exists("gb:quota:rate:invites:10.0.0.3"), 0)


async def test_with_redis_unreachable_a_check_falls_back_to_the_nodes_own_counts(books, caplog):
    *_, down = books
    for _ in range(3):  # the one-process burst, counted by this node alone
        await down.account("10.0.0.1", 0.0)
    with pytest.raises(ProtocolError) as e:
        await down.account("10.0.0.1", 0.0)
    assert e.value.code == "auth/too_many_accounts"
    assert await down.room_create("p1", "10.0.0.1", 0.0) is None  # counted here, not held in Redis
    assert sum("counted by this node alone" in r.getMessage() for r in caplog.records) == 1


async def test_a_place_held_by_a_node_that_never_made_its_room_is_given_back_after_its_grace(books):
    a, b, _ = books
    a.grace = b.grace = 200  # ms
    await a.room_create("p1", None, 0.0)  # its node dies before the room is made
    with pytest.raises(ProtocolError) as e:
        await b.room_create("p1", None, 0.0)
    assert e.value.code == "lobby/too_many_rooms"
    end = asyncio.get_running_loop().time() + 5
    while True:
        try:
            await b.room_create("p1", None, 0.0)
            break
        except ProtocolError:
            assert asyncio.get_running_loop().time() < end
            await asyncio.sleep(0.05)


async def test_rematches_of_an_account_are_one_rate_over_both_nodes(pg_url, redis_url):
    q = quotas(rematches=(0.001, 2))
    a, b = await node(pg_url, redis_url, q), await node(pg_url, redis_url, q)
    try:
        host = await a.client(name="Host")
        assert (await host.request({"t": "create", "config": FAST}))["t"] == "snapshot"
        first = await host.request({"t": "rematch"})  # the room's own answer (no match played yet)
        assert first["code"] != "lobby/too_often", first
        await host.close()
        on_b = await signed_in(b, host.token)  # the room stays on A; B forwards to it
        assert (await on_b.request({"t": "rematch"}))["code"] == first["code"]
        r = await on_b.request({"t": "rematch"})
        assert r["code"] == "lobby/too_often" and r["message"] == "rematches too often: wait a little", r
    finally:
        await stop(a)
        await stop(b)


async def test_tournaments_an_account_organises_are_counted_over_both_nodes(pg_url, redis_url):
    a, b = await node(pg_url, redis_url, quotas()), await node(pg_url, redis_url, quotas())
    for n in (a, b):
        n.app.settings.max_organised = 2
    try:
        cfg = {"name": "Cup", "hands": 2, "starts": [int(a.app.now()) + 3600]}
        org = await a.client(name="Org")
        assert (await org.request({"t": "tournament_create", "config": cfg}))["t"] == "tournament"
        on_b = await signed_in(b, org.token)
        assert (await on_b.request({"t": "tournament_create", "config": cfg}))["t"] == "tournament"
        r = await (await signed_in(a, org.token)).request({"t": "tournament_create", "config": cfg})
        assert r["code"] == "lobby/too_many_tournaments", r
        assert r["message"] == "you already organise 2 tournaments that are not over"
    finally:
        await stop(a)
        await stop(b)


async def test_a_tournament_cancelled_on_its_node_frees_its_addresss_count_on_the_other(pg_url, redis_url):
    q = quotas(tournaments_per_address=1)
    a, b = await two_nodes(pg_url, redis_url, q)
    try:
        cfg = {"name": "Cup", "hands": 2, "starts": [int(a.app.now()) + 3600]}
        org = await a.client(name="Org")
        tid = (await org.request({"t": "tournament_create", "config": cfg}))["tournament"]["id"]
        other = await b.client(name="Other")
        assert (await other.request({"t": "tournament_create", "config": cfg}))["code"] == "lobby/too_many_tournaments"
        r = await org.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "cancel"}})
        assert r["t"] == "ok", r
        end = asyncio.get_running_loop().time() + 10  # over once its close is written (then not counted)
        while (r := await other.request({"t": "tournament_create", "config": cfg}))["t"] != "tournament":
            assert r["code"] == "lobby/too_many_tournaments" and asyncio.get_running_loop().time() < end, r
            await asyncio.sleep(0.05)
    finally:
        await stop(a)
        await stop(b)
