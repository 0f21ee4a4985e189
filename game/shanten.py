"""Shanten (向听数) and useful tiles (有效牌) for the MCR winning forms.

Convention (as the reference calculator): for a hand of 13-3k standing tiles, 0 means ready (听牌)
and n > 0 means n more useful draws are needed at best; for 14-3k standing tiles, -1 means the
hand is complete. ``k`` is the number of declared melds (a kong counts as one meld).

Forms: regular (4 sets + a pair), 七对, 十三幺, 全不靠 (七星不靠 included) and the 组合龙 form
(a knitted straight + 1 set + a pair). ``shanten`` is the minimum over the forms that apply:
the special forms only with no melds, the 组合龙 form with 0 or 1.

Useful tiles of a 13-3k hand are the kinds whose draw lowers that form's shanten, as a sorted
tuple. The reference's conventions are kept: in the regular parts a kind already held four times
is useful only when the hand is ready (a hypothetical fifth tile completing it counts), and for
七对 four of a kind is two pairs.

Speed: a hand is packed into one int, five bits of count per kind, so each suit's counts are a
slice of it. The regular form is solved suit by suit: each suit's counts map (cached) to its small
set of non-dominated (pair, sets, partials) options, interned as an int (``OPTIONS``); option sets
are combined and valued through caches keyed on those ints, so a warm call is a handful of dict
lookups. The packed form is public (``suit_info``, ``honor_info``, ``combine_options``, ``PackedHand``,
the ``*_useful_packed`` functions) for callers that keep hands packed.
The caches are bounded (lru), a few tens of MB at most. Tiles must be kinds 0..33, at most four
of a kind; anything else raises ValueError.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, NamedTuple

from game.tiles import HONORS, KNITTED_STRAIGHTS, THIRTEEN_ORPHANS, Tile

__all__ = [
    "COMPLETE",
    "READY",
    "ShantenResult",
    "honors_and_knitted_shanten",
    "honors_and_knitted_useful",
    "knitted_straight_shanten",
    "knitted_straight_useful",
    "regular_shanten",
    "regular_useful",
    "seven_pairs_shanten",
    "seven_pairs_useful",
    "shanten",
    "thirteen_orphans_shanten",
    "thirteen_orphans_useful",
    "useful_tiles",
    # the packed form (below), for planners that keep hands packed (rooms.bot_plans)
    "OPTIONS",
    "PackedHand",
    "combine_options",
    "honor_info",
    "honors_and_knitted_useful_packed",
    "knitted_useful_packed",
    "suit_info",
    "thirteen_orphans_useful_packed",
]

COMPLETE = -1
READY = 0
_NA = 99  # a form that does not apply


class ShantenResult(NamedTuple):
    shanten: int
    useful: tuple[Tile, ...]


# ---- option sets ----
# An option is (pair 0/1, sets 0..4, partials 0..4-sets) for part of a hand. The regular shanten
# of a whole option is 8 - 2*sets - partials - pair with partials capped at 4 - sets, so a set is
# worth at least two partials: (p, m', d') dominates (p, m, d) when m' >= m and 2m'+d' >= 2m+d.
# An option set keeps only undominated options (at most five per pair value).
Option = tuple[int, int, int]
Options = tuple[Option, ...]

_EMPTY: Options = ((0, 0, 0),)


def _prune(opts: Iterable[Option]) -> Options:
    # By sets descending then value descending: an option survives if it beats, per pair value,
    # every option with at least as many sets seen before it.
    ranked = sorted({(-m, -2 * m - d, p, d) for p, m, d in opts})
    best = [-1, -1]
    keep = []
    for neg_m, neg_score, p, d in ranked:
        if -neg_score > best[p]:
            best[p] = -neg_score
            keep.append((p, -neg_m, d))
    keep.sort()
    return tuple(keep)


# Option sets are interned to small ints so that the hot caches hash ints, not nested tuples.
OPTIONS: list[Options] = []
_IDS: dict[Options, int] = {}


def _intern(opts: Options) -> int:
    # Equal option sets interned twice would only cost a cache entry, never a wrong answer.
    i = _IDS.get(opts)
    if i is None:
        i = _IDS[opts] = len(OPTIONS)
        OPTIONS.append(opts)
    return i


@lru_cache(maxsize=2048)
def combine_options(a: int, b: int) -> int:
    """The option set of two disjoint parts (at most one pair between them)."""
    out = []
    for pa, ma, da in OPTIONS[a]:
        for pb, mb, db in OPTIONS[b]:
            p = pa + pb
            if p > 1:
                continue
            m = ma + mb
            if m > 4:
                m = 4
            d = da + db
            if d > 4 - m:
                d = 4 - m
            out.append((p, m, d))
    return _intern(_prune(out))


@lru_cache(maxsize=2048)
def _value(o: int, melds: int) -> int:
    """Regular shanten of a whole hand's option set; declared melds are sets."""
    best = 8
    for p, m, d in OPTIONS[o]:
        m += melds
        if m > 4:
            m = 4
        if d > 4 - m:
            d = 4 - m
        v = 8 - 2 * m - d - p
        if v < best:
            best = v
    return best


