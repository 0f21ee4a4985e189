"""Whole tournaments driven only through handle / table_event / tick, with fabricated hand records,
checked against hand-computed numbers; replay; bots and byes."""

import pytest

from rooms.tournament import Notify, OpenTable, TableCommand, Tournament, TournamentError
from rooms.tournament import errors as E

from .support import ORG, REF, commands, deltas_for, events, hand, make, opened, register

PLAYERS = [f"p{i}" for i in range(1, 9)]
S1, S2 = 10_000.0, 20_000.0


def report(t, key, n, by_player, now, void=False):
    rec = hand(n - 1, deltas_for(t.tables[key].seats, by_player), void)
    return t.table_event(key, {"t": "hand_result", "record": rec}, now)


def end(t, key, now):
    return t.table_event(key, {"t": "match_result", "record": {"match": 1, "hands": []}}, now)


def seats_view(t, session, key, viewer=None):
    table = next(x for x in t.view(viewer)["sessions"][session - 1]["tables"] if x["table"] == key)
    return {r["player"]: r for r in table["seats"]}


def test_eight_players_two_sessions():
    t = make(sessions=2, hands=4, seating="standing", time_limit=60, starts=(S1, S2))
    register(t, PLAYERS, team=lambda p: "A" if p in ("p1", "p2", "p3", "p4") else "B")
    log = t.take_log()

    # -- session 1: everybody but p6 checks in ------------------------------------------------------
    for p in PLAYERS:
        if p != "p6":
            t.handle(p, {"t": "checkin"}, S1 - 600)
    assert t.next_deadline() == S1
    out = t.tick(S1)
    # the seeded draw (SECRET) gives these tables, East first
    assert opened(out) == {"1-1": ["p4", "p1", "p3", "p7"], "1-2": ["p6", "p5", "p2", "p8"]}
    assert all(e.config["hands"] == 4 for e in out if isinstance(e, OpenTable))
    assert commands(out) == [{"t": "start"}]  # 1-1 only: 1-2 waits for p6
    out = t.handle("p6", {"t": "checkin"}, S1 + 720)  # 12 minutes late: -20
    assert commands(out, "1-2") == [{"t": "start"}]

    # table 1-1: p1 self-draws 8; p3 wins on p7's discard with 10; exhaustive draw; p7 self-draws 12
    report(t, "1-1", 1, {"p1": 48, "p3": -16, "p4": -16, "p7": -16}, S1 + 600)
    t.handle(REF, {"t": "sanction", "player": "p4", "kind": "points", "points": 10, "reason": "noise"}, S1 + 700)
    report(t, "1-1", 2, {"p3": 34, "p7": -18, "p4": -8, "p1": -8}, S1 + 1200)
    for _ in range(2):  # two timeouts in hand 3: a warning, then -5
        t.table_event("1-1", {"t": "offence", "player": 2, "kind": "timeout", "hand": 2}, S1 + 1300)
    report(t, "1-1", 3, {}, S1 + 1800)
    report(t, "1-1", 4, {"p7": 60, "p1": -20, "p3": -20, "p4": -20}, S1 + 2400)
    end(t, "1-1", S1 + 2400)
    # table 1-2: p5 on p2's discard 8; p8 self-draws 8; p6 on p8's discard 16; p2 self-draws 8
    report(t, "1-2", 1, {"p5": 32, "p2": -16, "p6": -8, "p8": -8}, S1 + 1500)
    report(t, "1-2", 2, {"p8": 48, "p5": -16, "p6": -16, "p2": -16}, S1 + 2000)
    report(t, "1-2", 3, {"p6": 40, "p8": -24, "p5": -8, "p2": -8}, S1 + 2500)
    report(t, "1-2", 4, {"p2": 48, "p5": -16, "p6": -16, "p8": -16}, S1 + 3000)
    out = end(t, "1-2", S1 + 3000)
    (done,) = events(out, "session_finished")

    s1 = seats_view(t, 1, "1-1") | seats_view(t, 1, "1-2")
    assert s1["p3"]["points"] == [-16, 34, -5, -20]
    assert s1["p4"]["points"] == [-16, -18, 0, -20]
    assert {p: s1[p]["score"] for p in PLAYERS} == {"p1": 520, "p3": 493, "p4": 446, "p7": 526,
                                                    "p5": 492, "p2": 508, "p6": 480, "p8": 500}
    assert {p: s1[p]["std12"] for p in PLAYERS} == {"p7": 48, "p1": 24, "p3": 12, "p4": 0,
                                                    "p2": 48, "p8": 24, "p5": 12, "p6": 0}
    assert s1["p6"]["late"] == 20 and s1["p7"]["std"] == 4.0
    # equal 标准分: the higher total 局分 first
    order1 = ["p7", "p2", "p1", "p8", "p3", "p5", "p6", "p4"]
    assert [r["player"] for r in done.msg["standings"]] == order1

    # -- session 2: 高高碰 by the standings; p4 never comes -------------------------------------------
    with pytest.raises(TournamentError) as err:
        t.handle("p1", {"t": "checkin"}, S2 - 1801)
    assert err.value.code == E.NOT_OPEN
    for p in PLAYERS:
        if p != "p4":
            t.handle(p, {"t": "checkin"}, S2 - 1000)
    out = t.tick(S2)
    tables = opened(out)
    assert {k: set(v) for k, v in tables.items()} == {"2-1": {"p7", "p2", "p1", "p8"},
                                                      "2-2": {"p3", "p5", "p6", "p4"}}
    assert commands(out) == [{"t": "start"}]
    assert t.next_deadline() == pytest.approx(S2 + 900)
    out = t.tick(S2 + 901)  # p4 forfeits: a can't-win bot takes the seat and the table starts
    p4_seat = tables["2-2"].index("p4")
    assert commands(out, "2-2") == [{"t": "substitute", "player": p4_seat}, {"t": "start"}]

    # table 2-1: p2 self-draws 8; p1 on p7 8; p8 on p2 8; time is called during hand 4: void
    report(t, "2-1", 1, {"p2": 48, "p1": -16, "p7": -16, "p8": -16}, S2 + 900)
    report(t, "2-1", 2, {"p1": 32, "p7": -16, "p2": -8, "p8": -8}, S2 + 1800)
    report(t, "2-1", 3, {"p8": 32, "p2": -16, "p7": -8, "p1": -8}, S2 + 2700)
    assert t.next_deadline() == S2 + 3600
    out = t.tick(S2 + 3600)
    assert commands(out, "2-1") == [{"t": "time_up", "finish_hand": False}]
    report(t, "2-1", 4, {"p7": 100, "p1": -100}, S2 + 3600, void=True)
    end(t, "2-1", S2 + 3600)
    # table 2-2 (p4's seat is the bot's): p5 self-draws 10; p3 on the bot's discard 9; p6 on p3's 11
    report(t, "2-2", 1, {"p5": 54, "p3": -18, "p6": -18, "p4": -18}, S2 + 1500)
    t.handle(REF, {"t": "sanction", "player": "p5", "kind": "points", "points": 20, "reason": "x", "hand": 1},
             S2 + 1600)
    t.handle(REF, {"t": "cancel_sanction", "sanction": 6, "reason": "wrong player"}, S2 + 1700)
    report(t, "2-2", 2, {"p3": 33, "p4": -17, "p5": -8, "p6": -8}, S2 + 2000)
    report(t, "2-2", 3, {"p6": 35, "p3": -19, "p5": -8, "p4": -8}, S2 + 2500)
    report(t, "2-2", 4, {}, S2 + 3000)
    out = end(t, "2-2", S2 + 3000)

    s2 = seats_view(t, 2, "2-1") | seats_view(t, 2, "2-2")
    assert s2["p7"]["points"] == [-16, -16, -8, 0]  # the void hand counts 0
    assert {p: s2[p]["score"] for p in PLAYERS} == {"p2": 524, "p1": 508, "p8": 508, "p7": 460,
                                                    "p5": 538, "p6": 509, "p3": 496, "p4": 0}
    # p1 and p8 share 2nd and 3rd: (24 + 12) / 2 = 18 each (1.5)
    assert {p: s2[p]["std12"] for p in PLAYERS} == {"p2": 48, "p1": 18, "p8": 18, "p7": 0,
                                                    "p5": 48, "p6": 24, "p3": 12, "p4": 0}
    assert s2["p1"]["std"] == 1.5
    assert s2["p4"]["forfeit"] and s2["p4"]["substituted"] == "forfeit"

    # -- the end -------------------------------------------------------------------------------
    (fin,) = events(out, "finished")
    assert fin.to == "all"
    rows = fin.msg["standings"]
    # totals (×12, 局分): p2 96/1032, p5 60/1030, p7 48/986, p1 42/1028, p8 42/1008, p6 24/989,
    # p3 24/989 (p6 ahead: equal totals, and p6's best single 标准分 is 2 against p3's 1), p4 0/446
    assert [(r["player"], r["place"], r["std12"], r["score"]) for r in rows] == [
        ("p2", 1, 96, 1032), ("p5", 2, 60, 1030), ("p7", 3, 48, 986), ("p1", 4, 42, 1028),
        ("p8", 5, 42, 1008), ("p6", 6, 24, 989), ("p3", 7, 24, 989), ("p4", 8, 0, 446)]
    assert rows[0]["std"] == 8.0 and rows[3]["std"] == 3.5
    assert [(x["team"], x["std12"], x["score"]) for x in fin.msg["teams"]] == [("B", 174, 4013), ("A", 162, 3495)]
    v = t.view("p3")
    assert v["state"] == "finished" and t.next_deadline() is None
    # p3 sees its own (private) timeout records; everyone else does not
    assert [r["kind"] for r in v["sanctions"]] == ["offence", "offence"]
    assert t.view("p1")["sanctions"] == []
    kinds = [(r["kind"], r["player"], r["points"], r["cancelled"] is not None) for r in t.view(REF)["sanctions"]]
    assert kinds == [("late", "p6", 20, False), ("points", "p4", 10, False), ("offence", "p3", 0, False),
                     ("offence", "p3", 5, False), ("forfeit", "p4", 0, False), ("points", "p5", 20, True)]

    # -- replay: the log rebuilds the same tournament ------------------------------------------------
    log += t.take_log()
    again = Tournament.replay(log)
    for who in (None, "p3", REF, ORG):
        assert again.view(who) == t.view(who)
    assert again.tseq == t.tseq and again.summary() == t.summary()


