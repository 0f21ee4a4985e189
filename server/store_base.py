"""What both storage backends share (server.store: SQLite; server.store_pg: PostgreSQL): the rows of
players, rooms, matches and tournaments, and the action log's append-only queue with its group commit
and its fault handling. A backend gives ``connection`` and ``transaction`` (a connection whose methods
server.store_sql's helpers call: ``run``, ``insert``, ``one``, ``execute_fetchall``, ``executemany``),
``_flush`` (the group commit of the queued log writes) and the exceptions of its driver:
``FAULTS`` (the storage's fault: retried, heard as server/storage) and ``IntegrityError`` (the write's).

The statements are written once, in SQLite's dialect with ``?`` parameters; server.store_sql.PgConn
turns them into PostgreSQL's.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable

from server.accounts import new_session_id
from server.store_sql import (Fenced, StorageError, append_tournament, dumps, effect_statements, guarded_write, insert,
                              one, run, token_hash)

log = logging.getLogger("guobiao.store")


class StoreBase:
    FAULTS: tuple[type[BaseException], ...] = ()
    IntegrityError: type[Exception] = Exception

    def __init__(self):
        self._pending: list = []  # writes waiting for the group commit (write)
        self._flush_at: asyncio.TimerHandle | asyncio.Handle | None = None
        self._last_commit = float("-inf")  # loop time the last group commit started
        self._broken: set[int] = set()  # rooms a write of which failed: their later writes fail too
        self._next_n: dict[int, int] = {}  # open room -> the n its next log row must have
        # Why writes are held back (disk full, the file removed...), or None. While it is set the
        # pending writes stay queued and are retried with backoff; on_fault hears each change.
        self.fault: str | None = None
        self.on_fault: Callable[[str | None], None] | None = None
        self.on_commit: Callable[[float, int], None] | None = None  # (seconds, writes) of each group commit
        # Cluster mode (docs/cluster.md "Fencing"): room id -> this process's fencing token, written with
        # each write of the room's log (PostgreSQL refuses it once a larger one wrote); on_fenced hears
        # the room id of each write so refused.
        self._tokens: dict[int, int] = {}
        self._tournament_tokens: dict[int, int] = {}  # tournament id -> this owner's fencing token
        self.on_fenced: Callable[[int], None] | None = None
        self._retry_in = self.RETRY_FIRST

    def storage_fault(self, e: BaseException) -> bool:
        """Whether a failed write is the storage's fault (disk full, I/O error, read-only, locked, the
        connection lost) rather than the write's own (a constraint: a bug): the first kind is retried."""
        return isinstance(e, self.FAULTS)

    def _file_problem(self, fresh: bool = True) -> str | None:
        """Why the storage cannot be written though nothing failed yet (SQLite: its file removed);
        not ``fresh``: what this pass of the event loop found already may be reused."""
        return None

    def _deliver(self, batch: list, results: list) -> None:
        """A group commit landed: each write's caller hears None or its own write's exception."""
        if self.fault is not None:
            self._set_fault(None)
        for (room_id, _, _, _, done), r in zip(batch, results):  # (a starred target built a list per write)
            if r is not None:
                self._broken.add(room_id)
                if isinstance(r, Fenced) and self.on_fenced is not None:
                    try:
                        self.on_fenced(room_id)
                    except Exception:
                        log.exception("after room %s's write was fenced off", room_id)
            try:
                done(r)
            except Exception:  # the caller's bug: the other writes' callers still hear
                log.exception("after a write of room %s", room_id)

    async def fetchone(self, sql: str, args=()):
        """The first row of a query, or None."""
        async with self.connection() as db:
            return await one(db, sql, args)

    async def fetchall(self, sql: str, args=()) -> list:
        async with self.connection() as db:
            return await db.execute_fetchall(sql, args)

    async def execute(self, sql: str, args=()) -> int:
        """One statement (its own transaction); the number of rows it changed."""
        async with self.connection() as db:
            return await run(db, sql, args)

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
        row = await self.fetchone(
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
            except (StorageError, *self.FAULTS) as e:
                log.warning("last_seen of %s not written: %s", row["player"], e)
        return row

    async def player_names(self, ids) -> dict[str, str]:
        ids = list(ids)
        if not ids:
            return {}
        q = ",".join("?" * len(ids))
        try:
            rows = await self.fetchall(f"SELECT id, name FROM players WHERE id IN ({q})", ids)
        except self.FAULTS as e:  # the storage's fault (I/O error, connection lost): server/storage
            raise StorageError(f"the database cannot be read ({e})") from e
        return {r["id"]: r["name"] for r in rows}

    # rooms and their logs

    @guarded_write
    async def add_room(self, code: str, config: dict, created_by: str | None, entries: list,
                       effects: list = ()) -> int:
        """A new room, the first entries of its log and their match effects (a quick-match room's first
        match), in one transaction: no room exists without its log."""
        async with self.transaction() as db:
            room_id = await self._insert_room(db, code, config, created_by, entries)
            now = time.time()
            for effect in effects:
                for sql, args in effect_statements(room_id, effect, now):
                    await run(db, sql, args)
        self._next_n[room_id] = len(entries)
        return room_id

    @staticmethod
    async def _insert_room(db, code: str, config: dict, created_by: str | None, entries: list) -> int:
        now = time.time()
        # Row ids only grow (nothing is deleted): the room's rows will all come after the last one.
        room_id = await insert(db, "INSERT INTO rooms (code, config, created_by, created_at, log_from)"
                               " VALUES (?, ?, ?, ?, (SELECT COALESCE(MAX(id), 0) + 1 FROM actions))",
                               (code, dumps(config), created_by, now))
        await db.executemany("INSERT INTO actions (room_id, n, entry, at) VALUES (?, ?, ?, ?)",
                             [(room_id, i, dumps(e), now) for i, e in enumerate(entries)])
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

    async def open_room_codes(self) -> list[dict]:
        """The id and code of every room that was not closed, without their logs (a cluster node reads
        a room's log only once it owns the room: ``open_room``)."""
        rows = await self.fetchall("SELECT id, code FROM rooms WHERE closed_at IS NULL ORDER BY id")
        return [{"id": r["id"], "code": r["code"]} for r in rows]

    async def open_room(self, code: str) -> dict | None:
        """One room as ``open_rooms`` gives it (its whole log, checked), or None once it is closed."""
        r = await self.fetchone("SELECT id, code, config, log_from FROM rooms WHERE code = ? AND closed_at IS NULL",
                            (code,))
        if r is None:
            return None
        log = await self.fetchall("SELECT n, entry FROM actions WHERE room_id = ? AND id >= ? ORDER BY id",
                                  (r["id"], r["log_from"]))
        assert [row["n"] for row in log] == list(range(len(log))), f"room {code}: log has gaps"
        self._next_n[r["id"]] = len(log)
        return {"id": r["id"], "code": r["code"], "config": json.loads(r["config"]),
                "log": [json.loads(row["entry"]) for row in log]}

    async def fence_many(self, tokens: dict[str, int]) -> dict[str, int]:
        """``fence`` for many rooms (code -> token) in one transaction, their rows in id order (as a
        write locks them: the two cannot deadlock); code -> id of the rooms taken."""
        if not tokens:
            return {}
        marks = ", ".join("?" * len(tokens))
        taken: dict[str, int] = {}
        async with self.transaction() as db:
            rows = await db.execute_fetchall(f"SELECT id, code FROM rooms WHERE code IN ({marks}) ORDER BY id",
                                             tuple(tokens))
            for r in rows:
                token = tokens[r["code"]]
                if await run(db, "UPDATE rooms SET owner_token = ? WHERE id = ? AND owner_token <= ?",
                             (token, r["id"], token)):
                    taken[r["code"]] = r["id"]
        for code, room_id in taken.items():
            self._tokens[room_id] = tokens[code]
        return taken

    async def open_rooms_by_code(self, codes: list[str]) -> list[dict]:
        """``open_room`` for many rooms, in two queries (those closed are left out)."""
        if not codes:
            return []
        rooms = await self.fetchall(f"SELECT id, code, config, log_from FROM rooms WHERE closed_at IS NULL"
                                    f" AND code IN ({', '.join('?' * len(codes))}) ORDER BY id", tuple(codes))
        logs: dict[int, list] = {r["id"]: [] for r in rooms}
        if rooms:
            rows = await self.fetchall(f"SELECT room_id, n, entry FROM actions WHERE room_id IN"
                                       f" ({', '.join('?' * len(rooms))}) ORDER BY room_id, n", tuple(logs))
            for row in rows:
                logs[row["room_id"]].append(row)
        out = []
        for r in rooms:
            log = logs[r["id"]]
            assert [row["n"] for row in log] == list(range(len(log))), f"room {r['code']}: log has gaps"
            self._next_n[r["id"]] = len(log)
            out.append({"id": r["id"], "code": r["code"], "config": json.loads(r["config"]),
                        "log": [json.loads(row["entry"]) for row in log]})
        return out

    async def write(self, room_id: int, start: int, entries: list, effects: list | None = None) -> None:
        """Append log entries ``start, start+1, ...`` and apply match effects in one transaction.

        A write whose ``start`` does not follow the room's last row (a repeat or a gap) fails with
        ``IntegrityError`` and writes nothing (``append``). Writes of several rooms that arrive
        together (or within ``COMMIT_EVERY`` of the last commit) share one commit (group commit); one
        that fails changes nothing and the others still land (each backend's ``_write_batch``). Returns once
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
            asyncio.get_running_loop().call_soon(done, self.IntegrityError(f"room {room_id}'s log {what}"))
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

    RETRY_FIRST = 0.1  # seconds before a failed commit is tried again; doubled each time, up to:
    RETRY_MAX = 5.0

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
        if self.fault is None and (problem := self._file_problem(fresh=False)) is not None:
            if self._flush_at is None:
                self._stall(problem)  # its retries notice when the file is back
            else:
                self._set_fault(problem)
        if self.fault is not None:
            raise StorageError(f"{self.fault}: actions are refused until it can be written")

    async def fence(self, code: str, token: int) -> int | None:
        """Take the room ``code`` over with fencing token ``token``: recorded as its owner's token
        unless a larger one is (then None: a newer owner exists), and carried by this process's writes
        of its log from now on. Its id, or None. Done before the log is read, so that a former owner's
        write either landed before (and is read) or is refused."""
        async with self.transaction() as db:
            changed = await run(db, "UPDATE rooms SET owner_token = ? WHERE code = ? AND owner_token <= ?",
                                (token, code, token))
            row = await one(db, "SELECT id FROM rooms WHERE code = ?", (code,)) if changed else None
        if row is None:
            return None
        self._tokens[row["id"]] = token
        return row["id"]

    @guarded_write
    async def close_room(self, room_id: int) -> None:
        self._next_n.pop(room_id, None)
        self._tokens.pop(room_id, None)
        await self.execute("UPDATE rooms SET closed_at = ? WHERE id = ? AND closed_at IS NULL",
                              (time.time(), room_id))

    async def log_length(self, room_id: int) -> int:
        (n,) = await self.fetchone("SELECT COUNT(*) FROM actions WHERE room_id = ?"
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
        row = await self.fetchone(
            "SELECT id FROM matches WHERE room_id = ? AND number = ?", (room_id, number))
        return None if row is None else row["id"]

    async def finished_match(self, match_id: int) -> dict | None:
        """A finished match as the replay file serves it; None if unknown or still being played (its
        seed must stay secret until the end)."""
        row = await self.fetchone(
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
                               tables: list[tuple[str, str]] = (), rooms: list[tuple] = ()) -> list[int]:
        """Append entries ``start, start+1, ...`` (the primary key refuses gaps and repeats) and record
        new (table key, room code) pairs, in one transaction; with them the new tables' rooms ``rooms``
        (code, config, first log entries; as ``add_room``), so that a table's room exists exactly when
        its tournament's log knows it. Returns the rooms' ids."""
        async with self.transaction() as db:
            await self._fenced_tournament(db, tid)
            ids = [await self._insert_room(db, code, config, None, log) for code, config, log in rooms]
            await append_tournament(db, tid, start, entries, list(tables))
        for room_id, (_, _, log) in zip(ids, rooms):
            self._next_n[room_id] = len(log)
        return ids

    async def write_tournament_at_stop(self, tid: int, start: int, entries: list) -> None:
        """``write_tournament`` of entries alone, tried even while writes are held back: at a stop it is
        the last chance, and the storage may be back though no retry has shown it yet. StorageError if
        it still refuses."""
        try:
            async with self.transaction() as db:
                await self._fenced_tournament(db, tid)
                await append_tournament(db, tid, start, entries, [])
        except self.FAULTS as e:
            raise StorageError(f"the database cannot be written ({e})") from e

    async def tournament_landed(self, tid: int, n: int, rooms: list[tuple] = ()) -> list[int] | None:
        """After a ``write_tournament`` whose commit was not confirmed (the connection lost as it
        committed): the ids of its ``rooms`` if it landed after all (the log has ``n`` rows and the rooms
        exist), else None."""
        codes = [code for code, _, _ in rooms]
        try:
            (count,) = await self.fetchone("SELECT COUNT(*) FROM tournament_log WHERE tournament_id = ?", (tid,))
            found = {r["code"]: r["id"] for r in await self.fetchall(
                f"SELECT id, code FROM rooms WHERE code IN ({','.join('?' * len(codes))})", codes)} if codes else {}
        except self.FAULTS as e:
            raise StorageError(f"the database cannot be read ({e})") from e
        if count != n or len(found) != len(codes):
            return None
        for code, _, log in rooms:
            self._next_n[found[code]] = len(log)
        return [found[code] for code in codes]

    async def tournament_log(self, tid: int) -> list[dict]:
        """A tournament's log as written (to undo in memory a change whose write failed)."""
        try:
            rows = await self.fetchall(
                "SELECT entry FROM tournament_log WHERE tournament_id = ? ORDER BY n", (tid,))
        except self.FAULTS as e:
            raise StorageError(f"the database cannot be read ({e})") from e
        return [json.loads(row["entry"]) for row in rows]

    async def open_tournaments(self) -> list[dict]:
        """Every tournament not closed, with its log and its tables' rooms, for recovery."""
        return [await self.open_tournament(r) for r in await self.open_tournament_codes()]

    async def open_tournament_codes(self) -> list[dict]:
        """The id and code of every tournament not closed, without their logs (a cluster node reads a
        tournament's log only once it owns it)."""
        rows = await self.fetchall("SELECT id, code FROM tournaments WHERE closed_at IS NULL ORDER BY id")
        return [{"id": r["id"], "code": r["code"]} for r in rows]

    async def open_tournament(self, r: dict) -> dict:
        """The tournament ``r`` (its id and code) with its log and its tables' rooms."""
        log = await self.fetchall(
            "SELECT n, entry FROM tournament_log WHERE tournament_id = ? ORDER BY n", (r["id"],))
        assert [row["n"] for row in log] == list(range(len(log))), f"tournament {r['code']}: log has gaps"
        tables = await self.fetchall(
            "SELECT table_key, room FROM tournament_tables WHERE tournament_id = ?", (r["id"],))
        return {"id": r["id"], "code": r["code"], "log": [json.loads(row["entry"]) for row in log],
                "tables": {t["table_key"]: t["room"] for t in tables}}

    async def closed_tournament(self, code: str) -> list[dict] | None:
        """A closed tournament's whole log by its code; None if no closed tournament has that code."""
        rows = await self.fetchall(
            "SELECT l.entry FROM tournaments t JOIN tournament_log l ON l.tournament_id = t.id"
            " WHERE t.code = ? AND t.closed_at IS NOT NULL ORDER BY l.n", (code,))
        return [json.loads(row["entry"]) for row in rows] or None

    @guarded_write
    async def close_tournament(self, tid: int) -> None:
        async with self.transaction() as db:
            await self._fenced_tournament(db, tid)
            await run(db, "UPDATE tournaments SET closed_at = ? WHERE id = ? AND closed_at IS NULL", (time.time(), tid))

    async def fence_tournament(self, tid: int, token: int) -> bool:
        """Take the tournament over with fencing token ``token`` (as ``fence`` a room): recorded unless a
        larger one is (False: a newer owner exists), and checked by this process's writes of its log."""
        async with self.transaction() as db:
            if not await run(db, "UPDATE tournaments SET owner_token = ? WHERE id = ? AND owner_token <= ?",
                             (token, tid, token)):
                return False
        self._tournament_tokens[tid] = token
        return True

    async def _fenced_tournament(self, db, tid: int) -> None:
        """First in a write's transaction: this owner's token raised again (the row stays locked until
        the commit), or Fenced when a newer owner's is there: nothing of the write lands."""
        token = self._tournament_tokens.get(tid)
        if token is not None and not await run(
                db, "UPDATE tournaments SET owner_token = ? WHERE id = ? AND owner_token <= ?", (token, tid, token)):
            raise Fenced(f"tournament {tid}: a newer owner has written its log")

    async def room_log(self, code: str) -> list[dict]:
        """A room's whole log by its code (closed rooms included): what a tournament table reported."""
        rows = await self.fetchall(
            "SELECT a.entry FROM rooms r JOIN actions a ON a.room_id = r.id AND a.id >= r.log_from"
            " WHERE r.code = ? ORDER BY a.id", (code,))
        return [json.loads(row["entry"]) for row in rows]
