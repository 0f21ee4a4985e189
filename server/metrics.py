"""What a node says about itself: ``GET /api/health`` (JSON) and ``GET /metrics`` (Prometheus).

The hot path only adds to plain numbers here (an action's latency is one ``bisect`` and two additions);
the Prometheus families are built from them when ``/metrics`` is scraped, through a collector of
this App's own ``CollectorRegistry`` (several servers in one process do not share one). Gauges
(rooms, connections, storage) are read at scrape time and cost nothing in between.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import time
from bisect import bisect_left
from collections import deque

from prometheus_client import CollectorRegistry, ProcessCollector
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.exposition import choose_encoder

LATENCY_BOUNDS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.5, 5.0)  # seconds
LAG_BOUNDS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
GC_BOUNDS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
COMMIT_BOUNDS = (0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)
LAG_EVERY = 0.5  # seconds between two event-loop lag samples
LAG_WINDOW = 120  # samples in /api/health's max_1m (a minute)


def version() -> str:
    try:
        return importlib.metadata.version("guobiao")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a checkout, not installed
        return "unknown"


# Not prometheus_client.Histogram: its observe (two locks, a scan of the bounds) took ~8,800 instructions, this ~1,800.
class Histogram:
    """Counts per bucket and a sum, as plain numbers: Prometheus' cumulative buckets are made at scrape time."""

    __slots__ = ("bounds", "counts", "sum")

    def __init__(self, bounds: tuple[float, ...]):
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)  # the last: above every bound (+Inf only)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect_left(self.bounds, value)] += 1  # bucket i: value <= bounds[i] (Prometheus' "le")
        self.sum += value

    @property
    def count(self) -> int:
        return sum(self.counts)

    def buckets(self) -> list[tuple[str, int]]:
        out, total = [], 0
        for bound, n in zip(self.bounds, self.counts):
            total += n
            out.append((repr(float(bound)), total))
        out.append(("+Inf", total + self.counts[-1]))
        return out

    def family(self, name: str, doc: str) -> HistogramMetricFamily:
        return HistogramMetricFamily(name, doc, buckets=self.buckets(), sum_value=self.sum)


HTTP_CLASSES = ("1xx", "2xx", "3xx", "4xx", "5xx")


