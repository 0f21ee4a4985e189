"""The shared lobby's lists read from Redis (docs/cluster.md "Where shared state lives"): what every
node answers for the public rooms, whichever node owns them."""

from __future__ import annotations

from server import listing
from server.cluster.keys import LOBBY, unpack


class _Listed:
    """A room of the shared lobby as listing.rooms reads a room task."""
    __slots__ = ("summary", "invite")

    def __init__(self, summary: dict, invite: str):
        self.summary, self.invite = summary, invite


async def rooms(redis, q=None, page=None) -> dict:
    """The public rooms of every node, ranked and paged as one process lists its own (server.listing)."""
    entries = [unpack(v) for v in (await redis.hgetall(LOBBY)).values()]
    listed = [_Listed(e["summary"], e["invite"]) for e in entries]
    online = {p for e in entries for p in e["online"]}
    return listing.rooms(listed, online, q, page)
