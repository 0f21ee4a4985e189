"""The referee's sanctions and the automatic ones, each with its effect on the scores (R98 第十三条,
第十四条; tournament.md "Our decisions")."""

import pytest

from rooms.tournament import TournamentError
from rooms.tournament import errors as E

from .support import ORG, REF, commands, deltas_for, events, hand, make, register

P = ["a", "b", "c", "d"]


@pytest.fixture
def t():
    t = make(hands=4, sessions=2, checkin_required=False)
    register(t, P)
    t.handle(ORG, {"t": "start"}, 100.0)
    assert t.tables["1-1"].state == "playing"
    return t


def seat(t, p, key="1-1"):
    return t.tables[key].seats.index(p)


def report(t, n, by_player, now=200.0, key="1-1", void=False):
    """Hand n (1-based) of a table, deltas by player."""
    return t.table_event(key, {"t": "hand_result", "record": hand(n - 1, deltas_for(t.tables[key].seats, by_player),
                                                                 void)}, now)


def finish(t, key="1-1", now=900.0):
    return t.table_event(key, {"t": "match_result", "record": {"hands": []}}, now)


def row(t, p, viewer=REF, session=0):
    for table in t.view(viewer)["sessions"][session]["tables"]:
        for r in table["seats"]:
            if r["player"] == p:
                return r
    raise KeyError(p)


def sanction(t, now=150.0, by=REF, **cmd):
    return t.handle(by, {"t": "sanction", **cmd}, now)


def rejected(t, pid, cmd, code, now=150.0):
    before = t.view(ORG), len(t._log)
    with pytest.raises(TournamentError) as err:
        t.handle(pid, cmd, now)
    assert err.value.code == code, err.value.message
    assert (t.view(ORG), len(t._log)) == before


# -- permissions ---------------------------------------------------------------------------------

def test_players_and_the_organiser_cannot_sanction_or_cancel(t):
    cmd = {"t": "sanction", "player": "b", "kind": "points", "points": 10, "reason": "x"}
    rejected(t, "a", cmd, E.NOT_REFEREE)
    rejected(t, ORG, cmd, E.NOT_REFEREE)
    rejected(t, "nobody", cmd, E.NOT_REFEREE)
    sanction(t, player="b", kind="warning", reason="noise")
    rejected(t, "b", {"t": "cancel_sanction", "sanction": 1, "reason": "mine"}, E.NOT_REFEREE)
    rejected(t, ORG, {"t": "cancel_sanction", "sanction": 1, "reason": "mine"}, E.NOT_REFEREE)


@pytest.mark.parametrize("cmd, code", [
    ({"player": "a", "kind": "ban", "reason": "x"}, E.BAD_COMMAND),
    ({"player": "a", "kind": "warning"}, E.BAD_COMMAND),  # a reason is required
    ({"player": "a", "kind": "warning", "reason": ""}, E.BAD_COMMAND),
    ({"player": "a", "kind": "warning", "reason": "x", "points": 5}, E.BAD_COMMAND),
    ({"player": "a", "kind": "warning", "reason": "x", "public": "yes"}, E.BAD_COMMAND),
    ({"player": "a", "kind": "warning", "reason": "x", "colour": 1}, E.BAD_COMMAND),
    ({"player": "zed", "kind": "warning", "reason": "x"}, E.NOT_REGISTERED),
    ({"player": "a", "kind": "points", "reason": "x"}, E.BAD_SANCTION),
    ({"player": "a", "kind": "points", "points": 7, "reason": "x"}, E.BAD_SANCTION),
    ({"player": "a", "kind": "points", "points": 70, "reason": "x"}, E.BAD_SANCTION),
    ({"player": "a", "kind": "points", "points": 10.0, "reason": "x"}, E.BAD_SANCTION),
    ({"player": "a", "kind": "points", "points": 10, "reason": "x", "table": "9-9"}, E.NO_TABLE),
    ({"player": "a", "kind": "points", "points": 10, "reason": "x", "hand": 2}, E.NO_HAND),  # hand 1 in play
    ({"player": "a", "kind": "points", "points": 10, "reason": "x", "hand": 0}, E.NO_HAND),
    ({"player": "a", "kind": "stop_win", "reason": "x", "hand": 2}, E.NO_HAND),
    ({"kind": "notice", "reason": "x", "public": False}, E.BAD_COMMAND),
    ({"kind": "notice", "reason": "x", "table": "1-1"}, E.BAD_COMMAND),
])
def test_bad_sanctions(t, cmd, code):
    rejected(t, REF, {"t": "sanction", **cmd}, code)


