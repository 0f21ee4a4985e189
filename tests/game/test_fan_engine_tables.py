"""The fan engine's speed-ups keep the meaning of the check tables.

The scorer compiles some tables of ``game.fans.checks`` into lookups (whole-hand fans read part by
part, shape checks grouped by what they need) and reads hands suit by suit from cached ``Suit``s.
These tests hold the compiled forms to the plain definitions on random input, so a change to a
check that a compiled form does not follow fails here rather than in a rare hand.
"""

from __future__ import annotations

import random

import pytest

from game import scoring
from game.fans.checks import CHOW, HAND, NO_CHOWS, NO_PUNGS, PUNG, SHAPE_NEEDS, SHAPES
from game.fans.context import HandError, WinContext, validate
from game.fans.decompose import formal_waits, regular_splits, suit, suit_of_tiles
from game.hand import CHOW as MELD_CHOW, KONG as MELD_KONG, PUNG as MELD_PUNG, Hand, Meld


def _brute_splits(counts: list[int]) -> set:
    """Every split into sets and one pair, by plain recursion on the count array."""
    found = set()

    def walk(c: list[int], sets: tuple, pair):
        first = next((t for t in range(34) if c[t]), None)
        if first is None:
            if pair is not None:
                found.add((tuple(sorted(sets)), pair))
            return
        if c[first] >= 3:
            c[first] -= 3
            walk(c, sets + ((first, PUNG, False),), pair)
            c[first] += 3
        if first < 27 and first % 9 <= 6 and c[first + 1] and c[first + 2]:
            for t in (first, first + 1, first + 2):
                c[t] -= 1
            walk(c, sets + ((first, CHOW, False),), pair)
            for t in (first, first + 1, first + 2):
                c[t] += 1
        if c[first] >= 2 and pair is None:
            c[first] -= 2
            walk(c, sets, first)
            c[first] += 2

    walk(list(counts), (), None)
    return found


def _random_counts(rng: random.Random, n: int) -> list[int]:
    pool = rng.choice([range(34), range(9), range(18), [*range(9), *range(27, 34)]])
    counts = [0] * 34
    while n:
        t = rng.choice(pool)
        if counts[t] < 4:
            counts[t] += 1
            n -= 1
    return counts


def test_splits_match_plain_recursion():
    rng = random.Random(1)
    for _ in range(3000):
        counts = _random_counts(rng, rng.choice([2, 5, 8, 11, 14]))
        splits = regular_splits(counts)
        assert list(splits) == sorted(_brute_splits(counts))


def test_waits_match_trying_every_tile():
    rng = random.Random(2)
    for _ in range(1500):
        counts = _random_counts(rng, rng.choice([1, 4, 7, 10, 13]))
        expected = set()
        for t in range(34):
            counts[t] += 1
            if _brute_splits(counts):
                expected.add(t)
            counts[t] -= 1
        if sum(counts) == 13 and sum(n // 2 for n in counts) == 6:
            expected |= {t for t in range(34) if counts[t] % 2}
        assert formal_waits(counts) == expected


def test_suit_traits():
    rng = random.Random(3)
    for _ in range(5000):
        offset = rng.choice([0, 9, 18, 27])
        key = tuple(rng.choice([0, 0, 0, 1, 1, 2, 3, 4]) for _ in range(7 if offset == 27 else 9))
        s = suit(key, offset)
        assert suit_of_tiles(s.tiles, offset).key == key
        assert s.bits == sum(1 << (offset + r) for r, n in enumerate(key) if n)
        assert s.even == all(n % 2 == 0 for n in key)
        assert s.single == all(n <= 1 for n in key)
        assert s.pairs == sum(n // 2 for n in key)
        assert s.kinds == sum(1 for n in key if n)
        assert s.most == max(key) and s.fours == key.count(4)
        assert s.odd() == tuple(offset + r for r, n in enumerate(key) if n % 2)
        if offset < 27:
            assert s.knitted == tuple(r for r in range(3) if key[r] and key[r + 3] and key[r + 6])


def test_whole_hand_fans_read_part_by_part():
    rng = random.Random(4)
    for _ in range(5000):
        parts = [rng.getrandbits(9) if rng.random() < 0.7 else 0 for _ in range(3)]
        honors = rng.getrandbits(7) if rng.random() < 0.5 else 0
        mask = parts[0] | parts[1] << 9 | parts[2] << 18 | honors << 27
        if not mask:
            continue
        within, touches = scoring._features(parts[0])
        for bits in (parts[1] << 9, parts[2] << 18, honors << 27):
            w, t = scoring._features(bits)
            within &= w
            touches |= t
        compiled = {fan for fan, _ in scoring._hand_fans(within, touches)}
        assert compiled == {fan for fan, whole in HAND.items() if whole(mask)}


def test_shape_needs_follow_from_the_checks():
    # A shape check that holds must have its needs met, or the scorer would never run it.
    rng = random.Random(5)
    kinds = [(t, PUNG) for t in range(34)] + [(t, CHOW) for t in range(27) if t % 9 <= 6]
    for _ in range(20000):
        sets = tuple((t, k, False) for t, k in rng.sample(kinds, rng.choice([1, 4, 4])))
        if rng.random() < 0.3:  # all chows or all pungs more often
            want = rng.choice([CHOW, PUNG])
            sets = tuple((t, want, False) for t, _ in rng.sample([x for x in kinds if x[1] == want], 4))
        pair = rng.randrange(34)
        has_chows = any(k == CHOW for _, k, _ in sets)
        has_pungs = any(k != CHOW for _, k, _ in sets)
        for fan, test in SHAPES.items():
            if test(sets, pair):
                need, pairs = SHAPE_NEEDS[fan]
                assert pair in pairs, fan
                assert need != NO_CHOWS or not has_chows, fan
                assert need != NO_PUNGS or not has_pungs, fan


def _hand(rng: random.Random):
    melds = []
    for _ in range(rng.choice([0, 0, 1, 2, 3, 4, 5])):
        kind = rng.choice([MELD_CHOW, MELD_PUNG, MELD_KONG])
        tile = rng.choice([rng.randrange(34), rng.randrange(-1, 36), True, 2.0])
        melds.append(Meld(kind, tile, concealed=rng.random() < (0.5 if kind == MELD_KONG else 0.05)))
    n = max(0, 13 - 3 * len(melds) + rng.choice([0] * 8 + [-1, 1]))
    tiles = tuple(rng.choice([rng.randrange(9), rng.randrange(34)]) if rng.random() < 0.97 else
                  rng.choice([-1, 34, 3.0, True]) for _ in range(n))
    ctx = WinContext(rng.choice([rng.randrange(9), rng.randrange(34), 34, True]), rng.random() < 0.5,
                     rng.random() < 0.1, rng.random() < 0.1, rng.random() < 0.1,
                     rng.choice([0, 1, 2, 3, 4, True]), rng.randrange(4), rng.choice([0, 0, 1, 8, 9, -1, 2.0]))
    return Hand(tuple(melds), tiles), ctx


@pytest.mark.parametrize("seed", range(3))
def test_fast_path_reports_what_validate_reports(seed):
    # score() reads ordinary input without validate(); anything else must fail exactly as validate does.
    rng = random.Random(seed)
    for _ in range(4000):
        hand, ctx = _hand(rng)
        try:
            validate(hand, ctx)
            expected = None
        except HandError as e:
            expected = (e.code, e.message)
        try:
            scoring.score(hand, ctx)
            got = None
        except HandError as e:
            got = None if e.code == "hand/not_winning" else (e.code, e.message)
        assert got == expected, (hand, ctx)
