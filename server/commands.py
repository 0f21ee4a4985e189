"""The command table: a frame's ``t`` -> its handler. ``server.frames`` decodes a frame, checks its fields
(server.schema) and calls the handler; this module says where each command goes.

A handler is ``handler(app, conn, msg, req)``. It answers the frame itself (``app.reply``), or puts it on a
queue whose task answers it (a room's, a tournament's, the quick match's), or returns the coroutine that
answers it when it must wait (a sign-in, a new room, a closed tournament read back). A ``ProtocolError``
or ``RoomError`` it raises is the frame's answer (server.frames ``_answer_failure``).
"""

from __future__ import annotations

from rooms import text as policy
from rooms.quickmatch import HANDS
from rooms.types import ROOM_TYPES
from server import listing, schema
from server.cluster import lobby as cluster_lobby
from server.codec import BAD_FIELD, UNKNOWN_TYPE, ProtocolError
from server.errors import CHAT_BAD, CHAT_TOO_FAST, IN_ROOM, NO_ROOM, NOT_IN_ROOM, NOT_SIGNED_IN
from server.roomitems import ChatAsked, Command, HistoryAsked, QuickAsked, QuickCancel, RoomRef, SnapshotAsked
from server.roomtask import CHAT_MAX


def _room(app, pid: str) -> RoomRef:
    """The player's room, or lobby/not_in_room."""
    task = app.where.get(pid)
    if not isinstance(task, RoomRef):
        raise ProtocolError(NOT_IN_ROOM, "you are not in a room")
    return task


# -- before sign-in ---------------------------------------------------------------------------------

def ping(app, conn, msg, req):
    app.reply(conn, req, {"t": "pong"})


def sign_in(app, conn, msg, req):
    return app.sign_in(conn, msg, req)  # server.auth


# -- signed in ----------------------------------------------------------------------------------------

def account(app, conn, msg, req):
    return app.account_command(conn, msg, req)  # server.auth


def room_command(app, conn, msg, req):
    """A command the room handles as it is (``schema.ROOM_COMMANDS``)."""
    pid = conn.player
    task = _room(app, pid)
    if msg["t"] == "rematch":
        if app.cluster is not None:  # the rate shared by the nodes, in Redis (server.cluster.quotas)
            return app.book.rematch_then(pid, task, Command(pid, conn, req, msg))
        app.book.rematch(pid, app.loop.time())
    task.put(Command(pid, conn, req, msg))


def act(app, conn, msg, req):
    """A play, timed from here (the frame was just read) to its answer (server.metrics)."""
    task = _room(app, conn.player)
    conn.act_req, conn.act_at = req, app.loop.time()
    task.put(Command(conn.player, conn, req, msg))


def rooms(app, conn, msg, req):
    if app.cluster is not None:  # every node's rooms, from Redis (docs/cluster.md)
        return app.cluster.rooms(conn, msg, req)
    found = listing.rooms(app.rooms.values(), app.conns, msg.get("q"), msg.get("page"))
    app.reply(conn, req, {"t": "rooms", **found})


def snapshot(app, conn, msg, req):
    _room(app, conn.player).put(SnapshotAsked(conn.player, conn, req))


def history(app, conn, msg, req):
    _room(app, conn.player).put(HistoryAsked(conn.player, conn, req, max(0, msg.get("page", 0))))


def matches(app, conn, msg, req):
    page = msg.get("page", 0)
    if not 0 <= page <= 10_000:
        raise ProtocolError(BAD_FIELD, "page: 0 to 10000")

    async def answer():
        app.reply(conn, req, await app.ratings.own_matches(conn.player, page, app.display_names))
    return answer()


def chat(app, conn, msg, req):
    try:
        text = policy.clean(msg["text"], CHAT_MAX, "a chat line")  # rooms/text.py
    except ValueError as e:
        raise ProtocolError(CHAT_BAD, str(e)) from None
    task = _room(app, conn.player)
    if not conn.chat.take(app.loop.time()):
        raise ProtocolError(CHAT_TOO_FAST, "chat less often")
    task.put(ChatAsked(conn.player, conn, req, text))


def create(app, conn, msg, req):
    return app.create(conn, msg, req)  # server.lobby


