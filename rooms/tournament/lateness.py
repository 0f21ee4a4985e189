"""Check-in and lateness: functions of a ``Tournament`` (``tour``) that decide the entries to commit.

The seed: 宣布比赛后迟到10分钟内，将警告一次并罚扣10分。若迟到时间在15分钟内，罚扣20分。超过15分钟未到者，
将按自动弃权处理，局分记为0。 (R98 第十三条(二)1.) Lateness counts from the announced start, whatever
moment the session was actually started.
"""

from __future__ import annotations

from rooms.tournament import errors as E
from rooms.tournament.errors import TournamentError
from rooms.tournament.sanctions import lateness


def due_start(tour, s) -> float:
    """The start lateness counts from for scheduled session ``s``: its announced time, or the end of
    the session before when that ran over."""
    prev = tour.sessions[s.index - 2].ended if s.index > 1 else None
    return s.scheduled if prev is None else max(s.scheduled, prev)


def pressed_start(tour, s, now: float) -> float:
    """The start of session ``s`` when the organiser presses ``start`` at ``now``. 宣布比赛后迟到: an
    announced session counts from max(announced, actual start), so an early press moves nobody's
    lateness; an unscheduled one counts from the press."""
    if s.scheduled is None:
        return now
    return due_start(tour, s) if now >= s.scheduled else s.scheduled


def late_entries(tour, pid: str, session: int, table: str | None, start: float, now: float,
                 points: int) -> list[dict]:
    """The sanctions of one late arrival. 迟到10分钟内，警告一次并罚扣10分: the warning is its own record
    (a later offence escalates from it), the 10 points another; within 15 minutes: 罚扣20分."""
    minutes, secs = divmod(int(now - start), 60)
    late = f"late by {minutes}:{secs:02d}"
    out = []
    if points == 10:
        out.append(tour._system_sanction("warning", pid, session=session, table=table,
                                         reason=f"{late}: warning (R98 第十三条(二)1)"))
    out.append(tour._system_sanction("late", pid, points=points, session=session, table=table,
                                     reason=f"{late}: -{points} (R98 第十三条(二)1)"))
    return out


def _forfeited():
    return TournamentError(E.FORFEITED, "more than 15 minutes late: forfeited for this session (局分 0)")


def cmd_checkin(tour, pid, cmd, now):
    tour._open()
    tour._registered(pid)
    if tour.sanctions.suspended(pid):
        raise TournamentError(E.SUSPENDED, "suspended (停赛) from this tournament")
    if not tour.config.checkin_required:
        raise TournamentError(E.NOT_OPEN, "this tournament needs no check-in: being registered is enough")
    cur, t = tour._current(), tour._table_of(pid)
    if t is not None and pid not in cur.checkins:
        if t.seat_of(pid) in t.subs:
            raise TournamentError(E.FORFEITED, "your seat in this session is played by a substitute")
        kind, points = lateness(cur.start, now)
        if kind == "forfeit":
            raise _forfeited()
        entries = [{"k": "checkin", "player": pid, "session": cur.index}]
        if kind == "late":
            entries += late_entries(tour, pid, cur.index, t.key, cur.start, now, points)
        return entries
    nxt = tour._next_session()
    if nxt is None:
        raise TournamentError(E.NO_SESSION, "every session has been played")
    if pid in nxt.checkins or (t is not None and not opens(tour, nxt, now)):
        raise TournamentError(E.ALREADY_CHECKED_IN, "already checked in")
    if not opens(tour, nxt, now):
        when = "when the session under way has finished" if nxt.scheduled is None else \
            f"at {nxt.scheduled - tour.config.checkin_before:g}"
        raise TournamentError(E.NOT_OPEN, f"check-in for session {nxt.index} opens {when}")
    entries = [{"k": "checkin", "player": pid, "session": nxt.index}]
    if cur is None and nxt.scheduled is not None and now > nxt.scheduled:
        # The start is due but the server's tick has not run yet: late all the same.
        kind, points = lateness(due_start(tour, nxt), now)
        if kind == "forfeit":
            raise _forfeited()
        if kind == "late":
            entries += late_entries(tour, pid, nxt.index, None, due_start(tour, nxt), now, points)
    return entries


def opens(tour, s, now: float) -> bool:
    """Check-in for pending session ``s``: from checkin_before before its start; an unscheduled one
    as soon as no session is being played."""
    if s.scheduled is not None:
        return now >= s.scheduled - tour.config.checkin_before
    return tour._current() is None


__all__ = ["due_start", "pressed_start", "late_entries", "cmd_checkin", "opens"]
