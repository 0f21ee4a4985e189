"""Two nodes of one cluster in one process, on the test run's private Redis and PostgreSQL
(docs/cluster.md): a room made on one node is played by a player whose websocket is on the other."""

from __future__ import annotations

import asyncio
import random

import pytest
import redis.asyncio as aioredis

from server.app import App
from server.cluster.lease import holder
from server.cluster.node import ClusterNode
from server.store import open_store
from tests.server.client import play
from tests.server.conftest import FAST, Running, fast_settings, stop

pytestmark = pytest.mark.postgres


async def start_node(pg_url: str, redis_url: str) -> Running:
    store = await open_store(pg_url)
    app = App(store, fast_settings())
    app.cluster = ClusterNode(app, redis_url)
    await app.cluster.start()
    port = await app.start("127.0.0.1", 0)
    return Running(app, port, pg_url)


@pytest.fixture
async def nodes(pg_url, redis_url):
    a = await start_node(pg_url, redis_url)
    b = await start_node(pg_url, redis_url)
    yield a, b
    await stop(a)
    await stop(b)


async def eventually(check, timeout: float = 10.0) -> None:
    """Wait until ``check()`` holds (what one node writes reaches the others through Redis)."""
    end = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < end, "not reached in time"
        await asyncio.sleep(0.02)


async def guest_in_remote_room(a: Running, b: Running):
    """A host's room on node B and a guest whose websocket is on node A, joined by invite code: the host,
    the room's snapshot and the guest."""
    host = await b.client(name="Host")
    snap = await host.request({"t": "create", "config": FAST})
    guest = await a.client(name="Guest")
    assert (await guest.request({"t": "join", "code": snap["info"]["invite"]}))["t"] == "ok"
    return host, snap, guest


def numbered(frames: list[dict]) -> list[int]:
    return [m["n"] for m in frames if "n" in m]


async def test_a_player_on_one_node_joins_by_invite_code_a_room_on_another_and_plays_a_bots_hand(nodes):
    a, b = nodes
    host = await b.client(name="Host")
    snap = await host.request({"t": "create", "config": FAST})
    assert snap["t"] == "snapshot", snap
    room, code = snap["room"], snap["info"]["invite"]
    assert (await holder(b.app.cluster.redis, "room:" + room))[0] == b.app.cluster.id  # B owns it

    guest = await a.client(name="Guest")
    r = await guest.request({"t": "join", "code": code.lower()})
    assert r["t"] == "ok", r
    seen = await guest.wait_for(lambda m: m.get("t") == "snapshot")
    assert seen["room"] == room and sorted(seen["info"]["names"].values()) == ["Guest", "Host"]
    assert room not in a.app.rooms and room in b.app.rooms  # the room runs on B only
    for _ in range(2):
        assert (await host.request({"t": "add_bot"}))["t"] == "ok"
    for c in (host, guest):
        assert (await c.request({"t": "ready"}))["t"] == "ok"

    rng = random.Random(3)
    done = await asyncio.gather(*(play(c, rng, lambda m: m.get("t") == "hand_result") for c in (host, guest)))
    assert done[0]["record"] == done[1]["record"]  # the same hand, seen from both nodes
    # Every room message reached the guest across the nodes in order: n counts 1, 2, 3... without a gap,
    # and the room's rseq never goes back.
    ns = numbered(guest.frames)
    assert ns == list(range(1, len(ns) + 1)) and len(ns) > 10
    rseqs = [m["rseq"] for m in guest.frames if m.get("room") == room and "rseq" in m]
    assert rseqs == sorted(rseqs)
    # and what the guest saw is what the host saw of the same entries (the same rseq values). A seat's
    # own answer handled on its own is told to that seat alone, without events: not compared.
    told = lambda c: {m["rseq"] for m in c.frames if m.get("room") == room and "rseq" in m  # noqa: E731
                      and (m.get("t") != "game" or m.get("events"))}
    assert told(guest) <= told(host) | {seen["rseq"]}


async def test_an_unknown_invite_code_is_no_room_on_every_node(nodes):
    a, _ = nodes
    c = await a.client(name="Lost")
    r = await c.request({"t": "join", "code": "ABCDEFGH"})
    assert r["t"] == "error" and r["code"] == "lobby/no_room", r


