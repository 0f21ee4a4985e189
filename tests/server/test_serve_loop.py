"""``guobiao serve --loop``: asyncio's own event loop by default, uvloop when asked (or with auto, when
it is installed); the server plays the same on either."""

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest
from websockets.asyncio.client import connect

from server.cli_serve import loop_factory

ROOT = Path(__file__).resolve().parents[2]


def test_the_loop_choices(monkeypatch):
    assert loop_factory("asyncio") is None
    monkeypatch.setitem(sys.modules, "uvloop", None)  # as if it were not installed
    assert loop_factory("auto") is None
    with pytest.raises(OSError, match="uvloop is not installed"):
        loop_factory("uvloop")


async def test_the_server_plays_on_uvloop(tmp_path):
    uvloop = pytest.importorskip("uvloop")
    assert loop_factory("uvloop") is uvloop.new_event_loop and loop_factory("auto") is uvloop.new_event_loop
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", str(tmp_path / "g.db"),
         "--log-level", "WARNING", "--loop", "uvloop"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 20)
        second = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 5)
        assert "event loop: uvloop" in second, second
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        async with connect(f"ws://127.0.0.1:{port}/ws", compression=None) as ws:
            await ws.send(msgpack.packb({"t": "guest", "name": "Loop", "id": 1}))
            assert msgpack.unpackb(await asyncio.wait_for(ws.recv(), 10))["t"] == "welcome"
            data = msgpack.packb({"t": "ping", "id": 2})
            await ws.send([data[:3], data[3:]])  # one message in two frames
            reply = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 10))
            assert (reply["t"], reply["re"]) == ("pong", 2)
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()