# -- each sanction -------------------------------------------------------------------------------

def test_warning_is_a_zero_point_record(t):
    out = sanction(t, player="a", kind="warning", reason="slow")
    (rec,) = t.sanctions.records
    assert (rec["kind"], rec["points"], rec["table"], rec["hand"], rec["session"], rec["by"], rec["public"]) == \
        ("warning", 0, "1-1", 1, 1, REF, False)
    assert events(out, "sanction")[0].to == ["a", REF, ORG]
    report(t, 1, {"a": 24, "b": -8, "c": -8, "d": -8})
    assert row(t, "a")["points"] == [24] and row(t, "a")["score"] == 524


def test_points_come_off_that_hands_score(t):
    sanction(t, player="a", kind="points", points=10, reason="noise")  # hand 1, in play
    report(t, 1, {"a": 24, "b": -8, "c": -8, "d": -8})
    sanction(t, player="b", kind="points", points=30, reason="x", hand=1)  # an earlier hand, named
    sanction(t, player="b", kind="points", points=5, reason="y")  # hand 2, in play
    report(t, 2, {"c": 40, "b": -40})
    assert row(t, "a")["points"] == [14, 0]
    assert row(t, "b")["points"] == [-38, -45]
    # 局分 = 500 + Σ 盘分
    assert [row(t, p)["score"] for p in P] == [514, 417, 532, 492]
    # not zero-sum: deductions are not transfers (decisions.md)
    assert sum(row(t, p)["score"] for p in P) == 2000 - 45


def test_points_after_the_table_finished_change_the_standings(t):
    report(t, 1, {"a": 24, "b": -8, "c": -8, "d": -8})
    report(t, 2, {"b": 8, "a": -8})
    finish(t)  # a 516, b 500, c 492, d 492
    assert [(r["player"], r["std12"]) for r in t.standings()] == [("a", 48), ("b", 24), ("c", 6), ("d", 6)]
    rejected(t, REF, {"t": "sanction", "player": "a", "kind": "points", "points": 10, "reason": "x"}, E.NO_TABLE,
             now=1000.0)  # a is at no table now: it must be named
    rejected(t, REF, {"t": "sanction", "player": "a", "kind": "points", "points": 10, "reason": "x",
                      "table": "1-1"}, E.NO_HAND, now=1000.0)
    rejected(t, REF, {"t": "sanction", "player": "a", "kind": "points", "points": 10, "reason": "x",
                      "table": "1-1", "hand": 3}, E.NO_HAND, now=1000.0)  # only two hands were played
    sanction(t, now=1000.0, player="a", kind="points", points=20, reason="appeal", table="1-1", hand=2)
    assert row(t, "a")["score"] == 516 - 20
    assert [(r["player"], r["std12"]) for r in t.standings()] == [("b", 48), ("a", 24), ("c", 6), ("d", 6)]


def test_stop_win_tells_the_table(t):
    out = sanction(t, player="c", kind="stop_win", reason="illegal signals")
    assert commands(out, "1-1") == [{"t": "stop_win", "player": seat(t, "c")}]
    rec = t.sanctions.records[0]
    assert (rec["kind"], rec["hand"], rec["points"]) == ("stop_win", 1, 0)
    report(t, 1, {})
    report(t, 2, {})
    report(t, 3, {})
    report(t, 4, {})
    # every hand played: no hand in play, nothing to stop
    rejected(t, REF, {"t": "sanction", "player": "c", "kind": "stop_win", "reason": "x"}, E.NO_HAND)


def test_suspend_replaces_the_player_and_marks_them_in_the_standings(t):
    report(t, 1, {"d": 48, "a": -16, "b": -16, "c": -16})
    out = sanction(t, now=300.0, player="d", kind="suspend", reason="cheating", public=True)
    assert commands(out, "1-1") == [{"t": "substitute", "player": seat(t, "d")}]
    assert events(out, "sanction")[0].to == "all"
    assert t.tables["1-1"].subs == {seat(t, "d"): "suspended"}
    report(t, 2, {"d": 30, "a": -30}, now=400.0)  # the bot plays on in d's seat
    finish(t)
    v = t.view(None)
    assert v["suspended"] == ["d"]
    assert [p["status"] for p in v["players"]] == ["active", "active", "active", "suspended"]
    # d's seat (578) is ranked first at the table, but its 4 goes to nobody
    assert row(t, "d")["score"] == 578 and row(t, "d")["std12"] is None and not row(t, "d")["ranked"]
    # b and c (484) share 2nd and 3rd: (24 + 12) / 2 each; a (454) is 4th
    # d keeps no result of the table they were removed from, and is marked suspended
    assert [(r["player"], r["std12"], r["sessions"], r["suspended"]) for r in t.standings()] == [
        ("b", 18, 1, False), ("c", 18, 1, False), ("a", 0, 1, False), ("d", 0, 0, True)]
    rejected(t, REF, {"t": "sanction", "player": "d", "kind": "suspend", "reason": "again"}, E.SUSPENDED)


