"""A quick-match table that cannot be made because the storage refuses writes: its players stay queued,
hear server/storage, and are placed once the storage takes writes again."""

import asyncio

FULL = "the database cannot be written (database or disk is full)"


async def test_a_failed_quick_match_placement_keeps_the_players_queued(server):
    app, store = server.app, server.app.store
    a, b = await server.client(name="Qa"), await server.client(name="Qb")
    store._set_fault(FULL)  # what a refused commit does (server.store._stall)
    try:
        for c in (a, b):  # two who accept bots at once: placed together as soon as both wait
            r = await c.request({"t": "quick", "type": "wufan", "wait": 0})
            assert r["t"] == "queued", r
        for c in (a, b):
            e = await c.wait_for(lambda m: m.get("code") == "server/storage", timeout=5)
            assert "re" not in e and "stay queued" in e["message"]
        assert app.quick.queued(a.player) == app.quick.queued(b.player) == "wufan"
        assert a.player not in app.where and b.player not in app.where
        await asyncio.sleep(1.5)  # tried again meanwhile: still refused, still queued
        assert app.quick.queued(a.player) and app.quick.queued(b.player)
        r = await a.request({"t": "quick", "type": "wufan", "wait": 0})
        assert r["code"] == "lobby/queued", r  # they know they wait
    finally:
        store._set_fault(None)
    snaps = [await c.wait_for(lambda m: m.get("t") == "snapshot", timeout=5) for c in (a, b)]
    assert snaps[0]["room"] == snaps[1]["room"]
    assert not app.quick.queued(a.player) and not app.quick.queued(b.player)
