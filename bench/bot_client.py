"""A client written from docs/protocol.md alone: four seats of one private room play a whole match.

    python bench/bot_client.py [--url ws://127.0.0.1:8765/ws] [--type guobiao] [--hands 4] [--seed 1] [--smoke]

It imports nothing from this repository (only the standard library, websockets and msgpack): it signs
four guests in (three speak msgpack, one JSON), creates a private room, joins it by the invite code,
readies, answers every prompt with one of its legal actions (wins always, claims and kongs now and
then, 报听 when offered), counts the wall from the events and checks the count against a snapshot at
the end of every hand, resumes one seat mid-match (the snapshot must come first), and prints what it
saw. Without ``--url`` it starts ``guobiao serve`` on a free port and a temporary database.
Exit status 0 when the match finished and every check held.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import msgpack
from websockets.asyncio.client import connect


class Seat:
    """One connection: a reader task files replies by ``re`` and hands pushes to ``on_push``."""

    def __init__(self, name: str, encoding: str, rng: random.Random, stats: Counter, rate: float | None):
        self.name, self.encoding, self.rng, self.stats, self.rate = name, encoding, rng, stats, rate
        self.ws = self.reader = self.token = self.player = None
        self.ids, self.waiting, self.last_send = 0, {}, 0.0
        self.push_ids: set = set()  # requests whose reply is handled like a push (a snapshot after a gap)
        self.n = 0  # the last room message number seen: a gap means ask for a snapshot
        self.answered = None  # (seq, clock.decision) last answered: prompts repeat at the same seq
        self.wall = None  # tiles left in the wall, counted from the events
        self.room_seat = self.game_seat = None
        self.next_deal = 0  # the hand whose own deal comes next (one missed while away is skipped, not failed)
        self.frames: list[dict] = []  # room messages since the last (re)connect, for the resume check
        self.pushes: asyncio.Queue = asyncio.Queue()  # handled in order by one task, which may await replies
        self.resume_url = None  # set: resume once the first hand is over
        self.done = asyncio.Event()
        self.worker = asyncio.create_task(self.work())

    async def open(self, url: str) -> None:
        self.ws = await connect(url, compression=None, max_size=2**20)
        self.n, self.frames = 0, []
        self.reader = asyncio.create_task(self.read())

    async def read(self) -> None:
        async for data in self.ws:
            msg = json.loads(data) if isinstance(data, str) else msgpack.unpackb(data)
            if msg["t"] == "snapshot":
                self.room_seat = msg["you"]["seat"]
            if "rseq" in msg:  # a room message: numbered 1, 2, 3... on this connection
                self.frames.append(msg)
                if msg.get("n") != self.n + 1:
                    self.stats["gaps"] += 1
                    asyncio.create_task(self.request({"t": "snapshot"}, push=True))
                self.n = msg.get("n", self.n)
            fut = self.waiting.pop(msg.get("re"), None)
            if fut is not None:
                fut.set_result(msg)
            if msg.get("re") is None or msg["re"] in self.push_ids:
                self.pushes.put_nowait(msg)

    async def work(self) -> None:
        while True:
            msg = await self.pushes.get()
            try:
                await self.on_push(msg)
            except Exception as e:  # a message the document did not prepare us for: stop, say which
                self.stats["errors client"] += 1
                print(f"{self.name}: {e!r} handling {str(msg)[:300]}", file=sys.stderr)
                self.done.set()

    async def send(self, msg: dict) -> None:
        if self.rate:  # the server's rate limit: 10 frames a second on average (a slot each, in order)
            now = time.monotonic()
            self.last_send = max(now, self.last_send + 1 / self.rate)
            await asyncio.sleep(self.last_send - now)
        await self.ws.send(json.dumps(msg) if self.encoding == "json" else msgpack.packb(msg))

    async def request(self, msg: dict, push: bool = False) -> dict:
        self.ids += 1
        if push:
            self.push_ids.add(self.ids)
        fut = self.waiting[self.ids] = asyncio.get_running_loop().create_future()
        await self.send({**msg, "id": self.ids})
        return await asyncio.wait_for(fut, 60)

    async def on_push(self, msg: dict) -> None:
        t = msg["t"]
        if t == "snapshot" and msg.get("game"):
            g = msg["game"]
            self.wall = g["wall"]  # the snapshot is complete: count on from it
            if g["legal"]:
                self.answered = None  # answer it even at a seq answered already: at worst action/stale
                await self.prompt(g["legal"], msg["seq"], msg["clock"]["decision"])
        elif t == "game":
            for ev in msg["events"]:
                await self.event(ev)
            if msg["legal"]:
                await self.prompt(msg["legal"], msg["seq"], msg["clock"]["decision"])
        elif t == "match_result":
            self.stats["matches"] += self.name == "Bot0"
            self.done.set()

    async def event(self, ev: dict) -> None:
        t = ev["t"]
        if t == "hand_start":  # events number game seats; seats[game seat] = room seat
            self.game_seat = ev["seats"].index(self.room_seat)
        elif t == "start":
            self.wall = ev["wall"]
        elif t == "deal":
            self.wall -= ev["count"]
            if "tiles" in ev:  # only our own deal shows its tiles
                self.stats["seat checks" if ev["seat"] == self.game_seat else "seat check FAILURES"] += 1
                if ev["hand"] > self.next_deal:  # dealt while this seat was resuming: it got a snapshot
                    self.stats["seat checks skipped"] += ev["hand"] - self.next_deal
                self.next_deal = ev["hand"] + 1
        elif t == "draw" or t == "flower" and ev["source"] != "deal":
            self.wall -= 1  # a flower drawn from the wall or as a replacement has no draw event
        elif t == "hand_end":
            await self.check_wall()  # nothing moves until every seat continues
            if self.name == "Bot0":
                self.stats["hands"] += 1
                self.stats["wins" if ev["win"] else "exhaustive draws"] += 1
                if ev["win"]:
                    self.stats["fan lines"] += len(ev["win"]["fans"])

    async def check_wall(self) -> None:
        """The wall counted from the events against a snapshot's ``game.wall``, while the table waits
        for this seat (after the match the room is back in its lobby: no game to compare with)."""
        snap = await self.request({"t": "snapshot"})
        if snap["t"] != "snapshot" or snap["game"] is None:
            self.stats["wall checks skipped"] += 1
        else:
            self.stats["wall checks" if snap["game"]["wall"] == self.wall else "wall check FAILURES"] += 1

    def choose(self, legal: list) -> dict:
        kinds = {a["a"] for a in legal}
        for first in ("win", "continue"):
            if first in kinds:
                return next(a for a in legal if a["a"] == first)
        melds = [a for a in legal if a["a"] in ("chow", "pung", "kong", "concealed_kong", "added_kong")]
        if melds and self.rng.random() < 0.4:
            return self.rng.choice(melds)
        ready = [a for a in legal if a["a"] == "discard" and a.get("ready")]
        if ready:
            return self.rng.choice(ready)  # 报听 (大众馆): a discard with "ready": true
        plain = [a for a in legal if a["a"] in ("discard", "pass")]
        return self.rng.choice(plain or legal)

    async def prompt(self, legal: list, seq: int, decision: str) -> None:
        if self.resume_url and self.stats["hands"] >= 1:
            url, self.resume_url = self.resume_url, None
            await resume(self, url)  # the snapshot that comes first asks again
            return
        if (seq, decision) == self.answered:  # a claim window and the turn after it may share a seq
            self.stats["repeated prompts"] += 1
            return
        self.answered = (seq, decision)
        if decision == "turn" and self.rng.random() < 0.2:
            await self.check_wall()
        action = {**self.choose(legal), "seq": seq}
        self.stats["actions"] += 1
        self.stats["action " + action["a"] + (" ready" if action.get("ready") else "")] += 1
        asyncio.create_task(self.act(action))

    async def act(self, action: dict) -> None:
        r = await self.request({"t": "act", "action": action})
        if r["t"] == "ok":
            return
        if r["code"] in ("action/stale", "action/not_your_turn", "lost"):  # the table moved on: harmless
            self.stats["stale answers"] += 1
        else:
            self.stats["errors " + r["code"]] += 1
            print(f"{self.name}: {action} -> {r}", file=sys.stderr)


async def sign_in(seat: Seat, url: str) -> None:
    await seat.open(url)
    r = await seat.request({"t": "guest", "name": seat.name})
    assert r["t"] == "welcome", r
    seat.token, seat.player = r["token"], r["player"]


async def resume(seat: Seat, url: str) -> None:
    """Connect again with the token: `welcome`, then the room's snapshot before any other room message."""
    await seat.ws.close()
    await seat.reader
    for fut in seat.waiting.values():  # answers that will never come on the old connection
        fut.set_result({"t": "error", "code": "lost"})
    seat.waiting.clear()
    while not seat.pushes.empty():  # older than the snapshot to come
        seat.pushes.get_nowait()
    await seat.open(url)
    r = await seat.request({"t": "resume", "token": seat.token})
    assert r["t"] == "welcome" and r["player"] == seat.player and r["room"], r
    for _ in range(500):
        if seat.frames:
            break
        await asyncio.sleep(0.01)
    seat.stats["resumed"] += 1
    ok = bool(seat.frames) and seat.frames[0]["t"] == "snapshot" and "seq" in seat.frames[0]
    seat.stats["resume checks" if ok else "resume check FAILURES"] += 1


