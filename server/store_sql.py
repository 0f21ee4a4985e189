"""What the stores (server.store, server.store_pg) run on: row encoding, the SQL of one transaction,
storage faults, and the few calls made on a connection: aiosqlite's public API (``execute``,
``execute_fetchall``, ``executemany``), which PgConn gives an asyncpg connection."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import sqlite3
import time
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

import orjson

from server.codec import ProtocolError
from server.errors import STORAGE

# Rows are compact JSON with sorted keys, written by orjson (a log row per action: the fast encoder);
# json takes what orjson refuses (integers past 64 bits, keys that are not strings)
# and writes the same text for everything else.
_json_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode


def dumps(obj) -> str:
    try:
        return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:
        return _json_dumps(obj)


def redact(url: str) -> str:
    """A database URL without its password (for logs and error messages)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class StorageError(ProtocolError):
    """The database cannot take writes now (disk full, I/O error, file removed): nothing changed."""

    def __init__(self, message: str):
        super().__init__(STORAGE, message)


class Fenced(Exception):
    """A write of a room's log refused because a newer owner (a larger fencing token) has written it
    (docs/cluster.md "Fencing"): this process no longer owns the room."""


def guarded_write(fn):
    """A write on the store's connection: refused while writes are held back, and a failure of the
    storage's (disk full, the connection lost...: the store's ``FAULTS``) is a StorageError, which the
    client hears as server/storage."""
    @functools.wraps(fn)
    async def write(self, *args, **kw):
        self.check_writable()
        try:
            return await fn(self, *args, **kw)
        except self.FAULTS as e:
            raise StorageError(f"the database cannot be written ({e})") from e
    return write


def file_id(path: str) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


@contextmanager
def transaction(con: sqlite3.Connection):
    """BEGIN IMMEDIATE … COMMIT, rolled back if anything in it fails."""
    con.execute("BEGIN IMMEDIATE")
    try:
        yield
        con.execute("COMMIT")
    except BaseException:
        rollback_sync(con)
        raise


async def run(db, sql: str, args=()) -> int:
    """One statement on an aiosqlite connection (or a PgConn); the number of rows it changed. Its cursor
    is closed at once: one left open would keep a read transaction open and make a later COMMIT fail."""
    if isinstance(db, PgConn):
        return await db.run(sql, args)
    async with db.execute(sql, args) as cur:
        return cur.rowcount


async def insert(db, sql: str, args=()) -> int:
    """One INSERT on an aiosqlite connection (or a PgConn); the new row's id."""
    if isinstance(db, PgConn):
        return await db.insert(sql, args)
    async with db.execute(sql, args) as cur:
        return cur.lastrowid


async def one(db, sql: str, args=()):
    """The first row of a query on an aiosqlite connection, or None (every row is read, in one call)."""
    rows = await db.execute_fetchall(sql, args)
    return rows[0] if rows else None


_PARAM = re.compile(r"'(?:[^']|'')*'|\?|\bINDEXED BY \w+")


@functools.lru_cache(maxsize=512)
def to_postgres(sql: str) -> str:
    """A statement of SQLite's dialect in PostgreSQL's: ``?`` parameters numbered ``$1, $2, ...``
    (never inside a string literal) and SQLite's index hints (``INDEXED BY``) left out."""
    count = 0

    def sub(m: re.Match) -> str:
        nonlocal count
        text = m.group(0)
        if text == "?":
            count += 1
            return f"${count}"
        return "" if text.startswith("INDEXED BY") else text
    return _PARAM.sub(sub, sql)


class PgConn:
    """An asyncpg connection (asyncpg's public API: ``fetch``, ``execute``, ``executemany``,
    ``fetchval``) behind the calls the store's statements make on an aiosqlite one."""

    def __init__(self, con):
        self.con = con

    async def execute_fetchall(self, sql: str, args=()) -> list:
        return await self.con.fetch(to_postgres(sql), *args)

    async def executemany(self, sql: str, rows) -> None:
        rows = list(rows)
        if rows:
            await self.con.executemany(to_postgres(sql), rows)

    async def run(self, sql: str, args=()) -> int:
        status = await self.con.execute(to_postgres(sql), *args)  # e.g. "UPDATE 3", "INSERT 0 1"
        last = status.rsplit(" ", 1)[-1]
        return int(last) if last.isdigit() else 0

    async def insert(self, sql: str, args=()) -> int:
        return await self.con.fetchval(to_postgres(sql) + " RETURNING id", *args)


_ROWS_PER_INSERT = 64


def insert_rows(con: sqlite3.Connection, rows: list) -> None:
    """Log rows with as few statements as possible (each statement is a trip into SQLite that gives
    up the GIL and takes it back)."""
    for i in range(0, len(rows), _ROWS_PER_INSERT):
        chunk = rows[i:i + _ROWS_PER_INSERT]
        con.execute("INSERT INTO actions (room_id, n, entry, at) VALUES " + ",".join(["(?,?,?,?)"] * len(chunk)),
                    [x for row in chunk for x in row])


def rollback_sync(con: sqlite3.Connection) -> None:
    try:
        con.execute("ROLLBACK")
    except sqlite3.OperationalError:  # SQLite rolled back by itself (or BEGIN never ran)
        pass


def effect_statements(room_id: int, e: dict, now: float) -> list[tuple[str, tuple]]:
    """The statements that record a match effect (a start, a hand's result, a match's result)."""
    kind = e["kind"]
    if kind == "match_start":
        return [(
            "INSERT INTO matches (room_id, number, rules, seed, salt, commitment, players, started_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (room_id, e["number"], dumps(e["rules"]), str(e["seed"]), e["salt"], e["commitment"],
             dumps(e["players"]), now))]
    if kind == "hand_result":
        return [(
            "INSERT INTO hand_results (match_id, hand, record)"
            " VALUES ((SELECT id FROM matches WHERE room_id = ? AND number = ?), ?, ?)",
            (room_id, e["number"], e["hand"], dumps(e["record"])))]
    if kind == "match_result":
        return [(
            "INSERT INTO match_results (match_id, record, finished_at)"
            " VALUES ((SELECT id FROM matches WHERE room_id = ? AND number = ?), ?, ?)",
            (room_id, e["number"], dumps(e["record"]), now)),
            ("UPDATE matches SET finished_at = ? WHERE room_id = ? AND number = ?", (now, room_id, e["number"]))]
    raise ValueError(f"unknown effect {kind!r}")  # pragma: no cover - a bug in the caller


def effect_sync(con: sqlite3.Connection, room_id: int, e: dict, now: float) -> None:
    for sql, args in effect_statements(room_id, e, now):
        con.execute(sql, args)


async def append_tournament(db, tid: int, start: int, entries: list, tables: list) -> None:
    """A tournament's log entries ``start, start+1, ...`` and new (table key, room code) pairs, inside
    the caller's transaction on the store's connection."""
    now = time.time()
    await db.executemany("INSERT INTO tournament_log (tournament_id, n, entry, at) VALUES (?, ?, ?, ?)",
                         [(tid, start + i, dumps(e), now) for i, e in enumerate(entries)])
    await db.executemany("INSERT INTO tournament_tables (tournament_id, table_key, room) VALUES (?, ?, ?)",
                         [(tid, key, room) for key, room in tables])
