"""Check-in and lateness driven through handle/tick with an injected clock (R98 第十三条(二)1:
up to 10 min late: warning and -10; up to 15 min: -20; later: 自动弃权, 局分 0)."""

import math

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
    (rec,) = [r for r in t.sanctions.records if r["kind"] == "late"]
    assert (rec["kind"], rec["player"], rec["points"], rec["session"], rec["by"]) == ("late", "d", points, 1, "system")
    # the sanctions reach d, the referee and the organiser (not public)
    notes = events(out, "sanction")
    assert notes and all(note.to == ["d", REF, ORG] for note in notes)
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


def test_an_early_start_does_not_move_lateness():
    # 宣布比赛后迟到: counted from max(announced start, actual start); the organiser starting the
    # session ten minutes early moves nobody's lateness.
    t = scheduled()
    arrive_all_but(t, "d")
    out = t.handle(ORG, {"t": "start"}, START - 600)
    assert events(out, "session_started")[0].msg["start"] == START
    t.handle("d", {"t": "checkin"}, START)  # exactly at the announced time: on time
    assert t.sanctions.records == []
    assert t.tables["1-1"].state == "playing"


def test_an_early_start_forfeits_nobody_before_fifteen_minutes_after_the_announced_start():
    t = scheduled()
    arrive_all_but(t, "d")
    t.handle(ORG, {"t": "start"}, START - 600)
    assert t.next_deadline() > START + 900
    assert t.tick(START + 1) == []
    t.handle("d", {"t": "checkin"}, START + 300)
    assert [(r["kind"], r["points"]) for r in t.sanctions.records] == [("warning", 0), ("late", 10)]


def test_late_within_ten_minutes_is_a_warning_and_minus_ten():
    # 迟到10分钟内，警告一次并罚扣10分: the warning is its own record, so a later offence escalates from it.
    t = scheduled()
    arrive_all_but(t, "d")
    t.tick(START)
    out = t.handle("d", {"t": "checkin"}, START + 300)
    warning, late = t.sanctions.records
    assert (warning["kind"], warning["points"], warning["by"], warning["player"]) == ("warning", 0, "system", "d")
    assert (late["kind"], late["points"], late["player"]) == ("late", 10, "d")
    assert warning["table"] == late["table"] == "1-1" and warning["session"] == late["session"] == 1
    assert [n.msg["sanction"]["kind"] for n in events(out, "sanction")] == ["warning", "late"]
    assert t.view(REF)["players"][3]["warnings"] == t.view("d")["players"][3]["warnings"] == 1
    assert t.view("a")["players"][3]["warnings"] == t.view(None)["players"][3]["warnings"] == 0  # not public
    # cancelling the points leaves the warning standing
    t.handle(REF, {"t": "cancel_sanction", "sanction": late["id"], "reason": "clock wrong"}, START + 400)
    assert [r["kind"] for r in t.sanctions.active(player="d")] == ["warning"]


def test_late_between_ten_and_fifteen_minutes_is_minus_twenty_without_a_warning():
    t = scheduled()
    arrive_all_but(t, "d")
    t.tick(START)
    t.handle("d", {"t": "checkin"}, START + 700)
    assert [(r["kind"], r["points"]) for r in t.sanctions.records] == [("late", 20)]


def test_a_forfeiting_seat_ranks_last_at_its_table_whatever_the_numbers():
    # 超过15分钟未到者，将按自动弃权处理，局分记为0: the forfeiter is last even when a present
    # player's 局分 is below 0; two no-shows share the last places (0.5 each), below every player present.
    t = make(sessions=1, hands=1, starts=(START,))
    register(t, P)
    for p in ("a", "b"):
        t.handle(p, {"t": "checkin"}, START - 60)
    t.tick(START)
    t.tick(START + 901)
    assert t.tables["1-1"].subs == {t.tables["1-1"].seat_of("c"): "forfeit", t.tables["1-1"].seat_of("d"): "forfeit"}
    play(t, "1-1", [{"a": -520, "b": 520}], START + 3000)
    seats = {r["player"]: r for r in t.view(None)["sessions"][0]["tables"][0]["seats"]}
    assert (seats["a"]["score"], seats["c"]["score"], seats["d"]["score"]) == (-20, 0, 0)
    assert {p: seats[p]["std12"] for p in P} == {"b": 48, "a": 24, "c": 6, "d": 6}


