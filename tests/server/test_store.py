"""The database: migrations in order, WAL, append-only logs that refuse gaps and repeats."""

import asyncio
import sqlite3
import time

import pytest

from server import store as S
from server.fair import check, commitment
from server.store import Store


def test_migrations_are_numbered_in_order():
    ms = S.migrations()
    assert [n for n, _ in ms] == list(range(1, len(ms) + 1))
    assert ms[0][1].name.startswith("0001_")


def count_batches(st, monkeypatch) -> list[int]:
    """The size of every group commit the store makes from now on (either backend)."""
    batches: list[int] = []
    if isinstance(st, Store):
        real = st._write_batch_sync
        monkeypatch.setattr(st, "_write_batch_sync", lambda batch: batches.append(len(batch)) or real(batch))
    else:
        real_async = st._write_batch

        async def counted(batch):
            batches.append(len(batch))
            return await real_async(batch)
        monkeypatch.setattr(st, "_write_batch", counted)
    return batches


async def test_schema_and_log(store):
    st = store
    await st.add_player("p1", "ab" * 16, "Ann")
    assert await st.player_by_token("ab" * 16) == ("p1", "Ann")
    assert await st.player_by_token("cd" * 16) is None
    rid = await st.add_room("r00000001", {"hands": 4}, "p1", [{"k": "create"}])
    await st.write(rid, 1, [{"k": "join"}, {"k": "ready"}])
    with pytest.raises(st.IntegrityError):
        await st.write(rid, 2, [{"k": "again"}])  # n = 2 is taken: no duplicate
    with pytest.raises(st.IntegrityError):
        await st.write(rid, 4, [{"k": "later"}])  # n = 3 is missing: no gap
    assert await st.log_length(rid) == 3
    rooms = await st.open_rooms()
    assert [e["k"] for e in rooms[0]["log"]] == ["create", "join", "ready"]
    await st.write(rid, 3, [{"k": "on"}])  # a refused write changed nothing: the log goes on
    await st.close_room(rid)
    assert await st.open_rooms() == []
    assert await st.room_log("r00000001") == [{"k": k} for k in ("create", "join", "ready", "on")]


async def test_sqlite_schema_in_wal_mode(tmp_path):
    path = tmp_path / "sub" / "x.db"
    st = await Store.open(path)
    try:
        (mode,) = await st.fetchone("PRAGMA journal_mode")
        assert mode == "wal"
        assert (await st.fetchone("PRAGMA wal_autocheckpoint"))[0] == 10000
        (version,) = await st.fetchone("PRAGMA user_version")
        assert version == len(S.migrations())
        assert await st.migrate() == version  # idempotent
    finally:
        await st.close()
    raw = sqlite3.connect(path)
    try:
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        raw.close()
    assert {"players", "rooms", "actions", "matches", "hand_results", "match_results"} <= tables


async def test_writes_close_together_share_one_commit(store, monkeypatch):
    st = store
    batches = count_batches(st, monkeypatch)
    # Long enough that a loaded machine still commits the first write well before it (and sends the
    # five writes below within it), short enough to keep the test quick.
    st.COMMIT_EVERY = 1.5
    rid = await st.add_room("r00000001", {"hands": 4}, None, [{"k": "create"}])
    t = time.monotonic()
    await st.write(rid, 1, [{"k": "a"}])
    assert time.monotonic() - t < 1.0  # after a quiet spell a write is committed at once, not COMMIT_EVERY later
    # Writes that come within COMMIT_EVERY of that commit wait for the next one, and share it.
    tasks = []
    for i in range(5):
        tasks.append(asyncio.create_task(st.write(rid, 2 + i, [{"k": "b", "i": i}])))
        await asyncio.sleep(0.005)
    await asyncio.gather(*tasks)
    assert batches == [1, 5]
    assert await st.log_length(rid) == 7


