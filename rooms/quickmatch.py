"""Quick match: one queue per room type. Four humans in a queue are seated at once; a player who
accepts bots (``wait`` seconds) is seated with whoever else accepts bots, bots filling the table, when
that wait runs out. The server creates the room from a Placement (``Room.create(..., players=, bots=)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from rooms.types import ROOM_TYPES


class Placement(NamedTuple):
    type: str
    players: tuple[str, ...]  # in queue order: the first is the room's host
    bots: int


@dataclass(slots=True)
class _Waiting:
    player: str
    since: float
    wait: float | None  # None: humans only


class QuickMatch:
    def __init__(self):
        self.queues: dict[str, list[_Waiting]] = {t: [] for t in ROOM_TYPES}
        self._where: dict[str, str] = {}  # player -> room type

    def enqueue(self, player: str, room_type: str, wait: float | None, now: float) -> list[Placement]:
        """Queue ``player``; ``wait``: seconds before bots may fill the table (0: at once; None: never)."""
        if room_type not in ROOM_TYPES:
            raise ValueError(f"unknown room type {room_type!r}")
        if wait is not None and not 0 <= wait <= 3600:
            raise ValueError(f"wait must be 0..3600 seconds or None, got {wait!r}")
        if player in self._where:
            raise ValueError(f"{player!r} is already queued")
        self.queues[room_type].append(_Waiting(player, now, wait))
        self._where[player] = room_type
        return self._place(room_type, now)

    def cancel(self, player: str) -> bool:
        """Leave the queue; False if the player was not queued (already placed, or never)."""
        room_type = self._where.pop(player, None)
        if room_type is None:
            return False
        self.queues[room_type] = [w for w in self.queues[room_type] if w.player != player]
        return True

    def queued(self, player: str) -> str | None:
        return self._where.get(player)

    def tick(self, now: float) -> list[Placement]:
        out = []
        for room_type in self.queues:
            out += self._place(room_type, now)
        return out

    def next_deadline(self) -> float | None:
        times = [w.since + w.wait for q in self.queues.values() for w in q if w.wait is not None]
        return min(times, default=None)

    def _place(self, room_type: str, now: float) -> list[Placement]:
        q = self.queues[room_type]
        out = []
        while len(q) >= 4:  # four humans: no bots needed
            out.append(self._take(room_type, q[:4], 0))
            q = self.queues[room_type]
        while True:
            due = [w for w in q if w.wait is not None and now >= w.since + w.wait]
            if not due:
                return out
            # The longest waiting due player, with up to three others who accept bots, in queue order.
            first = due[0]
            others = [w for w in q if w is not first and w.wait is not None][:3]
            group = [first] + others
            out.append(self._take(room_type, group, 4 - len(group)))
            q = self.queues[room_type]

    def _take(self, room_type: str, group: list[_Waiting], bots: int) -> Placement:
        taken = {w.player for w in group}
        self.queues[room_type] = [w for w in self.queues[room_type] if w.player not in taken]
        for p in taken:
            del self._where[p]
        return Placement(room_type, tuple(w.player for w in group), bots)


__all__ = ["QuickMatch", "Placement"]