async def play(url: str, args) -> Counter:
    stats: Counter = Counter()
    rng = random.Random(args.seed)
    seats = [Seat(f"Bot{i}", "json" if i == 3 else "msgpack", random.Random(rng.random()), stats, args.rate)
             for i in range(4)]
    for s in seats:
        await sign_in(s, url)
    config = {"type": args.type, "hands": args.hands, "private": True, "claim_min": args.claim_min,
              "claim_time": args.claim_time, "turn_time": args.turn_time}
    snap = await seats[0].request({"t": "create", "config": config})
    assert snap["t"] == "snapshot", snap
    code = snap["info"]["invite"]
    for s in seats[1:]:
        r = await s.request({"t": "join", "code": code})
        assert r["t"] == "ok", r
    if args.resume:
        seats[2].resume_url = url
    started = time.perf_counter()
    for s in seats:
        r = await s.request({"t": "ready"})
        assert r["t"] == "ok", r
    end = time.monotonic() + args.timeout
    while not all(s.done.is_set() for s in seats) and not stats["errors client"]:
        if time.monotonic() > end:
            stats["timeout FAILURES"] += 1
            break
        await asyncio.sleep(0.05)
    stats["seconds"] = round(time.perf_counter() - started, 2)
    for s in seats:
        s.worker.cancel()
        await s.ws.close()
    return stats


