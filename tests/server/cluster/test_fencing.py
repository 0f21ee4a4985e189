"""Fencing of a room's log in PostgreSQL (docs/cluster.md "Fencing"): each write of a cluster node
carries its lease's token, and one from an owner older than the last writer is refused, so a paused
former owner cannot win a row after the takeover."""

from __future__ import annotations

import asyncio

import pytest

from server.cluster.lease import holder
from server.store import open_store
from server.store_sql import Fenced
from tests.server.cluster.test_nodes import eventually, start_node
from tests.server.conftest import FAST, stop

pytestmark = pytest.mark.postgres


async def test_a_stale_owner_cannot_win_a_row_after_the_new_owner_read_the_log(pg_url):
    old, new = await open_store(pg_url), await open_store(pg_url)
    refused: list[int] = []
    old.on_fenced = refused.append
    try:
        rid = await old.add_room("r00000001", {}, None, [{"k": "create"}])
        assert await old.fence("r00000001", 1) == rid
        await old.write(rid, 1, [{"k": "old 1"}])
        # The lease expired while the old owner was paused: the new one takes token 2, then reads the log.
        assert await new.fence("r00000001", 2) == rid
        (room,) = await new.open_rooms()
        assert [e["k"] for e in room["log"]] == ["create", "old 1"]
        # The old owner wakes up and writes the row the new owner is about to write: refused.
        with pytest.raises(Fenced):
            await old.write(rid, 2, [{"k": "old 2"}])
        assert refused == [rid]
        await new.write(rid, 2, [{"k": "new 2"}])
        (room,) = await new.open_rooms()
        assert [e["k"] for e in room["log"]] == ["create", "old 1", "new 2"]  # nothing of the stale write
        assert await old.fence("r00000001", 1) is None  # nor can it take the room back with its old token
    finally:
        await old.close()
        await new.close()


async def test_a_refused_write_fails_only_its_own_room_in_a_shared_commit(pg_url):
    old, new = await open_store(pg_url), await open_store(pg_url)
    try:
        fenced = await old.add_room("r00000001", {}, None, [{"k": "create"}])
        other = await old.add_room("r00000002", {}, None, [{"k": "create"}])
        await old.fence("r00000001", 1)
        await old.fence("r00000002", 1)
        await new.fence("r00000001", 2)
        results = await asyncio.gather(old.write(fenced, 1, [{"k": "stale"}]), old.write(other, 1, [{"k": "kept"}]),
                                       return_exceptions=True)
        assert isinstance(results[0], Fenced) and results[1] is None
        assert await old.log_length(fenced) == 1 and await old.log_length(other) == 2
    finally:
        await old.close()
        await new.close()


async def _row_versions(st, rooms: list[int]) -> list[str]:
    """The physical place and creating transaction of each room's row: a new row version changes them."""
    async with st.connection() as db:
        rows = await db.con.fetch("SELECT ctid::text || '/' || xmin::text AS v FROM rooms WHERE id = ANY($1::bigint[])"
                                  " ORDER BY id", rooms)
    return [r["v"] for r in rows]


async def test_a_fenced_write_leaves_the_rooms_rows_as_they_are(pg_url):
    """The owner's fence recorded its token; its writes lock the rooms' rows and compare the token,
    without a new version of the row per room and commit (dead rows PostgreSQL has to write and prune)."""
    st = await open_store(pg_url)
    try:
        rooms = [await st.add_room(f"r0000000{i}", {}, None, [{"k": "create"}]) for i in range(3)]
        for i in range(3):
            await st.fence(f"r0000000{i}", 7)
        before = await _row_versions(st, rooms)
        await st.write(rooms[0], 1, [{"k": "a"}, {"k": "b"}])  # one room's commit
        await asyncio.gather(*(st.write(rid, 3 if rid == rooms[0] else 1, [{"k": "c"}]) for rid in rooms))  # several
        assert await _row_versions(st, rooms) == before
        assert [await st.log_length(rid) for rid in rooms] == [4, 2, 2]
    finally:
        await st.close()