def test_replay_mid_tournament_and_carry_on():
    t = make(sessions=2, hands=1, checkin_required=False, seating="swiss")
    register(t, PLAYERS)
    t.handle(ORG, {"t": "start"}, 100.0)
    t.table_event("1-1", {"t": "hand_result", "record": hand(0, [8, -8, 0, 0])}, 200.0)
    t.handle(REF, {"t": "sanction", "player": "p1", "kind": "warning", "reason": "x"}, 250.0)
    log = t.take_log()
    r = Tournament.replay(log)
    assert r.view(REF) == t.view(REF)
    assert r.next_deadline() == t.next_deadline()
    # both go on identically
    for x in (t, r):
        x.table_event("1-1", {"t": "match_result", "record": {"hands": []}}, 300.0)
        x.table_event("1-2", {"t": "hand_result", "record": hand(0, [0, 0, 0, 0])}, 300.0)
        out = x.table_event("1-2", {"t": "match_result", "record": {"hands": []}}, 300.0)
        assert events(out, "session_finished")
        x.handle(ORG, {"t": "start"}, 400.0)
    assert r.view(None) == t.view(None)
    assert t.take_log() == r.take_log()


def test_missing_hand_results_are_taken_from_the_match_record():
    t = make(hands=2, checkin_required=False)
    register(t, PLAYERS[:4])
    t.handle(ORG, {"t": "start"}, 100.0)
    t.table_event("1-1", {"t": "hand_result", "record": hand(0, [8, -8, 0, 0])}, 200.0)
    t.table_event("1-1", {"t": "match_result", "record": {"hands": [hand(0, [8, -8, 0, 0]),
                                                                    hand(1, [0, 0, 24, -24])]}}, 300.0)
    assert [r["points"] for r in t.view(None)["sessions"][0]["tables"][0]["seats"]] == \
        [[8, 0], [-8, 0], [0, 24], [0, -24]]


