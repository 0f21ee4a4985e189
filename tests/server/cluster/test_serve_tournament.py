"""A tournament across ``guobiao serve --cluster`` processes: SIGKILL of the node that runs it, the
others take it over with its table, and its players (whose websockets are on the other nodes) play on."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys

import pytest
import redis

from tests.server.client import Client, play
from tests.server.cluster.test_serve_cluster import ROOT, acked, end, port_of
from tests.server.cluster.test_tournaments import CUP, register
from tests.server.test_tournament import wait_view

pytestmark = pytest.mark.postgres


def serve(db: str, cluster: str) -> subprocess.Popen:
    """A node; four players answering every prompt at once send more than 10 frames a second."""
    argv = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", db, "--cluster", cluster,
            "--log-level", "WARNING", "--rate", "1000"]
    return subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})


def seen_rseq(c: Client, room: str) -> int:
    return max(m["rseq"] for m in c.frames if m.get("room") == room and "rseq" in m)


async def test_a_killed_nodes_tournament_and_table_are_taken_over_and_its_players_play_on(pg_url, redis_url):
    a, b, c = serve(pg_url, redis_url), serve(pg_url, redis_url), serve(pg_url, redis_url)
    check = redis.Redis.from_url(redis_url)
    clients: list[Client] = []
    try:
        port_a, port_b, port_c = await port_of(a), await port_of(b), await port_of(c)

        async def on(port: int, name: str) -> Client:
            cl = await Client.open(f"ws://127.0.0.1:{port}/ws")
            clients.append(cl)
            await cl.guest(name)
            return cl

        org = await on(port_b, "Org")  # the tournament runs on B
        made = await org.request({"t": "tournament_create", "config": CUP})
        tid = made["tournament"]["id"]
        owner = check.get("gb:lease:tournament:" + tid).decode().rpartition(":")[0]
        # four players, their websockets elsewhere (no bot at the table: a served node's bots take their time)
        players = [await on(port_a, "Ann"), await on(port_c, "Cai"), await on(port_a, "Ari"), await on(port_c, "Cid")]
        for p in players:
            await register(p, tid)
        fan = await on(port_a, "Fan")
        assert (await fan.request({"t": "tournament", "tournament": tid}))["t"] == "tournament"
        assert (await org.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "start"}}))["t"] == "ok"
        room = (await players[0].wait_for(lambda m: m.get("t") == "table", timeout=30))["room"]
        assert check.get("gb:lease:room:" + room).decode().startswith(owner + ":")
        rngs = [random.Random(i) for i in range(len(players))]
        # each player has an action acknowledged by B before it dies
        await asyncio.gather(*(play(p, rng, acked(p), timeout=60) for p, rng in zip(players, rngs)))
        before = [seen_rseq(p, room) for p in players]
        for p in players:
            p.inbox.clear()  # the snapshot looked for is the one after the kill

        b.kill()  # SIGKILL: nothing given up; its leases expire (5 s)
        for p, seen in zip(players, before):
            back = await p.wait_for(lambda m: m.get("t") == "snapshot" and m["room"] == room, timeout=60)
            assert back["rseq"] > seen  # nothing they saw (so nothing acknowledged) is lost; the restore after it
            # an action B had not answered when it died is answered server/moved (before the snapshot,
            # which shows whether it was done): not an error of play()'s
            p.inbox[:] = [m for m in p.inbox if m.get("code") != "server/moved"]
        held = check.get("gb:lease:tournament:" + tid)
        assert held is not None and not held.decode().startswith(owner + ":")  # a running node has it
        results = await asyncio.gather(*(play(p, rng, lambda m: m.get("t") == "match_result", timeout=90)
                                         for p, rng in zip(players, rngs)))
        assert all(r["room"] == room for r in results)
        v = await wait_view(fan, lambda v: v["sessions"][0]["state"] == "finished", timeout=60)  # told by the new owner
        assert sorted(r["sessions"] for r in v["standings"] if r["player"] in {p.player for p in players}) == [1] * len(players)
    finally:
        for cl in clients:
            try:
                await cl.close()
            except Exception:
                pass
        check.close()
        for p in (a, b, c):
            end(p)
