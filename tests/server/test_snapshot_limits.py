"""What one connection may cost the server: snapshots carry the current match only (history by id,
paged), the outgoing queue is bounded in bytes, repeated snapshot requests are coalesced."""

from __future__ import annotations

import asyncio

import msgpack

from server.quotas import Quotas
from tests.server.conftest import stop
from tests.server.test_quotas import ZERO, start_with


async def bots_room(s, name: str, hands: int = 4):
    c = await s.client(name=name)
    snap = await c.request({"t": "create", "config": {**ZERO, "hands": hands}})
    for seat in (1, 2, 3):
        assert (await c.request({"t": "add_bot", "seat": seat}))["t"] == "ok"
    return c, snap


async def test_snapshots_carry_the_current_match_only(tmp_path):
    s = await start_with(str(tmp_path / "h.db"), Quotas(timer_minimums={}, rematches=(1e3, 1e3)))
    try:
        c, _ = await bots_room(s, "Host")
        sizes = []
        for k in range(3):
            assert (await c.request({"t": "rematch" if k else "start"}))["t"] == "ok"
            await c.wait_for(lambda m: m.get("t") == "match_result", timeout=120)
            await c.wait_for(lambda m: m.get("t") == "room" and m["info"]["phase"] == "lobby", timeout=30)
            snap = await c.request({"t": "snapshot"})
            (last,) = snap["records"]["matches"]  # the match just finished, not every one before it
            assert last["match"] == k + 1 and "actions" not in last
            sizes.append(len(msgpack.packb(snap["records"])))
        assert max(sizes) < 2 * min(sizes)  # does not grow with the matches played
        h = await c.request({"t": "history"})
        assert h["t"] == "history" and h["pages"] == 1 and [m["match"] for m in h["matches"]] == [3, 2, 1]
        assert all(isinstance(m["id"], int) and len(m["scores"]) == 4 for m in h["matches"])
        status, replay = await s.app.api(f"/api/matches/{h['matches'][0]['id']}")
        assert status == 200 and replay["actions"]
        assert (await c.request({"t": "history", "page": 1}))["matches"] == []
        assert (await c.request({"t": "history", "page": "x"}))["code"] == "protocol/bad_field"
    finally:
        await stop(s)


async def test_outgoing_queue_is_bounded_in_bytes(tmp_path):
    """A watcher that never reads is cut off once its queue holds out_bytes, long before out_queue
    messages (a count said nothing about a megabyte of snapshots)."""
    s = await start_with(str(tmp_path / "q.db"), Quotas(timer_minimums={}), out_queue=100_000, write_limit=1024,
                         out_bytes=32 * 1024)
    try:
        c, snap = await bots_room(s, "Host", hands=16)
        w = await s.client(name="Sleeper")
        assert (await w.request({"t": "watch", "code": snap["info"]["invite"]}))["t"] == "ok"
        conn = s.app.conns[w.player]
        assert (await c.request({"t": "start"}))["t"] == "ok"  # w never reads from now on
        for _ in range(600):
            if w.player not in s.app.conns:
                break
            assert conn.queued <= 32 * 1024
            await asyncio.sleep(0.05)
        assert w.player not in s.app.conns and conn.close_reason == "too slow"
        assert len(conn.queue) == 0 and conn.queued == 0
    finally:
        await stop(s)


async def test_repeated_snapshot_requests_are_coalesced(tmp_path):
    s = await start_with(str(tmp_path / "c.db"), Quotas(timer_minimums={}), out_queue=100_000, write_limit=1024)
    try:
        c, _ = await bots_room(s, "Host")
        conn = s.app.conns[c.player]
        one = len(msgpack.packb(await c.request({"t": "snapshot"})))
        for i in range(200):  # never read: each would be queued whole
            await c.send({"t": "snapshot", "id": 1000 + i})
            if i % 40 == 39:  # at most 64 frames may wait behind an unanswered one
                for _ in range(200):
                    await asyncio.sleep(0.02)
                    if conn.waiting is None and not conn.inbox:
                        break
        assert conn.queued < 20 * one  # one snapshot waits; the rest were answered ok
        got = [await c.wait_for(lambda m: m.get("re", 0) >= 1000) for _ in range(200)]
        assert [m["re"] for m in got] == list(range(1000, 1200)), [(m["re"], m["t"], m.get("code")) for m in got][:80]
        kinds = [m["t"] for m in got]
        assert set(kinds) == {"snapshot", "ok"} and kinds.count("snapshot") < 100  # the socket buffers took some
    finally:
        await stop(s)
