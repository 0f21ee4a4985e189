"""The shared lobby in Redis (docs/cluster.md "Where shared state lives"): what every node answers for
the public rooms, the tournaments and an invite code, whichever node owns the room or tournament."""

from __future__ import annotations

from server import listing
from server.cluster.keys import INVITE, LOBBY, pack, unpack
from server.invites import invite_view, parse_code


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


TOURNAMENTS = "gb:tournaments"  # tournament id -> its summary (a line of the list), written by its owner


class _Summary:
    """A tournament of the shared list as listing.tournaments reads a tournament task."""
    __slots__ = ("summary",)

    def __init__(self, summary: dict):
        self.summary = summary


async def tournaments(redis, q=None, page=None) -> dict:
    """The tournaments of every node, ranked and paged as one process lists its own (server.listing)."""
    return listing.tournaments([_Summary(unpack(v)) for v in (await redis.hgetall(TOURNAMENTS)).values()], q, page)


def tournament_listed(cluster, task) -> None:
    """The owner's line for a tournament, written (in order with the directory's writes) when it opens
    or its summary changes."""
    cluster.queue_write(lambda: cluster.redis.hset(TOURNAMENTS, task.id, pack(task.summary)))


def tournament_unlisted(cluster, task) -> None:
    """Out of the list with its task (finished a while ago: ``linger``); still in the database."""
    cluster.queue_write(lambda: cluster.redis.hdel(TOURNAMENTS, task.id))


FACE = "gb:face:"  # + invite code: the room's public face (GET /api/invite), written by its owner
FACE_KEPT = 86_400  # seconds a face outlives its last write (a room that closes deletes its invite key)


async def write_face(cluster, task) -> None:
    """The owner's copy of what GET /api/invite shows of its room, for every node to answer with."""
    view = await invite_view(cluster.app, task.invite)
    if view is not None:
        await cluster.redis.set(FACE + task.invite, pack(view), ex=FACE_KEPT)


async def invite_face(redis, text: str) -> dict | None:
    """GET /api/invite/<code> of a room on another node: its face, while its invite code is in the
    directory (the room is open), else None."""
    code = parse_code(text)
    if code is None:
        return None
    face, room = await redis.mget([FACE + code, INVITE + code])
    return unpack(face) if face is not None and room is not None else None
