"""A player who leaves a tournament table: the table keeps their seat (托管 plays it, they may come
back), but the room no longer has them as a member; disconnecting and signing in again afterwards
must not hit the room's task as a bug."""

from __future__ import annotations

import asyncio
import logging

from server.roomitems import TICK


async def test_leaving_a_finished_table_then_disconnecting_is_no_bug(server, caplog):
    ps = [await server.client(name=f"L{i}") for i in range(4)]
    r = await ps[0].request({"t": "tournament_create", "config": {
        "name": "Leave Cup", "hands": 1, "time_limit": 1, "starts": [int(server.app.now()) + 3]}})
    tid = r["tournament"]["id"]
    for c in ps:
        for cmd in ("register", "checkin"):
            assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": cmd}}))["t"] == "ok"
    table = (await ps[0].wait_for(lambda m: m.get("t") == "table", timeout=15))["room"]
    await ps[0].wait_for(lambda m: m.get("t") == "tournament_event" and m["event"] == "table_started", timeout=15)
    ttask = server.app.tournaments[tid]
    real = server.app.now
    ttask.clock = lambda: real() + 61  # the session's minute is up: the table's match ends (void hand)
    ttask.put(TICK)
    for c in ps:
        await c.wait_for(lambda m: m.get("t") == "match_result", timeout=15)

    leaver = ps[1]
    assert (await leaver.request({"t": "leave"}))["t"] == "ok"
    room = server.app.rooms[table]
    assert leaver.player not in room.room.members  # the room dropped them; the table keeps the seat
    await leaver.close()
    back = await server.client()
    w = await back.request({"t": "resume", "token": leaver.token})
    assert w["t"] == "welcome" and w["room"] == table  # the seat is still theirs: they may join again
    r = await back.request({"t": "snapshot"})  # not a member until they do
    assert r["t"] == "error" and r["code"] == "lobby/not_in_room", r
    await back.close()
    for _ in range(500):  # the server saw the close: the room's task is told
        if back.player not in server.app.conns:
            break
        await asyncio.sleep(0.02)
    assert back.player not in server.app.conns
    await ps[0].request({"t": "snapshot"})  # answered after the room's task took the disconnects (one queue)
    frames = [f for c in (*ps, back) for f in c.frames]
    assert not [f for f in frames if f.get("code") == "server/internal"]
    assert not [r for r in caplog.records if "a bug handling" in r.getMessage()]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
