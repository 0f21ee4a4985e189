"""SQLite persistence: numbered migrations, players, rooms, the action log, matches.

WAL with synchronous=NORMAL: a committed transaction survives a crash of the process (kill -9), which
is what recovery needs; only a power cut may lose the last few. Every write is one explicit
transaction, so a room's new log rows and the results they produce land together or not at all.

Two connections: the action log is written on the event loop's own thread (``write``: a commit in WAL
mode without fsync is a few page writes, cheaper than a trip to another thread and back, whose GIL
hand-overs held every action up by tens of milliseconds under load); everything else, and the WAL
checkpoints that copy the log into the database, run on an aiosqlite connection (a thread of its own).
A transaction there is a few awaited statements: the store's lock keeps every other coroutine off the
connection until it ends (``transaction``, ``connection``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite

from server.accounts import new_session_id
from server.store_sql import (STORAGE, StorageError, append_tournament, dumps, effect_sync, file_id, guarded_write,
                              insert, insert_rows, one, rollback_sync, run, storage_fault, token_hash, transaction)

__all__ = ["STORAGE", "Store", "StorageError", "dumps", "token_hash"]

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
log = logging.getLogger("guobiao.store")


def migrations() -> list[tuple[int, Path]]:
    out = []
    for p in sorted(MIGRATIONS.glob("*.sql")):
        number = int(p.name.split("_", 1)[0])
        out.append((number, p))
    numbers = [n for n, _ in out]
    assert numbers == list(range(1, len(out) + 1)), f"migrations must be numbered 1, 2, ...: {numbers}"
    return out


class Store:
    def __init__(self, db: aiosqlite.Connection, log_con: sqlite3.Connection, path: str):
        self.db = db  # only inside ``connection`` or ``transaction``
        self.lock = asyncio.Lock()  # one coroutine at a time on ``db``
        self._writing = False  # a transaction is open on ``db`` (``_flush`` waits for its end)
        self._flush_held = False  # ``_flush`` waited for that end: run it then
        self.log_con = log_con  # the event loop's thread only: the action log's writes (``write``)
        self.path = path
        self._pending: list = []  # writes waiting for the group commit (write)
        self._flush_at: asyncio.TimerHandle | asyncio.Handle | None = None
        self._last_commit = float("-inf")  # loop time the last group commit started
        self._since_checkpoint = 0  # log rows written since the last checkpoint started
        self._checkpointer: asyncio.Task | None = None
        self._broken: set[int] = set()  # rooms a write of which failed: their later writes fail too
        self._next_n: dict[int, int] = {}  # open room -> the n its next log row must have
        # Why writes are held back (disk full, the file removed...), or None. While it is set the
        # pending writes stay queued and are retried with backoff; on_fault hears each change.
        self.fault: str | None = None
        self.on_fault: Callable[[str | None], None] | None = None
        self.on_commit: Callable[[float, int], None] | None = None  # (seconds, writes) of each group commit
        self._retry_in = self.RETRY_FIRST
        self.file_id = file_id(path)  # the database file's (device, inode) when it was opened

    @classmethod
    async def open(cls, path: str | Path) -> Store:
        """The store on the database at ``path`` (created with its folder if need be). A database that
        cannot be opened, read or written raises StorageError, with both connections closed."""
        path = str(path)
        if path == ":memory:":
            raise ValueError("the store needs a database file (its two connections share it)")
        db: aiosqlite.Connection | None = None
        log_con: sqlite3.Connection | None = None
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            # The log's connection first: a file that is no database, or cannot be opened, fails here
            # before the other's thread is started. It waits for the other's short write transactions
            # (timeout) rather than fail.
            log_con = sqlite3.connect(path, isolation_level=None, timeout=5.0)
            # Every statement's rows are read at once: a cursor left open would keep a read transaction open.
            log_con.execute("PRAGMA journal_mode=WAL").fetchall()
            log_con.execute("PRAGMA synchronous=NORMAL").fetchall()
            log_con.execute("PRAGMA foreign_keys=ON").fetchall()
            # Checkpoints run on the other's thread (``_checkpoint``); this one, on the loop's thread, finds
            # the log already copied but for the last pages, and lets the next write start the WAL over.
            log_con.execute(f"PRAGMA wal_autocheckpoint={cls.CHECKPOINT_BACKSTOP}").fetchall()
            db = await aiosqlite.connect(path, isolation_level=None)  # explicit BEGIN/COMMIT only
            db.row_factory = sqlite3.Row
            for pragma in ("synchronous=NORMAL", "foreign_keys=ON", "busy_timeout=5000",
                           "secure_delete=ON",  # a deleted account's rows are written over (server.auth)
                           # A checkpoint every ~40 MB of WAL rather than every 4 MB copies each page once however
                           # often it was written meanwhile (matches, players and rooms; the log has its own
                           # checkpoints below).
                           "wal_autocheckpoint=10000"):  # pages
                await db.execute_fetchall(f"PRAGMA {pragma}")
            store = cls(db, log_con, path)
            version = await store.migrate()
            # A write now, so that a database that opens but cannot be written fails here, not at the
            # first action (user_version is rewritten with its own value).
            with transaction(log_con):
                log_con.execute(f"PRAGMA user_version={version}").fetchall()
        except BaseException as e:
            if log_con is not None:
                log_con.close()
            if db is not None:
                try:
                    await db.close()
                except Exception:  # pragma: no cover - closing what failed to open
                    pass
            if isinstance(e, (sqlite3.Error, OSError)):
                raise StorageError(f"cannot use the database {path}: {e}") from e
            raise
        return store

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[aiosqlite.Connection]:
        """The aiosqlite connection, to this coroutine alone until the block ends: no other coroutine's
        statement runs between its statements. (Within a transaction such a statement would join it:
        its BEGIN would fail, its writes would be undone by the other's ROLLBACK, its reads would see
        rows that may never be committed.) Not reentrant: inside, use the connection given."""
        async with self.lock:
            yield self.db

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE … COMMIT on the aiosqlite connection, alone on it (``connection``), rolled
        back if anything in it fails. The log's group commit waits for its end (``_flush``): on the
        loop's thread it would wait for SQLite's write lock, which this transaction keeps until the
        loop runs its next statement."""
        async with self.lock:
            self._writing = True
            try:
                await run(self.db, "BEGIN IMMEDIATE")
                yield self.db
                await self.db.commit()
            except BaseException:
                try:
                    await self.db.rollback()  # nothing to do if SQLite rolled back by itself
                except sqlite3.Error as e:  # pragma: no cover - the storage refuses even that
                    log.warning("rollback failed: %s", e)
                raise
            finally:
                self._writing = False
                if self._flush_held:
                    self._flush_held = False
                    if self._pending and self._flush_at is None:
                        self._flush_at = asyncio.get_running_loop().call_soon(self._flush)

    async def _one(self, sql: str, args=()):
        """The first row of a query, or None."""
        async with self.connection() as db:
            return await one(db, sql, args)

    async def fetchall(self, sql: str, args=()) -> list[sqlite3.Row]:
        async with self.connection() as db:
            return await db.execute_fetchall(sql, args)

    async def execute(self, sql: str, args=()) -> int:
        """One statement (its own transaction); the number of rows it changed."""
        async with self.connection() as db:
            return await run(db, sql, args)

    async def close(self) -> None:
        """Commit what is pending and close. Writes the storage still refuses are dropped (logged):
        their callers hear StorageError, and none of them was shown to anybody."""
        async with self.lock:  # a transaction under way ends first (the flushes below wait for none)
            await self._close()

    async def _close(self) -> None:
        if self._flush_at is not None:
            self._flush_at.cancel()
            self._flush_at = None
        while self._pending and self.fault is None:
            self._flush()
        if self._flush_at is not None:
            self._flush_at.cancel()
            self._flush_at = None
        lost, self._pending = self._pending, []
        if lost:
            log.error("closing with %d writes not made: %s", len(lost), self.fault)
        for *_, done in lost:
            done(StorageError(f"{self.fault}: not written"))
        if self._checkpointer is not None:  # it waits for the lock: its PRAGMA is queued, not run
            self._checkpointer.cancel()
            await asyncio.gather(self._checkpointer, return_exceptions=True)
        self.log_con.close()
        await self.db.close()

    async def migrate(self) -> int:
        (version,) = await self._one("PRAGMA user_version")
        for number, p in migrations():
            if number <= version:
                continue
            # executescript commits first; the script and the version bump are one transaction.
            async with self.connection() as db:
                await db.executescript(f"BEGIN;\n{p.read_text(encoding='utf-8')}\nPRAGMA user_version={number};\nCOMMIT;")
            version = number
        return version

    # players

    @guarded_write
    async def add_player(self, player_id: str, token: str, name: str, session: str | None = None,
                         user_agent: str | None = None, address: str | None = None) -> None:
        """A new guest and its first session (the token), together."""
        now = time.time()
        async with self.transaction() as db:
            await run(db,  # token_hash is no longer read (migration 4)
                "INSERT INTO players (id, token_hash, name, created_at, last_seen) VALUES (?, ?, ?, ?, ?)",
                (player_id, "unused:" + player_id, name, now, now))
            await run(db,
                "INSERT INTO sessions (token_hash, id, player_id, created_at, last_seen, user_agent, address)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (token_hash(token), session or new_session_id(), player_id, now, now, user_agent, address))

    async def player_by_token(self, token: str) -> tuple[str, str] | None:
        """The player a token signs in, or None (server.auth also says which session and login)."""
        row = await self.session_by_token(token)
        return None if row is None else (row["player"], row["name"])

    async def session_by_token(self, token: str):
        """The session a token is (a row: player, name, session, login), or None; revoked tokens and
        deleted accounts have none. Works while writes are held back (a player may resume and wait
        with the room): last_seen is then left as it was."""
        row = await self._one(
            "SELECT s.player_id AS player, p.name, s.id AS session, l.login FROM sessions s"
            " JOIN players p ON p.id = s.player_id LEFT JOIN logins l ON l.player_id = s.player_id"
            " WHERE s.token_hash = ? AND p.deleted_at IS NULL", (token_hash(token),))
        if row is None:
            return None
        if self.fault is None:
            now = time.time()
            try:
                async with self.connection() as db:
                    await run(db, "UPDATE players SET last_seen = ? WHERE id = ?", (now, row["player"]))
                    await run(db, "UPDATE sessions SET last_seen = ? WHERE id = ?", (now, row["session"]))
            except sqlite3.OperationalError as e:
                log.warning("last_seen of %s not written: %s", row["player"], e)
        return row

    async def player_names(self, ids) -> dict[str, str]:
        ids = list(ids)
        if not ids:
            return {}
        q = ",".join("?" * len(ids))
        rows = await self.fetchall(f"SELECT id, name FROM players WHERE id IN ({q})", ids)
        return {r["id"]: r["name"] for r in rows}

    # rooms and their logs

    @guarded_write
    async def add_room(self, code: str, config: dict, created_by: str | None, entries: list) -> int:
        """A new room and the first entries of its log, together."""
        now = time.time()
        async with self.transaction() as db:
            # Row ids only grow (nothing is deleted): the room's rows will all come after the last one.
            room_id = await insert(db, "INSERT INTO rooms (code, config, created_by, created_at, log_from)"
                                   " VALUES (?, ?, ?, ?, (SELECT COALESCE(MAX(id), 0) + 1 FROM actions))",
                                   (code, dumps(config), created_by, now))
            await db.executemany("INSERT INTO actions (room_id, n, entry, at) VALUES (?, ?, ?, ?)",
                                 [(room_id, i, dumps(e), now) for i, e in enumerate(entries)])
        self._next_n[room_id] = len(entries)
        return room_id

    async def open_rooms(self) -> list[dict]:
        """Every room that was not closed, with its config and whole log, for recovery: one pass over
        the rows from the first open room's ``log_from`` on. Each log is checked to be 0, 1, 2, ..."""
        rooms = await self.fetchall(
            "SELECT id, code, config, log_from FROM rooms WHERE closed_at IS NULL ORDER BY id")
        logs: dict[int, list] = {r["id"]: [] for r in rooms}
        if rooms:
            rows = await self.fetchall(
                "SELECT room_id, n, entry FROM actions WHERE id >= ?"
                " AND room_id IN (SELECT id FROM rooms WHERE closed_at IS NULL) ORDER BY id",
                (min(r["log_from"] for r in rooms),))
            for row in rows:
                logs[row["room_id"]].append(row)
        out = []
        for r in rooms:
            log = logs.get(r["id"], [])  # a room opened while this ran is not in ``rooms``
            assert [row["n"] for row in log] == list(range(len(log))), f"room {r['code']}: log has gaps"
            self._next_n[r["id"]] = len(log)
            out.append({"id": r["id"], "code": r["code"], "config": json.loads(r["config"]),
                        "log": [json.loads(row["entry"]) for row in log]})
        return out

    async def write(self, room_id: int, start: int, entries: list, effects: list | None = None) -> None:
        """Append log entries ``start, start+1, ...`` and apply match effects in one transaction.

        A write whose ``start`` does not follow the room's last row (a repeat or a gap) fails with
        ``sqlite3.IntegrityError`` and writes nothing (``append``). Writes of several rooms that arrive
        together (or within ``COMMIT_EVERY`` of the last commit) share one commit (group commit); one
        that fails changes nothing and the others still land (see ``_write_batch_sync``). Returns once
        the write is committed.
        """
        fut = asyncio.get_running_loop().create_future()

        def done(error: BaseException | None) -> None:
            if not fut.done():
                fut.set_result(None) if error is None else fut.set_exception(error)

        self.append(room_id, start, entries, effects, done)
        await fut

    def append(self, room_id: int, start: int, entries: list, effects: list | None,
               done: Callable[[BaseException | None], None]) -> None:
        """``write`` for code that does not wait: ``done(None)`` is called once the write is committed,
        ``done(exception)`` if it failed. A room's writes land in the order they were appended; once one
        fails, the room's later writes fail too (its log must not go on after a hole).

        The rows must follow the room's last ones (n = start is the room's next row), checked here rather
        than by an index (migration 3): a write that does not is refused at once and changes nothing."""
        expected = self._next_n.get(room_id)
        if start != expected:
            what = "is not open here" if expected is None else f"is at row {expected}, not {start}"
            asyncio.get_running_loop().call_soon(done, sqlite3.IntegrityError(f"room {room_id}'s log {what}"))
            return
        self._next_n[room_id] = start + len(entries)
        self._pending.append((room_id, start, entries, effects, done))
        if self._flush_at is None:
            # The rooms running in this pass of the loop join the batch; so do those of the next passes
            # until COMMIT_EVERY has gone by since the last commit.
            loop = asyncio.get_running_loop()
            wait = self._last_commit + self.COMMIT_EVERY - loop.time()
            self._flush_at = loop.call_later(wait, self._flush) if wait > 0 else loop.call_soon(self._flush)

    MAX_BATCH = 512  # writes per transaction
    # At most one commit this often: under load, the writes of this long share one commit (a commit
    # costs the same for one row as for hundreds); a write that comes after a quiet spell is committed
    # at once.
    COMMIT_EVERY = 0.002  # seconds
    CHECKPOINT_EVERY = 2000  # log rows between checkpoints (``_checkpoint``)
    CHECKPOINT_BACKSTOP = 20_000  # pages (80 MiB) of WAL at which the log's own connection checkpoints

    RETRY_FIRST = 0.1  # seconds before a failed commit is tried again; doubled each time, up to:
    RETRY_MAX = 5.0

    def _flush(self) -> None:
        """The group commit, on the loop's thread: one transaction for the writes queued meanwhile.

        A commit the storage refuses (disk full, I/O error) or a database file that was removed or
        replaced holds every pending write back: they are tried again, in order, after RETRY_FIRST,
        then twice as long each time up to RETRY_MAX, and their callers hear only once they land."""
        self._flush_at = None
        if self._writing:  # the other connection's transaction ends first (``transaction``)
            self._flush_held = True
            return
        loop = asyncio.get_running_loop()
        self._last_commit = loop.time()
        batch, self._pending = self._pending[:self.MAX_BATCH], self._pending[self.MAX_BATCH:]
        problem = self._file_problem()
        if problem is None:
            try:
                began = time.perf_counter()
                results = self._write_batch_sync([b[:4] for b in batch])
                if self.on_commit is not None:
                    self.on_commit(time.perf_counter() - began, len(batch))
            except Exception as e:  # the commit failed: none of them landed
                if storage_fault(e):
                    problem = f"the database cannot be written ({e})"
                results = [e] * len(batch)
        if problem is not None:
            self._pending[:0] = batch
            self._stall(problem)
            return
        if self.fault is not None:
            self._set_fault(None)
        for (room_id, *_, done), r in zip(batch, results):
            if r is not None:
                self._broken.add(room_id)
            try:
                done(r)
            except Exception:  # the caller's bug: the other writes' callers still hear
                log.exception("after a write of room %s", room_id)
        self._since_checkpoint += sum(len(b[2]) for b in batch)
        checkpointing = self._checkpointer is not None and not self._checkpointer.done()
        if self._since_checkpoint >= self.CHECKPOINT_EVERY and not checkpointing:
            self._since_checkpoint = 0
            self._checkpointer = loop.create_task(self._checkpoint())
        if self._pending and self._flush_at is None:
            self._flush_at = loop.call_later(self.COMMIT_EVERY, self._flush)

    def _file_problem(self) -> str | None:
        """Why the database file is not the one opened (removed, or replaced by another), or None.
        Writes to a removed file would land in a file nobody can open again: a restart would start
        from an empty database."""
        try:
            now = file_id(self.path)
        except FileNotFoundError:
            return "the database file was removed"
        except OSError as e:
            return f"the database file cannot be checked ({e})"
        return None if now == self.file_id else "the database file was replaced"

    def _stall(self, problem: str) -> None:
        if problem != self.fault:
            log.error("writes held back: %s; retrying", problem)
            self._set_fault(problem)
        self._flush_at = asyncio.get_running_loop().call_later(self._retry_in, self._flush)
        self._retry_in = min(2 * self._retry_in, self.RETRY_MAX)

    def _set_fault(self, fault: str | None) -> None:
        if fault is None:
            log.warning("writes go on: the database took the writes held back")
            self._retry_in = self.RETRY_FIRST
        self.fault = fault
        if self.on_fault is not None:
            try:
                self.on_fault(fault)
            except Exception:
                log.exception("telling about a storage fault")

    def check_writable(self) -> None:
        """Raise StorageError while writes are held back (a new action would only wait behind them),
        or when the database file is found removed or replaced (writes are held back from then on)."""
        if self.fault is None and (problem := self._file_problem()) is not None:
            if self._flush_at is None:
                self._stall(problem)  # its retries notice when the file is back
            else:
                self._set_fault(problem)
        if self.fault is not None:
            raise StorageError(f"{self.fault}: actions are refused until it can be written")

    async def _checkpoint(self) -> None:
        """Copy the log's new pages into the database on the other connection's thread (PASSIVE: the log's writer
        never waits for it). It always leaves the pages written while it ran, so the WAL file is not
        started over here: the log's connection does that at CHECKPOINT_BACKSTOP pages, when its own
        checkpoint finds only those few pages left to copy."""
        try:
            await self._one("PRAGMA wal_checkpoint(PASSIVE)")  # one statement: no per-row work here
        except sqlite3.Error as e:  # the WAL keeps the pages: the next checkpoint copies them
            log.warning("checkpoint failed: %s", e)

    def _write_batch_sync(self, batch: list) -> list:
        """With the log's connection: every write in ``batch`` in one transaction; returns None or the
        exception for each (the commit failing raises: then none of them landed). Usually all of them
        land, so they are tried first as one statement; if anything fails, the transaction is rolled
        back and each write is tried again in a savepoint of its own, so that only the failing ones fail
        (and the later writes of their rooms, as those of rooms that failed before)."""
        now = time.time()
        if not any(b[0] in self._broken for b in batch):
            try:
                self._write_all_sync(batch, now)
                return [None] * len(batch)
            except Exception:
                pass  # one of them fails: which one is found below
        return self._write_each_sync(batch, now)

    def _write_all_sync(self, batch: list, now: float) -> None:
        """Every write in ``batch`` in one transaction and as few statements as possible, or none."""
        con = self.log_con
        rows = [(room_id, start + i, dumps(e), now) for room_id, start, entries, _ in batch
                for i, e in enumerate(entries)]
        con.execute("BEGIN IMMEDIATE")
        try:
            insert_rows(con, rows)
            for room_id, _, _, effects in batch:
                for effect in effects or ():
                    effect_sync(con, room_id, effect, now)
            con.execute("COMMIT")
        except BaseException:
            rollback_sync(con)
            raise

    def _write_each_sync(self, batch: list, now: float) -> list:
        """Each write in a savepoint of its own, in one transaction; None or the exception for each."""
        con = self.log_con
        out: list = []
        failed = set(self._broken)
        con.execute("BEGIN IMMEDIATE")
        try:
            for room_id, start, entries, effects in batch:
                if room_id in failed:
                    out.append(RuntimeError(f"room {room_id}: an earlier write of its log failed"))
                    continue
                con.execute("SAVEPOINT w")
                try:
                    con.executemany("INSERT INTO actions (room_id, n, entry, at) VALUES (?, ?, ?, ?)",
                                    [(room_id, start + i, dumps(e), now) for i, e in enumerate(entries)])
                    for effect in effects or ():
                        effect_sync(con, room_id, effect, now)
                    con.execute("RELEASE w")
                    out.append(None)
                except Exception as e:
                    if storage_fault(e):
                        raise  # not this write's fault: the whole batch waits and is tried again
                    con.execute("ROLLBACK TO w")
                    con.execute("RELEASE w")
                    out.append(e)
                    failed.add(room_id)
            con.execute("COMMIT")
        except BaseException:
            rollback_sync(con)
            raise
        return out

    @guarded_write
    async def close_room(self, room_id: int) -> None:
        self._next_n.pop(room_id, None)
        await self.execute("UPDATE rooms SET closed_at = ? WHERE id = ? AND closed_at IS NULL",
                              (time.time(), room_id))

    async def log_length(self, room_id: int) -> int:
        (n,) = await self._one("SELECT COUNT(*) FROM actions WHERE room_id = ?"
                               " AND id >= (SELECT log_from FROM rooms WHERE id = ?)", (room_id, room_id))
        return n

    # matches

    async def room_matches(self, room_id: int) -> dict[int, dict]:
        """number -> id, seed, salt, commitment: what a recovered room task needs."""
        rows = await self.fetchall(
            "SELECT id, number, seed, salt, commitment FROM matches WHERE room_id = ?", (room_id,))
        return {r["number"]: {"id": r["id"], "seed": int(r["seed"]), "salt": r["salt"],
                              "commitment": r["commitment"]} for r in rows}

    async def match_id(self, room_id: int, number: int) -> int | None:
        row = await self._one(
            "SELECT id FROM matches WHERE room_id = ? AND number = ?", (room_id, number))
        return None if row is None else row["id"]

    async def finished_match(self, match_id: int) -> dict | None:
        """A finished match as the replay file serves it; None if unknown or still being played (its
        seed must stay secret until the end)."""
        row = await self._one(
            "SELECT m.id, m.number, m.rules, m.seed, m.salt, m.commitment, m.players, m.started_at,"
            " m.finished_at, r.code AS room, mr.record FROM matches m JOIN rooms r ON r.id = m.room_id"
            " JOIN match_results mr ON mr.match_id = m.id WHERE m.id = ?", (match_id,))
        if row is None:
            return None
        rec = json.loads(row["record"])
        return {
            "format": "guobiao-match/1", "id": row["id"], "room": row["room"], "number": row["number"],
            "rules": json.loads(row["rules"]), "seed": int(row["seed"]), "salt": row["salt"],
            "commitment": row["commitment"], "players": json.loads(row["players"]),
            "started_at": row["started_at"], "finished_at": row["finished_at"],
            "actions": rec["actions"], "hands": rec["hands"], "scores": rec["scores"], "ranking": rec["ranking"],
            "log_format": rec.get("log_format", 1),  # how to replay the actions (game.match.LOG_FORMAT)
        }


    # tournaments (rooms.tournament): a code, a log, and the rooms that play its tables

    @guarded_write
    async def add_tournament(self, code: str, created_by: str | None, entries: list) -> int:
        async with self.transaction() as db:
            tid = await insert(db, "INSERT INTO tournaments (code, created_by, created_at) VALUES (?, ?, ?)",
                               (code, created_by, time.time()))
            await append_tournament(db, tid, 0, entries, [])
        return tid

    @guarded_write
    async def write_tournament(self, tid: int, start: int, entries: list,
                               tables: list[tuple[str, str]] = ()) -> None:
        """Append entries ``start, start+1, ...`` (the primary key refuses gaps and repeats) and record
        new (table key, room code) pairs, in one transaction."""
        async with self.transaction() as db:
            await append_tournament(db, tid, start, entries, list(tables))

    async def open_tournaments(self) -> list[dict]:
        """Every tournament not closed, with its log and its tables' rooms, for recovery."""
        rows = await self.fetchall(
            "SELECT id, code FROM tournaments WHERE closed_at IS NULL ORDER BY id")
        out = []
        for r in rows:
            log = await self.fetchall(
                "SELECT n, entry FROM tournament_log WHERE tournament_id = ? ORDER BY n", (r["id"],))
            assert [row["n"] for row in log] == list(range(len(log))), f"tournament {r['code']}: log has gaps"
            tables = await self.fetchall(
                "SELECT table_key, room FROM tournament_tables WHERE tournament_id = ?", (r["id"],))
            out.append({"id": r["id"], "code": r["code"], "log": [json.loads(row["entry"]) for row in log],
                        "tables": {t["table_key"]: t["room"] for t in tables}})
        return out

    async def closed_tournament(self, code: str) -> list[dict] | None:
        """A closed tournament's whole log by its code; None if no closed tournament has that code."""
        rows = await self.fetchall(
            "SELECT l.entry FROM tournaments t JOIN tournament_log l ON l.tournament_id = t.id"
            " WHERE t.code = ? AND t.closed_at IS NOT NULL ORDER BY l.n", (code,))
        return [json.loads(row["entry"]) for row in rows] or None

    @guarded_write
    async def close_tournament(self, tid: int) -> None:
        await self.execute("UPDATE tournaments SET closed_at = ? WHERE id = ? AND closed_at IS NULL",
                              (time.time(), tid))

    async def room_log(self, code: str) -> list[dict]:
        """A room's whole log by its code (closed rooms included): what a tournament table reported."""
        rows = await self.fetchall(
            "SELECT a.entry FROM rooms r JOIN actions a ON a.room_id = r.id AND a.id >= r.log_from"
            " WHERE r.code = ? ORDER BY a.id", (code,))
        return [json.loads(row["entry"]) for row in rows]
