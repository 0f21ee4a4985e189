"""CPU per action, in process: four human seats playing random legal actions, as bench/load.py's tables do.

    python bench/room_cpu.py [--level room|server] [--actions 20000] [--seed 1] [--profile out.prof] [--top 30]
                             [--smoke]

``--level room``: ``Room.handle`` alone (rooms/ and game/: the messages are built, not sent).
``--level server`` (default): the server's whole path without sockets: each action is a msgpack frame
given to ``App.on_frame``; the room task commits to a real SQLite database (a temporary file) and every
message is encoded and handed to a stand-in websocket whose client decodes it. ``--tables`` tables play
at once (each one action at a time), so that writes share commits as under load; the server's collector
task runs. What the websocket library and the kernel do per frame is not included (bench/load.py
measures that).

The room is bench/loadgen.py's (four hands, ``claim_min`` 0, private); seats answer their last prompt
with a random legal action (a win whenever offered) and, after a match, ask for a rematch. The clock
advances 1 s per action, so no timer acts for a seat. CPU is process time (``time.process_time``: every
thread of this process, SQLite's included), which other work on a shared machine does not inflate; the
stand-in clients' own decoding is measured and taken off. Printed: µs of CPU per action, messages and
bytes out per action, and, with ``--profile``, the functions that take the time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import random
import sys
import tempfile
import time
from pathlib import Path

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.loadgen import ROOM_CONFIG  # noqa: E402
from rooms.config import RoomConfig  # noqa: E402
from rooms.room import LOBBY, Room  # noqa: E402
from server import gctune  # noqa: E402

SECRET = bytes(range(32))
PIDS = ("p0", "p1", "p2", "p3")


def choose(rng: random.Random, legal: list) -> dict:
    for a in legal:
        if a["a"] == "win":
            return a
    return legal[rng.randrange(len(legal))]


# -- room level ----------------------------------------------------------------------------------

class RoomDriver:
    """The room alone: commands through ``Room.handle``, prompts read from its outbound messages."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.now = 1000.0
        self.room = Room.create("r1", RoomConfig.from_dict(ROOM_CONFIG), "p0", "ABCD2345", SECRET, self.now)
        self.prompts: dict[str, tuple] = {}
        self.msgs = 0
        self.actions = 0
        self.room.take_log()
        for pid in PIDS[1:]:
            self.cmd(pid, {"t": "join", "code": "ABCD2345"})
        for pid in PIDS:
            self.cmd(pid, {"t": "ready"})

    def take(self, out) -> None:
        self.msgs += len(out)
        for to, msg in out:
            if msg.get("t") == "game":
                legal = msg.get("legal")
                self.prompts[to] = (legal, msg["seq"]) if legal else None

    def cmd(self, pid: str, cmd: dict) -> None:
        self.now += 1.0
        self.take(self.room.render(self.room.handle(pid, cmd, self.now)))
        self.room.take_log()

    def step(self) -> None:
        room = self.room
        if room.phase == LOBBY:
            for pid in PIDS:
                self.cmd(pid, {"t": "rematch"})
            return
        ready = [p for p in PIDS if self.prompts.get(p)]
        if not ready:  # never with claim_min 0 and four humans; a timer would act
            self.now = max(self.now, room.next_deadline() or self.now)
            self.take(room.render(room.tick(self.now)))
            room.take_log()
            return
        pid = ready[self.rng.randrange(len(ready))]
        legal, seq = self.prompts.pop(pid)
        self.cmd(pid, {"t": "act", "action": {**choose(self.rng, legal), "seq": seq}})
        self.actions += 1


def run_room(args) -> dict:
    d = RoomDriver(args.seed)
    for _ in range(args.warmup):
        d.step()
    d.msgs = d.actions = 0
    prof = cProfile.Profile() if args.profile or args.top else None
    gctune.tune()  # the server's collector settings
    t0 = time.process_time()
    if prof:
        prof.enable()
    while d.actions < args.actions:
        d.step()
    if prof:
        prof.disable()
    cpu = time.process_time() - t0
    return {"level": "room", "actions": d.actions, "cpu_s": cpu, "us_per_action": 1e6 * cpu / d.actions,
            "msgs_per_action": d.msgs / d.actions, "bytes_per_action": None, "profile": prof}


# -- server level --------------------------------------------------------------------------------

def payloads(data: bytes):
    """The payloads of the unmasked frames a server writes (RFC 6455 5.2)."""
    i = 0
    while i < len(data):
        n = data[i + 1]
        i += 2
        if n == 126:
            n, i = int.from_bytes(data[i:i + 2], "big"), i + 2
        elif n == 127:
            n, i = int.from_bytes(data[i:i + 8], "big"), i + 8
        yield data[i:i + n]
        i += n


