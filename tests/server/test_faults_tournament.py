"""Storage faults and tournaments: while the store cannot take writes a tournament refuses commands with
server/storage and changes nothing, and what it does by itself (a session starting) waits in memory
until its log is written, never reported as a bug, never lost."""

import asyncio
import json
import sqlite3

import pytest

from rooms.tournament.tournament import Tournament
from server import tournaments

FULL = "the database cannot be written (database or disk is full)"


async def scheduled_cup(server, org_name: str, prefix: str, cup: str, checked_in: int = 4):
    """An organiser and four players registered for a one-hand event starting a few seconds from now
    (whole seconds: the players register and check in before it); the first ``checked_in`` check in.
    Returns the organiser, the players, the tournament's id and its start."""
    org = await server.client(name=org_name)
    ps = [await server.client(name=f"{prefix}{i}") for i in range(4)]
    begin = int(server.app.now()) + 3
    r = await org.request({"t": "tournament_create", "config": {"name": cup, "hands": 1, "starts": [begin]}})
    tid = r["tournament"]["id"]
    for i, c in enumerate(ps):
        for cmd in ("register", "checkin")[:2 if i < checked_in else 1]:
            assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": cmd}}))["t"] == "ok"
    return org, ps, tid, begin


async def test_a_tournament_pauses_with_the_storage_and_its_log_keeps_up_with_it(server, monkeypatch):
    monkeypatch.setattr(tournaments, "RETRY_MAX", 0.3, raising=False)  # quick retries here
    app, store = server.app, server.app.store
    org, ps, tid, begin = await scheduled_cup(server, "Org", "F", "Full Cup")
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


def failing_writes(monkeypatch, times: int) -> list:
    """The next ``times`` writes of a tournament's log fail as a full disk would (inside the store's
    transaction: nothing of it lands); returns the list of failures so far. ``times`` may be a list of
    one number, changed later."""
    from server import store_base

    real, failed = store_base.append_tournament, []

    async def append(*args):
        if len(failed) < times[0] if isinstance(times, list) else len(failed) < times:
            failed.append(args[1:3])
            raise sqlite3.OperationalError("database or disk is full")
        return await real(*args)

    monkeypatch.setattr(store_base, "append_tournament", append)
    return failed


async def stored(store, tid: str) -> dict | None:
    return next((x for x in await store.open_tournaments() if x["code"] == tid), None)


async def test_a_tournament_command_whose_write_fails_is_refused_and_undone(server, monkeypatch, caplog):
    """A command's change the storage refuses to write is answered server/storage and undone in memory:
    the running tournament is what a restart would read, and the command may be sent again."""
    app, store = server.app, server.app.store
    org, p = await server.client(name="Org1"), await server.client(name="Reg1")
    r = await org.request({"t": "tournament_create", "config": {"name": "Undo Cup", "starts": [int(app.now()) + 600]}})
    tid = r["tournament"]["id"]
    ttask = app.tournaments[tid]
    failed = failing_writes(monkeypatch, 1)
    r = await p.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}})
    assert r["t"] == "error" and r["code"] == "server/storage", r
    assert failed and p.player not in ttask.t.players
    row = await stored(store, tid)
    assert ttask.n == len(row["log"]) and ttask.t.tseq == row["log"][-1]["tseq"]
    assert ttask.t.view(org.player) == Tournament.replay(row["log"]).view(org.player)
    r = await p.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}})
    assert r["t"] == "ok", r  # the storage takes it now
    row = await stored(store, tid)
    assert p.player in ttask.t.players
    assert ttask.t.view(org.player) == Tournament.replay(row["log"]).view(org.player)
    caplog.clear()


async def test_tables_opened_as_a_tournament_write_fails_are_not_orphaned(server, monkeypatch, caplog):
    """A session starts while the tournament's log cannot be written and the server stops meanwhile:
    no table's room is left in the database without its tournament knowing it (they are written in one
    transaction), and after a restart each table has exactly one room."""
    from tests.server.conftest import start, stop

    monkeypatch.setattr(tournaments, "RETRY_MAX", 0.3)
    app, store = server.app, server.app.store
    org, ps, tid, _ = await scheduled_cup(server, "Org2", "O", "Orphan Cup")
    failed = failing_writes(monkeypatch, 10**6)
    ttask = app.tournaments[tid]
    while len(failed) < 2:  # the session started in memory; its write (with the tables) is refused
        await asyncio.sleep(0.05)
    await app.stop()  # the operator stops the server during the fault
    monkeypatch.undo()
    con = sqlite3.connect(server.db)
    try:
        open_rooms = {c for (c,) in con.execute("SELECT code FROM rooms WHERE closed_at IS NULL")}
        known = {c for (c,) in con.execute("SELECT room FROM tournament_tables")}
    finally:
        con.close()
    assert open_rooms <= known, open_rooms - known  # no room its tournament does not know
    assert not [m for c in ps for m in c.frames if m.get("t") == "table"]
    again = await start(server.db)
    try:
        t2 = again.app.tournaments[tid]
        for _ in range(200):  # the session starts again: its table opens, once
            if t2.tables:
                break
            await asyncio.sleep(0.05)
        row = await stored(again.app.store, tid)
        assert sorted(row["tables"].items()) == sorted(t2.tables.items()) and len(t2.tables) == 1
        assert {c for c in again.app.rooms} == set(t2.tables.values())
    finally:
        await stop(again)
    assert ttask.task.done()
    caplog.clear()


