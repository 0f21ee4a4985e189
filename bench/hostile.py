"""Hostile clients against a bystander table: what one attacker costs the players who did nothing wrong.

    python bench/hostile.py [--phase-seconds 20] [--rate 2] [--ghosts 1000] [--registrations 400]
                            [--rooms 500] [--strict] [--json out.json] [--smoke]

The server (``guobiao serve``, fresh database in a temporary directory, a free port) runs as a child
process pinned to core 0. This process drives one **bystander table** (bench/loadgen.py: four clients in
a private room, ``--rate`` actions a second for the table, claim windows closing on the last answer,
rematch after every match) and measures each of its actions from the moment it is sent until all four
seats have the update. The hostile client runs as its own process (this script with ``--attack``), one
phase after the other, so that its work does not delay the bystander's clock:

1. ``zero_timers``: a room with every timer 0 (``bot_delay``, ``turn_time``, ``first_turn_time``,
   ``bank``, ``claim_time``, ``claim_min``, ``between_time``), three bots, ``start`` and ``rematch`` as
   soon as a match ends (where the server refuses a timer of 0, the minimum its error names for it);
2. ``snapshot_flood``: connections that never read (the room's host and watchers of that room, whose
   snapshots carry its finished matches) ask for a ``snapshot`` ten times a second, and come back when
   cut off;
3. ``tournament``: a tournament and ``--registrations`` guests that follow it and register;
4. ``room_flood``: ``--rooms`` guests from this address each create a public room and vanish;
5. ``ghost_spectators``: ``--ghosts`` guests watch the bystander's room and drop their connection
   without a close frame;
6. ``replay_thrash``: four HTTP clients cycle ``GET /api/matches/<id>`` over more finished matches than
   the server caches.

Before the first phase and after the last, a quiet phase measures the bystander alone. Printed per
phase: the bystander's action -> all-seats latency (p50, p99, max, samples), the server's RSS (VmRSS of
``/proc/<pid>/status``) at the end of the phase and its maximum during it, and what the attacker got
(replies by kind, error codes); at the end the RSS growth from the first quiet phase to the last. Targets
(issue "Hardening", acceptance): every p99 <= 50 ms, RSS growth <= 50 MiB. ``--strict``: exit 1 when one
is missed (otherwise 0 when the run itself worked). ``--smoke``: 2-second phases and small crowds.
The load average is printed with each phase: the machine's other work shows in the latencies too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.loadgen import (  # noqa: E402
    HOST, Generator, ServerProc, free_port, guobiao_argv, percentiles, pin, raise_nofile,
)

PHASES = ("zero_timers", "snapshot_flood", "tournament", "room_flood", "ghost_spectators", "replay_thrash")
TIMERS = ("bot_delay", "turn_time", "first_turn_time", "bank", "claim_time", "claim_min", "between_time")
P99_TARGET_MS = 50.0
RSS_GROWTH_TARGET_MIB = 50.0
_packb = msgpack.Packer(use_bin_type=True).pack


def rss_mib(pid: int) -> float | None:
    """VmRSS of a process, MiB (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


# -- the attacker's clients (websockets: a few hundred connections, not ten thousand) ----------------

class Client:
    """One hostile connection. ``read=False``: after signing in it never reads again."""

    def __init__(self, port: int, counts: Counter):
        self.port, self.counts = port, counts
        self.ws = None
        self.token = self.player = None
        self._id = 0
        self.waiting: dict[int, asyncio.Future] = {}
        self.pushes: list[dict] = []
        self.on_push = None
        self._reader = None

    async def open(self, name: str | None = None, token: str | None = None, read: bool = True) -> dict:
        from websockets.asyncio.client import connect

        self.ws = await connect(f"ws://{HOST}:{self.port}/ws", compression=None, ping_interval=None,
                                max_queue=1 if not read else 64, open_timeout=20, close_timeout=1)
        hello = {"t": "resume", "token": token} if token else {"t": "guest", "name": name}
        if read:
            self._reader = asyncio.get_running_loop().create_task(self._read())
            r = await self.request(hello)
        else:  # read just up to the welcome, then never again
            await self.ws.send(_packb({**hello, "id": 0}))
            async with asyncio.timeout(20):
                while True:
                    r = msgpack.unpackb(await self.ws.recv())
                    if r.get("re") == 0:
                        break
        if r.get("t") != "welcome":
            self.counts[f"sign-in refused: {r.get('code')}"] += 1
            await self.abort()
            raise ConnectionError(r.get("code"))
        self.token, self.player = r["token"], r["player"]
        return r

    async def _read(self) -> None:
        try:
            async for data in self.ws:
                msg = msgpack.unpackb(data)
                fut = self.waiting.pop(msg.get("re"), None) if "re" in msg else None
                if fut is not None and not fut.done():
                    fut.set_result(msg)
                    continue
                if msg.get("t") == "error":
                    self.counts[f"error {msg.get('code')}"] += 1
                if self.on_push is not None:
                    self.on_push(msg)
        except Exception:  # closed, cut off: the attacker does not care
            pass
        for fut in self.waiting.values():
            if not fut.done():
                fut.set_exception(ConnectionError("closed"))

    async def send(self, msg: dict) -> None:
        self._id += 1
        await self.ws.send(_packb({**msg, "id": self._id}))

    async def request(self, msg: dict, timeout: float = 30.0) -> dict:
        self._id += 1
        rid = self._id
        fut = asyncio.get_running_loop().create_future()
        self.waiting[rid] = fut
        await self.ws.send(_packb({**msg, "id": rid}))
        async with asyncio.timeout(timeout):
            r = await fut
        kind = r.get("t")
        self.counts[f"{msg['t']} -> {r.get('code') if kind == 'error' else kind}"] += 1
        return r

    async def abort(self) -> None:
        """Gone without a close frame, as a dropped network would be."""
        if self.ws is not None and self.ws.transport is not None:
            self.ws.transport.abort()
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self.ws.close(), 2)
        except Exception:
            await self.abort()
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)


