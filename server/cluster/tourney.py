"""Tournaments across nodes (docs/cluster.md "Tournaments"): a tournament runs on the node holding its
lease, with its tables' rooms. A player whose websocket is on another node has their ``tournament`` and
``tournament_cmd`` frames sent to the owner's stream and answered back in order, like a room's commands
(server.cluster.node); on the owner such a player is a ``TournamentProxy`` where a connection would be,
so the tournament's pushes (deltas, notices, ``table``) go back to their node. The remote followers are
kept in Redis (``gb:tfollow:<code>``: player id -> node), so that a node taking the tournament over
goes on pushing to them. A tournament whose lease expired (its node died) is taken over by a running
node, its tables' rooms first, with the same claim-before-read and fencing as rooms'.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from server import codec
from server.cluster.cancel import every
from server.cluster.keys import NODE_LEASE, ROOM_LEASE, TOURNAMENT_LEASE, text
from server.cluster.lobby import TOURNAMENTS
from server.cluster.lease import PREFIX, holder
from server.cluster.remote import ProxyConn, RemoteReq, RemoteRoom
from server.errors import MOVED, NO_TOURNAMENT
from server.roomitems import Command, Follow, Leave, RoomRef, System, TableEvent, Unfollow
from server.roomtask import table_report

if TYPE_CHECKING:
    from server.cluster.node import ClusterNode

log = logging.getLogger("guobiao.cluster")

FOLLOWERS = "gb:tfollow:"  # + tournament code: hash player id -> the node of their websocket
LAST = "gb:tplayer:"  # + player id: the tournament they last sent a frame to from another node
LAST_KEPT = 7 * 86_400  # seconds that key outlives the last such frame
EVENT = "gb:event:"  # + a scheduled event's name and start: the node that makes that instance
EVENT_KEPT = 86_400  # seconds kept: far past its sign-up window, every node has seen it taken


class TournamentProxy(ProxyConn):
    """On a tournament's owner: a follower or player whose websocket is on another node."""

    def push_shared(self, shared: codec.Shared) -> None:
        self.push(shared.msg)

    def wants(self, msg: dict) -> bool:
        return True  # the real connection's node pushes it as it comes


