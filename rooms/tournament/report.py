"""A tournament's scores and views, computed from its hand records and sanctions, never stored
(R98 第十条 and 第十一条, tournament.md §2.1 and "Our decisions"). Functions of a ``Tournament``
(``tour``): they read it and change nothing.
"""

from __future__ import annotations

from rooms.tournament.standard import display, standard_scores
from rooms.tournament.states import DONE


def _duplicate():  # rooms.tournament.duplicate uses this module's seat_results
    from rooms.tournament import duplicate
    return duplicate

BASE = 500  # R98 第五条 基础比赛分: 500 per player per 局


def seat_results(tour, t) -> list[dict]:
    """Per seat: 盘分 per hand, lateness, 局分 and (once the table is finished) 标准分 ×12.

    盘分 = the hand's delta (a void hand counts 0) − that hand's 罚分 (R98 第十条);
    局分 = 500 + Σ 盘分 − lateness (R98 第十三条(二)1), or 0 after a forfeit (自动弃权).
    标准分: the four seats are ranked by 局分 (4/2/1/0, ties share), a forfeiting seat last whatever
    its numbers; the value of a seat with no ranked player (a bot from the start, or the seat a
    停赛 took from its player at this table) goes to nobody.
    """
    deductions = [tour.sanctions.hand_points(p, t.key) if p is not None else {} for p in t.seats]
    count = max([*t.hands, *(h for d in deductions for h in d)], default=0)
    rows = []
    for seat, pid in enumerate(t.seats):
        points = []
        for h in range(1, count + 1):
            rec = t.hands.get(h)
            delta = 0 if rec is None or rec.get("void") else rec["deltas"][seat]
            points.append(delta - deductions[seat].get(h, 0))
        late = tour.sanctions.late_points(pid, t.session) if pid is not None else 0
        forfeit = pid is not None and tour.sanctions.forfeited(pid, t.session)
        score = 0 if forfeit else BASE + sum(points) - late
        rows.append({"seat": seat, "player": pid, "bot": pid is None, "substituted": t.subs.get(seat),
                     # 停赛 bars the player from continuing: results finished before it stand
                     "ranked": pid is not None and not (t.subs.get(seat) == "suspended"
                                                        and tour.sanctions.suspended(pid)),
                     "points": points, "late": late, "forfeit": forfeit, "score": score,
                     "std12": None, "std": None})
    if t.state == DONE:
        for row, std12 in zip(rows, standard_scores([r["score"] for r in rows], [r["forfeit"] for r in rows])):
            if row["ranked"]:
                row["std12"], row["std"] = std12, display(std12)
    return rows

def results(tour) -> dict[str, list[tuple[int, int]]]:
    """Each ranked player's finished tables as (标准分 ×12, 局分), in session order."""
    out: dict[str, list[tuple[int, int]]] = {}
    for s in tour.sessions:
        for t in s.tables:
            if t.state != DONE:
                continue
            for row in seat_results(tour, t):
                if row["ranked"]:
                    out.setdefault(row["player"], []).append((row["std12"], row["score"]))
    return out

def view(tour, player_id: str | None) -> dict:
    """The whole tournament as ``player_id`` may see it (JSON-able); None: anonymous."""
    v = {**public_view(tour), **personal(tour, player_id)}
    v["players"] = own_rows(tour, v["players"], player_id)
    return v


def public_view(tour) -> dict:
    """The part of the view that is the same for every viewer."""
    cur, standings = tour._current(), tour.standings()
    return {
        "id": tour.id, "config": tour.config.to_dict(), "organiser": tour.organiser, "referee": tour.referee,
        "referee_offer": tour.referee_offer,
        "state": tour.state, "created": tour.created, "cancel_reason": tour.cancel_reason,
        "session": None if cur is None else cur.index,
        "players": player_rows(tour), "sessions": [session_view(tour, s) for s in tour.sessions],
        "standings": standings, "teams": tour.team_standings(standings),
        "suspended": [p for p in tour.players if tour.sanctions.suspended(p)],
        "duplicate": _duplicate().view(tour),
    }


def personal(tour, player_id: str | None) -> dict:
    """The part of the view that depends on the viewer: who they are and the sanctions they may see."""
    everything = player_id is not None and player_id in (tour.referee, tour.organiser)
    records = tour.sanctions.visible(player_id, everything, tour.referee)
    roles = [r for r, who in (("organiser", tour.organiser), ("referee", tour.referee)) if who == player_id]
    return {
        "you": {"id": player_id, "roles": roles, "registered": player_id in tour.players},
        "sanctions": records,
        "notices": [r for r in records if r["kind"] == "notice" and r["cancelled"] is None],
    }


def player_rows(tour, ids=None) -> list[dict]:
    """The players' lines of the view (``ids``: only these, in registration order)."""
    cur = tour._current()
    target = cur or tour._next_session()
    seated = {} if cur is None else {p: t.key for t in cur.tables for p in t.seats if p is not None}
    rows = []
    for p in tour.players.values():
        if ids is not None and p.id not in ids:
            continue
        rows.append({"id": p.id, "team": p.team, "order": p.order,
                     "status": "suspended" if tour.sanctions.suspended(p.id) else "active",
                     # 警告 on record (R98 第十三条1: a second offence may be punished harder): the public
                     # ones here; own_rows adds those the viewer may see too
                     "warnings": sum(1 for r in tour.sanctions.active("warning", p.id) if r["public"]),
                     "checked_in": target is not None and tour._present(target, p.id),
                     "table": seated.get(p.id)})
    return rows


def own_rows(tour, rows: list[dict], viewer: str | None) -> list[dict]:
    """``rows`` (public player lines) as ``viewer`` sees them: the referee and the organiser count every
    warning, a player their own too (Sanctions.visible). Rows that do not change are not copied."""
    if viewer is None:
        return rows
    everything = viewer in (tour.referee, tour.organiser)
    out = rows
    for i, row in enumerate(rows):
        if everything or row["id"] == viewer:
            n = sum(1 for _ in tour.sanctions.active("warning", row["id"]))
            if n != row["warnings"]:
                if out is rows:
                    out = list(rows)
                out[i] = {**row, "warnings": n}
    return out


def hidden_warnings(tour, ids) -> set[str]:
    """Of the players ``ids``, those with a warning on record that is not public."""
    return {p for p in ids if any(not r["public"] for r in tour.sanctions.active("warning", p))}


def session_view(tour, s) -> dict:
    return {"index": s.index, "scheduled": s.scheduled, "start": s.start, "ended": s.ended, "state": s.state,
            "checkin_opens": None if s.scheduled is None else s.scheduled - tour.config.checkin_before,
            "byes": list(s.byes), "commitment": s.commitment, "tables": [table_view(tour, t) for t in s.tables]}

def table_view(tour, t) -> dict:
    hands = [{"hand": h, **{k: v for k, v in t.hands[h].items() if k != "hand"}} for h in sorted(t.hands)]
    return {"table": t.key, "session": t.session, "number": t.number, "state": t.state, "started": t.started,
            "time_up": t.time_up, "hands": hands, "seats": seat_results(tour, t)}

def summary(tour) -> dict:
    """One line of a tournament list."""
    cur, nxt = tour._current(), tour._next_session()
    return {"id": tour.id, "name": tour.config.name, "type": tour.config.type, "state": tour.state,
            "players": len(tour.players), "max_players": tour.config.max_players,
            "sessions": tour.config.sessions, "session": None if cur is None else cur.index,
            "next_start": None if nxt is None else nxt.scheduled, "organiser": tour.organiser}