def start_server(tmp: str) -> tuple[subprocess.Popen, str]:
    exe = Path(sys.executable).with_name("guobiao")
    cmd = [str(exe)] if exe.exists() else [shutil.which("guobiao") or "guobiao"]
    proc = subprocess.Popen(cmd + ["serve", "--port", "0", "--db", str(Path(tmp) / "bots.db"), "--rate", "1000",
                                   "--log-level", "WARNING"], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()  # "Guobiao is serving on http://127.0.0.1:PORT/ (websocket: ws://...)"
    if "ws://" not in line:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return proc, line.split("websocket: ")[1].rstrip(")\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", help="a running server's websocket (default: start one)")
    p.add_argument("--type", default="guobiao", choices=("wufan", "guobiao", "dazhong"))
    p.add_argument("--hands", type=int, default=16, choices=(4, 8, 16))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rate", type=float, default=None, help="frames a second per seat (default: 8 with --url)")
    p.add_argument("--claim-min", type=float, default=0.0)
    p.add_argument("--claim-time", type=float, default=8.0)
    p.add_argument("--turn-time", type=float, default=15.0)
    p.add_argument("--no-resume", dest="resume", action="store_false", help="do not resume a seat mid-match")
    p.add_argument("--timeout", type=float, default=1800.0)
    p.add_argument("--smoke", action="store_true", help="one round (4 hands) in 大众馆, where 报听 is offered")
    args = p.parse_args(argv)
    if args.smoke:
        args.hands, args.type, args.timeout = 4, "dazhong", min(args.timeout, 120.0)
    if args.rate is None and args.url:
        args.rate = 8.0
    with tempfile.TemporaryDirectory() as tmp:
        proc = None
        url = args.url
        if url is None:
            proc, url = start_server(tmp)
        try:
            stats = asyncio.run(play(url, args))
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(10)
    width = max(len(k) for k in stats)
    for k in sorted(stats):
        print(f"{k:<{width}}  {stats[k]}")
    bad = [k for k in stats if "FAILURE" in k or k.startswith("errors")]
    return 1 if bad or stats["matches"] != 1 else 0


if __name__ == "__main__":
    sys.exit(main())