def test_a_suspended_player_is_not_seated_again(t):
    sanction(t, player="d", kind="suspend", reason="cheating")
    finish(t)
    out = t.handle(ORG, {"t": "start"}, 1000.0)
    (started,) = events(out, "session_started")
    (table,) = started.msg["tables"]
    assert "d" not in table["players"] and None in table["players"]  # a bot pads the table


def test_cancelling_a_suspension(t):
    sanction(t, player="d", kind="suspend", reason="cheating")
    report(t, 1, {"d": 24, "a": -8, "b": -8, "c": -8})
    finish(t)
    assert [(r["sessions"], r["suspended"]) for r in t.standings() if r["player"] == "d"] == [(0, True)]
    t.handle(REF, {"t": "cancel_sanction", "sanction": 1, "reason": "appeal upheld"}, 950.0)
    # ranked again, with the seat's result (played on by the bot) counting as d's
    assert t.standings()[0]["player"] == "d"
    assert row(t, "d")["std12"] == 48
    assert t.tables["1-1"].subs  # the bot kept the seat: nothing gives it back
    out = t.handle(ORG, {"t": "start"}, 1000.0)
    assert "d" in events(out, "session_started")[0].msg["tables"][0]["players"]  # seated again


def test_notice_is_public(t):
    out = sanction(t, kind="notice", reason="Play resumes at 14:00")
    assert events(out, "sanction")[0].to == "all"
    out = sanction(t, kind="notice", player="b", reason="b is disqualified from the prize draw")
    assert [n["reason"] for n in t.view(None)["notices"]] == ["Play resumes at 14:00",
                                                              "b is disqualified from the prize draw"]
    assert t.sanctions.records[0]["player"] is None


def test_cancel_keeps_the_record_and_takes_the_effect_away(t):
    sanction(t, player="a", kind="points", points=20, reason="noise")
    report(t, 1, {})
    assert row(t, "a")["score"] == 480
    out = t.handle(REF, {"t": "cancel_sanction", "sanction": 1, "reason": "it was the neighbour table"}, 300.0)
    (note,) = events(out, "sanction_cancelled")
    assert note.to == ["a", REF, ORG]
    assert row(t, "a")["score"] == 500
    (rec,) = t.view(REF)["sanctions"]
    assert rec["cancelled"] == {"by": REF, "at": 300.0, "reason": "it was the neighbour table"}
    assert rec["points"] == 20  # kept as it was
    rejected(t, REF, {"t": "cancel_sanction", "sanction": 1, "reason": "again"}, E.ALREADY_CANCELLED)
    rejected(t, REF, {"t": "cancel_sanction", "sanction": 2, "reason": "x"}, E.NO_SANCTION)
    rejected(t, REF, {"t": "cancel_sanction", "sanction": "1", "reason": "x"}, E.NO_SANCTION)
    rejected(t, REF, {"t": "cancel_sanction", "sanction": 1}, E.ALREADY_CANCELLED)


def test_cancel_needs_a_reason(t):
    sanction(t, player="a", kind="warning", reason="x")
    rejected(t, REF, {"t": "cancel_sanction", "sanction": 1}, E.BAD_COMMAND)


def test_who_sees_which_sanction(t):
    sanction(t, player="a", kind="warning", reason="private")
    sanction(t, player="b", kind="points", points=5, reason="public", public=True)
    ids = lambda who: [r["id"] for r in t.view(who)["sanctions"]]  # noqa: E731
    assert ids(REF) == [1, 2] and ids(ORG) == [1, 2]
    assert ids("a") == [1, 2]
    assert ids("b") == [2] and ids("c") == [2] and ids(None) == [2]


# -- automatic sanctions from the table ----------------------------------------------------------

def offence(t, p, n, kind="timeout", now=150.0, **extra):
    return t.table_event("1-1", {"t": "offence", "player": seat(t, p), "kind": kind, "hand": n - 1, **extra}, now)


