"""The store's second connection is aiosqlite's, used through its public API only; a transaction on it
is a few awaited statements that nothing else on the connection interleaves with."""

import ast
import asyncio
import sqlite3
import tomllib
from pathlib import Path

import aiosqlite
import aiosqlite.cursor
import pytest

from server.store import Store

ROOT = Path(__file__).resolve().parents[2]


def _private_names() -> set[str]:
    """aiosqlite's private names: ``_conn``, ``_execute``, ``_tx``... (dunders are Python's)."""
    out = set()
    for obj in (aiosqlite, aiosqlite.Connection, aiosqlite.cursor.Cursor):
        out |= {n for n in dir(obj) if n.startswith("_") and not n.startswith("__")}
    return out | {"_conn", "_execute", "_cursor", "_tx", "_running", "_connection"}


def _is_aiosqlite(value: ast.expr) -> bool:
    """An expression that is aiosqlite, its connection (``db``, ``self.db``, ``store.db``) or a cursor."""
    if isinstance(value, ast.Call):
        value = value.func
    name = value.id if isinstance(value, ast.Name) else value.attr if isinstance(value, ast.Attribute) else ""
    return name in {"aiosqlite", "db", "cur", "cursor"}


def test_the_store_uses_only_aiosqlite_public_api():
    private = _private_names()
    assert {"_conn", "_execute"} <= private
    found = []
    for path in sorted((ROOT / "server").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in private and _is_aiosqlite(node.value):
                found.append(f"{path.name}:{node.lineno} .{node.attr}")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("aiosqlite."):
                found.append(f"{path.name}:{node.lineno} from {node.module}")  # its modules are not its API
    assert not found, found


def test_aiosqlite_is_a_dependency_and_no_home_made_thread_replaces_it():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    assert any(d.startswith("aiosqlite") for d in deps)
    assert not (ROOT / "server" / "dbthread.py").exists()


async def test_the_store_connection_is_aiosqlite(tmp_path):
    st = await Store.open(tmp_path / "a.db")
    try:
        assert isinstance(st.db, aiosqlite.Connection)
    finally:
        await st.close()


async def test_a_failing_transaction_rolls_back_alone_while_others_run(tmp_path):
    # Without one writer at a time, coroutines' statements joined one SQLite transaction: a second
    # BEGIN failed, and the failing write's ROLLBACK undid the others' rows.
    st = await Store.open(tmp_path / "t.db")
    try:
        await st.add_player("dup", "ff" * 16, "Dup")
        jobs = []
        for i in range(40):
            jobs.append(st.add_player(f"p{i}", f"{i:032x}", f"P{i}"))
            if i % 10 == 5:
                jobs.append(st.add_player("dup", f"{i + 100:032x}", "Again"))  # the primary key refuses it
            jobs.append(st.player_names({f"p{i}"}))
        results = await asyncio.gather(*jobs, return_exceptions=True)
        errors = [r for r in results if isinstance(r, Exception)]
        assert len(errors) == 4 and all(isinstance(e, sqlite3.IntegrityError) for e in errors), errors
        (n,) = await st.fetchone("SELECT COUNT(*) FROM players")
        assert n == 41
        (sessions,) = await st.fetchone("SELECT COUNT(*) FROM sessions")
        assert sessions == 41  # the refused ones left no session behind
    finally:
        await st.close()


async def test_an_exception_inside_a_transaction_rolls_it_back_and_frees_the_connection(tmp_path):
    st = await Store.open(tmp_path / "e.db")
    try:
        with pytest.raises(RuntimeError):
            async with st.transaction() as db:
                await db.execute_fetchall("INSERT INTO players (id, token_hash, name, created_at, last_seen)"
                                          " VALUES ('x', 'unused:x', 'X', 0, 0)")
                raise RuntimeError("the caller fails half-way")
        assert await st.player_names({"x"}) == {}
        assert not st.lock.locked() and not st._writing
        await st.add_player("y", "11" * 16, "Y")  # the connection takes the next transaction
        assert await st.player_names({"y"}) == {"y": "Y"}
    finally:
        await st.close()


async def test_the_log_commit_waits_for_a_transaction_on_the_other_connection(tmp_path):
    # The log is committed on the loop's thread: had it tried while the other connection held SQLite's
    # write lock between two awaited statements, it would have blocked the loop (busy timeout, 5 s)
    # waiting for a COMMIT that only the loop could send, then failed as a storage fault.
    st = await Store.open(tmp_path / "w.db")
    loop = asyncio.get_running_loop()
    try:
        rid = await st.add_room("r00000001", {}, None, [{"k": "create"}])
        async with st.transaction() as db:
            await db.execute_fetchall("UPDATE rooms SET config = '{}' WHERE id = ?", (rid,))
            write = loop.create_task(st.write(rid, 1, [{"k": "join"}]))
            t = loop.time()
            await asyncio.sleep(0.05)
            assert loop.time() - t < 3.0  # the loop was not held (held, it waits the 5 s busy timeout)
            assert not write.done()
        await asyncio.wait_for(write, 5)
        assert st.fault is None
        assert await st.log_length(rid) == 2
    finally:
        await st.close()


async def test_close_waits_for_a_transaction_under_way(tmp_path):
    path = tmp_path / "c.db"
    st = await Store.open(path)
    started = asyncio.Event()

    async def slow():
        async with st.transaction() as db:
            started.set()
            await asyncio.sleep(0.05)
            await db.execute_fetchall("INSERT INTO players (id, token_hash, name, created_at, last_seen)"
                                      " VALUES ('late', 'unused:late', 'Late', 0, 0)")

    job = asyncio.get_running_loop().create_task(slow())
    await started.wait()
    await st.close()
    await job
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("SELECT name FROM players WHERE id = 'late'").fetchone() == ("Late",)
    finally:
        raw.close()
