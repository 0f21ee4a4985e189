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
import hashlib
import itertools
import logging
import secrets

import redis.asyncio as aioredis
from redis.exceptions import NoScriptError, RedisError

from rooms.invite import normalize
from server import codec
from server.cluster.cancel import end_if_cancelled
from server.cluster.keys import (INVITE, LOBBY, NODE_LEASE, NODES, OWNED, PLAYER, ROOM_LEASE, ROOMS, SENT,
                                 STREAM, pack, unpack_all)
from server.cluster import lobby as cluster_lobby
from server.cluster.lease import Lease, Renewer, holder
from server.cluster.link import Link, stream_entries
from server.cluster.remote import ProxyConn, RemoteReq, RemoteRoom
from server.cluster.takeover import Takeover
from server.codec import BAD_FIELD, ProtocolError
from server.errors import NO_ROOM
from server.roomitems import (ChatAsked, Command, Connect, Disconnect, HistoryAsked, Leave,
                              SnapshotAsked)
from server.roomtask import RoomTask
from server.store_sql import StorageError

log = logging.getLogger("guobiao.cluster")

# Forget a player's room only if it is still this room (they may have joined another meanwhile).
_FORGET_PLAYER = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
# Every entry of one write, to any streams, in one call: all or none. KEYS[1] holds the number of the
# writer's last write landed: a write lands only if it is the next one, so writes land once (one sent
# again after it landed is skipped) and in order (one after a write that failed is skipped too; the
# writer finds out and sends both again). KEYS[2..]: the streams; ARGV: the write's number, MAXLEN, the
# entries.
_XADD_ALL = """
if tonumber(redis.call('GET', KEYS[1]) or '0') + 1 ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', 86400)
for i = 2, #KEYS do
  redis.call('XADD', KEYS[i], 'MAXLEN', '~', ARGV[2], '*', 'm', ARGV[i + 1])
end
return 1
"""
STREAM_MAX = 100_000  # entries kept per node's stream (XADD MAXLEN ~): far more than a reader lags
ENTRY_MAX = 256  # messages in one stream entry (those queued together share one: one XADD, one entry read)
READ_COUNT = 512  # entries taken per XREAD, and messages handled before the reader lets the loop run
READ_BLOCK = 1000  # ms an XREAD waits for entries
RETRY = 0.2  # seconds before a failed Redis call is tried again
CONFIRM_EVERY = 64  # writes sent unanswered before the writer asks Redis how far it got
CONFIRM_AFTER = 0.05  # seconds the oldest unanswered write waits at most for that question
CALL_TIMEOUT = 5.0  # seconds a write (or a read, beyond its READ_BLOCK) may take before it is tried again
_XADD_ALL_SHA = hashlib.sha1(_XADD_ALL.encode()).hexdigest()
ANSWERED = object()  # put in the outbox once the writer's question is answered (not a message)

_ITEMS = {"Command": Command, "SnapshotAsked": SnapshotAsked, "HistoryAsked": HistoryAsked,
          "ChatAsked": ChatAsked, "Connect": Connect, "Disconnect": Disconnect, "Leave": Leave}



