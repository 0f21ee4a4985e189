"""The wall (game.wall) and the shape pre-test (game.shape) the state machine relies on."""

import hashlib
import random

import pytest

from game.fans.decompose import is_complete as counts_complete
from game.scoring import is_complete
from game.shape import may_complete, may_win
from game.state import start_hand
from game.tiles import FLOWERS
from game.wall import DEAL_SIZE, WallError, arrange_wall, build_wall, check_wall, full_set, next_u64, shuffled

from tests.support.handgen import winning_hands


def test_full_sets():
    assert len(full_set()) == 144 and len(full_set(False)) == 136
    assert set(full_set()) - set(full_set(False)) == set(FLOWERS)


def test_wall_from_a_seed_is_fixed_forever():
    # Stored matches are (seed, rules, actions): changing the generator would break every replay.
    assert next_u64(0) == (0x9E3779B97F4A7C15, 0xE220A8397B1DCDAF)
    wall = build_wall(2024)
    assert sorted(wall) == sorted(full_set())
    assert wall[:12] == (32, 18, 5, 2, 23, 11, 7, 31, 13, 19, 37, 0)
    assert hashlib.sha256(bytes(wall)).hexdigest()[:16] == "de6a1a2a47c6225d"
    assert build_wall(2024) == wall and build_wall(2025) != wall


def test_shuffle_returns_the_generator_state_to_continue_with():
    a, state = shuffled(range(10), 1)
    b, _ = shuffled(range(10), state)
    assert sorted(a) == sorted(b) == list(range(10)) and a != b


def test_check_wall_rejects_anything_but_the_full_set():
    wall = list(build_wall(1))
    assert check_wall(wall) == tuple(wall)
    for bad in (wall[:-1], wall + [0], wall[:-1] + [wall[0]], wall[:-1] + ["x"]):
        with pytest.raises(WallError):
            check_wall(bad)
    with pytest.raises(WallError):
        check_wall(build_wall(1, flowers=False))  # 136 tiles where 144 are due


def test_arranged_wall_layout():
    hands = [[0] * 4 + [1], [9, 9], [], [33]]
    wall = arrange_wall(hands, draws=[5, 6], replacements=[7, 8], flowers=False)
    assert sorted(wall) == sorted(full_set(False))
    assert wall[0:5] == (0, 0, 0, 0, 1) and wall[13:15] == (9, 9) and wall[39] == 33
    assert wall[DEAL_SIZE:DEAL_SIZE + 2] == (5, 6) and wall[-2:] == (8, 7)  # 7 is taken first
    with pytest.raises(WallError):
        arrange_wall([[0] * 5, [], [], []], flowers=False)


def test_start_hand_needs_a_seed_or_a_wall():
    with pytest.raises(ValueError):
        start_hand()
    with pytest.raises(ValueError):
        start_hand(seed=1, wall=build_wall(1))
    s, _ = start_hand(wall=build_wall(1))
    t, _ = start_hand(seed=1)
    assert s.wall == t.wall


def test_shape_pretest_never_hides_a_win():
    for g in winning_hands(77, 3000):
        standing = tuple(sorted(g.hand.tiles))
        assert is_complete(g.hand, g.ctx.win_tile)
        assert may_win(standing, g.ctx.win_tile, len(g.hand.melds)), (g.form, str(g.hand))


def test_shape_pretest_agrees_with_the_scorer_on_random_hands():
    rng = random.Random(5)
    tiles = full_set(False)
    for _ in range(20000):
        melds = rng.choice((0, 0, 0, 1, 1, 2, 3, 4))
        hand = rng.sample(tiles, 14 - 3 * melds)
        win = hand.pop()
        counts = [0] * 34
        for t in hand + [win]:
            counts[t] += 1
        want = counts_complete(counts, melds)
        assert may_win(tuple(sorted(hand)), win, melds) == want
        assert may_complete(tuple(sorted(hand + [win])), melds) == want
