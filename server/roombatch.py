"""A room call's new log entries on their way to the store (``Batch``), and whether they can change the
room's seats (server.roomtask: a play that cannot is committed without the task, ``play_now``)."""

from __future__ import annotations

from typing import NamedTuple


class Batch(NamedTuple):
    """One call's new log entries on their way to the store, and what goes out once they are durable.
    Built by ``tuple.__new__`` (a NamedTuple's own constructor is a Python function)."""
    start: int  # the row number of the first entry
    entries: list
    effects: list  # for the match tables (Store.write)
    notices: list  # commitment / reveal around the messages
    applied: list  # what the room's call did (rooms.effects.Applied): rendered once the entries are durable


# Log entries that cannot change a room's seats, spectators, phase or config: plays during a match
# (rooms/room.py) and hand results. A commit of only these skips rebuilding members and the summary.
_PLAY_KINDS = frozenset(("act", "close", "hand_result"))


def seats_unchanged(entries: list) -> bool:
    for e in entries:  # a loop, not all() over a generator: asked of every play
        if e["k"] not in _PLAY_KINDS:
            return False
    return bool(entries)
