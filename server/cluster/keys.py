"""The cluster's keys in Redis (docs/cluster.md "Where shared state lives") and the messages' packing."""

from __future__ import annotations

import msgpack

STREAM = "gb:node:"  # + node: the stream that node reads (commands, answers, pushes, notices)
SENT = "gb:sent:"  # + node: the number of its writer's last write landed (a write lands only as the next one)
INVITE = "gb:invite:"  # + invite code: the room's id
ROOMS = "gb:rooms"  # the ids of the open rooms of every node (looked at for expired leases)
NODES = "gb:nodes"  # the nodes' ids (told when a room moves; looked at for dead nodes)
OWNED = "gb:owned:"  # + node: the ids of the rooms that node owns (taken over when it dies)
LOBBY = "gb:lobby"  # room id -> its public summary, invite code and online members (the shared lobby)
PLAYER = "gb:player:"  # player id -> the room they are in (presence: a resume on any node finds it)
ROOM_LEASE = "room:"  # + room id: the room's lease name (server.cluster.lease)
NODE_LEASE = "node:"  # + node: held while the node is alive
TOURNAMENT_LEASE = "tournament:"  # + tournament code: its lease name


def text(value) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


def pack(msg: dict) -> bytes:
    return msgpack.packb(msg, use_bin_type=True)


def unpack(data: bytes) -> dict:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def unpack_all(data: bytes) -> list:
    """Every message of a stream entry: one, or several written back to back (``b"".join`` of packs)."""
    up = msgpack.Unpacker(raw=False, strict_map_key=False)
    up.feed(data)
    return list(up)
