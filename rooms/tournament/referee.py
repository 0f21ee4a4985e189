"""The referee: who may be one, and the referee's decisions (sanctions and their cancelling).
Functions of a ``Tournament`` (``tour``) that check a command and return the entries to commit.

R98 第十三条 (the seed: 裁判员有权当场给予警告。若再次违规，处罚将根据情节轻重升级，可能包括罚分、停和，
直至停赛): the referee judges; a judge is not a party, so a referee is never a player of the
tournament they referee, and naming an account other than the organiser needs its acceptance.
"""

from __future__ import annotations

from rooms import text as policy
from rooms.tournament import errors as E
from rooms.tournament.errors import TournamentError
from rooms.tournament.sanctions import LEVELS, REFEREE_KINDS, copy
from rooms.tournament.states import CANCELLED

MAX_TEXT = 500


def text(cmd: dict, name: str, limit: int, required: bool, check=policy.clean) -> str | None:
    """A text field of a command, under the one text policy (rooms/text.py; ``policy.name`` for names)."""
    v = cmd.get(name)
    if v is None and not required:
        return None
    try:
        return check(v, limit, name)
    except ValueError as e:
        raise TournamentError(E.BAD_COMMAND, f"{e}, got {v!r}") from None


def cmd_referee(tour, pid, cmd, now):
    """The organiser names the referee: themselves at once, anyone else once they accept."""
    tour._organiser(pid)
    tour._open()
    to = text(cmd, "player", 200, required=True)
    if to in tour.players:
        raise TournamentError(E.REFEREE_PLAYS, f"{to} plays in this tournament: a referee never does")
    if to == tour.organiser:
        return [{"k": "referee", "to": to}]
    return [{"k": "referee_offer", "to": to}]


def cmd_accept_referee(tour, pid, cmd, now):
    tour._open()
    if pid != tour.referee_offer:
        raise TournamentError(E.NO_OFFER, "nobody asked you to referee this tournament")
    if pid in tour.players:  # registering withdraws an offer; kept as a guard
        raise TournamentError(E.REFEREE_PLAYS, "you play in this tournament: a referee never does")
    return [{"k": "referee", "to": pid}]


def on_register(tour, pid) -> list[dict]:
    """A player who registers gives up the referee's role (the organiser's default) and any offer of it."""
    out = []
    if pid == tour.referee:
        out.append({"k": "referee", "to": None})
    if pid == tour.referee_offer:
        out.append({"k": "referee_offer", "to": None})
    return out


def cmd_sanction(tour, pid, cmd, now):
    tour._referee(pid)
    if tour.state == CANCELLED:
        raise TournamentError(E.CLOSED, "the tournament is cancelled")
    kind = cmd.get("kind")
    if kind not in REFEREE_KINDS:
        raise TournamentError(E.BAD_COMMAND, f"kind must be one of {REFEREE_KINDS}, got {kind!r}")
    reason = text(cmd, "reason", MAX_TEXT, required=True)
    public = cmd.get("public", kind == "notice")
    if type(public) is not bool:
        raise TournamentError(E.BAD_COMMAND, f"public must be a bool, got {public!r}")
    if kind == "notice" and not public:
        raise TournamentError(E.BAD_COMMAND, "a notice (通报) is public")
    points = cmd.get("points")
    if kind == "points":
        if type(points) is not int or points not in LEVELS:
            # R98 第十三条(二)2: seven levels
            raise TournamentError(E.BAD_SANCTION, f"points must be one of {LEVELS}, got {points!r}")
    elif "points" in cmd:
        raise TournamentError(E.BAD_COMMAND, f"a {kind} carries no points")
    player = cmd.get("player")
    if kind == "notice" and player is None:
        if "table" in cmd or "hand" in cmd:
            raise TournamentError(E.BAD_COMMAND, "a notice naming nobody has no table or hand")
        return [_entry(pid, kind, None, reason, public, 0, None, None, None)]
    tour._registered(player)
    if kind == "suspend" and tour.sanctions.suspended(player):
        raise TournamentError(E.SUSPENDED, f"{player} is already suspended")
    table, hand = where(tour, player, cmd, need_hand=kind in ("points", "stop_win"), now=now)
    if kind == "stop_win":
        # 停和 is for the hand in play only (R98 第十三条3)
        if table.hand_in_play(tour.config.hands) != hand:
            raise TournamentError(E.NO_HAND, f"停和 applies to the hand in play at {table.key}")
        if table.seat_of(player) in table.subs:
            raise TournamentError(E.NOT_AT_TABLE, f"{player}'s seat is played by a substitute")
    session = table.session if table is not None else (tour._current().index if tour._current() else None)
    return [_entry(pid, kind, player, reason, public, points or 0, session,
                   None if table is None else table.key, hand)]


def _entry(by, kind, player, reason, public, points, session, table, hand) -> dict:
    return {"k": "sanction", "kind": kind, "player": player, "session": session, "table": table, "hand": hand,
            "points": points, "reason": reason, "by": by, "public": public, "offence": None, "reported": None}