async def test_a_closed_node_gives_its_leases_up(pg_url, redis_url):
    b = await start_node(pg_url, redis_url)
    host = await b.client(name="Host")
    snap = await host.request({"t": "create", "config": FAST})
    check = aioredis.Redis.from_url(redis_url)
    try:
        assert await holder(check, "room:" + snap["room"]) is not None
        await stop(b)
        assert await holder(check, "room:" + snap["room"]) is None  # no waiting for the expiry
    finally:
        await check.aclose()


async def test_a_player_resuming_on_any_node_is_back_in_their_room_on_another(pg_url, redis_url):
    a = await start_node(pg_url, redis_url)
    b = await start_node(pg_url, redis_url)
    c = await start_node(pg_url, redis_url)
    try:
        host, snap, guest = await guest_in_remote_room(a, b)
        await guest.close()
        back = await c.client()  # a node the player never used
        r = await back.request({"t": "resume", "token": guest.token})
        assert r["t"] == "welcome" and r["room"] == snap["room"], r
        again = await back.wait_for(lambda m: m.get("t") == "snapshot")
        assert again["room"] == snap["room"] and again["you"]["seat"] is not None
        assert (await back.request({"t": "ready"}))["t"] == "ok"  # C forwards to B, the owner
        await host.close()  # the room's maker too, from its first moment
        host_back = await a.client()
        r = await host_back.request({"t": "resume", "token": host.token})
        assert r["t"] == "welcome" and r["room"] == snap["room"], r
        await host_back.wait_for(lambda m: m.get("t") == "snapshot")
    finally:
        for n in (a, b, c):
            await stop(n)


async def test_a_remote_player_who_leaves_is_free_on_their_node(nodes):
    a, b = nodes
    host, snap, guest = await guest_in_remote_room(a, b)
    assert (await guest.request({"t": "leave"}))["t"] == "ok"
    await eventually(lambda: guest.player not in a.app.where)  # B tells A over the stream
    own = await guest.request({"t": "create", "config": FAST})  # not lobby/in_room
    assert own["t"] == "snapshot" and own["room"] in a.app.rooms


async def test_the_owners_stand_in_of_a_remote_player_goes_when_they_leave_its_rooms(nodes):
    a, b = nodes
    host, one, guest = await guest_in_remote_room(a, b)
    await eventually(lambda: guest.player in b.app.where)
    assert guest.player in b.app.cluster.proxies  # B sends the guest's messages to A through it
    assert (await guest.request({"t": "leave"}))["t"] == "ok"
    await eventually(lambda: guest.player not in b.app.where)
    assert guest.player not in b.app.cluster.proxies  # a player who comes and goes leaves nothing behind


async def test_the_stand_ins_of_a_gone_nodes_players_go(pg_url, redis_url):
    a = await start_node(pg_url, redis_url)
    b = await start_node(pg_url, redis_url)
    try:
        host, snap, guest = await guest_in_remote_room(a, b)
        await eventually(lambda: guest.player in b.app.cluster.proxies)
        await b.app.cluster.takeover.take_over(orphans=False)
        assert guest.player in b.app.cluster.proxies  # A lives: kept
    finally:
        await stop(a)  # its node lease given up: to B, A is gone
    try:
        await b.app.cluster.takeover.take_over(orphans=False)
        assert guest.player not in b.app.cluster.proxies  # nothing more is written to A's stream for them
        assert guest.player in b.app.where  # still seated: back through another node, they get a snapshot
    finally:
        await stop(b)


async def test_every_node_lists_the_public_rooms_of_every_node(nodes):
    a, b = nodes
    on_b = await b.client(name="Bea")
    on_a = await a.client(name="Abe")
    room_b = (await on_b.request({"t": "create", "config": {**FAST, "private": False}}))["room"]
    room_a = (await on_a.request({"t": "create", "config": {**FAST, "private": False}}))["room"]
    hidden = await (await a.client(name="Shy")).request({"t": "create", "config": FAST})  # private: not listed
    for c in (on_a, on_b):
        found = await c.request({"t": "rooms"})
        assert found["t"] == "rooms", found
        assert {r["room"] for r in found["rooms"]} == {room_a, room_b}
    named = await on_a.request({"t": "rooms", "q": "bea"})  # by a seated player's name, on the other node
    assert [r["room"] for r in named["rooms"]] == [room_b]
    assert hidden["room"] not in {r["room"] for r in found["rooms"]}
    assert (await on_b.request({"t": "leave"}))["t"] == "ok"  # B's room empties and closes
    for _ in range(200):
        found = await on_a.request({"t": "rooms"})
        if {r["room"] for r in found["rooms"]} == {room_a}:
            break
        await asyncio.sleep(0.05)
    assert {r["room"] for r in found["rooms"]} == {room_a}


