"""One node of a cluster (docs/cluster.md): its rooms' leases and directory entries in Redis, and the
messages to and from other nodes over Redis Streams.

A room is run by the node that owns it (its lease). A player whose websocket is on another node has, on
that node, a ``RemoteRoom`` where a local room task would be (``App.where``): what is put to it goes to
the owner's stream. On the owner, the player is a ``ProxyConn`` where a connection would be: what the
room task sends to it (answers, pushes) goes back to the websocket's node, which numbers the pushes
(``n``) on the real connection. Each node reads one stream, ``gb:node:<node>``, from the last entry it
handled, and writes to each other node's stream from one task, in the order sent: messages are neither
lost across a Redis reconnect nor reordered.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets

import msgpack
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from rooms.invite import normalize
from server import codec
from server.cluster.lease import Lease, holder
from server import listing
from server.codec import BAD_FIELD, ProtocolError
from server.errors import MOVED, NO_ROOM
from server.roomitems import (STOP, ChatAsked, Command, Connect, Disconnect, HistoryAsked, Leave,
                              SnapshotAsked)
from server.roomtask import RoomTask
from server.store_sql import StorageError

log = logging.getLogger("guobiao.cluster")

STREAM = "gb:node:"
INVITE = "gb:invite:"
ROOMS = "gb:rooms"  # the ids of the open rooms of every node (looked at for expired leases)
NODES = "gb:nodes"  # the nodes' ids (told when a room moves)
LOBBY = "gb:lobby"  # room id -> its public summary, invite code and online members (the shared lobby)
PLAYER = "gb:player:"  # player id -> the room they are in (presence: a resume on any node finds it)

# Forget a player's room only if it is still this room (they may have joined another meanwhile).
_FORGET_PLAYER = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
STREAM_MAX = 100_000  # entries kept per node's stream (XADD MAXLEN ~): far more than a reader lags
READ_COUNT = 512  # entries taken per XREAD
READ_BLOCK = 1000  # ms an XREAD waits for entries
RETRY = 0.2  # seconds before a failed Redis call is tried again

_ITEMS = {"Command": Command, "SnapshotAsked": SnapshotAsked, "HistoryAsked": HistoryAsked,
          "ChatAsked": ChatAsked, "Connect": Connect, "Disconnect": Disconnect, "Leave": Leave}


def pack(msg: dict) -> bytes:
    return msgpack.packb(msg, use_bin_type=True)


def unpack(data: bytes) -> dict:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


class RemoteReq:
    """The request of a frame answered on another node: stands where a frame's id is on the owner; the
    answer carrying it goes back to the frame's node (``ProxyConn``)."""
    __slots__ = ("token",)

    def __init__(self, token: str):
        self.token = token


class ProxyConn:
    """On a room's owner: a player whose websocket is on another node. The room task uses it as a
    connection; what it is sent goes to that node, numbered there."""

    act_req = waiting = inbox = None  # server.frames.reply: no frame of its own waits here
    snapshot_due: str | None = None
    closed = False

    def __init__(self, cluster: ClusterNode, node: str, pid: str, name: str | None, encoding: str):
        self.cluster, self.node, self.player, self.name, self.encoding = cluster, node, pid, name, encoding

    def _out(self, kind: str, msg: dict, encoding: str | None) -> None:
        re = msg.get("re")
        if isinstance(re, RemoteReq):  # an answer (server.frames.reply put the request in)
            body = {k: v for k, v in msg.items() if k != "re"}
            self.cluster.send(self.node, {"k": "reply", "req": re.token, "msg": body})
        else:
            self.cluster.send(self.node, {"k": kind, "pid": self.player, "msg": msg, "enc": encoding})

    def push(self, msg: dict, encoding: str | None = None) -> None:
        self._out("push", msg, encoding)

    def send(self, msg: dict, encoding: str | None = None) -> None:
        self._out("send", msg, encoding)

    def cork(self) -> None:
        pass  # the messages leave in order on the node's stream; the real connection corks nothing here

    def uncork(self) -> None:
        pass

    def coalesce_snapshot(self) -> bool:
        return False

    def queued_snapshot(self) -> None:
        pass


