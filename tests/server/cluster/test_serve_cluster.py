"""``guobiao serve --cluster redis://... --db postgresql://...``: nodes as separate processes."""

from __future__ import annotations

import asyncio
import io
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from tests.server.client import Client
from tests.support.services import free_port

ROOT = Path(__file__).resolve().parents[3]


def serve(db: str, cluster: str) -> subprocess.Popen:
    argv = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", db, "--cluster", cluster,
            "--log-level", "WARNING"]
    return subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})


async def port_of(proc: subprocess.Popen) -> int:
    line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 90)  # a start on a loaded machine
    assert "serving on" in line, (line, proc.stderr.read() if proc.poll() is not None else "")
    return int(line.split("http://127.0.0.1:")[1].split("/")[0])


def end(proc: subprocess.Popen) -> None:
    """Stop a node that still runs (one killed by a test has only its pipes left to close)."""
    if proc.poll() is None:
        proc.terminate()
        proc.wait(20)
    proc.stdout.close()
    proc.stderr.close()


@pytest.mark.postgres
async def test_two_serve_processes_share_the_room_directory(pg_url, redis_url):
    b = serve(pg_url, redis_url)
    try:
        port_b = await port_of(b)
        a = serve(pg_url, redis_url)  # after B: a node restores the open rooms of the database at start
        try:
            port_a = await port_of(a)
            host = await Client.open(f"ws://127.0.0.1:{port_b}/ws")
            guest = await Client.open(f"ws://127.0.0.1:{port_a}/ws", "json")
            await host.guest("Host")
            await guest.guest("Guest")
            snap = await host.request({"t": "create", "config": {"private": True}})
            r = await guest.request({"t": "join", "code": snap["info"]["invite"]})
            assert r["t"] == "ok", r
            seen = await guest.wait_for(lambda m: m.get("t") == "snapshot" and m["room"] == snap["room"])
            assert sorted(seen["info"]["names"].values()) == ["Guest", "Host"]
            # the host, on B, sees the guest sit down; the guest's ready reaches the room on B
            assert (await guest.request({"t": "ready"}))["t"] == "ok"
            await host.wait_for(lambda m: m.get("t") == "room" and any(
                s is not None and s["id"] == guest.player and s.get("ready") for s in m["info"]["seats"]))
            ns = [m["n"] for m in guest.frames if "n" in m]  # numbered by A, without a gap
            assert ns == list(range(1, len(ns) + 1))
            await host.close()
            await guest.close()
        finally:
            end(a)
    finally:
        end(b)


