"""What a tournament asks the server to do (docs/tournaments.md "Effects"); plain values, no behaviour."""

from __future__ import annotations

from typing import NamedTuple


class OpenTable(NamedTuple):
    """Create the table room ``table`` (a key such as ``"2-3"``: session 2, table 3) and seat ``players``
    in room seats 0..3, East first; ``None`` is an unranked substitute bot that cannot win. The room
    waits for a ``TableCommand(table, {"t": "start"})`` before dealing."""
    table: str
    players: list
    config: dict  # rooms.config.RoomConfig fields; ``hands`` may be any of 1..16
    secret: bytes | None = None  # the room's secret (its walls), or None: the server draws one. A duplicate
    # session gives every table the same secret, so every table deals the same walls


class TableCommand(NamedTuple):
    """One of ``{"t": "start"}``, ``{"t": "stop_win", "player": seat}``, ``{"t": "substitute", "player":
    seat}``, ``{"t": "time_up", "finish_hand": bool}`` for the room of ``table``."""
    table: str
    cmd: dict


class Notify(NamedTuple):
    """Send ``msg`` to these player ids, or to everyone following the tournament when ``to == "all"``."""
    to: list | str
    msg: dict


Effect = OpenTable | TableCommand | Notify

__all__ = ["OpenTable", "TableCommand", "Notify", "Effect"]
