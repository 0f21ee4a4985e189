"""The HTTP API (GET /api/...; server.http serves it on the websocket port): the server's health, the
public rooms and tournaments, what an invite code opens, a tournament as anybody may see it, a player's
page, a finished match's replay file. A mixin of ``server.app.App``.
"""

from __future__ import annotations

import asyncio

from server import listing, profiles
from server.cluster import lobby as cluster_lobby
from server.invites import invite_view
from server.http import parse_id
from server.replays import TooOften
from server.roomitems import ViewAsked
from server.store import StorageError

VIEW_WAIT = 5.0  # seconds a tournament's view may wait for its task (a write held back by the storage)


class Api:
    """Mixin of ``server.app.App``: the answers to GET /api/... ."""

    async def api(self, path: str, address: str | None = None, query: str = "") -> tuple[int, object]:
        """``address``: the client's (server.quotas.address_of), for the replays' rate; ``query``: the
        URL's query string (paging)."""
        parts = path.strip("/").split("/")
        if (routed := await profiles.api(self, parts, query)) is not None:
            return routed  # players and leaderboards (server.profiles)
        if parts == ["api", "health"]:
            return self.metrics.health()  # server.metrics
        if parts == ["api", "rooms"] and self.cluster is not None:  # every node's (docs/cluster.md)
            return 200, await cluster_lobby.rooms(self.cluster.redis)
        if parts == ["api", "rooms"]:
            return 200, listing.rooms(self.rooms.values(), self.conns)
        if parts == ["api", "tournaments"] and self.cluster is not None:
            return 200, await cluster_lobby.tournaments(self.cluster.redis)
        if parts == ["api", "tournaments"]:
            return 200, listing.tournaments(self.tournaments.values())
        if len(parts) == 3 and parts[:2] == ["api", "tournaments"] and parts[2] in self.tournaments:
            return await self.tournament_view(self.tournaments[parts[2]])
        if len(parts) == 3 and parts[:2] == ["api", "tournaments"]:
            view = await self.closed_tournament_view(parts[2])
            if view is not None:
                return 200, view
        if len(parts) == 3 and parts[:2] == ["api", "invite"]:
            if not await self.book.invite(address, self.loop.time()):
                return 429, {"error": "too_many_requests"}
            view = await invite_view(self, parts[2])
            if view is None and self.cluster is not None:  # a room on another node
                view = await cluster_lobby.invite_face(self.cluster.redis, parts[2])
            if view is not None:
                return 200, view
        if len(parts) == 3 and parts[:2] == ["api", "matches"] and (match_id := parse_id(parts[2])) is not None:
            try:
                m = await self.replay_file(match_id, address)
            except TooOften:
                return 429, {"error": "too_many_requests"}
            if m is not None:
                return 200, m
        return 404, {"error": "not_found"}

    async def tournament_view(self, task) -> tuple[int, object]:
        """What anybody may see of a running tournament, built by its task: what its log holds, never a
        change still waiting for its write. 503 while that wait lasts (the storage refuses writes)."""
        answer = self.loop.create_future()
        task.put(ViewAsked(answer))
        try:
            return 200, await asyncio.wait_for(answer, VIEW_WAIT)
        except (TimeoutError, StorageError):  # a write waits, or the names cannot be read
            return 503, {"error": "storage"}
