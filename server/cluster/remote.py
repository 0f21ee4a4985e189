"""What stands, on one node, for a room or a player on another (docs/cluster.md "Messages between
nodes"): a ``RemoteRoom`` on the player's node where a room task would be, a ``ProxyConn`` on the room's
owner where a connection would be."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.roomitems import Connect, RoomRef

if TYPE_CHECKING:
    from server.cluster.node import ClusterNode


class RemoteReq:
    """The request of a frame answered on another node: stands where a frame's id is on the owner; the
    answer carrying it goes back to the frame's node (``ProxyConn``)."""
    __slots__ = ("token",)

    def __init__(self, token: str):
        self.token = token


class ProxyConn:
    """On a room's owner: a player whose websocket is on another node. The room task uses it as a
    connection; what it is sent goes to that node, numbered there."""

    act_req = waiting = inbox = None  # server.frames.reply: no frame of its own waits here
    snapshot_due: str | None = None
    closed = False

    def __init__(self, cluster: ClusterNode, node: str, pid: str, name: str | None, encoding: str):
        self.cluster, self.node, self.player, self.name, self.encoding = cluster, node, pid, name, encoding

    def _out(self, kind: str, msg: dict, encoding: str | None) -> None:
        re = msg.get("re")
        if isinstance(re, RemoteReq):  # an answer (server.frames.reply put the request in)
            body = {k: v for k, v in msg.items() if k != "re"}
            self.cluster.send(self.node, {"k": "reply", "req": re.token, "msg": body})
        else:
            self.cluster.send(self.node, {"k": kind, "pid": self.player, "msg": msg, "enc": encoding})

    def push(self, msg: dict, encoding: str | None = None) -> None:
        self._out("push", msg, encoding)

    def send(self, msg: dict, encoding: str | None = None) -> None:
        self._out("send", msg, encoding)

    def cork(self) -> None:
        pass  # the messages leave in order on the node's stream; the real connection corks nothing here

    def uncork(self) -> None:
        pass

    def coalesce_snapshot(self) -> bool:
        return False

    def queued_snapshot(self) -> None:
        pass


class RemoteRoom(RoomRef):
    """On a player's node: the room they are in, owned by another node. It stands in ``App.where`` where
    a room task would; what is put to it goes to the owner (``ClusterNode.forward``)."""
    __slots__ = ("cluster", "owner", "id")

    def __init__(self, cluster: ClusterNode, owner: str, room_id: str):
        self.cluster, self.owner, self.id = cluster, owner, room_id

    def put(self, item) -> None:
        self.cluster.forward(self, item)

    def reconnect(self, pid: str, conn) -> None:
        conn.snapshot_due = self.id
        self.put(Connect(pid, conn))
