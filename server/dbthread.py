"""One SQLite connection on a thread of its own, for the event loop to hand work to.

Every call is one job on that thread, in the order called (a single worker): ``run(fn, *args)`` calls
``fn(*args)`` there, so a function that holds a transaction from BEGIN to COMMIT runs with nothing else
on the connection meanwhile. ``execute``/``execute_fetchall``/``executescript`` are jobs of one
statement (or script) each, their rows read in the same job: a statement left open between two jobs
would keep a read transaction open and make another job's COMMIT fail. Built on the standard library
only (``sqlite3``, ``concurrent.futures``, ``loop.run_in_executor``).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any


class DbThread:
    def __init__(self, con: sqlite3.Connection, pool: ThreadPoolExecutor):
        self.con = con  # use it only inside ``run``'s functions: it belongs to the thread
        self._pool = pool

    @classmethod
    async def connect(cls, path: str, **kwargs) -> DbThread:
        """``sqlite3.connect(path, **kwargs)`` on the new thread; rows are ``sqlite3.Row``."""
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite")

        def connect() -> sqlite3.Connection:
            con = sqlite3.connect(path, check_same_thread=False, **kwargs)
            con.row_factory = sqlite3.Row
            return con

        try:
            con = await asyncio.get_running_loop().run_in_executor(pool, connect)
        except BaseException:
            pool.shutdown(wait=False)
            raise
        return cls(con, pool)

    async def run(self, fn: Callable[..., Any], *args) -> Any:
        """``fn(*args)`` on the connection's thread, as one job."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    async def execute(self, sql: str, args=()) -> int:
        """One statement; the number of rows it changed (``rowcount``)."""
        return await self.run(_execute, self.con, sql, args)

    async def execute_fetchall(self, sql: str, args=()) -> list[sqlite3.Row]:
        return await self.run(_fetchall, self.con, sql, args)

    async def executescript(self, script: str) -> None:
        await self.run(self.con.executescript, script)

    async def close(self) -> None:
        try:
            await self.run(self.con.close)
        finally:
            self._pool.shutdown(wait=False)


def _execute(con: sqlite3.Connection, sql: str, args) -> int:
    cur = con.execute(sql, args)
    try:
        return cur.rowcount
    finally:
        cur.close()


def _fetchall(con: sqlite3.Connection, sql: str, args) -> list[sqlite3.Row]:
    cur = con.execute(sql, args)
    try:
        return cur.fetchall()
    finally:
        cur.close()