async def crowd(n: int, parallel: int, deadline: float, counts: Counter, one) -> int:
    """Run ``one(i)`` for i < n, ``parallel`` at a time, until the deadline; returns how many finished."""
    sem = asyncio.Semaphore(parallel)
    done = 0

    async def run(i):
        nonlocal done
        async with sem:
            if time.monotonic() > deadline:
                return
            try:
                await one(i)
                done += 1
            except (ConnectionError, TimeoutError, OSError):
                pass
            except Exception as e:  # the websockets library's own errors
                counts[f"exception {type(e).__name__}"] += 1

    await asyncio.gather(*(run(i) for i in range(n)))
    return done


# -- the phases ----------------------------------------------------------------------------------

async def zero_timers(args, state: dict, counts: Counter, end: float) -> None:
    host = Client(args.port, counts)
    await host.open(name="zero")
    ended = asyncio.Event()
    match_ids = state.setdefault("match_ids", [])

    def on_push(msg):
        if msg.get("t") == "match_result":
            counts["matches finished"] += 1
            ended.set()
        elif msg.get("t") == "reveal" and msg.get("id") is not None:
            match_ids.append(msg["id"])

    host.on_push = on_push
    snap = None
    timers = {k: 0 for k in TIMERS}
    for _ in range(2 * len(TIMERS)):  # each refusal names one timer's minimum: take exactly that
        snap = await host.request({"t": "create", "config": {"hands": 16, "private": True, **timers}})
        if snap.get("t") == "snapshot":
            state["zero_timers_value"] = timers
            break
        low = re.match(r"(\w+): at least ([\d.]+)", snap.get("message", "")) if snap.get("t") == "error" else None
        if low is None or low[1] not in timers:
            break
        timers[low[1]] = float(low[2])
        await asyncio.sleep(0.11)  # within the 10 frames/s of a connection
    if snap is None or snap.get("t") != "snapshot":
        raise RuntimeError(f"no room: {snap}")
    state["host_token"], state["room_code"] = host.token, snap["info"]["invite"]
    for seat in (1, 2, 3):
        await host.request({"t": "add_bot", "seat": seat, "level": "fan"})
    cmd = {"t": "start"}
    while time.monotonic() < end:  # start, then rematch whenever a match has ended
        ended.clear()
        t0 = time.monotonic()
        r = await host.request(cmd, timeout=60)
        counts["seconds inside start/rematch"] += round(time.monotonic() - t0, 3)
        cmd = {"t": "rematch"}
        if r.get("t") == "error":
            await asyncio.sleep(0.2)
            if r.get("code") != "room/in_match":
                continue
        try:
            async with asyncio.timeout(max(0.1, end - time.monotonic())):
                await ended.wait()
        except TimeoutError:
            break
        await asyncio.sleep(0.11)  # within the 10 frames/s of a connection
    await host.close()


