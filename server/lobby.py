"""The lobby: rooms made on request (``create``) and the quick-match queue's task, which seats queued
players together and fills tables with bots. A mixin of ``server.app.App``.
"""

from __future__ import annotations

import asyncio
import logging
import secrets

from rooms.config import RoomConfig
from rooms.invite import new_code, normalize
from rooms.room import Room
from server import codec
from server.codec import BAD_FIELD, ProtocolError
from server.conn import Conn
from server.errors import IN_ROOM, NO_ROOM, NOT_QUEUED, QUEUED, TASK_FAILED
from server.quotas import check_timers, conn_address
from server.roomitems import TICK, Disconnect, QuickAsked, QuickCancel, SnapshotAsked
from server.roomtask import RoomTask
from server.timedqueue import next_item
from server.store import StorageError

log = logging.getLogger("guobiao.server")

PENDING = object()  # where[player] while a room for them is being created
QUICK_RETRY = 1.0  # seconds before a quick-match table that could not be saved is tried again


class Lobby:
    """Mixin of ``server.app.App``: rooms made on request and by the quick-match queue."""

    async def create(self, conn: Conn, msg: dict, req: tuple) -> None:
        pid = conn.player
        self.not_busy(pid)
        cfg = msg.get("config", {})
        if not isinstance(cfg, dict):
            raise ProtocolError(BAD_FIELD, "config: a map of room settings")
        check_timers(cfg, self.settings.quotas.timer_minimums)
        config = RoomConfig.from_dict(cfg)  # RoomError room/bad_config
        held = await self.book.room_create(pid, conn_address(conn), self.loop.time())  # server.quotas
        self.where[pid] = PENDING
        try:
            task = await self.new_room(config, pid)
        except BaseException:
            self.book.room_not_made(held)
            raise
        finally:
            if self.where.get(pid) is PENDING:
                del self.where[pid]
        self.book.room_opened(task.id, pid, conn_address(conn), held)
        self.where[pid] = task
        if self.conns.get(pid) is not conn:  # gone while the room was made: its grace period starts
            task.put(Disconnect(pid))
            return
        task.send_snapshot(pid, conn, req)

    async def new_room(self, config: RoomConfig, host: str, players: list | None = None, bots: int = 0) -> RoomTask:
        room_id, invite, secret = self._room_keys()
        room = Room.create(room_id, config, host, invite, secret, self.now(), players=players, bots=bots,
                           bot_policies=self.bots)
        task = RoomTask(self, 0, room)  # its database id once written
        # The room's row and its first log rows (and a quick-match room's first match) in one
        # transaction: a fault either refuses the room at once (server/storage) or finds it whole.
        await task.commit([], write=lambda entries, effects: self.store.add_room(
            room_id, config.to_dict(), host, entries, effects))
        self._register(task)
        if self.cluster is not None:  # its lease and invite code in Redis (docs/cluster.md)
            await self.cluster.room_opened(task)
        return task

    def _room_keys(self) -> tuple[str, str, bytes]:
        """A new room's id and invite code (unused ones) and its secret."""
        while True:
            room_id = "r" + secrets.token_hex(4)
            invite = new_code(secrets.token_bytes(16))
            if room_id not in self.rooms and invite not in self.by_invite:
                return room_id, invite, secrets.token_bytes(32)

    async def quick_loop(self) -> None:
        """The quick-match queue's only caller."""
        if self.cluster is not None:  # one queue for every node, in Redis (server.cluster.quick)
            return await self.cluster.quick.loop()
        while True:
            item = await next_item(self.quick_queue, self.quick.next_deadline(), self.now(), TICK)
            placements = []
            try:
                changed = set()  # the queues whose other players hear how many wait now
                if isinstance(item, QuickAsked):
                    pid, conn, req, room_type, wait = item.pid, item.conn, item.req, item.room_type, item.wait
                    if self.quick.queued(pid) or pid in self.where:
                        self.reply(conn, req, codec.error(QUEUED if self.quick.queued(pid) else IN_ROOM,
                                                          "already queued or in a room"))
                        continue
                    rating = await self.ratings.rating(pid, room_type)  # seated near their rating
                    key = (room_type, item.hands)
                    placements = self.quick.enqueue(pid, room_type, wait, self.now(), rating, item.hands)
                    status = self.queue_status(pid) or {"waiting": 1, "fill": 0.0, "waited": 0.0}  # placed at once
                    self.reply(conn, req, {"t": "queued", "type": room_type, "hands": item.hands, "wait": wait,
                                           **status})
                    changed.add(key)
                elif isinstance(item, QuickCancel):
                    pid, conn, req = item.pid, item.conn, item.req
                    key = self.quick.queue_of(pid)
                    cancelled = self.quick.cancel(pid)
                    self.quick_told.discard(pid)
                    changed.add(key)
                    if conn is not None:  # None: the player went away
                        self.reply(conn, req, {"t": "ok"} if cancelled else
                                   codec.error(NOT_QUEUED, "you are not queued"))
                else:
                    placements = self.quick.tick(self.now())
                changed |= await self.place_all(placements)
                self.tell_queues(changed, skip=item.pid if isinstance(item, QuickAsked) else None)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("quick match")

    async def place_all(self, placements: list) -> set:
        """Make the placements' tables; returns the queues they changed. A table the storage cannot
        save is not made: its players stay queued where they were (their queue unchanged) and hear
        server/storage once while the fault lasts, not at every try (``quick_told``)."""
        changed = set()
        for p in placements:
            try:
                await self.place(p)
            except StorageError as e:
                self.wait_on(p, e.code, f"{e.message}; you stay queued")
                continue
            except Exception:  # a bug (or the cluster's Redis): logged, and nobody is dropped unheard
                log.exception("quick match: placing %s", list(p.players))
                task = self.where.get(p.players[0])
                if not isinstance(task, RoomTask):  # no room was made
                    self.wait_on(p, TASK_FAILED, "the server met a bug making your table; you stay queued")
                    continue
                self.seat(p, task)  # the room was made (what failed came after): they play there
            self.quick_told.difference_update(p.players)  # placed: the table's snapshot tells them
            changed.add((p.type, p.hands))
        return changed

    def wait_on(self, p, code: str, message: str) -> None:
        """``p``'s table was not made: its players wait where they were, tried again in a second, and
        hear why once (not at every try) until they are placed or the storage is back."""
        self.quick.put_back(p, self.now() + QUICK_RETRY)
        for pid in p.players:
            if pid not in self.quick_told and (conn := self.conns.get(pid)) is not None:
                conn.send(codec.error(code, message))
                self.quick_told.add(pid)

    def quick_storage_back(self) -> None:
        """The storage takes writes again: those told they stay queued hear where they stand now (their
        table is made at the next try)."""
        told, self.quick_told = self.quick_told, set()
        for pid in told:
            conn, msg = self.conns.get(pid), self.queued_msg(pid)
            if conn is not None and msg is not None:
                conn.send(msg)

    def queue_status(self, pid: str) -> dict | None:
        """How many wait in the player's quick-match queue (them included), the seconds until bots are
        expected to fill their table (``fill``; null: humans only) and since they joined it (``waited``:
        a reloaded page shows the true wait), or None if they are not queued."""
        key = self.quick.queue_of(pid)
        if key is None:
            return None
        now = self.now()
        return {"waiting": len(self.quick.waiting(key)), "fill": self.quick.estimate(pid, now),
                "waited": self.quick.waited(pid, now)}

    def queued_msg(self, pid: str) -> dict | None:
        """The ``queued`` message that tells a waiting player where they stand (after a change, a sign-in)."""
        key = self.quick.queue_of(pid)
        if key is None:
            return None
        return {"t": "queued", "type": key[0], "hands": key[1], "wait": None, **self.queue_status(pid)}

    def tell_queues(self, keys: set, skip: str | None = None) -> None:
        """Those still waiting in the queues ``keys`` hear the new count and estimate."""
        for key in keys:
            for pid in self.quick.waiting(key) if key else ():
                conn = self.conns.get(pid)
                if pid != skip and conn is not None:
                    conn.send(self.queued_msg(pid))

    async def place(self, p) -> None:
        for pid in p.players:
            self.where[pid] = PENDING
        try:
            config = RoomConfig(**{**self.settings.quick_config, "type": p.type, "hands": p.hands,
                                   "ranked": True})  # rated
            task = await self.new_room(config, p.players[0], list(p.players), p.bots)
        except BaseException:
            for pid in p.players:
                if self.where.get(pid) is PENDING:
                    del self.where[pid]
            raise
        self.seat(p, task)

    def seat(self, p, task: RoomTask) -> None:
        """The placement's players are in their room: each gets its snapshot."""
        for pid in p.players:
            self.where[pid] = task
            conn = self.conns.get(pid)
            if conn is None:  # went away while the room was being made: the grace period starts
                task.put(Disconnect(pid))
            else:
                task.put(SnapshotAsked(pid, conn, (conn.encoding, None)))

    def not_busy(self, pid: str, allow=None) -> None:
        """lobby/in_room or lobby/queued unless the player is free (or in ``allow``, their own room)."""
        task = self.where.get(pid)
        if task is not None and task is not allow:
            raise ProtocolError(IN_ROOM, "leave your room first")
        if self.quick.queued(pid):
            raise ProtocolError(QUEUED, "you are waiting for a quick match (quick_cancel first)")

    def find_room(self, msg: dict) -> RoomTask:
        """The open room a ``join``/``watch`` names by id or invite code, or lobby/no_room."""
        if "room" in msg:
            rid = msg["room"]
            task = self.rooms.get(rid) if isinstance(rid, str) else None
        elif "code" in msg:
            code = normalize(msg["code"])
            task = self.by_invite.get(code) if code else None
        else:
            raise ProtocolError(BAD_FIELD, "give the room's id (room) or its invite code (code)")
        if task is None or task.closed:
            raise ProtocolError(NO_ROOM, "no such room")
        return task
