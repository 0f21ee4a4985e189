"""Check-in and lateness driven through handle/tick with an injected clock (R98 第十三条(二)1:
up to 10 min late: warning and -10; up to 15 min: -20; later: 自动弃权, 局分 0)."""

import pytest

from rooms.tournament import TournamentError
from rooms.tournament import errors as E

from .support import ORG, REF, commands, events, make, play, register

START = 36_000.0
P = ["a", "b", "c", "d"]


def scheduled(**config):
    t = make(sessions=2, hands=2, starts=(START, None), **config)
    register(t, P)
    return t


def arrive_all_but(t, late_one, when=START - 60):
    for p in P:
        if p != late_one:
            t.handle(p, {"t": "checkin"}, when)


def test_checkin_window_opens_checkin_before_the_start():
    t = scheduled()
    with pytest.raises(TournamentError) as err:
        t.handle("a", {"t": "checkin"}, START - 1800 - 1)
    assert err.value.code == E.NOT_OPEN
    t.handle("a", {"t": "checkin"}, START - 1800)
    with pytest.raises(TournamentError) as err:
        t.handle("a", {"t": "checkin"}, START - 100)
    assert err.value.code == E.ALREADY_CHECKED_IN
    with pytest.raises(TournamentError) as err:
        t.handle("zed", {"t": "checkin"}, START - 100)
    assert err.value.code == E.NOT_REGISTERED
    assert t.next_deadline() == START


def test_everyone_on_time_the_table_starts_with_the_session():
    t = scheduled()
    arrive_all_but(t, None)
    out = t.tick(START)
    assert events(out, "session_started")[0].msg["start"] == START
    assert commands(out, "1-1") == [{"t": "start"}]
    assert t.tables["1-1"].state == "playing"
    assert not t.sanctions.records


@pytest.mark.parametrize("late, points", [
    (9 * 60 + 59, 10),  # 9:59
    (10 * 60, 10),  # 10:00
    (10 * 60 + 1, 20),  # 10:01
    (14 * 60 + 59, 20),  # 14:59
])
def test_late_arrival_is_sanctioned_and_the_table_waits(late, points):
    t = scheduled()
    arrive_all_but(t, "d")
    out = t.tick(START)
    assert commands(out, "1-1") == []  # the table waits for d
    assert t.tables["1-1"].state == "waiting"
    assert t.next_deadline() > START + 900
    out = t.handle("d", {"t": "checkin"}, START + late)
    assert commands(out, "1-1") == [{"t": "start"}]
    (rec,) = t.sanctions.records
    assert (rec["kind"], rec["player"], rec["points"], rec["session"], rec["by"]) == ("late", "d", points, 1, "system")
    assert ("warning" in rec["reason"]) == (points == 10)
    # the sanction reaches d, the referee and the organiser (not public)
    (note,) = events(out, "sanction")
    assert note.to == ["d", REF, ORG]
    # lateness comes off 局分, not off a hand
    play(t, "1-1", [{}, {}], START + 3000)
    seats = {r["player"]: r for r in t.view(REF)["sessions"][0]["tables"][0]["seats"]}
    assert seats["d"]["score"] == 500 - points and seats["d"]["points"] == [0, 0]
    assert seats["a"]["score"] == 500


def test_a_late_arrival_at_the_session_start_itself_is_on_time():
    t = scheduled()
    arrive_all_but(t, "d")
    t.tick(START)
    t.handle("d", {"t": "checkin"}, START)
    assert t.sanctions.records == []


def test_more_than_fifteen_minutes_is_a_forfeit():
    t = scheduled()
    arrive_all_but(t, "d")
    t.tick(START)
    seat = t.tables["1-1"].seats.index("d")
    assert t.tick(START + 900) == []  # 15:00 exactly: not yet
    # a check-in at 15:01 before the server's tick is refused, and changes nothing
    with pytest.raises(TournamentError) as err:
        t.handle("d", {"t": "checkin"}, START + 901)
    assert err.value.code == E.FORFEITED
    assert t.sanctions.records == []
    out = t.tick(START + 901)
    (rec,) = t.sanctions.records
    assert (rec["kind"], rec["player"], rec["session"], rec["table"]) == ("forfeit", "d", 1, "1-1")
    # a can't-win bot takes the seat and the table starts
    assert commands(out, "1-1") == [{"t": "substitute", "player": seat}, {"t": "start"}]
    assert t.tables["1-1"].subs == {seat: "forfeit"}
    with pytest.raises(TournamentError) as err:
        t.handle("d", {"t": "checkin"}, START + 1000)
    assert err.value.code == E.FORFEITED
    # the forfeit's 局分 is 0 whatever the bot scored; the others rank above it
    play(t, "1-1", [{"d": 30, "a": -30}, {}], START + 3000)
    seats = {r["player"]: r for r in t.view(None)["sessions"][0]["tables"][0]["seats"]}
    assert seats["d"]["score"] == 0 and seats["d"]["forfeit"] and seats["d"]["ranked"]
    assert seats["d"]["std12"] == 0
    assert seats["a"]["score"] == 470
    # and d stays in the tournament for the next session
    assert "d" in [r["player"] for r in t.standings()]
    t.handle("d", {"t": "checkin"}, START + 3100)
    assert "d" in t.sessions[1].checkins


def test_the_deadline_is_just_after_fifteen_minutes():
    t = scheduled()
    arrive_all_but(t, "d")
    t.tick(START)
    dl = t.next_deadline()
    assert START + 900 < dl < START + 900.001
    t.tick(dl)
    assert t.sanctions.records[0]["kind"] == "forfeit"


def test_unscheduled_session_lateness_counts_from_the_organisers_start():
    t = make(sessions=1, hands=1)
    register(t, P)
    for p in P[:3]:
        t.handle(p, {"t": "checkin"}, 50.0)
    t.handle(ORG, {"t": "start"}, 100.0)
    t.handle("d", {"t": "checkin"}, 100.0 + 601)
    assert [(r["kind"], r["points"]) for r in t.sanctions.records] == [("late", 20)]


def test_second_session_checkin_opens_after_the_first():
    t = scheduled()
    arrive_all_but(t, None)
    t.tick(START)
    with pytest.raises(TournamentError) as err:
        t.handle("a", {"t": "checkin"}, START + 100)  # checked in for the session under way
    assert err.value.code == E.ALREADY_CHECKED_IN
    play(t, "1-1", [{}, {}], START + 2000)
    assert t.sessions[0].state == "finished"
    t.handle("a", {"t": "checkin"}, START + 2100)
    assert t.view("a")["players"][0]["checked_in"] is True
    assert t.view("a")["players"][1]["checked_in"] is False


def test_no_checkin_when_not_required():
    t = make(hands=1, checkin_required=False, starts=(START,))
    register(t, P)
    with pytest.raises(TournamentError) as err:
        t.handle("a", {"t": "checkin"}, START - 10)
    assert err.value.code == E.NOT_OPEN
    out = t.tick(START)
    assert commands(out, "1-1") == [{"t": "start"}]  # registered counts as present


def test_a_suspended_player_cannot_check_in():
    t = scheduled()
    t.handle(REF, {"t": "sanction", "player": "a", "kind": "suspend", "reason": "cheating"}, 10.0)
    with pytest.raises(TournamentError) as err:
        t.handle("a", {"t": "checkin"}, START - 10)
    assert err.value.code == E.SUSPENDED
