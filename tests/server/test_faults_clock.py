"""A room paused by a storage fault stops its clocks: nobody is timed out (or played for) while the
server cannot write, and the decision being timed gets the paused time back when play goes on."""

import asyncio
import random

from rooms.room import Room
from tests.server.conftest import FAST
from tests.server.test_faults import discard_prompt, host_to_discard, logged

FULL = "the database cannot be written (database or disk is full)"
TURN = 2.0  # seconds a turn is timed here (a loaded machine reaches the pause well within it); the pause lasts longer


async def test_turn_timers_stand_still_while_the_room_is_paused(server):
    app, store = server.app, server.app.store
    c = await server.client(name="Clock")
    snap = await c.request({"t": "create", "config": {**FAST, "type": "wufan", "first_turn_time": TURN,
                                                      "turn_time": TURN, "bank": 0}})
    for _ in range(3):
        assert (await c.request({"t": "add_bot", "level": "random"}))["t"] == "ok"
    assert (await c.request({"t": "ready"}))["t"] == "ok"
    task = app.rooms[snap["room"]]
    await host_to_discard(server, [c], task, random.Random(4))
    rseq = task.room.rseq
    store._set_fault(FULL)  # what a refused commit does (server.store._stall): every room pauses
    try:
        await c.wait_for(lambda m: m.get("code") == "server/storage", timeout=5)
        await asyncio.sleep(2 * TURN)  # the turn's time runs out on the wall clock
        assert task.room.rseq == rseq  # nothing was done for the player: no timeout while paused
    finally:
        store._set_fault(None)
    back = await c.wait_for(lambda m: m.get("t") == "snapshot" and "re" not in m, timeout=5)
    assert discard_prompt(back)  # still the player's turn
    left = back["clock"]["deadline"] - app.now()
    assert 0 < left <= TURN  # the time it had when the room paused, not less than nothing
    await c.wait_for(lambda m: m.get("t") == "game" and m["rseq"] > back["rseq"], timeout=TURN + 5)  # then it runs out
    for _ in range(500):  # the pause is in the log: a replay's clocks agree with the running room's
        entries = logged(server.db, task.db_id)
        if any(e.get("k") == "paused" for e in entries):
            break
        await asyncio.sleep(0.02)
    (paused,) = [e for e in entries if e.get("k") == "paused"]
    assert paused["seconds"] >= 2 * TURN
    replayed = Room.replay(entries[:entries.index(paused) + 1])
    assert replayed.turn_started == back["clock"]["started"]
