"""Quick match of 4, 8 or 16 hands: one queue per room type and length, the length checked, and the
queue telling each waiting player how many wait and when bots are expected to fill their table."""

from __future__ import annotations

import asyncio

import pytest


async def test_quick_match_of_8_or_16_hands_plays_that_many(server):
    for hands in (8, 16):
        c = await server.client(name=f"Len{hands}")
        r = await c.request({"t": "quick", "type": "wufan", "hands": hands, "wait": 0})
        assert r["t"] == "queued" and r["hands"] == hands, r
        snap = await c.wait_for(lambda m: m.get("t") == "snapshot")
        assert snap["info"]["config"]["hands"] == hands and snap["info"]["quick"]
        assert snap["info"]["config"]["ranked"]
        assert (await c.request({"t": "leave"}))["t"] == "ok"


async def test_quick_match_without_hands_is_the_servers_length(server):
    c = await server.client(name="Default")
    assert (await c.request({"t": "quick", "wait": 0}))["hands"] == 4
    snap = await c.wait_for(lambda m: m.get("t") == "snapshot")
    assert snap["info"]["config"]["hands"] == 4


@pytest.mark.parametrize("hands", [0, 5, 12, 32, -4, True, 8.0, "8"])
async def test_quick_match_length_must_be_4_8_or_16(server, hands):
    c = await server.client(name="Odd")
    r = await c.request({"t": "quick", "hands": hands, "wait": 0})
    assert r["t"] == "error" and r["code"] == "protocol/bad_field", r
    assert server.app.quick.queued(c.player) is None  # nothing changed
    assert (await c.request({"t": "quick", "hands": 8, "bots": False}))["t"] == "queued"  # still free to queue


async def test_quick_queues_are_separate_per_length_and_type_and_tell_the_count(server):
    a, b, c, d = [await server.client(name=n) for n in ("Ann", "Bob", "Cat", "Dan")]
    # Humans only: nobody is seated until four of one queue are there.
    ra = await a.request({"t": "quick", "type": "guobiao", "hands": 8, "bots": False})
    assert (ra["waiting"], ra["fill"], ra["wait"]) == (1, None, None)
    rb = await b.request({"t": "quick", "type": "guobiao", "hands": 16, "bots": False})
    assert rb["waiting"] == 1  # another length: another queue
    rc = await c.request({"t": "quick", "type": "dazhong", "hands": 8, "bots": False})
    assert rc["waiting"] == 1  # another type: another queue
    rd = await d.request({"t": "quick", "type": "guobiao", "hands": 8, "bots": False})
    assert rd["waiting"] == 2
    # Ann hears that Dan joined her queue; Bob and Cat hear nothing.
    told = await a.wait_for(lambda m: m.get("t") == "queued" and "re" not in m)
    assert (told["type"], told["hands"], told["waiting"]) == ("guobiao", 8, 2)
    assert not [m for m in b.inbox + c.inbox if m.get("t") == "queued"]
    assert (await d.request({"t": "quick_cancel"}))["t"] == "ok"
    told = await a.wait_for(lambda m: m.get("t") == "queued" and "re" not in m)
    assert told["waiting"] == 1


async def test_quick_queue_estimates_when_bots_fill_and_says_so_again_after_a_resume(server):
    a = await server.client(name="Early")
    ra = await a.request({"t": "quick", "type": "guobiao", "hands": 4, "wait": 30})
    assert ra["waiting"] == 1 and 29 <= ra["fill"] <= 30, ra
    b = await server.client(name="Late")
    rb = await b.request({"t": "quick", "type": "guobiao", "hands": 4, "wait": 120})
    # Ann's table fills with bots in 30 s and takes Bob (same rating): his estimate is hers, not 120 s.
    assert rb["waiting"] == 2 and 28 <= rb["fill"] <= 30, rb
    # Signing in again while queued: the welcome names the type, then where they stand.
    again = await server.client()
    w = await again.request({"t": "resume", "token": b.token})
    assert w["t"] == "welcome" and w["queued"] == "guobiao"
    q = await again.wait_for(lambda m: m.get("t") == "queued")
    assert q["hands"] == 4 and q["waiting"] == 2 and q["fill"] <= 30


async def test_quick_queue_keeps_a_player_who_reloads_and_tells_the_time_waited(server, monkeypatch):
    """A closed connection (a page reload) keeps the quick-match place for QUICK_GRACE: the new
    connection hears the same queue and the seconds waited since joining; one who stays away leaves."""
    import server.connections as connections

    a = await server.client(name="Reload")
    r = await a.request({"t": "quick", "type": "dazhong", "hands": 16, "wait": 300})
    assert r["waited"] < 1, r
    await asyncio.sleep(1.2)
    await a.close()
    for _ in range(500):  # the server has seen the close
        if a.player not in server.app.conns:
            break
        await asyncio.sleep(0.02)
    assert a.player not in server.app.conns
    again = await server.client()
    w = await again.request({"t": "resume", "token": a.token})
    assert w["t"] == "welcome" and w["queued"] == "dazhong", w
    q = await again.wait_for(lambda m: m.get("t") == "queued")
    assert q["hands"] == 16 and q["waiting"] == 1 and q["waited"] >= 1.2, q
    assert 0 < q["fill"] <= 300 - 1.2, q
    # Gone for good: once the grace ends, the place is given up.
    monkeypatch.setattr(connections, "QUICK_GRACE", 0.1)
    await again.close()
    for _ in range(100):
        if server.app.quick.queued(a.player) is None:
            break
        await asyncio.sleep(0.05)
    assert server.app.quick.queued(a.player) is None
