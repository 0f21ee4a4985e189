"""The account tables (migration 4): logins with their password hashes, sessions, the privacy flag,
and the deletion that anonymises a player. On the store's connection, each transaction alone on
it (server.store ``transaction``)."""

from __future__ import annotations

import time

from server.accounts import DELETED_NAME, new_session_id
from server.store_sql import guarded_write, one, run, token_hash

MAX_SESSIONS = 20  # sessions kept per player (docs/protocol.md "Limits and quotas")


class AccountStore:
    def __init__(self, store):
        self.store = store

    def check_writable(self) -> None:  # for guarded_write
        self.store.check_writable()

    @property
    def FAULTS(self) -> tuple:  # for guarded_write  # noqa: N802 - the store's name
        return self.store.FAULTS

    @guarded_write
    async def add_session(self, player_id: str, token: str, user_agent: str | None, address: str | None) -> str:
        """A new session; past MAX_SESSIONS the ones least recently seen are revoked."""
        sid, now = new_session_id(), time.time()
        async with self.store.transaction() as db:
            await run(db, "INSERT INTO sessions (token_hash, id, player_id, created_at, last_seen, user_agent, address)"
                      " VALUES (?, ?, ?, ?, ?, ?, ?)", (token_hash(token), sid, player_id, now, now, user_agent, address))
            await run(db, "DELETE FROM sessions WHERE player_id = ? AND id NOT IN (SELECT id FROM sessions"
                      " WHERE player_id = ? ORDER BY last_seen DESC, created_at DESC LIMIT ?)",
                      (player_id, player_id, MAX_SESSIONS))
        return sid

    async def sessions(self, player_id: str) -> list[dict]:
        rows = await self.store.fetchall(
            "SELECT id, created_at, last_seen, user_agent, address FROM sessions WHERE player_id = ?"
            " ORDER BY created_at", (player_id,))
        return [{"session": r["id"], "created": r["created_at"], "last_seen": r["last_seen"],
                 "user_agent": r["user_agent"], "address": r["address"]} for r in rows]

    @guarded_write
    async def revoke(self, player_id: str, session: str) -> bool:
        return await self.store.execute("DELETE FROM sessions WHERE player_id = ? AND id = ?",
                                           (player_id, session)) > 0

    async def account(self, player_id: str):
        """name, login (None: a guest), hide_history, deleted_at; None for an unknown id."""
        return await self.store.fetchone(
            "SELECT p.id, p.name, l.login, p.hide_history, p.deleted_at FROM players p"
            " LEFT JOIN logins l ON l.player_id = p.id WHERE p.id = ?", (player_id,))

    async def login(self, login: str):
        """(player id, password hash) of a login name, or None."""
        row = await self.store.fetchone(
            "SELECT l.player_id, l.password FROM logins l JOIN players p ON p.id = l.player_id"
            " WHERE l.login = ? AND p.deleted_at IS NULL", (login,))
        return None if row is None else (row["player_id"], row["password"])

    async def password_hash(self, player_id: str) -> str | None:
        row = await self.store.fetchone("SELECT password FROM logins WHERE player_id = ?", (player_id,))
        return None if row is None else row["password"]

    @guarded_write
    async def claim(self, player_id: str, login: str, password_hash: str) -> str | None:
        """Give a guest a login and a password; None, or what is wrong ("taken", "claimed")."""
        async with self.store.transaction() as db:
            if await one(db, "SELECT 1 FROM logins WHERE player_id = ?", (player_id,)):
                return "claimed"
            if await one(db, "SELECT 1 FROM logins WHERE login = ?", (login,)):
                return "taken"
            now = time.time()
            try:
                await run(db, "INSERT INTO logins (player_id, login, password, created_at, changed_at)"
                          " VALUES (?, ?, ?, ?, ?)", (player_id, login, password_hash, now, now))
            except self.store.IntegrityError:  # pragma: no cover - checked just above, in the same transaction
                return "taken"
        return None

    @guarded_write
    async def set_password(self, player_id: str, password_hash: str, keep_session: str | None) -> int:
        """A new password hash; every session but ``keep_session`` is revoked (how many: returned).
        ``keep_session`` None keeps them all (a rehash with new parameters, not a change)."""
        async with self.store.transaction() as db:
            await run(db, "UPDATE logins SET password = ?, changed_at = ? WHERE player_id = ?",
                      (password_hash, time.time(), player_id))
            if keep_session is None:
                return 0
            return await run(db, "DELETE FROM sessions WHERE player_id = ? AND id != ?", (player_id, keep_session))

    @guarded_write
    async def set_hide_history(self, player_id: str, hide: bool) -> None:
        await self.store.execute("UPDATE players SET hide_history = ? WHERE id = ?", (int(hide), player_id))

    @guarded_write
    async def delete(self, player_id: str) -> None:
        """Anonymise: the name becomes DELETED_NAME, the login, password and every session go. The
        row and its id stay, so matches, replays and tournament standings that name it still load."""
        async with self.store.transaction() as db:
            await run(db, "DELETE FROM sessions WHERE player_id = ?", (player_id,))
            await run(db, "DELETE FROM logins WHERE player_id = ?", (player_id,))
            await run(db, "UPDATE players SET name = ?, deleted_at = ?, hide_history = 1, token_hash = ?"
                        " WHERE id = ?", (DELETED_NAME, time.time(), "deleted:" + player_id, player_id))
