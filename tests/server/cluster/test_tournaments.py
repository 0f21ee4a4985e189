"""Tournaments across nodes (server/cluster/tourney.py, docs/cluster.md "Tournaments"): nodes in one
process on the test run's private Redis and PostgreSQL; a tournament owned by one node is joined,
followed and played from another, and taken over by a running node when its owner stops abruptly."""

from __future__ import annotations

import asyncio
import random

import pytest
import redis.asyncio as aioredis

from server.cluster.lease import holder
from tests.server.client import play
from tests.server.cluster.test_nodes import eventually
from tests.server.cluster.test_takeover import node
from tests.server.conftest import stop
from tests.server.test_tournament import wait_view

pytestmark = pytest.mark.postgres

CUP = {"name": "Node Cup", "hands": 1, "min_players": 1, "checkin_required": False,
       "turn_time": 1.0, "claim_time": 1.0, "bank": 0.0}  # a seat left to 托管 plays on at once


async def crash(n) -> None:
    """The node stops as if killed: nothing given up (its leases expire), its connections dropped."""
    app, cluster = n.app, n.app.cluster
    app.stopping = True
    tasks = [*cluster.tasks, *app.tasks, *(t.task for t in app.tournaments.values()),
             *(r.task for r in app.rooms.values())]
    for t in tasks:
        if t is not None:
            t.cancel()
    await asyncio.gather(*(t for t in tasks if t is not None), return_exceptions=True)
    app.server.close()
    await app.server.wait_closed()
    await app.store.close()
    await cluster.redis.aclose()


async def cup(org, extra: dict | None = None) -> str:
    r = await org.request({"t": "tournament_create", "config": {**CUP, **(extra or {})}})
    assert r["t"] == "tournament", r
    return r["tournament"]["id"]


async def register(c, tid: str) -> None:
    r = await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}})
    assert r["t"] == "ok", r


async def test_a_player_on_another_node_registers_plays_and_a_follower_there_sees_the_standings(pg_url, redis_url):
    a = await node(pg_url, redis_url)
    b = await node(pg_url, redis_url)
    try:
        org = await a.client(name="Org")
        tid = await cup(org)
        assert (await holder(a.app.cluster.redis, "tournament:" + tid))[0] == a.app.cluster.id
        player = await b.client(name="Remote")
        await register(player, tid)  # B sends it to A, the owner, and answers in order
        assert tid not in b.app.tournaments
        view = await player.wait_for(lambda m: m.get("t") == "tournament")
        assert view["tournament"]["you"]["registered"]
        fan = await b.client(name="Fan")
        seen = await fan.request({"t": "tournament", "tournament": tid})
        assert seen["t"] == "tournament" and player.player in seen["tournament"]["names"], seen
        assert (await org.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "start"}}))["t"] == "ok"

        table = await player.wait_for(lambda m: m.get("t") == "table", timeout=15)
        assert table["tournament"] == tid and table["room"] in a.app.rooms  # the table runs on A
        snap = await player.wait_for(lambda m: m.get("t") == "snapshot" and m["room"] == table["room"])
        assert snap["you"]["seat"] is not None
        # the table is in the room directory: its lease is A's, its invite code finds it from B
        assert (await holder(b.app.cluster.redis, "room:" + table["room"]))[0] == a.app.cluster.id
        assert await b.app.cluster.redis.get("gb:invite:" + snap["info"]["invite"]) == table["room"].encode()
        watcher = await b.client(name="Watcher")
        assert (await watcher.request({"t": "watch", "code": snap["info"]["invite"]}))["t"] == "ok"

        await play(player, random.Random(5), lambda m: m.get("t") == "match_result", timeout=120)
        before = [r for r in seen["tournament"]["standings"] if r["player"] == player.player]
        assert [r["sessions"] for r in before] == [0]
        # the follower on B, following a tournament on A, sees the remote player's played session counted
        v = await wait_view(fan, lambda v: v["sessions"][0]["state"] == "finished")
        assert [r["sessions"] for r in v["standings"] if r["player"] == player.player] == [1], v["standings"]
        ns = [m["n"] for m in player.frames if "n" in m]
        assert ns == list(range(1, len(ns) + 1))  # pushes from A numbered on B without a gap
    finally:
        await stop(b)
        await stop(a)


