"""SQLite persistence (the default backend; server.store_pg is PostgreSQL's): numbered migrations and
the action log's group commit. The rows themselves (players, rooms, matches...) are server.store_base's.

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
import logging
import sqlite3
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite

from server.store_base import StoreBase
from server.store_sql import (STORAGE, StorageError, dumps, effect_sync, file_id, insert_rows, rollback_sync, run,
                              token_hash, transaction)

__all__ = ["STORAGE", "Store", "StorageError", "dumps", "open_store", "token_hash"]

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
log = logging.getLogger("guobiao.store")


def migrations(folder: Path = MIGRATIONS) -> list[tuple[int, Path]]:
    """The numbered migrations: SQLite's (``folder``) or PostgreSQL's (``folder / "postgres"``)."""
    out = []
    for p in sorted(folder.glob("*.sql")):
        number = int(p.name.split("_", 1)[0])
        out.append((number, p))
    numbers = [n for n, _ in out]
    assert numbers == list(range(1, len(out) + 1)), f"migrations must be numbered 1, 2, ...: {numbers}"
    return out


def is_postgres(db: str) -> bool:
    """Whether ``--db`` names a PostgreSQL database (a URL) rather than a SQLite file."""
    return str(db).startswith(("postgresql://", "postgres://"))


async def open_store(db: str | Path) -> StoreBase:
    """The store ``--db`` names: a postgresql:// URL (server.store_pg) or a SQLite file (the default)."""
    if is_postgres(str(db)):
        from server.store_pg import PgStore  # asyncpg is imported only for PostgreSQL
        return await PgStore.open(str(db))
    return await Store.open(db)


class Store(StoreBase):
    FAULTS = (sqlite3.OperationalError,)  # disk full, I/O error, read-only, locked
    IntegrityError = sqlite3.IntegrityError

    def __init__(self, db: aiosqlite.Connection, log_con: sqlite3.Connection, path: str):
        super().__init__()
        self.db = db  # only inside ``connection`` or ``transaction``
        self.lock = asyncio.Lock()  # one coroutine at a time on ``db``
        self._writing = False  # a transaction is open on ``db`` (``_flush`` waits for its end)
        self._flush_held = False  # ``_flush`` waited for that end: run it then
        self.log_con = log_con  # the event loop's thread only: the action log's writes (``write``)
        self.path = path
        self._since_checkpoint = 0  # log rows written since the last checkpoint started
        self._checkpointer: asyncio.Task | None = None
        self.file_id = file_id(path)  # the database file's (device, inode) when it was opened
        self._file_seen = False  # found unchanged in this pass of the event loop (``_file_problem``)

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
        (version,) = await self.fetchone("PRAGMA user_version")
        for number, p in migrations():
            if number <= version:
                continue
            # executescript commits first; the script and the version bump are one transaction.
            async with self.connection() as db:
                await db.executescript(f"BEGIN;\n{p.read_text(encoding='utf-8')}\nPRAGMA user_version={number};\nCOMMIT;")
            version = number
        return version

    CHECKPOINT_EVERY = 2000  # log rows between checkpoints (``_checkpoint``)
    CHECKPOINT_BACKSTOP = 20_000  # pages (80 MiB) of WAL at which the log's own connection checkpoints

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
                if self.storage_fault(e):
                    problem = f"the database cannot be written ({e})"
                results = [e] * len(batch)
        if problem is not None:
            self._pending[:0] = batch
            self._stall(problem)
            return
        self._deliver(batch, results)
        self._since_checkpoint += sum([len(b[2]) for b in batch])  # a list: one call, not one per write
        checkpointing = self._checkpointer is not None and not self._checkpointer.done()
        if self._since_checkpoint >= self.CHECKPOINT_EVERY and not checkpointing:
            self._since_checkpoint = 0
            self._checkpointer = loop.create_task(self._checkpoint())
        if self._pending and self._flush_at is None:
            self._flush_at = loop.call_later(self.COMMIT_EVERY, self._flush)

    def _file_problem(self, fresh: bool = True) -> str | None:
        """Why the database file is not the one opened (removed, or replaced by another), or None.
        Writes to a removed file would land in a file nobody can open again: a restart would start
        from an empty database.

        Not ``fresh`` (an action's check, ``check_writable``): a file found unchanged earlier in this
        pass of the event loop is not looked at again (a system call per action was ~4 % of the
        server's CPU at saturation). A look is reused only for frames that had arrived before it was
        taken, so a file removed before a client sent its action is still seen by that action's check."""
        if not fresh and self._file_seen:
            return None
        try:
            now = file_id(self.path)
        except FileNotFoundError:
            return "the database file was removed"
        except OSError as e:
            return f"the database file cannot be checked ({e})"
        if now != self.file_id:
            return "the database file was replaced"
        if not self._file_seen:
            try:
                asyncio.get_running_loop().call_soon(self._next_pass)
                self._file_seen = True
            except RuntimeError:  # no loop: nothing to remember it for
                pass
        return None

    def _next_pass(self) -> None:
        self._file_seen = False

    async def _checkpoint(self) -> None:
        """Copy the log's new pages into the database on the other connection's thread (PASSIVE: the log's writer
        never waits for it). It always leaves the pages written while it ran, so the WAL file is not
        started over here: the log's connection does that at CHECKPOINT_BACKSTOP pages, when its own
        checkpoint finds only those few pages left to copy."""
        try:
            await self.fetchone("PRAGMA wal_checkpoint(PASSIVE)")  # one statement: no per-row work here
        except sqlite3.Error as e:  # the WAL keeps the pages: the next checkpoint copies them
            log.warning("checkpoint failed: %s", e)

    def _write_batch_sync(self, batch: list) -> list:
        """With the log's connection: every write in ``batch`` in one transaction; returns None or the
        exception for each (the commit failing raises: then none of them landed). Usually all of them
        land, so they are tried first as one statement; if anything fails, the transaction is rolled
        back and each write is tried again in a savepoint of its own, so that only the failing ones fail
        (and the later writes of their rooms, as those of rooms that failed before)."""
        now = time.time()
        if not self._broken or not any(b[0] in self._broken for b in batch):  # (a generator: a call per write)
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
                    if self.storage_fault(e):
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
