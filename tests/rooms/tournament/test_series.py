"""Scheduled events every ten minutes (tournament.md §4.5): the timetable, sign-up, cancel, fill."""

import pytest

from rooms.tournament import Series, TournamentConfig, TournamentError
from rooms.tournament import errors as E

from .support import ORG, REF, SECRET, commands, events, hand, opened

T0 = 1_000_000.0


def series(**kw):
    return Series(TournamentConfig(name="Ten-minute cup", max_players=16), **{"first_at": T0, **kw})


def test_timetable():
    s = series()
    assert s.instance(0).starts == T0 and s.instance(0).opens == T0 - 600
    assert s.instance(3).starts == T0 + 1800
    assert s.open_at(T0 - 601) is None
    assert s.open_at(T0 - 600).index == 0
    assert s.open_at(T0 - 1).index == 0
    assert s.open_at(T0).index == 1  # instance 0 starts; instance 1 is open at once
    assert s.open_at(T0 + 1234).index == 3
    assert s.next_opening(T0 - 5000).index == 0
    assert s.next_opening(T0 - 10).index == 1
    assert s.next_opening(T0).index == 2


def test_a_shorter_window_leaves_gaps():
    s = series(signup_window=120)
    assert s.open_at(T0 - 121) is None
    assert s.open_at(T0 - 120).index == 0
    assert s.open_at(T0 + 300) is None
    assert s.next_opening(T0 + 300).opens == T0 + 600 - 120


def test_instance_config():
    s = series(hands=4, min_players=4)
    c = s.config(2)
    assert (c.name, c.sessions, c.hands, c.starts, c.checkin_required, c.fill_bots, c.min_players) == \
        ("Ten-minute cup #3", 1, 4, (T0 + 1200,), False, True, 4)
    long = Series(TournamentConfig(name="x" * 60), first_at=T0)
    assert len(long.config(99).name) == 60 and long.config(99).name.endswith(" #100")


@pytest.mark.parametrize("kw", [{"every": 10}, {"signup_window": 601}, {"signup_window": 0}, {"hands": 0},
                                {"min_players": 0}, {"min_players": 17}, {"first_at": float("inf")}])
def test_bad_series(kw):
    with pytest.raises(TournamentError) as err:
        series(**kw)
    assert err.value.code == E.BAD_CONFIG


def test_round_trip():
    s = series(signup_window=300, hands=8)
    assert Series.from_dict(s.to_dict()) == s
    with pytest.raises(TournamentError):
        Series.from_dict({**s.to_dict(), "prize": 5})


def test_sign_up_and_fill_with_bots():
    s = series()
    inst = s.open_at(T0 - 300)
    t = s.create(inst.index, "cup-0", ORG, REF, SECRET, inst.opens)
    for p in ("a", "b", "c", "d", "e"):
        t.handle(p, {"t": "register"}, T0 - 200)
    assert t.next_deadline() == T0
    out = t.tick(T0)
    tables = opened(out)
    # 5 signed up: padded to 8 with bots, every table starts at once (no check-in)
    assert sorted(sum(p is not None for p in v) for v in tables.values()) == [2, 3]
    assert commands(out) == [{"t": "start"}, {"t": "start"}]
    with pytest.raises(TournamentError) as err:
        t.handle("f", {"t": "register"}, T0 + 1)
    assert err.value.code == E.CLOSED
    # the ranking is published at the end
    for key, players in tables.items():
        for n in range(4):
            t.table_event(key, {"t": "hand_result", "record": hand(n, [0, 0, 0, 0])}, T0 + 100)
        out = t.table_event(key, {"t": "match_result", "record": {"hands": []}}, T0 + 200)
    (fin,) = events(out, "finished")
    assert fin.to == "all" and len(fin.msg["standings"]) == 5


def test_too_few_sign_ups_cancel_the_instance_with_a_notice():
    s = series(min_players=4)
    t = s.create(0, "cup-0", ORG, REF, SECRET, T0 - 600)
    for p in ("a", "b", "c"):
        t.handle(p, {"t": "register"}, T0 - 100)
    out = t.tick(T0)
    (note,) = events(out, "cancelled")
    assert note.to == "all" and "too few" in note.msg["reason"]
    assert t.view(None)["state"] == "cancelled" and not opened(out)


def test_a_minimum_below_four_is_padded():
    s = series(min_players=2)
    t = s.create(0, "cup-0", ORG, REF, SECRET, T0 - 600)
    for p in ("a", "b"):
        t.handle(p, {"t": "register"}, T0 - 100)
    (players,) = opened(t.tick(T0)).values()
    assert sorted(p for p in players if p) == ["a", "b"] and players.count(None) == 2