@lru_cache(maxsize=4096)
def _value4(o0: int, o1: int, o2: int, oh: int, melds: int) -> int:
    """Regular shanten from the option sets of the four suits: one lookup on the hot path (few
    distinct quadruples occur, as there are few distinct option sets)."""
    return _value(combine_options(combine_options(o0, o1), combine_options(o2, oh)), melds)


# ---- one suit ----


def _add_set(opts: Options):
    for p, m, d in opts:
        m = m + 1 if m < 4 else 4
        yield p, m, min(d, 4 - m)


def _expand(key: tuple[int, ...], numbers: bool) -> Options:
    """Options of one suit: the lowest held kind goes into each group it can start, or stays alone."""
    size = len(key)
    i = 0
    while i < size and not key[i]:
        i += 1
    if i == size:
        return _EMPTY
    sub = _number_options if numbers else _honor_options
    c = list(key)
    out: list[Option] = []

    def child(*idx: int) -> Options:
        for j in idx:
            c[j] -= 1
        k = tuple(c) if numbers else tuple(sorted(c))
        for j in idx:
            c[j] += 1
        return sub(k)

    out.extend(child(i))  # left alone
    n = c[i]
    if n >= 2:
        pair = child(i, i)
        out.extend((1, m, d) for p, m, d in pair if not p)
        out.extend((p, m, min(d + 1, 4 - m)) for p, m, d in pair)
        if n >= 3:
            out.extend(_add_set(child(i, i, i)))
    if numbers:
        if i + 1 < size and c[i + 1]:
            out.extend((p, m, min(d + 1, 4 - m)) for p, m, d in child(i, i + 1))
            if i + 2 < size and c[i + 2]:
                out.extend(_add_set(child(i, i + 1, i + 2)))
        if i + 2 < size and c[i + 2]:
            out.extend((p, m, min(d + 1, 4 - m)) for p, m, d in child(i, i + 2))
    return _prune(out)


@lru_cache(maxsize=8192)
def _number_options(key: tuple[int, ...]) -> Options:
    return OPTIONS[_intern(_expand(key, True))]  # shared canonical tuple: less memory


@lru_cache(maxsize=512)
def _honor_options(key: tuple[int, ...]) -> Options:
    # Honors form no sequences, so their order is irrelevant: keys are sorted counts.
    return OPTIONS[_intern(_expand(key, False))]


# ---- packed counts: kind t's count is bits 5t..5t+4 of a hand key ----

_BIT = {t: 1 << 5 * t for t in range(34)}
_SUIT_MASK = (1 << 45) - 1
# Adding 11 to a count (at most 14) sets its field's top bit only when the count is 5 or more.
_ELEVENS = sum(11 << 5 * t for t in range(34))
_TOPS = sum(16 << 5 * t for t in range(34))