async def test_a_failing_write_fails_alone_in_its_batch(store, monkeypatch):
    st = store
    batches = count_batches(st, monkeypatch)
    a = await st.add_room("r00000001", {"hands": 4}, None, [{"k": "create"}])
    b = await st.add_room("r00000002", {"hands": 4}, None, [{"k": "create"}])
    start = {"kind": "match_start", "number": 1, "rules": {}, "seed": "1", "salt": "s", "commitment": "c",
             "players": ["p1", None, None, None]}
    c = await st.add_room("r00000003", {"hands": 4}, None, [{"k": "create"}])
    orphan = {"kind": "hand_result", "number": 9, "hand": 0, "record": {}}  # match 9 was never recorded
    results = await asyncio.gather(
        st.write(a, 1, [{"k": "first"}]), st.write(c, 1, [{"k": "lost"}], [orphan]),
        st.write(b, 1, [{"k": "x"}], [start]), st.write(a, 1, [{"k": "again"}]), return_exceptions=True)
    assert batches == [3]  # one transaction (the repeat never reached it)...
    assert results[0] is None and results[2] is None  # ...in which only the orphan failed
    assert isinstance(results[1], st.IntegrityError)  # hand_results.match_id NOT NULL
    assert isinstance(results[3], st.IntegrityError)  # n = 1 is taken: refused before writing
    logs = {r["id"]: [e["k"] for e in r["log"]] for r in await st.open_rooms()}
    assert logs == {a: ["create", "first"], b: ["create", "x"], c: ["create"]}
    assert (await st.room_matches(b))[1]["commitment"] == "c"
    assert await st.room_matches(a) == {}


async def test_after_a_failed_write_the_rooms_later_writes_fail_too(store):
    """A room's log must not go on after a hole: its writes appended behind one that failed (in the same
    batch or later) fail, while other rooms' writes land; callbacks hear in the order of appending."""
    st = store
    a = await st.add_room("r00000001", {"hands": 4}, None, [{"k": "create"}])
    b = await st.add_room("r00000002", {"hands": 4}, None, [{"k": "create"}])
    heard = []
    orphan = {"kind": "hand_result", "number": 9, "hand": 0, "record": {}}  # no match 9: cannot be stored
    st.append(a, 1, [{"k": "lost"}], [orphan], lambda e: heard.append(("a1", e)))
    st.append(a, 2, [{"k": "next"}], None, lambda e: heard.append(("a2", e)))
    st.append(b, 1, [{"k": "fine"}], None, lambda e: heard.append(("b1", e)))
    await st.write(b, 2, [{"k": "fine too"}])
    assert [h[0] for h in heard] == ["a1", "a2", "b1"]
    assert isinstance(heard[0][1], st.IntegrityError) and isinstance(heard[1][1], RuntimeError)
    assert heard[2][1] is None
    with pytest.raises(RuntimeError):
        await st.write(a, 3, [{"k": "later"}])
    logs = {r["id"]: [e["k"] for e in r["log"]] for r in await st.open_rooms()}
    assert logs == {a: ["create"], b: ["create", "fine", "fine too"]}


def test_commitment():
    c = commitment(7363834298359800329, "98e210844ac0f4a14f69f1f6ec322465")
    assert len(c) == 64 and check(7363834298359800329, "98e210844ac0f4a14f69f1f6ec322465", c)
    assert not check(7363834298359800328, "98e210844ac0f4a14f69f1f6ec322465", c)


async def test_the_store_needs_a_file():
    with pytest.raises(ValueError):
        await Store.open(":memory:")


