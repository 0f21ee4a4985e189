"""A client opening short HTTP connections as fast as it can: what each one leaves in reference cycles
is freed as it goes (server.gctune), not kept until a full sweep that may be minutes away; and one
address may have only so many HTTP requests answered a second, and so many at once."""

import asyncio
import gc
import json
from types import SimpleNamespace

import pytest

from server.wsconn import MessageConnection
from tests.server.conftest import start, stop

N = 2000


async def get(port: int, path: str) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    head = await reader.readline()
    await reader.read()
    writer.close()
    await writer.wait_closed()
    return head


@pytest.mark.parametrize("path", ["/api/matches/1", "/nothing"])
async def test_http_connection_flood_leaves_no_garbage_for_the_sweep(server, path):
    """2,000 requests one after another, the server's collector running as it does in production
    (a freeze every 0.1 s): the cycles left by each connection (~14 objects, the server's side and
    this client's, which runs in the same process) are freed young. Before, every one of them was
    frozen: a full collection found ~14 objects a request (~2.4 KiB of resident size each)."""
    assert (await get(server.port, path)).split()[1] == b"404"
    gc.unfreeze()
    gc.collect()  # what earlier tests and the start left
    gc.freeze()
    for _ in range(N):
        await get(server.port, path)
    await asyncio.sleep(0.25)  # a freeze after the last one
    gc.unfreeze()
    left = gc.collect()
    gc.freeze()
    assert left / N < 3, f"{left} objects left in cycles by {N} requests"


async def answer(port: int, path: str) -> tuple[int, dict, bytes]:
    """Status, headers (lower-case names) and body of one GET."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    data = await reader.read()
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


async def test_http_requests_from_one_address_are_rate_limited(tmp_path):
    """Past ``Limits.http_rate`` (here a burst of 5), plain HTTP requests from one address are answered
    429 with Retry-After; the websocket handshake is not counted (it has its own limit)."""
    s = await start(str(tmp_path / "h.db"), exempt_loopback=False, http_rate=(0.01, 5))
    try:
        got = [await answer(s.port, "/api/health") for _ in range(7)]
        assert [g[0] for g in got] == [200] * 5 + [429] * 2
        assert json.loads(got[-1][2]) == {"error": "too_many_requests"}
        assert got[-1][1]["retry-after"] == "1"
        c = await s.client(name="Still")
        assert (await c.request({"t": "ping"}))["t"] == "pong"
    finally:
        await stop(s)


async def test_http_connections_open_at_once_from_one_address_are_limited(tmp_path, monkeypatch):
    """At most ``Limits.http_per_address`` HTTP connections from one address are being answered at
    once; the next is answered 429 at once, and a connection that ends frees its place."""
    s = await start(str(tmp_path / "h.db"), exempt_loopback=False, http_per_address=2)
    release = asyncio.Event()
    real = s.app.api

    async def slow(path, *args):
        if path == "/api/slow":
            await release.wait()
            return 200, {"slow": True}
        return await real(path, *args)

    monkeypatch.setattr(s.app, "api", slow)
    try:
        held = [asyncio.create_task(answer(s.port, "/api/slow")) for _ in range(2)]
        for _ in range(1000):
            if s.app.http_open["127.0.0.1"] == 2:
                break
            await asyncio.sleep(0.01)
        status, _, body = await answer(s.port, "/api/health")
        assert (status, json.loads(body)) == (429, {"error": "too_many_connections"})
        release.set()
        assert [(await t)[0] for t in held] == [200, 200]
        for _ in range(1000):
            if not s.app.http_open:
                break
            await asyncio.sleep(0.01)
        assert (await answer(s.port, "/api/health"))[0] == 200
    finally:
        await stop(s)


async def test_http_limits_exempt_loopback_by_default(server):
    burst = int(server.app.limits.http_rate[1])
    assert {(await answer(server.port, "/api/health"))[0] for _ in range(burst + 5)} == {200}


def test_a_request_handled_after_its_client_has_gone_is_not_counted_forever():
    """A request can be answered after its connection was lost (process_request runs later): the
    place it takes is given back at once, not when a loss that already happened is reported."""
    gone = SimpleNamespace(lost=True, on_lost=None)
    calls = []
    MessageConnection.when_lost(gone, lambda: calls.append("freed"))
    assert calls == ["freed"]
    alive = SimpleNamespace(lost=False, on_lost=None)
    MessageConnection.when_lost(alive, lambda: calls.append("later"))
    assert calls == ["freed"] and alive.on_lost is not None
