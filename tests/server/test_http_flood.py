"""A client opening short HTTP connections as fast as it can: what each one leaves in reference cycles
is freed as it goes (server.gctune), not kept until a full sweep that may be minutes away."""

import asyncio
import gc

import pytest

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