def test_time_up_finish_lets_the_hand_be_played():
    t = make(hands=16, time_limit=30, time_up="finish", checkin_required=False)
    register(t, PLAYERS[:4])
    t.handle(ORG, {"t": "start"}, 100.0)
    assert t.next_deadline() == 100.0 + 1800
    assert t.tick(1899.0) == []
    out = t.tick(1900.0)
    assert [e for e in out if isinstance(e, TableCommand)] == [TableCommand("1-1", {"t": "time_up",
                                                                                   "finish_hand": True})]
    assert t.next_deadline() is None  # called once
    # the hand in play when time was called (1) is the last one a sanction can name as "in play"
    t.handle(REF, {"t": "sanction", "player": "p1", "kind": "stop_win", "reason": "signals"}, 1950.0)
    assert t.sanctions.records[-1]["hand"] == 1
    t.table_event("1-1", {"t": "hand_result", "record": hand(0, [0, 0, 0, 0])}, 2000.0)
    with pytest.raises(TournamentError) as err:
        t.handle(REF, {"t": "sanction", "player": "p1", "kind": "stop_win", "reason": "signals"}, 2001.0)
    assert err.value.code == E.NO_HAND


def test_five_players_are_padded_with_bots_whose_places_go_to_nobody():
    t = make(hands=1, checkin_required=False)
    register(t, PLAYERS[:5])
    out = t.handle(ORG, {"t": "start"}, 100.0)
    tables = opened(out)
    assert sorted(len([p for p in v if p is not None]) for v in tables.values()) == [2, 3]
    key = next(k for k, v in tables.items() if v.count(None) == 1)
    humans = [p for p in tables[key] if p is not None]
    # humans[0] self-draws 8; the can't-win bot pays like the others and ties with two humans for 2nd:
    # the three share (24 + 12 + 0) / 3 = 12 each, and the bot's share goes to nobody
    report(t, key, 1, {humans[0]: 48, humans[1]: -16, humans[2]: -16, None: -16}, 200.0)
    end(t, key, 200.0)
    rows = seats_view(t, 1, key)
    assert rows[None]["bot"] and not rows[None]["ranked"] and rows[None]["score"] == 484
    assert rows[None]["std12"] is None
    assert (rows[humans[0]]["std12"], rows[humans[1]]["std12"], rows[humans[2]]["std12"]) == (48, 12, 12)


