"""Storage faults: nothing reaches a client before it is durable (snapshots included), a full disk
pauses rooms until it has room again, a database file removed under the server stops actions, an
unusable database stops the server at once, and ``guobiao backup`` copies a running server's database."""

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from server.cli import main as cli_main
from server.store import Store
from tests.server.client import play, prompt
from tests.server.conftest import FAST

ROOT = Path(__file__).resolve().parents[2]


def discard_prompt(m) -> bool:
    p = prompt(m)
    return p is not None and any(a["a"] == "discard" for a in p[0])


async def bot_table(server, *names):
    """A room of the given players (the first is host) and bots in the other seats; a match started,
    and play run until it is the host's turn to discard with the room's task idle."""
    cs = [await server.client(name=n) for n in names]
    snap = await cs[0].request({"t": "create", "config": {**FAST, "type": "wufan"}})
    for c in cs[1:]:
        assert (await c.request({"t": "join", "code": snap["info"]["invite"]}))["t"] == "ok"
    for _ in range(4 - len(cs)):
        assert (await cs[0].request({"t": "add_bot", "level": "random"}))["t"] == "ok"
    for c in cs:
        assert (await c.request({"t": "ready"}))["t"] == "ok"
    task = server.app.rooms[snap["room"]]
    return cs, task


async def host_to_discard(server, cs, task, rng):
    """Play (everybody) until the host is asked to discard; returns that prompt."""
    others = [asyncio.create_task(play(c, rng, lambda m: False, timeout=120)) for c in cs[1:]]
    try:
        m = await play(cs[0], rng, discard_prompt)
    finally:
        for t in others:
            t.cancel()
        await asyncio.gather(*others, return_exceptions=True)
    for _ in range(1000):  # the bots have answered: the room's task waits for the host
        if task.queue.waiting and task.queue.empty():
            break
        await asyncio.sleep(0.01)
    assert task.queue.waiting
    return m


def logged(db: str, room_db_id: int) -> list[dict]:
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT n, entry FROM actions WHERE room_id = ? ORDER BY n", (room_db_id,)).fetchall()
    finally:
        con.close()
    assert [n for n, _ in rows] == list(range(len(rows)))
    return [json.loads(e) for _, e in rows]


@pytest.mark.parametrize("asker", ["the player", "another member"])
async def test_a_snapshot_asked_while_a_play_waits_for_its_commit_shows_only_what_is_durable(server, asker):
    """A play handled at once waits for the group commit; a snapshot asked for meanwhile (by the player
    or by anyone else in the room) is answered after the play's commit and its own message, never with
    the play before it is written, and no room message after the snapshot repeats an rseq it covers."""
    import random

    cs, task = await bot_table(server, "Durable0", "Durable1")
    m = await host_to_discard(server, cs, task, random.Random(3))
    store = server.app.store
    loop = asyncio.get_running_loop()
    store.COMMIT_EVERY = 1.5  # widened: the play waits for its commit (long enough for a loaded machine)
    store._last_commit = loop.time()
    legal, seq = prompt(m)
    action = next(a for a in legal if a["a"] == "discard")
    for c in cs:
        c.inbox.clear()
    await cs[0].send({"t": "act", "action": {**action, "seq": seq}, "id": "play"})
    c = cs[0] if asker == "the player" else cs[1]
    if c is not cs[0]:
        for _ in range(100):  # the play is handled; its commit is due up to 1.5 s later
            if task._inflight == 1 and store._pending:
                break
            await asyncio.sleep(0.01)
        assert task._inflight == 1 and store._pending
    await c.send({"t": "snapshot", "id": "snap"})
    snap = await c.wait_for(lambda x: x.get("re") == "snap", timeout=10)
    durable = max(e["rseq"] for e in logged(server.db, task.db_id) if "rseq" in e)
    assert snap["t"] == "snapshot" and snap["rseq"] <= durable  # nothing in it is unwritten
    before = c.frames[:c.frames.index(snap)]
    played = [x for x in before if x.get("t") == "game" and x["rseq"] > m["rseq"]]
    assert played and snap["rseq"] >= played[-1]["rseq"]  # the play's own message came first
    store.COMMIT_EVERY = 0.002
    after = await c.drain(0.3)
    assert all(x["rseq"] > snap["rseq"] for x in after if x.get("t") == "game")  # nothing counted twice


