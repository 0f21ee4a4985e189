"""``guobiao serve --count-loopback``: loopback clients meet the per-address limits like any address (for a
server with no reverse proxy in front, and for bench/hostile.py, whose attacker connects over loopback)."""

import asyncio
import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from server.app import Limits

ROOT = Path(__file__).resolve().parents[2]


async def _open_until_refused(port: int, n: int) -> int | None:
    """Open ``n`` websockets; the HTTP status of the first refused handshake, or None."""
    async with contextlib.AsyncExitStack() as stack:
        for _ in range(n):
            try:
                await stack.enter_async_context(connect(f"ws://127.0.0.1:{port}/ws", compression=None))
            except InvalidStatus as e:
                return e.response.status_code
    return None


@pytest.mark.parametrize("count_loopback", [False, True])
async def test_count_loopback_applies_the_per_address_limit_to_loopback(tmp_path, count_loopback):
    argv = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", str(tmp_path / "g.db"),
            "--log-level", "WARNING"] + (["--count-loopback"] if count_loopback else [])
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 20)
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        refused = await _open_until_refused(port, Limits().per_address + 1)
        assert refused == (429 if count_loopback else None)
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()
