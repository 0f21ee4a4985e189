"""A room made on request or by quick match while a storage fault begins: the player is answered at
once, never after the fault; a room is either whole in the database (its row, its log, a quick-match
room's first match) or not there at all, and nothing half-made is listed."""

import sqlite3

import pytest

from tests.server.test_faults import logged

CONFIG = {"hands": 4, "claim_min": 0, "bot_delay": 0, "type": "wufan", "private": False}  # listed
DISK_FULL = "database or disk is full"


def rooms_in(db: str) -> list[str]:
    con = sqlite3.connect(db)
    try:
        return [code for (code,) in con.execute("SELECT code FROM rooms ORDER BY id")]
    finally:
        con.close()


def matches_of(db: str, room_db_id: int) -> list[int]:
    con = sqlite3.connect(db)
    try:
        return [n for (n,) in con.execute("SELECT number FROM matches WHERE room_id = ?", (room_db_id,))]
    finally:
        con.close()


def fill_disk_after_room_rows(store, monkeypatch) -> None:
    """From the moment a room's row is written, the disk is full for the log's group commit."""
    real_add, real_write = store.add_room, store._write_batch_sync
    full = []

    def write_batch(batch):
        if full:
            raise sqlite3.OperationalError(DISK_FULL)
        return real_write(batch)

    async def add_room(*args, **kw):
        room_id = await real_add(*args, **kw)
        full.append(room_id)
        return room_id

    monkeypatch.setattr(store, "_write_batch_sync", write_batch)
    monkeypatch.setattr(store, "add_room", add_room)


@pytest.mark.parametrize("how", ["create", "quick"])
async def test_a_room_made_as_a_storage_fault_begins_is_answered_at_once(server, monkeypatch, how):
    """The disk fills up right after the new room's row is written: the room was written whole with it
    (no window between its row and its first log rows), so the player gets their room's snapshot at
    once rather than after the fault, and the database holds the room with its log (and a quick-match
    room's first match)."""
    app, store = server.app, server.app.store
    fill_disk_after_room_rows(store, monkeypatch)
    c = await server.client(name="Atomic")
    if how == "create":
        snap = await c.request({"t": "create", "config": CONFIG}, timeout=10)
    else:
        assert (await c.request({"t": "quick", "type": "wufan", "wait": 0}))["t"] == "queued"
        snap = await c.wait_for(lambda m: m.get("t") in ("snapshot", "error"), timeout=10)
    assert snap["t"] == "snapshot", snap
    task = app.rooms[snap["room"]]
    assert rooms_in(server.db) == [snap["room"]]
    entries = logged(server.db, task.db_id)
    assert entries and entries[0]["k"] == "create" and entries[0]["room"] == snap["room"]
    if how == "quick":  # started at once: its match is recorded with the room
        assert matches_of(server.db, task.db_id) == [1] and task.matches[1]["id"] is not None


async def test_a_room_whose_write_fails_is_refused_at_once_and_a_retry_works(server, monkeypatch):
    """The disk fills up between the room's row and its first log rows (one transaction): the create is
    answered server/storage at once, no row of it is left in the database or listed, and the same
    request works once the disk has room again."""
    app, store = server.app, server.app.store
    real_insert, full = store._insert_room, [True]

    async def insert_room(db, *args):
        if not full:
            return await real_insert(db, *args)
        await db.execute("INSERT INTO rooms (code, config, created_at) VALUES ('rhalf', '{}', 0)")
        raise sqlite3.OperationalError(DISK_FULL)  # the log's rows cannot follow

    monkeypatch.setattr(store, "_insert_room", insert_room)
    c, other = await server.client(name="Refused"), await server.client(name="Looker")
    e = await c.request({"t": "create", "config": CONFIG}, timeout=10)
    assert e["t"] == "error" and e["code"] == "server/storage", e
    assert rooms_in(server.db) == [] and not app.rooms and c.player not in app.where
    assert (await other.request({"t": "rooms"}))["rooms"] == []
    full.clear()
    snap = await c.request({"t": "create", "config": CONFIG}, timeout=10)
    assert snap["t"] == "snapshot", snap
    assert rooms_in(server.db) == [snap["room"]]
    assert [r["room"] for r in (await other.request({"t": "rooms"}))["rooms"]] == [snap["room"]]