class FakeTransport:
    """What server.conn uses of a transport: an empty write buffer, write() and abort(). Frames written
    here (server/conn.py frames messages itself) reach the client."""

    def __init__(self, client):
        self.client = client

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name, default=None):
        return default

    def write(self, data) -> None:
        for payload in payloads(data):
            self.client.receive(payload)

    def can_write_eof(self) -> bool:
        return True

    def abort(self) -> None:  # pragma: no cover - the harness never is too slow
        raise AssertionError("a harness connection was cut off")


class FakeProtocol:
    """websockets' Sans-I/O protocol as server.conn uses it (older versions framed messages with it):
    frames handed to the stand-in client."""

    def __init__(self, client):
        from websockets.protocol import OPEN

        self.state = OPEN
        self.client = client

    def send_binary(self, data) -> None:
        self.client.receive(data)

    def send_text(self, data) -> None:  # pragma: no cover - the harness speaks msgpack
        self.client.receive(data)

    def data_to_send(self) -> list:
        return []


class FakeWS:
    """A stand-in for a websockets server connection: the client decodes every frame it is given."""

    remote_address = ("127.0.0.1", 0)

    def __init__(self, client):
        self.client = client
        self.transport = FakeTransport(client)
        self.protocol = FakeProtocol(client)
        self.state = self.protocol.state  # what server.conn checks (websockets' public ``state``)

    def send_data(self) -> None:
        pass

    async def send(self, data) -> None:  # the queued path (never taken: the buffer is always empty)
        self.client.receive(data)

    async def close(self, code=1000, reason="") -> None:  # pragma: no cover
        pass


class Client:
    def __init__(self, driver, i: int):
        self.driver, self.i = driver, i
        self.conn = None
        self.prompt = None
        self.waiting: dict = {}  # request id -> future

    def receive(self, data) -> None:
        d = self.driver
        t0 = time.process_time()
        d.msgs += 1
        d.bytes += len(data)
        msg = msgpack.unpackb(data, strict_map_key=False)
        t = msg.get("t")
        if t == "game":
            legal = msg.get("legal")
            self.prompt = (legal, msg["seq"]) if legal else None
        elif t == "snapshot":
            g = msg.get("game")
            if g and g.get("legal"):
                self.prompt = (g["legal"], g["match"]["seq"])
        fut = self.waiting.pop(msg.get("re"), None)
        if fut is not None:
            fut.set_result(msg)
        d.client_cpu += time.process_time() - t0


def _waiting(conn) -> int:
    """Messages a connection still holds (a deque here; an asyncio.Queue in older server/conn.py, which
    this harness measures too)."""
    q = conn.queue
    return q.qsize() if isinstance(q, asyncio.Queue) else len(q)


class ServerDriver:
    def __init__(self, app, seed: int):
        from server.conn import Conn

        self.app = app
        self.rng = random.Random(seed)
        self.clients = [Client(self, i) for i in range(4)]
        for c in self.clients:
            c.conn = Conn(FakeWS(c), app.limits, app.loop.time())
        self.ids = 0
        self.msgs = self.bytes = 0
        self.actions = 0
        self.client_cpu = 0.0  # the stand-in clients' decoding: not the server's

    async def request(self, c: Client, msg: dict) -> dict:
        self.ids += 1
        rid = self.ids
        fut = c.waiting[rid] = asyncio.get_running_loop().create_future()
        await self.app.on_frame(c.conn, msgpack.packb({**msg, "id": rid}))
        async with asyncio.timeout(10):
            r = await fut
        # The other seats' updates were queued before the reply: let their writers run.
        while any(_waiting(x.conn) for x in self.clients):
            await asyncio.sleep(0)
        return r

    async def setup(self) -> None:
        c0 = self.clients[0]
        for c in self.clients:
            r = await self.request(c, {"t": "guest", "name": f"s{c.i}"})
            assert r["t"] == "welcome", r
            c.conn.player, c.conn.name = r["player"], r["name"]
        snap = await self.request(c0, {"t": "create", "config": ROOM_CONFIG})
        code = snap["info"]["invite"]
        for c in self.clients[1:]:
            assert (await self.request(c, {"t": "join", "code": code}))["t"] == "ok"
        for c in self.clients:
            assert (await self.request(c, {"t": "ready"}))["t"] == "ok"

    async def step(self) -> None:
        task = self.app.where[self.clients[0].conn.player]
        if task.room.phase == LOBBY:
            for c in self.clients:
                assert (await self.request(c, {"t": "rematch"}))["t"] == "ok"
            return
        ready = [c for c in self.clients if c.prompt]
        assert ready, "four humans with claim_min 0: somebody always has a prompt"
        c = ready[self.rng.randrange(len(ready))]
        legal, seq = c.prompt
        c.prompt = None
        r = await self.request(c, {"t": "act", "action": {**choose(self.rng, legal), "seq": seq}})
        assert r["t"] == "ok", r
        self.actions += 1


