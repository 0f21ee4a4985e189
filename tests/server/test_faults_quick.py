"""A quick-match table that cannot be made because the storage refuses writes: its players stay queued,
hear server/storage, and are placed once the storage takes writes again."""

import asyncio

import pytest

from server.lobby import QUICK_RETRY

FULL = "the database cannot be written (database or disk is full)"


async def tries(app, n: int) -> None:
    """The placement is tried ``n`` more times (each refused: its hold moves a retry later)."""
    start = app.quick._held
    for _ in range(600):
        if app.quick._held is not None and app.quick._held >= start + n * QUICK_RETRY - 0.01:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the placement was not tried {n} more times")


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
        await tries(app, 1)  # tried again meanwhile: still refused, still queued
        assert app.quick.queued(a.player) and app.quick.queued(b.player)
        r = await a.request({"t": "quick", "type": "wufan", "wait": 0})
        assert r["code"] == "lobby/queued", r  # they know they wait
    finally:
        store._set_fault(None)
    snaps = [await c.wait_for(lambda m: m.get("t") == "snapshot", timeout=5) for c in (a, b)]
    assert snaps[0]["room"] == snaps[1]["room"]
    assert not app.quick.queued(a.player) and not app.quick.queued(b.player)


async def test_the_quick_match_storage_push_is_sent_once_per_fault(server):
    """The table is tried again every second while the fault lasts: its players hear server/storage
    once, not at every try (nor a fresh queue count each time), then a ``queued`` push when the storage
    takes writes again, then their table."""
    app, store = server.app, server.app.store
    a, b = await server.client(name="Qonce0"), await server.client(name="Qonce1")

    store._set_fault(FULL)
    try:
        for c in (a, b):
            assert (await c.request({"t": "quick", "type": "wufan", "wait": 0}))["t"] == "queued"
        for c in (a, b):
            await c.wait_for(lambda m: m.get("code") == "server/storage", timeout=5)
        await tries(app, 1)
        for c in (a, b):
            await c.drain(0.2)
        marks = [len(c.frames) for c in (a, b)]
        await tries(app, 2)
        assert app.quick.queued(a.player) and app.quick.queued(b.player)
        assert [await c.drain(0.2) for c in (a, b)] == [[], []]  # nothing at the later tries
    finally:
        store._set_fault(None)
    for c, m in zip((a, b), marks):
        await c.wait_for(lambda x: x.get("t") == "snapshot", timeout=5)
        assert len([x for x in c.frames if x.get("code") == "server/storage"]) == 1
        kinds = [x["t"] for x in c.frames[m:]]
        assert kinds[0] == "queued" and kinds.count("queued") == 1 and "snapshot" in kinds, kinds


@pytest.mark.parametrize("when", ["before the room is made", "after the room is made"])
async def test_a_quick_match_placement_that_meets_a_bug_drops_nobody_unheard(server, monkeypatch, caplog, when):
    """A bug while a quick-match table is made (or the cluster's Redis failing once it is): logged, and
    its players are never left unheard: with no room they stay queued (told server/internal once) and
    are placed at the next try; with the room made they are seated in it."""
    app = server.app
    real, calls = app.new_room, []

    async def new_room(*args, **kw):
        calls.append(args)
        if len(calls) > 1:
            return await real(*args, **kw)
        if when == "after the room is made":
            await real(*args, **kw)
        raise RuntimeError("a bug")

    monkeypatch.setattr(app, "new_room", new_room)
    a = await server.client(name="Qbug")
    assert (await a.request({"t": "quick", "type": "wufan", "wait": 0}))["t"] == "queued"
    if when == "before the room is made":
        e = await a.wait_for(lambda m: m.get("t") == "error", timeout=5)
        assert e["code"] == "server/internal" and "stay queued" in e["message"]
        assert app.quick.queued(a.player)
    snap = await a.wait_for(lambda m: m.get("t") == "snapshot", timeout=5)
    assert app.where[a.player] is app.rooms[snap["room"]] and not app.quick.queued(a.player)
    assert len(calls) == (2 if when == "before the room is made" else 1)
    assert [r.getMessage() for r in caplog.get_records("call") if r.levelname == "ERROR"] == [
        f"quick match: placing ['{a.player}']"]
    caplog.clear()
