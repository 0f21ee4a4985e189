"""One asyncio task and one queue per room: the task is the room's only caller (DESIGN.md).

Every call's new log entries are written to SQLite before any of its messages is sent. The task sleeps
until ``room.next_deadline()`` and then calls ``room.tick(now)``; ``now`` is the server's clock.

A play (an ``act`` whose entries are plays only: no seat, phase or match changes) that comes while the
task waits on an empty queue is handled at once by ``put`` instead (``play_now``): the room is called
there, its entries go into the store's next group commit, and its messages are sent when that commit
lands (``Store.append``). Nothing else can call the room meanwhile (one thread, no await in between), so
the room still has one caller at a time; a play that turns out to need more (a match ending, a seat
changing) is finished by the task, before any item queued after it. Until such a play's commit lands,
the task takes no item (``_settle``): a snapshot asked for meanwhile would show a move not yet durable.

While the store holds writes back (disk full, the database file removed: ``Store.fault``) the room
pauses: every member hears ``server/storage``, commands are refused with it, and the writes already
made are retried until they land; then every member gets a snapshot and play goes on.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import asdict
from typing import TYPE_CHECKING

from rooms.config import RoomConfig
from rooms.errors import RoomError
from rooms.room import PLAYING, Room
from rooms.text import disambiguate
from server import codec, fair
from server.errors import INTERNAL, NOT_IN_ROOM
from server.botzone_room import BotAnswer, RoomBots
from server.taskfail import Failures, moved, reply_moved
from server.roombatch import Batch, seats_unchanged
from server.roomitems import (RESYNC, STOP, TICK, ChatAsked, Command, Connect, Disconnect, Handled,
                              HistoryAsked, Leave, Resync, RoomRef, SnapshotAsked, Stop, System, Tick, WatcherGone)
from server.timedqueue import TimedQueue
from server.store import STORAGE, StorageError
from server.store_sql import Fenced

if TYPE_CHECKING:  # pragma: no cover
    from server.outbox import RoomOutbox
    from server.conn import Conn

log = logging.getLogger("guobiao.room")


CHAT_MAX = 200  # characters
HISTORY_PAGE = 10  # finished matches per ``history`` page


# The derived entries of a table's room log that its tournament is told about.
REPORTED = ("hand_result", "match_result", "offence")


def table_report(entry: dict) -> dict | None:
    """The event a tournament gets for a room log entry, or None if it is not one it is told about."""
    if not entry.get("derived") or entry["k"] not in REPORTED:
        return None
    if entry["k"] == "offence":
        return {"t": "offence", **{k: v for k, v in entry.items() if k not in ("k", "derived", "rseq", "now")}}
    return {"t": entry["k"], "record": entry["record"]}


class RoomTask(RoomRef):
    names_missing = False  # a read of the names failed (``_learn_names``): tried again before a snapshot
    def __init__(self, app: RoomOutbox, db_id: int, room: Room, matches: dict[int, dict] | None = None):
        """``room`` as the database holds it, plus the rows it has logged and not yet handed over
        (``Room.take_log``); ``matches``: the stored matches' ``Store.room_matches``."""
        self.app = app
        self.db_id = db_id
        self.room = room  # the one owner of the log's numbering, the members and the matches' seeds
        self.id = room.id
        self.invite = room.invite
        self.queue = TimedQueue(TICK)  # its Tick comes at the room's next deadline
        # number -> id, salt, commitment: the server's side of each match (the seed is the room's)
        self.matches: dict[int, dict] = {k: {x: v for x, v in m.items() if x != "seed"}
                                         for k, m in (matches or {}).items()}
        self.match_no = max(self.matches, default=0)  # the last match whose commitment is recorded
        self._listed: set[str] = self.members  # the members App.where knows of (its next delta's base)
        self.names: dict[str, str] = {}  # player id -> display name, for the clients (rooms know ids only)
        self.summary: dict | None = None
        self.task: asyncio.Task | None = None
        self.closed = False
        self.tournament = None  # (TournamentTask, table key) when the room is a tournament's table
        self.failures = Failures(log, "room", "room", self.id)
        self._inflight = 0  # plays handled at once (play_now) whose commit has not landed yet
        self._landed: asyncio.Future | None = None  # resolved when _inflight comes back to 0
        self._steps = {Tick: self._tick, Connect: self._connect, Disconnect: self._disconnect,
                       WatcherGone: self._watcher_left, SnapshotAsked: self._snapshot, Resync: self._resync,
                       HistoryAsked: self._history, ChatAsked: self._chat, Leave: self._leave,
                       System: self._system, Command: self._command, Handled: self._handled,
                       BotAnswer: self._bot_answer}
        self.bots: RoomBots | None = None  # the room's external bots (docs/bots.md), once one is seated
        self.paused_at: float | None = None  # when a storage fault paused it: its clocks stand still
        self._summarize()

    @property
    def members(self) -> set[str]:
        """Who the room is for (``Room.member_ids``: the room owns membership)."""
        return self.room.member_ids()

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self.run(), name=f"room {self.id}")
        self._sync_bots()  # a restored match's bots start from its history at once
        for pid in self.room.spectator_ids():  # restored: everybody is disconnected
            self._watcher_gone(pid)

    def _watcher_gone(self, pid: str) -> None:
        """A spectator who disconnected leaves after the grace, unless back by then (ghost watchers
        would get every message to the table for ever)."""
        grace = self.app.spectator_grace
        asyncio.get_running_loop().call_later(grace, self.put, WatcherGone(pid, grace))

    def put(self, item) -> None:
        """Queue an item (server.roomitems) for the task; a play may be handled at once (``play_now``)."""
        if type(item) is Command:  # first: every action is one
            q = self.queue
            if not self._refused(item):
                (self.play_now if q.waiting and item.cmd["t"] == "act" and not self.closed and q.empty()
                 else q.put_nowait)(item)
            return
        if isinstance(item, Stop) and self.app.store.fault is not None and self.task is not None:
            self.task.cancel()  # its writes may never land: it stops where it waits (the store drops them)
            return
        if not (isinstance(item, SnapshotAsked) and self.app.store.fault is not None and self._refused(item)):
            self.queue.put_nowait(item)

    def _refused(self, item) -> bool:
        """The store holds writes back: a command (or a snapshot) would wait behind them; answered here."""
        try:
            self.app.store.check_writable()
        except StorageError as e:
            self.app.reply(item.conn, item.req, codec.error(e.code, e.message))
            return True
        return False

    def reconnect(self, pid: str, conn: Conn) -> None:
        """A member signed in again: its snapshot goes out before any other message about the room."""
        conn.snapshot_due = self.id
        self.put(Connect(pid, conn))

    def play_now(self, item: Command) -> None:
        """A player's action, handled without the task (see the module's docstring)."""
        pid, conn, req, cmd = item.pid, item.conn, item.req, item.cmd
        room, now = self.room, self.app.now()
        applied = self._handle(pid, conn, req, cmd, now)
        if applied is None:
            return
        if not (seats_unchanged(room.pending_log()) and room.match_no == self.match_no):
            self.queue.put_nowait(Handled(pid, conn, req, cmd, applied))  # the task commits it, first
            return
        batch = self._take(applied)  # hand results only: no match starts or ends here, no notices
        self._inflight += 1
        self.app.store.append(self.db_id, batch.start, batch.entries, batch.effects,
                              lambda error: self._played(error, conn, req, batch))
        self.queue.arm(room.next_deadline(), now)  # the task waits on: its timer may move

    def _handle(self, pid: str, conn: Conn, req, cmd: dict, now: float) -> list | None:
        """``room.handle`` (what it did, not yet rendered); None when it refused the command (the error
        is answered here)."""
        try:
            return self.room.handle(pid, cmd, now)
        except RoomError as e:
            self.app.reply(conn, req, codec.error(e.code, e.message))
        except Exception:
            log.exception("room %s: command %r from %s", self.id, cmd, pid)
            self.app.reply(conn, req, codec.error(INTERNAL, "internal error"))
        return None

    def _played(self, error: BaseException | None, conn: Conn, req, batch: Batch) -> None:
        """``play_now``'s entries are committed (or failed): report them, send the messages and the ok."""
        self._inflight -= 1
        if self._inflight == 0 and self._landed is not None:
            self._landed.set_result(None)
            self._landed = None
        if error is not None:
            if not self.closed:
                log.error("room %s stopped: its log could not be written", self.id, exc_info=error)
                self.app.room_gone(self)
                self.queue.put_nowait(STOP)
            if isinstance(error, StorageError):
                self.app.reply(conn, req, codec.error(error.code, error.message))
            elif isinstance(error, Fenced):
                reply_moved(self.app, conn, req)
            else:
                self.app.reply(conn, req, codec.error(INTERNAL, "internal error"))
            return
        conn.cork()  # the sender's own update and its ok: one write
        try:
            self._publish(batch)
            self.app.reply(conn, req, {"t": "ok"})
        finally:
            conn.uncork()

    # -- the loop ----------------------------------------------------------------------------

    async def run(self) -> None:
        try:
            while True:
                item = await self.queue.next(self._deadline, self.app.now)
                if isinstance(item, Stop):
                    return
                try:
                    await self.step(item)
                except Fenced:  # another node owns the room now: it stops here (docs/cluster.md)
                    moved(self.app, item)
                    continue
                except Exception:  # a bug: reported, and the room goes on (server/taskfail.py)
                    self.failures.failed(self.app, item, self.app.now(), lambda: self.members)
                    continue
                self.failures.ok()
                if self.room.disposable(self._now()):
                    await self.dispose()
                    return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room %s stopped by a bug", self.id)
            self.app.room_gone(self)
        finally:
            self.queue.stop()
            if self.bots is not None:
                self.bots.close()  # their subprocesses end with the room (or the server)
                await self.bots.reaped()

    def _deadline(self) -> float | None:
        if self.paused_at is not None:
            return None  # its clocks stand still (``storage_changed``)
        return self.failures.deadline(self.room.next_deadline())

    async def _settle(self) -> None:
        """Wait until the plays handled at once have been committed (and their messages sent)."""
        while self._inflight:
            if self._landed is None:
                self._landed = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._landed)

    async def step(self, item) -> None:
        """Take one queue item (server.roomitems): the room is called, its entries committed, then sent."""
        if self._inflight:
            await self._settle()  # nothing is shown before it is durable, snapshots included
        if self.names_missing and type(item) in (Connect, SnapshotAsked, Resync):  # they show the names
            await self._learn_names()
        handler = self._steps.get(type(item))
        if handler is None:
            raise AssertionError(f"unknown room task item {item!r}")
        await handler(item, self._now())

    def _now(self) -> float:
        """The room's time: the server's, standing still while a storage fault pauses the room."""
        now = self.app.now()
        return now if self.paused_at is None else min(now, self.paused_at)

    async def _tick(self, item: Tick, now: float) -> None:
        await self.commit(self.room.tick(now))

    async def _connect(self, item: Connect, now: float) -> None:
        pid, conn = item.pid, item.conn
        if pid not in self.room.members or conn.closed:  # a table keeps the seat of one who left it
            conn.snapshot_due = None
            return
        await self.commit(self.room.connect(pid, now))
        self._took_seat(pid)
        self.send_snapshot(pid, conn, None)

    async def _disconnect(self, item: Disconnect, now: float) -> None:
        if item.pid in self.room.members:
            await self.commit(self.room.disconnect(item.pid, now))
            if item.pid in self.room.spectator_ids():
                self._watcher_gone(item.pid)

    async def _watcher_left(self, item: WatcherGone, now: float) -> None:
        m = self.room.members.get(item.pid)
        if m is not None and m.seat is None and not m.connected and now >= m.since + item.grace - 0.05:
            await self.commit(self.room.handle(item.pid, {"t": "leave"}, now))

    async def _snapshot(self, item: SnapshotAsked, now: float) -> None:
        if item.pid not in self.room.members:
            self.app.reply(item.conn, item.req, codec.error(NOT_IN_ROOM, "you are not in a room"))
            return
        self.send_snapshot(item.pid, item.conn, item.req)

    async def _resync(self, item: Resync, now: float) -> None:
        if self.paused_at is not None and self.app.store.fault is None:  # the time paused goes back on the clocks
            now, since, self.paused_at = self.app.now(), self.paused_at, None
            await self.commit(self.room.paused(now - since, now))
        for pid in self.room.members:
            conn = self.app.connection(pid)  # local or on another node: all were told of the pause
            if conn is not None:
                self.send_snapshot(pid, conn, None)

    async def _history(self, item: HistoryAsked, now: float) -> None:
        self.app.reply(item.conn, item.req, self.history(item.page))

    async def _chat(self, item: ChatAsked, now: float) -> None:
        self.chat(item.pid, item.conn, item.req, item.text)

    async def _leave(self, item: Leave, now: float) -> None:
        if item.pid in self.members:
            try:
                await self.commit(self.room.handle(item.pid, {"t": "leave"}, now))
            except RoomError as e:
                log.info("room %s: %s could not leave: %s", self.id, item.pid, e.message)

    async def _system(self, item: System, now: float) -> None:
        try:
            applied = self.room.system(item.cmd, now)
        except RoomError as e:  # the table moved on (e.g. 停和 after the hand ended): nothing to do
            log.info("room %s: system %r refused: %s", self.id, item.cmd, e.message)
            return
        await self.commit(applied)

    async def _command(self, item: Command, now: float) -> None:
        applied = self._handle(item.pid, item.conn, item.req, item.cmd, now)
        if applied is not None:
            await self._handled(Handled(item.pid, item.conn, item.req, item.cmd, applied), now)

    async def _handled(self, item: Handled, now: float) -> None:
        """A command the room took (here or in ``play_now``): commit, then answer."""
        pid, conn = item.pid, item.conn
        conn.cork()  # the sender's own update and its ok: one write
        try:
            await self.commit(item.applied)
            if item.cmd["t"] in ("join", "watch") and pid in self.members:
                self.send_snapshot(pid, conn, None)
                self._took_seat(pid)
            self.app.reply(conn, item.req, {"t": "ok"})
        finally:
            conn.uncork()

    def _took_seat(self, pid: str) -> None:
        """A tournament table's player connected or joined it: they took their seat (lateness counts
        until then, docs/tournaments.md); the tournament ignores it after the first time."""
        room = self.room
        if self.tournament is not None and pid in room.table_players and room.members[pid].seat is not None:
            self.tournament[0].report(self.tournament[1], {"t": "seated", "player": room.table_players.index(pid)})

    # -- committing ------------------------------------------------------------------------------
    # One path for every call to the room, from the task (``commit``) or at once (``play_now``):
    # 1. ``_take``: the room's new log entries, numbered after the rows stored, and what they mean for
    #    the match tables and the fairness notices (``_effects``);
    # 2. the store: ``Store.append``, whose callback ``_played`` is, or ``Store.write``, which ``commit``
    #    awaits (the same append underneath); then, in ``commit`` only, the bookkeeping a match start or
    #    end or a seat change needs (``play_now`` hands such calls to the task);
    # 3. once durable, ``_publish``: the tournament hears its events, every member their messages.

    def _take(self, applied: list) -> Batch:
        entries = self.room.take_log()
        effects, notices = self._effects(entries)
        # The room numbers its log (Room.rows); the store refuses rows that do not follow its last one.
        return tuple.__new__(Batch, (self.room.rows - len(entries), entries, effects, notices, applied))

    def _publish(self, batch: Batch) -> None:
        entries = batch.entries
        if self.tournament is not None:
            self._report(entries)
        auto = 0  # a loop: a list or a generator is a frame more per play
        for e in entries:
            if e["k"] == "act" and e["by"] != "player":
                auto += 1
        if auto:  # bots, 托管, timeouts: counted with the players' actions once durable
            self.app.auto_acted(auto)
        self._send(self.room.render(batch.applied), batch.notices)
        if entries and self.app.settings.external_bots:
            self._sync_bots()  # what they see is durable and sent, like a member's messages

    def _sync_bots(self) -> None:
        specs = self.app.settings.external_bots
        if specs and not self.closed:
            if self.bots is None:
                self.bots = RoomBots(specs, self.put)
            self.bots.sync(self.room)

    async def _bot_answer(self, item: BotAnswer, now: float) -> None:
        await self.commit(self.room.bot_answer(item.player, item.seq, item.action, now))

    async def commit(self, applied: list, write=None) -> None:
        """Persist the room's new entries (and what they mean for matches), then render and send what
        the call did (``applied``). ``write(entries, effects)``: a new room's first batch is written with
        the room's row, in one transaction, which gives the room's id (``Lobby.new_room``)."""
        batch = self._take(applied)
        entries, effects, notices = batch.entries, batch.effects, batch.notices
        if write is not None:
            self.db_id = await write(entries, effects)
        elif entries:
            await self.app.store.write(self.db_id, batch.start, entries, effects)
        for e in effects:
            if e["kind"] == "match_start":
                self.matches[e["number"]]["id"] = await self.app.store.match_id(self.db_id, e["number"])
            elif e["kind"] == "match_result":  # ratings and statistics, off this room's path
                self.app.ratings.match_finished(self.matches.get(e["number"], {}).get("id"), self.room.config,
                                                e["record"])
        for n in notices:
            if n["t"] == "reveal":
                n["id"] = self.matches[n["match"]].get("id")  # GET /api/matches/<id>
        if not seats_unchanged(entries):
            self._refresh()
            await self._learn_names()
        self._publish(batch)

    def _report(self, entries: list) -> None:
        """Tell the tournament (if the room is a table) what it is told about."""
        if self.tournament is not None:
            tournament, table = self.tournament
            for e in entries:
                event = table_report(e)
                if event is not None:
                    tournament.report(table, event)

    def _send(self, out: list, notices) -> None:
        """Send a call's messages, with the fairness notices around them: a commitment goes out before
        the match's first deal, a reveal after its last result."""
        for msg in notices:
            if msg["t"] == "commitment":
                self._broadcast(msg)
        info = named = None
        copies = None  # id -> sent more than once (one message: a claim answer's); not a Counter (3 frames)
        if len(out) > 1:
            copies = {}
            for _, msg in out:
                copies[id(msg)] = id(msg) in copies
        encoded: dict = {}  # id -> codec.Shared: a message several members get, encoded once
        for to, msg in out:
            shared = None
            if msg["t"] == "room":
                if msg["info"] is not info:  # the same info for every member: named once
                    info = msg["info"]
                    named = self._named(info)
                msg = {**msg, "info": named}
            elif copies is not None and copies[id(msg)]:
                shared = encoded.get(id(msg))
                if shared is None:
                    shared = encoded[id(msg)] = codec.Shared(msg)
            self.app.deliver(to, msg, shared)
        for msg in notices:
            if msg["t"] == "reveal":
                self._broadcast(msg)

    async def _learn_names(self) -> None:
        ids = set(self.members)
        for s in self.room.info(False)["seats"]:
            if s is not None and s["bot"] is None:
                ids.add(s["id"])
        late, self.names_missing = self.names_missing, False
        try:
            self.names.update(await self.app.display_names(ids - self.names.keys()))
        except StorageError as e:  # the entries are written: they go out with the names known (the rest later)
            self.names_missing = True
            log.warning("room %s: names not read: %s", self.id, e.message)
        if self.summary is not None:
            self.summary["names"] = self._names_of(self.summary["seats"], ())
            if late and not self.names_missing:  # no seat changed: the lobby (a cluster's too) lists it again
                self.app.members_changed(self, self._listed, self._listed)

    def _names_of(self, seats, spectators) -> dict:
        """Player id -> the name shown: names that look alike are numbered, seat order first (rooms/text.py)."""
        ids = [s["id"] for s in seats if s is not None] + list(spectators)
        return disambiguate({i: self.names[i] for i in ids if i in self.names})

    def _named(self, info: dict) -> dict:
        return {**info, "names": self._names_of(info["seats"], ())}

    def _broadcast(self, msg: dict) -> None:
        for pid in self.members:
            self.app.deliver(pid, msg)

    def _effects(self, entries: list) -> tuple[list, list]:
        """What new log entries mean for the match tables, and the fairness notices they call for:
        a commitment when a match starts (sent before its first deal), a reveal when it ends."""
        effects, notices = [], []
        # room.match_no is what info()["matches"] reports; info() itself is too dear for every action.
        if self.room.match_no > self.match_no and (info := self.room.info(True))["matches"] > self.match_no:
            k = self.match_no = info["matches"]
            seed = self.room.match.seed  # rooms.keys.match_seed of the room's secret
            salt = fair.new_salt()
            c = fair.commitment(seed, salt)
            ids = [None if s is None else s["id"] for s in info["seats"]]
            self.matches[k] = {"salt": salt, "commitment": c}
            rules = asdict(RoomConfig.from_dict(info["config"]).rules())
            effects.append({"kind": "match_start", "number": k, "rules": rules,
                            "seed": str(seed), "salt": salt, "commitment": c, "players": ids})
            notices.append({"t": "commitment", "match": k, "commitment": c})
        for e in entries:
            if not e.get("derived") or e["k"] not in ("hand_result", "match_result"):
                continue  # offences (tables) go to the tournament only
            rec = e["record"]
            if e["k"] == "hand_result":
                effects.append({"kind": "hand_result", "number": rec["match"], "hand": rec["hand"], "record": rec})
            elif e["k"] == "match_result":
                k = rec["match"]
                effects.append({"kind": "match_result", "number": k, "record": rec})
                m = self.matches.get(k)
                if m is None:  # pragma: no cover - its start was never recorded: nothing to reveal
                    log.warning("room %s: match %d ended without a recorded commitment", self.id, k)
                    continue
                if self.tournament is not None and self.tournament[0].t.config.duplicate:
                    continue  # 复式: other tables play these walls; the tournament reveals them after the session
                notices.append({"t": "reveal", "match": k, "seed": rec["seed"], "salt": m["salt"],
                                "commitment": m["commitment"]})
        for n in notices:
            n["room"], n["rseq"] = self.id, self.room.rseq
        return effects, notices

    def _refresh(self) -> None:
        """After a commit that may change the seats: App.where and the lobby's summary follow the room."""
        old, self._listed = self._listed, self.members
        self.app.members_changed(self, old, self._listed)
        self._summarize()

    def _summarize(self) -> None:
        info = self.room.info(False)
        self.summary = None if info["config"]["private"] else {
            "room": info["id"], "type": info["type"], "phase": info["phase"], "hands": info["config"]["hands"],
            "seats": [None if s is None else {"id": s["id"], "bot": s["bot"]} for s in info["seats"]],
            "spectators": info["spectators"],
        }

    def send_snapshot(self, pid: str, conn: Conn, req) -> None:
        if req is not None and conn.coalesce_snapshot() and conn.snapshot_due != self.id:
            self.app.reply(conn, req, {"t": "ok"})  # the snapshot still queued, and what follows it, will do
            return
        snap = dict(self.room.snapshot(pid))
        snap["info"] = self._named(snap["info"])
        snap["records"] = self._with_ids(snap["records"])
        g = snap.get("game")
        if g is not None:  # while a match is on: the prompt's seq, or where the table is
            snap["seq"] = g["match"]["seq"]
        info = self.matches.get(self.match_no)
        if info is not None and snap["info"]["phase"] == PLAYING:
            snap["commitment"] = info["commitment"]
        if conn.snapshot_due == self.id:
            conn.snapshot_due = None
        if req is not None:
            self.app.reply(conn, req, snap)
            conn.queued_snapshot()
        else:
            conn.push(snap)

    def _with_ids(self, records: dict) -> dict:
        """A finished match in the snapshot carries its stored id (its replay), as the reveal after it
        did: a page reloaded on the ranking links the replay too. Not at a 复式 table (no reveal yet)."""
        if self.tournament is not None and self.tournament[0].t.config.duplicate:
            return records
        return {**records, "matches": [{**r, "id": self.matches.get(r["match"], {}).get("id")}
                                       for r in records["matches"]]}

    def history(self, page: int) -> dict:
        """The room's finished matches, newest first, HISTORY_PAGE a page: what the snapshot no longer
        carries. A whole match (hands, actions, replay) is GET /api/matches/<id>."""
        done = self.room.finished
        pages = max(1, -(-len(done) // HISTORY_PAGE))
        end = len(done) - page * HISTORY_PAGE
        chosen = done[max(0, end - HISTORY_PAGE):max(0, end)][::-1]
        return {"t": "history", "room": self.id, "page": page, "pages": pages, "total": len(done), "matches": [
            {"match": r["match"], "id": self.matches.get(r["match"], {}).get("id"), "ids": r["ids"],
             "scores": r["scores"], "ranking": r["ranking"], "void": r["void"]} for r in chosen]}

    def chat(self, pid: str, conn: Conn, req, text) -> None:
        if pid not in self.members:
            self.app.reply(conn, req, codec.error(NOT_IN_ROOM, "you are not in a room"))
            return
        shown = self._names_of(self.room.info(False)["seats"], sorted(self.members)).get(pid, conn.name)
        msg = {"t": "chat", "room": self.id, "from": pid, "name": shown, "text": text}
        for m in self.members:
            self.app.deliver(m, msg)
        self.app.reply(conn, req, {"t": "ok"})

    async def dispose(self) -> None:
        """The room says it may go (empty, idle or abandoned): close it for good."""
        self._broadcast({"t": "closed", "room": self.id, "rseq": self.room.rseq})
        self.closed = True
        await self.app.store.close_room(self.db_id)
        self.app.room_gone(self)

    def storage_changed(self, fault: str | None) -> None:
        """The store began or stopped holding writes back (``Store.on_fault``): the members hear
        ``server/storage`` when it begins, and get a snapshot once the room's writes landed."""
        if fault is not None:
            if self.paused_at is None:
                self.paused_at = self.app.now()  # the room is called with this time until it resumes
            self._broadcast(codec.error(STORAGE, f"{fault}: the room is paused until its moves are saved",
                                        room=self.id))
        else:
            self.queue.put_nowait(RESYNC)