async def test_a_remote_room_stands_for_the_room_without_being_a_half_built_room_task(nodes):
    from server.cluster.remote import RemoteRoom
    from server.roomitems import RoomRef
    from server.roomtask import RoomTask

    a, b = nodes
    host, snap, guest = await guest_in_remote_room(a, b)
    where = a.app.where[guest.player]
    assert isinstance(where, RemoteRoom) and isinstance(where, RoomRef) and not isinstance(where, RoomTask)
    assert (where.id, where.owner) == (snap["room"], b.app.cluster.id)
    assert (await guest.request({"t": "ready"}))["t"] == "ok"  # put through it to the owner


async def test_messages_queued_together_for_a_node_share_one_stream_entry(nodes):
    """Pushes sent to one node in the same pass of the loop go in one entry of its stream (one XADD,
    one entry to read), and arrive all, in order."""
    a, b = nodes
    target = b.app.cluster.id
    seen: list[int] = []
    b.app.cluster.handlers["probe"] = lambda body: seen.append(body["i"])
    before = await a.app.cluster.redis.xlen("gb:node:" + target)
    for i in range(5):
        a.app.cluster.send(target, {"k": "probe", "i": i})
    await eventually(lambda: len(seen) == 5)
    assert seen == [0, 1, 2, 3, 4]
    assert await a.app.cluster.redis.xlen("gb:node:" + target) == before + 1


async def test_a_backlog_from_another_node_lets_the_loop_run_while_it_is_handled(nodes):
    """A thousand messages arriving in one read (four entries) are not handled in one pass of the
    loop: what was scheduled while the first was handled runs before the last is."""
    a, b = nodes
    ran: list[bool] = []
    seen: list[bool] = []

    def probe(body):
        if body["i"] == 0:
            asyncio.get_running_loop().call_soon(ran.append, True)
        seen.append(bool(ran))
    b.app.cluster.handlers["probe"] = probe
    for i in range(1000):
        a.app.cluster.send(b.app.cluster.id, {"k": "probe", "i": i})
    await eventually(lambda: len(seen) == 1000)
    assert not seen[0] and seen[-1]


async def test_messages_queued_together_for_several_nodes_leave_in_one_round_trip(nodes, monkeypatch):
    """An action's pushes to seats on three other nodes: one command to Redis, not one per node (each a
    round trip and a wake-up of its own), and each node's stream gets its messages, in order."""
    from redis.asyncio.connection import AbstractConnection

    from server.cluster.keys import unpack_all

    a, _ = nodes
    sent: list[bytes] = []
    real = AbstractConnection.send_packed_command

    async def counted(self, command, check_health=True):
        parts = [command] if isinstance(command, (bytes, str)) else command
        data = b"".join(p.encode() if isinstance(p, str) else bytes(p) for p in parts)
        if b"probe" in data:
            sent.append(data)
        return await real(self, command, check_health)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", counted)
    far = ["far1", "far2", "far3"]
    for i in range(3):
        for node in far:
            a.app.cluster.send(node, {"k": "probe", "i": i})
    r = a.app.cluster.redis
    end = asyncio.get_running_loop().time() + 10
    while [await r.xlen("gb:node:" + n) for n in far] != [1, 1, 1]:
        assert asyncio.get_running_loop().time() < end, "not written in time"
        await asyncio.sleep(0.02)
    assert len(sent) == 1
    for node in far:
        [(_, fields)] = await r.xrange("gb:node:" + node)
        assert [m["i"] for m in unpack_all(fields[b"m"])] == [0, 1, 2]
    await r.delete(*("gb:node:" + n for n in far))
