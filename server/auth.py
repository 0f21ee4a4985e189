"""Signing in (guest, resume, login) and the account commands (docs/protocol.md "Accounts"). A mixin of
``server.app.App``.

A player is a guest until they claim the account with a login name and a password; then they can sign
in from any device. Every sign-in is a session: a 128-bit token of which only the SHA-256 is stored,
so a token is found by its hash (no comparison of secrets in Python); sessions are listed and revoked
one by one. Passwords are hashed with argon2id (argon2-cffi's PasswordHasher, its RFC 9106 defaults)
on a worker thread, two at a time, and never logged or stored in clear. Password attempts are limited
per address and per login name (server.attempts).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import unicodedata

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from server import accounts
from server.attempts import TOO_MANY_ATTEMPTS, AttemptLimits, Attempts
from server.codec import ProtocolError
from server.conn import Conn
from server.errors import (ALREADY_SIGNED_IN, BAD_CREDENTIALS, BAD_LOGIN, BAD_NAME, BAD_PASSWORD,  # noqa: F401
                           BAD_TOKEN, CLAIMED, LOGIN_TAKEN, NO_SESSION, NOT_CLAIMED)
from server.quotas import conn_address, is_loopback
from server.roomitems import RoomRef
from server.store_accounts import AccountStore

log = logging.getLogger("guobiao.auth")

CLOSE_REPLACED = 4001  # a newer connection of the same player took over
CLOSE_REVOKED = 4004  # the connection's session was revoked
CLOSE_DELETED = 4005  # the account was deleted
HASHING_AT_ONCE = 2  # argon2 hashes running at once (each takes 64 MiB with the defaults)


class AuthState:
    def __init__(self, store, limits: AttemptLimits | None, hasher: PasswordHasher | None):
        self.db = AccountStore(store)
        self.attempts = Attempts(limits or AttemptLimits())
        self.hasher = hasher or PasswordHasher()
        self.hashing: asyncio.Semaphore | None = None
        self.dummy: str | None = None  # a hash to check unknown logins against: they take as long

    async def _run(self, fn, *args):
        if self.hashing is None:
            self.hashing = asyncio.Semaphore(HASHING_AT_ONCE)
        async with self.hashing:
            return await asyncio.to_thread(fn, *args)

    async def hash(self, password: str) -> str:
        return await self._run(self.hasher.hash, password)

    async def verify(self, stored: str | None, password) -> bool:
        """Whether ``password`` matches ``stored`` (argon2's verify compares in constant time). A missing
        hash or a password that is not a string costs the same time and is False."""
        if self.dummy is None:
            self.dummy = await self.hash(secrets.token_hex(16))
        ok_input = isinstance(password, str) and stored is not None
        password = unicodedata.normalize("NFKC", password) if isinstance(password, str) else "-"
        try:
            return await self._run(self.hasher.verify, stored if ok_input else self.dummy, password) and ok_input
        except VerificationError:  # VerifyMismatchError and the other failures
            return False
        except InvalidHashError:
            log.warning("a stored password hash is not an argon2 hash")
            return False


def _connection_facts(conn: Conn) -> tuple[str | None, str | None, bool]:
    """The connection's user agent, its address as limits count it, and whether that is loopback."""
    request = getattr(conn.ws, "request", None)
    agent = request.headers.get("User-Agent") if request is not None else None
    address = conn_address(conn)
    return (agent[:200] if agent else None), address, bool(address) and is_loopback(address)


class Auth:
    """Mixin of ``server.app.App``: ``sign_in`` and ``account_command``."""

    async def sign_in(self, conn: Conn, msg: dict, req: tuple) -> None:
        if conn.player is not None:
            raise ProtocolError(ALREADY_SIGNED_IN, "this connection is signed in")
        agent, address, _ = _connection_facts(conn)
        login = None
        if msg["t"] == "guest":
            try:
                name = accounts.clean_name(msg.get("name"))
            except ValueError as e:
                raise ProtocolError(BAD_NAME, str(e)) from None
            await self.book.account(address, self.loop.time())  # guest accounts per address (server.quotas)
            token, session = accounts.new_token(), accounts.new_session_id()
            while True:
                pid = accounts.new_player_id()
                try:
                    await self.store.add_player(pid, token, name, session, agent, address)
                    break
                except self.store.IntegrityError:  # an id collision (48 bits): try another
                    continue
        elif msg["t"] == "resume":
            token = msg.get("token")
            if not accounts.valid_token(token):
                raise ProtocolError(BAD_TOKEN, "a token is 32 hex digits")
            row = await self.store.session_by_token(token)
            if row is None:
                raise ProtocolError(BAD_TOKEN, "unknown token (or its session was revoked)")
            pid, name, session, login = row["player"], row["name"], row["session"], row["login"]
        else:
            pid, login = await self._password_login(conn, msg)
            token = accounts.new_token()
            session = await self.auth.db.add_session(pid, token, agent, address)
            name = (await self.auth.db.account(pid))["name"]
        remote = None  # cluster: the room the player is in on another node (docs/cluster.md "Presence")
        if self.cluster is not None and not isinstance(self.where.get(pid), RoomRef):
            remote = await self.cluster.player_room(pid)
        if self.cluster is not None and remote is None and not isinstance(self.where.get(pid), RoomRef):
            await self.cluster.quick.signed_in(pid)  # queued from another node: the place follows them
        if self.cluster is not None:
            await self.cluster.tourneys.signed_in(pid, conn)  # a tournament on another node: its pushes come here
        if conn.closed:
            return
        conn.player, conn.name, conn.session = pid, name, session
        old = self.conns.get(pid)
        self.conns[pid] = conn
        if old is not None and old is not conn:
            old.send({"t": "replaced", "message": "you signed in on another connection"})
            self.loop.create_task(old.close(CLOSE_REPLACED, "replaced"))
        task = self.where.get(pid)
        if task is None and remote is not None:
            task = self.where[pid] = remote
        room = task.id if isinstance(task, RoomRef) else None
        welcome = {"t": "welcome", "player": pid, "name": name, "token": token, "login": login,
                   "room": room, "queued": self.quick.queued(pid)}
        if self.settings.external_bots:  # the names add_bot accepts besides fan and random (docs/bots.md)
            welcome["bots"] = sorted(self.settings.external_bots)
        self.reply(conn, req, welcome)
        if (queued := self.queued_msg(pid)) is not None:
            conn.send(queued)  # where they stand in the quick-match queue
        if isinstance(task, RoomRef):
            task.reconnect(pid, conn)

    async def _password_login(self, conn: Conn, msg: dict) -> tuple[str, str]:
        try:
            login = accounts.clean_login(msg["login"])
        except ValueError:
            login = None  # no such login can exist: answered like a wrong password
        self._may_try(conn, login)
        found = await self.auth.db.login(login) if login is not None else None
        if not await self.auth.verify(found[1] if found else None, msg["password"]):
            if login is not None:
                self.auth.attempts.failed(login, self.loop.time())
            raise ProtocolError(BAD_CREDENTIALS, "wrong login name or password")
        pid, stored = found
        await self._rehash(pid, stored, msg["password"])
        return pid, login

    def _may_try(self, conn: Conn, login: str | None) -> None:
        _, address, loopback = _connection_facts(conn)
        why = self.auth.attempts.before(address, login, self.loop.time(), loopback)
        if why is not None:
            raise ProtocolError(TOO_MANY_ATTEMPTS, why)

    async def _rehash(self, pid: str, stored: str, password: str) -> None:
        """After a right password: a hash made with other parameters than today's is made again."""
        if self.auth.hasher.check_needs_rehash(stored):
            new = await self.auth.hash(unicodedata.normalize("NFKC", password))
            await self.auth.db.set_password(pid, new, None)

    async def _account_view(self, pid: str) -> dict:
        row = await self.auth.db.account(pid)
        return {"t": "account", "player": pid, "name": row["name"], "login": row["login"],
                "hide_history": bool(row["hide_history"])}

    async def account_command(self, conn: Conn, msg: dict, req: tuple) -> None:
        """One of COMMANDS from a signed-in connection."""
        pid, t, db = conn.player, msg["t"], self.auth.db
        if t == "account":
            self.reply(conn, req, await self._account_view(pid))
        elif t == "claim":
            try:
                login = accounts.clean_login(msg["login"])
            except ValueError as e:
                raise ProtocolError(BAD_LOGIN, str(e)) from None
            try:
                password = accounts.clean_password(msg["password"])
            except ValueError as e:
                raise ProtocolError(BAD_PASSWORD, str(e)) from None
            if (await db.account(pid))["login"] is not None:
                raise ProtocolError(CLAIMED, "this account has a login name already")
            self._may_try(conn, None)
            wrong = await db.claim(pid, login, await self.auth.hash(password))
            if wrong is not None:
                raise ProtocolError(LOGIN_TAKEN if wrong == "taken" else CLAIMED,
                                    "that login name is taken" if wrong == "taken" else "already claimed")
            log.info("player %s claimed a login", pid)
            self.reply(conn, req, await self._account_view(pid))
        elif t == "password":
            try:
                new = accounts.clean_password(msg["new"])
            except ValueError as e:
                raise ProtocolError(BAD_PASSWORD, str(e)) from None
            await self._check_own_password(conn, msg["password"])
            revoked = await db.set_password(pid, await self.auth.hash(new), conn.session)
            log.info("player %s changed the password; %d other sessions revoked", pid, revoked)
            self.reply(conn, req, await self._sessions(conn))
        elif t == "sessions":
            self.reply(conn, req, await self._sessions(conn))
        elif t == "revoke":
            if not await db.revoke(pid, msg["session"]):
                raise ProtocolError(NO_SESSION, "you have no such session")
            self.reply(conn, req, await self._sessions(conn))
            if msg["session"] == conn.session:  # signing out here
                conn.close_soon(CLOSE_REVOKED, "session revoked")
        elif t == "privacy":
            await db.set_hide_history(pid, msg["hide_history"])
            self.reply(conn, req, await self._account_view(pid))
        elif t == "delete_account":
            self.not_busy(pid)  # lobby/in_room, lobby/queued: a live room keeps its players
            if (await db.account(pid))["login"] is not None:
                if "password" not in msg:
                    raise ProtocolError(BAD_CREDENTIALS, "give your password to delete the account")
                await self._check_own_password(conn, msg["password"])
            await self.delete_player(pid)
            self.reply(conn, req, {"t": "deleted", "player": pid})
            conn.close_soon(CLOSE_DELETED, "account deleted")

    async def delete_player(self, pid: str) -> None:
        """Anonymise ``pid`` (server.store_accounts) and forget its name wherever it was kept."""
        await self.auth.db.delete(pid)
        for holder in (*self.rooms.values(), *self.tournaments.values()):
            holder.names.pop(pid, None)  # learnt again, as the new name, when next shown
        self.closed_views.clear()  # they hold names
        log.info("player %s deleted their account", pid)

    async def _check_own_password(self, conn: Conn, password) -> str:
        """The player's login, if ``password`` is theirs (rate-limited like a sign-in)."""
        row = await self.auth.db.account(conn.player)
        if row["login"] is None:
            raise ProtocolError(NOT_CLAIMED, "a guest account has no password: claim it first")
        self._may_try(conn, row["login"])
        stored = await self.auth.db.password_hash(conn.player)
        if not await self.auth.verify(stored, password):
            self.auth.attempts.failed(row["login"], self.loop.time())
            raise ProtocolError(BAD_CREDENTIALS, "wrong password")
        return row["login"]

    async def _sessions(self, conn: Conn) -> dict:
        rows = await self.auth.db.sessions(conn.player)
        for r in rows:
            r["current"] = r["session"] == conn.session
        return {"t": "sessions", "sessions": rows}

    async def player_api(self, pid: str) -> dict | None:
        """What anybody may know of a player (GET /api/players/<id>), or None if there is no such id.
        The profile page shows no history when ``hide_history`` is set."""
        if not (0 < len(pid) <= 32 and pid.isascii() and pid.isalnum()):
            return None
        row = await self.auth.db.account(pid)
        if row is None:
            return None
        return {"player": pid, "name": row["name"], "hide_history": bool(row["hide_history"]),
                "deleted": row["deleted_at"] is not None}
