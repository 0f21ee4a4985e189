"""What a table room reports (``Tournament.table_event``): functions of a ``Tournament`` (``tour``)
that check the event and return the entries to commit (docs/tournaments.md "Table events")."""

from __future__ import annotations

from rooms.tournament import errors as E
from rooms.tournament import referee as referees
from rooms.tournament.errors import TournamentError
from rooms.tournament.sanctions import ladder_points

OFFENCES = ("timeout", "false_win")


def hand_result(tour, t, ev: dict, now: float) -> list[dict]:
    rec = _hand(ev.get("record"))
    if rec["hand"] in t.hands:
        return []  # delivered twice (a server retry): already recorded
    return [{"k": "hand", "table": t.key, "record": rec}]


def match_result(tour, t, ev: dict, now: float) -> list[dict]:
    rec = ev.get("record")
    if not isinstance(rec, dict):
        raise TournamentError(E.BAD_EVENT, "match_result needs a record")
    hands = rec.get("hands", [])
    if not isinstance(hands, list):
        raise TournamentError(E.BAD_EVENT, "match_result: hands must be a list")
    missing = [h for h in map(_hand, hands) if h["hand"] not in t.hands]
    replay = ev.get("replay")  # the server's id of the match (its replay), if it knows it
    return [{"k": "table_end", "table": t.key, "hands": missing, **({"replay": replay} if type(replay) is int else {})}]


def offence(tour, t, ev: dict, now: float) -> list[dict]:
    seat, kind, hand = ev.get("player"), ev.get("kind"), ev.get("hand")
    if type(seat) is not int or not 0 <= seat <= 3 or kind not in OFFENCES or type(hand) is not int or hand < 0:
        raise TournamentError(E.BAD_EVENT, f"bad offence {ev!r}")
    pid = t.seats[seat]
    if pid is None or seat in t.subs:
        return []  # a bot's offence: nobody to sanction
    hand += 1  # the room counts hands from 0 (rooms/records.py); R98's 盘 from 1
    count = ev.get("count")  # the room's numbering of this offence in the hand: it makes resends harmless
    if type(count) is int and tour.sanctions.reported(pid, t.key, hand, kind, count):
        return []
    count = count if type(count) is int else None
    if kind == "false_win":
        # 错和/诈和 (R98 第十四条6): the table already made the transfer; a record only
        paid, foul = ev.get("points"), ev.get("foul")
        what = f"false win ({foul})" if isinstance(foul, str) else "false win"
        paid = f", paid {paid}" if type(paid) is int else ""
        return [tour._system_sanction("false_win", pid, session=t.session, table=t.key, hand=hand,
                                      offence=kind, reported=count, reason=f"{what}{paid}: settled at the table",
                                      evidence=referees.evidence(ev.get("evidence")))]
    # Our decision: R98 第十四条 3/4/5's ladder applies to automatic offences, per hand and kind.
    n = tour.sanctions.occurrences(pid, t.key, hand, kind) + 1
    points = ladder_points(n)
    what = "warning" if points == 0 else f"-{points}"
    return [tour._system_sanction("offence", pid, session=t.session, table=t.key, hand=hand, offence=kind,
                                  points=points, reported=count, reason=f"{kind} #{n} in hand {hand}: {what}")]


def _hand(rec) -> dict:
    """The part of a rooms.records.hand_record the tournament keeps, with the hand counted from 1."""
    if not isinstance(rec, dict):
        raise TournamentError(E.BAD_EVENT, f"a hand record is a dict, got {rec!r}")
    deltas, n = rec.get("deltas"), rec.get("hand")
    if (not isinstance(deltas, list) or len(deltas) != 4 or any(type(d) is not int for d in deltas)
            or type(n) is not int or n < 0):
        raise TournamentError(E.BAD_EVENT, f"a hand record needs hand and four int deltas, got {rec!r}")
    return {"hand": n + 1, "deltas": list(deltas), "void": bool(rec.get("void", False)),
            "winner": rec.get("winner"), "discarder": rec.get("discarder"),
            "self_drawn": bool(rec.get("self_drawn", False)), "total": rec.get("total", 0)}


__all__ = ["OFFENCES", "hand_result", "match_result", "offence"]
