"""The database: migrations in order, WAL, append-only logs that refuse gaps and repeats."""

import sqlite3

import pytest

from server import store as S
from server.fair import check, commitment
from server.store import Store


def test_migrations_are_numbered_in_order():
    ms = S.migrations()
    assert [n for n, _ in ms] == list(range(1, len(ms) + 1))
    assert ms[0][1].name.startswith("0001_")


async def test_schema_and_log(tmp_path):
    path = tmp_path / "sub" / "x.db"
    st = await Store.open(path)
    try:
        (mode,) = await (await st.db.execute("PRAGMA journal_mode")).fetchone()
        assert mode == "wal"
        (version,) = await (await st.db.execute("PRAGMA user_version")).fetchone()
        assert version == len(S.migrations())
        assert await st.migrate() == version  # idempotent
        await st.add_player("p1", "ab" * 16, "Ann")
        assert await st.player_by_token("ab" * 16) == ("p1", "Ann")
        assert await st.player_by_token("cd" * 16) is None
        rid = await st.add_room("r00000001", {"hands": 4}, "p1", [{"k": "create"}])
        await st.write(rid, 1, [{"k": "join"}, {"k": "ready"}])
        with pytest.raises(sqlite3.IntegrityError):
            await st.write(rid, 2, [{"k": "again"}])  # n = 2 is taken: no duplicate
        assert await st.log_length(rid) == 3
        rooms = await st.open_rooms()
        assert [e["k"] for e in rooms[0]["log"]] == ["create", "join", "ready"]
        await st.close_room(rid)
        assert await st.open_rooms() == []
    finally:
        await st.close()
    raw = sqlite3.connect(path)
    try:
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        raw.close()
    assert {"players", "rooms", "actions", "matches", "hand_results", "match_results"} <= tables


def test_commitment():
    c = commitment(7363834298359800329, "98e210844ac0f4a14f69f1f6ec322465")
    assert len(c) == 64 and check(7363834298359800329, "98e210844ac0f4a14f69f1f6ec322465", c)
    assert not check(7363834298359800328, "98e210844ac0f4a14f69f1f6ec322465", c)