async def test_the_public_view_never_shows_a_change_not_yet_written(server, monkeypatch):
    """GET /api/tournaments/<id> while a session's start waits for its write: not the running session
    held in memory (503 while the storage refuses), then the session once it is written."""
    from server import api
    from tests.server.test_metrics import fetch

    monkeypatch.setattr(tournaments, "RETRY_MAX", 0.3)
    monkeypatch.setattr(api, "VIEW_WAIT", 0.5, raising=False)
    app, store = server.app, server.app.store
    org, ps, tid, _ = await scheduled_cup(server, "Org3", "V", "View Cup")
    url = f"http://127.0.0.1:{server.port}/api/tournaments/{tid}"
    times = [10**6]
    failed = failing_writes(monkeypatch, times)
    while not failed:  # the session started in memory; its write is refused
        await asyncio.sleep(0.05)
    status, _, body = await asyncio.to_thread(fetch, url)
    logged = Tournament.replay((await stored(store, tid))["log"])
    assert logged.state == "registering" and app.tournaments[tid].t.state == "running"
    assert (status, json.loads(body)) == (503, {"error": "storage"})  # not the unwritten session
    times[0] = 0  # the storage takes writes again
    for c in ps:
        await c.wait_for(lambda m: m.get("t") == "table", timeout=15)
    status, _, body = await asyncio.to_thread(fetch, url)
    assert status == 200 and json.loads(body)["state"] == "running"
    for c in (org, *ps):
        await c.drain()


@pytest.mark.parametrize("what", ["a command", "a session's start"])
async def test_a_tournament_write_whose_answer_was_lost_is_neither_repeated_nor_forgotten(server, monkeypatch, what):
    """The connection is lost as a tournament's write commits: the write landed but its caller hears a
    storage error. The log is looked at before the write is tried again or undone: nothing is written
    twice (the repeat would be refused as a bug, the tournament stuck behind its log) or dropped."""
    from server.store import StorageError

    monkeypatch.setattr(tournaments, "RETRY_MAX", 0.3)
    app, store = server.app, server.app.store
    org = await server.client(name="Org4")
    ps = [await server.client(name=f"W{i}") for i in range(4)]
    begin = int(app.now()) + (3 if what == "a session's start" else 600)  # at least 2 s for the 8 commands
    r = await org.request({"t": "tournament_create", "config": {"name": "Lost Cup", "hands": 1, "starts": [begin]}})
    tid = r["tournament"]["id"]
    ttask = app.tournaments[tid]
    real, lost = store.write_tournament, []

    async def write_tournament(*args, **kw):
        out = await real(*args, **kw)
        if armed and not lost:
            lost.append(args)
            raise StorageError("the database cannot be written (connection lost while committing)")
        return out

    monkeypatch.setattr(store, "write_tournament", write_tournament)
    armed = what == "a command"  # the first registration's write is lost, else the session start's
    for c in ps:
        for cmd in ("register",) if armed else ("register", "checkin"):
            assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": cmd}}))["t"] == "ok"
    armed = True
    if what == "a command":
        assert lost and {c.player for c in ps} <= set(ttask.t.players)
    else:
        for c in ps:
            await c.wait_for(lambda m: m.get("t") == "table", timeout=15)
        assert lost and lost[0][3] and len(ttask.tables) == 1  # the write with the table lost its answer
    row = await stored(store, tid)
    assert ttask.n == len(row["log"])
    assert ttask.t.view(org.player) == Tournament.replay(row["log"]).view(org.player)
    assert sorted(row["tables"].items()) == sorted(ttask.tables.items())
    assert not [m for c in (org, *ps) for m in c.frames if m.get("code") == "server/internal"]
    for c in (org, *ps):
        await c.drain()


async def test_a_stop_queued_while_a_write_is_under_way_ends_the_tournament_once_the_storage_refuses_it(
        server, monkeypatch):
    """A Stop comes while the session start's write is still in the storage (not yet refused, so not
    yet waiting to be tried again); the storage then refuses it: the tournament ends, not retrying
    until the server's stop gives up on it (nobody saw what the write held)."""
    from server.roomitems import STOP

    app, store = server.app, server.app.store
    org, ps, tid, _ = await scheduled_cup(server, "StopOrg", "S", "Stop Cup")
    ttask = app.tournaments[tid]
    entered, refuse = asyncio.Event(), asyncio.Event()

    async def write_tournament(*args, **kw):
        entered.set()
        await refuse.wait()
        raise tournaments.StorageError("the database cannot be written (database or disk is full)")

    monkeypatch.setattr(store, "write_tournament", write_tournament)
    await asyncio.wait_for(entered.wait(), 15)  # the session starts: its write is in the storage
    ttask.put(STOP)  # queued behind it: nothing is retrying yet
    assert not ttask.retrying and not ttask.task.done()
    refuse.set()
    done, _ = await asyncio.wait({ttask.task}, timeout=10)
    assert done, "the tournament kept retrying its write after a Stop"
    assert not [m for c in ps for m in c.frames if m.get("t") == "table"]  # nothing it held was shown
    for c in (org, *ps):
        await c.drain()