def test_cluster_needs_a_postgresql_database(tmp_path):
    out = subprocess.run([sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", str(tmp_path / "g.db"),
                          "--cluster", "redis://127.0.0.1:1/0"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--cluster needs a PostgreSQL --db" in out.stderr


@pytest.mark.postgres
def test_an_unreachable_cluster_redis_stops_the_node_at_start(pg_url):
    port = free_port()  # nobody listens there
    out = subprocess.run([sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", pg_url,
                          "--cluster", f"redis://127.0.0.1:{port}/0"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 2 and out.stderr.startswith("serve:"), out.stderr


@pytest.mark.postgres
async def test_a_node_leaves_rooms_another_node_owns_and_restores_those_of_a_killed_node_once_the_lease_expired(
        pg_url, redis_url):
    b = serve(pg_url, redis_url)
    try:
        port_b = await port_of(b)
        host = await Client.open(f"ws://127.0.0.1:{port_b}/ws")
        await host.guest("Host")
        snap = await host.request({"t": "create", "config": {"private": True}})
        assert (await host.request({"t": "ready"}))["t"] == "ok"
        # A starts while B owns the room: A must not restore it (two writers of one log)
        check = redis.Redis.from_url(redis_url)
        owner = check.get("gb:lease:room:" + snap["room"])
        a = serve(pg_url, redis_url)
        try:
            port_a = await port_of(a)
            other = await Client.open(f"ws://127.0.0.1:{port_a}/ws")
            r = await other.request({"t": "resume", "token": host.token})
            assert r["t"] == "welcome" and r["room"] == snap["room"], r  # through A, in B's room
            assert check.get("gb:lease:room:" + snap["room"]) == owner  # B's lease, the same token
            await other.close()
        finally:
            end(a)
        b.kill()  # SIGKILL: B's lease is not given up, it expires (5 s)
        b.wait(10)
        try:  # killed, B gave nothing up: its lease is still there until it expires (looked at first: it
            # was renewed at most a third of its ttl before the kill)
            assert check.get("gb:lease:room:" + snap["room"]) is not None
            await host.ws.wait_closed()
            await asyncio.sleep(5.5)
            assert check.get("gb:lease:room:" + snap["room"]) is None
        finally:
            check.close()
        d = serve(pg_url, redis_url)
        try:
            port_d = await port_of(d)
            back = await Client.open(f"ws://127.0.0.1:{port_d}/ws")
            r = await back.request({"t": "resume", "token": host.token})
            assert r["t"] == "welcome" and r["room"] == snap["room"], r
            again = await back.wait_for(lambda m: m.get("t") == "snapshot")
            assert again["rseq"] > snap["rseq"]  # the ready, from the log, and the restore after it
            me = [s for s in again["info"]["seats"] if s is not None and s["id"] == host.player]
            assert me and me[0]["ready"]
            await back.close()
        finally:
            end(d)
    finally:
        if b.poll() is None:
            end(b)
        else:
            b.stdout.close()
            b.stderr.close()


def acked(c: Client):
    """``until`` for play(): the first answer ok to one of the client's own actions."""
    return lambda m: m.get("t") == "ok" and m.get("re") in c.sent_acts


async def ready_room(host: Client, guest: Client) -> tuple[str, int]:
    """A private room of ``host`` with ``guest`` and two bots, the guest ready (acknowledged by the owner):
    its id and the last rseq the guest saw."""
    await host.guest("Host")
    await guest.guest("Guest")
    snap = await host.request({"t": "create", "config": {"private": True}})
    room = snap["room"]
    assert (await guest.request({"t": "join", "code": snap["info"]["invite"]}))["t"] == "ok"
    for _ in range(2):
        assert (await host.request({"t": "add_bot"}))["t"] == "ok"
    assert (await guest.request({"t": "ready"}))["t"] == "ok"
    await guest.drain(0.3)
    guest.inbox.clear()  # the snapshot looked for is the one after the kill
    return room, max(m["rseq"] for m in guest.frames if m.get("room") == room and "rseq" in m)


@pytest.mark.postgres
async def test_the_rooms_of_a_killed_node_are_taken_over_by_the_two_running_nodes_and_play_goes_on(pg_url, redis_url):
    import random

    from tests.server.client import play

    a, b, c = serve(pg_url, redis_url), serve(pg_url, redis_url), serve(pg_url, redis_url)
    check = redis.Redis.from_url(redis_url)
    try:
        port_a, port_b, port_c = await port_of(a), await port_of(b), await port_of(c)
        # two rooms on B: one with a guest whose websocket is on A, one with a guest on C
        host = await Client.open(f"ws://127.0.0.1:{port_b}/ws")
        guest = await Client.open(f"ws://127.0.0.1:{port_a}/ws")
        room, seen = await ready_room(host, guest)
        other_host = await Client.open(f"ws://127.0.0.1:{port_b}/ws")
        other_guest = await Client.open(f"ws://127.0.0.1:{port_c}/ws")
        other_room, other_seen = await ready_room(other_host, other_guest)
        nodes = {n.decode() for n in check.smembers("gb:nodes")}
        owner = check.get("gb:lease:room:" + room).decode().rpartition(":")[0]
        assert len(nodes) == 3 and owner in nodes
        b.kill()  # SIGKILL: no lease given up
        killed = asyncio.get_running_loop().time()
        # A and C, the nodes still running, take B's rooms over from the log once B's lease expired (5 s),
        # and each guest, whose websocket never moved, gets a snapshot from the room's new owner
        for g, r, before in ((guest, room, seen), (other_guest, other_room, other_seen)):
            back = await g.wait_for(lambda m, r=r: m.get("t") == "snapshot" and m["room"] == r, timeout=40)
            assert asyncio.get_running_loop().time() - killed < 30  # (a loaded machine restores slowly)
            assert back["rseq"] > before  # the acknowledged ready is there (and the restore after it)
            me = [s for s in back["info"]["seats"] if s is not None and s["id"] == g.player]
            assert me and me[0]["ready"]
        # the host, cut off with B, resumes on A and play goes on there
        host2 = await Client.open(f"ws://127.0.0.1:{port_a}/ws")
        r = await host2.request({"t": "resume", "token": host.token})
        assert r["t"] == "welcome" and r["room"] == room, r
        host2.player, host2.token = host.player, host.token
        await host2.wait_for(lambda m: m.get("t") == "snapshot")
        assert (await host2.request({"t": "ready"}))["t"] == "ok"
        rng = random.Random(5)
        await asyncio.gather(play(host2, rng, acked(host2), timeout=60), play(guest, rng, acked(guest), timeout=60))
        ns = [m["n"] for m in guest.frames if "n" in m]  # one connection all along: no gap
        assert ns == list(range(1, len(ns) + 1))
        # nothing of the dead node stays in Redis once its rooms moved: its stream, its set, its entry
        for _ in range(300):
            if not check.sismember("gb:nodes", owner):
                break
            await asyncio.sleep(0.1)
        assert {n.decode() for n in check.smembers("gb:nodes")} == nodes - {owner}
        assert not check.exists("gb:node:" + owner, "gb:owned:" + owner)
        for x in (host2, guest, other_guest):
            await x.close()
    finally:
        check.close()
        for p in (a, b, c):
            end(p)


@pytest.mark.postgres
async def test_workers_start_nodes_sharing_one_port_that_play_together(pg_url, redis_url, tmp_path):
    port = free_port()
    argv = [sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--db", pg_url, "--cluster", redis_url,
            "--workers", "2", "--log-level", "WARNING"]
    # The nodes' log goes to a file: a pipe nobody reads fills up and blocks a node that logs (and then
    # cannot stop); the whole group is killed if it does not stop, so no node outlives the test.
    log = open(tmp_path / "nodes.log", "w+")
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=log, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True)
    try:
        # both nodes' words counted in the text, not by lines (the workers share one pipe); a node's
        # start (imports, migrations, recovery) may take many seconds on a loaded machine
        out = ""
        while out.count("serving on") < 2:
            line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 90)
            assert line, (tmp_path / "nodes.log").read_text()
            out += line
        drain = asyncio.create_task(asyncio.to_thread(proc.stdout.read))
        assert re.findall(r"serving on http://127\.0\.0\.1:(\d+)/", out) == [str(port)] * 2  # one port
        nodes = redis.Redis.from_url(redis_url)
        try:
            assert nodes.scard("gb:nodes") == 2
        finally:
            nodes.close()
        # whichever node each connection lands on, a player joins the other's room
        clients = [await Client.open(f"ws://127.0.0.1:{port}/ws") for _ in range(4)]
        for i, c in enumerate(clients):
            await c.guest(f"P{i}")
        snap = await clients[0].request({"t": "create", "config": {"private": True}})
        for c in clients[1:]:
            assert (await c.request({"t": "join", "code": snap["info"]["invite"]}))["t"] == "ok"
        last = await clients[3].wait_for(lambda m: m.get("t") == "snapshot")
        assert sorted(last["info"]["names"].values()) == ["P0", "P1", "P2", "P3"]
        for c in clients:
            await c.close()
    finally:
        proc.terminate()  # passed on to both nodes
        try:
            code = proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            code = proc.wait(10)
        log.close()
        if "drain" in locals():
            await drain
        proc.stdout.close()
        assert code == 0, (tmp_path / "nodes.log").read_text()[-4000:]


def test_a_node_says_it_serves_in_one_write_that_the_other_workers_lines_cannot_split(monkeypatch):
    """--workers: the nodes share stdout; unbuffered (PYTHONUNBUFFERED), print writes a line's text and its
    newline apart, and another node's line could fall between them."""
    from server.cli_serve import say

    class Pipe(io.RawIOBase):
        def __init__(self):
            self.writes: list[bytes] = []

        def writable(self) -> bool:
            return True

        def write(self, b) -> int:
            self.writes.append(bytes(b))
            return len(b)

    pipe = Pipe()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(pipe, write_through=True))  # as under PYTHONUNBUFFERED
    say(["Guobiao is serving on http://127.0.0.1:1/", "cluster node: redis://x"])
    assert pipe.writes == [b"Guobiao is serving on http://127.0.0.1:1/\ncluster node: redis://x\n"]


def children(pid: int) -> list[int]:
    return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


@pytest.mark.postgres
async def test_workers_restart_a_worker_killed_by_sigkill(pg_url, redis_url, tmp_path):
    port = free_port()
    argv = [sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--db", pg_url, "--cluster", redis_url,
            "--workers", "2", "--log-level", "WARNING"]
    log = open(tmp_path / "nodes.log", "w+")
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=log, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True)
    nodes = redis.Redis.from_url(redis_url)
    try:
        async def serving(count: int) -> None:
            seen = 0
            while seen < count:
                line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 90)
                assert line, (tmp_path / "nodes.log").read_text()
                seen += line.count("serving on")  # (the workers share one pipe)

        await serving(2)
        first = children(proc.pid)
        assert len(first) == 2
        os.kill(first[0], signal.SIGKILL)
        await serving(1)  # a third node, in the dead one's place
        now = children(proc.pid)
        assert len(now) == 2 and first[0] not in now and first[1] in now
        assert "exited with code -9; started again" in (tmp_path / "nodes.log").read_text()
        assert len(nodes.keys("gb:lease:node:*")) >= 2  # the new node is alive in the cluster
        c = await Client.open(f"ws://127.0.0.1:{port}/ws")  # and the port still answers
        await c.guest("P")
        assert (await c.request({"t": "create", "config": {"private": True}}))["t"] == "snapshot"
        await c.close()
    finally:
        nodes.close()
        proc.terminate()  # passed on to both nodes; no restart after it
        try:
            code = proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            code = proc.wait(10)
        log.close()
        proc.stdout.close()
        assert code == 0, (tmp_path / "nodes.log").read_text()[-4000:]
