"""Storage faults and tournaments: while the store cannot take writes a tournament refuses commands with
server/storage and changes nothing, and what it does by itself (a session starting) waits in memory
until its log is written, never reported as a bug, never lost."""

import asyncio

from rooms.tournament.tournament import Tournament

FULL = "the database cannot be written (database or disk is full)"


async def test_a_tournament_pauses_with_the_storage_and_its_log_keeps_up_with_it(server, monkeypatch):
    from server import tournaments

    monkeypatch.setattr(tournaments, "RETRY_MAX", 0.3, raising=False)  # quick retries here
    app, store = server.app, server.app.store
    org = await server.client(name="Org")
    ps = [await server.client(name=f"F{i}") for i in range(4)]
    begin = int(app.now()) + 2
    r = await org.request({"t": "tournament_create", "config": {"name": "Full Cup", "hands": 1, "starts": [begin]}})
    tid = r["tournament"]["id"]
    for c in ps:
        for cmd in ("register", "checkin"):
            assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": cmd}}))["t"] == "ok"
    ttask = app.tournaments[tid]

    store._set_fault(FULL)  # what a refused commit does (server.store._stall)
    try:
        before = (ttask.t.tseq, ttask.n)
        r = await ps[0].request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "unregister"}})
        assert r["t"] == "error" and r["code"] == "server/storage", r
        assert (ttask.t.tseq, ttask.n) == before  # refused: nothing changed
        while app.now() < begin + 1:  # the session's start comes and goes: its tables cannot be made
            await asyncio.sleep(0.1)
        assert not [m for c in ps for m in c.frames if m.get("t") == "table"]
    finally:
        store._set_fault(None)
    for c in ps:  # the tables open once the storage is back
        await c.wait_for(lambda m: m.get("t") == "table", timeout=15)
    assert not [m for c in (org, *ps) for m in c.frames if m.get("code") == "server/internal"]
    (row,) = [x for x in await store.open_tournaments() if x["code"] == tid]
    assert len(row["log"]) == ttask.n
    stored = Tournament.replay(row["log"])  # what a restart would rebuild is what is running
    assert stored.view(org.player) == ttask.t.view(org.player)
    assert sorted(row["tables"].items()) == sorted(ttask.tables.items())
    for c in (org, *ps):  # read what the table sent: a client with unread frames closes slowly
        await c.drain()