def test_without_fill_bots_the_extra_players_get_a_bye():
    t = make(hands=1, sessions=2, fill_bots=False, checkin_required=False, seating="standing")
    register(t, PLAYERS[:6])
    out = t.handle(ORG, {"t": "start"}, 100.0)
    (started,) = events(out, "session_started")
    byes1 = started.msg["byes"]
    assert len(byes1) == 2 and len(started.msg["tables"]) == 1 and None not in started.msg["tables"][0]["players"]
    report(t, "1-1", 1, {}, 200.0)
    end(t, "1-1", 200.0)
    out = t.handle(ORG, {"t": "start"}, 300.0)
    (started,) = events(out, "session_started")
    byes2 = started.msg["byes"]
    assert not set(byes1) & set(byes2)  # nobody sits out twice while others have not
    assert set(byes1) <= set(started.msg["tables"][0]["players"])


def test_a_session_with_a_late_start_counts_lateness_from_the_end_of_the_previous_one():
    t = make(hands=1, sessions=2, starts=(1000.0, 2000.0))
    register(t, PLAYERS[:4])
    for p in PLAYERS[:4]:
        t.handle(p, {"t": "checkin"}, 900.0)
    t.tick(1000.0)
    assert t.tick(2000.0) == []  # session 1 still being played at 2000
    for p in PLAYERS[:3]:
        t.handle(p, {"t": "checkin"}, 2100.0)  # check-in for session 2 is open (from 200.0)
    out = end(t, "1-1", 2500.0)
    (started,) = events(out, "session_started")
    assert started.msg["start"] == 2500.0
    t.handle("p4", {"t": "checkin"}, 2500.0 + 300)
    assert [(r["kind"], r["points"]) for r in t.sanctions.records] == [("warning", 0), ("late", 10)]


