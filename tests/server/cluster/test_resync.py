"""A storage pause on a room's owner (docs/cluster.md, docs/protocol.md "Persistence"): every member,
whether their websocket is on the owner or on another node, hears ``server/storage`` when it begins
and gets a snapshot when the room's writes have landed, then plays on."""

from __future__ import annotations

import asyncio
import random

import asyncpg
import pytest

from tests.server.client import play
from tests.server.cluster.test_nodes import eventually, guest_in_remote_room, nodes, numbered  # noqa: F401 (a fixture)

pytestmark = pytest.mark.postgres


class Outage:
    """The owner's PostgreSQL out of reach while ``down``: its group commits fail as on a lost
    connection (a storage fault: held back and retried), and go through again once it is back."""

    def __init__(self, store):
        self.down = False
        self.refused = 0
        real = store._write_batch

        async def write_batch(batch):
            if self.down:
                self.refused += 1
                raise asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation")
            return await real(batch)
        store._write_batch = write_batch
        store.RETRY_FIRST = store._retry_in = 0.05


def pushed(c, what) -> list[dict]:
    """The pushes (no ``re``) among what ``c`` received that ``what`` picks."""
    return [m for m in c.frames if "re" not in m and what(m)]


def storage_notice(m: dict) -> bool:
    return m.get("t") == "error" and m.get("code") == "server/storage"


def snapshot(m: dict) -> bool:
    return m.get("t") == "snapshot"


async def test_a_remote_member_hears_a_storage_pause_and_gets_the_resync_snapshot(nodes, caplog):
    owner, other = nodes
    host, snap, guest = await guest_in_remote_room(other, owner)  # the room on `owner`, the guest on `other`
    room = snap["room"]
    assert room in owner.app.rooms and room not in other.app.rooms
    await eventually(lambda: guest.player in owner.app.cluster.proxies)
    for _ in range(2):
        assert (await host.request({"t": "add_bot"}))["t"] == "ok"
    for c in (host, guest):
        await c.drain(0.2)
        c.inbox.clear()  # the join's snapshot and the bots' seats: not what the pause sends
    outage = Outage(owner.app.store)

    outage.down = True
    await guest.send({"t": "ready", "id": "held"})  # taken by the room, its write held back
    for c in (host, guest):
        notice = await c.wait_for(lambda m: storage_notice(m) and "re" not in m)
        assert notice["room"] == room
    assert outage.refused and owner.app.store.fault is not None
    outage.down = False
    assert (await guest.wait_for(lambda m: m.get("re") == "held"))["t"] == "ok"  # written, then answered
    for c in (host, guest):
        again = await c.wait_for(lambda m: snapshot(m) and "re" not in m)
        assert again["room"] == room and again["you"]["seat"] is not None
    assert owner.app.store.fault is None
    assert [r.getMessage().split(":")[0] for r in caplog.get_records("call") if r.levelname == "ERROR"] == [
        "writes held back"]
    caplog.clear()
    # The guest's node numbered every message without a gap: the notice, then the snapshot.
    ns = numbered(guest.frames)
    assert ns == list(range(1, len(ns) + 1))
    notice_at = guest.frames.index(pushed(guest, storage_notice)[-1])
    assert any(snapshot(m) for m in guest.frames[notice_at + 1:] if "re" not in m)

    assert (await host.request({"t": "ready"}))["t"] == "ok"  # and play goes on, across the nodes
    rng = random.Random(7)
    done = await asyncio.gather(*(play(c, rng, lambda m: m.get("t") == "hand_result") for c in (host, guest)))
    assert done[0]["record"] == done[1]["record"]
    ns = numbered(guest.frames)
    assert ns == list(range(1, len(ns) + 1)) and len(ns) > 10
