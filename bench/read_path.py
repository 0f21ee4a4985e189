"""The read path alone: what one client frame costs from the transport's ``data_received`` to the
message handler, in websockets' asyncio implementation (``ServerConnection``, a reading task with
``async for message in ws``: how the server read until 2 Dec 2026) and in ``server.wsconn`` (websockets'
Sans-I/O ``ServerProtocol`` driven from our own protocol, the message handled on the read callback).

    python bench/read_path.py [--mode asyncio|sansio|none] [--frames N] [--smoke]

A transport that swallows what is written; N masked binary frames of an ``act`` message, each in its
own ``data_received`` (as a closed-loop client sends them), the event loop run until the handler has
it. ``none``: a protocol that only counts the frames (what the driver itself costs). Prints the CPU
time per frame. For instruction counts, run it under cachegrind with N and with 0
frames and divide the difference by N (docs/performance.md "The read path on websockets' Sans-I/O layer"):

    valgrind --tool=cachegrind --cache-sim=no python bench/read_path.py --mode sansio --frames 20000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

import msgpack
from websockets.http11 import Request
from websockets.datastructures import Headers
from websockets.protocol import State
from websockets.server import ServerProtocol

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MASK = b"\x11\x22\x33\x44"
MODES = ("asyncio", "sansio", "none")


def frame(payload: bytes) -> bytes:
    """One masked binary client frame (RFC 6455 5.2), payload under 126 bytes."""
    masked = bytes(b ^ MASK[i % 4] for i, b in enumerate(payload))
    return bytes((0x82, 0x80 | len(payload))) + MASK + masked


class Transport(asyncio.Transport):
    def __init__(self):
        super().__init__()
        self.written = 0

    def write(self, data) -> None:
        self.written += len(data)

    def get_write_buffer_size(self) -> int:
        return 0

    def set_write_buffer_limits(self, high=None, low=None) -> None:
        pass

    def get_extra_info(self, name, default=None):
        return ("127.0.0.1", 1) if name == "peername" else default

    def is_closing(self) -> bool:
        return False

    def can_write_eof(self) -> bool:
        return True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


class Counting(asyncio.Protocol):
    """Every read is a message: the driver's own cost."""

    def __init__(self, on_message):
        self.data_received = on_message


def asyncio_connection(on_message):
    """websockets' asyncio server connection, open, with a handler task reading its messages."""
    from websockets.asyncio.server import ServerConnection

    class Stub:  # what ServerConnection asks of its server: a handler and a set of handler tasks
        handler_tasks: set = set()

        async def handler(self, ws) -> None:
            async for message in ws:
                on_message(message)

    conn = ServerConnection(ServerProtocol(state=State.OPEN, max_size=16 * 1024), Stub(),
                            ping_interval=None, close_timeout=5.0, write_limit=64 * 1024)
    conn.request = Request("/ws", Headers())  # the handshake is behind it
    return conn


def sansio_connection(on_message):
    """server.wsconn's connection, open, its messages handed to ``on_message``."""
    from server.wsconn import MessageConnection, Options, Server

    async def process_request(connection, request):
        return None

    def opened(ws) -> None:
        ws.on_message = on_message

    server = Server(Options(handler=opened, process_request=process_request, max_size=16 * 1024,
                            write_limit=64 * 1024, open_timeout=10.0, close_timeout=5.0))
    conn = MessageConnection(server)
    conn.protocol = ServerProtocol(state=State.OPEN, max_size=16 * 1024)  # the handshake is behind it
    return conn, opened


async def run(mode: str, n: int) -> float:
    got = [0]

    def on_message(message) -> None:
        got[0] += 1

    if mode == "asyncio":
        conn = asyncio_connection(on_message)
        conn.connection_made(Transport())
    elif mode == "none":
        conn = Counting(on_message)
    else:
        conn, opened = sansio_connection(on_message)
        conn.connection_made(Transport())
        opened(conn)
    data = frame(msgpack.packb({"t": "act", "action": {"a": "discard", "tile": "5m", "seq": 123}, "id": 77}))
    await asyncio.sleep(0)
    t0 = time.process_time()
    for i in range(1, n + 1):
        conn.data_received(data)
        while got[0] < i:  # the loop runs until the handler has the message
            await asyncio.sleep(0)
        await asyncio.sleep(0)  # one turn of the loop per read, as the server's
    return time.process_time() - t0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", choices=MODES, help="one of them (default: each in turn)")
    p.add_argument("--frames", type=int, default=200_000)
    p.add_argument("--smoke", action="store_true", help="a few thousand frames (tests/test_bench_smoke.py)")
    args = p.parse_args()
    frames = 2_000 if args.smoke else args.frames
    for mode in [args.mode] if args.mode else MODES:
        spent = asyncio.run(run(mode, frames))
        if frames:
            print(f"{mode}: {frames} frames, {spent / frames * 1e6:.2f} µs CPU a frame (pid {os.getpid()})")


if __name__ == "__main__":
    main()
