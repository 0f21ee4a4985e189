"""Hand decomposition: every regular split (sets + pair), the special forms, and formal waits.

Count arrays are split suit by suit; each suit's splits are cached on its 9-count key, so a whole
hand is the product of a few cached lookups. Splits are returned in the reference calculator's
enumeration order (sets sorted by (tile, pung before chow), splits in lexicographic order of their
sorted sets): when two splits score the same, the first one counts (fans.md §2.1 step 4).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product

from game.tiles import KNITTED_STRAIGHTS, NUM_KINDS, THIRTEEN_ORPHANS

CHOW, PUNG = 1, 0  # the order of a pung before a chow starting on the same tile

# One set of a split: (tile, kind), tile = lowest tile. Sorting these tuples gives the reference order.
Split = tuple  # (sets: tuple[(tile, kind), ...], pair_tile)


@lru_cache(maxsize=None)
def _suit_splits(key: tuple, offset: int, is_honor: bool) -> tuple:
    """All ways to split one suit's counts into sets and at most one pair: ((sets, pair|None), ...)."""
    first = next((i for i, n in enumerate(key) if n), None)
    if first is None:
        return (((), None),)
    out = []
    n = key[first]
    tile = offset + first
    counts = list(key)
    if n >= 3:
        counts[first] -= 3
        for sets, pair in _suit_splits(tuple(counts), offset, is_honor):
            out.append((((tile, PUNG),) + sets, pair))
        counts[first] += 3
    if not is_honor and first <= 6 and key[first + 1] and key[first + 2]:
        counts[first] -= 1
        counts[first + 1] -= 1
        counts[first + 2] -= 1
        for sets, pair in _suit_splits(tuple(counts), offset, is_honor):
            out.append((((tile, CHOW),) + sets, pair))
        counts[first] += 1
        counts[first + 1] += 1
        counts[first + 2] += 1
    if n >= 2:
        counts[first] -= 2
        for sets, pair in _suit_splits(tuple(counts), offset, is_honor):
            if pair is None:
                out.append((sets, tile))
    return tuple(out)


def _groups(counts) -> list[tuple]:
    c = tuple(counts)
    return [
        _suit_splits(c[0:9], 0, False),
        _suit_splits(c[9:18], 9, False),
        _suit_splits(c[18:27], 18, False),
        _honor_splits(c[27:34]),
    ]


@lru_cache(maxsize=None)
def _honor_splits(key: tuple) -> tuple:
    # Honors form no chows: each kind is a pung, a pair or nothing.
    sets = []
    pair = None
    for i, n in enumerate(key):
        if n == 3:
            sets.append((27 + i, PUNG))
        elif n == 2:
            if pair is not None:
                return ()
            pair = 27 + i
        elif n:
            return ()
    return ((tuple(sets), pair),)


@lru_cache(maxsize=1 << 16)
def regular_splits(counts: tuple) -> tuple[Split, ...]:
    """Every split of the standing tiles (with the winning tile) into sets and exactly one pair."""
    found = []
    for combo in product(*_groups(counts)):
        pairs = [pair for _, pair in combo if pair is not None]
        if len(pairs) != 1:
            continue
        sets = tuple(sorted(s for group_sets, _ in combo for s in group_sets))
        found.append((sets, pairs[0]))
    found.sort()
    return tuple(found)


def _has_one_pair_split(counts) -> bool:
    groups = _groups(counts)
    with_pair = [any(p is not None for _, p in g) for g in groups]
    without_pair = [any(p is None for _, p in g) for g in groups]
    for i in range(4):
        if with_pair[i] and all(without_pair[j] for j in range(4) if j != i):
            return True
    return False


def is_seven_pairs(counts) -> bool:
    return sum(counts) == 14 and all(n % 2 == 0 for n in counts)


def is_thirteen_orphans(counts) -> bool:
    return sum(counts) == 14 and all(counts[t] for t in THIRTEEN_ORPHANS) and sum(
        counts[t] for t in THIRTEEN_ORPHANS) == 14


def knitted_in(counts) -> tuple | None:
    """The first knitted straight (147/258/369 of three suits) whose nine tiles are all present."""
    for knitted in KNITTED_STRAIGHTS:
        if all(counts[t] for t in knitted):
            return knitted
    return None


def honors_and_knitted(counts) -> bool:
    """全不靠: 14 different tiles, 7-9 of them from one knitted straight and the rest honors."""
    if sum(counts) != 14 or any(n > 1 for n in counts):
        return False
    numbers = [t for t in range(27) if counts[t]]
    if not 7 <= len(numbers) <= 9:
        return False
    return any(set(numbers) <= set(knitted) for knitted in KNITTED_STRAIGHTS)


def is_complete(counts, melds: int) -> bool:
    """Whether standing tiles (incl. the winning tile) plus ``melds`` declared sets form a win."""
    if sum(counts) != 14 - 3 * melds:
        return False
    if _has_one_pair_split(counts):
        return True
    if melds == 0 and (is_seven_pairs(counts) or is_thirteen_orphans(counts) or honors_and_knitted(counts)):
        return True
    if melds <= 1:
        knitted = knitted_in(counts)
        if knitted is not None:
            rest = list(counts)
            for t in knitted:
                rest[t] -= 1
            return _has_one_pair_split(rest)
    return False


@lru_cache(maxsize=1 << 16)
def formal_waits(counts: tuple) -> frozenset:
    """Tiles that complete the standing tiles (3n+1 of them) as a regular hand, or as 七对 with 13.

    A tile held four times still counts as a wait (fans.md §2.6, MIL convention), so no 4-copy limit.
    """
    total = sum(counts)
    c = list(counts)
    waits = set()
    for t in range(NUM_KINDS):
        near = c[t] or (t < 27 and any(
            0 <= u < 27 and u // 9 == t // 9 and c[u] for u in (t - 2, t - 1, t + 1, t + 2)))
        if not near:
            continue
        c[t] += 1
        if _has_one_pair_split(c):
            waits.add(t)
        c[t] -= 1
    if total == 13:
        pairs = sum(n // 2 for n in counts)
        if pairs == 6:
            waits.update(t for t in range(NUM_KINDS) if counts[t] % 2)
    return frozenset(waits)
