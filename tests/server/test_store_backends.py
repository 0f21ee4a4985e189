"""Both storage backends behind one interface: the same migrations in SQLite's and PostgreSQL's dialect,
the same rows (matches, replays, tournaments), and PostgreSQL's own cases: processes migrating one
database together, a lost connection, a database that cannot be reached."""

import asyncio
import sqlite3

import asyncpg
import pytest

from server import store as S
from server.store import StorageError, open_store
from server.store_pg import PG_MIGRATIONS, PgStore
from server.store_sql import redact, to_postgres


def test_both_dialects_have_the_same_numbered_migrations():
    sqlite_names = [p.name for _, p in S.migrations()]
    pg_names = [p.name for _, p in S.migrations(PG_MIGRATIONS)]
    assert pg_names == sqlite_names


@pytest.mark.postgres
async def test_both_dialects_migrate_to_the_same_tables_and_columns(tmp_path, pg_url):
    st = await open_store(tmp_path / "g.db")
    await st.close()
    raw = sqlite3.connect(tmp_path / "g.db")
    try:
        tables = [r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        lite = {t: [c[1] for c in raw.execute(f"PRAGMA table_info({t})")] for t in tables}
    finally:
        raw.close()
    pg = await open_store(pg_url)
    try:
        rows = await pg.fetchall("SELECT table_name, column_name FROM information_schema.columns"
                                 " WHERE table_schema = 'public' ORDER BY table_name, ordinal_position")
        (version,) = await pg.fetchone("SELECT version FROM schema_version")
    finally:
        await pg.close()
    post: dict[str, list] = {}
    for r in rows:
        post.setdefault(r["table_name"], []).append(r["column_name"])
    assert post.pop("schema_version") == ["version"]  # PostgreSQL's PRAGMA user_version
    assert post == lite
    assert version == len(S.migrations())


@pytest.mark.postgres
async def test_processes_starting_together_migrate_the_database_once(pg_url):
    stores = await asyncio.gather(*(PgStore.open(pg_url) for _ in range(3)))
    try:
        assert [await st.migrate() for st in stores] == [len(S.migrations())] * 3
        assert await stores[0].fetchall("SELECT version FROM schema_version") == [(len(S.migrations()),)]
    finally:
        for st in stores:
            await st.close()


@pytest.mark.postgres
async def test_a_schema_2_log_is_moved_to_append_order_intact_on_postgres(pg_url):
    """PostgreSQL's migration 3 keeps the rows of a database made before it, and the database itself
    refuses a repeated (room, n) as well as the store."""
    con = await asyncpg.connect(pg_url)
    try:
        async with con.transaction():
            await con.execute("CREATE TABLE schema_version (version integer NOT NULL)")
            for number, p in S.migrations(PG_MIGRATIONS)[:2]:
                await con.execute(p.read_text(encoding="utf-8"))
            await con.execute("INSERT INTO schema_version VALUES (2)")
            await con.execute("INSERT INTO rooms (id, code, config, created_at) VALUES (7, 'r7', '{}', 0)")
            await con.executemany("INSERT INTO actions (room_id, n, entry, at) VALUES (7, $1, $2, 0)",
                                  [(n, f'{{"k":"e{n}"}}') for n in (2, 0, 1)])
    finally:
        await con.close()
    st = await open_store(pg_url)
    try:
        assert await st.log_length(7) == 3
        (room,) = await st.open_rooms()
        assert [e["k"] for e in room["log"]] == ["e0", "e1", "e2"]
        await st.write(7, 3, [{"k": "e3"}])
        with pytest.raises(st.IntegrityError):
            await st.write(7, 5, [{"k": "later"}])  # a gap
        with pytest.raises(asyncpg.UniqueViolationError):  # what a second process writing the room meets
            await st.execute("INSERT INTO actions (room_id, n, entry, at) VALUES (7, 1, '{}', 0)")
        last = await st.fetchone("SELECT room_id, n FROM actions ORDER BY id DESC LIMIT 1")
        assert tuple(last) == (7, 3)  # appended at the end
    finally:
        await st.close()


MATCH = {"kind": "match_start", "number": 0, "rules": {"hands": 1}, "seed": 2**63 + 5, "salt": "ab",
         "commitment": "c0", "players": ["p1", None, None, None]}


async def test_a_match_and_its_replay_are_stored_alike(store):
    st = store
    await st.add_player("p1", "ab" * 16, "Ann")
    rid = await st.add_room("r00000001", {"hands": 1}, "p1", [{"k": "create"}])
    await st.write(rid, 1, [{"k": "start"}], [MATCH])
    assert await st.finished_match(await st.match_id(rid, 0)) is None  # its seed is secret until the end
    hand = {"kind": "hand_result", "number": 0, "hand": 0, "record": {"winner": 1}}
    result = {"kind": "match_result", "number": 0, "record": {
        "actions": [[0, "discard"]], "hands": [{"winner": 1}], "scores": [1, 2, 3, 4], "ranking": [3, 2, 1, 0]}}
    await st.write(rid, 2, [{"k": "win"}], [hand, result])
    mid = await st.match_id(rid, 0)
    assert await st.room_matches(rid) == {0: {"id": mid, "seed": 2**63 + 5, "salt": "ab", "commitment": "c0"}}
    m = await st.finished_match(mid)
    assert m["seed"] == 2**63 + 5 and m["room"] == "r00000001" and m["players"] == ["p1", None, None, None]
    assert m["ranking"] == [3, 2, 1, 0] and m["hands"] == [{"winner": 1}] and m["finished_at"] >= m["started_at"]
    assert await st.player_names(["p1", "nobody"]) == {"p1": "Ann"}


async def test_a_tournaments_tables_rooms_are_written_with_its_log_or_not_at_all(store):
    """The rooms of the tables a tournament's change opens land in the transaction of its entries: a
    write the log refuses leaves no room; one that lands leaves each room with its first rows, open."""
    st = store
    tid = await st.add_tournament("t00000002", None, [{"k": "create"}])
    rooms = [(f"r0000000{i}", {"table": True}, [{"k": "create", "i": i}]) for i in (1, 2)]
    pairs = [("1-1", "r00000001"), ("1-2", "r00000002")]
    with pytest.raises(st.IntegrityError):  # the tournament's row 0 again: the whole write refused
        await st.write_tournament(tid, 0, [{"k": "again"}], pairs, rooms)
    assert await st.open_rooms() == [] and (await st.open_tournaments())[0]["tables"] == {}
    assert await st.tournament_landed(tid, 2, rooms) is None  # it did not land
    ids = await st.write_tournament(tid, 1, [{"k": "start"}], pairs, rooms)
    assert await st.tournament_landed(tid, 2, rooms) == ids  # as a caller whose answer was lost finds it
    assert await st.tournament_landed(tid, 3, rooms) is None
    opened = await st.open_rooms()
    assert [(r["id"], r["code"], r["log"]) for r in opened] == [
        (ids[0], "r00000001", [{"k": "create", "i": 1}]), (ids[1], "r00000002", [{"k": "create", "i": 2}])]
    (t,) = await st.open_tournaments()
    assert t["log"] == [{"k": "create"}, {"k": "start"}] and t["tables"] == dict(pairs)
    await st.write(ids[1], 1, [{"k": "next"}])  # each room's log goes on from its first rows
    assert await st.room_log("r00000002") == [{"k": "create", "i": 2}, {"k": "next"}]


async def test_a_tournament_log_refuses_gaps_and_repeats_alike(store):
    st = store
    rid = await st.add_room("r00000001", {}, None, [])
    tid = await st.add_tournament("t00000001", None, [{"k": "create"}])
    await st.write_tournament(tid, 1, [{"k": "register"}], [("1-1", "r00000001")])
    with pytest.raises(st.IntegrityError):
        await st.write_tournament(tid, 1, [{"k": "again"}])  # the primary key refuses a repeat
    (t,) = await st.open_tournaments()
    assert t["log"] == [{"k": "create"}, {"k": "register"}] and t["tables"] == {"1-1": "r00000001"}
    assert await st.closed_tournament("t00000001") is None
    await st.close_tournament(tid)
    assert await st.open_tournaments() == []
    assert await st.closed_tournament("t00000001") == [{"k": "create"}, {"k": "register"}]
    assert rid


class Cable:
    """A TCP relay between the store and PostgreSQL that a test can cut (every connection dropped, new
    ones refused) and mend: what a restart of PostgreSQL or a network fault looks like to the server."""

    def __init__(self, target: int):
        self.target, self.port = target, 0
        self.server: asyncio.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()

    async def mend(self) -> None:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", self.port)
        self.port = self.server.sockets[0].getsockname()[1]

    def cut(self) -> None:
        self.server.close()
        for w in self.writers:
            w.close()

    async def _relay(self, reader, writer) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.close()
            return
        self.writers |= {writer, up_writer}

        async def pipe(a: asyncio.StreamReader, b: asyncio.StreamWriter) -> None:
            try:
                while data := await a.read(65536):
                    b.write(data)
                    await b.drain()
            except OSError:
                pass
            finally:
                b.close()
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


@pytest.mark.postgres
async def test_a_lost_connection_holds_log_writes_back_until_they_land(postgres, pg_url, caplog):
    """The server's connections are cut and new ones refused for a while (PostgreSQL restarting, a
    network fault): the writes are held back (the store says why), tried again, and land once, in order."""
    cable = Cable(postgres.port)
    await cable.mend()
    st = await open_store(pg_url.replace(f":{postgres.port}/", f":{cable.port}/"))
    heard = []
    st.on_fault = heard.append
    try:
        rid = await st.add_room("r00000001", {}, None, [{"k": "create"}])
        cable.cut()
        writes = asyncio.gather(*(st.write(rid, n, [{"k": "act", "n": n}]) for n in range(1, 6)))
        for _ in range(250):
            if st.fault is not None:
                break
            await asyncio.sleep(0.02)
        assert st.fault is not None and not writes.done()  # held back
        with pytest.raises(StorageError):
            st.check_writable()  # meanwhile new actions are refused (server/storage)
        await cable.mend()
        await asyncio.wait_for(writes, 20)
        assert heard[0] is not None and heard[-1] is None and st.fault is None  # held back, then going on
        (room,) = await st.open_rooms()
        assert [e.get("n") for e in room["log"]] == [None, 1, 2, 3, 4, 5]
        assert await st.log_length(rid) == 6  # no row written twice
        errors = [r.getMessage() for r in caplog.get_records("call") if r.levelname == "ERROR"]
        assert errors and {e.split(":")[0] for e in errors} == {"writes held back"}  # each new reason once
        caplog.clear()
    finally:
        cable.cut()
        await st.close()


@pytest.mark.postgres
async def test_the_commits_connection_closed_while_idle_is_replaced_without_holding_writes_back(pg_url, caplog):
    """The group commit keeps its connection; PostgreSQL closing it between two commits (a restart, an
    administrator) is noticed before the next commit, which takes a new one: no write is held back."""
    st = await open_store(pg_url)
    try:
        rid = await st.add_room("r00000001", {}, None, [{"k": "create"}])
        await st.write(rid, 1, [{"k": "a"}])
        assert st._log_con is not None and not st._log_con_lost()
        await st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                         " WHERE datname = current_database() AND pid <> pg_backend_pid()")
        for _ in range(250):
            if st._log_con_lost():
                break
            await asyncio.sleep(0.02)
        assert st._log_con_lost()
        await asyncio.wait_for(st.write(rid, 2, [{"k": "b"}]), 10)
        assert st.fault is None and "writes held back" not in caplog.text
        assert await st.log_length(rid) == 3
    finally:
        await st.close()