async def test_checkpoints_keep_the_wal_small_and_lose_nothing(tmp_path):
    path = tmp_path / "c.db"
    st = await Store.open(path)
    st.CHECKPOINT_EVERY = 100  # rows
    st.log_con.execute("PRAGMA wal_autocheckpoint=300").fetchall()  # the backstop, in pages
    rooms = [await st.add_room(f"r{i:08d}", {}, None, [{"k": "create"}]) for i in range(200)]
    try:
        for n in range(1, 21):  # 4,000 rows, each on its room's page: thousands of pages written
            await asyncio.gather(*(st.write(r, n, [{"k": "act", "n": n}]) for r in rooms))
            await asyncio.sleep(0.002)
        wal = path.with_name(path.name + "-wal").stat().st_size
        page = (await st.fetchone("PRAGMA page_size"))[0]
        frames = wal // (page + 24)
        # Without checkpoints it would hold a frame for every page written (4,000 and more); with them
        # it is started over once it passes the backstop, so its file stays at a few times that size.
        assert frames < 1_200, frames
        assert st._checkpointer is not None  # the checkpoints ran on the store's thread
    finally:
        await st.close()
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("SELECT COUNT(*) FROM actions").fetchone()[0] == 200 * 21
    finally:
        raw.close()


async def test_reads_and_transactions_on_the_shared_connection_do_not_collide(store):
    # A query whose rows were fetched in a later job on the store's thread would leave its statement
    # open there meanwhile, and another coroutine's COMMIT failed ("SQL statements in progress").
    st = store
    await st.add_player("p1", "ab" * 16, "Ann")
    jobs = []
    for i in range(200):
        jobs.append(st.add_room(f"r{i:08d}", {}, "p1", [{"k": "create"}]))
        jobs.append(st.player_by_token("ab" * 16))
        jobs.append(st.player_names({"p1"}))
    results = await asyncio.gather(*jobs, return_exceptions=True)
    assert not [r for r in results if isinstance(r, Exception)]
    assert len(await st.open_rooms()) == 200


async def test_a_schema_2_log_is_moved_to_append_order_intact(tmp_path):
    """Migration 3 rebuilds the action log as a rowid table: the rows of a database made before it keep
    their rooms, numbers and entries, and a repeated or skipped n is still refused."""
    path = tmp_path / "old.db"
    raw = sqlite3.connect(path, isolation_level=None)
    for number, p in S.migrations()[:2]:
        raw.executescript(f"BEGIN;\n{p.read_text(encoding='utf-8')}\nPRAGMA user_version={number};\nCOMMIT;")
    raw.execute("INSERT INTO rooms (id, code, config, created_at) VALUES (7, 'r7', '{}', 0)")
    raw.executemany("INSERT INTO actions (room_id, n, entry, at) VALUES (7, ?, ?, 0)",
                    [(n, f'{{"k":"e{n}"}}') for n in (2, 0, 1)])
    raw.close()
    st = await Store.open(path)
    try:
        assert await st.log_length(7) == 3
        (room,) = await st.open_rooms()
        assert [e["k"] for e in room["log"]] == ["e0", "e1", "e2"]
        await st.write(7, 3, [{"k": "e3"}])
        with pytest.raises(sqlite3.IntegrityError):
            await st.write(7, 1, [{"k": "again"}])  # a repeat
        with pytest.raises(sqlite3.IntegrityError):
            await st.write(7, 5, [{"k": "later"}])  # a gap
        (version,) = await st.fetchone("PRAGMA user_version")
        assert version == len(S.migrations())
    finally:
        await st.close()
    raw = sqlite3.connect(path)
    try:
        cols = [r[1] for r in raw.execute("PRAGMA table_info(actions)")]
        last = raw.execute("SELECT room_id, n FROM actions ORDER BY id DESC LIMIT 1").fetchone()
    finally:
        raw.close()
    assert cols == ["id", "room_id", "n", "entry", "at"]
    assert last == (7, 3)  # appended at the end


def test_rows_are_compact_sorted_json_whatever_the_encoder():
    """orjson writes what json would; what it refuses (big integers, non-string keys) json writes."""
    import json

    for obj in ({"k": "act", "b": [1, 2.5, None, True], "a": {"z": "和", "y": -3}},
                {"seed": 2**70, "x": 1}, {2: "two", 1: "one"}):
        assert S.dumps(obj) == json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
