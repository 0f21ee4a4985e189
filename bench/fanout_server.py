"""The reference for bench/load.py --baseline: a minimal websockets fan-out server, no game.

    python bench/fanout_server.py --port 8800
    python bench/fanout_server.py --smoke     # a few seconds of bench/loadgen.py's tables against it

It speaks just enough of docs/protocol.md for bench/loadgen.py's tables (guest, create, join, ready,
act, leave, rematch, ping) and nothing else: no database, no rules, no validation beyond msgpack. An
``act`` is decoded and answered by one ~100-byte msgpack ``game`` message to each of the table's four
seats (the next seat's copy carries the prompt, the others the actor's request id), sent with
``websockets``' own ``broadcast``. Same websockets settings as the Guobiao server (no compression, no
websocket pings, TCP keepalive).
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import signal

import msgpack
from websockets.asyncio.server import broadcast, serve
from websockets.exceptions import ConnectionClosed

from server.conn import set_keepalive

packb = msgpack.Packer(use_bin_type=True).pack


class Table:
    __slots__ = ("id", "code", "seats", "ready", "rseq", "turn", "tile")

    def __init__(self):
        self.id = "r" + secrets.token_hex(4)
        self.code = secrets.token_hex(4).upper()
        self.seats: list = []  # websockets
        self.ready: set = set()
        self.rseq = 0
        self.turn = 0
        self.tile = 0


TABLES: dict[str, Table] = {}


def prompt(t: Table) -> dict:
    return {"t": "game", "room": t.id, "rseq": t.rseq, "legal": [{"a": "discard", "tile": t.tile % 34}],
            "to_act": True, "seq": t.rseq}


async def handler(ws) -> None:
    table: Table | None = None
    set_keepalive(ws.transport.get_extra_info("socket"), 60, 10, 3)
    try:
        async for frame in ws:
            msg = msgpack.unpackb(frame)
            t, rid = msg["t"], msg.get("id")
            if t == "act":
                a = msg["action"]
                seat = table.seats.index(ws)
                table.rseq += 1
                table.turn = (seat + 1) % 4
                table.tile += 7
                ev = [{"t": "discard", "seat": seat, "tile": a.get("tile", 0), "hand": 0}]
                others = packb({"t": "game", "room": table.id, "rseq": table.rseq, "events": ev, "legal": [],
                                "to_act": False, "seq": table.rseq, "re": rid})
                nxt = table.seats[table.turn]
                broadcast([s for s in table.seats if s is not nxt], others)
                p = prompt(table)
                p["events"] = ev
                broadcast([nxt], packb(p))
            elif t == "guest":
                await ws.send(packb({"t": "welcome", "player": "p" + secrets.token_hex(6), "name": msg.get("name"),
                                     "token": secrets.token_hex(16), "room": None, "queued": None, "re": rid}))
            elif t == "create":
                table = Table()
                TABLES[table.code] = table
                table.seats.append(ws)
                await ws.send(packb({"t": "snapshot", "room": table.id, "rseq": 0, "re": rid, "game": None,
                                     "info": {"id": table.id, "invite": table.code, "phase": "lobby"},
                                     "you": {"seat": 0}}))
            elif t == "join":
                table = TABLES[msg["code"]]
                table.seats.append(ws)
                await ws.send(packb({"t": "snapshot", "room": table.id, "rseq": 0, "game": None,
                                     "info": {"id": table.id, "invite": table.code, "phase": "lobby"},
                                     "you": {"seat": len(table.seats) - 1}}))
                await ws.send(packb({"t": "ok", "re": rid}))
            elif t in ("ready", "rematch"):
                table.ready.add(ws)
                await ws.send(packb({"t": "ok", "re": rid}))
                if len(table.ready) == 4:
                    table.ready.clear()
                    table.turn = 0
                    await table.seats[0].send(packb(prompt(table)))
            elif t == "leave":
                await ws.send(packb({"t": "ok", "re": rid}))
            elif t == "ping":
                await ws.send(packb({"t": "pong", "re": rid}))
    except ConnectionClosed:
        pass


async def main(port: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with serve(handler, "127.0.0.1", port, compression=None, max_size=16 * 1024, max_queue=16,
                     write_limit=64 * 1024, ping_interval=None, close_timeout=5.0):
        await stop.wait()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int)
    ap.add_argument("--loop", default="asyncio", choices=("asyncio", "uvloop"),
                    help="the event loop (bench/load.py --loop gives both servers the same one)")
    ap.add_argument("--smoke", action="store_true", help="start one and drive two tables against it for two seconds")
    args = ap.parse_args()
    if args.smoke:
        import sys
        from pathlib import Path

        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from bench.loadgen import smoke_main

        sys.exit(smoke_main(["--smoke"], baseline=True))
    if args.port is None:
        ap.error("--port is required")
    if args.loop == "uvloop":
        import uvloop  # pip install 'guobiao[uvloop]'

        uvloop.run(main(args.port))
    else:
        asyncio.run(main(args.port))
