"""One asyncio task and one queue per tournament, like a room's (server.roomtask): the task is the
tournament's only caller. Its new log entries are written before anything they cause is done: tables
opened, commands sent to the tables' rooms, views and notices pushed.

The tables are ordinary rooms (rooms.room, table mode). What a table reports (hand results, the match
result, automatic offences) comes back through ``report``, from the room's task after the room's own
log is written; after a restart ``catch_up`` feeds the tournament whatever its tables wrote that it had
not yet logged (``Tournament.table_event`` ignores what it has seen).

While the store cannot take writes (server/storage: disk full, the database file removed) commands are
refused and change nothing; what the tournament did on its own meanwhile (a session starting, a table's
result) stays in memory and its write is tried again until it lands, before anything it causes is done.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rooms.botzone_seats import bot_name
from rooms.tournament import duplicate, effects as fx, errors as E, lateness
from rooms.tournament.competitors import bot_id
from rooms.tournament.delta import Deltas, for_viewer
from rooms.tournament.errors import TournamentError
from rooms.text import disambiguate
from rooms.tournament.tournament import Tournament
from server import botzone, codec
from server.cluster import lobby as cluster_lobby
from server.roomtask import table_report
from server.timedqueue import next_item
from server.roomitems import TICK, Command, Follow, Stop, System, TableEvent, Tick, Unfollow, ViewAsked
from server.store import STORAGE, StorageError
from server.store_sql import Fenced
from server.taskfail import Failures, moved

if TYPE_CHECKING:  # pragma: no cover
    from server.outbox import TournamentOutbox

log = logging.getLogger("guobiao.tournament")

RETRY_FIRST, RETRY_MAX = 0.1, 5.0  # seconds before a write refused by the storage is tried again (doubling)
# Tables (or effects) handled between two yields to the event loop: a session start opens a table per four
# players and tells every follower of each; done in one go at 1,024 players it held the loop for a second.
# The rooms of a batch deal in the loop's next pass, so a smaller batch also makes that pass shorter.
PACE = 8


async def _pace(i: int) -> None:
    """Let the other rooms and connections run every ``PACE`` items of a long batch. The tournament's own
    items wait in its queue meanwhile: nothing else changes it, and its log entries are already decided
    (and, for what a commit causes, written)."""
    if i and i % PACE == 0:
        await asyncio.sleep(0)


@dataclass(slots=True)
class Resumed:
    """The storage took writes again after a fault that began at ``begin``."""
    begin: float
    end: float


class TournamentTask:
    def __init__(self, app: TournamentOutbox, db_id: int, tournament: Tournament, log_length: int, tables: dict[str, str]):
        self.app = app
        self.db_id = db_id
        self.t = tournament
        self.id = tournament.id
        self.n = log_length
        self.tables = dict(tables)  # table key -> room id
        self.names: dict[str, str] = {}  # player id -> display name, for the views (the core knows ids only)
        self.followers: set[str] = set()  # players who asked to see it (their views are pushed)
        self.queue: asyncio.Queue = asyncio.Queue()
        self.task: asyncio.Task | None = None
        self.summary = tournament.summary()
        self.over_at: float | None = None  # when it finished or was cancelled: it is listed a while longer
        self.clock = app.now  # the tournament's time (tests shift it to arrive late)
        self.failures = Failures(log, "tournament", "tournament", self.id)
        self.deltas = Deltas(tournament)
        self.tseq = tournament.tseq  # the point of the log the followers' views are at
        self.sent_names: dict[str, str] = {}  # the names the last delta that had any brought up to date
        self.retrying = False  # a write waits for the storage (``saved``): a Stop cancels the task
        self.stop_asked = False  # a Stop is queued: a write the storage refuses is not tried again
        self.paused_at: float | None = None  # when a storage fault began: no automatic entry until it ends

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self.run(), name=f"tournament {self.id}")
        self.listed()

    def listed(self) -> None:
        """Cluster mode: its line in every node's list of tournaments (docs/cluster.md)."""
        if self.app.cluster is not None:
            cluster_lobby.tournament_listed(self.app.cluster, self)

    def put(self, item) -> None:
        """Queue an item (server.roomitems) for the task."""
        if isinstance(item, Stop):
            self.stop_asked = True
        if isinstance(item, Stop) and self.retrying and self.task is not None:
            self.task.cancel()  # its write may never land; nobody saw what it held
            return
        if type(item) is Command and self.retrying:  # it would wait behind a write the storage refuses
            self.app.reply(item.conn, item.req, codec.error(STORAGE, "the tournament waits for the database to"
                                                                     " take its writes; try again later"))
            return
        self.queue.put_nowait(item)

    def report(self, table: str, event: dict) -> None:
        """From a table's room task, after the room's log is written."""
        self.put(TableEvent(table, event))

    async def run(self) -> None:
        try:
            while True:
                deadline = self.t.next_deadline() if self.over_at is None else self.over_at + self.app.linger
                deadline = None if self.paused_at is not None else deadline
                item = await next_item(self.queue, self.failures.deadline(deadline), self.clock(), TICK)
                if isinstance(item, Stop):
                    await self.stopped()
                    return
                if isinstance(item, Tick) and self.over_at is not None:
                    if self.clock() >= self.over_at + self.app.linger:
                        self.app.tournament_gone(self)  # still in the database; out of the lists
                        return
                    continue
                try:
                    await self.step(item)
                except Fenced:  # another node owns the tournament now (docs/cluster.md "Fencing")
                    moved(self.app, item)
                    raise
                except Exception:  # a bug: reported, and the tournament goes on (server/taskfail.py)
                    self.failures.failed(self.app, item, self.clock(), self.online_audience)
                    continue
                self.failures.ok()
                if self.t.over and self.over_at is None:
                    self.over_at = self.clock()
                    await self.saved(lambda: self.app.store.close_tournament(self.db_id))
                await asyncio.sleep(0)  # a queue that is not empty is read without a wait: let others run
        except asyncio.CancelledError:
            raise
        except Fenced:
            log.warning("tournament %s: a newer owner wrote its log; it stops on this node", self.id)
            self.app.tournament_gone(self)
        except Exception:
            log.exception("tournament %s stopped by a bug", self.id)

    async def step(self, item) -> None:
        now = self.clock()
        if isinstance(item, Tick):
            if self.paused_at is None:  # nobody is sanctioned because the server could not write
                await self.commit(self.t.tick(now))
        elif isinstance(item, Resumed):
            await self.commit(lateness.paused(self.t, item.begin, item.end, now))
        elif isinstance(item, TableEvent):
            await self.table_event(item, now)
        elif isinstance(item, Follow):
            pid, conn, req = item.pid, item.conn, item.req
            try:  # names first: a read the storage refuses is server/storage, and nothing changed
                await self.learn_names()
            except StorageError as e:
                self.app.reply(conn, req, codec.error(e.code, e.message))
                return
            self.app.followed(pid, self)
            self.followers.add(pid)
            self.app.reply(conn, req, {"t": "tournament", "tournament": self.view(pid)})
        elif isinstance(item, Unfollow):
            self.followers.discard(item.pid)
        elif isinstance(item, ViewAsked):
            try:
                await self.learn_names()
            except StorageError as e:  # answered 503 (server.api)
                if not item.answer.done():
                    item.answer.set_exception(e)
                return
            if not item.answer.done():  # the asker gave up (server.api)
                item.answer.set_result(self.view(None))  # public notices, no private sanction
        elif isinstance(item, Command):
            pid, conn, req, cmd = item.pid, item.conn, item.req, item.cmd
            try:
                self.app.store.check_writable()  # server/storage: its log could not take the change
                await self.learn_names()  # read before anything changes (StorageError: nothing did)
                if isinstance(cmd, dict) and cmd.get("t") == "register_bot":
                    self.check_bot(cmd.get("bot"))
                effects = self.t.handle(pid, cmd, now)
            except (TournamentError, StorageError) as e:
                self.app.reply(conn, req, codec.error(e.code, e.message))
                return
            try:
                await self.commit(effects, retry=False)
            except StorageError as e:  # not written: undone, as if refused (server/storage)
                await self.undo()
                self.app.reply(conn, req, codec.error(e.code, e.message))
                return
            if pid not in self.followers:  # a command subscribes: a whole view once, deltas after it
                self.app.followed(pid, self)
                self.followers.add(pid)
                await self.learn_names(strict=False)
                conn.push({"t": "tournament", "tournament": self.view(pid)})
            self.app.reply(conn, req, {"t": "ok"})
        else:  # pragma: no cover
            raise AssertionError(f"unknown tournament task item {item!r}")

    async def table_event(self, item: TableEvent, now: float) -> None:
        table, event = item.table, item.event
        if event["t"] == "match_result" and "replay" not in event:
            event = {**event, "replay": self.replay_id(table, event.get("record"))}
        try:
            effects = self.t.table_event(table, event, now)
        except TournamentError as e:  # e.g. a result told twice after a restart: already recorded
            log.info("tournament %s: table %s event %s refused: %s", self.id, table, event["t"], e.message)
            return
        await self.commit(effects)

    async def commit(self, effects: list, retry: bool = True) -> None:
        """Write the new log entries, with the rooms of the tables they open (one transaction: a table's
        room exists exactly when the tournament's log knows it), then do what they cause. A write the
        storage refuses is tried again until it lands (``retry``: what the tournament did by itself),
        or raises StorageError with nothing written (a command's: ``step`` undoes it in memory)."""
        entries = self.t.take_log()
        opens = [e for e in effects if isinstance(e, fx.OpenTable)]
        made, rooms = [], []
        for i, e in enumerate(opens):  # in memory until written
            await _pace(i)
            r = self.app.make_table(e)
            made.append(r)
            rooms.append((r.id, r.config.to_dict(), r.take_log()))
        ids: list[int] = []
        if entries or made:
            pairs = [(e.table, r.id) for e, r in zip(opens, made)]
            write = lambda: self.write(entries, pairs, rooms)  # noqa: E731
            ids = await (self.saved(write) if retry else write())
            self.n += len(entries)
        tasks = {}
        for i, (e, room, db_id) in enumerate(zip(opens, made, ids)):
            await _pace(i)
            tasks[e.table] = await self.app.open_table(self, e, room, db_id)
            self.tables[e.table] = room.id
        for i, e in enumerate(effects):
            await _pace(i)
            if isinstance(e, fx.OpenTable):
                self.app.seat_table(tasks[e.table], e)
                # who is at the table as it opens (here, or online on another node and joining it now);
                # the room reports the others as they take their seats
                taken = [i for i, p in enumerate(e.players)
                         if p is not None and (self.conn(p) is not None or bot_name(p) is not None)]  # a bot is there
                self.put(TableEvent(e.table, {"t": "seats", "taken": taken}))
            elif isinstance(e, fx.TableCommand):
                room = self.app.rooms.get(self.tables.get(e.table, ""))
                if room is None and self.app.cluster is not None and self.app.cluster.tourneys.held(self, e.table, e.cmd):
                    continue  # its room lost its lease: given when it is back (server.cluster.tourney)
                if room is None:
                    log.warning("tournament %s: table %s has no room for %r", self.id, e.table, e.cmd)
                    continue
                room.put(System(e.cmd))
            elif isinstance(e, fx.Notify):
                self.notify(e)
        if entries:
            self.summary = self.t.summary()
            self.listed()
            await self.push_delta(entries)

    async def write(self, entries: list, pairs: list, rooms: list) -> list[int]:
        """``Store.write_tournament`` at the log's end. A write that failed or was refused as a repeat
        may have landed (its commit went through but the answer was lost): the log is looked at
        before it is tried again or given up, so it is neither written twice nor forgotten."""
        store = self.app.store
        try:
            return await store.write_tournament(self.db_id, self.n, entries, pairs, rooms)
        except (StorageError, store.IntegrityError):
            landed = await store.tournament_landed(self.db_id, self.n + len(entries), rooms)
            if landed is None:
                raise
            log.warning("tournament %s: a write whose answer was lost had landed", self.id)
            return landed

    async def undo(self) -> None:
        """Back to what the log holds: a command's change whose write failed is forgotten (nothing it
        caused was done or sent)."""
        log.warning("tournament %s: a command's change could not be written; undone", self.id)
        self.t = Tournament.replay(await self.saved(lambda: self.app.store.tournament_log(self.db_id)))

    def storage_changed(self, fault: str | None) -> None:
        """A storage fault began (its clocks stand still) or ended (the pause is logged: ``Resumed``)."""
        if fault is not None and self.paused_at is None:
            self.paused_at = self.clock()
        elif fault is None and self.paused_at is not None:
            self.put(Resumed(self.paused_at, max(self.clock(), self.paused_at)))
            self.paused_at = None

    async def stopped(self) -> None:
        """A stop during a storage fault: the pause so far is logged if the storage takes it now, so
        that a restart does not count it (docs/tournaments.md "Storage faults"); what is due after it
        waits for the restart."""
        if self.paused_at is None:
            return
        now = self.clock()
        lateness.paused(self.t, self.paused_at, max(now, self.paused_at), now, run=False)
        entries = self.t.take_log()
        try:
            await self.app.store.write_tournament_at_stop(self.db_id, self.n, entries)
        except StorageError as e:
            log.warning("tournament %s: its pause from %.0f to %.0f is not logged (%s): a restart counts"
                        " that time", self.id, self.paused_at, now, e)
            return
        self.n += len(entries)

    async def saved(self, write):
        """``await write()``, tried again while the storage refuses it: the change is made in memory
        already, and nothing it causes may be done before its log entries are written."""
        wait = RETRY_FIRST
        try:
            while True:
                try:
                    return await write()
                except StorageError as e:
                    if self.stop_asked:  # (it came while this write was under way)
                        raise asyncio.CancelledError from e
                    if not self.retrying:
                        log.warning("tournament %s: waiting for the storage: %s", self.id, e.message)
                    self.retrying = True
                await asyncio.sleep(wait)
                wait = min(2 * wait, RETRY_MAX)
        finally:
            self.retrying = False

    async def push_delta(self, entries: list[dict]) -> None:
        """What ``entries`` changed, to the followers who are online (docs/protocol.md "Tournament
        deltas"). The others get a whole view when they ask for it (``follow``): building one per
        follower per change cost time in the square of the players."""
        delta, personal, full = self.deltas.after(self.t, entries)
        msg = {"t": "tournament_delta", "tournament": self.id, "from": self.tseq, "tseq": self.t.tseq, **delta}
        self.tseq = self.t.tseq
        if full or any(e["k"] in ("register", "unregister") for e in entries):
            await self.learn_names(strict=False)
            names = self.view_names()  # numbered where they look alike (rooms.text): may renumber others
            if full:  # the whole public view: its names too (and the staff's rooms, below)
                msg["set"] = {**msg["set"], "names": names}
            else:
                changed = {p: n for p, n in names.items() if self.sent_names.get(p) != n}
                if changed:
                    msg["names"] = changed
            self.sent_names = names
        staff = (self.t.organiser, self.t.referee)
        shared = codec.Shared(msg)  # encoded once for everybody whose own part did not change
        for pid in self.followers:
            conn = self.conn(pid)
            if conn is None:
                continue
            if personal is None or pid in personal or (full and pid in staff):
                m = for_viewer(self.t, msg, personal, pid)
                if full and pid in staff:
                    m = {**m, "set": {**m["set"], "rooms": self.rooms()}}
                conn.push(m)
            else:
                conn.push_shared(shared)

    def notify(self, e: fx.Notify) -> None:
        """A tournament event to its online audience (``App.deliver``, encoded once for all)."""
        shared = codec.Shared(e.msg)
        for pid in self.audience() if e.to == "all" else e.to:
            conn = self.conn(pid)
            if conn is not None and conn.wants(e.msg):
                conn.push_shared(shared)

    def conn(self, pid: str):
        """A player's connection here, or in cluster mode their stand-in when it is on another node."""
        conn = self.app.conns.get(pid)
        if conn is None and self.app.cluster is not None:
            conn = self.app.cluster.tourneys.conn(pid)
        return conn

    async def learn_names(self, strict: bool = True) -> None:
        """The participants' display names not known yet. A read the storage refuses raises StorageError
        (``strict``: before anything changed), or else (a change already written) leaves them to the
        next look: a view shows the names it knows."""
        new = set(self.t.participants()) - self.names.keys()
        self.names.update({p: name for p in new if (name := bot_name(p)) is not None})  # a bot: its name
        try:
            self.names.update(await self.app.display_names({p for p in new if bot_name(p) is None}))
        except StorageError as e:
            if strict:
                raise
            log.warning("tournament %s: names not read: %s", self.id, e.message)

    def check_bot(self, name) -> None:
        """``register_bot``: a bot the server registered (bots.toml; never a program), with a seat free."""
        specs = self.app.settings.external_bots
        spec = specs.get(name) if isinstance(name, str) else None
        if spec is None:
            raise TournamentError(E.NO_BOT, f"no registered bot {name!r}; registered: {sorted(specs)}")
        held = botzone.held(name, self.app.rooms, self.app.tournaments)
        if bot_id(name) not in self.t.players and held >= spec.seats:
            raise TournamentError(E.BOT_BUSY, f"bot {name!r} already holds its {spec.seats} seats")

    def view(self, pid: str) -> dict:
        """The core's view for ``pid`` with ``names`` (player id -> display name); the organiser and
        the referee also get each table's room and invite code, to watch it."""
        v = self.t.view(pid)
        v["tseq"] = self.tseq  # the point of the log it shows: deltas follow from there
        v["names"] = self.view_names()
        if pid in (self.t.organiser, self.t.referee):
            v["rooms"] = self.rooms()
        return v

    def walls_secret(self, room: str) -> bool:
        """Whether ``room`` plays a duplicate session still under way (rooms.tournament.duplicate)."""
        return self.t.config.duplicate and any(
            r == room and duplicate.walls_secret(self.t, key) for key, r in self.tables.items())

    def replay_id(self, table: str, record) -> int | None:
        """The id of a table's match (GET /api/matches/<id>), while its room is loaded."""
        task = self.app.rooms.get(self.tables.get(table, ""))
        number = record.get("match") if isinstance(record, dict) else None
        return None if task is None else task.matches.get(number, {}).get("id")

    def view_names(self) -> dict[str, str]:
        return disambiguate({i: self.names[i] for i in self.t.participants() if i in self.names})

    def rooms(self) -> dict[str, dict]:
        out = {}
        for key, room in self.tables.items():
            task = self.app.rooms.get(room)
            out[key] = {"room": room, "code": None if task is None else task.invite}
        return out

    def audience(self) -> set[str]:
        """Everybody a change is pushed to: followers, the players, the organiser and the referee."""
        return self.followers | set(self.t.participants())

    def online_audience(self) -> list[str]:
        conns = self.app.conns
        return [pid for pid in self.followers if pid in conns]

    async def catch_up(self) -> None:
        """After a restart: what the tables' rooms logged that the tournament had not yet been told."""
        for key, room in sorted(self.tables.items()):
            for entry in await self.app.store.room_log(room):
                event = table_report(entry)
                if event is not None:  # Tournament.table_event ignores what it has already recorded
                    self.put(TableEvent(key, event))
