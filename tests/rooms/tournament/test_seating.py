"""Seating methods: everybody seated once in tables of four, the documented tables for 高高碰 and
蛇形, and the Swiss method avoiding repeat meetings."""

import random
from collections import Counter

import pytest

from rooms.tournament.config import MAX_PLAYERS
from rooms.tournament.seating import capacities, meetings, pair, seat_tables

PLAYERS = [f"p{i:02d}" for i in range(1, 17)]


def _sets(tables):
    return [set(t) for t in tables]


def _check(tables, players):
    assert all(len(t) == 4 for t in tables)
    seated = [p for t in tables for p in t if p is not None]
    assert sorted(seated) == sorted(players)  # every player exactly once


@pytest.mark.parametrize("method", ["random", "standing", "snake", "swiss"])
@pytest.mark.parametrize("n", [1, 3, 4, 5, 6, 7, 8, 9, 13, 16, 23])
def test_everybody_seated_once(method, n):
    players = PLAYERS[:n] if n <= 16 else [f"q{i}" for i in range(n)]
    for first in (True, False):
        tables = seat_tables(method, players, random.Random(n), first=first, met={})
        _check(tables, players)
        assert len(tables) == -(-n // 4)


def test_capacities_spread_the_bots():
    assert capacities(4) == [4]
    assert capacities(5) == [3, 2]  # never a lone human with three bots
    assert capacities(6) == [3, 3]
    assert capacities(7) == [4, 3]
    assert capacities(9) == [3, 3, 3]
    assert capacities(13) == [4, 3, 3, 3]
    assert capacities(1) == [1]
    assert capacities(0) == []


def test_standing_seats_one_to_four_five_to_eight():
    tables = seat_tables("standing", PLAYERS[:12], random.Random(1), first=False)
    assert _sets(tables) == [set(PLAYERS[0:4]), set(PLAYERS[4:8]), set(PLAYERS[8:12])]


def test_standing_with_bots_on_the_last_tables():
    tables = seat_tables("standing", PLAYERS[:6], random.Random(1), first=False)
    assert _sets(tables) == [set(PLAYERS[0:3]) | {None}, set(PLAYERS[3:6]) | {None}]


def test_snake_quarters():
    # 16 players, 4 tables: Q1 = 1-4, Q2 = 5-8, Q3 = 9-12, Q4 = 13-16;
    # table i takes Q1[i], Q2 from the back, Q3[i], Q4 from the back.
    tables = seat_tables("snake", PLAYERS, random.Random(1), first=False)
    num = [{int(p[1:]) for p in t} for t in tables]
    assert num == [{1, 8, 9, 16}, {2, 7, 10, 15}, {3, 6, 11, 14}, {4, 5, 12, 13}]


def test_snake_pads_with_bots_at_the_bottom():
    tables = seat_tables("snake", PLAYERS[:6], random.Random(1), first=False)
    # padded: p1..p6, None, None; quarters [p1 p2] [p3 p4] [p5 p6] [None None]
    assert _sets(tables) == [{"p01", "p04", "p05", None}, {"p02", "p03", "p06", None}]


def test_first_session_is_random_whatever_the_method():
    a = seat_tables("standing", PLAYERS, random.Random(7), first=True)
    assert _sets(a) != [set(PLAYERS[i:i + 4]) for i in range(0, 16, 4)]
    _check(a, PLAYERS)


def test_seat_order_within_a_table_is_drawn():
    orders = {tuple(seat_tables("standing", PLAYERS[:4], random.Random(s), first=False)[0]) for s in range(20)}
    assert len(orders) > 1
    assert all(set(o) == set(PLAYERS[:4]) for o in orders)


def test_same_rng_same_tables():
    assert seat_tables("swiss", PLAYERS, random.Random(3), first=True) == \
        seat_tables("swiss", PLAYERS, random.Random(3), first=True)


def _repeats(history) -> int:
    return sum(c - 1 for c in meetings(history).values() if c > 1)


@pytest.mark.parametrize("seed", range(30))
def test_swiss_four_sessions_of_sixteen_without_a_repeat(seed):
    rng = random.Random(seed)
    history = []
    for s in range(4):
        ranked = list(PLAYERS)
        rng.shuffle(ranked)  # whatever the standings turned out to be
        history.append(seat_tables("swiss", ranked, rng, first=s == 0, met=meetings(history), lookahead=s < 3))
        _check(history[-1], PLAYERS)
    # every player has met 12 different players: 16 × 12 / 2 pairs, none twice
    assert _repeats(history) == 0
    assert len(meetings(history)) == 96


def test_swiss_without_lookahead_is_the_plain_greedy():
    # Plain greedy (mahjong-seatings-rust) over four sessions: some seeds paint themselves into a
    # corner in session 3 and must repeat in session 4; the lookahead above never does.
    stuck = 0
    for seed in range(30):
        rng = random.Random(seed)
        history = []
        for s in range(4):
            ranked = list(PLAYERS)
            rng.shuffle(ranked)
            history.append(seat_tables("swiss", ranked, rng, first=s == 0, met=meetings(history)))
        assert _repeats(history[:3]) == 0
        stuck += _repeats(history) > 0
    assert stuck > 0


def test_swiss_finds_the_last_repeat_free_round():
    # Rounds 1-3 are three parallel classes of the affine plane of order 4 (rows, columns, one Latin
    # square); a fourth repeat-free round exists (the orthogonal square), and Swiss must find it.
    grid = [[PLAYERS[4 * r + c] for c in range(4)] for r in range(4)]
    rows = [grid[r] for r in range(4)]
    cols = [[grid[r][c] for r in range(4)] for c in range(4)]
    l1 = [[grid[r][c] for r in range(4) for c in range(4) if (r ^ c) == k] for k in range(4)]
    history = [rows, cols, l1]
    assert _repeats(history) == 0
    fourth = seat_tables("swiss", PLAYERS, random.Random(0), first=False, met=meetings(history))
    assert _repeats(history + [fourth]) == 0
    # The fifth round also exists (5 parallel classes of AG(2,4)), so it must be found too.
    fifth = seat_tables("swiss", PLAYERS, random.Random(0), first=False, met=meetings(history + [fourth]))
    assert _repeats(history + [fourth, fifth]) == 0
    # After five rounds everybody has met everybody: a sixth round must repeat, but still seats all.
    sixth = seat_tables("swiss", PLAYERS, random.Random(0), first=False, met=meetings(history + [fourth, fifth]))
    _check(sixth, PLAYERS)


def test_swiss_keeps_the_top_together_when_nobody_has_met():
    tables = seat_tables("swiss", PLAYERS[:8], random.Random(0), first=False, met={})
    assert _sets(tables) == [set(PLAYERS[:4]), set(PLAYERS[4:8])]


def test_swiss_minimises_repeats_when_they_are_unavoidable():
    # 8 players after one session: every table of the second must repeat some meeting; each newcomer
    # to a table meets at most one old table-mate (allowed = 1), never the worst case of 4 old mates.
    first = [PLAYERS[:4], PLAYERS[4:8]]
    second = seat_tables("swiss", PLAYERS[:8], random.Random(0), first=False, met=meetings([first]))
    _check(second, PLAYERS[:8])
    old = meetings([first])
    per_table = [sum(1 for i, a in enumerate(t) for b in t[i + 1:] if old.get(pair(a, b))) for t in second]
    assert per_table == [2, 2]  # two old pairs per table: the minimum possible
    counts = Counter(p for t in second for p in t)
    assert set(counts.values()) == {1}


def test_unknown_method_and_duplicates():
    with pytest.raises(ValueError):
        seat_tables("lottery", PLAYERS, random.Random(0), first=False)
    with pytest.raises(ValueError):
        seat_tables("random", ["a", "a", "b", "c"], random.Random(0), first=False)


def test_swiss_seats_the_largest_tournament_without_recursion():
    """Swiss seating searched with one recursive call per seat: RecursionError at about 1,000 players.
    At the largest size a tournament allows, later sessions are seated (every player once, and no
    table repeats a meeting of the first session, which is possible at this size)."""
    players = [f"p{i:04d}" for i in range(MAX_PLAYERS)]
    rng = random.Random(7)
    first = seat_tables("swiss", players, rng, first=True)
    met = meetings([first])
    for lookahead in (False, True):
        tables = seat_tables("swiss", players, rng, first=False, met=met, lookahead=lookahead)
        _check(tables, players)
        assert len(tables) == MAX_PLAYERS // 4
        assert all(met.get(pair(a, b), 0) == 0 for t in tables for a in t for b in t if a is not None
                   and b is not None and a != b)
