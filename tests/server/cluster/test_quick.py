"""The quick match of a cluster (docs/cluster.md "Quick match"): one queue in Redis for every node,
placed by one node at a time."""

from __future__ import annotations

import asyncio

import pytest

from server.cluster.keys import pack
from server.cluster.quick import ALIVE, PLACING, QUEUE
from tests.server.cluster.test_nodes import eventually, nodes, start_node  # noqa: F401 - a fixture
from tests.server.conftest import stop

pytestmark = pytest.mark.postgres

HUMANS = {"t": "quick", "bots": False}  # four humans or nothing: the table is made of the queued only


async def snapshot_of(c) -> dict:
    return await c.wait_for(lambda m: m.get("t") == "snapshot", timeout=20.0)


async def test_four_players_queued_on_two_nodes_get_one_table(nodes):
    a, b = nodes
    players = [await a.client(name="A1"), await a.client(name="A2"), await b.client(name="B1"),
               await b.client(name="B2")]
    for c in players:
        r = await c.request(HUMANS)
        assert r["t"] == "queued", r
    snaps = [await snapshot_of(c) for c in players]
    room = snaps[0]["room"]
    assert {s["room"] for s in snaps} == {room}  # one table for the four
    assert sorted(snaps[0]["info"]["names"].values()) == ["A1", "A2", "B1", "B2"]
    assert all(s["you"]["seat"] is not None for s in snaps)
    assert (room in a.app.rooms) != (room in b.app.rooms)  # made on one node only
    assert await a.app.cluster.redis.hlen(QUEUE) == 0  # nobody left waiting
    owner = a if room in a.app.rooms else b
    assert not await owner.app.cluster.redis.exists(PLACING + owner.app.cluster.id)
    # each player's own node knows where they are: they are not queued and are in the room
    for c, node in zip(players, (a, a, b, b)):
        assert node.app.quick.queued(c.player) is None
        assert node.app.where[c.player].id == room
    r = await players[2].request({"t": "snapshot"})  # the match runs; B forwards to the owner
    assert r["t"] == "snapshot" and r["room"] == room, r


async def test_quick_cancel_works_from_either_node_and_a_cancelled_player_is_not_seated(nodes):
    a, b = nodes
    a1, a2, b1 = await a.client(name="A1"), await a.client(name="A2"), await b.client(name="B1")
    for c in (a1, a2, b1):
        assert (await c.request(HUMANS))["t"] == "queued"
    again = await b1.request(HUMANS)
    assert again["t"] == "error" and again["code"] == "lobby/queued", again
    waiting = await a1.wait_for(lambda m: m.get("t") == "queued" and m.get("waiting") == 3)
    assert waiting["waiting"] == 3  # the count includes the other node's player
    assert (await b1.request({"t": "quick_cancel"}))["t"] == "ok"  # from B
    no = await b1.request({"t": "quick_cancel"})
    assert no["t"] == "error" and no["code"] == "lobby/not_queued", no
    assert (await a2.request({"t": "quick_cancel"}))["t"] == "ok"  # from A
    assert set(await a.app.cluster.redis.hkeys(QUEUE)) == {a1.player.encode()}
    a2b, b2, b3 = await a.client(name="A3"), await b.client(name="B2"), await b.client(name="B3")
    for c in (a2b, b2, b3):
        assert (await c.request(HUMANS))["t"] == "queued"
    seated = [await snapshot_of(c) for c in (a1, a2b, b2, b3)]
    assert len({s["room"] for s in seated}) == 1
    assert sorted(seated[0]["info"]["names"].values()) == ["A1", "A3", "B2", "B3"]
    assert not [m for m in b1.frames + a2.frames if m.get("t") == "snapshot"]  # the cancelled: never seated


