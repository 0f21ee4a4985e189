"""Hand decomposition: every regular split (sets + pair), the special forms, and formal waits.

Hands are read suit by suit: everything one suit's tiles give (its splits, the tiles that would
complete it, the traits the special forms need) is a ``Suit``, computed once per distinct key
(``suit`` on counts, ``suit_of_tiles`` on the sorted tiles), so a whole hand is a few cached
lookups. The splits of a number suit come from a table of every splittable suit, built once at
import. Splits are returned in the reference calculator's enumeration order (sets sorted by (tile,
pung before chow), splits in lexicographic order of their sorted sets): when two splits score the
same, the first one counts (fans.md §2.1 step 4).
"""

from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache
from itertools import combinations_with_replacement, compress, product

from game.tiles import KNITTED_STRAIGHTS, NUM_KINDS, THIRTEEN_ORPHANS

CHOW, PUNG = 1, 0  # the order of a pung before a chow starting on the same tile

# One set of a split: (tile, kind, False), tile = lowest tile; the standing tiles are concealed,
# so the third field (melded) is always False here. Sorting these tuples gives the reference order.
Split = tuple  # (sets: tuple[(tile, kind, False), ...], pair_tile)


def _suit_table() -> dict:
    """Every 9-count key of one number suit that splits, with its splits in relative ranks:
    {key: ((sets, pair rank | None), ...)}, sets as ((rank, kind), ...) sorted, no split twice.

    Built once at import by joining up to four sets and at most one pair (about 30,000 keys, some
    70 ms), so no suit is ever split at run time. Counts go up to 5: a wait may be a tile held four
    times (fans.md §2.6)."""
    kinds = sorted([(r, PUNG) for r in range(9)] + [(r, CHOW) for r in range(7)])
    table: dict = {}
    for k in range(5):
        for combo in combinations_with_replacement(kinds, k):  # sorted, each multiset once
            counts = [0] * 9
            for r, kind in combo:
                if kind == CHOW:
                    counts[r] += 1
                    counts[r + 1] += 1
                    counts[r + 2] += 1
                else:
                    counts[r] += 3
            if max(counts) > 5:
                continue
            table.setdefault(tuple(counts), []).append((combo, None))
            for p in range(9):
                if counts[p] <= 3:
                    counts[p] += 2
                    table.setdefault(tuple(counts), []).append((combo, p))
                    counts[p] -= 2
    return {key: tuple(sorted(splits)) for key, splits in table.items()}


_SUIT_TABLE = _suit_table()
# The concealed set (tile, kind, False) of each tile and kind, shared by every split; and, for each
# suit's first tile, the one of each (rank, kind) of the table.
_SETS = tuple((tile, PUNG, False) for tile in range(NUM_KINDS)), tuple((tile, CHOW, False) for tile in range(NUM_KINDS))
_SETS_FROM = {offset: {(r, kind): _SETS[kind][offset + r] for r in range(9) for kind in (PUNG, CHOW)}
              for offset in (0, 9, 18)}


class Suit:
    """What one suit's counts give, computed once per distinct key (``suit``, ``suit_of_tiles``):
    ``key`` the counts from tile ``offset``, ``tiles`` the same sorted as bytes.

    - ``splits``: its splits into sets, plus the pair when it holds 3n+2 tiles (sorted, no
      duplicates); () when it cannot be split (always so for 3n+1 tiles);
    - ``one``: the split when there is exactly one, else None;
    - ``pair``: whether those splits hold the pair (3n+2 tiles);
    - ``waits()``: the tiles that, added, make it splittable (only for 3n+1 or 3n+2 tiles),
      worked out when first asked (most keys never are);
    - ``bits``: the tiles present, as a bit mask over the 34 kinds;
    - ``even`` / ``single``: every count even / at most one (七对, 全不靠), ``pairs`` / ``odd()``:
      the pairs held (a 4 counts twice) and the tiles held an odd number of times (七对 waits);
    - ``knitted``: the ranks r (0, 1, 2) with r, r+3 and r+6 all present (组合龙); ``kinds``: how
      many different tiles are present; ``most``: the largest count; ``fours``: how many tiles are
      held four times.
    """

    __slots__ = ("key", "offset", "tiles", "splits", "one", "pair", "_waits", "bits", "even", "single", "pairs",
                 "knitted", "kinds", "most", "fours")

    def waits(self) -> tuple:
        """The tiles of this suit that, added, make it splittable (see the class)."""
        if self._waits is None:
            key, offset = self.key, self.offset
            plus = [key[:r] + (key[r] + 1,) + key[r + 1:] for r in range(len(key))] if sum(key) % 3 else []
            if offset == 27:
                self._waits = tuple(27 + r for r, k in enumerate(plus) if _honor_splits(k))
            else:
                self._waits = tuple(offset + r for r, k in enumerate(plus) if k in _SUIT_TABLE)
        return self._waits

    def odd(self) -> tuple:
        """The tiles held an odd number of times."""
        return tuple(self.offset + r for r, n in enumerate(self.key) if n % 2)


_POWERS = tuple(1 << r for r in range(9))
# The knitted ranks r (r, r+3, r+6 all present) of each presence mask of one suit.
_KNITTED_RANKS = tuple(tuple(r for r in range(3) if bits >> r & 0b1001001 == 0b1001001) for bits in range(512))


@lru_cache(maxsize=8192)
def suit(key: tuple, offset: int) -> Suit:
    """The ``Suit`` of counts ``key`` (9 ranks from tile ``offset``, or the 7 honors at 27)."""
    return _suit(key, offset, bytes([offset + r for r, n in enumerate(key) for _ in range(n)]))


