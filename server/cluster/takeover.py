"""Taking rooms over (docs/cluster.md "Failover"): at a node's start, the open rooms nobody owns; while it
runs, the rooms of nodes that died, and rooms whose lease was lost. Each room is claimed (its lease, its
fencing token in PostgreSQL) before its log is read, restored in bounded batches that give the event loop
back between rooms, and announced to every node; a node that finds itself fenced off gives its room up.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from server import codec
from server.cluster.cancel import every
from server.cluster.keys import NODE_LEASE, NODES, OWNED, ROOM_LEASE, ROOMS, SENT, STREAM, TOURNAMENT_LEASE, text
from server.cluster.lease import PREFIX, Lease, acquire_many, holder
from server.cluster.remote import RemoteRoom
from server.errors import MOVED
from server.roomitems import STOP
from server.store_sql import StorageError

if TYPE_CHECKING:
    from server.cluster.node import ClusterNode
    from server.roomtask import RoomTask

log = logging.getLogger("guobiao.cluster")

BATCH = 50  # rooms restored at once: their restore entries share commits; then they are announced
ORPHANS_EVERY = 4  # rounds of the watch between two looks at every open room's lease (not only dead nodes')
DEAD_GRACE = 2.0  # ttls a node must have been seen dead before its stream and room set are deleted


class Takeover:
    def __init__(self, node: ClusterNode):
        self.node = node
        self.app = node.app
        self.redis = node.redis
        self.claimed: dict[str, Lease] = {}  # room id -> its lease, taken before restoring it
        self.tournaments: dict[str, Lease] = {}  # tournament code -> its lease (claimed or held)
        self._dead_since: dict[str, float] = {}  # node -> when this node first saw it dead (loop time)
        self._rounds = 0

    # -- claiming ------------------------------------------------------------------------------

    async def claim(self, room_id: str) -> bool:
        """Before a room's log is read: its lease, renewed from now on, and its fencing token in the
        database; False when another node owns it. A room whose node died is restored by the first node
        to claim it once the lease expired."""
        lease = Lease(self.redis, ROOM_LEASE + room_id, self.node.id, self.node.ttl)
        if await lease.acquire() is None or not await self._fence(room_id, lease):
            return False
        self.claimed[room_id] = lease
        self.node.renewer.add(lease, lambda: self.claimed.pop(room_id, None))
        return True

    async def release(self, room_id: str) -> None:
        lease = self.claimed.pop(room_id, None)
        if lease is not None:
            self.node.renewer.remove(lease)
            await _give_back(lease)

    async def _fence(self, room_id: str, lease: Lease) -> bool:
        """The lease's token recorded in PostgreSQL before the log is read or written (docs/cluster.md
        "Fencing"): a former owner's later writes are refused. False (the lease given back) when a
        newer owner's token is there, or the database cannot be written now."""
        return await _fenced_or_given_back(f"room {room_id}", self.app.store.fence(room_id, lease.token), lease)

    # -- restoring -----------------------------------------------------------------------------

    async def recover(self) -> None:
        """At the node's start: the open rooms of the database whose lease it can take (the rooms of live
        nodes stay with them). Each room's log is read only once its lease is this node's."""
        from server.cluster.tourney import table_codes  # (it builds on this module)
        tables = await table_codes(self.app.store)  # they come back with their tournament, if it is ours
        await self.restore([r["code"] for r in await self.app.store.open_room_codes() if r["code"] not in tables],
                           announce=False)

    async def restore(self, ids: list[str], announce: bool = True, came_from: str | None = None) -> list[str]:
        """Claim and restore ``ids`` here, ``BATCH`` at a time, each batch announced to every node as soon
        as it runs; the ids restored."""
        taken: list[str] = []
        for i in range(0, len(ids), BATCH):
            if self.app.stopping:
                break
            batch = await self._restore_batch(ids[i:i + BATCH])
            if came_from is not None:
                await self.redis.srem(OWNED + came_from, *ids[i:i + BATCH])  # (those not taken: others have them)
            if announce and batch:
                await self._announce(batch)
            taken += [t.id for t in batch]
        return taken

    async def _restore_batch(self, ids: list[str]) -> list[RoomTask]:
        """The rooms of ``ids`` this node claims, their logs read (after the claims) in one go, restored
        side by side: each room's restore holds the loop for one room's replay at most, and their restore
        entries share commits."""
        claimed = await self._claim_many([i for i in ids if i not in self.app.rooms])
        tasks: list[RoomTask] = []
        try:
            rows = await self.app.store.open_rooms_by_code(claimed) if claimed and not self.app.stopping else []
            for r in rows:
                if not r["log"]:
                    await self.app.store.close_room(r["id"])
            if not self.app.stopping:
                done = await asyncio.gather(*(self.app.restore_room(r) for r in rows if r["log"]))
                tasks = [t for t in done if t is not None]
        finally:
            restored = {t.id for t in tasks}
            for room_id in claimed:
                if room_id not in restored:  # closed meanwhile, or not restorable
                    await self.release(room_id)
                    if not self.app.stopping:
                        await self.redis.srem(ROOMS, room_id)
        return tasks

    async def _claim_many(self, ids: list[str]) -> list[str]:
        """``claim`` for many rooms: the leases side by side, the fencing tokens in one transaction."""
        leases = {ROOM_LEASE + i: i for i in ids}
        held = await acquire_many(self.redis, [Lease(self.redis, name, self.node.id, self.node.ttl) for name in leases])
        got = {leases[lease.name]: lease for lease in held}
        try:
            fenced = await self.app.store.fence_many({i: lease.token for i, lease in got.items()})
        except Exception as e:  # the database unreachable, or a deadlock with a writer: none taken now
            log.warning("cluster: fencing %d rooms failed (%s); not taken", len(got), e)
            fenced = {}
        for room_id, lease in got.items():
            if room_id in fenced:
                self.claimed[room_id] = lease
                self.node.renewer.add(lease, lambda room_id=room_id: self.claimed.pop(room_id, None))
            else:
                await _give_back(lease)
        return [i for i in ids if i in fenced]

    async def _announce(self, tasks: list[RoomTask]) -> None:
        """Every node told (``moved``): their members of these rooms get a snapshot from here."""
        nodes = [text(n) for n in await self.redis.smembers(NODES)]
        for task in tasks:
            log.warning("cluster: took room %s over", task.id)
            self.moved(task.id, self.node.id)  # its members whose websocket is here
            for node in nodes:
                if node != self.node.id:
                    self.node.send(node, {"k": "moved", "room": task.id, "owner": self.node.id})

    # -- finding rooms to take over ------------------------------------------------------------

    async def watch(self) -> None:
        """Every quarter ttl: the rooms of nodes found dead (their node's lease expired), and now and
        then every open room whose lease expired, are taken over (docs/cluster.md "Failover")."""

        async def round_() -> None:
            self._rounds += 1
            await self.take_over(orphans=self._rounds % ORPHANS_EVERY == 0)

        await every(self.node.ttl / 4, round_, "looking for rooms to take over")

    async def take_over(self, orphans: bool = True) -> list[str]:
        """Restore here the rooms of dead nodes, and with ``orphans`` every open room nobody holds the
        lease of; their ids. None while this node stops (a room restored now would be left running)."""
        if self.app.stopping:
            return []
        taken = []
        dead_nodes = await self._dead_nodes()
        self.node.forget_nodes(dead_nodes)
        for dead in dead_nodes:
            taken += await self._from_dead(dead)
        if orphans and not self.app.stopping:
            ids = [i for i in map(text, await self.redis.smembers(ROOMS)) if i not in self.node.leases]
            free = [i for i, h in zip(ids, await self._holders(ids)) if h is None]
            taken += await self.restore(free)
        return taken

    async def _dead_nodes(self) -> list[str]:
        nodes = [n for n in map(text, await self.redis.smembers(NODES)) if n != self.node.id]
        alive = await self.redis.mget([PREFIX + NODE_LEASE + n for n in nodes]) if nodes else []
        dead = [n for n, a in zip(nodes, alive) if a is None]
        now = asyncio.get_running_loop().time()
        for n in dead:
            if n not in self._dead_since:
                log.warning("cluster: node %s is dead (its lease expired); taking its rooms over", n)
        self._dead_since = {n: self._dead_since.get(n, now) for n in dead}
        return dead

    async def _holders(self, ids: list[str]) -> list[str | None]:
        """The node holding each room's lease, or None: one MGET a thousand rooms (a pipeline of GETs
        cost redis-py a command's packing and parsing each)."""
        values = []
        for k in range(0, len(ids), 1000):
            values += await self.redis.mget([PREFIX + ROOM_LEASE + i for i in ids[k:k + 1000]])
        return [None if v is None else text(v).rpartition(":")[0] for v in values]

    async def _from_dead(self, dead: str) -> list[str]:
        """A dead node's rooms whose lease expired, restored here (its rooms another node holds, or that
        are closed, are struck off its set); once it has none left, its stream and set are deleted."""
        ids = [i for i in map(text, await self.redis.smembers(OWNED + dead)) if i not in self.node.leases]
        holders = await self._holders(ids)
        gone = [i for i, h in zip(ids, holders) if h is not None and h != dead]
        if gone:
            await self.redis.srem(OWNED + dead, *gone)
        free = [i for i, h in zip(ids, holders) if h is None]
        random.shuffle(free)  # the surviving nodes, racing for the same rooms, mostly claim different ones
        taken = await self.restore(free, came_from=dead)
        since = self._dead_since.get(dead, asyncio.get_running_loop().time())
        if (not await self.redis.scard(OWNED + dead)
                and asyncio.get_running_loop().time() - since >= DEAD_GRACE * self.node.ttl):
            await self.forget_node(dead)
        return taken

    async def forget_node(self, dead: str) -> None:
        """A node dead for a while with no rooms left: its stream, room set and entry deleted (nothing it
        would read is still wanted: its connections went with it)."""
        await self.redis.delete(STREAM + dead, OWNED + dead, SENT + dead)
        await self.redis.srem(NODES, dead)
        self._dead_since.pop(dead, None)
        log.info("cluster: node %s is gone; its stream deleted", dead)

    # -- a room that moved ---------------------------------------------------------------------

    def moved(self, room_id: str, owner: str) -> None:
        """A room changed owner: what was sent to the old one is answered ``server/moved`` (it may never
        answer), and its members here get a snapshot from the new owner."""
        node, app = self.node, self.app
        for token, (conn, req, _, rid) in list(node.pending.items()):
            if rid == room_id:
                del node.pending[token]
                app.reply(conn, req, codec.error(MOVED, "the room moved to another server: the snapshot that follows shows whether this was done"))
        task = app.rooms.get(room_id) if owner == node.id else None
        for pid, where in list(app.where.items()):
            conn = app.conns.get(pid)
            if isinstance(where, RemoteRoom) and where.id == room_id:
                if task is not None:
                    app.where[pid] = task
                else:
                    where.owner = owner
                    if conn is not None:
                        where.reconnect(pid, conn)
                        continue
            if task is not None and app.where.get(pid) is task and conn is not None:
                task.reconnect(pid, conn)

    def lost(self, task: RoomTask) -> None:
        """The lease was lost (not renewed in time): another node may own the room now; stop writing."""
        log.error("room %s: lease lost, the room stops on this node", task.id)
        self.node.leases.pop(task.id, None)
        if not task.closed:
            self.app.room_gone(task)
            task.put(STOP)
            if task.tournament is not None and self.node.tourneys is not None:
                self.node.tourneys.table_lost(task)  # its tournament's node takes it back

    def fenced(self, db_id: int) -> None:
        """A write of a room's log was refused: a newer owner (a larger token) wrote it, so this node lost
        the room, maybe before its lease's renewal noticed. The room stops here as on a lost lease (its
        directory entries are the new owner's now); its members here get a snapshot from the new owner."""
        task = next((t for t in self.app.rooms.values() if t.db_id == db_id), None)
        if task is None or task.closed:
            return
        log.warning("room %s: a newer owner wrote its log; the room stops on this node", task.id)
        lease = self.node.leases.pop(task.id, None)
        if lease is not None:
            self.node.renewer.remove(lease)
        here = [pid for pid, where in self.app.where.items() if where is task and pid in self.app.conns]
        self.app.room_gone(task)
        task.put(STOP)
        asyncio.get_running_loop().create_task(self._follow(task.id, here))

    async def _follow(self, room_id: str, pids: list[str]) -> None:
        """The members here of a room that moved away, pointed at its owner, which sends each a snapshot."""
        try:
            owner = await holder(self.redis, ROOM_LEASE + room_id)
        except (OSError, RedisError):
            owner = None
        if owner is None or owner[0] == self.node.id:
            return  # no owner now: they resume when one takes it over (presence)
        for pid in pids:
            conn = self.app.conns.get(pid)
            if conn is not None and pid not in self.app.where:
                remote = self.app.where[pid] = RemoteRoom(self.node, owner[0], room_id)
                remote.reconnect(pid, conn)

    # -- tournaments ---------------------------------------------------------------------------

    async def claim_tournament(self, code: str, tid: int) -> bool:
        """A tournament's lease and its fencing token in the database (as ``claim`` a room's), before its
        log is read; False when another node owns it."""
        lease = Lease(self.redis, TOURNAMENT_LEASE + code, self.node.id, self.node.ttl)
        if await lease.acquire() is None:
            return False
        if not await _fenced_or_given_back(f"tournament {code}", self.app.store.fence_tournament(tid, lease.token), lease):
            return False
        self.tournaments[code] = lease
        self.node.renewer.add(lease, lambda: self.tournaments.pop(code, None))
        return True

    async def recover_tournaments(self) -> list[dict]:
        """At the node's start: the open tournaments whose lease it wins, each read after its claim."""
        return [await self.app.store.open_tournament(r) for r in await self.app.store.open_tournament_codes()
                if await self.claim_tournament(r["code"], r["id"])]

    async def tournament_opened(self, task) -> None:
        """A tournament made (or restored) here: its lease (claimed already if restored), kept by the
        renewer; lost, the tournament stops here."""
        if task.id not in self.tournaments and not await self.claim_tournament(task.id, task.db_id):
            raise RuntimeError(f"tournament {task.id} is owned by another node")
        self.node.renewer.add(self.tournaments[task.id], lambda: self._tournament_lost(task))

    def _tournament_lost(self, task) -> None:
        log.error("tournament %s: lease lost, it stops on this node", task.id)
        self.tournaments.pop(task.id, None)
        self.app.tournament_gone(task)
        task.put(STOP)

    def tournament_gone(self, task) -> None:
        lease = self.tournaments.pop(task.id, None)
        if lease is not None:
            self.node.renewer.remove(lease)
            asyncio.get_running_loop().create_task(_give_back(lease))


async def _fenced_or_given_back(what: str, fence, lease: Lease) -> bool:
    """Awaits ``fence`` (the store writing the lease's token for a room or tournament): True when written;
    else the lease given back at once (docs/cluster.md "Fencing"), so the node that holds the newer token,
    or this one once the database is back, need not wait for it to expire."""
    try:
        written = await fence  # a room's row id, or the tournament's True; None or False: refused
        if written is not None and written is not False:
            return True
        log.error("%s: a newer owner's token is in the database; not taken", what)
    except StorageError as e:
        log.warning("%s: its fencing token not written (%s); not taken", what, e)
    await _give_back(lease)
    return False


async def _give_back(lease: Lease) -> None:
    try:
        await lease.release()
    except (OSError, RedisError):
        pass  # it expires