async def snapshot_flood(args, state: dict, counts: Counter, end: float) -> None:
    async def flooder(i: int) -> None:
        while time.monotonic() < end:
            c = Client(args.port, counts)
            try:
                if i == 0 and state.get("host_token"):
                    await c.open(token=state["host_token"], read=False)
                else:
                    await c.open(name=f"flood{i}", read=False)
                    await c.send({"t": "watch", "code": state.get("room_code", "")})
                counts["connections"] += 1
                for _ in range(30):  # the burst the rate limit allows, then ten a second
                    await c.send({"t": "snapshot"})
                    counts["snapshot requests"] += 1
                while time.monotonic() < end:
                    await asyncio.sleep(0.1)
                    await c.send({"t": "snapshot"})
                    counts["snapshot requests"] += 1
            except Exception:
                counts["cut off (or refused)"] += 1
                await asyncio.sleep(0.2)
            finally:
                await c.abort()

    await asyncio.gather(*(flooder(i) for i in range(args.flooders)))


async def tournament(args, state: dict, counts: Counter, end: float) -> None:
    org = Client(args.port, counts)
    await org.open(name="organiser")
    r = None
    for size in (1024, 256, 64):
        r = await org.request({"t": "tournament_create", "config": {
            "name": "Hostile Cup", "sessions": 1, "max_players": size, "min_players": 4}})
        if r.get("t") == "tournament":
            break
    if r is None or r.get("t") != "tournament":
        raise RuntimeError(f"no tournament: {r}")
    tid = r["tournament"]["id"]
    clients: list[Client] = [org]

    async def one(i: int) -> None:
        c = Client(args.port, counts)
        await c.open(name=f"reg{i}")
        clients.append(c)
        await c.request({"t": "tournament", "tournament": tid})
        t0 = time.monotonic()
        await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}})
        counts["registration seconds (sum)"] += round(time.monotonic() - t0, 3)

    counts["registered"] = await crowd(args.registrations, 8, end, counts, one)
    await asyncio.sleep(max(0.0, end - time.monotonic()))
    await asyncio.gather(*(c.close() for c in clients))


async def room_flood(args, state: dict, counts: Counter, end: float) -> None:
    async def one(i: int) -> None:
        c = Client(args.port, counts)
        await c.open(name=f"junk{i}")
        await c.request({"t": "create", "config": {"private": False, "hands": 16}})
        await c.abort()

    counts["rooms created"] = await crowd(args.rooms, 8, end, counts, one)
    await asyncio.sleep(max(0.0, end - time.monotonic()))


async def ghost_spectators(args, state: dict, counts: Counter, end: float) -> None:
    async def one(i: int) -> None:
        c = Client(args.port, counts)
        await c.open(name=f"ghost{i}")
        await c.request({"t": "watch", "code": args.bystander_code})
        await c.abort()

    counts["ghosts"] = await crowd(args.ghosts, 8, end, counts, one)
    await asyncio.sleep(max(0.0, end - time.monotonic()))


