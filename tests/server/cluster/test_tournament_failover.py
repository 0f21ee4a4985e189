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
        # back on A (the room runs once restored; it is linked to its tournament right after)
        await eventually(lambda: room in a.app.rooms and a.app.rooms[room] is not old
                         and a.app.rooms[room].tournament is not None, timeout=20)
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


async def resume(n, c):
    """``c``'s player signing in again on node ``n`` (a new websocket, their token)."""
    back = await n.client()
    assert (await back.request({"t": "resume", "token": c.token}))["t"] == "welcome"
    return back


async def remembered(owner, tid: str, c, at: str) -> None:
    """Once the owner has written in Redis (in the background, after answering) that ``c`` follows
    ``tid`` from node ``at``: what a node that did not see them follow goes by."""
    redis = owner.app.cluster.redis
    for _ in range(400):
        if await redis.hget("gb:tfollow:" + tid, c.player) == at.encode() and await redis.get("gb:tplayer:" + c.player) == tid.encode():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{c.player} following {tid} from {at} not written")


async def test_a_follower_whose_node_died_follows_again_with_no_gap_where_it_reconnects(pg_url, redis_url):
    a = await node(pg_url, redis_url, ttl=2.0)
    b = await node(pg_url, redis_url, ttl=2.0)
    c = await node(pg_url, redis_url, ttl=2.0)
    try:
        org = await a.client(name="Org")
        tid = await cup(org)
        fan = await b.client(name="Fan")
        assert (await fan.request({"t": "tournament", "tournament": tid}))["t"] == "tournament"
        await remembered(a, tid, fan, b.app.cluster.id)
        await crash(b)
        early = await a.client(name="Early")
        await register(early, tid)  # while the fan has no websocket: its delta never reaches them

        back = await resume(c, fan)  # nothing asked: the server remembers what they follow
        view = await back.wait_for(lambda m: m.get("t") == "tournament", timeout=15)
        assert view["tournament"]["id"] == tid and early.player in view["tournament"]["names"]
        late = await c.client(name="Late")
        await register(late, tid)  # a delta that applies to that view (the client checks every one)
        await wait_view(back, lambda v: late.player in v["names"])
    finally:
        await stop(c)
        await stop(a)


async def test_followers_on_a_dead_owner_follow_the_new_owner_where_they_reconnect(pg_url, redis_url):
    a = await node(pg_url, redis_url, ttl=2.0)
    b = await node(pg_url, redis_url, ttl=2.0)
    # C takes nothing over: the tournament goes to B, and C hears of it as any other node does (tmoved)
    c = await node(pg_url, redis_url, ttl=2.0, before_start=lambda app: setattr(app.cluster, "watch", lambda: None))
    try:
        org = await a.client(name="Org")
        tid = await cup(org)
        fan, asker = await a.client(name="Fan"), await a.client(name="Asker")
        for f in (fan, asker):  # followers on the owner itself
            assert (await f.request({"t": "tournament", "tournament": tid}))["t"] == "tournament"
        for f in (fan, asker):
            await remembered(a, tid, f, a.app.cluster.id)
        await crash(a)

        back = await resume(c, fan)  # asks nothing
        again = await resume(c, asker)
        # asked before the takeover (the browser asks again after every sign-in): answered by the new owner
        answer = await again.request({"t": "tournament", "tournament": tid}, timeout=30)
        assert answer["t"] == "tournament", answer
        await eventually(lambda: tid in b.app.tournaments, timeout=20)
        view = await back.wait_for(lambda m: m.get("t") == "tournament", timeout=15)
        assert view["tournament"]["id"] == tid
        late = await b.client(name="Late")
        await register(late, tid)
        for f in (back, again):  # each follows the tournament on B from C, every delta applying
            await wait_view(f, lambda v: late.player in v["names"])
    finally:
        await stop(c)
        await stop(b)


async def test_a_command_the_tournament_sends_a_table_whose_lease_is_lost_reaches_it_once_back(pg_url, redis_url, caplog):
    # the node's watch does not run: the lost table is taken back below, once the command was sent
    a = await node(pg_url, redis_url, ttl=2.0, before_start=lambda app: setattr(app.cluster, "watch", lambda: None))
    try:
        org = await a.client(name="Org")
        tid = await cup(org, {"turn_time": 60.0, "claim_time": 60.0})  # the hand waits for the player
        player = await a.client(name="Player")
        await register(player, tid)
        assert (await org.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "start"}}))["t"] == "ok"
        room = (await player.wait_for(lambda m: m.get("t") == "table", timeout=15))["room"]
        await org.wait_for(lambda m: m.get("t") == "tournament_event" and m["event"] == "table_started", timeout=15)
        old = a.app.rooms[room]
        await a.app.cluster.redis.delete("gb:lease:room:" + room)
        await eventually(lambda: old.closed, timeout=10)  # the table stopped; its tournament runs on

        r = await org.request({"t": "tournament_cmd", "tournament": tid,  # 停和: a command for the table
                               "cmd": {"t": "sanction", "player": player.player, "kind": "stop_win", "reason": "x"}})
        assert r["t"] == "ok", r
        assert await a.app.cluster.tourneys.retake_tables() == [room]
        back = a.app.rooms[room]
        seat = next(i for i, s in enumerate(back.room.seats) if s is not None and s.id == player.player)
        await eventually(lambda: back.room.info()["seats"][seat]["blocked"], timeout=10)
        caplog.clear()  # the lost lease's ERROR was the point
    finally:
        await stop(a)


async def test_a_follower_who_turns_to_a_tournament_of_another_node_is_no_longer_recorded_for_the_first(pg_url, redis_url):
    a = await node(pg_url, redis_url, ttl=2.0)
    b = await node(pg_url, redis_url, ttl=2.0)
    try:
        first, second = await cup(await a.client(name="OrgA")), await cup(await b.client(name="OrgB"))
        fan = await a.client(name="Fan")
        assert (await fan.request({"t": "tournament", "tournament": first}))["t"] == "tournament"
        await remembered(a, first, fan, a.app.cluster.id)
        assert (await fan.request({"t": "tournament", "tournament": second}))["t"] == "tournament"
        await remembered(b, second, fan, a.app.cluster.id)
        # a node taking the first over would have made them follow it again
        await eventually_async(lambda: a.app.cluster.redis.hexists("gb:tfollow:" + first, fan.player), False)
    finally:
        await stop(b)
        await stop(a)


async def eventually_async(read, wanted, timeout: float = 10.0) -> None:
    """Until ``await read()`` is ``wanted`` (a Redis value written in the background)."""
    end = asyncio.get_running_loop().time() + timeout
    while await read() != wanted:
        assert asyncio.get_running_loop().time() < end, "not reached in time"
        await asyncio.sleep(0.05)
