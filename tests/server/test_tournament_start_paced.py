"""A large session start lets the rest of the server run: its tables are opened, seated and announced in
batches with a yield to the event loop between them (server/tournaments.py ``PACE``), where it used to hold
the loop for the whole session (about a second at 1,024 players). A command and a storage fault that
arrive meanwhile leave the tournament's log, its tables and what a restart would rebuild in agreement."""

import asyncio

from rooms.tournament import Tournament, TournamentConfig
from server import tournaments

FULL = "the database cannot be written (database or disk is full)"
PLAYERS = 256  # 64 tables: several batches


async def test_a_large_session_start_yields_to_the_loop_between_batches_of_tables(server, monkeypatch):
    monkeypatch.setattr(tournaments, "RETRY_MAX", 0.3, raising=False)  # quick retries once the fault ends
    app, store = server.app, server.app.store
    org, ref = await server.client(name="Org"), await server.client(name="Ref")
    players = [f"p{i:04d}" for i in range(PLAYERS)]  # offline: their seats are played for them
    config = TournamentConfig(name="Paced Cup", max_players=PLAYERS, hands=1, sessions=1, seating="random",
                              checkin_required=False)
    t = Tournament.create("tpaced01", config, org.player, ref.player, bytes(32), app.now())
    t.handle(ref.player, {"t": "accept_referee"}, app.now())
    for pid in players:
        t.handle(pid, {"t": "register"}, app.now())
    ttask = await app.add_tournament(t, org.player)
    seated = [0]
    real_seat = app.seat_table
    monkeypatch.setattr(app, "seat_table", lambda task, e: seated.__setitem__(0, seated[0] + 1) or real_seat(task, e))

    seen: list[tuple[int, int]] = []  # (tables opened, tables seated) each time another task runs
    mid: list[asyncio.Task] = []

    async def bystander():
        """Another task on the loop: it runs once per pass of the loop."""
        while seated[0] < PLAYERS // 4:
            seen.append((len(ttask.tables), seated[0]))
            if not mid and 0 < len(ttask.tables) < PLAYERS // 4:  # mid-start: the storage fails, a command comes
                store._set_fault(FULL)
                mid.append(asyncio.create_task(ref.request({"t": "tournament_cmd", "tournament": ttask.id, "cmd": {
                    "t": "sanction", "player": players[0], "kind": "warning", "reason": "noise"}})))
            await asyncio.sleep(0)
        seen.append((len(ttask.tables), seated[0]))

    watcher = asyncio.create_task(bystander())
    r = await org.request({"t": "tournament_cmd", "tournament": ttask.id, "cmd": {"t": "start"}}, timeout=60)
    assert r["t"] == "ok", r
    await asyncio.wait_for(watcher, 60)
    steps = [(b[0] - a[0], b[1] - a[1]) for a, b in zip(seen, seen[1:])]
    assert max(o for o, _ in steps) <= tournaments.PACE and max(s for _, s in steps) <= tournaments.PACE, steps
    assert mid, "the bystander never ran while the tables were being opened"

    # Handled after the start, whole: refused while the storage still failed (a room's write that lands
    # ends the fault), with nothing changed, or written and recorded.
    reply = await asyncio.wait_for(mid[0], 60)
    assert reply["t"] == "ok" or reply["code"] == "server/storage", reply
    assert len(ttask.t.sanctions.records) == (reply["t"] == "ok")
    store._set_fault(None)
    assert len(ttask.tables) == PLAYERS // 4 == len(ttask.t.sessions[0].tables)
    for _ in range(600):  # the tables' seat reports, held back by the fault, are written once it ends
        await asyncio.sleep(0.05)
        if not ttask.retrying and ttask.queue.empty():
            (row,) = [x for x in await store.open_tournaments() if x["code"] == ttask.id]
            if len(row["log"]) == ttask.n:
                break
    assert len(row["log"]) == ttask.n
    stored = Tournament.replay(row["log"])  # what a restart would rebuild is what is running
    assert stored.view(org.player) == ttask.t.view(org.player)
    assert sorted(row["tables"].items()) == sorted(ttask.tables.items())
    for c in (org, ref):
        await c.drain()


async def test_a_tournament_yields_to_the_loop_between_the_items_of_its_queue(server):
    """Items already queued (a session start's seat reports from every table) are read without a wait:
    each one is followed by a yield, so a long queue does not hold the loop either."""
    from server.roomitems import Unfollow

    app = server.app
    org = await server.client(name="Org")
    t = Tournament.create("tqueue01", TournamentConfig(name="Queue Cup"), org.player, org.player, bytes(32), app.now())
    ttask = await app.add_tournament(t, org.player)
    await asyncio.sleep(0)
    for i in range(50):
        ttask.put(Unfollow(f"p{i}"))
    sizes = []
    while ttask.queue.qsize():
        sizes.append(ttask.queue.qsize())
        await asyncio.sleep(0)
    assert max(a - b for a, b in zip(sizes + [0], sizes[1:] + [0])) <= 1, sizes
