"""Every tournament test here also checks rooms/tournament/due.py's index against the walk it replaced:
each pass must find the entry a walk of every table of the session, in order, finds first, and the
deadline must be the earliest time of any table."""

from __future__ import annotations

import pytest

from rooms.tournament.due import DueTables, table_due, wake
from rooms.tournament.states import DONE


def walk(tour, cur, now: float) -> list[dict]:
    """Tournament._due's tables before the index: every table, in order, every pass."""
    barred = tour.sanctions.barred(cur.index)
    for t in cur.tables:
        entry = table_due(tour, cur, t, barred, now)
        if entry is not None:
            return [entry]
    return [{"k": "session_end", "session": cur.index}] if all(t.state == DONE for t in cur.tables) else []


def earliest(tour, cur) -> float | None:
    return min((w for t in cur.tables if (w := wake(tour, cur, t)) is not None), default=None)


@pytest.fixture(autouse=True)
def due_as_a_walk_finds(monkeypatch):
    due, deadline = DueTables.due, DueTables.deadline

    def checked_due(self, tour, cur, now):
        want = walk(tour, cur, now)
        got = due(self, tour, cur, now)
        assert got == want, f"the index found {got}, a walk of every table {want}"
        return got

    def checked_deadline(self, tour, cur):
        got = deadline(self, tour, cur)
        assert got == earliest(tour, cur)
        return got

    monkeypatch.setattr(DueTables, "due", checked_due)
    monkeypatch.setattr(DueTables, "deadline", checked_deadline)
