"""Limits: frame size, rate, slow clients, sign-in and idle timeouts, no compression."""

import asyncio

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.server.conftest import start, stop


async def closed_code(c, timeout=10.0):
    """Read until the connection closes; its close code (None: dropped without a close frame)."""
    async with asyncio.timeout(timeout):
        try:
            while True:
                await c.ws.recv()
        except ConnectionClosed as e:
            return e.rcvd.code if e.rcvd else None


async def test_frame_size(server):
    c = await server.client(name="Big")
    await c.send_raw(b"x" * 5000)
    r = await c.wait_for(lambda m: m.get("t") == "error")
    assert r["code"] == "protocol/too_large"
    assert (await c.request({"t": "ping"}))["t"] == "pong"  # still connected
    await c.send_raw(b"x" * 20000)
    assert await closed_code(c) == 1009


async def test_rate_limit_then_disconnect(tmp_path):
    # close_timeout: the spammer is not reading, so the closing handshake waits for it in vain. A token
    # a second: a loaded machine taking a second longer to read the ten pings still refuses some.
    s = await start(str(tmp_path / "r.db"), rate=1.0, burst=5.0, refused_max=20, close_timeout=0.5)
    try:
        c = await s.client("json", name="Spam")
        for i in range(10):
            await c.send({"t": "ping", "id": i})
        got = [await c.wait_for(lambda m: True) for _ in range(10)]
        assert [m["t"] for m in got].count("pong") <= 6
        assert any(m.get("code") == "protocol/rate_limited" for m in got)
        for i in range(40):
            await c.send({"t": "ping"})
        assert await closed_code(c) == 4003
    finally:
        await stop(s)


async def test_slow_client_is_cut_off(tmp_path):
    s = await start(str(tmp_path / "s.db"), out_queue=8, write_limit=1024)
    try:
        c = await s.client(name="Slow")
        await c.request({"t": "create", "config": {"hands": 4}})
        for i in range(3000):  # snapshots of ~1.5 KB each, never read
            try:
                await c.send({"t": "snapshot"})
            except ConnectionClosed:
                break
        for _ in range(100):
            if c.player not in s.app.conns:
                break
            await asyncio.sleep(0.05)
        assert c.player not in s.app.conns
        assert await closed_code(c) is None  # cut off (no close frame), not closed for sending too fast
        # The player's room goes on without them; they may come back.
        other = await s.client()
        r = await other.request({"t": "resume", "token": c.token})
        assert r["t"] == "welcome" and r["room"] is not None
    finally:
        await stop(s)


async def test_sign_in_timeout(tmp_path):
    # (1 s to sign in: a loaded machine's sign-in of the idle client below may take more than 0.3 s)
    s = await start(str(tmp_path / "t.db"), signin_timeout=1.0, idle_timeout=2.0)
    try:
        c = await s.client()
        assert await closed_code(c, 5) == 4002
        d = await s.client(name="Idle")
        assert await closed_code(d, 5) == 4002
    finally:
        await stop(s)


async def test_compression_is_declined(server):
    async with connect(server.url) as ws:  # offers permessage-deflate by default
        assert ws.response.headers.get("Sec-WebSocket-Extensions") is None
        assert ws.protocol.extensions == []


async def test_private_room_needs_its_code(server):
    a = await server.client(name="Host")
    snap = await a.request({"t": "create", "config": {"hands": 4, "private": True}})
    b = await server.client(name="Guest")
    r = await b.request({"t": "join", "room": snap["room"]})
    assert r["code"] == "room/bad_code"
    r = await b.request({"t": "join", "code": "2345-6789"})
    assert r["code"] == "lobby/no_room"
    r = await b.request({"t": "rooms"})
    assert r["rooms"] == []  # private rooms are not listed
    pub = await server.client(name="Pub")
    snap2 = await pub.request({"t": "create", "config": {"hands": 4, "private": False}})
    r = await b.request({"t": "rooms"})
    assert [x["room"] for x in r["rooms"]] == [snap2["room"]]
    assert (await b.request({"t": "join", "room": snap2["room"]}))["t"] == "ok"
    r = await b.request({"t": "create"})
    assert r["code"] == "lobby/in_room"
    assert (await b.request({"t": "leave"}))["t"] == "ok"
    assert (await b.request({"t": "join", "code": snap["info"]["invite"]}))["t"] == "ok"


async def test_dead_peers_are_found_by_tcp_keepalive_not_websocket_pings(server):
    import socket

    c = await server.client(name="Quiet")
    conn = server.app.conns[c.player]
    sock = conn.ws.transport.get_extra_info("socket")
    assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
    idle, interval, count = server.app.limits.keepalive
    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == idle
    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL) == interval
    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT) == count
    assert conn.ws.ping_timer is None  # no websocket ping timer per connection


async def test_connections_from_one_address_are_limited(tmp_path):
    """Past Limits.per_address open connections from one address, the handshake is refused (HTTP 429);
    a connection that ends frees its place. Loopback is normally exempt: here it is not."""
    from websockets.exceptions import InvalidStatus

    s = await start(str(tmp_path / "a.db"), per_address=2, exempt_loopback=False)
    try:
        first, second = await s.client(name="One"), await s.client(name="Two")
        try:
            await connect(s.url)
            raise AssertionError("a third connection from the same address was accepted")
        except InvalidStatus as e:
            assert e.response.status_code == 429
            assert b"too many connections" in e.response.body
        assert (await first.request({"t": "ping"}))["t"] == "pong"  # the others are not disturbed
        await second.ws.close()
        for _ in range(1000):  # until the server has seen it go
            if s.app.addresses["127.0.0.1"] < 2:
                break
            await asyncio.sleep(0.01)
        third = await s.client(name="Three")
        assert (await third.request({"t": "ping"}))["t"] == "pong"
        first.ws.transport.abort()  # dropped without a close: its place is free once the server sees it
        for _ in range(1000):
            if s.app.addresses["127.0.0.1"] <= 1:
                break
            await asyncio.sleep(0.01)
        assert s.app.addresses["127.0.0.1"] == 1  # the third
    finally:
        await stop(s)


async def test_loopback_is_exempt_by_default(server):
    clients = [await server.client() for _ in range(server.app.limits.per_address + 1)]
    assert (await clients[-1].request({"t": "ping"}))["t"] == "pong"


def test_addresses_are_compared_as_ip_addresses():
    from server.quotas import address_of as _address, is_loopback as _is_loopback

    assert _address("::ffff:203.0.113.7") == "203.0.113.7"  # an IPv4 client of a dual-stack socket
    assert _address("2001:db8::1") == _address("2001:db8::2:3") == "2001:db8::/64"  # one subscriber's /64
    assert _address("2001:db8:0:1::1") != _address("2001:db8::1")
    assert all(_is_loopback(a) for a in ("127.0.0.1", "127.0.0.2", "::1", _address("::ffff:127.0.0.1")))
    assert not any(_is_loopback(a) for a in ("203.0.113.7", _address("2001:db8::1"), "", "unix"))
