"""A tournament that must read its players' names while the database cannot be read answers
server/storage (not server/internal) and changes nothing."""

import asyncio
import sqlite3

IO_ERROR = "disk I/O error"


async def test_learn_names_during_a_database_outage_answers_storage_and_changes_nothing(server, monkeypatch):
    app, store = server.app, server.app.store
    org, p, q = [await server.client(name=n) for n in ("NamesOrg", "NamesAway", "NamesAsker")]
    r = await org.request({"t": "tournament_create", "config": {"name": "Names Cup", "starts": [int(app.now()) + 600]}})
    tid = r["tournament"]["id"]
    ttask = app.tournaments[tid]
    assert (await p.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}}))["t"] == "ok"
    await p.close()
    for _ in range(500):
        if p.player not in app.conns:
            break
        await asyncio.sleep(0.01)
    assert p.player not in app.conns  # offline: their name comes from the database
    ttask.names.pop(p.player)  # not known yet, as after a restart
    real = store.fetchall

    async def outage(*args, **kw):
        raise sqlite3.OperationalError(IO_ERROR)

    monkeypatch.setattr(store, "fetchall", outage)
    before = (ttask.t.tseq, ttask.n, set(ttask.followers), dict(ttask.names), app.following.get(q.player))
    e = await q.request({"t": "tournament", "tournament": tid})
    assert e["t"] == "error" and e["code"] == "server/storage", e
    e = await q.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}})
    assert e["t"] == "error" and e["code"] == "server/storage", e
    assert (ttask.t.tseq, ttask.n, set(ttask.followers), dict(ttask.names), app.following.get(q.player)) == before
    assert q.player not in ttask.t.players
    assert await app.api(f"/api/tournaments/{tid}") == (503, {"error": "storage"})  # the public view: the same
    monkeypatch.setattr(store, "fetchall", real)
    v = (await q.request({"t": "tournament", "tournament": tid}))["tournament"]
    assert v["names"][p.player] == "NamesAway" and q.player in ttask.followers
    assert app.following[q.player] is ttask
    assert (await q.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}}))["t"] == "ok"
    assert not [m for c in (org, q) for m in c.frames if m.get("code") == "server/internal"]


async def seated_offline(server, host_name: str, away_name: str):
    """A room's host, a player seated there who went offline, and the room's task, which has not learnt
    that player's name yet (as after a restart)."""
    app = server.app
    host, away = await server.client(name=host_name), await server.client(name=away_name)
    snap = await host.request({"t": "create", "config": {"hands": 4, "private": True}})
    assert (await away.request({"t": "join", "code": snap["info"]["invite"]}))["t"] == "ok"
    task = app.rooms[snap["room"]]
    await away.close()
    for _ in range(500):
        if away.player not in app.conns:
            break
        await asyncio.sleep(0.01)
    assert away.player not in app.conns and away.player in task.members  # seated, offline
    task.names.pop(away.player)
    return host, away, task


async def test_a_room_that_cannot_read_names_still_sends_what_it_wrote(server, monkeypatch):
    """A change of seats whose players' names cannot be read (the database out of reach) is written:
    its messages and its ok go out (with the names known), never server/internal."""
    app, store = server.app, server.app.store
    host, away, task = await seated_offline(server, "RoomHost", "RoomAway")

    async def outage(*args, **kw):
        raise sqlite3.OperationalError(IO_ERROR)

    monkeypatch.setattr(store, "fetchall", outage)
    r = await host.request({"t": "add_bot", "level": "random"})
    assert r["t"] == "ok", r
    room = [m for m in host.frames[:host.frames.index(r)] if m.get("t") == "room"][-1]  # before its ok
    assert sum(1 for s in room["info"]["seats"] if s is not None and s["bot"] is not None) == 1
    assert not [m for m in host.frames if m.get("code") == "server/internal"]


async def test_a_room_fills_in_a_name_it_could_not_read_at_the_next_snapshot(server, monkeypatch):
    """A name the room could not read (the database out of reach at a change of seats) is read again
    before the next snapshot once the database answers, not only at the next change of seats."""
    app, store = server.app, server.app.store
    host, away, task = await seated_offline(server, "FillHost", "FillAway")
    real = store.fetchall

    async def outage(*args, **kw):
        raise sqlite3.OperationalError(IO_ERROR)

    monkeypatch.setattr(store, "fetchall", outage)
    assert (await host.request({"t": "add_bot", "level": "random"}))["t"] == "ok"
    s = await host.request({"t": "snapshot"})
    assert s["t"] == "snapshot" and away.player not in s["info"]["names"]  # still out of reach
    monkeypatch.setattr(store, "fetchall", real)  # the database answers again; no seat changes
    s = await host.request({"t": "snapshot"})
    assert s["t"] == "snapshot" and s["info"]["names"][away.player] == "FillAway", s["info"]["names"]