class RemoteRoom(RoomTask):
    """On a player's node: the room they are in, owned by another node. It stands in ``App.where`` where
    a room task would; what is put to it goes to the owner. (A subclass only so that the places that ask
    whether a player is in a room see one; none of ``RoomTask``'s state is set or used.)"""

    def __init__(self, cluster: ClusterNode, owner: str, room_id: str):  # noqa: D107 - no RoomTask.__init__
        self.cluster, self.owner, self.id = cluster, owner, room_id
        self.invite = None
        self.closed = False
        self.task = None

    def put(self, item) -> None:
        self.cluster.forward(self, item)

    def reconnect(self, pid: str, conn) -> None:
        conn.snapshot_due = self.id
        self.put(Connect(pid, conn))


class _Listed:
    """A room of the shared lobby as listing.rooms reads a room task."""
    __slots__ = ("summary", "invite")

    def __init__(self, summary: dict, invite: str):
        self.summary, self.invite = summary, invite


class ClusterNode:
    def __init__(self, app, redis_url: str, node_id: str | None = None, ttl: float = 5.0):
        self.app = app
        self.id = node_id or "n" + secrets.token_hex(4)
        self.redis = aioredis.Redis.from_url(redis_url)
        self.ttl = ttl
        self.leases: dict[str, tuple[Lease, asyncio.Task]] = {}  # room id -> its lease and renewer
        self.proxies: dict[str, ProxyConn] = {}  # remote players of this node's rooms
        self.pending: dict[str, tuple] = {}  # request token -> (conn, req, on_ok) of a frame sent away
        self.outbox: dict[str, asyncio.Queue] = {}  # node -> what goes to it, in order
        self.tasks: list[asyncio.Task] = []
        self._ops: asyncio.Queue = asyncio.Queue()  # directory writes, done in order by one task
        self._forget_player = self.redis.register_script(_FORGET_PLAYER)
        self._claimed: dict[str, Lease] = {}  # room id -> its lease, taken before restoring it
        self._tokens = itertools.count(1)

    async def start(self) -> None:
        await self.redis.ping()  # unreachable: the node does not start
        await self.redis.sadd(NODES, self.id)
        self.app.store.on_fenced = self.fenced
        loop = asyncio.get_running_loop()
        self.tasks.append(loop.create_task(self._read(), name=f"cluster {self.id} reader"))
        self.tasks.append(loop.create_task(self._directory(), name=f"cluster {self.id} directory"))

    def watch(self) -> None:
        """Take over, from now on, the rooms of nodes that died (after ``App.recover``)."""
        self.tasks.append(asyncio.get_running_loop().create_task(self._watch(), name=f"cluster {self.id} takeover"))

    async def stop(self) -> None:
        """After the rooms stopped: their leases given up (other nodes need not wait), the rest ended."""
        for lease, keeper in list(self.leases.values()):
            keeper.cancel()
            try:
                await lease.release()
            except (OSError, RedisError):
                pass  # it expires
        self.leases.clear()
        for lease in self._claimed.values():  # claimed, but the room could not be restored
            try:
                await lease.release()
            except (OSError, RedisError):
                pass
        self._claimed.clear()
        try:
            await self.redis.srem(NODES, self.id)
        except (OSError, RedisError):
            pass
        for q in self.outbox.values():  # what is still queued leaves before the node does
            try:
                await asyncio.wait_for(q.join(), 5.0)
            except TimeoutError:
                log.warning("cluster: messages to another node were not written before stopping")
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.redis.aclose()

    # -- rooms this node owns ------------------------------------------------------------------

    async def claim(self, room_id: str) -> bool:
        """Before restoring a room from the log: its lease, or False when another node owns it. A room
        whose node died is restored by the first node to claim it once the lease expired."""
        lease = Lease(self.redis, "room:" + room_id, self.id, self.ttl)
        if await lease.acquire() is None or not await self._fence(room_id, lease):
            return False
        self._claimed[room_id] = lease
        return True

    async def _fence(self, room_id: str, lease: Lease) -> bool:
        """The lease's token recorded in PostgreSQL before the log is read or written (docs/cluster.md
        "Fencing"): a former owner's later writes are refused. False (the lease given back) when a
        newer owner's token is there, or the database cannot be written now."""
        try:
            if await self.app.store.fence(room_id, lease.token) is not None:
                return True
            log.error("room %s: a newer owner's token is in the database; not taken", room_id)
        except StorageError as e:
            log.warning("room %s: its fencing token not written (%s); not taken", room_id, e)
        try:
            await lease.release()
        except (OSError, RedisError):
            pass  # it expires
        return False

    def fenced(self, db_id: int) -> None:
        """A write of a room's log was refused: a newer owner (a larger token) wrote it, so this node lost
        the room, maybe before its lease's renewal noticed. The room stops here as on a lost lease (its
        directory entries are the new owner's now); its members here get a snapshot from the new owner."""
        task = next((t for t in self.app.rooms.values() if t.db_id == db_id), None)
        if task is None or task.closed:
            return
        log.warning("room %s: a newer owner wrote its log; the room stops on this node", task.id)
        held = self.leases.pop(task.id, None)
        if held is not None:
            held[1].cancel()
        here = [pid for pid, where in self.app.where.items() if where is task and pid in self.app.conns]
        self.app.room_gone(task)
        task.put(STOP)
        asyncio.get_running_loop().create_task(self._follow(task.id, here))

    async def _follow(self, room_id: str, pids: list[str]) -> None:
        """The members here of a room that moved away, pointed at its owner, which sends each a snapshot."""
        try:
            owner = await holder(self.redis, "room:" + room_id)
        except (OSError, RedisError):
            owner = None
        if owner is None or owner[0] == self.id:
            return  # no owner now: they resume when one takes it over (presence)
        for pid in pids:
            conn = self.app.conns.get(pid)
            if conn is not None and pid not in self.app.where:
                remote = self.app.where[pid] = RemoteRoom(self, owner[0], room_id)
                remote.reconnect(pid, conn)

    async def room_opened(self, task: RoomTask) -> None:
        """A room made (or restored) here: its lease, then its invite code in the directory."""
        lease = self._claimed.pop(task.id, None)
        if lease is None:
            lease = Lease(self.redis, "room:" + task.id, self.id, self.ttl)
            if await lease.acquire() is None or not await self._fence(task.id, lease):
                raise RuntimeError(f"room {task.id} is owned by another node")
        keeper = asyncio.get_running_loop().create_task(lease.keep(lambda: self._lost(task)),
                                                        name=f"lease {task.id}")
        self.leases[task.id] = (lease, keeper)
        await self.redis.set(INVITE + task.invite, task.id)
        await self.redis.sadd(ROOMS, task.id)
        await self._listing(task)  # listed before its creator hears of it
        if task.members:  # its first members (later ones come through members_changed)
            await self.redis.mset({PLAYER + pid: task.id for pid in task.members})

    def _lost(self, task: RoomTask) -> None:
        """The lease was lost (not renewed in time): another node may own the room now; stop writing."""
        log.error("room %s: lease lost, the room stops on this node", task.id)
        self.leases.pop(task.id, None)
        if not task.closed:
            self.app.room_gone(task)
            task.put(STOP)

    def room_closed(self, task: RoomTask) -> None:
        held = self.leases.pop(task.id, None)
        if held is not None:  # (a lease lost: the new owner keeps the presence and the remote players)
            for pid in task.members:
                self._left(task, pid)
            lease, keeper = held
            keeper.cancel()
            asyncio.get_running_loop().create_task(self._forget(lease, task.invite))

    async def _forget(self, lease: Lease, invite: str) -> None:
        try:
            await self.redis.srem(ROOMS, lease.name.removeprefix("room:"))
            await self.redis.hdel(LOBBY, lease.name.removeprefix("room:"))
            await self.redis.delete(INVITE + invite)
            await lease.release()
        except (OSError, RedisError):
            log.warning("room %s: its directory entry is left to expire", lease.name)

    def members_changed(self, task: RoomTask, old: set, new: set) -> None:
        """Who is in a room here changed: presence in Redis, and the nodes of remote players who left
        are told (their ``RemoteRoom`` goes)."""
        for pid in new - old:
            self._ops.put_nowait(lambda pid=pid: self.redis.set(PLAYER + pid, task.id))
        for pid in old - new:
            self._left(task, pid)
        self._list(task)

    def _list(self, task: RoomTask) -> None:
        """The room's entry in the shared lobby, as of when the write is done (its names learnt by then)."""
        self._ops.put_nowait(lambda: self._listing(task))

    def _listing(self, task: RoomTask):
        if task.closed or task.summary is None:  # private rooms are not listed
            return self.redis.hdel(LOBBY, task.id)
        online = [p for p in task.members if p in self.app.conns or p in self.proxies]
        return self.redis.hset(LOBBY, task.id, pack({"summary": task.summary, "invite": task.invite,
                                                     "online": online}))

    async def rooms(self, conn, msg: dict, req: tuple) -> None:
        """``rooms``: the public rooms of every node (listing.rooms over the shared lobby)."""
        entries = [unpack(v) for v in (await self.redis.hgetall(LOBBY)).values()]
        listed = [_Listed(e["summary"], e["invite"]) for e in entries]
        online = {p for e in entries for p in e["online"]}
        found = listing.rooms(listed, online, msg.get("q"), msg.get("page"))
        self.app.reply(conn, req, {"t": "rooms", **found})

    def _left(self, task: RoomTask, pid: str) -> None:
        self._ops.put_nowait(lambda: self._forget_player(keys=[PLAYER + pid], args=[task.id]))
        proxy = self.proxies.get(pid)
        if proxy is not None:
            self.send(proxy.node, {"k": "left", "pid": pid, "room": task.id})

    async def _directory(self) -> None:
        while True:
            op = await self._ops.get()
            try:
                await op()
            except (OSError, RedisError) as e:
                log.warning("cluster: a directory write failed (%s)", e)

    async def player_room(self, pid: str) -> RemoteRoom | None:
        """At a sign-in: the room the player is in on another node, or None."""
        room_id = await self.redis.get(PLAYER + pid)
        if room_id is None:
            return None
        room_id = room_id.decode() if isinstance(room_id, bytes) else room_id
        owner = await holder(self.redis, "room:" + room_id)
        if owner is None or owner[0] == self.id:
            return None
        return RemoteRoom(self, owner[0], room_id)

    def deliver(self, pid: str, msg: dict) -> bool:
        """A push to a member with no connection here: to its node if it is a remote player."""
        proxy = self.proxies.get(pid)
        if proxy is None:
            return False
        self.send(proxy.node, {"k": "deliver", "pid": pid, "msg": msg})
        return True

    # -- rooms of other nodes ------------------------------------------------------------------

    async def join_remote(self, conn, msg: dict, req: tuple) -> None:
        """``join``/``watch`` of a room not on this node: looked up in the directory, sent to its owner."""
        if "room" in msg:
            room_id = msg["room"] if isinstance(msg["room"], str) else None
        elif "code" in msg:
            code = normalize(msg["code"])
            room_id = await self.redis.get(INVITE + code) if code else None
            room_id = room_id.decode() if isinstance(room_id, bytes) else room_id
        else:
            raise ProtocolError(BAD_FIELD, "give the room's id (room) or its invite code (code)")
        owner = await holder(self.redis, "room:" + room_id) if room_id else None
        if owner is None or owner[0] == self.id:
            self.app.reply(conn, req, codec.error(NO_ROOM, "no such room"))
            return
        remote = RemoteRoom(self, owner[0], room_id)
        pid = conn.player

        def joined() -> None:
            if self.app.where.get(pid) is None:
                self.app.where[pid] = remote

        cmd = {k: v for k, v in msg.items() if k != "room"}
        self.forward(remote, Command(pid, conn, req, cmd), on_ok=joined)

    def forward(self, remote: RemoteRoom, item, on_ok=None) -> None:
        """An item for a room owned by another node, to that node's stream."""
        kind = type(item).__name__
        if kind not in _ITEMS:
            log.warning("room %s: %s is not forwarded between nodes", remote.id, kind)
            return
        body = {"k": "item", "from": self.id, "room": remote.id, "type": kind, "pid": item.pid}
        conn = getattr(item, "conn", None)
        if conn is not None:
            body["name"], body["enc"] = conn.name, conn.encoding
        req = getattr(item, "req", None)
        if req is not None:
            token = f"{self.id}.{next(self._tokens)}"
            self.pending[token] = (conn, req, on_ok, remote.id)
            body["req"], body["enc"] = token, req[0]
        for field in ("cmd", "page", "text"):
            if hasattr(item, field):
                body[field] = getattr(item, field)
        self.send(remote.owner, body)

    # -- takeover ------------------------------------------------------------------------------

    async def _watch(self) -> None:
        """Every half ttl: the open rooms whose lease expired (their node died) are claimed, restored from
        the PostgreSQL log and announced to every node (docs/cluster.md "Failover")."""
        while True:
            await asyncio.sleep(self.ttl / 2)
            try:
                await self.take_over()
            except (OSError, RedisError) as e:
                log.warning("cluster: looking for rooms to take over failed (%s)", e)

    async def take_over(self) -> list[str]:
        """Restore here the open rooms nobody holds the lease of; their ids. None while this node stops
        (its rooms are being stopped: one restored now would be left running)."""
        if self.app.stopping:
            return []
        ids = [i.decode() if isinstance(i, bytes) else i for i in await self.redis.smembers(ROOMS)]
        ids = [i for i in ids if i not in self.leases]
        if not ids:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for i in ids:
            pipe.exists("gb:lease:room:" + i)
        held = await pipe.execute()
        claimed = [i for i, h in zip(ids, held) if not h and await self.claim(i)]
        if not claimed or self.app.stopping:
            for room_id in claimed:
                await self._claimed.pop(room_id).release()
            return []
        taken = []
        for r in await self.app.store.open_rooms():
            if r["code"] in claimed and r["log"] and not self.app.stopping:
                task = await self.app.restore_room(r)
                if task is not None:
                    taken.append(task)
        for room_id in claimed:  # closed meanwhile, or not restorable
            lease = self._claimed.pop(room_id, None)
            if lease is not None:
                await lease.release()
                if not any(t.id == room_id for t in taken) and not self.app.stopping:  # (stopping: still open)
                    await self.redis.srem(ROOMS, room_id)
        nodes = [n.decode() if isinstance(n, bytes) else n for n in await self.redis.smembers(NODES)]
        for task in taken:
            log.warning("cluster: took room %s over", task.id)
            self._moved(task.id, self.id)  # its members whose websocket is here
            for node in nodes:
                if node != self.id:
                    self.send(node, {"k": "moved", "room": task.id, "owner": self.id})
        return [t.id for t in taken]

    def _moved(self, room_id: str, owner: str) -> None:
        """A room changed owner: what was sent to the old one is answered ``server/moved`` (it may never
        answer), and its members here get a snapshot from the new owner."""
        for token, (conn, req, _, rid) in list(self.pending.items()):
            if rid == room_id:
                del self.pending[token]
                self.app.reply(conn, req, codec.error(MOVED, "the room moved to another server: the snapshot that follows shows whether this was done"))
        task = self.app.rooms.get(room_id) if owner == self.id else None
        for pid, where in list(self.app.where.items()):
            conn = self.app.conns.get(pid)
            if isinstance(where, RemoteRoom) and where.id == room_id:
                if task is not None:
                    self.app.where[pid] = task
                else:
                    where.owner = owner
                    if conn is not None:
                        where.reconnect(pid, conn)
                        continue
            if task is not None and self.app.where.get(pid) is task and conn is not None:
                task.reconnect(pid, conn)

    # -- the streams ---------------------------------------------------------------------------

    def send(self, node: str, body: dict) -> None:
        q = self.outbox.get(node)
        if q is None:
            q = self.outbox[node] = asyncio.Queue()
            self.tasks.append(asyncio.get_running_loop().create_task(self._write(node, q),
                                                                     name=f"cluster {self.id} -> {node}"))
        q.put_nowait(pack(body))

    async def _write(self, node: str, q: asyncio.Queue) -> None:
        """The one writer to ``node``'s stream: what is queued, in order, many entries a round trip."""
        key = STREAM + node
        while True:
            batch = [await q.get()]
            while not q.empty():
                batch.append(q.get_nowait())
            while True:
                try:
                    pipe = self.redis.pipeline(transaction=True)  # all or none: a retry never doubles
                    for data in batch:
                        pipe.xadd(key, {"m": data}, maxlen=STREAM_MAX, approximate=True)
                    await pipe.execute()
                    break
                except (OSError, RedisError) as e:
                    log.warning("cluster: writing to %s failed (%s); retrying", node, e)
                    await asyncio.sleep(RETRY)
            for _ in batch:
                q.task_done()

    async def _read(self) -> None:
        """This node's stream, from its start (the node's id is new each run), entry by entry."""
        key, last = STREAM + self.id, "0-0"
        while True:
            try:
                got = await self.redis.xread({key: last}, count=READ_COUNT, block=READ_BLOCK)
            except (OSError, RedisError) as e:
                log.warning("cluster: reading %s failed (%s); resuming after %s", key, e, last)
                await asyncio.sleep(RETRY)
                continue
            for _, entries in got:
                for entry_id, fields in entries:
                    last = entry_id
                    try:
                        self._handle(unpack(fields[b"m"]))
                    except Exception:
                        log.exception("cluster: a message from another node failed")

    def _handle(self, body: dict) -> None:
        kind = body["k"]
        if kind == "item":
            self._item(body)
        elif kind == "reply":
            waiting = self.pending.pop(body["req"], None)
            if waiting is not None:
                conn, req, on_ok, _ = waiting
                if on_ok is not None and body["msg"]["t"] == "ok":
                    on_ok()
                self.app.reply(conn, req, body["msg"])
        elif kind == "deliver":
            self.app.deliver(body["pid"], body["msg"])
        elif kind == "left":
            where = self.app.where.get(body["pid"])
            if isinstance(where, RemoteRoom) and where.id == body["room"]:
                del self.app.where[body["pid"]]
        elif kind == "moved":
            self._moved(body["room"], body["owner"])
        else:  # push, send: straight to the connection, as the owner's room task did
            conn = self.app.conns.get(body["pid"])
            if conn is None:
                return
            msg = body["msg"]
            if msg.get("t") == "snapshot" and conn.snapshot_due == msg.get("room"):
                conn.snapshot_due = None
            if kind == "push":
                conn.push(msg, body["enc"])
            else:
                conn.send(msg, body["enc"])

    def _item(self, body: dict) -> None:
        """A remote player's item for a room here: to its task, as the player's own connection would."""
        pid, origin = body["pid"], body["from"]
        task = self.app.rooms.get(body["room"])
        proxy = self.proxies.get(pid)
        if proxy is None or proxy.node != origin:
            proxy = self.proxies[pid] = ProxyConn(self, origin, pid, body.get("name"), body.get("enc", "json"))
        if body.get("name"):
            proxy.name = body["name"]
        req = (body.get("enc"), RemoteReq(body["req"])) if "req" in body else None
        if task is None or task.closed or body["room"] not in self.leases:
            if req is not None:
                self.app.reply(proxy, req, codec.error(NO_ROOM, "no such room"))
            return
        kind = body["type"]
        if kind == "Connect":
            task.reconnect(pid, proxy)
        elif kind in ("Disconnect", "Leave"):
            task.put(_ITEMS[kind](pid))
        else:
            extra = {f: body[f] for f in ("cmd", "page", "text") if f in body}
            task.put(_ITEMS[kind](pid, proxy, req, **extra))