def _decode(key: int, size: int) -> tuple[int, ...]:
    return tuple(key >> 5 * i & 31 for i in range(size))


@lru_cache(maxsize=8192)
def suit_info(key: int) -> tuple:
    """Everything the forms need from one number suit's packed counts, computed once per key:
    (option id, pairs for 七对, terminal kinds held, terminal pair?, held kinds of the knitted
    ranks starting at 1/2/3, option ids of the rest once one of each held is taken out)."""
    c = _decode(key, 9)
    held = []
    rests = []
    for start in range(3):
        rest = list(c)
        h = 0
        for r in (start, start + 3, start + 6):
            if rest[r]:
                rest[r] -= 1
                h += 1
        held.append(h)
        rests.append(_intern(_number_options(tuple(rest))))
    return (
        _intern(_number_options(c)),
        sum(n >> 1 for n in c),
        (c[0] > 0) + (c[8] > 0),
        c[0] > 1 or c[8] > 1,
        tuple(held),
        tuple(rests),
    )


@lru_cache(maxsize=1024)
def honor_info(key: int) -> tuple:
    """(option id, pairs, kinds held, a pair held?) of the packed honor counts."""
    c = sorted(_decode(key, 7))
    return _intern(_honor_options(tuple(c))), sum(n >> 1 for n in c), 7 - c.count(0), c[-1] > 1


# ---- forms ----

# Per knitted straight (reference order), the start rank index 0..2 it uses in 万, 条, 饼.
_KS_STARTS = tuple(tuple(ks[3 * s] % 9 for s in range(3)) for ks in KNITTED_STRAIGHTS)
_KS_BITS = tuple(tuple(_BIT[t] for t in ks) for ks in KNITTED_STRAIGHTS)


def _knitted_held(a: tuple[int, int, int], b: tuple[int, int, int], s: tuple[int, int, int]) -> int:
    """Most kinds of one knitted straight held, from the held counts per start in 万, 条, 饼."""
    # Spelled out over the six straights: this runs on every shanten call.
    return max(
        a[0] + b[1] + s[2], a[0] + b[2] + s[1], a[1] + b[0] + s[2],
        a[1] + b[2] + s[0], a[2] + b[0] + s[1], a[2] + b[1] + s[0],
    )


def _knitted(n0: tuple, n1: tuple, n2: tuple, oh: int, melds: int, best: int) -> int:
    """组合龙 form: missing straight kinds + the rest as a regular hand in which the straight
    stands for three sets (``melds`` includes them). Returns ``best`` if nothing is below it."""
    a, b, s = n0[4], n1[4], n2[4]
    r0, r1, r2 = n0[5], n1[5], n2[5]
    for x, y, z in _KS_STARTS:
        missing = 9 - a[x] - b[y] - s[z]
        if missing - 1 >= best:  # the rest is at best complete (-1)
            continue
        v = missing + _value4(r0[x], r1[y], r2[z], oh, melds)
        if v < best:
            best = v
    return best


class PackedHand:
    """A hand's per-suit summaries, looked up once and shared by every form."""

    __slots__ = ("key", "melds", "n0", "n1", "n2", "h")

    def __init__(self, key: int, melds: int):
        self.key = key
        self.melds = melds
        self.n0 = suit_info(key & _SUIT_MASK)
        self.n1 = suit_info(key >> 45 & _SUIT_MASK)
        self.n2 = suit_info(key >> 90 & _SUIT_MASK)
        self.h = honor_info(key >> 135)

    def regular(self) -> int:
        return _value4(self.n0[0], self.n1[0], self.n2[0], self.h[0], self.melds)

    def seven_pairs(self) -> int:
        return 6 - self.n0[1] - self.n1[1] - self.n2[1] - self.h[1]

    def thirteen_orphans(self) -> int:
        n0, n1, n2, h = self.n0, self.n1, self.n2, self.h
        return 13 - n0[2] - n1[2] - n2[2] - h[2] - (n0[3] or n1[3] or n2[3] or h[3])

    def honors_and_knitted(self) -> int:
        return 13 - _knitted_held(self.n0[4], self.n1[4], self.n2[4]) - self.h[2]

    def knitted(self) -> int:
        return _knitted(self.n0, self.n1, self.n2, self.h[0], self.melds + 3, _NA)


