"""Duplicate (复式) tournaments: every table of a session gets the same walls (one secret for all its
rooms), committed by hash before play and revealed after, and each player is compared with the players
who held the same tiles at the other tables (docs/tournaments.md "Duplicate")."""

from __future__ import annotations

import hashlib
import random
from fractions import Fraction

from game import match as gm
from game.rules import Rules
from rooms.room import match_seed
from rooms.tournament import OpenTable
from rooms.tournament.delta import Deltas, apply
from tests.rooms.tournament.support import REF, SECRET, hand, make, register

PLAYERS = [f"p{i}" for i in range(8)]
# decisions.md item 8, written out here rather than taken from game.match: the wind seat (0..3 = E S W N)
# of the player who sat down at room seat p, in round r.
SCHEME = {0: "ESNW", 1: "SEWN", 2: "WNES", 3: "NWSE"}


def holder_seat(wind: int, hand0: int) -> int:
    """The room seat holding wind seat ``wind`` in the room's hand ``hand0`` (0-based)."""
    return next(p for p in range(4) if SCHEME[p][hand0 // 4] == "ESWN"[wind])


def started(players=PLAYERS, **config):
    config = {"duplicate": True, "checkin_required": False, "seating": "random", "hands": 4, **config}
    t = make(**config)
    register(t, players)
    out = t.handle("org", {"t": "start"}, 10.0)
    return t, [e for e in out if isinstance(e, OpenTable)]


def finish(t, deltas_by_table: dict[str, list[list[int]]], now=20.0, void: dict | None = None):
    """Report each table's hands (deltas by room seat) and its match result."""
    void = void or {}
    for key, hands in deltas_by_table.items():
        for i, d in enumerate(hands):
            t.table_event(key, {"t": "hand_result", "record": hand(i, d, void=(key, i) in void)}, now)
        t.table_event(key, {"t": "match_result", "record": {"match": 1, "hands": []}, "replay": 100 + int(key[-1])},
                      now)


def expected(t, deltas_by_table, skip=()) -> tuple[dict, dict]:
    """Per (hand0, wind, table): 盘分 − the mean of the holders compared, and each player's total."""
    diffs, totals = {}, {}
    hands = len(next(iter(deltas_by_table.values())))
    for h in range(hands):
        for w in range(4):
            seat = holder_seat(w, h)
            held = [(k, t.tables[k].seats[seat], d[h][seat]) for k, d in deltas_by_table.items()
                    if t.tables[k].seats[seat] is not None and (k, h) not in skip]
            if not held:
                continue
            mean = Fraction(sum(x[2] for x in held), len(held))
            for k, p, pts in held:
                diffs[(h, w, k)] = pts - mean
                totals[p] = totals.get(p, 0) + pts - mean
    return diffs, totals


def got_diffs(view) -> dict:
    return {(d["hand"] - 1, s["seat"], x["table"]): x["diff"] for d in view["deals"] for s in d["seats"]
            for x in s["holders"] if x["diff"] is not None}


def test_every_table_of_a_duplicate_session_gets_the_same_walls():
    t, opened = started()
    assert len(opened) == 2
    secrets = {e.secret for e in opened}
    assert len(secrets) == 1 and None not in secrets
    walls = []
    for e in opened:
        m, _ = gm.start_match(Rules(hands=4), seed=match_seed(e.secret, 1))
        walls.append(m.hand.wall)
    assert walls[0] == walls[1]
    # A tournament that is not duplicate leaves the walls to the server (a new secret per room).
    plain = make(checkin_required=False, seating="random")
    register(plain, PLAYERS)
    assert {e.secret for e in plain.handle("org", {"t": "start"}, 10.0) if isinstance(e, OpenTable)} == {None}
    assert plain.view(None)["duplicate"] is None


def test_the_walls_are_committed_before_play_and_the_hash_checks_after_the_reveal():
    t, opened = started()
    v = t.view(None)
    c = v["sessions"][0]["commitment"]
    assert isinstance(c, str) and len(c) == 64
    assert v["duplicate"]["sessions"][0] == {"session": 1, "commitment": c, "seed": None, "salt": None, "deals": []}
    keys = [e.table for e in opened]
    finish(t, {k: [[0, 0, 0, 0]] * 4 for k in keys})
    s = t.view(None)["duplicate"]["sessions"][0]
    assert s["commitment"] == c
    assert hashlib.sha256(f"{s['seed']}:{s['salt']}".encode()).hexdigest() == c
    assert int(s["seed"]) == match_seed(opened[0].secret, 1)  # the seed every table room deals from


def test_duplicate_scores_of_two_tables_by_hand():
    t, opened = started(hands=4)
    a, b = (e.table for e in opened)
    # Hand 1 (all in the first round: room seat p holds wind p). Table a: East self-draws 8 (+24, -8 each);
    # table b: South wins 40 off West... written out by room seat.
    deltas = {a: [[24, -8, -8, -8], [0, 0, 0, 0], [-10, 10, 0, 0], [0, 0, 0, 0]],
              b: [[-8, 40, -16, -16], [0, 0, 0, 0], [0, 0, 5, -5], [3, -1, -1, -1]]}
    finish(t, deltas)
    v = t.view(None)["duplicate"]
    d = got_diffs(v["sessions"][0])
    # By hand: East of hand 1 held 24 at a and -8 at b: mean 8, so +16 and -16; South: -8 and 40, mean 16.
    assert (d[(0, 0, a)], d[(0, 0, b)]) == (16, -16)
    assert (d[(0, 1, a)], d[(0, 1, b)]) == (-24, 24)
    assert (d[(0, 2, a)], d[(0, 2, b)], d[(0, 3, a)], d[(0, 3, b)]) == (4, -4, 4, -4)
    want, totals = expected(t, deltas)
    assert d == {k: round(float(x), 2) for k, x in want.items()}
    rows = {r["player"]: r for r in v["standings"]}
    assert {p: r["score"] for p, r in rows.items()} == {p: round(float(x), 2) for p, x in totals.items()}
    assert sorted(r["score"] for r in v["standings"])[::-1] == [r["score"] for r in v["standings"]]
    assert all(r["deals"] == 4 for r in v["standings"])
    # Each holder's replay link is its table's match.
    links = {x["table"]: x["replay"] for dd in v["sessions"][0]["deals"] for s in dd["seats"] for x in s["holders"]}
    assert links == {a: 100 + int(a[-1]), b: 100 + int(b[-1])}


def test_sixteen_hands_move_the_holders_through_the_winds():
    t, opened = started(hands=16)
    rng = random.Random(3)
    deltas = {}
    for e in opened:
        hands = []
        for _ in range(16):
            x = [rng.randrange(-30, 31, 2) for _ in range(3)]
            hands.append([*x, -sum(x)])
        deltas[e.table] = hands
    finish(t, deltas)
    v = t.view(None)["duplicate"]
    want, totals = expected(t, deltas)
    assert got_diffs(v["sessions"][0]) == {k: round(float(x), 2) for k, x in want.items()}
    assert {r["player"]: r["score"] for r in v["standings"]} == {p: round(float(x), 2) for p, x in totals.items()}
    # In round 2 (hands 5-8) East is held by the players who sat down South (decisions.md item 8).
    east5 = v["sessions"][0]["deals"][4]["seats"][0]["holders"]
    assert [x["player"] for x in east5] == [t.tables[k].seats[1] for k in deltas]


def test_bots_voids_and_penalties_are_left_out_or_counted():
    # Six players and two can't-win bots: a bot's seat is not compared; a void hand is compared only where
    # it was played; a referee's penalty is part of 盘分, so it moves the difference (and the deltas carry it).
    t, opened = started(players=PLAYERS[:6], hands=4)
    keys = [e.table for e in opened]
    assert sum(p is None for e in opened for p in e.players) == 2
    rng = random.Random(9)
    deltas = {k: [[rng.randrange(-20, 21) for _ in range(4)] for _ in range(4)] for k in keys}
    finish(t, deltas, void={(keys[1], 3): True})
    v = t.view(None)["duplicate"]
    want, _ = expected(t, {k: [[0 if (k, h) == (keys[1], 3) else x for x in d[h]] for h in range(4)]
                           for k, d in deltas.items()}, skip={(keys[1], 3)})
    assert got_diffs(v["sessions"][0]) == {k: round(float(x), 2) for k, x in want.items()}
    bots = [x for d in v["sessions"][0]["deals"] for s in d["seats"] for x in s["holders"] if x["player"] is None]
    assert bots and all(not x["compared"] and x["diff"] is None for x in bots)

    victim = t.tables[keys[0]].seats[0] or t.tables[keys[0]].seats[1]
    deltas_state = Deltas(t)
    before = t.view(None)
    t.take_log()
    t.handle(REF, {"t": "sanction", "player": victim, "kind": "points", "points": 10, "reason": "slow",
                   "table": keys[0], "hand": 1}, 30.0)
    entries = t.take_log()
    delta, _, _ = deltas_state.after(t, entries)
    after = t.view(None)
    old = {r["player"]: r["score"] for r in before["duplicate"]["standings"]}
    new = {r["player"]: r["score"] for r in after["duplicate"]["standings"]}
    seat = t.tables[keys[0]].seats.index(victim)
    other = t.tables[keys[1]].seats[seat]
    share = 5.0 if other is not None else 0.0  # -10 against one other holder: half of it shows
    assert round(new[victim] - old[victim], 2) == -share
    if other is not None:
        assert round(new[other] - old[other], 2) == share
    moved = apply({**before, "tseq": 0}, {**delta, "from": 0, "tseq": 1})
    assert moved["duplicate"] == after["duplicate"]


def test_replay_rebuilds_the_duplicate_view():
    t, opened = started()
    finish(t, {e.table: [[4, -4, 2, -2]] * 4 for e in opened})
    from rooms.tournament import Tournament
    log = t.take_log()
    assert Tournament.replay(log).view(None)["duplicate"] == t.view(None)["duplicate"]
    assert any(e["k"] == "session_start" and len(e["commitment"]) == 64 for e in log)
    shown = repr(t.view(None))  # the secrets stay on the server: only the seed of the walls is revealed
    assert SECRET.hex() not in shown and opened[0].secret.hex() not in shown


def test_duplicate_seating_turns_table_i_by_i_minus_one_seats():
    # By hand: by standings, tables 1-4 get p0-p3, p4-p7, ...; table i puts slot s at room seat s - (i-1).
    from rooms.tournament.seating import seat_tables
    ranked = [f"p{i}" for i in range(16)]
    tables = seat_tables("standing", ranked, random.Random(1), first=False, duplicate=True)
    assert tables == [["p0", "p1", "p2", "p3"], ["p5", "p6", "p7", "p4"],
                      ["p10", "p11", "p8", "p9"], ["p15", "p12", "p13", "p14"]]
    assert seat_tables("standing", ranked[:8], random.Random(1), first=False, duplicate=True) == [
        ["p0", "p1", "p2", "p3"], ["p5", "p6", "p7", "p4"]]
    # Five tables: the fifth turns like the first. Seven players: the bot (None) is slot 3 of table 2.
    assert seat_tables("standing", ranked + list("abcd"), random.Random(1), first=False,
                       duplicate=True)[4] == ["a", "b", "c", "d"]
    assert seat_tables("standing", ranked[:7], random.Random(1), first=False, duplicate=True) == [
        ["p0", "p1", "p2", "p3"], ["p5", "p6", None, "p4"]]
    # Not duplicate: the seat order within each table is still drawn.
    plain = seat_tables("standing", ranked, random.Random(1), first=False)
    assert [sorted(t) for t in plain] == [sorted(ranked[i:i + 4]) for i in range(0, 16, 4)]
    assert plain != [ranked[i:i + 4] for i in range(0, 16, 4)]


def second_session(n: int, rng_seed: int):
    """A duplicate event of ``n`` players, two sessions of 4 hands seated by standings: session 1 played
    with random distinct deltas, session 2 started. Returns the tournament and the standings order."""
    t = make(duplicate=True, checkin_required=False, seating="standing", hands=4, sessions=2,
             starts=(10_000.0, None))
    register(t, PLAYERS16[:n])
    t.handle("org", {"t": "start"}, 10.0)
    rng = random.Random(rng_seed)
    finish(t, {k: [[rng.randrange(-40, 41) for _ in range(4)] for _ in range(4)] for k in t.tables})
    order = [r["player"] for r in t.standings()]
    t.handle("org", {"t": "start"}, 30.0)
    return t, order


PLAYERS16 = [f"q{i:02}" for i in range(16)]


def test_sixteen_players_each_hands_tiles_reach_one_player_of_each_slot():
    t, r = second_session(16, 5)
    keys = ["2-1", "2-2", "2-3", "2-4"]
    # By hand: table i holds standings places 4(i-1)..4i-1, turned by i-1 seats.
    assert [t.tables[k].seats for k in keys] == [[r[0], r[1], r[2], r[3]], [r[5], r[6], r[7], r[4]],
                                                 [r[10], r[11], r[8], r[9]], [r[15], r[12], r[13], r[14]]]
    rng = random.Random(6)
    deltas = {k: [[rng.randrange(-30, 31) for _ in range(4)] for _ in range(4)] for k in keys}
    finish(t, deltas, now=40.0)
    v = t.view(None)["duplicate"]
    deals = v["sessions"][1]["deals"]
    # Hand 1: East's tiles (room seat 0 everywhere) went to the best of table 1, the second of table 2,
    # the third of table 3, the fourth of table 4; South's to the second, third, fourth, best.
    east, south = deals[0]["seats"][0]["holders"], deals[0]["seats"][1]["holders"]
    assert [x["player"] for x in east] == [r[0], r[5], r[10], r[15]]
    assert [x["player"] for x in south] == [r[1], r[6], r[11], r[12]]
    for d in deals:
        for s in d["seats"]:
            assert sorted(x["slot"] for x in s["holders"]) == [0, 1, 2, 3]
            assert [x["table"] for x in s["holders"]] == keys
    # Hand 1 East by hand: the difference is 盘分 minus the mean of the four holders.
    pts = [deltas[k][0][0] for k in keys]
    assert [x["diff"] for x in east] == [round(float(p - Fraction(sum(pts), 4)), 2) for p in pts]
    want, _ = expected(t, deltas)
    assert got_diffs(v["sessions"][1]) == {k: round(float(x), 2) for k, x in want.items()}


def test_eight_players_each_hands_tiles_reach_two_neighbouring_slots():
    t, r = second_session(8, 7)
    assert [t.tables[k].seats for k in ("2-1", "2-2")] == [[r[0], r[1], r[2], r[3]], [r[5], r[6], r[7], r[4]]]
    finish(t, {k: [[1, 2, 3, -6]] * 4 for k in ("2-1", "2-2")}, now=40.0)
    deals = t.view(None)["duplicate"]["sessions"][1]["deals"]
    # Slot s at table 1 holds what slot s + 1 holds at table 2: the best against the second, ..., the
    # fourth against the best. In round 1 East is room seat 0 (slots 0, 1), North room seat 3 (slots 3, 0).
    assert [x["player"] for x in deals[0]["seats"][0]["holders"]] == [r[0], r[5]]
    assert [x["player"] for x in deals[0]["seats"][3]["holders"]] == [r[3], r[4]]
    for d in deals:
        for s in d["seats"]:
            a, b = (x["slot"] for x in s["holders"])
            assert b == (a + 1) % 4


def first_session(players, secret: bytes, hands: int = 16):
    """A duplicate event started with ``secret``: session 1, random seating; its tables by key."""
    from rooms.tournament import Tournament, TournamentConfig
    t = Tournament.create("t1", TournamentConfig(name="Open", duplicate=True, checkin_required=False,
                                                 seating="random", hands=hands), "org", REF, secret, 0.0)
    t.handle(REF, {"t": "accept_referee"}, 0.0)
    register(t, players)
    t.handle("org", {"t": "start"}, 10.0)
    return t, sorted(t.tables)


def test_first_session_random_sixteen_players_compares_all_four_tables_and_no_one_holds_a_deal_twice():
    # Session 1 is drawn (no standings): the drawn order gives the slots, and every table of the session
    # is compared (docs/tournaments.md "Duplicate"). Over many draws: each deal's wind seat is held by one
    # player per table, one of each slot; the 16 holders of a deal (4 winds x 4 tables) are 16 different
    # players, so nobody holds the same deal twice.
    for n in range(40):
        t, keys = first_session(PLAYERS16, hashlib.sha256(b"draw %d" % n).digest())
        assert sorted(p for k in keys for p in t.tables[k].seats) == PLAYERS16
        finish(t, {k: [[0, 0, 0, 0]] * 16 for k in keys})
        deals = t.view(None)["duplicate"]["sessions"][0]["deals"]
        assert len(deals) == 16
        for d in deals:
            held = [x["player"] for s in d["seats"] for x in s["holders"]]
            assert sorted(held) == PLAYERS16
            for s in d["seats"]:
                assert [x["table"] for x in s["holders"]] == keys
                assert sorted(x["slot"] for x in s["holders"]) == [0, 1, 2, 3]
                assert all(x["compared"] for x in s["holders"])


def test_first_session_random_sixteen_players_scores_by_hand():
    t, keys = first_session(PLAYERS16, SECRET, hands=4)
    seats = {k: t.tables[k].seats for k in keys}
    # Hand 1 (round 1: room seat p holds wind p). East (room seat 0) self-draws 8 at the first table
    # (+24), loses 8 at the others; South (room seat 1) wins 40 at the second table only.
    d1 = {keys[0]: [24, -8, -8, -8], keys[1]: [-8, 40, -16, -16], keys[2]: [-8, 24, -8, -8],
          keys[3]: [-8, -8, -8, 24]}
    deltas = {k: [d1[k]] + [[0, 0, 0, 0]] * 3 for k in keys}
    finish(t, deltas)
    v = t.view(None)["duplicate"]
    east = v["sessions"][0]["deals"][0]["seats"][0]["holders"]
    south = v["sessions"][0]["deals"][0]["seats"][1]["holders"]
    # By hand. East: 24, -8, -8, -8: the mean of all four tables is 0, so +24, -8, -8, -8 (not the mean
    # of two tables, nor each table alone). South: -8, 40, 24, -8: mean 12, so -20, +28, +12, -20.
    assert [x["player"] for x in east] == [seats[k][0] for k in keys]
    assert [x["diff"] for x in east] == [24, -8, -8, -8]
    assert [x["diff"] for x in south] == [-20, 28, 12, -20]
    # West: -8, -16, -8, -8: mean -10, so +2, -6, +2, +2. North: -8, -16, -8, 24: mean -2: -6, -14, -6, +26.
    west, north = (v["sessions"][0]["deals"][0]["seats"][w]["holders"] for w in (2, 3))
    assert [x["diff"] for x in west] == [2, -6, 2, 2]
    assert [x["diff"] for x in north] == [-6, -14, -6, 26]
    # The later hands are all 0: each player's duplicate score is their hand-1 difference.
    scores = {r["player"]: r["score"] for r in v["standings"]}
    assert scores[seats[keys[0]][0]] == 24 and scores[seats[keys[1]][1]] == 28
    assert scores[seats[keys[3]][3]] == 26 and scores[seats[keys[1]][3]] == -14
    assert v["standings"][0]["player"] == seats[keys[1]][1]