@pytest.mark.postgres
async def test_a_commit_whose_answer_was_lost_is_not_written_twice(pg_url, monkeypatch, caplog):
    """The connection drops after PostgreSQL committed but before the server heard so: the retry
    finds the rows in the log and the write succeeds, once (the match it started is recorded once)."""
    st = await open_store(pg_url)
    try:
        rid = await st.add_room("r00000001", {}, None, [{"k": "create"}])
        real = st._write_batch
        calls = []

        async def answer_lost(batch):
            calls.append(len(batch))
            result = await real(batch)
            if len(calls) == 1:
                raise asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation")
            return result
        monkeypatch.setattr(st, "_write_batch", answer_lost)
        await asyncio.wait_for(st.write(rid, 1, [{"k": "start"}], [MATCH]), 10)
        await asyncio.wait_for(st.write(rid, 2, [{"k": "next"}]), 10)
        (room,) = await st.open_rooms()
        assert [e["k"] for e in room["log"]] == ["create", "start", "next"]
        assert list(await st.room_matches(rid)) == [0]
        assert calls == [1, 1]  # the landed write was not sent again; the next one was
        assert st.fault is None and not st._broken
        assert "writes held back" in caplog.text
        caplog.clear()
    finally:
        await st.close()


@pytest.mark.postgres
async def test_while_postgres_is_unreachable_actions_are_refused_with_server_storage(pg_url, caplog):
    st = await open_store(pg_url)
    try:
        rid = await st.add_room("r00000001", {}, None, [{"k": "create"}])
        st.pool.terminate()  # every connection gone, and the pool closed: nothing can be written
        write = asyncio.ensure_future(st.write(rid, 1, [{"k": "lost"}]))
        for _ in range(250):
            if st.fault is not None:
                break
            await asyncio.sleep(0.02)
        assert st.fault is not None and not write.done()  # held back, not failed
        with pytest.raises(StorageError):
            st.check_writable()  # a new action is refused (server/storage)
        with pytest.raises(StorageError):
            await st.add_player("p2", "cd" * 16, "Bob")
    finally:
        await st.close()
    with pytest.raises(StorageError):
        await write  # closing drops it: nobody was shown it
    assert "closing with 1 writes not made" in caplog.text
    caplog.clear()