async def test_a_dead_nodes_tournament_is_taken_over_by_a_running_node_and_goes_on(pg_url, redis_url):
    a = await node(pg_url, redis_url, ttl=2.0)
    b = await node(pg_url, redis_url, ttl=2.0)
    try:
        org = await a.client(name="Org")
        tid = await cup(org, {"sessions": 2})
        player = await b.client(name="Remote")
        await register(player, tid)
        fan = await b.client(name="Fan")
        assert (await fan.request({"t": "tournament", "tournament": tid}))["t"] == "tournament"
        assert (await org.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "start"}}))["t"] == "ok"
        table = await player.wait_for(lambda m: m.get("t") == "table", timeout=15)
        await player.wait_for(lambda m: m.get("t") == "snapshot" and m["room"] == table["room"])

        await crash(a)  # its leases expire; B takes the tournament and its table over
        await eventually(lambda: tid in b.app.tournaments and table["room"] in b.app.rooms, timeout=20)
        assert (await holder(b.app.cluster.redis, "tournament:" + tid))[0] == b.app.cluster.id

        await play(player, random.Random(6), lambda m: m.get("t") == "match_result", timeout=120)
        await wait_view(fan, lambda v: v["sessions"][0]["state"] == "finished")  # the follower still hears
        # the organiser comes back on B and starts session 2, played at a new table on B
        back = await b.client()
        assert (await back.request({"t": "resume", "token": org.token}))["t"] == "welcome"
        assert (await back.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "start"}}))["t"] == "ok"
        second = await player.wait_for(lambda m: m.get("t") == "table" and m["room"] != table["room"], timeout=15)
        assert second["room"] in b.app.rooms
    finally:
        await stop(b)


async def test_a_starting_node_restores_a_tournament_table_only_with_its_tournament(pg_url, redis_url):
    a = await node(pg_url, redis_url, ttl=2.0)
    c = None
    try:
        org = await a.client(name="Org")
        tid = await cup(org)
        player = await a.client(name="Player")
        await register(player, tid)
        assert (await org.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "start"}}))["t"] == "ok"
        room = (await player.wait_for(lambda m: m.get("t") == "table", timeout=15))["room"]
        await crash(a)
        check = aioredis.Redis.from_url(redis_url)
        try:
            # another node holds the tournament (a live owner, as far as a starting node can tell)
            await check.set("gb:lease:tournament:" + tid, "elsewhere:999999", px=60_000)
            for _ in range(100):  # the dead node's room lease expires
                if not await check.exists("gb:lease:room:" + room):
                    break
                await asyncio.sleep(0.05)
            c = await node(pg_url, redis_url, ttl=2.0)
            assert room not in c.app.rooms and tid not in c.app.tournaments  # the table stays with its tournament
            await check.delete("gb:lease:tournament:" + tid)  # that owner is gone: C takes both, together
            await eventually(lambda: tid in c.app.tournaments and room in c.app.rooms, timeout=20)
            assert c.app.rooms[room].tournament[0] is c.app.tournaments[tid]
        finally:
            await check.aclose()
    finally:
        if c is not None:
            await stop(c)


async def test_a_tournament_player_who_resumes_on_a_third_node_is_told_their_table_there(pg_url, redis_url):
    a = await node(pg_url, redis_url)
    b = await node(pg_url, redis_url)
    c = await node(pg_url, redis_url)
    try:
        org = await a.client(name="Org")
        tid = await cup(org)
        player = await b.client(name="Wanderer")
        await register(player, tid)
        await player.close()
        back = await c.client()  # a node the player never used for the tournament
        assert (await back.request({"t": "resume", "token": player.token}))["t"] == "welcome"
        # (B's stand-in went as the websocket closed: C's is made as C tells A the player is there)
        await eventually(lambda: getattr(a.app.cluster.tourneys.proxies.get(player.player), "node", None)
                         == c.app.cluster.id)
        assert (await org.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "start"}}))["t"] == "ok"
        table = await back.wait_for(lambda m: m.get("t") == "table", timeout=15)
        snap = await back.wait_for(lambda m: m.get("t") == "snapshot" and m["room"] == table["room"])
        assert snap["you"]["seat"] is not None and table["room"] in a.app.rooms
    finally:
        for n in (c, b, a):
            await stop(n)


async def test_a_scheduled_event_is_made_once_for_the_whole_cluster(pg_url, redis_url):
    answers = []  # each node's answer to "do I make this instance?"

    def timetable(app) -> None:
        app.settings.series = [{"name": "Cluster Event", "every": 60, "first_at": app.now() + 30, "hands": 1,
                                "min_players": 2}]
        tourneys = app.cluster.tourneys
        real = tourneys.make_event

        async def asked(name, starts):
            answers.append(await real(name, starts))
            return answers[-1]

        tourneys.make_event = asked

    a = await node(pg_url, redis_url, before_start=timetable)
    b = await node(pg_url, redis_url, before_start=timetable)
    try:
        made = lambda: [t for n in (a, b) for t in n.app.tournaments.values()  # noqa: E731
                        if t.t.config.name == "Cluster Event"]
        await eventually(lambda: len(answers) == 2 and made())  # each node's timetable found the instance open
        assert sorted(answers) == [False, True] and len(made()) == 1, (answers, made())
    finally:
        await stop(b)
        await stop(a)