@lru_cache(maxsize=8192)
def suit_of_tiles(tiles: bytes, offset: int) -> Suit:
    """The ``Suit`` of one suit's tiles given sorted, as bytes: a key cheaper to make than counts
    (``suits_of_tiles`` cuts it from the hand's sorted tiles)."""
    return _suit(tuple(map(tiles.count, range(offset, 34 if offset == 27 else offset + 9))), offset, tiles)


def _suit(key: tuple, offset: int, tiles: bytes) -> Suit:
    # Counts are at most 5 (a wait on a tile held four times), so the traits are C-level counts.
    s = Suit()
    s.key, s.offset, s.tiles, s._waits = key, offset, tiles, None
    ones, twos, threes, fours, fives = key.count(1), key.count(2), key.count(3), key.count(4), key.count(5)
    s.pair = sum(key) % 3 == 2
    s.splits = _splits(key, offset)
    s.one = s.splits[0] if len(s.splits) == 1 else None
    bits = sum(compress(_POWERS, key))
    s.bits = bits << offset
    s.even = ones + threes + fives == 0
    s.single = twos + threes + fours + fives == 0
    s.pairs = twos + threes + 2 * (fours + fives)
    s.kinds = ones + twos + threes + fours + fives
    s.most = max(key)
    s.fours = fours
    s.knitted = () if offset == 27 else _KNITTED_RANKS[bits]
    return s


def _splits(key: tuple, offset: int) -> tuple:
    """The splits of one suit (sorted, no duplicates), () when it does not split; the pair is
    there exactly when the suit holds 3n+2 tiles."""
    if offset == 27:
        return _honor_splits(key)
    found = _SUIT_TABLE.get(key)
    if found is None:
        return ()
    sets = _SETS_FROM[offset].__getitem__
    return tuple([(tuple(map(sets, combo)), None if pair is None else offset + pair) for combo, pair in found])


def _honor_splits(key: tuple) -> tuple:
    # Honors form no chows: each kind is a pung, a pair or nothing.
    sets = []
    pair = None
    for i, n in enumerate(key):
        if n == 3:
            sets.append(_SETS[PUNG][27 + i])
        elif n == 2:
            if pair is not None:
                return ()
            pair = 27 + i
        elif n:
            return ()
    return ((tuple(sets), pair),)


def suits_of_tiles(tiles: bytes) -> tuple[Suit, Suit, Suit, Suit]:
    """The four ``Suit``s of sorted tiles (as bytes): each suit is a slice, found by bisection."""
    i, j, k = bisect_left(tiles, 9), bisect_left(tiles, 18), bisect_left(tiles, 27)
    return (suit_of_tiles(tiles[:i], 0), suit_of_tiles(tiles[i:j], 9), suit_of_tiles(tiles[j:k], 18),
            suit_of_tiles(tiles[k:], 27))


def suits(counts) -> tuple[Suit, Suit, Suit, Suit]:
    """The four ``Suit`` lookups of a count array (万, 条, 饼, honors)."""
    c = tuple(counts)
    return suit(c[0:9], 0), suit(c[9:18], 9), suit(c[18:27], 18), suit(c[27:34], 27)


def splits_of(parts) -> tuple[Split, ...]:
    """Every split of a hand given as its four ``Suit``s: one suit holds the pair, the others sets.

    Suits cover disjoint tile ranges in order, so joining one split of each keeps the sets sorted.
    """
    a, b, c, d = parts
    if a.pair + b.pair + c.pair + d.pair != 1:
        return ()
    if a.one and b.one and c.one and d.one:  # the common case: one split each
        (sa, pa), (sb, pb), (sc, pc), (sd, pd) = a.one, b.one, c.one, d.one
        pair = pa if pa is not None else pb if pb is not None else pc if pc is not None else pd
        return ((sa + sb + sc + sd, pair),)
    if not (a.splits and b.splits and c.splits and d.splits):
        return ()
    found = []
    for (sa, pa), (sb, pb), (sc, pc), (sd, pd) in product(a.splits, b.splits, c.splits, d.splits):
        pair = pa if pa is not None else pb if pb is not None else pc if pc is not None else pd
        found.append((sa + sb + sc + sd, pair))
    found.sort()
    return tuple(found)


def regular_splits(counts) -> tuple[Split, ...]:
    """Every split of the standing tiles (with the winning tile) into sets and exactly one pair."""
    return splits_of(suits(counts))


def regular_waits(parts) -> list[int]:
    """The tiles completing a hand of 3n+1 standing tiles (given as its four ``Suit``s) as a regular
    hand: the tile's suit then splits, every other suit splits as it is, one of them with the pair."""
    a, b, c, d = parts
    broken = (not a.splits) + (not b.splits) + (not c.splits) + (not d.splits)
    if broken > 1:
        return []
    pairs = a.pair + b.pair + c.pair + d.pair
    waits = []
    for p in parts:
        if broken and p.splits:  # the tile must go to the one suit that does not split
            continue
        # Adding a tile gives this suit the pair when it holds 3n+1 tiles, takes it away at 3n+2.
        if pairs - p.pair + (not p.pair) == 1:
            waits.extend(p.waits())
    return waits


def _has_one_pair_split(counts) -> bool:
    return bool(regular_splits(counts))


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


def formal_waits(counts) -> frozenset:
    """Tiles that complete the standing tiles (3n+1 of them) as a regular hand, or as 七对 with 13.

    A tile held four times still counts as a wait (fans.md §2.6, MIL convention), so no 4-copy limit.
    """
    parts = suits(counts)
    waits = set(regular_waits(parts))
    if sum(counts) == 13 and sum(p.pairs for p in parts) == 6:
        waits.update(t for p in parts for t in p.odd())
    return frozenset(waits)