def where(tour, player: str, cmd: dict, need_hand: bool, now: float) -> tuple:
    """The table and 1-based hand a sanction is about: given, or the player's table and the hand in play."""
    if "table" in cmd:
        key = cmd["table"]
        if not isinstance(key, str) or key not in tour.tables:
            raise TournamentError(E.NO_TABLE, f"no table {key!r}")
        table = tour.tables[key]
        if player not in table.seats:
            raise TournamentError(E.NOT_AT_TABLE, f"{player} does not sit at table {key}")
    else:
        table = tour._table_of(player)
    if table is None:
        if need_hand:
            raise TournamentError(E.NO_TABLE, f"{player} is not at a table now: name the table and hand")
        if "hand" in cmd:
            raise TournamentError(E.BAD_COMMAND, "a hand needs a table")
        return None, None
    in_play = table.hand_in_play(tour.config.hands)
    if "hand" not in cmd:
        if need_hand and in_play is None:
            raise TournamentError(E.NO_HAND, f"no hand is being played at {table.key}: name the hand")
        return table, in_play
    hand = cmd["hand"]
    last = in_play if in_play is not None else max(table.hands, default=0)
    if type(hand) is not int or not 1 <= hand <= last:
        raise TournamentError(E.NO_HAND, f"hand must be 1..{last} at table {table.key}, got {hand!r}")
    return table, hand


def evidence(v) -> dict | None:
    """A table's evidence of a false win as the tournament keeps it, or None if it is not one
    (``rooms.records.foul_evidence``: standing tiles, the drawn tile, melds, ``from_ready``)."""
    if not isinstance(v, dict):
        return None
    tiles, melds, away, drawn = v.get("tiles"), v.get("melds"), v.get("from_ready"), v.get("drawn")
    if (not isinstance(tiles, list) or len(tiles) > 14 or any(type(x) is not int for x in tiles)
            or not isinstance(melds, list) or len(melds) > 4 or any(not isinstance(m, dict) for m in melds)
            or type(away) is not int or not (drawn is None or type(drawn) is int)):
        return None
    return {"tiles": list(tiles), "drawn": drawn, "melds": [dict(m) for m in melds], "from_ready": away}


INTENT_FROM_READY = 2  # R98 第十四条6: 有意诈和 is a declaration two or more tiles from ready


def cmd_intentional_false_win(tour, pid, cmd, now):
    """The referee rules that a false win (a ``false_win`` record) was 有意诈和. R98 第十四条6
    (rules/tournament.md §1.3, 6d): a declaration two or more tiles from ready made on purpose is
    取消比赛资格, which is our 停赛 (the seed: 停赛则是更为严厉的处罚，旨在禁止违规者继续参加当前比赛).
    Intent is a judgement, so it is the referee's; the record's evidence (the hand shown) must be
    two or more tiles from ready."""
    tour._referee(pid)
    if tour.state == CANCELLED:
        raise TournamentError(E.CLOSED, "the tournament is cancelled")
    sid = cmd.get("sanction")
    rec = tour.sanctions.get(sid)
    if rec is None or rec["kind"] != "false_win":
        raise TournamentError(E.NO_SANCTION, f"no false win record {sid!r}")
    if rec["cancelled"] is not None:
        raise TournamentError(E.ALREADY_CANCELLED, f"sanction {sid} is cancelled")
    ev = rec.get("evidence")
    if ev is None or ev["from_ready"] < INTENT_FROM_READY:
        away = "unknown" if ev is None else ev["from_ready"]
        raise TournamentError(E.BAD_SANCTION, f"有意诈和 needs a hand two or more tiles from ready (this one: {away})")
    if tour.sanctions.suspended(rec["player"]):
        raise TournamentError(E.SUSPENDED, f"{rec['player']} is already suspended")
    reason = text(cmd, "reason", MAX_TEXT, required=False) or "the referee's judgement"
    public = cmd.get("public", False)
    if type(public) is not bool:
        raise TournamentError(E.BAD_COMMAND, f"public must be a bool, got {public!r}")
    return [{**_entry(pid, "suspend", rec["player"], f"有意诈和, sanction #{sid} "
                      f"({ev['from_ready']} tiles from ready; R98 第十四条6: 取消比赛资格): {reason}",
                      public, 0, rec["session"], rec["table"], rec["hand"]),
             "offence": "intentional_false_win"}]


def sanction_notes(tour, rec: dict, event: str) -> list:
    """A sanction to its audience; its evidence (a hand's tiles) only to the player and the referee."""
    to = tour._audience(rec)
    if rec["evidence"] is None:
        return [tour._notify(to, event, sanction=copy(rec))]
    assert to != "all", "a record with evidence is never public"
    full = [x for x in to if x in (rec["player"], tour.referee)]
    out = [tour._notify(full, event, sanction=copy(rec))]
    rest = [x for x in to if x not in full]
    return out + ([tour._notify(rest, event, sanction=copy(rec, False))] if rest else [])


def cmd_cancel_sanction(tour, pid, cmd, now):
    tour._referee(pid)
    if tour.state == CANCELLED:
        raise TournamentError(E.CLOSED, "the tournament is cancelled")
    sid = cmd.get("sanction")
    rec = tour.sanctions.get(sid)
    if rec is None:
        raise TournamentError(E.NO_SANCTION, f"no sanction {sid!r}")
    if rec["cancelled"] is not None:
        raise TournamentError(E.ALREADY_CANCELLED, f"sanction {sid} is already cancelled")
    reason = text(cmd, "reason", MAX_TEXT, required=True)
    return [{"k": "cancel_sanction", "sanction": sid, "by": pid, "reason": reason}]


__all__ = ["text", "evidence", "cmd_intentional_false_win", "INTENT_FROM_READY", "cmd_referee",
           "cmd_accept_referee", "on_register", "cmd_sanction", "cmd_cancel_sanction", "where",
           "sanction_notes"]