async def test_a_queued_player_whose_node_died_is_dropped_from_the_queue(nodes, redis_url):
    a, b = nodes
    ghost = {"type": "guobiao", "hands": 4, "wait": None, "since": a.app.now() - 1, "rating": 0.0,
             "node": "ghost"}  # a node with no alive key: dead
    await a.app.cluster.redis.hset(QUEUE, "p-ghost", pack(ghost))
    players = [await a.client(name="A1"), await a.client(name="A2"), await b.client(name="B1")]
    for c in players:
        assert (await c.request(HUMANS))["t"] == "queued"
    r = a.app.cluster.redis
    for _ in range(200):  # the placer looks every POLL
        if b"p-ghost" not in await r.hkeys(QUEUE):
            break
        await asyncio.sleep(0.05)
    assert set(await r.hkeys(QUEUE)) == {c.player.encode() for c in players}  # the ghost is gone, unseated
    assert not [m for c in players for m in c.frames if m.get("t") == "snapshot"]


async def test_entries_a_dead_placer_took_go_back_to_the_queue_unless_their_room_was_made(pg_url, redis_url):
    a = await start_node(pg_url, redis_url)
    try:
        r = a.app.cluster.redis
        entry = {"type": "guobiao", "hands": 4, "wait": None, "since": a.app.now(), "rating": 0.0,
                 "node": a.app.cluster.id}
        await r.sadd("gb:nodes", "ghost")
        await r.hset(PLACING + "ghost", mapping={"p-waiting": pack(entry), "p-seated": pack(entry)})
        await r.set("gb:player:p-seated", "r0")  # its room was made before the placer died
        assert not await r.exists(ALIVE + "ghost")
        await a.app.cluster.quick._recover()
        assert set(await r.hkeys(QUEUE)) == {b"p-waiting"}
        assert not await r.exists(PLACING + "ghost")
    finally:
        await stop(a)


async def test_a_queued_player_reconnecting_to_another_node_keeps_their_place_and_is_seated_there(
        nodes, monkeypatch):
    from server import connections
    from server.cluster.keys import unpack

    monkeypatch.setattr(connections, "QUICK_GRACE", 0.2)  # the old node's grace ends long before the table
    a, b = nodes
    mover = await a.client(name="Mover")
    queued = await mover.request(HUMANS)
    assert queued["t"] == "queued", queued
    r = a.app.cluster.redis
    since = unpack(await r.hget(QUEUE, mover.player))["since"]
    await mover.close()
    back = await b.client()
    w = await back.request({"t": "resume", "token": mover.token})
    assert w["t"] == "welcome" and w["queued"] == "guobiao", w  # still queued, now from B
    entry = unpack(await r.hget(QUEUE, mover.player))
    assert entry["node"] == b.app.cluster.id and entry["since"] == since  # the same place and time waited
    await eventually(lambda: mover.player not in a.app.conns)  # A saw the close: its grace began
    await eventually(lambda: mover.player not in a.app.quick_away)  # and ended
    others = [await a.client(name="A1"), await a.client(name="A2"), await b.client(name="B1")]
    assert (await others[0].request(HUMANS))["t"] == "queued"  # after A handled the grace's end (one queue)
    assert await r.hexists(QUEUE, mover.player)  # the place was not A's to drop
    for c in others[1:]:
        assert (await c.request(HUMANS))["t"] == "queued"
    snaps = [await snapshot_of(c) for c in (back, *others)]
    assert len({s["room"] for s in snaps}) == 1 and snaps[0]["you"]["seat"] is not None
    assert sorted(snaps[0]["info"]["names"].values()) == ["A1", "A2", "B1", "Mover"]


async def test_a_node_not_placing_asks_for_the_placers_lease_a_few_times_a_ttl_and_follows_a_stopped_placer(
        pg_url, redis_url):
    a = await start_node(pg_url, redis_url)
    b = await start_node(pg_url, redis_url)
    try:
        await eventually(lambda: a.app.cluster.quick.lease.owned or b.app.cluster.quick.lease.owned)
        placer, other = (a, b) if a.app.cluster.quick.lease.owned else (b, a)
        lease = other.app.cluster.quick.lease
        tries = []
        real = lease.acquire

        async def counted():
            tries.append(1)
            return await real()
        lease.acquire = counted
        await asyncio.sleep(1.0)
        assert len(tries) <= 2  # (every POLL, 0.1 s, it was ten: one script call each)
        await stop(placer)  # gives the lease up: the other places from within a quarter ttl
        await eventually(lambda: lease.owned, timeout=other.app.cluster.ttl)
    finally:
        for n in (a, b):
            if not n.app.stopping:
                await stop(n)
