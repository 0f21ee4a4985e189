"""Tournaments in the lobby: made on request (``tournament_create``) or on a timetable (scheduled
events, rooms.tournament.series), and their tables' rooms. Each tournament has its task
(server.tournaments). A mixin of ``server.app.App``.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import replace

from rooms.config import RoomConfig
from rooms.room import Room
from rooms.tournament.config import TournamentConfig
from rooms.tournament.series import Series
from rooms.tournament.tournament import Tournament
from server.cluster import lobby as cluster_lobby
from server.codec import BAD_FIELD, ProtocolError
from server.conn import Conn
from server.errors import NO_TOURNAMENT
from server.quotas import conn_address, refuse
from server.roomitems import Follow, Leave, QuickCancel, RoomRef, Unfollow
from server.roomtask import RoomTask
from server.tournaments import TournamentTask

log = logging.getLogger("guobiao.server")

SERVER = "server"  # the organiser and referee of the scheduled events the server runs itself


class Events:
    """Mixin of ``server.app.App``: tournaments and scheduled events."""

    async def create_tournament(self, conn: Conn, msg: dict, req: tuple) -> None:
        pid = conn.player
        cfg = msg.get("config")
        if not isinstance(cfg, dict):
            raise ProtocolError(BAD_FIELD, "config: a map of tournament settings")
        cfg = dict(cfg)
        referee = cfg.pop("referee", pid)
        if not isinstance(referee, str) or not referee or len(referee) > 64:
            raise ProtocolError(BAD_FIELD, "config.referee: a player id")
        if "starts" in cfg and isinstance(cfg["starts"], list):
            cfg["starts"] = tuple(cfg["starts"])
        config = TournamentConfig.from_dict(cfg)  # TournamentError tournament/bad_config
        mine = sum(1 for x in self.tournaments.values() if x.t.organiser == pid and not x.t.over)
        if mine >= self.settings.max_organised:
            refuse("organised", self.settings.quotas, mine)
        not_over = [x.id for x in self.tournaments.values() if not x.t.over]  # server.quotas; a cluster's in Redis
        held = await self.book.tournament_create(conn_address(conn), not_over, pid, self.settings.max_organised)
        t = Tournament.create("t" + secrets.token_hex(4), config, pid, referee, secrets.token_bytes(32), self.now())
        task = await self.add_tournament(t, pid)
        self.book.tournament_opened(task.id, conn_address(conn), held)
        self.follow(pid, task, conn, req)

    async def add_tournament(self, t: Tournament, created_by: str | None) -> TournamentTask:
        entries = t.take_log()
        db_id = await self.store.add_tournament(t.id, created_by, entries)
        task = TournamentTask(self, db_id, t, len(entries), {})
        self.tournaments[task.id] = task
        if self.cluster is not None:  # its lease, and its fencing token on its log's writes
            await self.cluster.takeover.tournament_opened(task)
        task.start()
        return task

    async def restore_tournament(self, r: dict) -> TournamentTask | None:
        """A tournament rebuilt from its log (a row of ``Store.open_tournament``), linked to its tables'
        rooms restored here, registered and started; None if it cannot be (logged, left as it is)."""
        try:
            t = Tournament.replay(r["log"])
        except Exception:
            log.exception("tournament %s could not be restored; left as it is", r["code"])
            return None
        if self.cluster is not None:  # its tables' rooms, claimed and restored here first
            await self.cluster.tourneys.tables(list(r["tables"].values()))
        task = TournamentTask(self, r["id"], t, len(r["log"]), r["tables"])
        for key, code in r["tables"].items():
            room = self.rooms.get(code)
            if room is not None:
                room.tournament = (task, key)
        self.tournaments[task.id] = task
        if self.cluster is not None:
            await self.cluster.takeover.tournament_opened(task)
            await self.cluster.tourneys.restored(task)  # its followers on other nodes, before its task runs
        task.start()
        await task.catch_up()
        log.info("restored tournament %s", task.id)
        return task

    def tournament_gone(self, task: TournamentTask) -> None:
        if self.cluster is not None:
            self.cluster.takeover.tournament_gone(task)  # its lease given up
            cluster_lobby.tournament_unlisted(self.cluster, task)  # out of every node's list
            self.cluster.tourneys.gone(task)  # its followers on other nodes, once it is over
        if self.tournaments.get(task.id) is task:
            del self.tournaments[task.id]
            self.book.tournament_closed(task.id)
        for pid, t in list(self.following.items()):
            if t is task:
                del self.following[pid]
        self.answer_lost(task.queue, NO_TOURNAMENT, "the tournament is no longer kept")

    def make_table(self, e) -> Room:
        """The room of a tournament's table (rooms.room, table mode), in memory only: the tournament
        writes it with its own log entries (``TournamentTask.commit``), then ``open_table``."""
        config = RoomConfig.from_dict({**e.config, **self.settings.table_config, "table": True, "private": True})
        room_id, invite, secret = self._room_keys()
        secret = e.secret or secret  # a duplicate session's tables share one secret: the same walls
        return Room.create_table(room_id, config, list(e.players), invite, secret, self.now(), bot_policies=self.bots)

    async def open_table(self, tournament: TournamentTask, e, room: Room, db_id: int) -> RoomTask:
        """A table's room, written (``make_table``), registered; its players are seated but not yet
        connected (``seat_table`` does that)."""
        task = RoomTask(self, db_id, room)
        task.tournament = (tournament, e.table)
        await task.commit([])
        for pid in e.players:
            old = self.where.get(pid) if pid is not None else None
            if isinstance(old, RoomRef) and old is not task:
                old.put(Leave(pid))  # a tournament table comes first: the old room sees them leave
            if pid is not None and self.quick.queued(pid):
                self.quick_queue.put_nowait(QuickCancel(pid))
        self._register(task)
        if self.cluster is not None:  # its lease and invite code: players on any node join it
            await self.cluster.room_opened(task)
        return task

    def seat_table(self, task: RoomTask, e) -> None:
        """Tell the table's players where they play; those online join it at once (a snapshot)."""
        tournament = task.tournament[0]
        for pid in e.players:
            conn = self.conns.get(pid) if pid is not None else None
            if conn is None:
                if pid is not None and self.cluster is not None:  # maybe online on another node
                    self.cluster.tourneys.seat(task, tournament.id, e.table, pid)
                continue
            conn.push({"t": "table", "tournament": tournament.id, "table": e.table, "room": task.id})
            task.reconnect(pid, conn)

    async def series_loop(self) -> None:
        """Create each scheduled event's next instance when its sign-up opens (settings.series)."""
        series = []
        for d in self.settings.series:
            d = dict(d)
            template = TournamentConfig(name=d.pop("name"), type=d.pop("type", "guobiao"))
            # On the clock's round multiples of ``every``, so a restart keeps the same timetable.
            series.append(Series(template, first_at=d.pop("first_at", 0.0), **d))
        while True:
            now = self.now()
            for s in series:
                inst = s.open_at(now)
                if inst is None or self._event_made(s, inst.starts):
                    continue
                if self.cluster is not None and not await self.cluster.tourneys.make_event(s.template.name, inst.starts):
                    continue  # another node makes this one
                # One name for every instance: the start time tells them apart (clients show it locally).
                config = replace(s.config(inst.index), name=s.template.name)
                try:
                    t = Tournament.create("t" + secrets.token_hex(4), config, SERVER, SERVER,
                                          secrets.token_bytes(32), now)
                    await self.add_tournament(t, None)
                    log.info("scheduled event %s opens, starting at %d", t.id, inst.starts)
                except Exception:
                    log.exception("scheduled event %r", s.template.name)
            wake = min((s.next_opening(now).opens for s in series), default=now + 600)
            await asyncio.sleep(max(1.0, wake - self.now()))

    def _event_made(self, s: Series, starts: float) -> bool:
        return any(x.t.organiser == SERVER and x.t.config.name == s.template.name and x.t.config.starts == (starts,)
                   for x in self.tournaments.values())

    def find_tournament(self, msg: dict) -> TournamentTask:
        """The live tournament a command names, or lobby/no_tournament."""
        tid = msg.get("tournament")
        task = self.tournaments.get(tid) if isinstance(tid, str) else None
        if task is None:
            raise ProtocolError(NO_TOURNAMENT, "no such tournament")
        return task

    def follow(self, pid: str, task: TournamentTask, conn: Conn, req: tuple) -> None:
        task.put(Follow(pid, conn, req))  # followed once its view is made (``TournamentTask.step``)

    def followed(self, pid: str, task: TournamentTask) -> None:
        """``pid`` gets ``task``'s deltas now (a ``tournament`` or a command to it): one tournament
        at a time, so the one followed before stops sending them."""
        old = self.following.get(pid)
        if old is not None and old is not task:
            old.put(Unfollow(pid))
        self.following[pid] = task
        if self.cluster is not None:  # one followed on another node stops; a local follower recorded in Redis
            self.cluster.tourneys.followed_here(pid, task, old)

    async def closed_tournament(self, conn: Conn, req: tuple, code) -> None:
        """``tournament`` for one that is no longer in memory: its final view, once (nothing to follow)."""
        view = await self.closed_tournament_view(code)
        if view is None:
            raise ProtocolError(NO_TOURNAMENT, "no such tournament")
        self.reply(conn, req, {"t": "tournament", "tournament": view})
