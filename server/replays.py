"""Finished matches' replay files (GET /api/matches/<id>) and closed tournaments' final views: built
off the event loop, kept in caches bounded by their measured size, and rebuilt at most so often per
address (a client cycling through more ids than the cache holds made the server replay a whole match
for every request). A mixin of ``server.app.App``; docs/protocol.md "Limits and quotas".
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict

import orjson

from game.actions import from_dict
from game.match import replay_hands
from game.rules import Rules
from rooms.records import json_seed
from rooms.text import disambiguate
from rooms.tournament.tournament import Tournament

log = logging.getLogger("guobiao.server")

CACHE_BYTES = 16 << 20  # each cache: the JSON size of what it keeps (a 16-hand replay file is ~0.3 MB)
CACHE_ENTRIES = 256
BUILDERS = 2  # replays and tournament rebuilds at once, in threads (each holds the GIL while it runs)


class SizedCache:
    """Least recently used first out, when the JSON sizes of the values pass ``max_bytes`` (or there
    are more than ``max_entries``). The size is measured once, when a value comes in."""

    def __init__(self, max_bytes: int = CACHE_BYTES, max_entries: int = CACHE_ENTRIES):
        self.max_bytes, self.max_entries = max_bytes, max_entries
        self.items: OrderedDict = OrderedDict()  # key -> (value, size)
        self.bytes = 0

    def __len__(self) -> int:
        return len(self.items)

    def get(self, key):
        """``cache[key]`` (now the most recently used), or None."""
        hit = self.items.get(key)
        if hit is None:
            return None
        self.items.move_to_end(key)
        return hit[0]

    def put(self, key, value, size: int):
        """Keep ``value`` (``size`` bytes) unless it alone is over the bound; returns it."""
        self.pop(key)
        if size > self.max_bytes:
            return value
        self.items[key] = (value, size)
        self.bytes += size
        while self.bytes > self.max_bytes or len(self.items) > self.max_entries:
            _, (_, n) = self.items.popitem(last=False)
            self.bytes -= n
        return value

    def pop(self, key) -> None:
        hit = self.items.pop(key, None)
        if hit is not None:
            self.bytes -= hit[1]

    def clear(self) -> None:
        self.items.clear()
        self.bytes = 0


def _replay_streams(m: dict) -> list[list[dict]]:
    """Each hand's events, replayed from a stored match record's actions."""
    log_ = [(p, from_dict(a)) for p, a in m["actions"]]
    return replay_hands(Rules(**m["rules"]), log_, seed=m["seed"], log_format=m.get("log_format", 1))


def _replay_file(m: dict) -> tuple[dict, int]:
    """(the replay file, its JSON size): in a thread."""
    try:
        streams = _replay_streams(m)
    except Exception:  # a log this server cannot replay: served without events (the client says so)
        log.warning("match %s does not replay", m.get("id"), exc_info=True)
        streams = None
    for rec in m["hands"] if streams else ():
        rec["events"] = streams[rec["hand"]]
    m["seed"] = json_seed(m["seed"])
    return m, len(orjson.dumps(m))


def _tournament_view(entries: list) -> tuple[Tournament, dict, int]:
    t = Tournament.replay(entries)
    view = t.view(None)
    return t, view, len(orjson.dumps(view))


class Replays:
    """Mixin of ``server.app.App``: needs ``store``, ``book``, ``display_names``, ``loop``, ``tournaments``."""

    def init_replays(self) -> None:
        self.replays = SizedCache()  # match id -> its replay file
        self.closed_views = SizedCache()  # closed tournament -> its final view
        self.builders = asyncio.Semaphore(BUILDERS)

    async def replay_allowed(self, address: str | None) -> bool:
        """GET /api/matches/<id> from ``address``: whether one more replay may be built for it now
        (a cached one is always served)."""
        return await self.book.replay(address, self.loop.time())

    async def replay_file(self, match_id: int, address: str | None = None) -> dict | None:
        """A finished match as GET /api/matches/<id> serves it: the stored record, and for each hand
        the events its replay shows, computed by replaying the log in a thread (the client runs no
        game). Raises ``TooOften`` when it is not cached and ``address`` has built too many lately."""
        cached = self.replays.get(match_id)
        if cached is not None:
            return cached
        if not await self.replay_allowed(address):
            raise TooOften()
        m = await self.store.finished_match(match_id)
        if m is None or any(t.walls_secret(m["room"]) for t in self.tournaments.values()):
            return None  # unknown, still played, or a duplicate table whose walls others still play
        async with self.builders:
            m, size = await asyncio.to_thread(_replay_file, m)
        return self.replays.put(match_id, m, size)

    async def closed_tournament_view(self, code: str) -> dict | None:
        """A tournament that ended and is no longer kept in memory (``Settings.linger``), as anybody
        may see it (``view(None)``), rebuilt from its log; None if there is no such closed tournament.
        Those served lately are kept (a closed tournament does not change)."""
        if not isinstance(code, str) or len(code) >= 32:
            return None
        view = self.closed_views.get(code)
        if view is not None:
            return view
        entries = await self.store.closed_tournament(code)
        if entries is None:
            return None
        async with self.builders:
            t, view, size = await asyncio.to_thread(_tournament_view, entries)
        names = await self.display_names(set(t.participants()))
        view["names"] = disambiguate({i: names[i] for i in t.participants() if i in names})
        return self.closed_views.put(code, view, size)


class TooOften(Exception):
    """Replays asked for too often from one address (HTTP 429)."""