async def run_server_async(args) -> dict:
    from server.app import App, Limits, Settings
    from server.store import Store
    from server.roomitems import STOP

    k = args.tables
    with tempfile.TemporaryDirectory(prefix="guobiao-roomcpu-") as tmp:
        store = await Store.open(Path(tmp) / "g.db")
        settings = Settings(limits=Limits(rate=1e9, burst=1e9), series=[])
        app = App(store, settings)
        clock = [1000.0]
        app.now = lambda: clock[0]
        drivers = [ServerDriver(app, args.seed * 1000 + i) for i in range(k)]
        for d in drivers:
            await d.setup()

        async def play(d, n):
            for _ in range(n):
                clock[0] += 1.0 / k  # about 1 s of room time between a table's actions
                await d.step()

        await asyncio.gather(*(play(d, max(1, args.warmup // k)) for d in drivers))
        for d in drivers:
            d.msgs = d.bytes = d.actions = 0
            d.client_cpu = 0.0
        prof = cProfile.Profile() if args.profile or args.top else None
        gctune.tune()  # as App.start does, and its collector task (older servers had none)
        collector = asyncio.create_task(gctune.run(600.0)) if hasattr(gctune, "run") else None
        t0 = time.process_time()
        if prof:
            prof.enable()
        await asyncio.gather(*(play(d, args.actions // k) for d in drivers))
        if prof:
            prof.disable()
        client_cpu = sum(d.client_cpu for d in drivers)
        cpu = time.process_time() - t0 - client_cpu
        if collector is not None:
            collector.cancel()
        for t in app.rooms.values():
            t.put(STOP)
        await asyncio.gather(*(t.task for t in app.rooms.values()), return_exceptions=True)
        for d in drivers:
            for c in d.clients:
                if getattr(c.conn, "writer", None) is not None:
                    c.conn.writer.cancel()
        await store.close()
    actions = sum(d.actions for d in drivers)
    return {"level": f"server, {k} tables", "actions": actions, "cpu_s": cpu, "us_per_action": 1e6 * cpu / actions,
            "msgs_per_action": sum(d.msgs for d in drivers) / actions,
            "bytes_per_action": sum(d.bytes for d in drivers) / actions, "profile": prof, "client_cpu_s": client_cpu}


def run_server(args) -> dict:
    return asyncio.run(run_server_async(args))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--level", choices=("room", "server"), default="server")
    ap.add_argument("--actions", type=int, default=20_000, help="actions measured")
    ap.add_argument("--warmup", type=int, default=500, help="actions played before measuring")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tables", type=int, default=32, help="server level: tables playing at once")
    ap.add_argument("--repeat", type=int, default=1, help="runs (the figures of each, then the best)")
    ap.add_argument("--profile", default=None, help="write cProfile stats here")
    ap.add_argument("--top", type=int, default=0, help="print the top N functions by own time")
    ap.add_argument("--smoke", action="store_true", help="smallest sizes, a few seconds (tests/test_bench_smoke.py)")
    args = ap.parse_args(argv)
    if args.smoke:
        args.actions, args.warmup, args.tables, args.repeat = 300, 50, 4, 1
    runs = []
    seed = args.seed
    for i in range(args.repeat):
        args.seed = seed + i  # other hands: the hint caches must not carry over from the last run
        r = (run_room if args.level == "room" else run_server)(args)
        runs.append(r)
        extra = "" if r["bytes_per_action"] is None else f", {r['bytes_per_action']:.0f} bytes out"
        print(f"[{r['level']}] {r['actions']} actions: {r['us_per_action']:.1f} µs CPU per action, "
              f"{r['msgs_per_action']:.2f} messages out per action{extra}"
              + (" (under cProfile: slower)" if r["profile"] else ""), flush=True)
    if args.repeat > 1:
        print(f"best: {min(r['us_per_action'] for r in runs):.1f} µs per action")
    prof = runs[-1]["profile"]
    if prof is not None:
        if args.profile:
            prof.dump_stats(args.profile)
        if args.top:
            st = pstats.Stats(prof)
            st.sort_stats("tottime").print_stats(args.top)
            st.sort_stats("cumulative").print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
