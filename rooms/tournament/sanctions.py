"""Sanctions: append-only records, never deleted; cancelling one sets ``cancelled`` and takes its
effect away (tournament.md "Our decisions": "cancelled with a reason rather than deleted").

A record: ``{"id", "kind", "player", "session", "table", "hand", "points", "reason", "by", "at",
"public", "offence", "reported", "evidence", "cancelled"}`` — ``hand`` is 1-based (R98's 盘 1..16), ``by`` a referee's id or
``"system"``, ``offence`` the automatic offence's name (``offence``/``false_win`` records, else None),
``reported`` the table's own count of that offence in that hand (None if it sent none), ``evidence``
the hand a ``false_win`` showed (``rooms.records.foul_evidence``; None otherwise: only the player
and the referee see it), ``cancelled``
None or ``{"by", "at", "reason"}``.

Kinds (R98 第十三条 处罚方式):
- ``warning`` 警告: 0 points (by the referee, or by the system with a lateness of up to 10 min).
- ``points`` 罚分: 5/10/20/30/40/50/60 only, deducted from that hand's 盘分.
- ``stop_win`` 停和: no win for the rest of the hand in play.
- ``suspend`` 停赛: out of the rest of the tournament; a can't-win bot plays the seat, unranked.
  Also the referee's ruling of 有意诈和 (R98 第十四条6, 取消比赛资格): ``offence`` "intentional_false_win".
- ``notice`` 通报: a public text, naming a player or nobody.
- ``late`` (system): 10 or 20 points off 局分 (R98 第十三条(二)1; at ≤ 10 min a system ``warning`` record comes with it).
- ``forfeit`` (system): more than 15 min late, 自动弃权: that session's 局分 is 0.
- ``offence`` (system): an automatic offence (e.g. turn timeouts) on the R98 第十四条 3/4/5 ladder.
- ``false_win`` (system): 错和/诈和 as the table already settled it; a record only (0 points here).
"""

from __future__ import annotations

REFEREE_KINDS = ("warning", "points", "stop_win", "suspend", "notice")
SYSTEM_KINDS = ("late", "forfeit", "offence", "false_win")
KINDS = REFEREE_KINDS + SYSTEM_KINDS
LEVELS = (5, 10, 20, 30, 40, 50, 60)  # R98 第十三条(二)2: seven levels
HAND_DEDUCTIONS = ("points", "offence")  # R98 第十条: 罚分 comes off that 盘's score
# R98 第十四条 3/4/5: within one 盘, 1st warning, 2nd −5, 3rd −10, 4th −20, "and so on" — we go on
# through the seven levels and stay at the top one.
LADDER = (0, 5, 10, 20, 30, 40, 50, 60)
LATE_WARNING = 600.0  # R98 第十三条(二)1: up to 10 min late: warning and −10
LATE_LIMIT = 900.0  # up to 15 min: −20; later: 自动弃权, 局分 0
SYSTEM = "system"


def lateness(start: float, arrived: float) -> tuple[str | None, int]:
    """R98 第十三条(二)1, counted from the announced start: ``(None, 0)`` on time, ``("late", 10)`` up
    to 10 min (with a warning, recorded apart), ``("late", 20)`` up to 15 min, ``("forfeit", 0)`` later."""
    late = arrived - start
    if late <= 0:
        return (None, 0)
    if late <= LATE_WARNING:
        return ("late", 10)
    if late <= LATE_LIMIT:
        return ("late", 20)
    return ("forfeit", 0)


def ladder_points(n: int) -> int:
    """The points for the n-th (1-based) occurrence of one automatic offence in one hand."""
    if n < 1:
        raise ValueError("occurrences count from 1")
    return LADDER[min(n, len(LADDER)) - 1]


