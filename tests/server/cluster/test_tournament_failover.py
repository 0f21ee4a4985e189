"""Tournaments across nodes when a part fails (server/cluster/tourney.py, docs/cluster.md "Tournaments"):
a table that lost its own lease, the owner's stand-ins of remote players, followers whose node died.
Nodes in one process on the test run's private Redis and PostgreSQL."""

from __future__ import annotations

import asyncio
import logging
import random

import pytest
import redis.asyncio as aioredis

from tests.server.client import play
from tests.server.cluster.test_nodes import eventually
from tests.server.cluster.test_takeover import node
from tests.server.cluster.test_tournaments import crash, cup, register
from tests.server.conftest import stop
from tests.server.test_tournament import wait_view

pytestmark = pytest.mark.postgres


async def test_a_table_whose_lease_is_lost_while_its_tournament_lives_comes_back_and_reports(pg_url, redis_url, caplog):
    a = await node(pg_url, redis_url, ttl=2.0)
    b = await node(pg_url, redis_url, ttl=2.0)
    check = aioredis.Redis.from_url(redis_url)
    try:
        org = await a.client(name="Org")
        tid = await cup(org)
        here, there = await a.client(name="Here"), await b.client(name="There")
        for c in (here, there):
            await register(c, tid)
        fan = await b.client(name="Fan")
        assert (await fan.request({"t": "tournament", "tournament": tid}))["t"] == "tournament"
        assert (await org.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "start"}}))["t"] == "ok"
        table = await there.wait_for(lambda m: m.get("t") == "table", timeout=15)
        room = table["room"]
        for c in (here, there):
            await c.wait_for(lambda m: m.get("t") == "snapshot" and m["room"] == room)
        old = a.app.rooms[room]

        await check.delete("gb:lease:room:" + room)  # as after a pause past its ttl: A's renewal is refused
        await eventually(lambda: old.closed, timeout=10)  # the room stopped on A
        await eventually(lambda: room in a.app.rooms and a.app.rooms[room] is not old, timeout=20)
        assert a.app.rooms[room].tournament[0] is a.app.tournaments[tid]
        assert (await check.get("gb:lease:room:" + room)).decode().startswith(a.app.cluster.id + ":")
        for c in (here, there):  # each member, local or on B, gets a snapshot of the room back
            await c.wait_for(lambda m: m.get("t") == "snapshot" and m["room"] == room, timeout=15)

        results = await asyncio.gather(*(play(c, random.Random(i), lambda m: m.get("t") == "match_result",
                                              timeout=120) for i, c in enumerate((here, there))))
        assert all(r["room"] == room for r in results)
        v = await wait_view(fan, lambda v: v["sessions"][0]["state"] == "finished", timeout=30)
        assert sorted(r["sessions"] for r in v["standings"] if r["player"] in (here.player, there.player)) == [1, 1]
        errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        assert errors == [f"room {room}: lease lost, the room stops on this node"]
        caplog.clear()  # that ERROR was the point of the test
    finally:
        await check.aclose()
        await stop(b)
        await stop(a)


async def test_the_owners_stand_ins_of_remote_followers_go_when_they_disconnect_or_their_node_dies(pg_url, redis_url):
    a = await node(pg_url, redis_url, ttl=2.0)
    b = await node(pg_url, redis_url, ttl=2.0)
    try:
        org = await a.client(name="Org")
        tid = await cup(org)
        fans = [await b.client(name=f"Fan {i}") for i in range(4)]
        for f in fans:
            assert (await f.request({"t": "tournament", "tournament": tid}))["t"] == "tournament"
        player = await b.client(name="Player")
        await register(player, tid)  # a command, not a follow
        remote = {f.player for f in (*fans, player)}
        stand_ins = lambda: set(a.app.cluster.tourneys.proxies)  # noqa: E731
        assert stand_ins() == remote

        await fans[0].close()
        await player.close()
        await eventually(lambda: stand_ins() == remote - {fans[0].player, player.player}, timeout=10)
        await crash(b)  # the rest went with their node
        await eventually(lambda: not stand_ins(), timeout=20)
        assert tid in a.app.tournaments  # the tournament itself is unaffected
    finally:
        await stop(a)