def seats_reported(t, taken, now):
    return t.table_event("1-1", {"t": "seats", "taken": taken}, now)


def test_a_player_who_checks_in_and_never_sits_down_is_late_until_they_take_the_seat():
    # 宣布比赛后迟到: lateness counts from the announced start until the player arrives, and a player
    # who checked in but is not at the table has not arrived (托管 plays the seat meanwhile).
    t = scheduled()
    arrive_all_but(t, None)
    t.tick(START)
    assert t.tables["1-1"].state == "playing"
    d = t.tables["1-1"].seat_of("d")
    seats_reported(t, [i for i in range(4) if i != d], START + 1)
    assert t.next_deadline() == math.nextafter(START + 900, math.inf)
    t.table_event("1-1", {"t": "seated", "player": d}, START + 300)
    assert [(r["kind"], r["points"], r["player"]) for r in t.sanctions.records] == [("warning", 0, "d"), ("late", 10, "d")]
    t.table_event("1-1", {"t": "seated", "player": d}, START + 800)  # a reconnection: nothing more
    assert len(t.sanctions.records) == 2
    play(t, "1-1", [{}, {}], START + 3000)
    seats = {r["player"]: r for r in t.view(REF)["sessions"][0]["tables"][0]["seats"]}
    assert seats["d"]["score"] == 490


def test_a_late_check_in_is_topped_up_when_the_seat_is_taken_later_still():
    t = scheduled()
    arrive_all_but(t, "d")
    t.tick(START)
    d = t.tables["1-1"].seat_of("d")
    seats_reported(t, [i for i in range(4) if i != d], START + 1)
    t.handle("d", {"t": "checkin"}, START + 200)  # -10 and a warning
    t.table_event("1-1", {"t": "seated", "player": d}, START + 700)  # sat down at 11:40: -20 in all
    assert [(r["kind"], r["points"]) for r in t.sanctions.records] == [("warning", 0), ("late", 10), ("late", 10)]
    assert t.sanctions.late_points("d", 1) == 20


def test_a_checked_in_player_not_seated_fifteen_minutes_after_the_start_forfeits():
    t = scheduled()
    arrive_all_but(t, None)
    t.tick(START)
    d = t.tables["1-1"].seat_of("d")
    seats_reported(t, [i for i in range(4) if i != d], START + 1)
    assert t.tick(START + 900) == []
    out = t.tick(START + 901)
    assert [(r["kind"], r["player"]) for r in t.sanctions.records] == [("forfeit", "d")]
    assert commands(out, "1-1") == [{"t": "substitute", "player": d}]
    assert t.table_event("1-1", {"t": "seated", "player": d}, START + 1000) == []  # too late: the bot keeps it


def test_seats_are_not_counted_unless_the_server_reports_them():
    t = scheduled()
    arrive_all_but(t, None)
    t.tick(START)
    t.tick(START + 2000)
    assert t.sanctions.records == []
    with pytest.raises(TournamentError) as err:
        t.table_event("1-1", {"t": "seated", "player": 7}, START + 2001)
    assert err.value.code == E.BAD_EVENT


def test_a_storage_pause_over_the_start_moves_the_lateness_clock_and_the_time_limit():
    """The server could not write from 2 min before the start to 3 min after it: the session starts
    when the pause ends and counts lateness from then; a later pause of a running table moves its
    time limit by its length; a replay does the same."""
    from rooms.tournament.lateness import paused
    from rooms.tournament.tournament import Tournament

    t = scheduled(time_limit=30)
    arrive_all_but(t, "d")
    out = paused(t, START - 120, START + 180, START + 180)
    assert events(out, "session_started")[0].msg["start"] == START + 180
    t.handle("d", {"t": "checkin"}, START + 180 + 10 * 60)  # 13 min after the announced start
    assert [(s["kind"], s["points"]) for s in t.sanctions.records] == [("warning", 0), ("late", 10)]
    table = t.tables["1-1"]
    assert table.state == "playing" and table.started == START + 780
    paused(t, START + 900, START + 960, START + 960)
    assert table.started == START + 840 and t.next_deadline() == START + 840 + 30 * 60
    replayed = Tournament.replay(t.take_log())
    assert replayed.tables["1-1"].started == START + 840
    assert replayed.sessions[0].start == t.sessions[0].start == START + 240  # both pauses came after it