def test_timeout_ladder_per_hand(t):
    for _ in range(5):
        offence(t, "a", 1)
    offence(t, "b", 1)
    recs = [(r["player"], r["points"], r["hand"]) for r in t.sanctions.records]
    # R98 第十四条 3/4/5 within one 盘: warning, -5, -10, -20, -30 …
    assert recs == [("a", 0, 1), ("a", 5, 1), ("a", 10, 1), ("a", 20, 1), ("a", 30, 1), ("b", 0, 1)]
    assert all(r["kind"] == "offence" and r["offence"] == "timeout" and r["by"] == "system"
               for r in t.sanctions.records)
    report(t, 1, {})
    offence(t, "a", 2)  # a new hand starts the ladder again
    assert t.sanctions.records[-1]["points"] == 0
    assert row(t, "a")["points"] == [-65, 0]
    # the referee cancels one: the rest of the ladder stays as recorded, the 30 is no longer deducted
    t.handle(REF, {"t": "cancel_sanction", "sanction": 5, "reason": "server lag"}, 300.0)
    assert row(t, "a")["points"] == [-35, 0]


def test_ladder_runs_up_to_sixty_and_stays():
    from rooms.tournament.sanctions import ladder_points
    assert [ladder_points(n) for n in range(7, 10)] == [50, 60, 60]


def test_false_win_is_a_record_only(t):
    offence(t, "c", 1, kind="false_win", points=30)
    (rec,) = t.sanctions.records
    assert (rec["kind"], rec["points"], rec["offence"], rec["hand"]) == ("false_win", 0, "false_win", 1)
    assert "30" in rec["reason"]
    report(t, 1, {"c": -30, "a": 10, "b": 10, "d": 10})  # the table already transferred it
    assert row(t, "c")["points"] == [-30]


def test_offences_of_a_bot_seat_are_ignored(t):
    sanction(t, player="d", kind="suspend", reason="x")
    assert offence(t, "d", 1) == []
    assert [r["kind"] for r in t.sanctions.records] == ["suspend"]


def test_bad_table_events(t):
    for ev in ({"t": "offence", "player": 4, "kind": "timeout", "hand": 0},
               {"t": "offence", "player": 0, "kind": "sleep", "hand": 0},
               {"t": "hand_result", "record": {"hand": 0, "deltas": [1, 2, 3]}},
               {"t": "hand_result", "record": None}, {"t": "match_result"}, {"t": "chat"}):
        with pytest.raises(TournamentError) as err:
            t.table_event("1-1", ev, 200.0)
        assert err.value.code == E.BAD_EVENT
    with pytest.raises(TournamentError) as err:
        t.table_event("7-7", {"t": "match_result", "record": {}}, 200.0)
    assert err.value.code == E.NO_TABLE


def test_a_hand_delivered_twice_counts_once(t):
    report(t, 1, {"a": 8, "b": -8})
    assert report(t, 1, {"a": 8, "b": -8}) == []
    assert row(t, "a")["points"] == [8]


def test_an_offence_resent_by_the_server_is_sanctioned_once(t):
    # the room numbers each offence in the hand ("count"); a resend after a restart is ignored
    offence(t, "a", 1, count=1)
    offence(t, "a", 1, count=2)
    assert offence(t, "a", 1, count=2) == []
    assert [r["points"] for r in t.sanctions.records] == [0, 5]
    t.handle(REF, {"t": "cancel_sanction", "sanction": 2, "reason": "lag"}, 160.0)
    assert offence(t, "a", 1, count=2) == []  # cancelled stays cancelled
    offence(t, "a", 1, count=3)
    assert [r["reported"] for r in t.sanctions.records] == [1, 2, 3]
    assert t.sanctions.records[-1]["points"] == 5  # the ladder counts what is not cancelled
    offence(t, "c", 1, kind="false_win", points=30, count=1, foul="错和")
    assert offence(t, "c", 1, kind="false_win", points=30, count=1, foul="错和") == []
    assert "错和" in t.sanctions.records[-1]["reason"]


def test_events_resent_after_the_table_finished(t):
    report(t, 1, {"a": 8, "b": -8})
    finish(t)
    assert report(t, 1, {"a": 8, "b": -8}) == []
    assert finish(t) == []
    offence(t, "a", 1, count=1)  # never delivered before the end: still recorded
    assert t.sanctions.records[-1]["kind"] == "offence"


def test_over_and_participants(t):
    assert not t.over
    assert t.participants() == ["a", "b", "c", "d", ORG, REF]
    report(t, 1, {})
    finish(t)
    t.handle(ORG, {"t": "start"}, 1000.0)
    for key in ("2-1",):
        for n in range(4):
            report(t, n + 1, {}, now=1100.0, key=key)
        finish(t, key, 1200.0)
    assert t.over and t.view(None)["state"] == "finished"


