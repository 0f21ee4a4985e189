"""Quick match: one queue per room type and match length (4, 8 or 16 hands). Four humans in a queue are
seated at once; a player who accepts bots (``wait`` seconds) is seated with whoever else accepts bots,
bots filling the table, when that wait runs out. The server creates the room from a Placement (``Room.create(..., players=, bots=)``).

Quick matches are rated, so players are seated with others of close rating (docs/ratings.md): the
longest waiting player takes those whose rating is within RATING_WINDOW of theirs, a window that
widens by RATING_WIDEN per second they have waited.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from rooms.types import ROOM_TYPES


RATING_WINDOW = 5.0  # rating points (mu - 3 sigma) either side, at once
RATING_WIDEN = 0.5  # more points per second waited: after a minute nearly anybody (35 points)
RECHECK = 1.0  # seconds between looks at a queue whose players are too far apart for now
HANDS = (4, 8, 16)  # the match lengths a player may queue for: one, two or four rounds of winds


class Placement(NamedTuple):
    type: str
    players: tuple[str, ...]  # in queue order: the first is the room's host
    bots: int
    hands: int = 4


@dataclass(slots=True)
class _Waiting:
    player: str
    since: float
    wait: float | None  # None: humans only
    rating: float = 0.0  # the player's rating for the queue's room type


class QuickMatch:
    def __init__(self):
        # (room type, hands) -> the players waiting, in queue order
        self.queues: dict[tuple[str, int], list[_Waiting]] = {(t, h): [] for t in ROOM_TYPES for h in HANDS}
        self._where: dict[str, tuple[str, int]] = {}  # player -> their queue's key
        self._stuck: float | None = None  # a queue of four or more not yet close enough: look again then
        self._held: float | None = None  # nobody is placed before this (``put_back``)
        self._placed: dict[str, _Waiting] = {}  # the last call's placed players, for ``put_back``

    def enqueue(self, player: str, room_type: str, wait: float | None, now: float,
                rating: float = 0.0, hands: int = 4) -> list[Placement]:
        """Queue ``player``; ``wait``: seconds before bots may fill the table (0: at once; None: never);
        ``rating``: theirs for ``room_type`` (players are seated with others of close rating); ``hands``:
        the match's length (only players who chose the same one play together)."""
        if room_type not in ROOM_TYPES:
            raise ValueError(f"unknown room type {room_type!r}")
        if hands not in HANDS:
            raise ValueError(f"hands must be one of {HANDS}, got {hands!r}")
        if wait is not None and not 0 <= wait <= 3600:
            raise ValueError(f"wait must be 0..3600 seconds or None, got {wait!r}")
        if player in self._where:
            raise ValueError(f"{player!r} is already queued")
        key = (room_type, hands)
        self.queues[key].append(_Waiting(player, now, wait, rating))
        self._where[player] = key
        self._placed = {}
        return self._place(key, now)

    def add(self, player: str, room_type: str, wait: float | None, since: float, rating: float, hands: int) -> None:
        """Queue ``player`` as waiting since ``since``, placing nobody (a queue rebuilt from a shared
        store: ``tick`` places)."""
        key = (room_type, hands)
        self.queues[key].append(_Waiting(player, since, wait, rating))
        self.queues[key].sort(key=lambda w: w.since)
        self._where[player] = key

    def cancel(self, player: str) -> bool:
        """Leave the queue; False if the player was not queued (already placed, or never)."""
        key = self._where.pop(player, None)
        if key is None:
            return False
        self.queues[key] = [w for w in self.queues[key] if w.player != player]
        return True

    def queued(self, player: str) -> str | None:
        """The room type the player waits for, or None."""
        key = self._where.get(player)
        return key[0] if key else None

    def queue_of(self, player: str) -> tuple[str, int] | None:
        """(room type, hands) of the queue the player waits in, or None."""
        return self._where.get(player)

    def waiting(self, key: tuple[str, int]) -> list[str]:
        """The players in one queue, longest waiting first."""
        return [w.player for w in self.queues.get(key, ())]

    def waited(self, player: str, now: float) -> float | None:
        """Seconds the player has waited in their queue (from when they joined it), or None."""
        key = self._where.get(player)
        if key is None:
            return None
        return max(0.0, now - next(w.since for w in self.queues[key] if w.player == player))

    def estimate(self, player: str, now: float) -> float | None:
        """Seconds until the player is expected at a table with bots: their own wait running out, or
        sooner that of somebody ahead whose rating window (as it will be then) takes them in. None: they
        wait for humans only, or are not queued. Four humans arriving first seat them sooner still."""
        key = self._where.get(player)
        if key is None:
            return None
        me = next(w for w in self.queues[key] if w.player == player)
        if me.wait is None:
            return None
        due = me.since + me.wait
        for w in self.queues[key]:
            if w is me or w.wait is None or w.since + w.wait >= due:
                continue
            if abs(w.rating - me.rating) <= RATING_WINDOW + RATING_WIDEN * w.wait:
                due = w.since + w.wait
        return max(0.0, due - now)

    def put_back(self, p: Placement, until: float) -> None:
        """``p``'s table could not be made (the server cannot save now): its players wait again where
        they were, and nobody is placed before ``until``. Only for a placement of the last call."""
        key = (p.type, p.hands)
        back = [self._placed[pid] for pid in p.players]
        self.queues[key] = sorted(back + self.queues[key], key=lambda w: w.since)
        for pid in p.players:
            self._where[pid] = key
        self._held = until

    def tick(self, now: float) -> list[Placement]:
        self._stuck = None
        self._placed = {}
        out = []
        for key in self.queues:
            out += self._place(key, now)
        return out

    def next_deadline(self) -> float | None:
        times = [w.since + w.wait for q in self.queues.values() for w in q if w.wait is not None]
        if self._stuck is not None:
            times.append(self._stuck)
        if self._held is not None:
            times = [max(t, self._held) for t in times] + [self._held]
        return min(times, default=None)

    @staticmethod
    def _close(first: _Waiting, others: list[_Waiting], now: float) -> list[_Waiting]:
        """Those of ``others`` within ``first``'s rating window, closest first (queue order among equals)."""
        window = RATING_WINDOW + RATING_WIDEN * (now - first.since)
        near = [w for w in others if abs(w.rating - first.rating) <= window]
        return sorted(near, key=lambda w: abs(w.rating - first.rating))

    def _place(self, key: tuple[str, int], now: float) -> list[Placement]:
        if self._held is not None:
            if now < self._held:
                return []
            self._held = None
        q = self.queues[key]
        out = []
        while len(q) >= 4:  # four humans of close rating: no bots needed
            group = None
            for first in q:  # the longest waiting player who has three others close enough
                near = self._close(first, [w for w in q if w is not first], now)[:3]
                if len(near) == 3:
                    group = [first] + near
                    break
            if group is None:
                self._stuck = now + RECHECK  # their windows widen as they wait
                break
            out.append(self._take(key, group, 0))
            q = self.queues[key]
        while True:
            due = [w for w in q if w.wait is not None and now >= w.since + w.wait]
            if not due:
                return out
            # The longest waiting due player, with up to three others who accept bots, closest rating first.
            first = due[0]
            others = self._close(first, [w for w in q if w is not first and w.wait is not None], now)[:3]
            group = [first] + others
            out.append(self._take(key, group, 4 - len(group)))
            q = self.queues[key]

    def _take(self, key: tuple[str, int], group: list[_Waiting], bots: int) -> Placement:
        taken = {w.player for w in group}
        self.queues[key] = [w for w in self.queues[key] if w.player not in taken]
        for p in taken:
            del self._where[p]
        self._placed.update((w.player, w) for w in group)
        return Placement(key[0], tuple(w.player for w in group), bots, key[1])


__all__ = ["QuickMatch", "Placement", "HANDS"]
