"""One owner per fact (docs/architecture.md "Who owns what"): a room's log position, its members and its
matches' seeds live in the room; the room task and the store read or check them, never count them again."""

from __future__ import annotations

import asyncio
import random

from server import fair
from server.roomitems import TICK
from tests.server.client import play
from tests.server.conftest import FAST


async def started_room(server):
    c = await server.client(name="Owner")
    snap = await c.request({"t": "create", "config": {**FAST, "type": "wufan"}})
    for _ in range(3):
        assert (await c.request({"t": "add_bot", "level": "random"}))["t"] == "ok"
    assert (await c.request({"t": "ready"}))["t"] == "ok"
    return c, server.app.rooms[snap["room"]]


async def test_the_log_position_has_one_owner(server):
    """The rows a room logged (Room.rows) number the stored log: the task keeps no count of its own, and
    the store's next row and the log read back agree with the room's."""
    c, task = await started_room(server)
    await play(c, random.Random(1), lambda m: m.get("t") == "hand_result")
    store = server.app.store
    assert not hasattr(task, "n")
    task.put(TICK)
    while task.room.pending_log() or task._inflight or not task.queue.waiting:  # until all is durable
        await asyncio.sleep(0.01)
    assert task.room.rows == store._next_n[task.db_id] == await store.log_length(task.db_id)


async def test_membership_has_one_owner(server):
    """The task asks the room who is in it: a change shows at once, with no copy to refresh."""
    c, task = await started_room(server)
    watcher = await server.client(name="Watcher")
    assert (await watcher.request({"t": "watch", "room": task.id, "code": task.invite}))["t"] == "ok"
    assert task.members == task.room.member_ids() == {c.player, watcher.player}
    task.room.members[watcher.player].seat = None  # the room's own record, changed in place
    del task.room.members[watcher.player]
    assert task.members == {c.player}


async def test_a_match_seed_has_one_owner(server):
    """The commitment and the reveal use the seed of the room's match (Room.match.seed): the task keeps
    neither the secret nor a seed of its own."""
    c, task = await started_room(server)
    commitment = await c.wait_for(lambda m: m.get("t") == "commitment", timeout=60)
    seed = task.room.match.seed
    reveal = await play(c, random.Random(2), lambda m: m.get("t") == "reveal", timeout=120)
    assert not hasattr(task, "secret") and "seed" not in task.matches[1]
    assert int(reveal["seed"]) == seed and reveal["commitment"] == commitment["commitment"]
    assert fair.commitment(seed, reveal["salt"]) == commitment["commitment"]