# ---- useful tiles ----


@lru_cache(maxsize=4096)
def _number_useful(key: int, other: int, melds: int, base: int) -> tuple[int, ...]:
    """Ranks (0..8) of one number suit whose draw takes the regular shanten below ``base``,
    ``other`` being the option set of the rest of the hand."""
    c = _decode(key, 9)
    out = []
    for r in range(9):
        n = c[r]
        if n == 0:
            # No neighbour within two ranks: the new tile would stay alone.
            if not ((r > 0 and c[r - 1]) or (r > 1 and c[r - 2]) or (r < 8 and c[r + 1]) or (r < 7 and c[r + 2])):
                continue
        elif n == 4 and base > 0:
            continue  # the reference's rule: a fifth copy counts only for a ready hand
        if _value(combine_options(suit_info(key + (1 << 5 * r))[0], other), melds) < base:
            out.append(r)
    return tuple(out)


@lru_cache(maxsize=1024)
def _honor_useful(key: int, other: int, melds: int, base: int) -> tuple[int, ...]:
    """As _number_useful for the honors (indices 0..6); a new lone honor forms nothing."""
    out = []
    for i, n in enumerate(_decode(key, 7)):
        if n == 0 or (n == 4 and base > 0):
            continue
        if _value(combine_options(honor_info(key + (1 << 5 * i))[0], other), melds) < base:
            out.append(i)
    return tuple(out)


def _regular_useful(key: int, melds: int) -> ShantenResult:
    k0, k1, k2, kh = key & _SUIT_MASK, key >> 45 & _SUIT_MASK, key >> 90 & _SUIT_MASK, key >> 135
    o0, o1, o2, oh = suit_info(k0)[0], suit_info(k1)[0], suit_info(k2)[0], honor_info(kh)[0]
    o01 = combine_options(o0, o1)
    o2h = combine_options(o2, oh)
    base = _value(combine_options(o01, o2h), melds)
    useful = [r for r in _number_useful(k0, combine_options(o1, o2h), melds, base)]
    useful += [9 + r for r in _number_useful(k1, combine_options(o0, o2h), melds, base)]
    useful += [18 + r for r in _number_useful(k2, combine_options(o01, oh), melds, base)]
    useful += [27 + i for i in _honor_useful(kh, combine_options(o01, o2), melds, base)]
    return ShantenResult(base, tuple(useful))


_LOW_BITS = sum(1 << 5 * t for t in range(34))
_TILE_OF_BIT = {1 << 5 * t: t for t in range(34)}


def _seven_pairs(key: int) -> int:
    # Pairs in a count n <= 7 are n >> 1: its bit 1 plus twice its bit 2.
    return 6 - (key & _LOW_BITS << 1).bit_count() - 2 * (key & _LOW_BITS << 2).bit_count()


def _seven_pairs_useful(key: int) -> ShantenResult:
    odd = key & _LOW_BITS
    useful = []
    while odd:
        low = odd & -odd
        useful.append(_TILE_OF_BIT[low])
        odd ^= low
    return ShantenResult(_seven_pairs(key), tuple(useful))


_SORTED_ORPHANS = tuple(sorted(THIRTEEN_ORPHANS))


def thirteen_orphans_useful_packed(key: int) -> ShantenResult:
    c = _decode(key, 34)
    s = PackedHand(key, 0).thirteen_orphans()
    if any(c[t] > 1 for t in THIRTEEN_ORPHANS):
        return ShantenResult(s, tuple(t for t in _SORTED_ORPHANS if not c[t]))
    return ShantenResult(s, _SORTED_ORPHANS)