async def replay_thrash(args, state: dict, counts: Counter, end: float) -> None:
    known = sorted(set(state.get("match_ids", [])))
    ids = known if len(known) >= 32 else list(range(1, max(known + [0]) + 33))

    async def fetcher(k: int) -> None:
        i = k
        while time.monotonic() < end:
            mid = ids[i % len(ids)]
            i += 4
            try:
                reader, writer = await asyncio.open_connection(HOST, args.port)
                writer.write(f"GET /api/matches/{mid} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
                await writer.drain()
                async with asyncio.timeout(30):
                    head = await reader.readline()
                    await reader.read()
                writer.close()
                counts[f"HTTP {head.split()[1].decode() if len(head.split()) > 1 else '?'}"] += 1
            except (OSError, TimeoutError, IndexError):
                counts["HTTP failed"] += 1
                await asyncio.sleep(0.1)

    counts["ids cycled"] = len(ids)
    await asyncio.gather(*(fetcher(k) for k in range(4)))


ATTACKS = {"zero_timers": zero_timers, "snapshot_flood": snapshot_flood, "tournament": tournament,
           "room_flood": room_flood, "ghost_spectators": ghost_spectators, "replay_thrash": replay_thrash}


async def attack(args) -> int:
    """The hostile process: one phase, its counts as JSON on stdout; state carried over in --state."""
    state_path = Path(args.state)
    state = json.loads(state_path.read_text()) if state_path.exists() else {}
    counts: Counter = Counter()
    end = time.monotonic() + args.phase_seconds
    try:
        await ATTACKS[args.attack](args, state, counts, end)
    except Exception as e:  # the figures of a phase that could not run say why
        counts[f"phase failed: {type(e).__name__}: {e}"[:160]] += 1
    state_path.write_text(json.dumps(state))
    print(json.dumps(dict(counts)), flush=True)
    return 0


# -- the bystander and the run --------------------------------------------------------------------

async def measure(gen: Generator, srv: ServerProc, seconds: float, during=None) -> dict:
    """The bystander's latencies and the server's RSS over ``seconds`` (while ``during`` runs, if given)."""
    gen.begin()
    peak = rss_mib(srv.pid) or 0.0
    task = asyncio.get_running_loop().create_task(during) if during is not None else None
    end = time.monotonic() + seconds
    while time.monotonic() < end or (task is not None and not task.done()):
        await asyncio.sleep(0.5)
        peak = max(peak, rss_mib(srv.pid) or 0.0)
        if time.monotonic() > end + 120:  # bounded: an attacker that hangs is cut short
            break
    gen.end()
    result = None
    if task is not None:
        if task.done():
            result = task.result()
        else:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    await asyncio.sleep(1.5)  # the other seats' updates of the last actions
    gen.settle_all()
    lat = percentiles(gen.lat)
    return {"samples": len(gen.lat), **{f"{k}_ms": None if v is None else round(v * 1000, 1) for k, v in lat.items()},
            "rss_mib": round(rss_mib(srv.pid) or 0.0, 1), "rss_peak_mib": round(peak, 1), "hostile": result,
            "loadavg": float(open("/proc/loadavg").read().split()[0])}


async def run_attack(args, port: int, code: str, phase: str, state: Path, seconds: float) -> dict:
    argv = [sys.executable, str(Path(__file__).resolve()), "--attack", phase, "--port", str(port),
            "--bystander-code", code, "--state", str(state), "--phase-seconds", str(seconds),
            "--ghosts", str(args.ghosts), "--registrations", str(args.registrations), "--rooms", str(args.rooms),
            "--flooders", str(args.flooders)]
    proc = await asyncio.create_subprocess_exec(*argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                stdin=subprocess.DEVNULL)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), seconds + 110)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return {"attacker timed out": 1}
    lines = out.decode().strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        return {"attacker failed": proc.returncode, "stderr": err.decode()[-500:]}


def show(name: str, r: dict) -> None:
    hostile = r["hostile"] or {}
    what = ", ".join(f"{k}: {v}" for k, v in sorted(hostile.items()) if k != "stderr")
    print(f"{name:17s} p99 {r['p99_ms']} ms (p50 {r['p50_ms']}, max {r['max_ms']}, {r['samples']} actions); "
          f"server RSS {r['rss_mib']} MiB (peak {r['rss_peak_mib']}); load average {r['loadavg']}", flush=True)
    if what:
        print(f"{'':17s} attacker: {what}", flush=True)