class ClusterNode:
    def __init__(self, app, redis_url: str, node_id: str | None = None, ttl: float = 5.0):
        self.app = app
        self.id = node_id or "n" + secrets.token_hex(4)
        self.redis = aioredis.Redis.from_url(redis_url)
        self.ttl = ttl
        self.renewer = Renewer(self.redis, ttl)  # every lease of this node, renewed by one task
        self.alive = Lease(self.redis, NODE_LEASE + self.id, self.id, ttl)  # gone: the node is dead
        self.leases: dict[str, Lease] = {}  # room id -> its lease
        self.proxies: dict[str, ProxyConn] = {}  # remote players of this node's rooms
        self.pending: dict[str, tuple] = {}  # request token -> (conn, req, on_ok) of a frame sent away
        self._corked: list | None = None  # the connections an entry's messages wrote to, while it is handled
        self.outbox: asyncio.Queue = asyncio.Queue()  # (node, packed message): what goes to other nodes, in order
        self._writer: asyncio.Task | None = None  # the one task writing the outbox, from the first send
        self.tasks: list[asyncio.Task] = []
        self._ops: asyncio.Queue = asyncio.Queue()  # directory writes, done in order by one task
        self._forget_player = self.redis.register_script(_FORGET_PLAYER)
        self._tokens = itertools.count(1)
        self.takeover = Takeover(self)  # rooms claimed, restored, taken over, given up
        self.handlers: dict = {}  # message kind -> its handler, of the shared lobby's modules
        self.quick = None  # server.cluster.quick.ClusterQuick, from ``start``
        self.tourneys = None  # server.cluster.tourney.ClusterTournaments, from ``start``

    async def start(self) -> None:
        await self.redis.ping()  # unreachable: the node does not start
        await self.redis.script_load(_XADD_ALL)  # (the writer's first call need not load it)
        await self._live()
        self.app.store.on_fenced = self.takeover.fenced
        loop = asyncio.get_running_loop()
        self._renewing = loop.create_task(self.renewer.run(), name=f"cluster {self.id} leases")
        self.tasks.append(self._renewing)
        self.tasks.append(loop.create_task(self._read(), name=f"cluster {self.id} reader"))
        self.tasks.append(loop.create_task(self._directory(), name=f"cluster {self.id} directory"))
        await self._lobby()

    async def _lobby(self) -> None:
        """The shared lobby's parts: quick-match queues (server.cluster.quick)."""
        from server.cluster.quick import ClusterQuick  # (it builds on this module)
        self.quick = ClusterQuick(self)
        await self.quick.start()
        from server.cluster.tourney import ClusterTournaments
        self.tourneys = ClusterTournaments(self)  # tournaments across nodes

    async def _live(self) -> None:
        """This node's own lease (others take its rooms over once it expires) and its entry in the set
        of nodes; taken again if it was lost (a pause past the ttl)."""
        if await self.alive.acquire() is None:
            raise RuntimeError(f"cluster node {self.id} is already running")
        await self.redis.sadd(NODES, self.id)
        self.renewer.add(self.alive, lambda: self.tasks.append(asyncio.get_running_loop().create_task(self._live())))

    def watch(self) -> None:
        """Take over, from now on, the rooms of nodes that died (after ``App.recover``)."""
        self.tasks.append(asyncio.get_running_loop().create_task(self.takeover.watch(), name=f"cluster {self.id} takeover"))
        self.tourneys.start()  # and the tournaments of nodes that died

    async def stop(self) -> None:
        """After the rooms stopped: their leases and the node's given up (other nodes take its open rooms
        over at once), its stream deleted, the rest ended."""
        if self.quick is not None:
            await self.quick.stop()
        self._renewing.cancel()  # nothing is renewed from now on
        leases = [*self.leases.values(), *self.takeover.claimed.values(), *self.takeover.tournaments.values(),
                  self.alive]
        self.leases.clear()
        self.takeover.claimed.clear()
        self.takeover.tournaments.clear()
        for lease in leases:
            try:
                await lease.release()
            except (OSError, RedisError):
                pass  # it expires
        try:  # what is still queued leaves before the node does
            await asyncio.wait_for(self.outbox.join(), 5.0)
        except TimeoutError:
            log.warning("cluster: messages to another node were not written before stopping")
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        try:
            await self.redis.delete(STREAM + self.id, SENT + self.id)  # (written to again, deleted as a dead node's)
        except (OSError, RedisError):
            pass
        await self.redis.aclose()

    # -- rooms this node owns ------------------------------------------------------------------

    async def room_opened(self, task: RoomTask) -> None:
        """A room made (or restored) here: its lease, then its invite code in the directory."""
        lease = self.takeover.claimed.pop(task.id, None)
        if lease is None:
            if not await self.takeover.claim(task.id):
                raise RuntimeError(f"room {task.id} is owned by another node")
            lease = self.takeover.claimed.pop(task.id)
        self.renewer.add(lease, lambda: self.takeover.lost(task))
        self.leases[task.id] = lease
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(INVITE + task.invite, task.id)
        if not task.room.config.table:  # a tournament's table moves with its tournament (server.cluster.tourney)
            pipe.sadd(ROOMS, task.id)
            pipe.sadd(OWNED + self.id, task.id)
        if task.members:  # its first members (later ones come through members_changed)
            pipe.mset({PLAYER + pid: task.id for pid in task.members})
        await pipe.execute()
        await self._listing(task)  # listed before its creator hears of it
        await cluster_lobby.write_face(self, task)

    def room_closed(self, task: RoomTask) -> None:
        lease = self.leases.pop(task.id, None)
        if lease is not None:  # (a lease lost: the new owner keeps the presence and the remote players)
            for pid in task.members:
                self._left(task, pid)
            self.renewer.remove(lease)
            asyncio.get_running_loop().create_task(self._forget(lease, task.invite))

    async def _forget(self, lease: Lease, invite: str) -> None:
        room_id = lease.name.removeprefix(ROOM_LEASE)
        try:
            await self.redis.srem(ROOMS, room_id)
            await self.redis.srem(OWNED + self.id, room_id)
            await self.redis.hdel(LOBBY, room_id)
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
        self._ops.put_nowait(lambda: cluster_lobby.write_face(self, task))  # GET /api/invite on any node

    def _listing(self, task: RoomTask):
        if task.closed or task.summary is None:  # private rooms are not listed
            return self.redis.hdel(LOBBY, task.id)
        online = [p for p in task.members if p in self.app.conns or p in self.proxies]
        return self.redis.hset(LOBBY, task.id, pack({"summary": task.summary, "invite": task.invite,
                                                     "online": online}))

    async def rooms(self, conn, msg: dict, req: tuple) -> None:
        """``rooms``: the public rooms of every node (the shared lobby, server/cluster/lobby.py)."""
        found = await cluster_lobby.rooms(self.redis, msg.get("q"), msg.get("page"))
        self.app.reply(conn, req, {"t": "rooms", **found})

    def _left(self, task: RoomTask, pid: str) -> None:
        self._ops.put_nowait(lambda: self._forget_player(keys=[PLAYER + pid], args=[task.id]))
        proxy = self.proxies.get(pid)
        if proxy is not None:
            self.send(proxy.node, {"k": "left", "pid": pid, "room": task.id})
            if self.app.where.get(pid) in (None, task):  # in no other room here: the stand-in goes
                del self.proxies[pid]

    def forget_nodes(self, dead: list[str]) -> None:
        """The stand-ins of players whose node died go: their websockets went with it, and what their
        rooms send them is no longer written to a dead node's stream (they come back through another)."""
        if dead:
            gone = set(dead)
            for pid in [pid for pid, p in self.proxies.items() if p.node in gone]:
                del self.proxies[pid]

    def queue_write(self, op) -> None:
        """A Redis write (``op()`` returns its awaitable), done after the directory's writes queued before
        it, by one task: in order, and a failure is logged, not raised."""
        self._ops.put_nowait(op)

    async def _directory(self) -> None:
        while True:
            op = await self._ops.get()
            try:
                await op()
            except (OSError, RedisError, StorageError) as e:
                log.warning("cluster: a directory write failed (%s)", e)
            end_if_cancelled()

    async def player_room(self, pid: str) -> RemoteRoom | None:
        """At a sign-in: the room the player is in on another node, or None."""
        room_id = await self.redis.get(PLAYER + pid)
        if room_id is None:
            return None
        room_id = room_id.decode() if isinstance(room_id, bytes) else room_id
        owner = await holder(self.redis, ROOM_LEASE + room_id)
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
        owner = await holder(self.redis, ROOM_LEASE + room_id) if room_id else None
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
            self.awaiting(body, conn, req, on_ok, remote.id)
        for field in ("cmd", "page", "text"):
            if hasattr(item, field):
                body[field] = getattr(item, field)
        self.send(remote.owner, body)

    def awaiting(self, body: dict, conn, req: tuple, on_ok, target: str) -> None:
        """``body`` carries a request whose answer comes back from another node: a token for it, and the
        connection and request the answer is for, kept until it comes."""
        token = f"{self.id}.{next(self._tokens)}"
        self.pending[token] = (conn, req, on_ok, target)
        body["req"], body["enc"] = token, req[0]

    # -- the streams ---------------------------------------------------------------------------

    def send(self, node: str, body: dict) -> None:
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write(), name=f"cluster {self.id} writer")
            self.tasks.append(self._writer)
        self.outbox.put_nowait((node, pack(body)))

    async def _write(self) -> None:
        """The one writer to the other nodes' streams: what is queued, in order per node, every node's
        entries in one script call, on a connection of its own (server.cluster.link)."""
        q, link = self.outbox, Link(self.redis, CALL_TIMEOUT)
        try:
            await self._writing(q, link)
        finally:
            await link.close()

    async def _writing(self, q: asyncio.Queue, link: Link) -> None:
        """Writes go unanswered (CLIENT REPLY OFF): no wake-up, answer or parse per write. Every
        CONFIRM_EVERY writes, or CONFIRM_AFTER seconds after the oldest one unanswered, one question (the
        number of the last write landed, SENT) says which landed, asked by a task of its own: the writer
        writes on meanwhile (what was queued waited for the answer, milliseconds on a busy machine).
        Writes found missing are sent again, answered, with every write after them."""
        key, loop = SENT + self.id, asyncio.get_running_loop()
        number = await self._landed(link, key)  # (a node started again under its id wrote some)
        unsure: list[tuple] = []  # (number, keys, args, messages, when) of writes not known to have landed
        asking = None  # (the task asking, the number of the last write sent before its question)
        try:
            while True:
                if unsure and asking is None:
                    wait = unsure[0][4] + CONFIRM_AFTER - loop.time()
                    if len(unsure) >= CONFIRM_EVERY or wait <= 0:
                        asking = (loop.create_task(self._ask(q, link, key)), number)
                        continue
                    try:
                        async with asyncio.timeout(wait):
                            first = await q.get()
                    except TimeoutError:
                        continue
                else:
                    first = await q.get()
                batch = [first]
                while not q.empty():
                    batch.append(q.get_nowait())
                if ANSWERED in batch:  # (what was queued before the answer is written after it is taken)
                    batch = [m for m in batch if m is not ANSWERED]
                    q.task_done()
                    number, asking = await self._answered(q, link, key, unsure, asking, number)
                    if not batch:
                        continue
                keys, args = entries(batch)
                number += 1
                unsure.append((number, keys, args, len(batch), loop.time()))
                try:
                    if not link.connected:  # (Redis started again: its scripts are gone)
                        asking = await _given_up(asking)  # (one call at a time)
                        await link.call("SCRIPT", "LOAD", _XADD_ALL)
                    await link.send("EVALSHA", _XADD_ALL_SHA, len(keys) + 1, key, *keys, number, *args)
                    end_if_cancelled()
                except (OSError, RedisError) as e:
                    end_if_cancelled()
                    log.warning("cluster: writing to other nodes failed (%s); retrying", e)
                    asking = await _given_up(asking)
                    await asyncio.sleep(RETRY)
                    number = await self._confirm(q, link, key, unsure)
        finally:
            await _given_up(asking)

    async def _ask(self, q: asyncio.Queue, link: Link, key: str) -> int:
        """The writer's question, asked while it writes on (Redis answers it after all that was sent
        before it); the writer learns of the answer, or its failure, in its queue (ANSWERED)."""
        try:
            return int(await link.call("GET", key) or 0)
        finally:
            q.put_nowait(ANSWERED)

    async def _answered(self, q: asyncio.Queue, link: Link, key: str, unsure: list, asking, number: int):
        """The question's answer: the writes sent before it are done if they all landed, else (or if it
        failed) all not known to have landed are sent again. Returns the last write's number, the question."""
        if asking is None or not asking[0].done():  # (the answer of a question given up)
            return number, asking
        task, upto = asking
        try:
            landed = task.result()
        except (Exception, asyncio.CancelledError) as e:
            end_if_cancelled()
            log.warning("cluster: writing to other nodes failed (%s); retrying", e)
            await asyncio.sleep(RETRY)
            return await self._confirm(q, link, key, unsure), None
        if landed < upto:  # one was lost or refused: it and the writes after it are sent again
            return await self._confirm(q, link, key, unsure), None
        done = [w for w in unsure if w[0] <= upto]
        for _ in range(sum(w[3] for w in done)):
            q.task_done()
        del unsure[:len(done)]
        return number, None

    async def _landed(self, link: Link, key: str) -> int:
        """The number of this writer's last write landed (SENT), asked until Redis answers."""
        while True:
            try:
                got = await link.call("GET", key)
                end_if_cancelled()
                return int(got or 0)
            except (OSError, RedisError) as e:
                end_if_cancelled()
                log.warning("cluster: writing to other nodes failed (%s); retrying", e)
                await asyncio.sleep(RETRY)

    async def _confirm(self, q: asyncio.Queue, link: Link, key: str, unsure: list) -> int:
        """The writes sent unanswered: those up to the last landed are done; the rest (lost with a
        connection, or refused: nobody heard the error) are sent again in order, answered, numbered on
        from the last landed. Returns the number of the last write."""
        landed = await self._landed(link, key)  # answered after all that was sent before it
        for number, keys, args, count, _ in unsure:
            if number > landed:
                landed += 1
                await self._write_answered(link, key, landed, keys, args)
            for _ in range(count):
                q.task_done()
        unsure.clear()
        return landed

    async def _write_answered(self, link: Link, key: str, number: int, keys: list, args: list) -> None:
        while True:
            try:
                try:
                    await link.call("EVALSHA", _XADD_ALL_SHA, len(keys) + 1, key, *keys, number, *args)
                except NoScriptError:  # (Redis restarted): loaded, and the write tried again at once
                    await link.call("SCRIPT", "LOAD", _XADD_ALL)
                    await link.call("EVALSHA", _XADD_ALL_SHA, len(keys) + 1, key, *keys, number, *args)
                end_if_cancelled()
                return
            except (OSError, RedisError) as e:
                end_if_cancelled()
                log.warning("cluster: writing to other nodes failed (%s); retrying", e)
                await asyncio.sleep(RETRY)

    async def _read(self) -> None:
        """This node's stream, from its start (the node's id is new each run), entry by entry, on a
        connection of its own (server.cluster.link)."""
        link = Link(self.redis, READ_BLOCK / 1000 + CALL_TIMEOUT)
        try:
            await self._reading(link)
        finally:
            await link.close()

    async def _reading(self, link: Link) -> None:
        key, last = STREAM + self.id, "0-0"
        while True:
            try:
                got = await link.call("XREAD", "COUNT", READ_COUNT, "BLOCK", READ_BLOCK, "STREAMS", key, last)
                end_if_cancelled()
            except (OSError, RedisError) as e:
                end_if_cancelled()
                log.warning("cluster: reading %s failed (%s); resuming after %s", key, e, last)
                await asyncio.sleep(RETRY)
                continue
            handled = 0
            for entry_id, fields in stream_entries(got):
                last = entry_id
                try:
                    bodies = unpack_all(fields[b"m"])
                except Exception:
                    log.exception("cluster: an entry from another node could not be read")
                    continue
                self._handle_all(bodies)
                handled += len(bodies)
                if handled >= READ_COUNT:  # entries hold many messages: the loop's other work goes on
                    handled = 0
                    await asyncio.sleep(0)

    def _handle_all(self, bodies: list) -> None:
        """An entry's messages, in order. What they send to one connection leaves in one write (an
        action's answer and update, as the owner's room task corks them for a local player)."""
        corked: list = []
        self._corked = corked
        try:
            for body in bodies:
                try:
                    self._handle(body)
                except Exception:
                    log.exception("cluster: a message from another node failed")
        finally:
            self._corked = None
            for conn in corked:
                conn.uncork()

    def _cork(self, conn) -> None:
        if self._corked is not None and getattr(conn, "corked", False) is None and not conn.closed:
            conn.cork()
            self._corked.append(conn)

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
                self._cork(conn)
                self.app.reply(conn, req, body["msg"])
        elif kind == "deliver":
            self._cork(self.app.conns.get(body["pid"]))
            self.app.deliver(body["pid"], body["msg"])
        elif kind == "left":
            where = self.app.where.get(body["pid"])
            if isinstance(where, RemoteRoom) and where.id == body["room"]:
                del self.app.where[body["pid"]]
        elif kind == "moved":
            self.takeover.moved(body["room"], body["owner"])
        elif kind in self.handlers:
            self.handlers[kind](body)
        else:  # push, send: straight to the connection, as the owner's room task did
            conn = self.app.conns.get(body["pid"])
            if conn is None:
                return
            msg = body["msg"]
            if msg.get("t") == "snapshot" and conn.snapshot_due == msg.get("room"):
                conn.snapshot_due = None
            self._cork(conn)
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


async def _given_up(asking) -> None:
    """The writer's question, if one is asked, given up: ended, and its failure (if any) taken."""
    if asking:
        asking[0].cancel()
        await asyncio.gather(asking[0], return_exceptions=True)


def entries(batch: list[tuple[str, bytes]]) -> tuple[list[str], list]:
    """The streams and entries of a write: each node's messages in the order queued, up to ENTRY_MAX
    back to back in one entry (one XADD, one entry to parse on each side)."""
    per_node: dict[str, list[bytes]] = {}
    for node, data in batch:
        per_node.setdefault(node, []).append(data)
    keys, args = [], [STREAM_MAX]
    for node, msgs in per_node.items():
        for i in range(0, len(msgs), ENTRY_MAX):
            keys.append(STREAM + node)
            args.append(b"".join(msgs[i:i + ENTRY_MAX]))
    return keys, args