def test_effects_are_plain_values():
    t = make(hands=1, checkin_required=False)
    register(t, PLAYERS[:4])
    out = t.handle(ORG, {"t": "start"}, 100.0)
    assert [type(e).__name__ for e in out] == ["Notify", "OpenTable", "TableCommand", "Notify"]
    assert isinstance(out[0], Notify) and out[0].to == "all"
    (op,) = [e for e in out if isinstance(e, OpenTable)]
    assert op.table == "1-1" and len(op.players) == 4


def test_log_and_view_are_json():
    import json

    t = make(sessions=2, hands=1, starts=(1000.0, None))
    register(t, PLAYERS[:5], team=lambda p: "T")
    for p in PLAYERS[:5]:
        t.handle(p, {"t": "checkin"}, 900.0)
    t.tick(1000.0)
    t.handle(REF, {"t": "sanction", "player": "p1", "kind": "warning", "reason": "x"}, 1001.0)
    log = json.loads(json.dumps(t.take_log()))
    assert Tournament.replay(log).view(REF) == t.view(REF)
    assert json.loads(json.dumps(t.view(REF))) == t.view(REF)
    assert json.loads(json.dumps(t.summary())) == t.summary()


def test_a_checkin_after_the_start_before_the_tick_is_late_all_the_same():
    t = make(hands=1, starts=(1000.0,))
    register(t, PLAYERS[:4])
    for p in PLAYERS[:3]:
        t.handle(p, {"t": "checkin"}, 900.0)
    out = t.handle("p4", {"t": "checkin"}, 1000.0 + 700)  # the server's tick at 1000 never came
    assert events(out, "session_started")[0].msg["start"] == 1000.0
    assert [(r["kind"], r["points"]) for r in t.sanctions.records] == [("late", 20)]
    assert commands(out) == [{"t": "start"}]


def test_junk_never_raises_anything_but_a_tournament_error():
    import random

    rng = random.Random(5)
    t = make(hands=2, checkin_required=False)
    register(t, PLAYERS[:4])
    t.handle(ORG, {"t": "start"}, 10.0)
    values = [None, 0, -1, 1.5, True, "", "x", "p1", "1-1", [], {}, ["p1"], {"a": 1}, 10, 60, 2**70]
    names = ["t", "player", "kind", "points", "reason", "table", "hand", "public", "sanction", "team"]
    kinds = ["register", "unregister", "checkin", "start", "sanction", "cancel_sanction", "referee", "cancel"]
    for i in range(3000):
        cmd = {"t": rng.choice(kinds)}
        for _ in range(rng.randrange(4)):
            cmd[rng.choice(names)] = rng.choice(values + ["warning", "points", "suspend", "notice", "stop_win"])
        who = rng.choice([ORG, REF, "p1", "zz"])
        try:
            t.handle(who, cmd, 20.0 + i)
        except TournamentError:
            pass
        ev = {"t": rng.choice(["hand_result", "match_result", "offence", "x"]),
              "record": rng.choice(values), "player": rng.choice(values), "kind": rng.choice(["timeout", "x"]),
              "hand": rng.choice(values)}
        try:
            t.table_event(rng.choice(["1-1", "2-2", 5]), ev, 20.0 + i)
        except TournamentError:
            pass
    # whatever got through was logged: the log still rebuilds the same tournament
    assert Tournament.replay(t.take_log()).view(REF) == t.view(REF)