class Sanctions:
    """The records of one tournament and the questions scoring asks of them (cancelled ones never count)."""

    def __init__(self):
        self.records: list[dict] = []

    def add(self, kind: str, player: str | None, *, reason: str, by: str, at: float, points: int = 0,
            session: int | None = None, table: str | None = None, hand: int | None = None,
            public: bool = False, offence: str | None = None, reported: int | None = None,
            evidence: dict | None = None) -> dict:
        assert kind in KINDS, kind
        rec = {"id": len(self.records) + 1, "kind": kind, "player": player, "session": session, "table": table,
               "hand": hand, "points": points, "reason": reason, "by": by, "at": at, "public": public,
               "offence": offence, "reported": reported, "evidence": evidence, "cancelled": None}
        self.records.append(rec)
        return rec

    def get(self, sid: int) -> dict | None:
        return self.records[sid - 1] if type(sid) is int and 1 <= sid <= len(self.records) else None

    def cancel(self, sid: int, by: str, at: float, reason: str) -> dict:
        rec = self.records[sid - 1]
        rec["cancelled"] = {"by": by, "at": at, "reason": reason}
        return rec

    def active(self, kind: str | None = None, player: str | None = None):
        for r in self.records:
            if r["cancelled"] is None and kind in (None, r["kind"]) and player in (None, r["player"]):
                yield r

    def hand_points(self, player: str, table: str) -> dict[int, int]:
        """Points deducted from ``player``'s 盘分 at ``table``, by hand."""
        out: dict[int, int] = {}
        for r in self.active(player=player):
            if r["kind"] in HAND_DEDUCTIONS and r["table"] == table:
                out[r["hand"]] = out.get(r["hand"], 0) + r["points"]
        return out

    def late_points(self, player: str, session: int) -> int:
        return sum(r["points"] for r in self.active("late", player) if r["session"] == session)

    def forfeited(self, player: str, session: int) -> bool:
        return any(r["session"] == session for r in self.active("forfeit", player))

    def suspended(self, player: str) -> bool:
        return any(True for _ in self.active("suspend", player))

    def barred(self, session: int) -> set[str]:
        """Who is ``suspended`` or ``forfeited`` in ``session``."""
        return {r["player"] for r in self.active()
                if r["kind"] == "suspend" or r["kind"] == "forfeit" and r["session"] == session}

    def occurrences(self, player: str, table: str, hand: int, offence: str) -> int:
        """How many times this automatic offence was recorded for the player in that hand (for the ladder)."""
        return sum(1 for r in self.active("offence", player)
                   if r["table"] == table and r["hand"] == hand and r["offence"] == offence)

    def reported(self, player: str, table: str, hand: int, offence: str, count: int) -> bool:
        """Whether the table's ``count``-th report of this offence in this hand is recorded already
        (cancelled or not): a table event delivered twice must not be sanctioned twice."""
        return any(r["offence"] == offence and r["reported"] == count and r["player"] == player
                   and r["table"] == table and r["hand"] == hand for r in self.records)

    def visible(self, viewer: str | None, everything: bool, referee: str | None = None) -> list[dict]:
        """Referee and organiser (``everything``) see all; a player their own and the public ones. A
        record's ``evidence`` (a hand's concealed tiles) only the referee and that player see."""
        return [copy(r, viewer is not None and viewer in (referee, r["player"])) for r in self.records
                if everything or r["public"] or (viewer is not None and r["player"] == viewer)]


def copy(rec: dict, evidence: bool = True) -> dict:
    """A record to hand out (views, messages): nothing shared with the log; ``evidence`` False
    leaves the evidence out (None)."""
    ev = rec.get("evidence") if evidence else None
    return {**rec, "evidence": None if ev is None else _deep(ev),
            "cancelled": None if rec["cancelled"] is None else dict(rec["cancelled"])}


def _deep(v):
    if isinstance(v, dict):
        return {k: _deep(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_deep(x) for x in v]
    return v


__all__ = ["Sanctions", "copy", "lateness", "ladder_points", "REFEREE_KINDS", "SYSTEM_KINDS", "KINDS", "LEVELS",
           "LADDER", "HAND_DEDUCTIONS", "LATE_WARNING", "LATE_LIMIT", "SYSTEM"]
