"""The automatic entries of the session being played (``Tournament._due``): substitutes, lateness
forfeits, table starts, time limits and the session's end.

A pass looks only at the tables that may have one due: those an entry named (or whose player it named)
since they were last looked at, and those whose time came (the 15 minutes of lateness, a time limit).
A table looked at with nothing due has nothing due until one of these happens, so a pass finds the
entry a walk of every table in order would find first, without the walk: 256 tables at 1,024 players,
after every table event.
"""

from __future__ import annotations

import heapq
import math

from rooms.tournament import lateness
from rooms.tournament.sanctions import LATE_LIMIT
from rooms.tournament.states import DONE, PLAYING, WAITING

# Entries that may change any table (a new session's tables, clocks moved by a pause, a sanction
# lifted): every table is looked at again. The others name their table, or their player.
EVERY = frozenset({"session_start", "paused", "cancel_sanction", "session_end"})


class DueTables:
    """Which tables of the session being played may have an entry due, and when each next may."""

    def __init__(self):
        self.stale = True  # look at every table: nothing known yet (a new session, a replayed log)
        self.session: int | None = None  # the session the rest is of
        self.look: list[int] = []  # heap of table numbers to look at, in table order
        self.looking: set[int] = set()  # the same numbers
        self.open: set[int] = set()  # tables not done: none left ends the session
        self.where: dict[str, int] = {}  # player -> their table's number
        self.wake: dict[int, float] = {}  # table -> when a time of its comes (none: none will)
        self.timers: list[tuple[float, int]] = []  # heap of (wake, table); an entry not in wake is spent

    def touched(self, e: dict) -> None:
        """After entry ``e`` was applied: the tables it may have changed are looked at again."""
        if e["k"] in EVERY:
            self.stale = True
            return
        if self.stale:
            return
        key = e.get("table")
        if isinstance(key, str) and key.startswith(f"{self.session}-"):
            self._look(int(key.partition("-")[2]))
        pid = e.get("player")
        if isinstance(pid, str) and pid in self.where:
            self._look(self.where[pid])

    def _look(self, n: int) -> None:
        if n not in self.looking:
            self.looking.add(n)
            heapq.heappush(self.look, n)

    def _rebuild(self, cur) -> None:
        self.stale, self.session = False, cur.index
        self.look = [t.number for t in cur.tables]  # in order: already a heap
        self.looking = set(self.look)
        self.open = {t.number for t in cur.tables if t.state != DONE}
        self.where = {p: t.number for t in cur.tables for p in t.seats if p is not None}
        self.wake, self.timers = {}, []

    def due(self, tour, cur, now: float) -> list[dict]:
        """The first entry due at ``now`` in table order, or the session's end (empty: none)."""
        if self.stale or self.session != cur.index:
            self._rebuild(cur)
        while self.timers and self.timers[0][0] <= now:
            when, n = heapq.heappop(self.timers)
            if self.wake.get(n) == when:
                del self.wake[n]
                self._look(n)
        barred = tour.sanctions.barred(cur.index) if self.look else None  # once a pass, not per seat
        while self.look:
            t = cur.tables[self.look[0] - 1]
            entry = table_due(tour, cur, t, barred, now)
            if entry is not None:
                return [entry]  # the table stays to be looked at: the entry changes it
            self.looking.discard(heapq.heappop(self.look))
            self._arm(t, wake(tour, cur, t))
        if not self.open:
            return [{"k": "session_end", "session": cur.index}]
        return []

    def _arm(self, t, when: float | None) -> None:
        if t.state == DONE:
            self.open.discard(t.number)
        if when is None:
            self.wake.pop(t.number, None)
        elif self.wake.get(t.number) != when:
            self.wake[t.number] = when
            heapq.heappush(self.timers, (when, t.number))

    def deadline(self, tour, cur) -> float | None:
        """The earliest time a table of the session has: from the timers when every table has been
        looked at since it changed (after a pass found nothing), else from every table."""
        if self.stale or self.session != cur.index or self.look:
            return min((w for t in cur.tables if (w := wake(tour, cur, t)) is not None), default=None)
        while self.timers and self.wake.get(self.timers[0][1]) != self.timers[0][0]:
            heapq.heappop(self.timers)  # spent: its table's time moved or came
        return self.timers[0][0] if self.timers else None


def table_due(tour, cur, t, barred: set, now: float) -> dict | None:
    """The entry due at table ``t`` now, if any."""
    if t.state == DONE:
        return None
    for seat, pid in enumerate(t.seats):
        if pid not in barred or seat in t.subs:
            continue
        if tour.sanctions.suspended(pid):  # 停赛: a can't-win bot takes the seat, unranked
            return {"k": "substitute", "table": t.key, "seat": seat, "why": "suspended"}
        if tour.sanctions.forfeited(pid, cur.index):
            return {"k": "substitute", "table": t.key, "seat": seat, "why": "forfeit"}
    unseated = lateness.unseated(tour, t)
    if unseated and now > cur.start + LATE_LIMIT:
        # checked in but never sat down: late until the seat is taken, so past 15 min 自动弃权
        return tour._system_sanction("forfeit", t.seats[unseated[0]], session=cur.index, table=t.key,
                                     reason="checked in, but did not take the seat within 15 minutes")
    if t.state == WAITING:
        absent = tour._absent(t)
        if not absent:
            return {"k": "table_start", "table": t.key}
        if now > cur.start + LATE_LIMIT:
            # R98 第十三条(二)1: absent after 15 min: 自动弃权, 局分 0; a bot plays the seat
            return tour._system_sanction("forfeit", t.seats[absent[0]], session=cur.index, table=t.key,
                                         reason="absent 15 minutes after the start")
    elif tour.config.time_limit and not t.time_up and now >= t.started + 60 * tour.config.time_limit:
        return {"k": "time_up", "table": t.key}
    return None


def wake(tour, cur, t) -> float | None:
    """When table ``t`` may next have an entry due by time alone: strictly after the 15 minutes of
    lateness (arriving at 15:00 exactly is still "late", R98) while a seat is missing, its time limit."""
    times = []
    if t.state == WAITING and tour._absent(t) or t.state != DONE and lateness.unseated(tour, t):
        times.append(math.nextafter(cur.start + LATE_LIMIT, math.inf))
    if t.state == PLAYING and tour.config.time_limit and not t.time_up:
        times.append(t.started + 60 * tour.config.time_limit)
    return min(times, default=None)


__all__ = ["DueTables", "table_due", "wake", "EVERY"]
