"""What a room's or a tournament's task does with an item it failed to handle because of a bug.

The bug is logged, the item's sender (if it had one) is answered ``server/internal``, the other members
are told once per run of failures, and the task goes on with its next item: one bad item must not end
a room or a tournament silently (later commands would get no reply). A deadline whose handling failed
is not retried for ``RETRY`` seconds, so a bug that fails every tick cannot spin the event loop.
"""

from __future__ import annotations

import logging
from typing import Callable, Iterable

from server import codec
from server.errors import MOVED, TASK_FAILED
from server.roomitems import Tick, asked, kind

RETRY = 1.0  # seconds before a failed deadline (tick) is tried again

class Failures:
    def __init__(self, log: logging.Logger, what: str, field: str, ident: str):
        self.log = log
        self.what = what  # "room" or "tournament", for the log
        self.field, self.ident = field, ident  # the pushed error's "room" / "tournament": its id
        self.streak = 0  # failures since the last item handled
        self.quiet_until = 0.0  # no tick before this time

    def ok(self) -> None:
        self.streak = 0

    def deadline(self, deadline: float | None) -> float | None:
        """The task's next deadline, held back after a failed tick."""
        return None if deadline is None else max(deadline, self.quiet_until)

    def failed(self, app, item: tuple, now: float, members: Callable[[], Iterable[str]]) -> None:
        """Called from the task's ``except Exception``; never raises."""
        self.log.exception("%s %s: a bug handling %r", self.what, self.ident, kind(item))
        self.streak += 1
        try:
            if isinstance(item, Tick):
                self.quiet_until = now + RETRY
            msg = codec.error(TASK_FAILED, f"the {self.what} hit an error on the server; it goes on")
            sender = None
            frame = asked(item)  # the sender's frame, waiting for its answer
            if frame is not None:
                sender, conn, req = frame
                app.reply(conn, req, msg)
            if self.streak == 1:
                push = {**msg, self.field: self.ident}
                for pid in members():
                    if pid != sender:
                        app.deliver(pid, push)
        except Exception:  # pragma: no cover - the report itself failed: the log has the first one
            self.log.exception("%s %s: reporting a failure failed", self.what, self.ident)



def moved(app, item: tuple) -> None:
    """The item's write was refused by fencing (docs/cluster.md): another node owns the room now and
    nothing of it was done; the sender hears ``server/moved``, a snapshot from the new owner follows."""
    frame = asked(item)
    if frame is not None:
        reply_moved(app, frame[1], frame[2])


def reply_moved(app, conn, req) -> None:
    app.reply(conn, req, codec.error(MOVED, "the room moved to another server: the snapshot that follows"
                                            " shows whether this was done"))
