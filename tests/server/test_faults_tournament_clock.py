"""A storage fault stops a tournament's clocks: no automatic sanction while the server cannot write, and
the time it lasted does not count towards a player's lateness (R98 第十三条(二)1)."""

import asyncio

from rooms.tournament.tournament import Tournament
from server.roomitems import TICK
from server.store import open_store
from tests.server.test_faults_tournament import FULL, scheduled_cup, stored

async def seated_but_one(org, ps, ttask, tid) -> None:
    """The session started: every one online is taken to the table (the room reports each seat taken),
    which waits for the one not checked in; the tournament has handled it all."""
    for c in ps:
        await c.wait_for(lambda m: m.get("t") == "table", timeout=15)
    (table,) = ttask.t.tables.values()
    for _ in range(500):
        if len(table.seated) == 4:
            break
        await asyncio.sleep(0.02)
    assert len(table.seated) == 4 and table.state == "waiting"
    assert (await org.request({"t": "tournament", "tournament": tid}))["t"] == "tournament"


async def test_a_storage_fault_does_not_make_a_player_late_or_forfeit(server):
    app, store = server.app, server.app.store
    org, ps, tid, begin = await scheduled_cup(server, "ClockOrg", "Clock", "Clock Cup", checked_in=3)  # the last comes late
    ttask, late = app.tournaments[tid], ps[3]
    await seated_but_one(org, ps, ttask, tid)
    start = ttask.t.sessions[0].start
    assert start == begin
    real, shift = app.now, [0.0]
    ttask.clock = lambda: real() + shift[0]  # the tournament's clock (the tables play on the real one)
    shift[0] = start + 300 - real()  # 5 minutes after the start the disk fills up
    store._set_fault(FULL)
    try:
        shift[0] = start + 1200 - real()  # 20 minutes after the start: past the 15 of 自动弃权
        ttask.put(TICK)  # its clock is looked at
        r = await late.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "checkin"}})
        assert r["t"] == "error" and r["code"] == "server/storage", r  # the server cannot take it
        assert not ttask.t.sanctions.records  # nobody forfeited while the server could not write
    finally:
        store._set_fault(None)  # the fault lasted 15 minutes of the tournament's clock
    for _ in range(500):  # the pause is logged
        row = await stored(store, tid)
        if any(e["k"] == "paused" for e in row["log"]):
            break
        await asyncio.sleep(0.02)
    (paused,) = [e for e in row["log"] if e["k"] == "paused"]
    assert paused["end"] - paused["begin"] >= 899
    assert ttask.t.sessions[0].start == start + paused["end"] - paused["begin"]
    r = await late.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "checkin"}})
    assert r["t"] == "ok", r  # 5 minutes late, not 20: 警告 and −10, not 自动弃权
    records = [(s["kind"], s["player"], s["points"]) for s in ttask.t.sanctions.records]
    assert records == [("warning", late.player, 0), ("late", late.player, 10)], records
    row = await stored(store, tid)
    replayed = Tournament.replay(row["log"])  # a restart rebuilds the same clocks
    assert replayed.sessions[0].start == ttask.t.sessions[0].start
    assert replayed.view(org.player) == ttask.t.view(org.player)
    for c in (org, *ps):
        await c.drain()


async def test_a_command_to_a_tournament_waiting_for_its_write_is_answered_at_once(server, monkeypatch, caplog):
    """A session's start waits for its write, which the storage refuses: a command meanwhile is answered
    server/storage at once (not when the write lands) and changes nothing; once the write lands the
    same command works."""
    from server import tournaments
    from tests.server.test_faults_tournament import failing_writes

    monkeypatch.setattr(tournaments, "RETRY_MAX", 0.3)
    app = server.app
    org, ps, tid, _ = await scheduled_cup(server, "WaitOrg", "Wait", "Wait Cup")
    times = [10**6]
    failed = failing_writes(monkeypatch, times)
    ttask = app.tournaments[tid]
    for _ in range(600):  # the session started in memory; its write is refused, and tried again
        if ttask.retrying:
            break
        await asyncio.sleep(0.05)
    assert failed and ttask.retrying
    warn = {"t": "sanction", "player": ps[0].player, "kind": "warning", "reason": "noise"}
    before = (ttask.t.tseq, len(ttask.t.sanctions.records))
    r = await org.request({"t": "tournament_cmd", "tournament": tid, "cmd": warn}, timeout=5)
    assert r["t"] == "error" and r["code"] == "server/storage", r
    assert (ttask.t.tseq, len(ttask.t.sanctions.records)) == before
    times[0] = 0  # the storage takes writes again
    for c in ps:
        await c.wait_for(lambda m: m.get("t") == "table", timeout=15)
    assert (await org.request({"t": "tournament_cmd", "tournament": tid, "cmd": warn}))["t"] == "ok"
    for c in (org, *ps):
        await c.drain()
    caplog.clear()


async def test_a_server_stopped_during_a_storage_fault_logs_the_pause(tmp_path):
    """The server stops while writes are still held back (the storage is back, but no retry has shown
    it yet): the pause so far is logged at the stop, so the restarted tournament does not count it."""
    from tests.server.conftest import start, stop

    db = str(tmp_path / "g.db")
    running = await start(db)
    app, store = running.app, running.app.store
    org, ps, tid, begin = await scheduled_cup(running, "StopOrg", "Stop", "Stop Cup", checked_in=3)
    ttask = app.tournaments[tid]
    await seated_but_one(org, ps, ttask, tid)  # (no table event comes during the fault)
    start_at = ttask.t.sessions[0].start
    real, shift = app.now, [start_at + 300 - app.now()]  # 5 minutes after the start the disk fills up
    ttask.clock = lambda: real() + shift[0]
    store._set_fault(FULL)
    shift[0] = start_at + 1200 - real()  # 20 minutes after the start the server stops, still paused
    await stop(running)
    st = await open_store(db)
    row = await stored(st, tid)
    await st.close()
    (paused,) = [e for e in row["log"] if e["k"] == "paused"]
    assert paused["end"] - paused["begin"] >= 899
    running = await start(db)  # the restart rebuilds the moved clocks from the log
    try:
        moved = running.app.tournaments[tid].t.sessions[0].start
        assert moved == start_at + paused["end"] - paused["begin"]
    finally:
        await stop(running)
