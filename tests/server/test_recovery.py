"""kill -9 in the middle of a hand, restart on the same database: every match goes on with no lost
and no duplicated action."""

import asyncio
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.server.client import Client, play, prompt
from tests.server.conftest import FAST

ROOT = Path(__file__).resolve().parents[2]


async def spawn(db: Path, log: Path) -> tuple[subprocess.Popen, int]:
    with open(log, "ab") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", str(db), "--log-level", "WARNING",
             "--rate", "1000"],  # the test's players answer at machine speed
            cwd=ROOT, stdout=subprocess.PIPE, stderr=err, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 20)
    await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 5)  # the database line
    proc.stdout.close()
    assert "http://127.0.0.1:" in line, line
    port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
    return proc, port


def room_log(db: Path) -> list[dict]:
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT n, entry FROM actions ORDER BY room_id, n").fetchall()
    finally:
        con.close()
    assert [n for n, _ in rows] == list(range(len(rows)))  # one room: no gap, no repeat
    return [json.loads(e) for _, e in rows]


async def test_kill_9_mid_hand_and_recover(tmp_path):
    db, log = tmp_path / "g.db", tmp_path / "server.log"
    proc, port = await spawn(db, log)
    url = f"ws://127.0.0.1:{port}/ws"
    cs = []
    try:
        cs += [await Client.open(url, "json" if i == 3 else "msgpack") for i in range(4)]
        for i, c in enumerate(cs):
            await c.guest(f"R{i}")
        # Four humans, no bots: the CLI's server keeps its timer minimums (bot_delay at least 0.5 s: 1 on the wire).
        snap = await cs[0].request({"t": "create", "config": {**FAST, "bot_delay": 1}})
        for c in cs[1:]:
            assert (await c.request({"t": "join", "code": snap["info"]["invite"]}))["t"] == "ok"
        for c in cs:
            assert (await c.request({"t": "ready"}))["t"] == "ok"

        # Play until some twenty actions were accepted, then kill the server mid-hand.
        seen = {"games": 0}

        def count(m):
            seen["games"] += m.get("t") == "game"

        def enough(m):
            return seen["games"] >= 120 or m.get("t") == "hand_result"

        rng = random.Random(5)
        plays = [asyncio.ensure_future(play(c, rng, enough, timeout=30, on_msg=count)) for c in cs]
        seen_rseq, acked = await kill_while_playing(proc, cs, plays)
        assert len(acked) >= 10
        before = room_log(db)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for c in cs:
            await c.close()

    # Nothing a client saw is missing from the log; every acknowledged action is in it, once.
    live = [e for e in before if not e.get("derived")]
    assert [e["rseq"] for e in live] == list(range(1, len(live) + 1))
    assert live[-1]["rseq"] >= seen_rseq
    player_acts = [(e["player"], e["action"]) for e in live if e["k"] == "act" and e["by"] == "player"]
    ids = [c.player for c in cs]
    for i, a in acked:
        assert player_acts.count((i, a)) == 1, (i, a)  # room players are first-round seats = join order here

    proc, port = await spawn(db, log)
    url = f"ws://127.0.0.1:{port}/ws"
    try:
        news = []
        for old in cs:
            c = await Client.open(url, old.encoding)
            r = await c.request({"t": "resume", "token": old.token})
            assert r["player"] == old.player and r["room"] == snap["room"]
            s = await c.wait_for(lambda m: m.get("t") == "snapshot")
            assert s["rseq"] == live[-1]["rseq"] + 1  # the restore entry
            assert s["info"]["phase"] == "playing" and s["game"]["phase"] != "over"
            c.inbox.insert(0, s)
            c.player, c.token = old.player, old.token
            news.append(c)
        assert sum(prompt(m) is not None for c in news for m in c.inbox) >= 1  # somebody is asked to act
        ends = await asyncio.gather(*(play(c, random.Random(i), lambda m: m.get("t") == "hand_result", timeout=30)
                                      for i, c in enumerate(news)))
        assert len({json.dumps(e["record"], sort_keys=True) for e in ends}) == 1
        for c in news:
            await c.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0  # a clean shutdown on SIGTERM

    after = room_log(db)
    assert after[:len(before)] == before  # the log only grew
    live_after = [e for e in after if not e.get("derived")]
    assert [e["rseq"] for e in live_after] == list(range(1, len(live_after) + 1))
    assert any(e["k"] == "restore" for e in after)
    assert ids  # players reconnected to the same seats (checked by the snapshots' rseq and the hand's end)
    assert "Traceback" not in log.read_text()


async def test_sigint_shuts_down_cleanly(tmp_path):
    db, log = tmp_path / "i.db", tmp_path / "server.log"
    proc, port = await spawn(db, log)
    c = await Client.open(f"ws://127.0.0.1:{port}/ws")
    await c.guest("Bye")
    proc.send_signal(signal.SIGINT)
    assert await asyncio.to_thread(proc.wait, 10) == 0
    code = None
    try:
        while True:
            await asyncio.wait_for(c.ws.recv(), 5)
    except Exception as e:  # ConnectionClosed
        code = getattr(getattr(e, "rcvd", None), "code", None)
    assert code == 1001  # going away
    assert not (tmp_path / "i.db-wal").exists() or (tmp_path / "i.db-wal").stat().st_size == 0
    assert "Traceback" not in log.read_text()


async def kill_while_playing(proc, cs, plays) -> tuple[int, list]:
    """SIGKILL the server as soon as one client has played enough, before the hand ends: the highest
    ``rseq`` any client saw, and every (seat, action) the server acknowledged."""
    await asyncio.wait(plays, return_when=asyncio.FIRST_COMPLETED)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    for p in plays:
        p.cancel()
    await asyncio.gather(*plays, return_exceptions=True)
    assert not any(m.get("t") == "hand_result" for c in cs for m in c.frames), "killed too late"
    seen_rseq = max(m["rseq"] for c in cs for m in c.frames if "rseq" in m)
    acked = [(i, a) for i, c in enumerate(cs) for rid, a in c.sent_acts.items()
             if any(m.get("re") == rid and m.get("t") == "ok" for m in c.frames)]
    return seen_rseq, acked