def test_events_for_a_table_not_started():
    t = make(hands=1, starts=(100.0,))
    register(t, P)
    t.tick(100.0)
    with pytest.raises(TournamentError) as err:
        t.table_event("1-1", {"t": "hand_result", "record": hand(0, [0, 0, 0, 0])}, 101.0)
    assert err.value.code == E.BAD_EVENT


def test_a_suspension_keeps_the_earlier_finished_results(t):
    # 停赛 ... 禁止违规者继续参加当前比赛: it bars the player from continuing, nothing more. The
    # session d finished stays d's (and counted for the others' 标准分), d is marked suspended.
    report(t, 1, {"d": 48, "a": -16, "b": -16, "c": -16})
    finish(t)
    before = {r["player"]: (r["std12"], r["score"]) for r in t.standings()}
    assert before["d"] == (48, 548)
    sanction(t, now=950.0, player="d", kind="suspend", reason="cheating")
    after = {r["player"]: (r["std12"], r["score"]) for r in t.standings()}
    assert after == before
    assert [r["player"] for r in t.standings() if r["suspended"]] == ["d"]
    assert row(t, "d")["std12"] == 48 and row(t, "d")["ranked"]
    # but d plays no more
    out = t.handle(ORG, {"t": "start"}, 1000.0)
    assert "d" not in events(out, "session_started")[0].msg["tables"][0]["players"]


def far_hand(away):
    return {"tiles": [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30], "drawn": 31, "melds": [], "from_ready": away}


def test_intentional_false_win_is_the_referees_ruling_with_the_hand_as_evidence(t):
    # R98 第十四条6: 有意诈和 (two or more tiles from ready) is 取消比赛资格; the table settled it as
    # 诈和, and the referee, seeing the hand, rules on intent: 停赛 for the rest of the tournament.
    out = offence(t, "c", 1, kind="false_win", points=60, foul="false_win", evidence=far_hand(3))
    (rec,) = t.sanctions.records
    assert rec["evidence"] == far_hand(3)
    # the evidence (concealed tiles) reaches the player and the referee, not the organiser
    notes = events(out, "sanction")
    assert [(n.to, n.msg["sanction"]["evidence"] is not None) for n in notes] == [(["c", REF], True), ([ORG], False)]
    assert [s["evidence"] for s in t.view(ORG)["sanctions"]] == [None]
    assert [s["evidence"] for s in t.view(REF)["sanctions"]] == [far_hand(3)]
    assert [s["evidence"] for s in t.view("c")["sanctions"]] == [far_hand(3)]
    rejected(t, "c", {"t": "intentional_false_win", "sanction": rec["id"]}, E.NOT_REFEREE)
    rejected(t, ORG, {"t": "intentional_false_win", "sanction": rec["id"]}, E.NOT_REFEREE)
    out = t.handle(REF, {"t": "intentional_false_win", "sanction": rec["id"], "reason": "declared on a bare hand"},
                   300.0)
    ruling = t.sanctions.records[-1]
    assert (ruling["kind"], ruling["player"], ruling["offence"], ruling["table"], ruling["hand"]) == (
        "suspend", "c", "intentional_false_win", "1-1", 1)
    assert "有意诈和" in ruling["reason"] and "declared on a bare hand" in ruling["reason"]
    assert commands(out, "1-1") == [{"t": "substitute", "player": seat(t, "c")}]
    rejected(t, REF, {"t": "intentional_false_win", "sanction": rec["id"]}, E.SUSPENDED)


def test_an_intentional_false_win_needs_a_hand_two_tiles_from_ready(t):
    offence(t, "c", 1, kind="false_win", points=60, foul="false_win", evidence=far_hand(1))  # 诈和 only
    offence(t, "d", 1, kind="false_win", points=60, foul="false_win")  # no evidence
    offence(t, "a", 1, kind="false_win", points=60, foul="false_win", evidence={"tiles": "junk"})
    assert [r["evidence"] for r in t.sanctions.records] == [far_hand(1), None, None]
    for sid in (1, 2, 3):
        rejected(t, REF, {"t": "intentional_false_win", "sanction": sid}, E.BAD_SANCTION)
    sanction(t, player="a", kind="warning", reason="x")
    rejected(t, REF, {"t": "intentional_false_win", "sanction": 4}, E.NO_SANCTION)
    rejected(t, REF, {"t": "intentional_false_win", "sanction": 99}, E.NO_SANCTION)