def join(app, conn, msg, req):
    """``join`` and ``watch``: to the room named, which must be the player's own if they have one."""
    pid = conn.player
    task = app.where.get(pid)
    app.not_busy(pid, allow=task)
    try:
        target = app.find_room(msg)
    except ProtocolError as e:
        if e.code != NO_ROOM or app.cluster is None or task is not None:
            raise
        return app.cluster.join_remote(conn, msg, req)  # maybe on another node (docs/cluster.md)
    if isinstance(task, RoomRef) and task is not target:
        raise ProtocolError(IN_ROOM, "leave your room first")
    cmd = {k: v for k, v in msg.items() if k != "room"}
    target.put(Command(pid, conn, req, cmd))


def quick(app, conn, msg, req):
    room_type = msg.get("type", "guobiao")
    if room_type not in ROOM_TYPES:
        raise ProtocolError(BAD_FIELD, f"type: one of {sorted(ROOM_TYPES)}")
    bots = msg.get("bots", True)
    wait = msg.get("wait", app.settings.quick_wait)
    if not 0 <= wait <= 600:
        raise ProtocolError(BAD_FIELD, "wait: seconds, 0 to 600")
    hands = msg.get("hands", app.settings.quick_config.get("hands", 4))
    if hands not in HANDS:
        raise ProtocolError(BAD_FIELD, "hands: 4, 8 or 16")
    app.not_busy(conn.player)
    app.quick_queue.put_nowait(QuickAsked(conn.player, conn, req, room_type, float(wait) if bots else None, hands))


def quick_cancel(app, conn, msg, req):
    app.quick_queue.put_nowait(QuickCancel(conn.player, conn, req))


def tournaments(app, conn, msg, req):
    if app.cluster is not None:  # every node's tournaments, from Redis (docs/cluster.md)
        return _shared_tournaments(app, conn, msg, req)
    found = listing.tournaments(app.tournaments.values(), msg.get("q"), msg.get("page"))
    app.reply(conn, req, {"t": "tournaments", **found})


async def _shared_tournaments(app, conn, msg, req):
    found = await cluster_lobby.tournaments(app.cluster.redis, msg.get("q"), msg.get("page"))
    app.reply(conn, req, {"t": "tournaments", **found})


def tournament_create(app, conn, msg, req):
    return app.create_tournament(conn, msg, req)  # server.events


def tournament(app, conn, msg, req):
    if msg.get("tournament") not in app.tournaments:
        if app.cluster is not None:  # maybe on another node (server.cluster.tourney)
            return app.cluster.tourneys.follow(conn, msg, req)
        return app.closed_tournament(conn, req, msg.get("tournament"))
    app.follow(conn.player, app.find_tournament(msg), conn, req)


def tournament_cmd(app, conn, msg, req):
    if app.cluster is not None and msg.get("tournament") not in app.tournaments:
        return app.cluster.tourneys.command(conn, msg, req)  # maybe on another node
    app.find_tournament(msg).put(Command(conn.player, conn, req, msg["cmd"]))


# Commands a connection may send before it signs in; every other one needs a player.
BEFORE_SIGN_IN = {"ping": ping, "guest": sign_in, "resume": sign_in, "login": sign_in}

HANDLERS = {
    **BEFORE_SIGN_IN,
    **{t: account for t in schema.ACCOUNT_FIELDS},
    **{t: room_command for t in schema.ROOM_COMMANDS}, "act": act,
    "rooms": rooms, "snapshot": snapshot, "history": history, "chat": chat, "matches": matches,
    "create": create, "join": join, "watch": join, "quick": quick, "quick_cancel": quick_cancel,
    "tournaments": tournaments, "tournament_create": tournament_create,
    "tournament": tournament, "tournament_cmd": tournament_cmd,
}


class Commands:
    """Mixin of ``server.app.App``: a checked command to its handler."""

    def dispatch(self, conn, msg: dict, req: tuple):
        """Handle a message; returns the coroutine that finishes it when it must wait, else None."""
        t = msg["t"]
        if t not in schema.COMMANDS:
            raise ProtocolError(UNKNOWN_TYPE, f"unknown message type {t!r}")
        schema.check(msg)  # protocol/bad_field: unknown fields, wrong types, missing ones
        if conn.player is None and t not in BEFORE_SIGN_IN:
            raise ProtocolError(NOT_SIGNED_IN, 'sign in first: {"t": "guest", "name": ...}')
        return HANDLERS[t](self, conn, msg, req)