class ClusterTournaments:
    def __init__(self, node: ClusterNode):
        self.node = node
        self.app = node.app
        self.redis = node.redis
        self.proxies: dict[str, TournamentProxy] = {}  # owner side: remote players of tournaments here
        self.remote: dict[str, tuple[str, str]] = {}  # player side: pid -> (owner, code) followed there
        self.arrived: dict[str, str] = {}  # player side: pid -> the tournament they follow, signed in here
        # since its owner was last seen to change: told ``Here`` again by ``tmoved`` (its owner may have died)
        self.lost: dict[str, tuple] = {}  # room id -> (tournament task, table key, commands held) of a
        # table here whose lease was lost while its tournament runs here: taken back by ``watch``
        node.handlers["titem"] = self._item
        node.handlers["ttable"] = self._table
        node.handlers["tmoved"] = self._moved

    def start(self) -> None:
        self.node.tasks.append(asyncio.get_running_loop().create_task(self.watch(), name=f"cluster {self.node.id} tournaments"))

    # -- the player's node -----------------------------------------------------------------------

    async def owner(self, code) -> str | None:
        """The node owning tournament ``code`` when it is not this one, else None."""
        if not isinstance(code, str):
            return None
        held = await holder(self.redis, TOURNAMENT_LEASE + code)
        return None if held is None or held[0] == self.node.id else held[0]

    async def follow(self, conn, msg: dict, req: tuple) -> None:
        """``tournament`` of one not on this node: its owner answers (and pushes the deltas), or its
        final view when it is over (read back here)."""
        code = msg.get("tournament")
        owner = await self.owner(code)
        if owner is None and isinstance(code, str) and await self.redis.hexists(TOURNAMENTS, code):
            self._park(conn, req, code)  # listed, its lease expired: its node died, a takeover is coming
            return
        if owner is None:
            await self.app.closed_tournament(conn, req, code)
            return
        self._following(conn.player, owner, code)
        self._send(owner, "Follow", conn, req, code)

    def _park(self, conn, req: tuple, code: str) -> None:
        """A view asked of a tournament being taken over: asked of the new owner when it says so
        (``tmoved``), or answered lobby/no_tournament if none has after 4 ttls."""
        body: dict = {}
        self.node.awaiting(body, conn, req, None, "tfollow:" + code)
        token = body["req"]

        def unparked() -> None:
            if self.node.pending.pop(token, None) is not None:
                self.app.reply(conn, req, codec.error(NO_TOURNAMENT, "no such tournament"))

        asyncio.get_running_loop().call_later(4 * self.node.ttl, unparked)

    async def command(self, conn, msg: dict, req: tuple) -> None:
        """``tournament_cmd`` for one not on this node: to its owner, answered in order."""
        code = msg.get("tournament")
        owner = await self.owner(code)
        if owner is None:
            raise codec.ProtocolError(NO_TOURNAMENT, "no such tournament")
        self._following(conn.player, owner, code)  # a command makes one follow it (docs/protocol.md)
        self._send(owner, "Command", conn, req, code, msg["cmd"])

    def _send(self, owner: str, kind: str, conn, req: tuple | None, code: str, cmd=None) -> None:
        node = self.node
        body = {"k": "titem", "from": node.id, "tournament": code, "type": kind, "pid": conn.player,
                "name": conn.name, "enc": conn.encoding}
        if req is not None:  # (a view asked for is asked again of a new owner: ``_moved``)
            node.awaiting(body, conn, req, None, ("tfollow:" if kind == "Follow" else "tournament:") + code)
        if cmd is not None:
            body["cmd"] = cmd
        node.send(owner, body)

    def _following(self, pid: str, owner: str, code: str) -> None:
        """``pid`` follows ``code`` on ``owner`` now: the one followed before (here or there) stops."""
        old = self.app.following.pop(pid, None)
        if old is not None:
            old.put(Unfollow(pid))
            self.node.queue_write(lambda: self.redis.hdel(FOLLOWERS + old.id, pid))  # not followed if it moves
        self.unfollow_remote(pid, keep=code)
        self.remote[pid] = (owner, code)

    def unfollow_remote(self, pid: str, keep: str | None = None) -> None:
        """A player here follows another tournament: the one on another node stops sending to them."""
        old = self.remote.pop(pid, None)
        if old is not None and old[1] != keep and old[0]:
            body = {"k": "titem", "from": self.node.id, "tournament": old[1], "type": "Unfollow", "pid": pid}
            self.node.send(old[0], body)

    def disconnected(self, pid: str) -> None:
        """A player's websocket here closed: the owner of the tournament they follow from here drops its
        stand-in for them (they stay a follower there: signing in again on any node, they are ``Here``)."""
        old = self.remote.pop(pid, None)
        self.arrived.pop(pid, None)
        if old is not None and old[0]:
            self.node.send(old[0], {"k": "titem", "from": self.node.id, "tournament": old[1], "type": "Gone",
                                    "pid": pid})

    def followed_here(self, pid: str, task, old) -> None:
        """``pid`` follows ``task``, run here, now (``App.followed``): one followed on another node stops
        sending to them; one whose websocket is here is recorded as the remote followers are, so that a
        node taking the tournament over after this one died knows them (they follow again as they sign
        in on any node: ``signed_in``)."""
        self.unfollow_remote(pid)
        if old is not None and old is not task:
            self.node.queue_write(lambda: self.redis.hdel(FOLLOWERS + old.id, pid))
        if pid in self.app.conns:
            code, me = task.id, self.node.id
            self.node.queue_write(lambda: self.redis.hset(FOLLOWERS + code, pid, me))
            self.node.queue_write(lambda: self.redis.set(LAST + pid, code, ex=LAST_KEPT))

    async def signed_in(self, pid: str, conn) -> None:
        """A player signing in here: the owner of the tournament they last followed or used sends its
        pushes and their next ``table`` here from now on, and a whole view first if they follow it (no
        delta missed meanwhile is then a gap). Its owner may have died with their old websocket: the
        node taking it over tells this one (``tmoved``), which tells it they are here. (``conn``, their
        new websocket, is registered right after, before anything can come back.)"""
        try:
            code = text(await self.redis.get(LAST + pid))
            held = await holder(self.redis, TOURNAMENT_LEASE + code) if code else None
        except (OSError, RedisError) as e:
            log.warning("cluster: a tournament player's node not told (%s)", e)
            return
        if not code:
            return
        task = self.app.tournaments.get(code)
        if held is not None and held[0] == self.node.id:
            if task is not None and pid in task.followers:
                task.put(Follow(pid, conn, (conn.encoding, None)))  # a whole view, then the deltas
            return
        self.arrived[pid] = code
        self.remote[pid] = (held[0] if held is not None else "", code)
        if held is not None:
            self._here(held[0], pid, code, conn)

    def _here(self, owner: str, pid: str, code: str, conn=None) -> None:
        body = {"k": "titem", "from": self.node.id, "tournament": code, "type": "Here", "pid": pid}
        conn = conn or self.app.conns.get(pid)
        if conn is not None:  # what it is sent comes in its encoding
            body["enc"] = conn.encoding
        self.node.send(owner, body)

    def _table(self, body: dict) -> None:
        """The owner seated a player of this node at a table: told, then joined to its room there."""
        pid, room = body["pid"], body["room"]
        conn = self.app.conns.get(pid)
        if conn is None:
            return
        conn.push(body["msg"])
        old = self.app.where.get(pid)
        if isinstance(old, RoomRef) and getattr(old, "id", None) != room:
            old.put(Leave(pid))  # a tournament table comes first (as in one process)
        remote = self.app.where[pid] = RemoteRoom(self.node, body["owner"], room)
        remote.reconnect(pid, conn)  # the owner sends the snapshot

    def _moved(self, body: dict) -> None:
        """A tournament moved to another node (or to this one): a view asked of the old owner is asked of
        the new one; a command sent there is answered server/moved (the old owner may have done it or
        not: the view shows); the players who signed in here meanwhile are said to be here."""
        code, owner = body["tournament"], body["owner"]
        node = self.node
        task = self.app.tournaments.get(code) if owner == node.id else None
        for pid, (_, c) in list(self.remote.items()):
            if c == code:
                if task is None:
                    self.remote[pid] = (owner, code)
                else:
                    del self.remote[pid]  # it runs here now
        for pid in [p for p, c in self.arrived.items() if c == code]:
            del self.arrived[pid]
            if task is None and pid in self.app.conns:
                self._here(owner, pid, code)
        for token, (conn, req, _, what) in list(node.pending.items()):
            if what == "tfollow:" + code:
                del node.pending[token]
                if task is not None:
                    self.app.follow(conn.player, task, conn, req)
                else:
                    self._following(conn.player, owner, code)
                    self._send(owner, "Follow", conn, req, code)
            elif what == "tournament:" + code:
                del node.pending[token]
                self.app.reply(conn, req, codec.error(MOVED, "the tournament moved to another server: ask for its view again"))

    async def make_event(self, name: str, starts: float) -> bool:
        """Whether this node makes the instance of a scheduled event starting at ``starts``: the first
        node to ask (each node runs the timetable, and one instance is wanted for the whole cluster).
        Redis unreachable: not now (the loop asks again at the next opening)."""
        try:
            return bool(await self.redis.set(f"{EVENT}{name}:{starts:.0f}", self.node.id, nx=True, ex=EVENT_KEPT))
        except (OSError, RedisError) as e:
            log.warning("cluster: a scheduled event not made (%s)", e)
            return False

    # -- the owner -------------------------------------------------------------------------------

    def _proxy(self, pid: str, origin: str, name, enc) -> TournamentProxy:
        proxy = self.proxies.get(pid)
        if proxy is None or proxy.node != origin:
            proxy = self.proxies[pid] = TournamentProxy(self.node, origin, pid, name, enc or "json")
        if name:
            proxy.name = name
        if enc:
            proxy.encoding = enc
        return proxy

    def _item(self, body: dict) -> None:
        """A remote player's frame for a tournament here: to its task, as their own connection would."""
        pid, origin, code, kind = body["pid"], body["from"], body["tournament"], body["type"]
        if kind == "Gone":  # their websocket closed (if it is still the one there): no stand-in kept
            if getattr(self.proxies.get(pid), "node", None) == origin:
                del self.proxies[pid]
            return
        task = self.app.tournaments.get(code)
        here = task is not None and code in self.node.takeover.tournaments
        if kind == "Unfollow":  # (no stand-in made for it)
            if here:
                task.put(Unfollow(pid))
                self.node.queue_write(lambda: self.redis.hdel(FOLLOWERS + code, pid))
            return
        proxy = self._proxy(pid, origin, body.get("name"), body.get("enc"))
        req = (body.get("enc"), RemoteReq(body["req"])) if "req" in body else None
        if not here:
            if req is not None:
                self.app.reply(proxy, req, codec.error(NO_TOURNAMENT, "no such tournament"))
            return
        self.node.queue_write(lambda: self.redis.hset(FOLLOWERS + code, pid, origin))
        self.node.queue_write(lambda: self.redis.set(LAST + pid, code, ex=LAST_KEPT))
        if kind == "Here":  # the player's websocket moved to ``origin``: the stand-in points there now
            if pid in task.followers:  # and they get a whole view (they missed the deltas meanwhile)
                task.put(Follow(pid, proxy, (proxy.encoding, None)))
            return
        if kind == "Follow":
            self.app.follow(pid, task, proxy, req)
        else:
            task.put(Command(pid, proxy, req, body["cmd"]))

    def gone(self, task) -> None:
        """A tournament over and out of the lists: its followers' hash goes (not when it only moved)."""
        if task.t.over:
            self.node.queue_write(lambda: self.redis.delete(FOLLOWERS + task.id))

    def conn(self, pid: str):
        """A remote follower's stand-in (``TournamentTask`` pushes to it as to a connection), or None."""
        return self.proxies.get(pid)

    def seat(self, room_task, tournament: str, table: str, pid: str) -> None:
        """``table`` for a player of a remote node, who joins the table's room (owned here) from there."""
        proxy = self.proxies.get(pid)
        if proxy is None:
            return
        msg = {"t": "table", "tournament": tournament, "table": table, "room": room_task.id}
        self.node.send(proxy.node, {"k": "ttable", "pid": pid, "msg": msg, "room": room_task.id,
                                    "owner": self.node.id})

    async def restored(self, task) -> None:
        """A tournament taken over, before its task runs: its followers on other nodes (Redis) follow it
        here and get a whole view (the deltas they missed are in it), and every node is told."""
        try:
            followers = {text(k): text(v) for k, v in (await self.redis.hgetall(FOLLOWERS + task.id)).items()}
            origins = sorted(set(followers.values()) - {self.node.id})
            pipe = self.redis.pipeline(transaction=False)
            for n in origins:
                pipe.exists(PREFIX + NODE_LEASE + n)
            alive = {n for n, a in zip(origins, await pipe.execute() if origins else []) if a}
        except (OSError, RedisError):
            return
        for pid, origin in followers.items():
            task.followers.add(pid)  # (those whose node died follow again as they sign in: ``signed_in``)
            conn = self.app.conns.get(pid)
            if conn is None and origin in alive:
                conn = self._proxy(pid, origin, None, None)
            if conn is None:
                continue
            self.app.followed(pid, task)
            await task.learn_names(strict=False)  # a view shows the names it knows
            conn.push({"t": "tournament", "tournament": task.view(pid)})
        nodes = [text(n) for n in await self.redis.smembers("gb:nodes")]
        for n in nodes:
            if n != self.node.id:
                self.node.send(n, {"k": "tmoved", "tournament": task.id, "owner": self.node.id})
        self._moved({"tournament": task.id, "owner": self.node.id})  # what waits here for the old owner

    # -- taking tournaments over -----------------------------------------------------------------

    async def watch(self) -> None:
        """Every quarter ttl: open tournaments whose lease expired (their node died) are taken over."""
        await every(self.node.ttl / 4, self.take_over, "looking for tournaments to take over")

    async def take_over(self) -> list[str]:
        """The open tournaments nobody holds the lease of, restored here with their tables' rooms (and
        the tables of tournaments here that lost their own lease)."""
        if self.app.stopping:
            return []
        await self.prune()
        await self.retake_tables()
        rows = [r for r in await self.app.store.open_tournament_codes() if r["code"] not in self.app.tournaments]
        pipe = self.redis.pipeline(transaction=False)
        for r in rows:
            pipe.exists(PREFIX + TOURNAMENT_LEASE + r["code"])
        held = await pipe.execute() if rows else []
        taken = []
        for r, h in zip(rows, held):
            if not h and not self.app.stopping and await self.take(r):
                taken.append(r["code"])
        return taken

    async def take(self, r: dict) -> bool:
        """One tournament: its lease and fencing token, then its log; its tables' rooms restored here
        (claimed, then read) before it, so that their results reach it."""
        takeover = self.node.takeover
        if not await takeover.claim_tournament(r["code"], r["id"]):
            return False
        row = await self.app.store.open_tournament(r)
        task = await self.app.restore_tournament(row)  # its tables first (``tables``)
        if task is None:  # not restorable (logged): given back
            lease = takeover.tournaments.pop(r["code"])
            self.node.renewer.remove(lease)
            try:
                await lease.release()
            except (OSError, RedisError):
                pass  # it expires
            return False
        log.warning("cluster: took tournament %s over", task.id)
        return True

    async def prune(self) -> None:
        """The stand-ins of players whose node died go (their websockets went with it): what the
        tournaments here push is no longer written to a dead node's stream."""
        nodes = list({p.node for p in self.proxies.values()})
        pipe = self.redis.pipeline(transaction=False)
        for n in nodes:
            pipe.exists(PREFIX + NODE_LEASE + n)
        alive = await pipe.execute() if nodes else []
        dead = {n for n, a in zip(nodes, alive) if not a}
        for pid in [pid for pid, p in self.proxies.items() if p.node in dead]:
            del self.proxies[pid]

    # -- a table whose own lease was lost ---------------------------------------------------------

    def table_lost(self, room_task) -> None:
        """A table's room stopped here on a lost lease (a pause past its ttl) while its tournament runs
        here: the next round of ``watch`` takes it back (no other node takes a table alone)."""
        tournament, key = room_task.tournament
        if self.app.tournaments.get(tournament.id) is tournament:
            self.lost[room_task.id] = (tournament, key, [])

    def held(self, tournament, table: str, cmd: dict) -> bool:
        """A tournament's command for a table it has no room for: kept for the room if it was lost
        (``retake_tables`` gives it), True; else False."""
        room = tournament.tables.get(table)
        lost = self.lost.get(room) if room is not None else None
        if lost is None or lost[0] is not tournament:
            return False
        lost[2].append(cmd)
        return True

    async def retake_tables(self) -> list[str]:
        """The lost tables of tournaments still here, claimed and restored (``Takeover.restore``: their
        members get a snapshot), linked to their tournament again, which is fed what they logged and
        the commands it sent them meanwhile; their ids."""
        for room, (tournament, _, _) in list(self.lost.items()):
            if self.app.tournaments.get(tournament.id) is not tournament or tournament.id not in self.node.takeover.tournaments:
                del self.lost[room]  # the tournament went (or moves): its tables go with it
        if not self.lost:
            return []
        todo = list(self.lost)
        back = await self.node.takeover.restore(todo)
        for room in back:
            tournament, key, cmds = self.lost.pop(room)
            task = self.app.rooms[room]
            task.tournament = (tournament, key)
            for entry in await self.app.store.room_log(room):  # what it reported before the restore
                event = table_report(entry)
                if event is not None:  # (Tournament.table_event ignores what it has already recorded)
                    tournament.put(TableEvent(key, event))
            for cmd in cmds:
                task.put(System(cmd))
            log.warning("cluster: took table %s of tournament %s back", room, tournament.id)
        rest = [room for room in todo if room in self.lost]
        pipe = self.redis.pipeline(transaction=False)
        for room in rest:
            pipe.exists(PREFIX + ROOM_LEASE + room)
        held = await pipe.execute() if rest else []
        for room, h in zip(rest, held):
            if not h:  # not held and not restored: closed meanwhile (or not restorable: logged)
                del self.lost[room]
        return back

    async def tables(self, rooms: list[str]) -> None:
        """A tournament's open tables restored here. The dead node's leases expire one by one: a table
        whose lease is still held is tried again, for up to 2 ttls (closed tables hold none)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + 2 * self.node.ttl
        todo = [room for room in rooms if room not in self.app.rooms]
        while todo and not self.app.stopping:
            await self.node.takeover.restore(todo)
            pipe = self.redis.pipeline(transaction=False)
            for room in todo:
                pipe.exists(PREFIX + ROOM_LEASE + room)
            held = await pipe.execute()
            todo = [room for room, h in zip(todo, held) if h and room not in self.app.rooms]
            if todo and loop.time() >= end:
                log.warning("cluster: tables %s of a tournament taken over are held elsewhere", todo)
                return
            if todo:
                await asyncio.sleep(self.node.ttl / 4)


async def table_codes(store) -> set[str]:
    """The rooms of the open tournaments' tables: a starting node restores them only with their
    tournament (``Events.restore_tournament``), so that both run on one node."""
    rows = await store.fetchall("SELECT tt.room FROM tournament_tables tt JOIN tournaments t"
                                " ON t.id = tt.tournament_id WHERE t.closed_at IS NULL")
    return {r["room"] for r in rows}