def honors_and_knitted_useful_packed(key: int) -> ShantenResult:
    c = _decode(key, 34)
    s = PackedHand(key, 0).honors_and_knitted()
    useful: set[int] = set()
    for ks in KNITTED_STRAIGHTS:
        missing = [t for t in ks + HONORS if not c[t]]
        if len(missing) - 3 == s:  # ties: every best straight counts, as in the reference
            useful.update(missing)
    return ShantenResult(s, tuple(sorted(useful)))


def knitted_useful_packed(key: int, melds: int) -> ShantenResult:
    h = PackedHand(key, melds)
    n0, n1, n2, oh = h.n0, h.n1, h.n2, h.h[0]
    values = []
    for x, y, z in _KS_STARTS:
        missing = 9 - n0[4][x] - n1[4][y] - n2[4][z]
        values.append(missing + _value4(n0[5][x], n1[5][y], n2[5][z], oh, melds + 3))
    best = min(values)
    useful: set[int] = set()
    for ks, bits, v in zip(KNITTED_STRAIGHTS, _KS_BITS, values):
        if v != best:
            continue  # ties: every best straight counts, as in the reference
        rest = key
        for t, bit in zip(ks, bits):
            if rest >> 5 * t & 31:
                rest -= bit
            else:
                useful.add(t)
        useful.update(_regular_useful(rest, melds + 3).useful)
    return ShantenResult(best, tuple(sorted(useful)))


# ---- public API ----


# (standing tiles, meld count or None) -> meld count, for the shapes 13-3k and 14-3k.
_SHAPES = {}
for _k in range(5):
    for _n in (13 - 3 * _k, 14 - 3 * _k):
        _SHAPES[_n, _k] = _SHAPES[_n, None] = _k
del _k, _n
_DRAWING_SHAPES = {shape: k for shape, k in _SHAPES.items() if shape[0] + 3 * k == 13}
_bit = _BIT.__getitem__


def _pack(tiles: Iterable[Tile], meld_count: int | None, drawing: bool = False) -> tuple[int, int]:
    """Packed counts and meld count; checks 13-3k (or, unless ``drawing``, 14-3k) standing tiles."""
    if not isinstance(tiles, (tuple, list)):
        tiles = tuple(tiles)
    try:
        key = sum(map(_bit, tiles))
    except (KeyError, TypeError):
        raise ValueError(f"not a list of tile kinds 0..33: {tiles!r}") from None
    k = (_DRAWING_SHAPES if drawing else _SHAPES).get((len(tiles), meld_count))
    if k is None:
        need = "13-3k" if drawing else "13-3k or 14-3k"
        raise ValueError(f"{len(tiles)} standing tiles with {meld_count} declared melds: need {need}")
    if (key + _ELEVENS) & _TOPS:
        raise ValueError(f"more than four of a kind in {tiles!r}")
    return key, k


def _no_melds(tiles: Iterable[Tile], form: str, drawing: bool = False) -> int:
    key, k = _pack(tiles, None, drawing)
    if k:
        raise ValueError(f"{form} needs all the tiles standing (no declared melds)")
    return key


def _at_most_one_meld(k: int) -> None:
    if k > 1:
        raise ValueError("the knitted straight form allows at most one declared meld")


def regular_shanten(tiles: Iterable[Tile], meld_count: int | None = None) -> int:
    """Regular form (4 sets + a pair). ``meld_count`` defaults to the one the tile count implies."""
    key, k = _pack(tiles, meld_count)
    return PackedHand(key, k).regular()


def regular_useful(tiles: Iterable[Tile], meld_count: int | None = None) -> ShantenResult:
    key, k = _pack(tiles, meld_count, drawing=True)
    return _regular_useful(key, k)


def seven_pairs_shanten(tiles: Iterable[Tile]) -> int:
    """七对; four of a kind counts as two pairs."""
    return _seven_pairs(_no_melds(tiles, "seven pairs"))