async def test_a_stale_write_waits_for_a_fence_under_way_and_is_refused_when_it_commits(pg_url):
    """A takeover's fence not committed yet: the former owner's write (alone or sharing a commit) waits
    for it, then reads the new token and is refused; the other room of its commit still lands."""
    old = await open_store(pg_url)
    refused: list[int] = []
    old.on_fenced = refused.append
    try:
        alone, shared, other = [await old.add_room(f"r0000000{i}", {}, None, [{"k": "create"}]) for i in range(3)]
        for i in range(3):
            await old.fence(f"r0000000{i}", 1)
        for fenced, writes in ((alone, [alone]), (shared, [shared, other])):
            async with old.transaction() as db:  # the new owner's fence, under way
                assert await db.con.execute("UPDATE rooms SET owner_token = 2 WHERE id = $1 AND owner_token <= 2",
                                            fenced) == "UPDATE 1"
                pending = asyncio.gather(*(old.write(rid, 1, [{"k": "stale"}]) for rid in writes),
                                         return_exceptions=True)
                await asyncio.sleep(0.3)
                assert not pending.done()  # the write waits for the fence's transaction
            results = await pending
            assert isinstance(results[0], Fenced) and results[1:] == [None] * (len(writes) - 1), results
        assert refused == [alone, shared]
        assert [await old.log_length(rid) for rid in (alone, shared, other)] == [1, 1, 2]
    finally:
        await old.close()


async def test_a_fence_waits_for_a_write_under_way_and_reads_its_rows(pg_url):
    """The converse: a write holding its lock (its rows inserted, not committed yet) holds the new owner's
    fence back until it commits, and the log the new owner then reads has its rows."""
    from server.store_pg import LOCK_ROOMS
    old, new = await open_store(pg_url), await open_store(pg_url)
    try:
        rid = await old.add_room("r00000001", {}, None, [{"k": "create"}])
        await old.fence("r00000001", 1)
        async with old.transaction() as db:  # a commit of the old owner, under way
            assert len(await db.con.fetch(LOCK_ROOMS, [rid])) == 1
            await db.con.execute("INSERT INTO actions (room_id, n, entry, at) VALUES ($1, 1, $2, 0)", rid, '{"k": "old 1"}')
            fence = asyncio.ensure_future(new.fence("r00000001", 2))
            await asyncio.sleep(0.3)
            assert not fence.done()
        assert await fence == rid
        (room,) = await new.open_rooms()
        assert [e["k"] for e in room["log"]] == ["create", "old 1"]
    finally:
        await old.close()
        await new.close()


class _Logged:
    """The store's pool, every statement sent on a connection taken from it recorded."""

    def __init__(self, pool, queries: list):
        self.pool, self.queries = pool, queries
        self.recording = True
        self.acquired = 0

    def acquire(self, **kw):
        outer = self
        self.acquired += 1

        class _Ctx:
            async def __aenter__(self):
                self.cm = outer.pool.acquire(**kw)
                self.con = await self.cm.__aenter__()
                self.con.add_query_logger(outer.log)
                return self.con

            async def __aexit__(self, *exc):
                return await self.cm.__aexit__(*exc)  # (what the release sends is recorded too)

            def __await__(self):  # ``await pool.acquire()``: kept until ``pool.release``
                return self.__aenter__().__await__()
        return _Ctx()

    def log(self, record) -> None:
        if self.recording:  # (the logger stays on the connection; the store is closed after the test)
            self.queries.append(record.query)

    def __getattr__(self, name):
        return getattr(self.pool, name)


async def test_a_group_commit_of_fenced_rooms_is_one_statement(pg_url):
    """Several rooms' log rows with their owner tokens land in one round trip to PostgreSQL (not BEGIN,
    lock, fence, insert, COMMIT, nor a reset of the connection as it goes back to the pool, nor a
    connection taken from the pool for each commit), and the rows are all there, in order."""
    st = await open_store(pg_url)
    try:
        rooms = [await st.add_room(f"r0000000{i}", {}, None, [{"k": "create"}]) for i in range(3)]
        for i in range(3):
            await st.fence(f"r0000000{i}", 1)
        queries: list[str] = []
        st.pool = _Logged(st.pool, queries)
        await asyncio.gather(*(st.write(rid, 1, [{"k": "a"}]) for rid in rooms))  # (statements prepared)
        queries.clear()
        await asyncio.gather(*(st.write(rid, 2, [{"k": "b"}, {"k": "c"}]) for rid in rooms))
        assert len(queries) == 1, queries
        await asyncio.gather(*(st.write(rid, 4, [{"k": "d"}]) for rid in rooms))
        assert len(queries) == 2, queries
        await st.write(rooms[0], 5, [{"k": "e"}, {"k": "f"}])  # one room's rows (a statement of its own)
        assert len(queries) == 3 and "unnest($3::bigint[], $4::text[])" in queries[-1], queries
        assert st.pool.acquired == 1  # the commits' connection is taken once and kept, not once a commit
        st.pool.recording = False
        st.pool = st.pool.pool
        for rid in rooms:
            (room,) = [r for r in await st.open_rooms() if r["id"] == rid]
            assert [e["k"] for e in room["log"]] == ["create", "a", "b", "c", "d"] + (["e", "f"] if rid == rooms[0] else [])
    finally:
        st.pool = getattr(st.pool, "pool", st.pool)  # (the real pool, if the test stopped early)
        await st.close()


