"""PostgreSQL persistence through asyncpg (``guobiao serve --db postgresql://USER@HOST:PORT/DB``): the
same rows and the same action log as SQLite's store (server.store_base), on a pool of connections.

The action log keeps SQLite's rules: a room's rows are appended in order, a gap or a repeat is refused
before anything is written (and by the UNIQUE (room_id, n) of the table: several processes may share
the database), and a write's caller hears only once its transaction is committed. Writes queued while
a commit is under way share the next one (one commit in flight at a time, in order). A commit that
fails for the storage's sake (the server gone, the connection lost, disk full) holds every pending
write back and retries with backoff, as SQLite's store does.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg

from server.store import MIGRATIONS, migrations
from server.store_base import StoreBase
from server.store_sql import Fenced, PgConn, StorageError, dumps, effect_statements, redact, run

log = logging.getLogger("guobiao.store")

PG_MIGRATIONS = MIGRATIONS / "postgres"  # the same numbered migrations in PostgreSQL's dialect
MIGRATION_LOCK = 0x6775_6F62_6961_6F  # pg_advisory_xact_lock key: one process migrates at a time

# The storage's faults (retried; a client hears server/storage), as opposed to a write's own failure.
FAULTS = (OSError, asyncio.TimeoutError, asyncpg.PostgresConnectionError, asyncpg.InterfaceError,
          asyncpg.InsufficientResourcesError, asyncpg.OperatorInterventionError, asyncpg.PostgresSystemError,
          asyncpg.ReadOnlySQLTransactionError)

# A batch of log rows in one statement, in the order given (the ids follow it: a room's rows are read
# back in id order).
INSERT_ROWS = ("INSERT INTO actions (room_id, n, entry, at) SELECT r, n, e, a FROM"
               " unnest($1::bigint[], $2::bigint[], $3::text[], $4::float8[]) WITH ORDINALITY AS t(r, n, e, a, o)"
               " ORDER BY o")
# Fencing (docs/cluster.md): the rooms' rows share-locked in id order (a fence's UPDATE waits for the
# write, and the write for a fence under way, whose token it then reads). The write does not change the
# row: its owner's fence recorded the token already, and a row version per room per commit is work.
LOCK_ROOMS = "SELECT id, owner_token FROM rooms WHERE id = ANY($1::bigint[]) ORDER BY id FOR SHARE"
# The common group commit (no match effects) as ONE statement, one round trip instead of four (BEGIN,
# lock, insert, COMMIT), with the same effect: the rooms' rows locked, each owner token compared with
# the one the write carries, and the rows inserted only if no room has a newer owner. The caller turns
# a refusal into Fenced and writes the batch again the long way (``_write_each``), which finds the
# fenced rooms.
APPEND = ("WITH locked AS (" + LOCK_ROOMS + "),"
          " kept AS (SELECT count(*) = cardinality($1::bigint[]) AS ok FROM locked"
          " JOIN unnest($1::bigint[], $2::bigint[]) AS t(id, tok) USING (id) WHERE owner_token <= tok),"
          " ins AS (INSERT INTO actions (room_id, n, entry, at) SELECT r, n, e, $6::float8 FROM"
          " unnest($3::bigint[], $4::bigint[], $5::text[]) WITH ORDINALITY AS t(r, n, e, o)"
          " WHERE (SELECT ok FROM kept) ORDER BY o)"
          " SELECT ok FROM kept")

# APPEND for the rows of one room (most commits of a paced node): no order to keep, no join.
APPEND_ONE = ("WITH locked AS (SELECT FROM rooms WHERE id = $1 AND owner_token <= $2 FOR SHARE),"
              " ins AS (INSERT INTO actions (room_id, n, entry, at) SELECT $1, n, e, $5::float8 FROM"
              " unnest($3::bigint[], $4::text[]) WITH ORDINALITY AS t(n, e, o) WHERE EXISTS (SELECT FROM locked)"
              " ORDER BY o)"
              " SELECT EXISTS (SELECT FROM locked)")


class PgStore(StoreBase):
    FAULTS = FAULTS
    IntegrityError = asyncpg.IntegrityConstraintViolationError
    POOL_SIZE = 8  # connections: the log's commits hold one (``_log_con``), reads and transactions the others
    CONNECT_TIMEOUT = 10.0  # seconds
    CLOSE_TIMEOUT = 10.0  # seconds close waits for connections in use before it cuts them

    def __init__(self, pool: asyncpg.Pool, url: str):
        super().__init__()
        self.pool = pool
        self.url = url
        self._flushing: asyncio.Task | None = None  # the group commit under way
        self._unsure: set[tuple[int, int]] = set()  # (room, start) of writes whose commit may have landed
        # The group commit's connection, taken from the pool once and kept (one commit in flight at a
        # time): an acquire and a release per commit cost two tasks, a queue and timers (docs/performance.md
        # "A node's own work per action"). Given back on a storage fault and taken again at the retry.
        self._log_con = None

    @classmethod
    async def open(cls, url: str) -> PgStore:
        """The store on the database at ``url``, migrated. A database that cannot be reached, read or
        written raises StorageError, with no connection left open."""
        pool = None
        try:
            pool = await asyncpg.create_pool(url, min_size=1, max_size=cls.POOL_SIZE, timeout=cls.CONNECT_TIMEOUT,
                                             reset=_keep_session)
            store = cls(pool, url)
            await store.migrate()
        except BaseException as e:
            if pool is not None:
                pool.terminate()
            if isinstance(e, (*FAULTS, StorageError, asyncpg.PostgresError, ValueError)):  # ValueError: a malformed URL
                raise StorageError(f"cannot use the database {redact(url)}: {e}") from e
            raise
        return store

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[PgConn]:
        """A connection of the pool, to this coroutine alone until the block ends. PostgreSQL out of
        reach is a StorageError (the client hears server/storage; nothing changed)."""
        try:
            async with self.pool.acquire(timeout=self.CONNECT_TIMEOUT) as con:
                yield PgConn(con)
        except FAULTS as e:
            raise StorageError(f"the database cannot be reached ({e})") from e

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PgConn]:
        """BEGIN … COMMIT on a connection of the pool, rolled back if anything in it fails."""
        async with self.connection() as db:
            async with db.con.transaction():
                yield db

    async def migrate(self) -> int:
        """Every migration not applied yet, all in one transaction with the version's bump, under a
        lock: processes that start together on one database migrate it once."""
        async with self.transaction() as db:
            con = db.con
            await con.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            await con.execute("CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)")
            version = await con.fetchval("SELECT version FROM schema_version")
            if version is None:
                await con.execute("INSERT INTO schema_version (version) VALUES (0)")
                version = 0
            for number, p in migrations(PG_MIGRATIONS):
                if number > version:
                    await con.execute(p.read_text(encoding="utf-8"))
                    version = number
            # Always a write: a database that can be read but not written fails here, not at the first action.
            await con.execute("UPDATE schema_version SET version = $1", version)
        return version

    async def close(self) -> None:
        """Commit what is pending and close. Writes the storage still refuses are dropped (logged):
        their callers hear StorageError, and none of them was shown to anybody."""
        loop = asyncio.get_running_loop()
        while True:
            self._cancel_flush_timer()
            if self._flushing is not None:
                await asyncio.gather(self._flushing, return_exceptions=True)
                continue
            if not self._pending or self.fault is not None:
                break
            self._flushing = loop.create_task(self._flush_batch())
        lost, self._pending = self._pending, []
        if lost:
            log.error("closing with %d writes not made: %s", len(lost), self.fault)
        for *_, done in lost:
            done(StorageError(f"{self.fault}: not written"))
        await self._drop_log_con()
        try:
            await asyncio.wait_for(self.pool.close(), self.CLOSE_TIMEOUT)
        except asyncio.TimeoutError:  # pragma: no cover - a connection held past the timeout
            self.pool.terminate()

    def _cancel_flush_timer(self) -> None:
        if self._flush_at is not None:
            self._flush_at.cancel()
            self._flush_at = None

    # the action log's group commit

    def _flush(self) -> None:
        """Start the group commit of the writes queued, unless one is under way: that one starts the
        next when it ends (so a room's writes are committed in the order they were appended)."""
        self._flush_at = None
        if self._flushing is None:
            self._flushing = asyncio.get_running_loop().create_task(self._flush_batch())

    async def _flush_batch(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            self._last_commit = loop.time()
            batch, self._pending = self._pending[:self.MAX_BATCH], self._pending[self.MAX_BATCH:]
            try:
                began = time.perf_counter()
                results = await self._write_landed(batch)
                if self.on_commit is not None:
                    self.on_commit(time.perf_counter() - began, len(batch))
            except Exception as e:  # the commit failed: none of them landed, or some may have (below)
                if self.storage_fault(e):
                    self._unsure.update((b[0], b[1]) for b in batch)
                    self._pending[:0] = batch
                    self._stall(f"the database cannot be written ({e})")
                    return
                results = [e] * len(batch)
            self._deliver(batch, results)
        finally:
            self._flushing = None
        if self._pending and self._flush_at is None:
            self._flush_at = loop.call_later(self.COMMIT_EVERY, self._flush)

    async def _write_landed(self, batch: list) -> list:
        """``_write_batch`` for the writes of ``batch`` not found already in the log: a commit whose
        connection was lost before its answer came may have landed, and is not written twice."""
        landed = await self._landed([b for b in batch if (b[0], b[1]) in self._unsure]) if self._unsure else set()
        todo = [b[:4] for b in batch if (b[0], b[1]) not in landed]
        written = iter(await self._write_batch(todo) if todo else [])
        self._unsure.difference_update((b[0], b[1]) for b in batch)
        return [None if (b[0], b[1]) in landed else next(written) for b in batch]

    async def _landed(self, batch: list) -> set[tuple[int, int]]:
        """(room, start) of the writes in ``batch`` whose first row is in the log."""
        keys = [(b[0], b[1]) for b in batch if b[2]]
        if not keys:
            return set()
        async with self.pool.acquire(timeout=self.CONNECT_TIMEOUT) as con:
            rows = await con.fetch("SELECT a.room_id, a.n FROM actions a JOIN unnest($1::bigint[], $2::bigint[])"
                                   " AS k(r, n) ON a.room_id = k.r AND a.n = k.n",
                                   [k[0] for k in keys], [k[1] for k in keys])
        return {(r["room_id"], r["n"]) for r in rows}

    async def _write_batch(self, batch: list) -> list:
        """Every write in ``batch`` in one transaction; None or the exception for each (a storage fault
        raises: then none of them landed). If one fails, each is tried again in a savepoint of its own,
        so that only the failing ones (and the later writes of their rooms) fail."""
        now = time.time()
        if self._log_con is not None and self._log_con_lost():
            await self._drop_log_con()
        if self._log_con is None:
            self._log_con = await self.pool.acquire(timeout=self.CONNECT_TIMEOUT)
        con = self._log_con
        try:
            if not any(b[0] in self._broken for b in batch):
                try:
                    if any(b[3] for b in batch):  # match effects: statements of their own
                        async with con.transaction():
                            await _write_rows(con, batch, now, self._tokens)
                    else:
                        await _append(con, batch, now, self._tokens)
                    return [None] * len(batch)
                except Exception as e:
                    if self.storage_fault(e):
                        raise
            return await self._write_each(con, batch, now)
        except BaseException:  # a fault, or cancelled mid-statement: the connection's state is unknown
            await self._drop_log_con(broken=True)
            raise

    def _log_con_lost(self) -> bool:
        """Whether the kept commit connection was closed while idle (a restart of the server, an
        administrator): the pool then takes it back by itself, and its methods raise InterfaceError."""
        try:
            return self._log_con.is_closed()
        except asyncpg.InterfaceError:
            return True

    async def _drop_log_con(self, broken: bool = False) -> None:
        """The commit connection back to the pool (closed first when ``broken``: the pool opens a new one)."""
        con, self._log_con = self._log_con, None
        if con is None:
            return
        try:
            if broken:
                con.terminate()
            await self.pool.release(con)
        except FAULTS + (asyncpg.PostgresError,):
            pass  # the pool took it back already (it was closed), or the pool is closed

    async def _write_each(self, con: asyncpg.Connection, batch: list, now: float) -> list:
        out: list = []
        failed = set(self._broken)
        async with con.transaction():
            for write in batch:
                room_id = write[0]
                if room_id in failed:
                    out.append(RuntimeError(f"room {room_id}: an earlier write of its log failed"))
                    continue
                try:
                    async with con.transaction():  # a savepoint
                        await _write_rows(con, [write], now, self._tokens)
                    out.append(None)
                except Exception as e:
                    if self.storage_fault(e):
                        raise  # not this write's fault: the whole batch waits and is tried again
                    out.append(e)
                    failed.add(room_id)
        return out


async def _keep_session(con: asyncpg.Connection) -> None:
    """A connection given back to the pool keeps its session as it is (asyncpg still rolls back a
    transaction left open): the store sets nothing that outlives a transaction (no SET, LISTEN, cursor
    or session advisory lock), and asyncpg's default reset (``RESET ALL`` and three more) would be one
    more round trip for every group commit."""


async def _append(con: asyncpg.Connection, batch: list, now: float, tokens: dict[int, int]) -> None:
    """The log rows of ``batch`` (no match effects) in one statement (APPEND), its own transaction."""
    ids = sorted({b[0] for b in batch if b[0] in tokens})
    rows = [(room_id, start + i, dumps(e)) for room_id, start, entries, _ in batch for i, e in enumerate(entries)]
    if len(ids) == 1 and all(b[0] == ids[0] for b in batch):
        kept = await con.fetchval(APPEND_ONE, ids[0], tokens[ids[0]], [r[1] for r in rows], [r[2] for r in rows], now)
    else:
        kept = await con.fetchval(APPEND, ids, [tokens[i] for i in ids], [r[0] for r in rows],
                                  [r[1] for r in rows], [r[2] for r in rows], now)
    if not kept:
        raise Fenced("a newer owner has written the log of one of the rooms")


async def _write_rows(con: asyncpg.Connection, batch: list, now: float, tokens: dict[int, int]) -> None:
    """The log rows and match effects of ``batch`` (room, start, entries, effects), in the caller's
    transaction; first the rows of its rooms that have a fencing token (``tokens``) locked, raising
    Fenced when a newer owner has fenced one of them."""
    fenced = {b[0]: tokens[b[0]] for b in batch if b[0] in tokens}
    if fenced:
        ids = sorted(fenced)
        kept = {r["id"] for r in await con.fetch(LOCK_ROOMS, ids) if r["owner_token"] <= fenced[r["id"]]}
        if kept != set(ids):
            raise Fenced(f"rooms {sorted(set(ids) - kept)}: a newer owner has written the log")
    rows = [(room_id, start + i, dumps(e)) for room_id, start, entries, _ in batch for i, e in enumerate(entries)]
    if rows:
        await con.execute(INSERT_ROWS, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows],
                          [now] * len(rows))
    db = PgConn(con)
    for room_id, _, _, effects in batch:
        for effect in effects or ():
            for sql, args in effect_statements(room_id, effect, now):
                await run(db, sql, args)
