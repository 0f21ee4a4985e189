"""Loop time of a big tournament's changes, in process: what one hand result and one registration cost.

    python bench/tournament.py [--players 1024] [--registered 400] [--samples 15] [--smoke] [--json]

The server's whole path without sockets: an App on a temporary SQLite database, every player signed in
on a stand-in connection (server/conn.py frames and writes each message to a transport that counts the
bytes) and following the tournament, as the browser client does while its player is at a table.
Measured, each by calling the tournament task's ``step`` with the item the server would queue:

- registration: the ``register`` command of player ``--registered`` (the others registered before);
- hand result: a table's hand result (``hand_result`` from its room), in a ``--players`` tournament
  whose first session is seated (``--players``/4 tables, every player online and following).

- session start: the organiser's ``start`` (``step``, as above), and then again in a third tournament with
  its task and its tables' rooms running, until every table has reported who took their seats; for that
  one *loop* is the longest stretch the event loop was held (the most a 1 ms timer fired late).

Printed per item (medians): loop time (the wall time of ``step`` less its wait for the SQLite write,
which runs on the store's thread), process CPU (that thread's included), wall time, messages and bytes
written. ``--smoke`` runs a small field, for the tests. The clock is frozen: no timer acts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


class Transport:
    def __init__(self, counter):
        self.counter = counter

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name, default=None):
        return default

    def write(self, data) -> None:
        self.counter[0] += 1
        self.counter[1] += len(data)

    def can_write_eof(self) -> bool:
        return True

    def abort(self) -> None:  # pragma: no cover
        raise AssertionError("a bench connection was cut off")


class Protocol:
    def __init__(self):
        from websockets.protocol import OPEN

        self.state = OPEN


class WS:
    remote_address = ("127.0.0.1", 0)

    def __init__(self, counter):
        from websockets.protocol import OPEN

        self.transport = Transport(counter)
        self.protocol = Protocol()
        self.state = OPEN

    async def send(self, data) -> None:  # pragma: no cover - the buffer is never full here
        self.transport.write(data)

    async def close(self, code=1000, reason="") -> None:  # pragma: no cover
        pass


class Bench:
    def __init__(self, app, counter):
        self.app, self.counter = app, counter
        self.conns = {}

    async def sign_in(self, n: int) -> list[str]:
        from server.conn import Conn

        ids = []
        for i in range(n):
            pid = f"p{i:05d}"  # names come from the connections (App.display_names)
            conn = Conn(WS(self.counter), self.app.limits, 0.0)
            conn.player, conn.name = pid, f"b{i}"
            self.app.conns[pid] = conn
            self.conns[pid] = conn
            ids.append(pid)
        return ids

    async def timed(self, task, item) -> dict:
        """``task.step(item)``: its loop time is the wall time less the wait for its SQLite write (done on
        the store's thread; the loop is free meanwhile and nothing else runs in this process)."""
        store = self.app.store
        write = store.write_tournament
        waited = [0.0]

        async def timed_write(*a, **kw):
            t0 = time.perf_counter()
            try:
                return await write(*a, **kw)
            finally:
                waited[0] += time.perf_counter() - t0

        store.write_tournament = timed_write
        before = list(self.counter)
        w0, c0 = time.perf_counter(), time.process_time()
        try:
            await task.step(item)
        finally:
            del store.write_tournament
        w1, c1 = time.perf_counter(), time.process_time()
        return {"loop_ms": (w1 - w0 - waited[0]) * 1e3, "wall_ms": (w1 - w0) * 1e3, "cpu_ms": (c1 - c0) * 1e3,
                "messages": self.counter[0] - before[0], "bytes": self.counter[1] - before[1]}


def _summary(samples: list[dict]) -> dict:
    """Medians, and the largest loop time."""
    out = {k: statistics.median(s[k] for s in samples) for k in samples[0]}
    out["max_loop_ms"] = max(s["loop_ms"] for s in samples)
    out["samples"] = len(samples)
    return out


def _req():
    return ("msgpack", None)


async def run(args) -> dict:
    from rooms.tournament import Tournament, TournamentConfig
    from server.app import App, Limits, Settings
    from server.store import Store
    from server.roomitems import STOP, Command, TableEvent

    with tempfile.TemporaryDirectory(prefix="guobiao-tournament-bench-") as tmp:
        store = await Store.open(str(Path(tmp) / "g.db"))
        app = App(store, Settings(limits=Limits(rate=1e9, burst=1e9), series=[]))
        clock = [1_000_000.0]
        app.now = lambda: clock[0]
        counter = [0, 0]
        b = Bench(app, counter)
        n = max(args.players, args.registered)
        ids = await b.sign_in(n + 1)
        org, players = ids[0], ids[1:]
        out = {"players": args.players, "registered": args.registered}

        async def tournament(name: str, size: int, registered: list[str], run: bool = False):
            """A tournament with ``registered`` signed up (by its core: a server that pushed whole views
            would take hours to register a thousand) and following it, as the organiser is."""
            config = TournamentConfig(name=name, max_players=size, hands=16, sessions=2, seating="swiss",
                                      checkin_required=False)
            t = Tournament.create(f"t{len(app.tournaments):08x}", config, org, org, bytes(32), clock[0])
            for pid in registered:
                t.handle(pid, {"t": "register"}, clock[0])
            task = await app.add_tournament(t, org)
            if not run:
                task.put(STOP)  # the bench calls ``step`` itself: nothing else may change the tournament
                await task.task
            task.followers.update([org, *registered])
            return task

        # -- registration: the ``registered``-th one --------------------------------------------------
        task = await tournament("Registration Cup", max(args.registered + args.samples, 4),
                                players[:args.registered - 1])
        samples = []
        for pid in players[args.registered - 1:args.registered - 1 + args.samples]:
            samples.append(await b.timed(task, Command(pid, b.conns[pid], _req(), {"t": "register"})))
            await task.step(Command(pid, b.conns[pid], _req(), {"t": "unregister"}))  # back to registered - 1
        out["registration"] = _summary(samples)

        # -- hand results in a seated field -------------------------------------------------------------
        task = await tournament("Hand Cup", args.players, players[:args.players])
        out["session_start"] = await b.timed(task, Command(org, b.conns[org], _req(), {"t": "start"}))
        await asyncio.sleep(0.2)  # the tables deal (the rooms play no further part here)
        rooms = list(app.rooms.values())
        for room in rooms:
            room.put(STOP)
        await asyncio.gather(*(r.task for r in rooms if r.task is not None), return_exceptions=True)
        tables = [x for x in task.t.sessions[0].tables]
        samples = []
        for i in range(args.samples):
            x = tables[i % len(tables)]
            rec = {"match": 1, "hand": len(x.hands), "deltas": [8, -8, 0, 0], "winner": 0, "discarder": 1,
                   "self_drawn": False, "total": 8, "fans": []}
            samples.append(await b.timed(task, TableEvent(x.key, {"t": "hand_result", "record": rec})))
        out["hand_result"] = _summary(samples)
        out["session_start_whole"] = await _whole_start(app, b, await tournament("Start Cup", args.players,
                                                                                  players[:args.players], run=True))
        await app.stop()
        return out


async def _whole_start(app, b, task) -> dict:
    """A session start as the server runs it: the tournament's task and its tables' rooms running, until
    every table has reported its seats. Measured: process CPU and the longest stretch the event loop was
    held (how late a 1 ms timer fired at most: what any other room's action would have waited), and the
    most CPU the loop's thread spent between two of that timer's turns."""
    from server import gctune
    from server.roomitems import Command

    gctune.tune()  # the collector as a serving App sets it (its thresholds; what exists is frozen)
    loop = asyncio.get_running_loop()
    lags, done = [], asyncio.Event()

    async def ticker():
        while not done.is_set():
            due, cpu = loop.time() + 0.001, time.thread_time()
            await asyncio.sleep(0.001)
            # late by (wall); and the loop thread's CPU meanwhile, which the machine's load does not swell
            lags.append((max(0.0, loop.time() - due), time.thread_time() - cpu))

    watch = loop.create_task(ticker())
    org = task.t.organiser
    before = list(b.counter)
    w0, c0 = time.perf_counter(), time.process_time()
    task.put(Command(org, b.conns[org], _req(), {"t": "start"}))
    while not (task.t.sessions[0].tables and all(x.watched for x in task.t.sessions[0].tables)
               and task.queue.empty() and not task.retrying):
        await asyncio.sleep(0.01)
    w1, c1 = time.perf_counter(), time.process_time()
    done.set()
    await watch
    return {"loop_ms": max(w for w, _ in lags) * 1e3, "loop_cpu_ms": max(c for _, c in lags) * 1e3, "wall_ms": (w1 - w0) * 1e3, "cpu_ms": (c1 - c0) * 1e3,
            "messages": b.counter[0] - before[0], "bytes": b.counter[1] - before[1]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=1024)
    ap.add_argument("--registered", type=int, default=400)
    ap.add_argument("--samples", type=int, default=15, help="hand results and registrations measured")
    ap.add_argument("--smoke", action="store_true", help="a small field (64 players, 40 registrations)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.smoke:
        args.players, args.registered, args.samples = 64, 40, 3
    out = asyncio.run(run(args))
    if args.json:
        print(json.dumps(out))
        return
    for name, what in (("registration", f"registration at {out['registered']} registered"),
                       ("hand_result", f"hand result, {out['players']} players"),
                       ("session_start", f"session start, {out['players']} players"),
                       ("session_start_whole", f"session start with its seat reports, {out['players']} players"
                                               " (loop: the longest stretch)")):
        r = out[name]
        held = f" (CPU {r['loop_cpu_ms']:.2f} ms)" if "loop_cpu_ms" in r else ""
        print(f"{what}: loop {r['loop_ms']:.2f} ms{held} (median of {r.get('samples', 1)}; max "
              f"{r.get('max_loop_ms', r['loop_ms']):.2f}), CPU {r['cpu_ms']:.2f} ms, wall {r['wall_ms']:.2f} ms, "
              f"{r['messages']:.0f} messages, {r['bytes']:.0f} bytes")


if __name__ == "__main__":
    main()