@pytest.mark.postgres
async def test_an_unreachable_database_fails_to_open_without_showing_its_password(postgres):
    from tests.support.services import free_port

    url = f"postgresql://guobiao:s3cret@127.0.0.1:{free_port()}/nothing"
    with pytest.raises(StorageError) as e:
        await open_store(url)
    assert "s3cret" not in str(e.value) and "guobiao:***@127.0.0.1" in str(e.value)


def test_statements_are_written_once_in_sqlites_dialect():
    assert to_postgres("SELECT a FROM t INDEXED BY t_i WHERE a = ? AND b = '?' AND c IN (?, ?)") == \
        "SELECT a FROM t  WHERE a = $1 AND b = '?' AND c IN ($2, $3)"
    assert redact("postgresql://u:pw@h:5432/db") == "postgresql://u:***@h:5432/db"
    assert redact("postgresql://u@h/db") == "postgresql://u@h/db"
    assert not S.is_postgres("var/guobiao.db") and S.is_postgres("postgres://h/db")


@pytest.mark.postgres
async def test_while_postgres_is_out_of_reach_sign_ins_are_refused_with_server_storage(postgres, pg_url):
    """A read or a write that cannot reach PostgreSQL answers server/storage (not an internal error)
    and changes nothing; once it is back the same requests succeed."""
    from tests.server.conftest import start, stop

    cable = Cable(postgres.port)
    await cable.mend()
    server = await start(pg_url.replace(f":{postgres.port}/", f":{cable.port}/"))
    try:
        first = await server.client("json", name="Ann")
        cable.cut()
        await asyncio.sleep(0.1)
        c = await server.client("json")
        for req in ({"t": "guest", "name": "Bob"}, {"t": "resume", "token": first.token}):
            r = await c.request(req)
            assert (r["t"], r["code"]) == ("error", "server/storage"), r
        await cable.mend()
        assert (await c.request({"t": "resume", "token": first.token}))["player"] == first.player
        assert (await (await server.client("json")).request({"t": "guest", "name": "Bob"}))["t"] == "welcome"
    finally:
        cable.cut()
        await stop(server)


def test_backup_copies_sqlite_only_and_points_postgres_to_pg_dump(tmp_path, capsys):
    from server.cli import main

    assert main(["backup", str(tmp_path / "copy.db"), "--db", "postgresql://u:pw@127.0.0.1:1/db"]) == 2
    assert "pg_dump" in capsys.readouterr().err
    assert not (tmp_path / "copy.db").exists()