async def test_a_node_whose_write_is_refused_stops_owning_the_room(pg_url, redis_url):
    a = await start_node(pg_url, redis_url)
    b = await start_node(pg_url, redis_url)
    try:
        host = await b.client(name="Host")
        snap = await host.request({"t": "create", "config": FAST})
        room = snap["room"]
        task = b.app.rooms[room]
        rows = await b.app.store.log_length(task.db_id)
        # B is paused past its lease's expiry: its renewal stops and the key expires (deleted here).
        b.app.cluster.renewer.remove(b.app.cluster.leases[room])
        await b.app.cluster.redis.delete("gb:lease:room:" + room)
        assert await a.app.cluster.takeover.take_over() == [room]
        assert (await holder(a.app.cluster.redis, "room:" + room))[0] == a.app.cluster.id
        taken = await a.app.store.log_length(a.app.rooms[room].db_id)
        host.inbox.clear()
        # B wakes up and writes an action of its member: refused, and B drops the room.
        r = await host.request({"t": "add_bot"})
        assert r["t"] == "error" and r["code"] == "server/moved", r
        assert room not in b.app.rooms and room not in b.app.cluster.leases
        # its member there is pointed at the new owner, which sends the room as it is (no bot added)
        again = await host.wait_for(lambda m: m.get("t") == "snapshot")
        assert again["room"] == room and again["rseq"] >= snap["rseq"]
        assert sorted(again["info"]["names"].values()) == ["Host"], again["info"]
        assert taken > rows
        assert await a.app.store.log_length(a.app.rooms[room].db_id) == taken  # nothing of B's write
        assert (await host.request({"t": "add_bot"}))["t"] == "ok"  # and plays on through B to A
        # A still owns it and the room is still in the shared directory (B did not remove it).
        assert (await holder(a.app.cluster.redis, "room:" + room))[0] == a.app.cluster.id
        assert await a.app.cluster.redis.sismember("gb:rooms", room)
    finally:
        await stop(a)
        await stop(b)


async def test_a_node_whose_tournament_write_is_refused_stops_running_it(pg_url, redis_url):
    a = await start_node(pg_url, redis_url)
    other = await open_store(pg_url)
    try:
        org = await a.client(name="Org")
        r = await org.request({"t": "tournament_create", "config": {
            "name": "Fenced Cup", "hands": 1, "starts": [int(a.app.now()) + 3600]}})
        assert r["t"] == "tournament", r
        tid = r["tournament"]["id"]
        task = a.app.tournaments[tid]
        owner = await holder(a.app.cluster.redis, "tournament:" + tid)
        assert owner is not None and owner[0] == a.app.cluster.id  # made under its lease
        rows = len(await other.tournament_log(task.db_id))
        # A is paused past its lease's expiry and another node takes the tournament over
        a.app.cluster.renewer.remove(a.app.cluster.takeover.tournaments[tid])
        await a.app.cluster.redis.delete("gb:lease:tournament:" + tid)
        assert await other.fence_tournament(task.db_id, owner[1] + 1)
        # A wakes up: its write of a registration is refused, and it stops running the tournament
        player = await a.client(name="P")
        r = await player.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}})
        assert r["t"] == "error" and r["code"] == "server/moved", r
        await eventually(lambda: tid not in a.app.tournaments)
        assert len(await other.tournament_log(task.db_id)) == rows  # nothing of A's write
    finally:
        await other.close()
        await stop(a)
