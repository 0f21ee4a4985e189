"""What applying a room's log entry asks to be sent (rooms/room.py ``_apply`` returns them; rooms/messages.py
``render`` builds the members' messages from them once the entry is committed). Plain values: a replay
applies entries and renders nothing."""

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
    """Seat ``player`` (a human) answered in a claim window that still waits: only that seat hears."""
    player: int


class Announce(NamedTuple):
    """Every connected member gets ``msg`` (a ``hand_result`` or ``match_result``)."""
    msg: dict


class Notice(NamedTuple):
    """Player ``to`` (possibly no longer a member) gets ``msg`` (``left``, ``kicked``, ``substituted``)."""
    to: str
    msg: dict


class HintAsked(NamedTuple):
    """Player ``to`` switched hints on or off: the record of its last hint goes; switched on, it is
    sent the hint at once."""
    to: str


ROOM_CHANGED = RoomChanged()
Effect = RoomChanged | GameEvents | Answered | Announce | Notice | HintAsked

__all__ = ["RoomChanged", "GameEvents", "Answered", "Announce", "Notice", "HintAsked", "ROOM_CHANGED", "Effect"]