async def test_disk_full_pauses_every_room_and_play_resumes_with_nothing_lost(server, caplog):
    """A commit that fails with 'database or disk is full' keeps the room in memory: every member hears
    server/storage, commands are refused meanwhile, the write is retried with backoff and lands when
    the disk has room, and play goes on to the end of the hand with every action in the log."""
    import random

    rng = random.Random(5)
    cs, task = await bot_table(server, "Full0", "Full1")
    m = await host_to_discard(server, cs, task, rng)
    app, store = server.app, server.app.store
    store.RETRY_FIRST = store._retry_in = 0.2
    real = store._write_batch_sync
    failures = []

    def full_disk(batch):
        if len(failures) < 3:
            failures.append(len(batch))
            raise sqlite3.OperationalError("database or disk is full")
        return real(batch)

    store._write_batch_sync = full_disk
    for c in cs:
        c.inbox.clear()
    legal, seq = prompt(m)
    action = next(a for a in legal if a["a"] == "discard")
    await cs[0].send({"t": "act", "action": {**action, "seq": seq}, "id": "held"})
    for c in cs:  # every member hears it, not only the one who acted
        e = await c.wait_for(lambda x: x.get("code") == "server/storage" and "re" not in x, timeout=5)
        assert e["t"] == "error" and e["room"] == task.id and "disk is full" in e["message"]
    assert task.id in app.rooms and not task.closed  # paused, not dropped
    refused = await cs[1].request({"t": "hint", "on": False})
    assert refused["t"] == "error" and refused["code"] == "server/storage"
    refused = await cs[1].request({"t": "snapshot"})
    assert refused["t"] == "error" and refused["code"] == "server/storage"
    assert not any(x.get("re") == "held" for x in cs[0].frames)  # not answered before it is written
    ok = await cs[0].wait_for(lambda x: x.get("re") == "held", timeout=10)
    assert ok["t"] == "ok" and len(failures) == 3 and store.fault is None
    for c in cs:  # told where play is once it goes on
        await c.wait_for(lambda x: x.get("t") == "snapshot" and "re" not in x, timeout=5)
    ends = await asyncio.gather(*(play(c, rng, lambda x: x.get("t") == "hand_result") for c in cs))
    assert ends[0]["record"] == ends[1]["record"]
    for _ in range(500):  # the last writes land
        if not store._pending and task.queue.waiting:
            break
        await asyncio.sleep(0.02)
    entries = logged(server.db, task.db_id)
    assert len(entries) == task.room.rows  # every entry the room made is in the log, in order
    assert any(e.get("k") == "act" and e.get("action", {}).get("tile") == action["tile"] for e in entries)
    assert [r.getMessage() for r in caplog.get_records("call") if r.levelname == "ERROR"] == [
        "writes held back: the database cannot be written (database or disk is full); retrying"]
    caplog.clear()


async def test_stopping_while_writes_are_held_back_does_not_hang(server, caplog):
    """A server stopped while the disk stays full stops at once: the rooms waiting for their writes are
    cancelled and the writes dropped (nobody saw them)."""
    import random

    [c], task = await bot_table(server, "Stuck")
    m = await host_to_discard(server, [c], task, random.Random(6))
    store = server.app.store

    def full_disk(batch):
        raise sqlite3.OperationalError("database or disk is full")

    store._write_batch_sync = full_disk
    legal, seq = prompt(m)
    await c.send({"t": "act", "action": {**legal[0], "seq": seq}})
    await c.wait_for(lambda x: x.get("code") == "server/storage", timeout=5)
    assert store._pending
    await asyncio.wait_for(server.app.stop(), 10)
    assert not store._pending
    assert "closing with 1 writes not made" in caplog.text
    caplog.clear()


@pytest.mark.parametrize("how", ["removed", "replaced"])
async def test_a_database_file_removed_or_replaced_under_the_server_stops_actions(server, caplog, how):
    """The database file's inode is checked: once it is gone or another file took its place, every
    member hears server/storage and actions are refused (they would land in a file a restart never
    reads); when the file is put back, play goes on."""
    import random

    cs, task = await bot_table(server, "Gone0", "Gone1")
    m = await host_to_discard(server, cs, task, random.Random(8))
    store = server.app.store
    store.RETRY_FIRST = store._retry_in = 0.05
    db = Path(server.db)
    keep = db.with_name("kept.db")
    os.link(db, keep)
    if how == "removed":
        db.unlink()
    else:
        other = db.with_name("other.db")
        sqlite3.connect(other).close()
        os.replace(other, db)
    legal, seq = prompt(m)
    action = next(a for a in legal if a["a"] == "discard")
    r_token = cs[1].token
    r = await cs[0].request({"t": "act", "action": {**action, "seq": seq}})
    assert r["t"] == "error" and r["code"] == "server/storage" and f"was {how}" in r["message"]
    for c in cs:
        e = await c.wait_for(lambda x: x.get("code") == "server/storage" and "re" not in x, timeout=5)
        assert f"database file was {how}" in e["message"]
    n = task.room.rows
    for _ in range(500):  # the held writes were tried again at least once (each try doubles the wait)
        if store._retry_in >= 0.2:
            break
        await asyncio.sleep(0.02)
    assert store._retry_in >= 0.2
    r = await cs[1].request({"t": "ready"})
    assert r["code"] == "server/storage" and task.room.rows == n and task.id in server.app.rooms
    cs[1] = await server.client()  # a player may still resume, and waits with the room
    assert (await cs[1].request({"t": "resume", "token": r_token}))["t"] == "welcome"
    os.replace(keep, db)  # the operator puts it back
    for c in cs:
        await c.wait_for(lambda x: x.get("t") == "snapshot" and "re" not in x, timeout=5)
    assert store.fault is None
    r = await cs[0].request({"t": "act", "action": {**action, "seq": seq}})
    assert r["t"] == "ok"
    assert logged(server.db, task.db_id)[-1]["rseq"] >= task.room.rseq - 1
    assert [r.getMessage() for r in caplog.get_records("call") if r.levelname == "ERROR"] == [
        f"writes held back: the database file was {how}; retrying"]
    caplog.clear()


