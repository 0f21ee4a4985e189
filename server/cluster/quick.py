"""The quick-match queues of a cluster (docs/cluster.md "Quick match"): one queue for every node, in
Redis, so that players queued on different nodes are seated at one table.

- Every queued player is a field of the hash ``gb:quick`` (player id -> their entry: room type, hands,
  wait, since, rating and the node their websocket is on). A player's node adds it (``HSETNX``: one entry
  a player) and removes it (``HDEL``: a cancel, a disconnect), so a cancel is answered from Redis.
- One node at a time places: the holder of the ``quick`` lease. Every ``POLL`` it reads the hash, rebuilds
  the queues (rooms.quickmatch, the same rules as one process) and, for each table, moves its players'
  entries to ``gb:quick:placing:<node>`` with one Lua script that checks each entry is still there and
  unchanged: a player cancelled or placed meanwhile is never seated, and no player is seated twice even if
  two nodes briefly both think they place. Then it makes the room (it owns it), and tells the players'
  nodes, which point them at it. The placing hash is emptied once the room exists (its players' presence
  is in Redis by then).
- A node that dies: its own players' entries are dropped once its node lease (``gb:lease:node:<node>``)
  expired; entries it was placing go back to the queue (unless their room was made: presence) when
  the next placer sees it dead.

On the player's node ``app.quick`` is a ``Mirror``: what the lobby asks of a queue (is this player queued,
where, how many wait, when bots fill) as last heard, for its own players only.
"""

from __future__ import annotations

import asyncio
import logging

from redis.exceptions import RedisError

from rooms.config import RoomConfig
from rooms.quickmatch import QuickMatch
from server import codec
from server.cluster.cancel import end_if_cancelled
from server.cluster.keys import NODE_LEASE, NODES, PLAYER, pack, unpack
from server.cluster.lease import PREFIX, Lease
from server.cluster.remote import RemoteRoom
from server.errors import IN_ROOM, NOT_QUEUED, QUEUED, STORAGE
from server.roomitems import Disconnect, QuickAsked, QuickCancel, SnapshotAsked
from server.store import StorageError

log = logging.getLogger("guobiao.cluster")

QUEUE = "gb:quick"  # player id -> their packed entry
PLACING = "gb:quick:placing:"  # node -> the entries it took for tables not yet made
ALIVE = PREFIX + NODE_LEASE  # + node: that node's own lease, gone once it died
POLL = 0.1  # seconds between the placer's looks at the queues

# KEYS: the queue, this node's placing hash. ARGV: player, entry, player, entry... All the entries are
# moved, or none (one of them was cancelled, placed or changed meanwhile).
_TAKE = """
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) ~= ARGV[i + 1] then return 0 end
end
for i = 1, #ARGV, 2 do
  redis.call('HDEL', KEYS[1], ARGV[i])
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
end
return 1
"""

# KEYS: the queue. ARGV: player, entry... Each removed only if it is still that entry.
_DROP = """
local n = 0
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then n = n + redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return n
"""