class Metrics:
    """One App's numbers, and the collector that shows them (``collect``)."""

    def __init__(self, app):
        self.app = app
        self.loop = app.loop
        self.started = time.time()
        self.started_at = self.loop.time()
        self.version = version()
        # Actions (``act`` frames): answered ok (applied, every seat's messages written) or refused.
        self.actions = 0
        self.refused = 0
        self.auto = 0  # moves the server made for a seat (bots, 托管, timeouts): no frame, logged as "act"
        self.action_latency = Histogram(LATENCY_BOUNDS)  # frame read -> last seat's message written
        self.loop_lag = Histogram(LAG_BOUNDS)
        self.lag_recent: deque[float] = deque(maxlen=LAG_WINDOW)
        self.commits = Histogram(COMMIT_BOUNDS)  # one group commit of the action log
        self.commit_writes = 0  # room writes in those commits
        self.gc_pauses = [Histogram(GC_BOUNDS) for _ in range(3)]  # collections, by generation (server.gctune)
        self.overflows = 0  # connections cut off: their outgoing queue was full (Limits.out_queue/out_bytes)
        self.dropped = 0  # messages never sent: queued for a connection that was cut off or closed
        self.handshakes = 0  # websocket handshakes let through (GET /ws)
        self.http = dict.fromkeys(HTTP_CLASSES, 0)  # HTTP answers by status class (not the websocket's)
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self)
        ProcessCollector(registry=self.registry)  # CPU, memory, open files (reads /proc at scrape time)

    # -- the hot path: plain numbers only -------------------------------------------------------

    def acted(self, conn, msg: dict) -> None:
        """The answer to an ``act`` is being sent (server.frames): every other seat's messages were
        written before it, and the sender's own update goes in the same write."""
        started, conn.act_req = conn.act_at, None
        if msg["t"] == "ok":
            self.actions += 1
            # Histogram.observe inlined: ~1,460 instructions instead of ~1,800 per play (docs/performance.md)
            h, seconds = self.action_latency, self.loop.time() - started
            h.counts[bisect_left(h.bounds, seconds)] += 1
            h.sum += seconds
        else:
            self.refused += 1

    def committed(self, seconds: float, writes: int) -> None:
        """``Store.on_commit``: a group commit landed."""
        self.commits.observe(seconds)
        self.commit_writes += writes

    def gc_paused(self, generation: int, seconds: float) -> None:
        """A garbage collection of ``generation`` (0-2) held the event loop ``seconds``."""
        self.gc_pauses[min(generation, 2)].observe(seconds)

    def conn_closed(self, conn) -> None:
        if conn.close_reason == "too slow":
            self.overflows += 1
        self.dropped += conn.dropped + len(conn.queue)

    def http_answer(self, status: int) -> None:
        self.http[HTTP_CLASSES[min(max(status // 100, 1), 5) - 1]] += 1

    async def watch_loop(self, every: float = LAG_EVERY) -> None:
        """Event-loop lag: how late a timer of ``every`` seconds fires (the loop was busy that long)."""
        loop = self.loop
        while True:
            due = loop.time() + every
            await asyncio.sleep(every)
            lag = max(0.0, loop.time() - due)
            self.loop_lag.observe(lag)
            self.lag_recent.append(lag)

    # -- read at request time ----------------------------------------------------------------------

    def websockets_open(self) -> int:
        server = self.app.server
        return 0 if server is None else len(server.connections)

    def tournaments_open(self) -> int:
        """Tournaments not over: a finished one still listed for a while is not counted."""
        return sum(1 for x in self.app.tournaments.values() if not x.t.over)

    def health(self) -> tuple[int, dict]:
        """GET /api/health: 200, or 503 while the storage holds writes back (play is paused)."""
        app = self.app
        fault = app.store.fault
        recent = self.lag_recent
        body = {
            "ok": fault is None,
            "version": self.version,
            "uptime": round(self.loop.time() - self.started_at, 3),
            "rooms": len(app.rooms),
            "tournaments": self.tournaments_open(),
            "connections": self.websockets_open(),
            "players": len(app.conns),
            "loop_lag_ms": {"last": round(1000 * recent[-1], 3) if recent else None,
                            "max_1m": round(1000 * max(recent), 3) if recent else None},
            "storage": {"state": "ok" if fault is None else "paused", "reason": fault},
        }
        return (200 if fault is None else 503), body

    def render(self, accept: str | None) -> tuple[bytes, str]:
        """The exposition for a scrape: the format its Accept header asks for, Prometheus text by default."""
        encoder, content_type = choose_encoder(accept or "")
        return encoder(self.registry), content_type

    def collect(self):
        """The collector ``registry`` calls at each scrape."""
        app = self.app
        p = "guobiao_"

        def gauge(name: str, doc: str, value: float) -> GaugeMetricFamily:
            return GaugeMetricFamily(p + name, doc, value=value)

        def counter(name: str, doc: str, value: float) -> CounterMetricFamily:
            return CounterMetricFamily(p + name, doc, value=value)

        yield self._info()
        yield gauge("uptime_seconds", "Seconds since the server started.", self.loop.time() - self.started_at)
        yield gauge("connections", "Open websocket connections.", self.websockets_open())
        yield gauge("players", "Players signed in (one connection each).", len(app.conns))
        yield gauge("rooms", "Rooms open on this node.", len(app.rooms))
        yield gauge("tournaments", "Tournaments not yet over on this node.", self.tournaments_open())
        yield gauge("storage_paused", "1 while the storage holds writes back (disk full, file removed).",
                    0 if app.store.fault is None else 1)
        actions = CounterMetricFamily(p + "actions", "Actions: act frames answered (ok, refused) and moves "
                                      "the server made for a seat (auto: bots, 托管, timeouts).",
                                      labels=["result"])
        actions.add_metric(["ok"], self.actions)
        actions.add_metric(["refused"], self.refused)
        actions.add_metric(["auto"], self.auto)
        yield actions
        yield self.action_latency.family(
            p + "action_latency_seconds",
            "From an accepted action's frame being read to the last seat's message being written.")
        yield self.loop_lag.family(p + "event_loop_lag_seconds",
                                   f"How late a {LAG_EVERY} s timer fires: the event loop was busy that long.")
        yield gauge("event_loop_lag_last_seconds", "The last event-loop lag sample.",
                    self.lag_recent[-1] if self.lag_recent else 0.0)
        yield self.commits.family(p + "commit_seconds", "One group commit of the action log.")
        yield counter("commit_writes", "Room writes committed (several rooms share a commit).", self.commit_writes)
        gc_pauses = HistogramMetricFamily(p + "gc_pause_seconds", "One garbage collection (the event loop "
                                          "stood still): 0 and 1 young, 2 full.", labels=["generation"])
        for generation, h in enumerate(self.gc_pauses):
            gc_pauses.add_metric([str(generation)], h.buckets(), h.sum)
        yield gc_pauses
        yield counter("outgoing_overflows", "Connections cut off because their outgoing queue was full.",
                      self.overflows)
        yield counter("outgoing_dropped", "Messages never sent: queued for a connection cut off or closed.",
                      self.dropped)
        yield counter("websocket_handshakes", "Websocket handshakes let through.", self.handshakes)
        http = CounterMetricFamily(p + "http_requests", "HTTP requests answered, by status class.",
                                   labels=["code"])
        for k, v in self.http.items():
            http.add_metric([k], v)
        yield http

    def _info(self) -> GaugeMetricFamily:
        info = GaugeMetricFamily("guobiao_build_info", "Always 1; the server's version is its label.",
                                 labels=["version"])
        info.add_metric([self.version], 1)
        return info