def seven_pairs_useful(tiles: Iterable[Tile]) -> ShantenResult:
    return _seven_pairs_useful(_no_melds(tiles, "seven pairs", drawing=True))


def thirteen_orphans_shanten(tiles: Iterable[Tile]) -> int:
    return PackedHand(_no_melds(tiles, "thirteen orphans"), 0).thirteen_orphans()


def thirteen_orphans_useful(tiles: Iterable[Tile]) -> ShantenResult:
    return thirteen_orphans_useful_packed(_no_melds(tiles, "thirteen orphans", drawing=True))


def honors_and_knitted_shanten(tiles: Iterable[Tile]) -> int:
    """全不靠, 七星不靠 included: 14 distinct kinds among one knitted straight's nine and the honors."""
    return PackedHand(_no_melds(tiles, "honors and knitted tiles"), 0).honors_and_knitted()


def honors_and_knitted_useful(tiles: Iterable[Tile]) -> ShantenResult:
    return honors_and_knitted_useful_packed(_no_melds(tiles, "honors and knitted tiles", drawing=True))


def knitted_straight_shanten(tiles: Iterable[Tile], meld_count: int | None = None) -> int:
    """组合龙 form: knitted straight + 1 set + a pair, with 0 or 1 declared meld."""
    key, k = _pack(tiles, meld_count)
    _at_most_one_meld(k)
    return PackedHand(key, k).knitted()


def knitted_straight_useful(tiles: Iterable[Tile], meld_count: int | None = None) -> ShantenResult:
    key, k = _pack(tiles, meld_count, drawing=True)
    _at_most_one_meld(k)
    return knitted_useful_packed(key, k)


def shanten(tiles: Iterable[Tile], meld_count: int | None = None) -> int:
    """Minimum shanten over the forms that apply: specials with 0 melds, 组合龙 with 0 or 1."""
    key, k = _pack(tiles, meld_count)
    # The hot path: PackedHand's work inlined.
    n0 = suit_info(key & _SUIT_MASK)
    n1 = suit_info(key >> 45 & _SUIT_MASK)
    n2 = suit_info(key >> 90 & _SUIT_MASK)
    h = honor_info(key >> 135)
    best = _value4(n0[0], n1[0], n2[0], h[0], k)
    if k > 1:
        return best
    held = _knitted_held(n0[4], n1[4], n2[4])
    if k == 0:
        s = 6 - n0[1] - n1[1] - n2[1] - h[1]  # 七对
        if s < best:
            best = s
        s = 13 - n0[2] - n1[2] - n2[2] - h[2] - (n0[3] or n1[3] or n2[3] or h[3])  # 十三幺
        if s < best:
            best = s
        s = 13 - held - h[2]  # 全不靠
        if s < best:
            best = s
    if 8 - held >= best:  # the 组合龙 form cannot beat it
        return best
    return _knitted(n0, n1, n2, h[0], k + 3, best)


_FORM_USEFUL = (
    _regular_useful,
    lambda key, k: _seven_pairs_useful(key),
    lambda key, k: thirteen_orphans_useful_packed(key),
    lambda key, k: honors_and_knitted_useful_packed(key),
    knitted_useful_packed,
)


def useful_tiles(tiles: Iterable[Tile], meld_count: int | None = None) -> ShantenResult:
    """Overall shanten of a 13-3k hand and the kinds that lower it: the union of the useful tiles
    of the forms at that minimum."""
    key, k = _pack(tiles, meld_count, drawing=True)
    h = PackedHand(key, k)
    if k == 0:
        shantens = [h.regular(), h.seven_pairs(), h.thirteen_orphans(), h.honors_and_knitted(), h.knitted()]
    else:
        shantens = [h.regular(), _NA, _NA, _NA, h.knitted() if k == 1 else _NA]
    best = min(shantens)
    useful: set[int] = set()
    for s, form in zip(shantens, _FORM_USEFUL):
        if s == best:
            useful.update(form(key, k).useful)
    return ShantenResult(best, tuple(sorted(useful)))
