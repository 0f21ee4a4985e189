"""Ratings, statistics and leaderboards for the server (docs/ratings.md): finished matches are taken
in as they are persisted (on the store's aiosqlite connection, one transaction each), and
``GET /api/players/<id>`` and ``GET /api/leaderboard/<room type>`` read the derived tables.
"""

from __future__ import annotations

import asyncio
import json
import logging
from urllib.parse import parse_qs

from rooms.types import ROOM_TYPES
from server.store_ratings import count_match, leaderboard, position, profile, uncounted

log = logging.getLogger("guobiao.ratings")

PER_PAGE = 20  # matches per page of a profile, players per page of a leaderboard
OWN_PAGE = 10  # matches per page of ``matches`` (your own, for the lobby)
BOARD_TOP = 100  # a leaderboard lists the best this many
BOARD_TTL = 10.0  # seconds a leaderboard is served from memory (a rated match ending also refreshes it)
MAX_PAGE = 10_000


def rated(config) -> bool:
    """Quick matches and private rooms whose host chose ``ranked``; tournament tables never."""
    return bool(config.ranked) and not config.table


class Ratings:
    def __init__(self, store, loop: asyncio.AbstractEventLoop):
        self.store = store
        self.loop = loop
        self.jobs: set[asyncio.Task] = set()
        self.boards: dict[str, tuple[float, list]] = {}  # room type -> (loop time, top entries)

    def match_finished(self, match_id: int | None, config, record: dict) -> None:
        """A match's result was just committed: take it in (a task of its own: the room does not wait)."""
        if match_id is None:  # pragma: no cover - its start was never recorded
            return
        job = self.loop.create_task(self._count(match_id, config.type, rated(config), record))
        self.jobs.add(job)
        job.add_done_callback(self.jobs.discard)

    async def _count(self, match_id: int, room_type: str, is_rated: bool, record: dict | None) -> None:
        try:
            async with self.store.transaction() as db:
                done = await count_match(db, match_id, room_type, is_rated, record)
        except Exception:  # left uncounted: the next start takes it in (catch_up)
            log.exception("match %d: ratings and statistics not updated", match_id)
            return
        if done and is_rated:
            self.boards.pop(room_type, None)

    async def rating(self, pid: str, room_type: str) -> float:
        """A player's rating (mu - 3 sigma) for a room type; 0 for one not yet rated."""
        rows = await self.store.fetchall(
            "SELECT score FROM ratings WHERE player_id = ? AND room_type = ?", (pid, room_type))
        return rows[0][0] if rows else 0.0

    async def catch_up(self, batch: int = 100) -> int:
        """Take in finished matches that were not (the server stopped first, or they predate migration 5)."""
        n = 0
        while True:
            async with self.store.connection() as db:
                rows = await uncounted(db, batch)
            if not rows:
                return n
            for match_id, config in rows:
                cfg = json.loads(config)
                is_rated = bool(cfg.get("ranked")) and not cfg.get("table")
                await self._count(match_id, cfg.get("type", "guobiao"), is_rated, None)
                n += 1

    async def settle(self) -> None:
        """Wait for the jobs under way (tests, shutdown)."""
        while self.jobs:
            await asyncio.gather(*list(self.jobs), return_exceptions=True)

    async def own_matches(self, pid: str, page: int, names) -> dict:
        """The ``matches`` command: the player's own finished matches, newest first, whether or not their
        profile hides them; ``names``: ``App.display_names``."""
        rows = await self.store.fetchall(
            "SELECT match_id, room_type, place, points, abandoned, rating, finished_at FROM player_matches"
            " WHERE player_id = ? ORDER BY finished_at DESC, match_id DESC LIMIT ? OFFSET ?",
            (pid, OWN_PAGE, page * OWN_PAGE))
        (total,) = (await self.store.fetchall("SELECT COUNT(*) FROM player_matches WHERE player_id = ?", (pid,)))[0]
        seats = {}  # match id -> (hands, player ids by first-round seat, None: a bot)
        if rows:
            ids = [r[0] for r in rows]
            for mid, players, rules in await self.store.fetchall(
                    f"SELECT id, players, rules FROM matches WHERE id IN ({','.join('?' * len(ids))})", ids):
                seats[mid] = (json.loads(rules).get("hands"), json.loads(players))
        known = await names({p for _, ps in seats.values() for p in ps if p and p != pid})
        items = []
        for r in rows:
            hands, players = seats.get(r[0], (None, []))
            items.append({"id": r[0], "type": r[1], "hands": hands, "place": r[2], "points": r[3],
                          "abandoned": bool(r[4]), "rating": None if r[5] is None else round(r[5], 2),
                          "finished_at": r[6], "others": [known[p] for p in players if p in known],
                          # a seat no player has: a bot's (its name is no player id)
                          "bots": sum(p != pid and p not in known for p in players), "replay": f"/api/matches/{r[0]}"})
        return {"t": "matches", "page": page, "per_page": OWN_PAGE, "total": total, "items": items}

    # -- HTTP ----------------------------------------------------------------------------------

    async def player(self, base: dict, query: str) -> dict:
        """``base`` (server.auth player_api) with the player's ratings, statistics, matches and curves,
        unless they hide their history (then only ``base``)."""
        if base["hide_history"]:
            return base
        page = _page(query)
        async with self.store.connection() as db:
            data = await profile(db, base["player"], page, PER_PAGE)
        return {**base, **data}

    async def leaderboard(self, room_type: str, query: str) -> tuple[int, dict]:
        if room_type not in ROOM_TYPES:
            return 404, {"error": "not_found"}
        page = _page(query)
        cached = self.boards.get(room_type)
        if cached is None or self.loop.time() - cached[0] > BOARD_TTL:
            async with self.store.connection() as db:
                top = await leaderboard(db, room_type, BOARD_TOP)
            cached = self.boards[room_type] = (self.loop.time(), top)
        top = cached[1]
        out = {"type": room_type, "page": page, "per_page": PER_PAGE, "total": len(top),
               "entries": top[page * PER_PAGE:(page + 1) * PER_PAGE], "you": None}
        pid = parse_qs(query).get("player", [""])[0]
        if 0 < len(pid) <= 32 and pid.isascii() and pid.isalnum():
            async with self.store.connection() as db:
                out["you"] = await position(db, room_type, pid)
        return 200, out


def _page(query: str) -> int:
    """``page=N`` of a query string (0 when absent or not a small number)."""
    v = parse_qs(query).get("page", ["0"])[0]
    return int(v) if v.isascii() and v.isdigit() and len(v) <= 6 and int(v) <= MAX_PAGE else 0


async def api(app, parts: list[str], query: str) -> tuple[int, object] | None:
    """The routes of this module, or None for a path that is not one of them."""
    if len(parts) == 3 and parts[:2] == ["api", "leaderboard"]:
        return await app.ratings.leaderboard(parts[2], query)
    if len(parts) == 3 and parts[:2] == ["api", "players"]:
        base = await app.player_api(parts[2])
        return (404, {"error": "not_found"}) if base is None else (200, await app.ratings.player(base, query))
    return None
