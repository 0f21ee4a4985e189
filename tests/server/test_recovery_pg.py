"""``guobiao serve --db postgresql://...`` end to end: three players and a bot play on a server whose
database is PostgreSQL; the server is killed (kill -9) mid-hand, started again on the same database,
and play goes on, the bot's too, with no action lost or repeated."""

import asyncio
import json
import random
import signal

import asyncpg
import pytest

from tests.server.client import Client, play
from tests.server.conftest import FAST
from tests.server.test_recovery import kill_while_playing, spawn

pytestmark = pytest.mark.postgres


async def room_log(url: str) -> list[dict]:
    con = await asyncpg.connect(url)
    try:
        rows = await con.fetch("SELECT n, entry FROM actions ORDER BY id")
    finally:
        await con.close()
    assert [r["n"] for r in rows] == list(range(len(rows)))  # one room: no gap, no repeat
    return [json.loads(r["entry"]) for r in rows]


async def table_with_bots(url: str) -> tuple[list[Client], dict]:
    cs = [await Client.open(url, enc) for enc in ("msgpack", "json", "msgpack")]
    for i, c in enumerate(cs):
        await c.guest(f"P{i}")
    # The CLI's server keeps its timer minimums: bots act 0.5 s after their turn starts at the soonest.
    snap = await cs[0].request({"t": "create", "config": {**FAST, "type": "wufan", "bot_delay": 0.5}})
    for c in cs[1:]:
        assert (await c.request({"t": "join", "code": snap["info"]["invite"]}))["t"] == "ok"
    assert (await cs[0].request({"t": "add_bot", "level": "random"}))["t"] == "ok"
    for c in cs:
        assert (await c.request({"t": "ready"}))["t"] == "ok"
    return cs, snap


async def test_a_postgres_server_killed_mid_hand_resumes_with_nothing_lost(tmp_path, pg_url):
    log = tmp_path / "server.log"
    proc, port = await spawn(pg_url, log)
    cs = []
    try:
        cs, snap = await table_with_bots(f"ws://127.0.0.1:{port}/ws")
        seen = {"games": 0}

        def count(m):
            seen["games"] += m.get("t") == "game"

        def enough(m):  # the bots have acted by then: their actions are in the log too
            return seen["games"] >= 40 or m.get("t") == "hand_result"

        plays = [asyncio.ensure_future(play(c, random.Random(i), enough, timeout=60, on_msg=count))
                 for i, c in enumerate(cs)]
        seen_rseq, acked = await kill_while_playing(proc, cs, plays)
        before = await room_log(pg_url)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for c in cs:
            await c.close()

    # Written before sent: everything a client saw is in the log; every acknowledged action is, once.
    live = [e for e in before if not e.get("derived")]
    assert [e["rseq"] for e in live] == list(range(1, len(live) + 1))
    assert live[-1]["rseq"] >= seen_rseq
    acts = [e for e in live if e["k"] == "act"]
    assert any(e["by"] == "bot" for e in acts) and acked
    player_acts = [(e["player"], e["action"]) for e in acts if e["by"] == "player"]
    for i, a in acked:
        assert player_acts.count((i, a)) == 1, (i, a)  # the humans took seats 0, 1, 2

    proc, port = await spawn(pg_url, log)
    try:
        news = []
        for old in cs:
            c = await Client.open(f"ws://127.0.0.1:{port}/ws", old.encoding)
            r = await c.request({"t": "resume", "token": old.token})
            assert r["player"] == old.player and r["room"] == snap["room"]
            s = await c.wait_for(lambda m: m.get("t") == "snapshot")
            assert s["rseq"] > live[-1]["rseq"]  # the restore entry (and the bot's move, if it was its turn)
            assert s["info"]["phase"] == "playing" and s["game"]["phase"] != "over"
            c.inbox.insert(0, s)
            c.player, c.token = old.player, old.token
            news.append(c)
        # Every seat sees each event: all of them stop at the same one (a seat that stopped alone
        # would leave the others waiting for its turn).
        target = news[0].inbox[0]["rseq"] + 60
        await asyncio.gather(*(play(c, random.Random(10 + i),
                                    lambda m: m.get("rseq", 0) >= target or m.get("t") == "hand_result", timeout=60)
                               for i, c in enumerate(news)))
        for c in news:
            await c.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0  # a clean shutdown on SIGTERM

    after = await room_log(pg_url)
    assert after[:len(before)] == before  # the log only grew
    live_after = [e for e in after if not e.get("derived")]
    assert [e["rseq"] for e in live_after] == list(range(1, len(live_after) + 1))
    restore = len(before)
    assert after[restore]["k"] == "restore" and after[restore]["rseq"] == live[-1]["rseq"] + 1
    resumed = [e for e in after[restore:] if e["k"] == "act"]
    assert {e["by"] for e in resumed} == {"player", "bot"}  # the players and the bot went on
    assert "Traceback" not in log.read_text()