# KEYS: the queue. ARGV: player, entry, new entry: replaced only if it is still that entry.
_SWAP = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) return 1 end
return 0
"""


class Mirror:
    """``app.quick`` on a cluster node: its own queued players, as last heard from Redis and the placer."""

    def __init__(self):
        self.keys: dict[str, tuple[str, int]] = {}  # player -> (room type, hands)
        self.counts: dict[tuple[str, int], int] = {}  # queue -> how many wait in it, as last heard
        self.due: dict[str, float | None] = {}  # player -> when bots are expected to fill their table
        self.since: dict[str, float] = {}  # player -> when they joined their queue

    def queued(self, pid: str) -> str | None:
        key = self.keys.get(pid)
        return key[0] if key else None

    def queue_of(self, pid: str) -> tuple[str, int] | None:
        return self.keys.get(pid)

    def waiting(self, key) -> range:
        """Only its length is read (``Lobby.queue_status``): the players are on many nodes."""
        return range(self.counts.get(key, 0))

    def estimate(self, pid: str, now: float) -> float | None:
        due = self.due.get(pid)
        return None if due is None else max(0.0, due - now)

    def waited(self, pid: str, now: float) -> float | None:
        since = self.since.get(pid)
        return None if since is None else max(0.0, now - since)

    def heard(self, pid: str, key, count: int, due: float | None) -> bool:
        """A status heard; whether it differs from the last one (the player is told then)."""
        key = tuple(key)
        changed = self.keys.get(pid) != key or self.counts.get(key) != count or self.due.get(pid) != due
        self.keys[pid], self.counts[key], self.due[pid] = key, count, due
        return changed

    def drop(self, pid: str) -> None:
        self.keys.pop(pid, None)
        self.due.pop(pid, None)
        self.since.pop(pid, None)


def build(entries: dict[str, dict]) -> QuickMatch:
    q = QuickMatch()
    for pid, e in sorted(entries.items(), key=lambda kv: kv[1]["since"]):
        q.add(pid, e["type"], e["wait"], e["since"], e["rating"], e["hands"])
    return q


class ClusterQuick:
    def __init__(self, node):
        self.node, self.app, self.redis = node, node.app, node.redis
        self.mirror = Mirror()
        self.lease = Lease(self.redis, "quick", node.id, node.ttl)
        self._take = self.redis.register_script(_TAKE)
        self._drop = self.redis.register_script(_DROP)
        self._swap = self.redis.register_script(_SWAP)
        self.told: dict[str, tuple] = {}  # the placer's last status per player (sent when it changes)

    async def start(self) -> None:
        self.app.quick = self.mirror
        self.node.handlers.update(quick_placed=self._placed, quick_status=self._status, quick_error=self._error)
        loop = asyncio.get_running_loop()
        self.node.tasks.append(loop.create_task(self._placer(), name=f"cluster {self.node.id} quick placer"))

    async def stop(self) -> None:
        self.node.renewer.remove(self.lease)
        try:
            await self.lease.release()
        except (OSError, RedisError):
            pass  # it expires

    # -- the player's node: queue, cancel --------------------------------------------------------

    async def loop(self) -> None:
        """The quick-match queue's only caller on this node (``Lobby.quick_loop`` in cluster mode)."""
        while True:
            item = await self.app.quick_queue.get()
            try:
                if isinstance(item, QuickAsked):
                    await self._queue(item)
                elif isinstance(item, QuickCancel):
                    await self._cancel(item)
            except (OSError, RedisError) as e:
                end_if_cancelled()
                log.warning("cluster: quick match: Redis failed (%s)", e)
                if getattr(item, "conn", None) is not None:
                    self.app.reply(item.conn, item.req, codec.error(STORAGE, "the lobby cannot be reached now"))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("quick match")
            if self.app.stopping:  # (a cancel can be lost inside a Redis call: do not wait for it)
                return
            end_if_cancelled()

    async def _queue(self, item: QuickAsked) -> None:
        pid, conn, req = item.pid, item.conn, item.req
        if self.mirror.queued(pid) or pid in self.app.where:
            self.app.reply(conn, req, codec.error(QUEUED if self.mirror.queued(pid) else IN_ROOM,
                                                  "already queued or in a room"))
            return
        rating = await self.app.ratings.rating(pid, item.room_type)
        entry = {"type": item.room_type, "hands": item.hands, "wait": item.wait, "since": self.app.now(),
                 "rating": rating, "node": self.node.id}
        key = (item.room_type, item.hands)
        self.mirror.keys[pid], self.mirror.since[pid] = key, entry["since"]  # before a placement can be heard
        if not await self.redis.hsetnx(QUEUE, pid, pack(entry)):
            self.mirror.drop(pid)
            self.app.reply(conn, req, codec.error(QUEUED, "already queued or in a room"))
            return
        entries = await self.entries()
        status = {"waiting": 1, "fill": 0.0, "waited": 0.0}  # placed at once
        if pid in entries and self.mirror.queue_of(pid) == key:
            q = build(entries)
            self.mirror.heard(pid, key, len(q.waiting(key)), q.estimate(pid, 0.0))  # (0: the moment itself)
            status = self.app.queue_status(pid)
        self.app.reply(conn, req, {"t": "queued", "type": item.room_type, "hands": item.hands, "wait": item.wait,
                                   **status})

    async def _cancel(self, item: QuickCancel) -> None:
        pid, conn = item.pid, item.conn
        if conn is None:  # the player went away (QUICK_GRACE): not if they came back on another node
            await self._away(pid)
            return
        removed = await self.redis.hdel(QUEUE, pid)
        self.mirror.drop(pid)
        if conn is not None:  # None: the player went away
            self.app.reply(conn, item.req, {"t": "ok"} if removed else codec.error(NOT_QUEUED, "you are not queued"))

    async def _away(self, pid: str) -> None:
        """A player of this node away for the grace period leaves the queue, unless their entry names
        another node now (they signed in there: ``signed_in``)."""
        self.mirror.drop(pid)
        raw = await self.redis.hget(QUEUE, pid)
        if raw is not None and unpack(raw)["node"] == self.node.id:
            await self._drop(keys=[QUEUE], args=[pid, raw])

    async def signed_in(self, pid: str) -> None:
        """A player signing in here who is queued from another node keeps their place and time waited:
        their entry names this node from now on (placements and statuses come here), if unchanged."""
        try:
            raw = await self.redis.hget(QUEUE, pid)
            if raw is None:
                return
            entry = unpack(raw)
            if entry["node"] != self.node.id and not await self._swap(
                    keys=[QUEUE], args=[pid, raw, pack({**entry, "node": self.node.id})]):
                return  # placed or cancelled meanwhile
        except (OSError, RedisError) as e:  # the sign-in goes on; the place stays with the old node
            log.warning("cluster: quick match: a queued player's place not moved (%s)", e)
            return
        key = (entry["type"], entry["hands"])
        self.mirror.keys[pid], self.mirror.since[pid] = key, entry["since"]
        self.mirror.counts.setdefault(key, 1)
        self.told.pop(pid, None)  # (on the placer: the next status goes to the new node)

    async def entries(self) -> dict[str, dict]:
        raw = await self.redis.hgetall(QUEUE)
        return {(k.decode() if isinstance(k, bytes) else k): unpack(v) for k, v in raw.items()}

    def _placed(self, body: dict) -> None:
        """A player of this node seated by the placer: pointed at the room (a snapshot from its owner)."""
        pid = body["pid"]
        self.mirror.drop(pid)
        self.told.pop(pid, None)
        remote = RemoteRoom(self.node, body["owner"], body["room"])
        conn = self.app.conns.get(pid)
        if conn is not None and self.app.where.get(pid) is None:
            self.app.where[pid] = remote
            remote.reconnect(pid, conn)
        else:  # gone meanwhile: the room's grace period starts; they resume on any node (presence)
            remote.put(Disconnect(pid))

    def _error(self, body: dict) -> None:
        if (conn := self.app.conns.get(body["pid"])) is not None:
            conn.send(body["msg"])

    def _status(self, body: dict) -> None:
        pid = body["pid"]
        conn = self.app.conns.get(pid)
        if self.mirror.queue_of(pid) is None or conn is None:
            return  # cancelled meanwhile
        if self.mirror.heard(pid, body["key"], body["waiting"], body["due"]):
            conn.send(self.app.queued_msg(pid))

    # -- the placer ------------------------------------------------------------------------------

    async def _placer(self) -> None:
        wait = POLL
        while True:
            await asyncio.sleep(wait)
            if self.app.stopping:
                return
            end_if_cancelled()
            try:
                if not self.lease.owned:
                    if await self.lease.acquire() is None:
                        # Another node places. Asking again every POLL cost each idle node ten script
                        # calls a second; a holder that dies keeps the lease a ttl anyway, one that stops
                        # gives it up, and is followed within a quarter ttl.
                        wait = max(POLL, self.node.ttl / 4)
                        continue
                    wait = POLL
                    self.node.renewer.add(self.lease, lambda: None)  # lost: taken again when free
                    await self._recover()
                await self.place_round()
            except (OSError, RedisError) as e:
                end_if_cancelled()
                log.warning("cluster: quick-match placing failed (%s)", e)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("quick match placer")

    async def _recover(self) -> None:
        """Entries a dead node was placing: back in the queue, unless their room was made (presence)."""
        nodes = {n.decode() if isinstance(n, bytes) else n for n in await self.redis.smembers(NODES)}
        for n in nodes - {self.node.id}:
            if await self.redis.exists(ALIVE + n):
                continue
            raw = await self.redis.hgetall(PLACING + n)
            for pid, entry in raw.items():
                pid = pid.decode() if isinstance(pid, bytes) else pid
                if not await self.redis.exists(PLAYER + pid):
                    await self.redis.hsetnx(QUEUE, pid, entry)
            await self.redis.delete(PLACING + n)

    async def place_round(self) -> None:
        raw = await self.redis.hgetall(QUEUE)
        if not raw:
            return
        raw = {(k.decode() if isinstance(k, bytes) else k): v for k, v in raw.items()}
        entries = {pid: unpack(v) for pid, v in raw.items()}
        nodes = sorted({e["node"] for e in entries.values()})
        alive = dict(zip(nodes, await self.redis.mget([ALIVE + n for n in nodes])))
        dead = [pid for pid, e in entries.items() if alive[e["node"]] is None]
        if dead:  # their websocket's node died: they are gone
            await self._drop(keys=[QUEUE], args=[x for pid in dead for x in (pid, raw[pid])])
            for pid in dead:
                del entries[pid]
        q = build(entries)
        for p in q.tick(self.app.now()):
            if not self.lease.owned:
                return
            if await self._take(keys=[QUEUE, PLACING + self.node.id], args=[x for pid in p.players for x in (pid, raw[pid])]):
                await self._seat(p, entries)
        self._tell(q, entries)

    async def _seat(self, p, entries: dict) -> None:
        """A table's room made here, its players pointed at it; their entries back in the queue if the
        room cannot be saved now."""
        app = self.app
        config = RoomConfig(**{**app.settings.quick_config, "type": p.type, "hands": p.hands, "ranked": True})
        try:
            task = await app.new_room(config, p.players[0], list(p.players), p.bots)
        except Exception as e:  # they wait on (server/storage: and hear why)
            if not isinstance(e, StorageError):
                log.exception("quick match: a table could not be made")
            for pid in p.players:
                await self.redis.hsetnx(QUEUE, pid, pack(entries[pid]))
                if isinstance(e, StorageError):
                    self._send(entries[pid]["node"], {"k": "quick_error", "pid": pid,
                                                      "msg": codec.error(e.code, f"{e.message}; you stay queued")})
            await self.redis.hdel(PLACING + self.node.id, *p.players)
            return
        await self.redis.hdel(PLACING + self.node.id, *p.players)
        for pid in p.players:
            self.told.pop(pid, None)
            node = entries[pid]["node"]
            if node != self.node.id:
                self.node.send(node, {"k": "quick_placed", "pid": pid, "room": task.id, "owner": self.node.id})
                continue
            self.mirror.drop(pid)
            conn = app.conns.get(pid)
            if conn is None:  # went away while the room was being made: the grace period starts
                task.put(Disconnect(pid))
            else:
                task.put(SnapshotAsked(pid, conn, (conn.encoding, None)))

    def _send(self, node: str, body: dict) -> None:
        if node == self.node.id:
            self.node.handlers[body["k"]](body)
        else:
            self.node.send(node, body)

    def _tell(self, q: QuickMatch, entries: dict) -> None:
        """Those still waiting hear how many wait with them and when bots fill, when that changed."""
        self.told = {pid: s for pid, s in self.told.items() if pid in entries}
        for key in q.queues:
            waiting = q.waiting(key)
            for pid in waiting:
                status = (key, len(waiting), q.estimate(pid, 0.0))
                if self.told.get(pid) != status:
                    self.told[pid] = status
                    self._send(entries[pid]["node"], {"k": "quick_status", "pid": pid, "key": list(key),
                                                      "waiting": len(waiting), "due": status[2]})
