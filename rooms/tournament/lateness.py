"""Check-in and lateness: functions of a ``Tournament`` (``tour``) that decide the entries to commit.

The seed: 宣布比赛后迟到10分钟内，将警告一次并罚扣10分。若迟到时间在15分钟内，罚扣20分。超过15分钟未到者，
将按自动弃权处理，局分记为0。 (R98 第十三条(二)1.) Lateness counts from the announced start, whatever
moment the session was actually started.
"""

from __future__ import annotations

from rooms.tournament import errors as E
from rooms.tournament.errors import TournamentError
from rooms.tournament.sanctions import lateness
from rooms.tournament.states import DONE, PLAYING

SEAT_EVENTS = ("seats", "seated")  # table events about who has taken their seat


def due_start(tour, s) -> float:
    """The start lateness counts from for scheduled session ``s``: its announced time, or the end of
    the session before when that ran over; moved later by the storage pauses since (``paused``)."""
    prev = tour.sessions[s.index - 2].ended if s.index > 1 else None
    start = s.scheduled if prev is None else max(s.scheduled, prev)
    for begin, end in tour.pauses:
        start = _after(start, begin, end)
    return start


def _after(x: float, begin: float, end: float) -> float:
    """``x`` moved later by the part of the pause ``begin``..``end`` that came after it."""
    return x if end <= x else x + end - max(begin, x)


def paused(tour, begin: float, end: float, now: float, run: bool = True) -> list:
    """The server could not write its log from ``begin`` to ``end`` (a storage fault): nobody could
    check in or take a seat, so that time does not count. The clocks that started before it (the
    session's lateness, R98 第十三条(二)1, and the tables' time limits) move later by the part of it
    after their start; a session whose start falls in it starts when it ends (``due_start``). Then
    what is due now (the server made no automatic entry during the pause); not ``run`` (the server
    stops): that waits for the restart."""
    now = max(now, tour.last_now)
    out = tour._commit({"k": "paused", "begin": begin, "end": end}, now)
    return out + tour._run(now) if run else out


def apply_paused(tour, e, now):
    tour.pauses.append((e["begin"], e["end"]))
    cur = tour._current()
    if cur is not None:
        cur.start = _after(cur.start, e["begin"], e["end"])
        for t in cur.tables:
            if t.state == PLAYING:
                t.started = _after(t.started, e["begin"], e["end"])
    return []


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


def seated(tour, t, ev: dict, now: float) -> list[dict]:
    """``{"t": "seats", "taken": [seat, ...]}``: from now on the server reports seat-taking at this
    table, and these seats are taken; ``{"t": "seated", "player": seat}``: that seat's player took it.
    The seed counts lateness from the announced start until the player arrives, and a player who
    checked in but is not at the table has not arrived: taking the seat later tops their lateness up
    to the tier it reached (警告 and −10, −20, or 自动弃权)."""
    if ev["t"] == "seats":
        taken, watch = ev.get("taken"), True
        if not isinstance(taken, list) or any(type(x) is not int or not 0 <= x <= 3 for x in taken):
            raise TournamentError(E.BAD_EVENT, f"seats: taken is a list of seats, got {ev!r}")
    else:
        seat, watch = ev.get("player"), False
        if type(seat) is not int or not 0 <= seat <= 3:
            raise TournamentError(E.BAD_EVENT, f"seated: player is a seat, got {ev!r}")
        taken = [seat]
    new = sorted({x for x in taken if x not in t.seated and t.seats[x] is not None})
    if not new and (t.watched or not watch):
        return []
    entries = [{"k": "seated", "table": t.key, "seats": new, "watch": watch}]
    if watch:
        return entries  # taken when the table opened: there at the start
    s = tour.sessions[t.session - 1]
    for x in new:
        pid = t.seats[x]
        if x not in t.subs and tour._present(s, pid):  # not checked in yet: the check-in will count
            entries += _top_up(tour, pid, s, t, now)
    return entries


def apply_seated(tour, e, now):
    t = tour.tables[e["table"]]
    t.watched = t.watched or e["watch"]
    t.seated.update(e["seats"])
    return []


def _top_up(tour, pid: str, s, t, now: float) -> list[dict]:
    """The late records still due when ``pid`` arrives at ``now``, given those the session has."""
    kind, points = lateness(s.start, now)
    had = tour.sanctions.late_points(pid, s.index)
    if kind is None or tour.sanctions.forfeited(pid, s.index):
        return []
    if kind == "forfeit":
        return [tour._system_sanction("forfeit", pid, session=s.index, table=t.key,
                                      reason="took the seat more than 15 minutes after the start")]
    if points <= had:
        return []
    minutes, secs = divmod(int(now - s.start), 60)
    late = f"took the seat {minutes}:{secs:02d} after the start"
    out = []
    if points == 10:  # 迟到10分钟内，警告一次并罚扣10分
        out.append(tour._system_sanction("warning", pid, session=s.index, table=t.key,
                                         reason=f"{late}: warning (R98 第十三条(二)1)"))
    total = "" if had == 0 else f", -{points} in all"
    out.append(tour._system_sanction("late", pid, points=points - had, session=s.index, table=t.key,
                                     reason=f"{late}: -{points - had}{total} (R98 第十三条(二)1)"))
    return out


def unseated(tour, t) -> list[int]:
    """Seats at a table whose seat-taking is reported, played now by 托管 because their player checked
    in (or needs no check-in) and has not sat down."""
    if not t.watched or t.state == DONE:
        return []
    s = tour.sessions[t.session - 1]
    return [i for i, p in enumerate(t.seats) if p is not None and i not in t.subs and i not in t.seated
            and tour._present(s, p)]


def opens(tour, s, now: float) -> bool:
    """Check-in for pending session ``s``: from checkin_before before its start; an unscheduled one
    as soon as no session is being played."""
    if s.scheduled is not None:
        return now >= s.scheduled - tour.config.checkin_before
    return tour._current() is None


__all__ = ["SEAT_EVENTS", "seated", "apply_seated", "unseated", "due_start", "pressed_start", "late_entries", "cmd_checkin",
           "opens", "paused", "apply_paused"]
