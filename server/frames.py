"""Frames in, direct replies out: the rate limit, decoding, the hand-over to the command table
(server.commands), and the answer to each frame (``App.reply``). A mixin of ``server.app.App``.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque

from rooms.errors import RoomError
from server import codec
from server.codec import ProtocolError
from server.errors import BAD_FIELD, INTERNAL, RATE_LIMITED
from server.conn import Conn, IdleTimer
from server.roomitems import asked

log = logging.getLogger("guobiao.server")

CLOSE_ABUSE = 4003  # too many rate-limited frames in a row

SECRET_FIELDS = frozenset(("password", "new"))  # passwords (server.auth): never logged

class Frames:
    """Mixin of ``server.app.App``: frames in, direct replies out."""

    def reply(self, conn: Conn, req: tuple, msg: dict) -> None:
        """The answer to a frame: in that frame's encoding, echoing its ``id`` as ``re``. The answer to
        the frame the connection waits on lets its next frames be handled."""
        encoding, rid = req
        if rid is not None:
            msg = {**msg, "re": rid}
        if msg["t"] == "snapshot":  # a room message: numbered like the pushes
            conn.push(msg, encoding)
        else:
            conn.send(msg, encoding)
        if req is conn.act_req:  # an action's answer: what it sent every seat is written by now
            self.metrics.acted(conn, msg)
        if req is conn.waiting:
            conn.waiting = None
            if conn.inbox:  # not from here: the caller (a room's task, a commit) finishes first
                self.loop.call_soon(self._resume, conn)

    # -- frames --------------------------------------------------------------------------------
    # A frame is handled as soon as it is read, on the reading callback (server.wsconn), unless an
    # earlier frame of the connection is not answered yet (``conn.waiting``: it went onto a room's,
    # a tournament's or the quick-match queue, or it waits for the database): then it waits in
    # ``conn.inbox`` until that answer is sent. So a connection's frames take effect in the order
    # sent, whichever queue each goes to (``join`` then ``ready`` finds the player in the room).

    def on_message(self, conn: Conn, idle: IdleTimer, frame: bytes | str) -> None:
        idle.wait()  # the wait for the next frame starts now
        if conn.closed or not self._admit(conn, frame):
            return
        if conn.waiting is not None or conn.inbox:
            if conn.inbox is None:
                conn.inbox = deque()
            if len(conn.inbox) >= self.limits.inbox:
                self._refuse(conn, frame, "too many frames waiting for an answer")
                return
            conn.inbox.append(frame)
            if conn.waiting is not None and self.loop.time() - conn.since > self.limits.answer_wait:
                # A bug lost the answer (a task that ended with the frame in its queue): go on.
                log.warning("%r: no answer to a frame for %.0f s; the next ones are handled", conn,
                            self.limits.answer_wait)
                conn.waiting = None
                self._resume(conn)
            return
        self._take(conn, frame)

    def _take(self, conn: Conn, frame) -> None:
        """Handle ``frame``, then the frames waiting behind it, until one waits for its answer."""
        while True:
            conn.since = self.loop.time()
            work = self.take_frame(conn, frame)
            if work is not None:
                conn.worker = self.loop.create_task(self._work(conn, work))
            inbox = conn.inbox
            if conn.waiting is not None or not inbox or conn.closed:
                return
            frame = inbox.popleft()

    def _resume(self, conn: Conn) -> None:
        if conn.waiting is None and conn.inbox and not conn.closed:
            self._take(conn, conn.inbox.popleft())

    async def _work(self, conn: Conn, work) -> None:
        try:
            await work
        finally:
            if conn.worker is asyncio.current_task():
                conn.worker = None

    async def on_frame(self, conn: Conn, frame) -> None:
        """One frame, as if just read; returns once it is handled (bench/room_cpu.py drives it)."""
        if self._admit(conn, frame):
            work = self.take_frame(conn, frame)
            if work is not None:
                await work

    def answer_lost(self, queue, code: str, message: str) -> None:
        """A room's or a tournament's task is ending: the frames left in its queue are answered
        (their connections wait for that answer before handling their next frames)."""
        while not queue.empty():
            item = queue.get_nowait()
            frame = asked(item)
            if frame is not None:
                self.reply(frame[1], frame[2], codec.error(code, message))

    def _admit(self, conn: Conn, frame) -> bool:
        """The connection's rate limit, as frames arrive: a refused frame gets its error at once; too
        many refused in a row close the connection."""
        if conn.bucket.take(self.loop.time()):
            conn.refused = 0
            return True
        conn.refused += 1
        if conn.refused > self.limits.refused_max:
            conn.close_soon(CLOSE_ABUSE, "too many frames")
        else:
            self._refuse(conn, frame, "too many frames: slow down")
        return False

    def _refuse(self, conn: Conn, frame, message: str) -> None:
        """``protocol/rate_limited`` for a frame that is dropped unhandled."""
        encoding = codec.TEXT if isinstance(frame, str) else codec.BINARY
        self.reply(conn, (encoding, codec.peek_id(frame)), codec.error(RATE_LIMITED, message))

    def take_frame(self, conn: Conn, frame):
        """Check, decode and dispatch one frame; returns what is left to await (a coroutine that answers
        the frame itself, errors included), or None when the frame is handled."""
        encoding = codec.TEXT if isinstance(frame, str) else codec.BINARY
        size = len(frame) if isinstance(frame, bytes) else len(frame.encode())
        if size > self.limits.max_frame:
            self.reply(conn, (encoding, codec.peek_id(frame)),
                       codec.error(codec.TOO_LARGE, f"frames are at most {self.limits.max_frame} bytes"))
            return None
        try:
            msg, encoding = codec.decode(frame)
        except ProtocolError as e:
            self.reply(conn, (encoding, e.re), codec.error(e.code, e.message))
            return None
        conn.encoding = encoding
        rid = msg.pop("id", None)
        if rid is not None and not (type(rid) is int or (type(rid) is str and len(rid) <= 64)):
            conn.send(codec.error(BAD_FIELD, "id: an int or a short string"), encoding)  # nothing to echo
            return None
        req = conn.waiting = (encoding, rid)  # until it is answered (reply)
        try:
            work = self.dispatch(conn, msg, req)
        except Exception as e:
            self._answer_failure(conn, req, msg, e)
            return None
        return None if work is None else self._finish(conn, msg, req, work)

    async def _finish(self, conn: Conn, msg: dict, req: tuple, work) -> None:
        try:
            await work
        except Exception as e:
            self._answer_failure(conn, req, msg, e)

    def _answer_failure(self, conn: Conn, req: tuple, msg: dict, e: Exception) -> None:
        if isinstance(e, (ProtocolError, RoomError)):  # TournamentError is a RoomError too
            self.reply(conn, req, codec.error(e.code, e.message))
        else:
            shown = {k: "(hidden)" if k in SECRET_FIELDS else v for k, v in msg.items()}  # no password in logs
            log.error("frame %r from %r", shown, conn, exc_info=e)
            self.reply(conn, req, codec.error(INTERNAL, "internal error"))