def serve_once(db: Path, timeout: float = 20) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", str(db)],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def read_only(db: Path) -> bool:
    """Make the database file unwritable: immutable for root (whom permissions do not stop), read-only
    (file and folder) for anybody else. False if this machine cannot."""
    if os.geteuid() == 0:
        return subprocess.run(["chattr", "+i", str(db)], capture_output=True).returncode == 0
    db.chmod(0o444)
    db.parent.chmod(0o555)
    return True


def writable_again(db: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(db)], capture_output=True)
    else:
        db.parent.chmod(0o755)
        db.chmod(0o644)


@pytest.mark.parametrize("what", ["directory", "not_a_database", "parent_is_a_file", "read_only"])
def test_an_unwritable_database_at_start_exits_non_zero_with_one_line(tmp_path, what):
    """The server does not start on a database it cannot use: it exits at once (the store's thread does
    not keep it alive) with one clear line and no traceback."""
    db = tmp_path / "g.db"
    if what == "directory":
        db.mkdir()
    elif what == "not_a_database":
        db.write_bytes(os.urandom(8192))
    elif what == "parent_is_a_file":
        (tmp_path / "file").write_text("x")
        db = tmp_path / "file" / "g.db"
    else:  # a database the server made, no longer writable
        async def make():
            await (await Store.open(db)).close()
        asyncio.run(make())
        if not read_only(db):
            pytest.skip("cannot make a file read-only here (chattr)")
    try:
        r = serve_once(db)
    finally:
        if what == "read_only":
            writable_again(db)
    assert r.returncode != 0 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("serve: cannot use the database"), r.stderr
    assert "Traceback" not in r.stderr


async def test_backup_copies_a_running_servers_database(server, tmp_path):
    """``guobiao backup`` (SQLite's online backup) while a match is being played: the copy checks,
    holds the room's log up to the moment it was taken with no gap, and a server recovers from it."""
    import random

    cs, task = await bot_table(server, "Saved")
    playing = asyncio.create_task(play(cs[0], random.Random(2), lambda m: m.get("t") == "hand_result"))
    while len(logged(server.db, task.db_id)) < 20:
        await asyncio.sleep(0.01)
    before = len(logged(server.db, task.db_id))  # stored rows: room.rows also counts rows still being committed
    dest = tmp_path / "copies" / "backup.db"
    dest.parent.mkdir()
    assert await asyncio.to_thread(cli_main, ["backup", str(dest), "--db", server.db]) == 0  # the loop plays on
    await playing
    con = sqlite3.connect(dest)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        con.close()
    copied = logged(str(dest), task.db_id)
    assert before <= len(copied) <= len(logged(server.db, task.db_id))
    assert copied == logged(server.db, task.db_id)[:len(copied)]
    restored = await Store.open(dest)
    try:
        rooms = await restored.open_rooms()
        assert [r["code"] for r in rooms] == [task.id] and len(rooms[0]["log"]) == len(copied)
    finally:
        await restored.close()
    assert not list(dest.parent.glob("*.part"))


def test_backup_never_creates_an_empty_database(tmp_path, capsys):
    assert cli_main(["backup", str(tmp_path / "b.db"), "--db", str(tmp_path / "missing.db")]) == 2
    assert not (tmp_path / "missing.db").exists() and not (tmp_path / "b.db").exists()
    assert capsys.readouterr().err.startswith("backup: no database at")
    sqlite3.connect(tmp_path / "other.db").close()  # a database, but not the server's
    assert cli_main(["backup", str(tmp_path / "b.db"), "--db", str(tmp_path / "other.db")]) == 2
    assert "not a Guobiao database" in capsys.readouterr().err and not (tmp_path / "b.db").exists()


async def test_actions_look_at_the_database_file_once_per_pass_of_the_loop(tmp_path, monkeypatch, caplog):
    """Each action's check that the database file is still the one opened (a system call) is made once
    per pass of the event loop, however many actions the pass handles; the next pass looks again and
    sees a file removed meanwhile."""
    from server import store as S
    from server.store_sql import StorageError

    st = await Store.open(tmp_path / "g.db")
    looks = []
    real = S.file_id
    monkeypatch.setattr(S, "file_id", lambda path: looks.append(path) or real(path))
    try:
        await asyncio.sleep(0)
        for _ in range(50):
            st.check_writable()
        assert len(looks) == 1
        await asyncio.sleep(0)  # the next pass
        st.check_writable()
        assert len(looks) == 2
        (tmp_path / "g.db").unlink()
        for _ in range(3):  # found unchanged in this pass: not looked at again
            st.check_writable()
        assert len(looks) == 2
        await asyncio.sleep(0)
        with pytest.raises(StorageError, match="was removed"):
            st.check_writable()
    finally:
        await st.close()
    caplog.clear()
