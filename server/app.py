"""The Guobiao server: websocket connections, accounts, the lobby, and one task per room.

``App`` holds the server's state and its life cycle; its parts are mixins, one concern each: websocket
connections (server.connections), frames in and replies out (server.frames), the command table
(server.commands), sign-in and accounts (server.auth), the lobby and quick match (server.lobby),
tournaments and scheduled events (server.events), the HTTP API (server.api) and its replay files
(server.replays). Room commands go onto their room's queue (server.roomtask), whose task is the room's
only caller.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rooms.quickmatch import QuickMatch
from rooms.room import Room
from server import botzone, codec, gctune
from server.api import Api
from server.attempts import AttemptLimits
from server.auth import Auth, AuthState
from server.commands import Commands
from server.connections import Connections
from server.conn import Conn
from server.errors import NO_ROOM
from server.events import Events
from server.http import make_process_request
from server.lobby import Lobby
from server.metrics import Metrics
from server import profiles
from server.quotas import Book, Quotas, Rates
from server.replays import Replays
from server.roomitems import STOP
from server.shutdown import Deadline
from server.frames import Frames
from server.roomtask import RoomTask
from server.store import open_store
from server.store_base import StoreBase
from server.tournaments import TournamentTask
from server.wsconn import Options, serve

log = logging.getLogger("guobiao.server")



@dataclass
class Limits:
    max_frame: int = codec.MAX_FRAME  # larger frames get protocol/too_large
    hard_max_frame: int = 16 * 1024  # larger ones close the connection (1009) without reading them
    rate: float = 10.0  # frames a second, sustained, per connection
    burst: float = 30.0
    refused_max: int = 50  # rate-limited frames in a row before the connection is closed
    inbox: int = 64  # frames waiting behind one not answered yet; more are refused (rate_limited)
    answer_wait: float = 30.0  # a frame unanswered this long (a bug) no longer holds the next ones back
    chat_rate: float = 0.5
    chat_burst: float = 5.0
    out_queue: int = 512  # messages waiting for a slow client before it is cut off
    out_bytes: int = 1 << 20  # bytes of messages waiting for a slow client before it is cut off
    write_limit: int = 64 * 1024  # bytes in the socket buffer before send() waits
    signin_timeout: float = 30.0  # to send guest/resume after connecting
    idle_timeout: float = 1800.0  # no frame for this long: closed (clients may send ping)
    # A dead peer is found by TCP keepalive, in the kernel: first probe after this many idle seconds,
    # then every interval, given up after count probes (about 90 s). Websocket pings would wake every
    # connection every ping_interval, all at once after a mass connect; they stay available for a
    # deployment that needs them (ping_interval in seconds).
    keepalive: tuple[int, int, int] = (60, 10, 3)  # idle, interval, count
    ping_interval: float | None = None
    ping_timeout: float | None = 20.0
    open_timeout: float = 10.0  # for the HTTP request and its answer (a slow client's handshake is cut off)
    close_timeout: float = 5.0
    stop_timeout: float = 15.0  # a stop's steps all end within this (server.shutdown), the database's close after
    gc_every: float = 600.0  # at most this often a full collection, if ended connections left garbage (server.gctune)
    # Open websocket connections from one address, IPv4 or IPv6 /64 (0: no limit); more are refused at the
    # handshake with HTTP 429. Loopback is exempt: behind a reverse proxy on the same machine every player
    # comes from there, and the proxy is the place to limit.
    per_address: int = 64
    # Plain HTTP requests (anything but the websocket handshake) from one address: at most this many
    # connections being answered at once, and so many a second on average (burst at once); past either,
    # HTTP 429. Loopback is exempt as above.
    http_per_address: int = 16
    http_rate: tuple[float, float] = (20.0, 60)
    exempt_loopback: bool = True


@dataclass
class Settings:
    limits: Limits = field(default_factory=Limits)
    quick_config: dict = field(default_factory=lambda: {"hands": 4})  # RoomConfig fields for quick matches
    quick_wait: float = 20.0  # default seconds before bots fill a quick-match table
    metrics: bool = True  # GET /metrics answers (guobiao serve --metrics off: 404)
    client: Path | None = None  # the browser client's build (guobiao serve --client); None: the checkout's
    bot_policies: dict | None = None  # level -> choose(view); None: rooms' bot modules (tests pass their own)
    external_bots: dict = field(default_factory=dict)  # name -> server.botzone.BotSpec (guobiao serve --bots)
    attempts: AttemptLimits = field(default_factory=AttemptLimits)  # password attempts (server.attempts)
    password_hasher: object = None  # argon2 PasswordHasher; None: its defaults (tests pass cheap ones)
    max_organised: int = 5  # tournaments a player may organise at once (not yet finished or cancelled)
    quotas: Quotas = field(default_factory=Quotas)  # per account and address (server.quotas)
    linger: float = 3600.0  # a finished or cancelled tournament stays listed (and its ranking viewable) this long
    table_config: dict = field(default_factory=dict)  # RoomConfig fields every tournament table gets (tests: fast bots)
    # Scheduled events (rooms.tournament.series): every ``every`` seconds a one-session tournament of
    # ``hands`` hands that anyone may sign up for; bots fill the last table (the seed's 每十分钟一场).
    series: list = field(default_factory=lambda: [
        {"name": "十分钟赛 10-minute event", "every": 600, "hands": 4, "min_players": 2}])


class App(Connections, Auth, Frames, Commands, Lobby, Events, Replays, Api):
    def __init__(self, store: StoreBase, settings: Settings | None = None):
        self.store = store
        store.on_fault = self.storage_changed  # rooms pause and resume
        self.settings = settings or Settings()
        self.limits = self.settings.limits
        self.loop = asyncio.get_running_loop()
        # Monotonic within a run, near wall-clock time across runs: restored rooms' deadlines stay sane.
        self._epoch = time.time() - self.loop.time()
        self.conns: dict[str, Conn] = {}
        self.rooms: dict[str, RoomTask] = {}
        self.by_invite: dict[str, RoomTask] = {}
        self.where: dict[str, object] = {}  # player -> RoomTask (or server.lobby.PENDING)
        self.quick = QuickMatch()
        self.quick_away: dict[str, asyncio.TimerHandle] = {}  # queued players gone, until QUICK_GRACE ends
        self.quick_queue: asyncio.Queue = asyncio.Queue()
        self.quick_told: set[str] = set()  # queued players told the storage keeps their table from being made
        # None: the rooms' own bot modules; external bots (docs/bots.md) are policies by name too
        self.tournaments: dict[str, TournamentTask] = {}
        self.bots = botzone.policies(self.settings.bot_policies, self.settings.external_bots, self.rooms, self.tournaments)
        self.init_replays()  # server.replays: the replay files' and closed tournaments' caches
        self.following: dict[str, TournamentTask] = {}  # player -> the tournament whose views they get
        self.addresses: Counter[str] = Counter()  # open websocket connections per remote address
        self.http_open: Counter[str] = Counter()  # HTTP connections being answered, per address
        self.http_rates = Rates(*self.limits.http_rate)  # HTTP requests per address
        self.book = Book(self.settings.quotas, self.limits.exempt_loopback)
        self.auth = AuthState(store, self.settings.attempts, self.settings.password_hasher)
        self.server, self.stopping = None, False
        self.tasks: list[asyncio.Task] = []
        self.ratings = profiles.Ratings(store, self.loop)  # ratings, statistics, leaderboards
        self.metrics = Metrics(self)  # /api/health and /metrics (server.metrics)
        store.on_commit = self.metrics.committed
        self.cluster = None  # server.cluster.node.ClusterNode under guobiao serve --cluster

    def now(self) -> float:
        return self._epoch + self.loop.time()

    @property
    def spectator_grace(self) -> float:
        return self.settings.quotas.spectator_grace

    @property
    def linger(self) -> float:
        return self.settings.linger

    # -- life cycle ----------------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 8765, reuse_port: bool = False) -> int:
        if self.cluster is not None:  # quotas shared by the nodes, in Redis (server.cluster.quotas)
            from server.cluster.quotas import SharedBook
            self.book = SharedBook(self.settings.quotas, self.limits.exempt_loopback, self.cluster)
        await self.recover()
        lim = self.limits
        self.server = await serve(host, port, Options(
            handler=self.opened,  # server.connections
            process_request=make_process_request(self),  # plain HTTP on the same port (server.http)
            max_size=lim.hard_max_frame,
            write_limit=lim.write_limit,
            open_timeout=lim.open_timeout,
            close_timeout=lim.close_timeout,
            ping_interval=lim.ping_interval,
            ping_timeout=lim.ping_timeout,
            server_header="guobiao",
        ), reuse_port=reuse_port)  # guobiao serve --workers: nodes sharing one port (SO_REUSEPORT)
        self.tasks.append(self.loop.create_task(self.quick_loop(), name="quick match"))
        self.tasks.append(self.loop.create_task(self.housekeeping(), name="housekeeping"))
        self.tasks.append(self.loop.create_task(self.series_loop(), name="scheduled events"))
        self.tasks.append(self.loop.create_task(self.ratings.catch_up(), name="ratings catch-up"))
        self.tasks.append(self.loop.create_task(self.metrics.watch_loop(), name="event-loop lag"))
        if self.cluster is not None:
            self.cluster.watch()  # rooms of nodes that die from now on
        # Everything built so far lives as long as the server: keep it out of the collector's scans.
        gctune.tune()
        return self.server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Stop accepting, close connections, let every room finish what it was doing, close the DB;
        all within ``limits.stop_timeout`` (server.shutdown: a stuck step is logged and left)."""
        if self.stopping:
            return
        self.stopping = True
        deadline = Deadline(self.limits.stop_timeout)
        if self.server is not None:
            self.server.close()
            await deadline.within("closing the connections", self.server.wait_closed())
        for t in self.tasks:
            t.cancel()
        await deadline.within("the server's own tasks", asyncio.gather(*self.tasks, return_exceptions=True))
        for t in self.tournaments.values():
            t.put(STOP)
        await deadline.within("the tournaments", asyncio.gather(
            *(t.task for t in self.tournaments.values() if t.task is not None), return_exceptions=True))
        rooms = list(self.rooms.values())
        for r in rooms:
            r.put(STOP)
        await deadline.within("the rooms", asyncio.gather(
            *(r.task for r in rooms if r.task is not None), return_exceptions=True))
        await deadline.within("the ratings", self.ratings.settle())
        if self.cluster is not None:
            await deadline.within("the cluster node", self.cluster.stop())  # the rooms' leases given up
        await self.store.close()
        log.info("stopped; %d rooms saved", len(rooms))

    async def housekeeping(self) -> None:
        await gctune.run(self.limits.gc_every, on_pause=self.metrics.gc_paused)

    async def recover(self) -> None:
        """Rebuild every room that was not closed from its log; its members reconnect with their tokens.
        A cluster node restores only the rooms whose lease it wins, each read after its claim."""
        if self.cluster is not None:
            await self.cluster.takeover.recover()
        for r in await self.store.open_rooms() if self.cluster is None else ():
            if not r["log"]:
                await self.store.close_room(r["id"])
                continue
            await self.restore_room(r)
        tournaments = self.store.open_tournaments if self.cluster is None else self.cluster.takeover.recover_tournaments
        for r in await tournaments():
            await self.restore_tournament(r)  # server.events

    async def restore_room(self, r: dict) -> RoomTask | None:
        """A room rebuilt from its log (a row of ``Store.open_rooms``), registered and started; None if
        it cannot be (logged, the room left as it is)."""
        try:
            room = Room.restore(r["log"], self.now(), self.bots)
            matches = await self.store.room_matches(r["id"])
        except Exception:
            log.exception("room %s could not be restored; left as it is", r["code"])
            return None
        task = RoomTask(self, r["id"], room, matches)
        await task.commit([])  # the restore entry
        self._register(task)
        if self.cluster is not None:
            await self.cluster.room_opened(task)
        log.info("restored room %s at rseq %d", task.id, room.rseq)
        return task

    def _register(self, task: RoomTask) -> None:
        self.rooms[task.id] = task
        self.by_invite[task.invite] = task
        for pid in task.members:
            self.where[pid] = task
        task.start()

    def auto_acted(self, n: int) -> None:
        self.metrics.auto += n

    def storage_changed(self, fault: str | None) -> None:
        for task in list(self.rooms.values()):
            task.storage_changed(fault)
        for tournament in list(self.tournaments.values()):
            tournament.storage_changed(fault)  # its clocks stand still too
        if fault is None:
            self.quick_storage_back()  # server.lobby

    def room_gone(self, task: RoomTask) -> None:
        task.closed = True
        self.rooms.pop(task.id, None)
        self.book.room_closed(task.id)
        if self.by_invite.get(task.invite) is task:
            del self.by_invite[task.invite]
        for pid, t in list(self.where.items()):
            if t is task:
                del self.where[pid]
        self.answer_lost(task.queue, NO_ROOM, "the room closed")
        if self.cluster is not None:
            self.cluster.room_closed(task)

    def members_changed(self, task: RoomTask, old: set, new: set) -> None:
        for pid in old - new:
            if self.where.get(pid) is task:
                del self.where[pid]
        for pid in new - old:
            self.where[pid] = task
        if self.cluster is not None:
            self.cluster.members_changed(task, old, new)  # presence in Redis; remote players' nodes told

    async def display_names(self, ids: set[str]) -> dict[str, str]:
        """Player id -> display name: from the live connections, else from the database."""
        out = {pid: self.conns[pid].name for pid in ids if pid in self.conns and self.conns[pid].name}
        missing = ids - out.keys()
        if missing:
            out.update(await self.store.player_names(missing))
        return out

    # -- sending -------------------------------------------------------------------------------

    def connection(self, pid: str) -> Conn | None:
        """A member's connection: their websocket here, else in a cluster the stand-in through which
        their websocket's node is sent to (a ``ProxyConn``, server/cluster/remote.py); None if neither."""
        conn = self.conns.get(pid)
        if conn is None and self.cluster is not None:
            return self.cluster.proxies.get(pid)
        return conn

    def deliver(self, pid: str, msg: dict, shared: codec.Shared | None = None) -> None:
        """A push to a player, in the encoding of their last frame; dropped if they are offline (they
        get a snapshot when they come back) or resuming (the snapshot due first has it). ``shared``:
        ``msg`` encoded once for the several players who get it."""
        conn = self.conns.get(pid)
        if conn is not None:
            if conn.snapshot_due is None or conn.wants(msg):
                if shared is None:
                    conn.push(msg)
                else:
                    conn.push_shared(shared)
        elif self.cluster is not None:
            self.cluster.deliver(pid, msg)  # a member whose websocket is on another node


WORKER = "GUOBIAO_WORKER"  # set by guobiao serve --workers for the nodes it starts


async def run(host: str, port: int, db: str, settings: Settings | None = None, ready=None,
              cluster: str | None = None) -> None:
    """Serve until SIGINT or SIGTERM, then shut down cleanly; ``cluster``: a Redis URL (docs/cluster.md)."""
    store = await open_store(db)
    app = App(store, settings)
    if cluster is not None:
        from server.cluster.node import ClusterNode
        app.cluster = ClusterNode(app, cluster)
        try:
            await app.cluster.start()
        except BaseException:
            await store.close()
            raise
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        actual = await app.start(host, port, reuse_port=cluster is not None and os.environ.get(WORKER) == "1")
    except BaseException:
        await store.close()
        raise
    if ready is not None:
        ready(actual)
    try:
        await stop.wait()
    finally:
        await app.stop()
