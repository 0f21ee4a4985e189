"""Quotas and limits on what one account or address may make and how often (server.quotas)."""

from __future__ import annotations

import asyncio

from server.app import App
from server.quotas import TIMER_MINIMUMS, Quotas
from server.store import Store
from tests.server.conftest import Running, fast_settings, stop

ZERO = {"hands": 16, "bot_delay": 0, "turn_time": 0, "first_turn_time": 0, "bank": 0, "claim_time": 0,
        "claim_min": 0, "between_time": 0}


async def start_with(db: str, quotas: Quotas, **limits) -> Running:
    settings = fast_settings(**limits)
    settings.quotas = quotas
    app = App(await Store.open(db), settings)
    return Running(app, await app.start("127.0.0.1", 0), db)


async def test_timer_minimums_are_refused_at_create(tmp_path):
    s = await start_with(str(tmp_path / "m.db"), Quotas())
    try:
        c = await s.client(name="Zero")
        for name in TIMER_MINIMUMS:
            if TIMER_MINIMUMS[name] > 0:
                r = await c.request({"t": "create", "config": {name: 0}})
                assert r["code"] == "room/bad_config" and name in r["message"], r
        r = await c.request({"t": "create", "config": ZERO})
        assert r["code"] == "room/bad_config"
        r = await c.request({"t": "create", "config": {"hands": 4, "turn_time": 5, "claim_time": 2}})
        assert r["t"] == "snapshot", r
    finally:
        await stop(s)


async def test_zero_timers_do_not_block_loop(tmp_path):
    """Even with no minimums, start answers before the match is over and a bystander's ping is answered
    while the bots play (each call plays a few steps, then the loop runs others)."""
    s = await start_with(str(tmp_path / "z.db"), Quotas(timer_minimums={}))
    try:
        c = await s.client(name="Host")
        other = await s.client(name="Bystander")
        assert (await c.request({"t": "create", "config": ZERO}))["t"] == "snapshot"
        for seat in (1, 2, 3):
            assert (await c.request({"t": "add_bot", "seat": seat}))["t"] == "ok"
        await c.send({"t": "start", "id": "go"})
        await other.send({"t": "ping", "id": "p"})
        ok = await c.wait_for(lambda m: m.get("re") == "go", timeout=30)
        assert ok["t"] == "ok"
        assert not any(m.get("t") == "match_result" for m in c.frames)  # not played inside start
        assert (await other.wait_for(lambda m: m.get("re") == "p", timeout=30))["t"] == "pong"
        assert not any(m.get("t") == "match_result" for m in c.frames)
        await c.wait_for(lambda m: m.get("t") == "match_result", timeout=120)  # and it is played out
    finally:
        await stop(s)


async def test_rematch_and_room_creation_are_rate_limited_per_account(tmp_path):
    s = await start_with(str(tmp_path / "r.db"), Quotas(timer_minimums={}, creates=(0.001, 2), rematches=(0.001, 1)))
    try:
        c = await s.client(name="Maker")
        for _ in range(2):
            assert (await c.request({"t": "create", "config": {"hands": 4}}))["t"] == "snapshot"
            assert (await c.request({"t": "leave"}))["t"] == "ok"
        r = await c.request({"t": "create", "config": {"hands": 4}})
        assert r["code"] == "lobby/too_often"
        d = await s.client(name="Player")
        assert (await d.request({"t": "create", "config": {**ZERO, "hands": 4}}))["t"] == "snapshot"
        for seat in (1, 2, 3):
            assert (await d.request({"t": "add_bot", "seat": seat}))["t"] == "ok"
        assert (await d.request({"t": "start"}))["t"] == "ok"
        await d.wait_for(lambda m: m.get("t") == "match_result", timeout=120)
        assert (await d.request({"t": "rematch"}))["t"] == "ok"
        await asyncio.sleep(0)
        assert (await d.request({"t": "rematch"}))["code"] == "lobby/too_often"
    finally:
        await stop(s)


async def test_ghost_spectators_leave_after_grace(tmp_path):
    s = await start_with(str(tmp_path / "g.db"), Quotas(timer_minimums={}, spectator_grace=0.5))
    try:
        host = await s.client(name="Host")
        snap = await host.request({"t": "create", "config": {"hands": 4}})
        code, room = snap["info"]["invite"], snap["room"]
        stays = await s.client(name="Stays")
        assert (await stays.request({"t": "watch", "code": code}))["t"] == "ok"
        ghosts = [await s.client(name=f"Ghost{i}") for i in range(3)]
        for g in ghosts:
            assert (await g.request({"t": "watch", "code": code}))["t"] == "ok"
        m = await host.wait_for(lambda m: m.get("t") == "room" and m["info"]["spectators"] == 4)
        assert not any(g.player in str(m["info"]) for g in ghosts)  # a count, not the list
        host.inbox.clear()
        for g in ghosts:
            await g.close()
        m = await host.wait_for(lambda m: m.get("t") == "room" and m["info"]["spectators"] == 1, timeout=10)
        task = s.app.rooms[room]
        assert task.room.spectator_ids() == [stays.player]
        assert all(g.player not in task.members and g.player not in s.app.where for g in ghosts)
    finally:
        await stop(s)


def test_rate_buckets_stay_bounded():
    from server.quotas import Rates

    r = Rates(0.001, 1)
    for i in range(25_000):
        assert r.take(f"k{i}", 0.0)
        assert len(r.buckets) <= 10_000
    assert not r.take("k24999", 0.0)  # a recent key keeps its bucket
