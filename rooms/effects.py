"""What applying a room's log entry asks to be sent. rooms/room.py ``_apply`` returns the effects; a live
commit pairs them with the ``Moment`` they happened at (``Applied``); the server makes the entries durable
and only then has rooms/messages.py ``render`` build the members' messages from them. Plain values: a
replay applies entries and renders nothing."""

from __future__ import annotations

from typing import NamedTuple


class RoomChanged(NamedTuple):
    """Every connected member gets the room's public info (a ``room`` message)."""


class GameEvents(NamedTuple):
    """Every connected member gets ``events`` as its seat sees them, its legal actions, the clock and its
    hint. ``final``: (seq, clock) of the match these events finished, which the room has already left."""
    events: list
    final: tuple | None = None


class Answered(NamedTuple):
    """Seat ``player`` (the human ``to``) answered in a claim window that still waits: only that seat hears."""
    player: int
    to: str


class Announce(NamedTuple):
    """Every connected member gets ``msg`` (a ``hand_result`` or ``match_result``)."""
    msg: dict


class Notice(NamedTuple):
    """Player ``to`` (possibly no longer a member) gets ``msg`` (``left``, ``kicked``, ``substituted``)."""
    to: str
    msg: dict


class HintAsked(NamedTuple):
    """Player ``to`` (at ``seat``) switched hints on or off (``on``): the record of its last hint goes;
    switched on, it is sent the hint at once."""
    to: str
    seat: int | None
    on: bool


ROOM_CHANGED = RoomChanged()
Effect = RoomChanged | GameEvents | Answered | Announce | Notice | HintAsked


class Moment(NamedTuple):
    """What rendering reads of the room as a live commit left it: values, since the room may take the
    next call before the entry is durable and its messages are built."""
    rseq: int
    phase: str
    match: object  # game.match.MatchState (immutable) or None
    recipients: tuple  # (id, seat, hints) of every connected member
    humans: tuple  # per seat: a human plays it (hints go to human seats only)
    clock: dict | None  # the public clock, when a game message is to be built
    info: dict | None  # the public room (members' view), when a room message is to be built


class Applied(NamedTuple):
    """One committed change (an entry, or a member (dis)connecting): its effects and their moment."""
    effects: list
    moment: Moment


__all__ = ["RoomChanged", "GameEvents", "Answered", "Announce", "Notice", "HintAsked", "ROOM_CHANGED", "Effect",
           "Moment", "Applied"]