async def main_async(args) -> int:
    raise_nofile()
    pinned = False if args.no_pin else pin(1)
    print(f"command: {' '.join([Path(sys.executable).name] + sys.argv)}; server on core 0, bystander on "
          f"core 1: {pinned}", flush=True)
    out: dict = {"argv": sys.argv, "phase_seconds": args.phase_seconds, "rate": args.rate, "phases": {}}
    with tempfile.TemporaryDirectory(prefix="guobiao-hostile-") as tmp:
        workdir = Path(args.workdir) if args.workdir else Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        port = free_port()
        # Loopback counts like any address: the attacker is one remote address, and meets its quotas.
        argv = guobiao_argv(port, workdir / "hostile.db") + ([] if args.exempt_loopback else ["--count-loopback"])
        srv = ServerProc(argv, port, workdir / "server.log",
                         cpu=None if args.no_pin else 0)
        srv.start()
        gen = None
        try:
            gen = Generator(port, 1, args.rate, seed=args.seed)
            await gen.connect_all()
            await gen.form_all()
            gen.start_tables()
            snap = await gen.tables[0].seats[0].request({"t": "snapshot"})
            code = snap["info"]["invite"]
            state = workdir / "attacker.json"
            phases = [("quiet_before", None)] + [(p, p) for p in PHASES] + [("quiet_after", None)]
            for name, phase in phases:
                during = None if phase is None else run_attack(args, port, code, phase, state, args.phase_seconds)
                r = await measure(gen, srv, args.phase_seconds, during)
                out["phases"][name] = r
                show(name, r)
            errors = dict(gen.errors)
        finally:
            if gen is not None:
                await gen.stop()
            srv.stop()
        problems = srv.log_problems()
    first, last = out["phases"]["quiet_before"]["rss_mib"], out["phases"]["quiet_after"]["rss_mib"]
    growth = round(last - first, 1)
    p99s = {k: v["p99_ms"] for k, v in out["phases"].items()}
    missed = [k for k, v in p99s.items() if v is None or v > P99_TARGET_MS]
    out.update(rss_start_mib=first, rss_end_mib=last, rss_growth_mib=growth, bystander_errors=errors,
               server_log_problems=problems[:10], server_log_problem_count=len(problems),
               targets_met=not missed and growth <= RSS_GROWTH_TARGET_MIB)
    print(f"RSS growth: {growth:+.1f} MiB ({first} -> {last} MiB; target <= {RSS_GROWTH_TARGET_MIB:g} MiB)")
    print(f"bystander errors: {sum(errors.values())} {errors or ''}; server log ERROR lines: {len(problems)}")
    print(f"targets (p99 <= {P99_TARGET_MS:g} ms in every phase, RSS growth <= {RSS_GROWTH_TARGET_MIB:g} MiB): "
          f"{'met' if out['targets_met'] else 'missed'}" + (f" (p99 over in: {', '.join(missed)})" if missed else ""))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    if args.strict and not out["targets_met"]:
        return 1
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--phase-seconds", type=float, default=20.0)
    ap.add_argument("--rate", type=float, default=2.0, help="the bystander table's actions a second")
    ap.add_argument("--exempt-loopback", action="store_true",
                    help="leave the server's loopback exemption on (per-address quotas then never apply here)")
    ap.add_argument("--ghosts", type=int, default=1000, help="ghost spectators")
    ap.add_argument("--registrations", type=int, default=400, help="tournament registrations")
    ap.add_argument("--rooms", type=int, default=500, help="rooms of the room flood")
    ap.add_argument("--flooders", type=int, default=4, help="connections of the snapshot flood")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-pin", action="store_true")
    ap.add_argument("--workdir", default=None, help="keep the database and logs here")
    ap.add_argument("--json", default=None, help="write the figures here")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--smoke", action="store_true", help="smallest sizes, a few seconds (tests/test_bench_smoke.py)")
    # the attacker's own process (started by this script)
    ap.add_argument("--attack", choices=PHASES, help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--bystander-code", help=argparse.SUPPRESS)
    ap.add_argument("--state", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.attack:
        return asyncio.run(attack(args))
    if args.smoke:
        args.phase_seconds, args.rate, args.ghosts, args.registrations, args.rooms = 2.0, 4.0, 20, 20, 20
    if not 1 <= args.phase_seconds <= 3600 or not 0 < args.rate <= 50:
        ap.error("--phase-seconds 1..3600, --rate 0..50")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
