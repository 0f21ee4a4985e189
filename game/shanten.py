"""Shanten (向听数) and useful tiles (有效牌) for the MCR winning forms.

Convention (as the reference calculator): for a hand of 13-3k standing tiles, 0 means ready (听牌)
and n > 0 means n more useful draws are needed at best; for 14-3k standing tiles, -1 means the
hand is complete. ``k`` is the number of declared melds (kongs count as one meld).

Forms: regular (4 sets + a pair), 七对, 十三幺, 全不靠 (七星不靠 included) and the 组合龙 form
(a knitted straight + 1 set + a pair). ``shanten`` is the minimum over the forms that apply.

Useful tiles of a 13-3k hand are the kinds whose draw lowers that form's shanten, as a sorted
tuple. The reference's conventions are kept: in the regular parts, a kind already held four times
is useful only when the hand is ready (a hypothetical fifth tile completing it counts), and for
七对 four of a kind is two pairs.

Speed: the regular form is computed suit by suit. Each suit's count tuple maps (cached) to its
small set of non-dominated (pair, sets, partials) options; option sets are then combined and
valued through small caches, so a call is a handful of dict lookups once the caches are warm.
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
]

COMPLETE = -1
READY = 0


class ShantenResult(NamedTuple):
    shanten: int
    useful: tuple[Tile, ...]


# An option is (pair 0/1, sets 0..4, partials 0..4-sets); an option set is a sorted tuple of the
# options no other option beats. A set is worth at least two partials (partials only count up to
# 4 - sets), so (p, m', d') dominates (p, m, d) when m' >= m and 2m' + d' >= 2m + d.
Options = tuple[tuple[int, int, int], ...]

_EMPTY: Options = ((0, 0, 0),)


def _prune(opts) -> Options:
    opts = set(opts)
    keep = [
        (p, m, d)
        for p, m, d in opts
        if not any(
            q == p and n >= m and 2 * n + e >= 2 * m + d and (n, e) != (m, d) for q, n, e in opts
        )
    ]
    keep.sort()
    return tuple(keep)


def _expand(key: tuple[int, ...], numbers: bool) -> Options:
    """Options of one suit: the lowest held kind goes to each group it can start, or is left alone."""
    size = len(key)
    i = 0
    while i < size and not key[i]:
        i += 1
    if i == size:
        return _EMPTY
    sub = _number_options if numbers else _honor_options
    c = list(key)
    out: list[tuple[int, int, int]] = []

    def child(*idx: int) -> Options:
        for j in idx:
            c[j] -= 1
        k = tuple(c) if numbers else tuple(sorted(c))
        for j in idx:
            c[j] += 1
        return sub(k)

    out.extend(child(i))  # left isolated
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


def _add_set(opts: Options):
    for p, m, d in opts:
        m = m + 1 if m < 4 else 4
        yield p, m, min(d, 4 - m)


@lru_cache(maxsize=1 << 18)
def _number_options(key: tuple[int, ...]) -> Options:
    return _expand(key, True)


@lru_cache(maxsize=1 << 12)
def _honor_options(key: tuple[int, ...]) -> Options:
    # Honors form no sequences, so order does not matter: callers pass the counts sorted.
    return _expand(key, False)


@lru_cache(maxsize=1 << 16)
def _combine(a: Options, b: Options) -> Options:
    out = []
    for pa, ma, da in a:
        for pb, mb, db in b:
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
    return _prune(out)


@lru_cache(maxsize=1 << 16)
def _value(opts: Options, melds: int) -> int:
    """8 - 2*sets - partials - pair, partials capped at 4 - sets (declared melds are sets)."""
    best = 8
    for p, m, d in opts:
        m += melds
        if m > 4:
            m = 4
        if d > 4 - m:
            d = 4 - m
        v = 8 - 2 * m - d - p
        if v < best:
            best = v
    return best


def _suit_opts(c: list[int]) -> tuple[Options, Options, Options, Options]:
    return (
        _number_options(tuple(c[0:9])),
        _number_options(tuple(c[9:18])),
        _number_options(tuple(c[18:27])),
        _honor_options(tuple(sorted(c[27:34]))),
    )


def _regular(c: list[int], melds: int) -> int:
    o0, o1, o2, o3 = _suit_opts(c)
    return _value(_combine(_combine(o0, o1), _combine(o2, o3)), melds)


@lru_cache(maxsize=1 << 16)
def _number_useful(key: tuple[int, ...], other: Options, melds: int, base: int) -> tuple[int, ...]:
    """Ranks (0..8) of one number suit whose draw lowers the regular shanten below ``base``."""
    c = list(key)
    out = []
    for r in range(9):
        n = c[r]
        if n == 0:
            # A kind with no neighbour within two ranks stays isolated: never useful.
            if not ((r > 0 and c[r - 1]) or (r > 1 and c[r - 2]) or (r < 8 and c[r + 1]) or (r < 7 and c[r + 2])):
                continue
        elif n == 4 and base > 0:
            continue  # the reference's rule: a fifth copy only counts for a ready hand
        c[r] = n + 1
        if _value(_combine(_number_options(tuple(c)), other), melds) < base:
            out.append(r)
        c[r] = n
    return tuple(out)


def _regular_useful(c: list[int], melds: int) -> ShantenResult:
    o0, o1, o2, o3 = _suit_opts(c)
    o01 = _combine(o0, o1)
    o23 = _combine(o2, o3)
    base = _value(_combine(o01, o23), melds)
    useful: list[int] = []
    for lo, other in ((0, _combine(o1, o23)), (9, _combine(o0, o23)), (18, _combine(o01, o3))):
        useful.extend(lo + r for r in _number_useful(tuple(c[lo : lo + 9]), other, melds, base))
    other = _combine(o01, o2)
    honors = c[27:34]
    for t in HONORS:
        n = c[t]
        if n == 0 or (n == 4 and base > 0):
            continue  # a lone new honor forms nothing
        honors[t - 27] = n + 1
        if _value(_combine(_honor_options(tuple(sorted(honors))), other), melds) < base:
            useful.append(t)
        honors[t - 27] = n
    return ShantenResult(base, tuple(useful))


# ---- special forms (0 melds) ----


def _seven_pairs(c: list[int]) -> int:
    return 6 - sum(n >> 1 for n in c)


def _thirteen_orphans(c: list[int]) -> int:
    kinds = 0
    pair = 0
    for t in THIRTEEN_ORPHANS:
        n = c[t]
        if n:
            kinds += 1
            if n > 1:
                pair = 1
    return 13 - pair - kinds


def _thirteen_orphans_useful(c: list[int]) -> ShantenResult:
    s = _thirteen_orphans(c)
    if any(c[t] > 1 for t in THIRTEEN_ORPHANS):
        useful = tuple(t for t in THIRTEEN_ORPHANS if not c[t])
    else:
        useful = THIRTEEN_ORPHANS
    return ShantenResult(s, tuple(sorted(useful)))


_HK_GROUPS = tuple(ks + HONORS for ks in KNITTED_STRAIGHTS)


def _honors_and_knitted(c: list[int]) -> int:
    return 13 - max(sum(1 for t in g if c[t]) for g in _HK_GROUPS)


def _honors_and_knitted_useful(c: list[int]) -> ShantenResult:
    s = _honors_and_knitted(c)
    useful: set[int] = set()
    for g in _HK_GROUPS:
        missing = [t for t in g if not c[t]]
        if 13 - (16 - len(missing)) == s:  # ties: the reference merges every best straight
            useful.update(missing)
    return ShantenResult(s, tuple(sorted(useful)))


# ---- 组合龙 form: the knitted straight's nine kinds, then the rest as a regular hand with the
# straight standing for three declared sets ----

# Per straight, the first rank (0, 1 or 2) it uses in 万, 条, 饼.
_KS_STARTS = tuple(tuple(ks[3 * s] % 9 for s in range(3)) for ks in KNITTED_STRAIGHTS)


@lru_cache(maxsize=1 << 16)
def _knit_part(key: tuple[int, ...], start: int) -> tuple[int, Options]:
    """(kinds of the straight held in this suit, options of what is left once one of each is taken)."""
    c = list(key)
    held = 0
    for r in (start, start + 3, start + 6):
        if c[r]:
            c[r] -= 1
            held += 1
    return held, _number_options(tuple(c))


def _knitted(c: list[int], melds: int, bound: int = 99) -> int:
    """Knitted-straight-form shanten, or ``bound`` if it cannot be below ``bound``."""
    k0, k1, k2 = tuple(c[0:9]), tuple(c[9:18]), tuple(c[18:27])
    oh = _honor_options(tuple(sorted(c[27:34])))
    best = bound
    for a, b, s in _KS_STARTS:
        h0, o0 = _knit_part(k0, a)
        h1, o1 = _knit_part(k1, b)
        h2, o2 = _knit_part(k2, s)
        missing = 9 - h0 - h1 - h2
        if missing - 1 >= best:  # the rest is at best complete (-1)
            continue
        v = missing + _value(_combine(_combine(o0, o1), _combine(o2, oh)), melds + 3)
        if v < best:
            best = v
    return best


def _knitted_useful(c: list[int], melds: int) -> ShantenResult:
    best = _knitted(c, melds)
    useful: set[int] = set()
    for ks in KNITTED_STRAIGHTS:
        rest = list(c)
        missing = []
        for t in ks:
            if rest[t]:
                rest[t] -= 1
            else:
                missing.append(t)
        if len(missing) + _regular(rest, melds + 3) != best:
            continue
        useful.update(missing)
        useful.update(_regular_useful(rest, melds + 3).useful)
    return ShantenResult(best, tuple(sorted(useful)))


# ---- public API ----


def _counts_and_melds(tiles: Iterable[Tile], meld_count: int | None) -> tuple[list[int], int, int]:
    c = [0] * 34
    n = 0
    for t in tiles:
        c[t] += 1
        n += 1
    if meld_count is None:
        meld_count = (14 - n) // 3
    if not 0 <= meld_count <= 4 or n + 3 * meld_count not in (13, 14):
        raise ValueError(f"{n} standing tiles do not fit {meld_count} declared melds (need 13-3k or 14-3k)")
    return c, meld_count, n


def _drawing(tiles: Iterable[Tile], meld_count: int | None) -> tuple[list[int], int]:
    c, k, n = _counts_and_melds(tiles, meld_count)
    if n + 3 * k != 13:
        raise ValueError(f"useful tiles are for a hand of 13-3k standing tiles, got {n} with {k} melds")
    return c, k


def _no_melds(tiles: Iterable[Tile], form: str, drawing: bool = False) -> list[int]:
    c, k, n = _counts_and_melds(tiles, None)
    if k or (drawing and n != 13):
        need = "13" if drawing else "13 or 14"
        raise ValueError(f"{form} needs {need} standing tiles and no melds, got {n}")
    return c


def regular_shanten(tiles: Iterable[Tile], meld_count: int | None = None) -> int:
    """Regular form (4 sets + a pair). ``meld_count`` defaults to the one the tile count implies."""
    c, k, _ = _counts_and_melds(tiles, meld_count)
    return _regular(c, k)


def regular_useful(tiles: Iterable[Tile], meld_count: int | None = None) -> ShantenResult:
    c, k = _drawing(tiles, meld_count)
    return _regular_useful(c, k)


def seven_pairs_shanten(tiles: Iterable[Tile]) -> int:
    """七对; four of a kind counts as two pairs."""
    return _seven_pairs(_no_melds(tiles, "seven pairs"))


def seven_pairs_useful(tiles: Iterable[Tile]) -> ShantenResult:
    c = _no_melds(tiles, "seven pairs", drawing=True)
    return ShantenResult(_seven_pairs(c), tuple(t for t in range(34) if c[t] & 1))


def thirteen_orphans_shanten(tiles: Iterable[Tile]) -> int:
    return _thirteen_orphans(_no_melds(tiles, "thirteen orphans"))


def thirteen_orphans_useful(tiles: Iterable[Tile]) -> ShantenResult:
    c = _no_melds(tiles, "thirteen orphans", drawing=True)
    return _thirteen_orphans_useful(c)


def honors_and_knitted_shanten(tiles: Iterable[Tile]) -> int:
    """全不靠, 七星不靠 included: 14 distinct kinds of one knitted straight's nine and the honors."""
    return _honors_and_knitted(_no_melds(tiles, "honors and knitted tiles"))


def honors_and_knitted_useful(tiles: Iterable[Tile]) -> ShantenResult:
    c = _no_melds(tiles, "honors and knitted tiles", drawing=True)
    return _honors_and_knitted_useful(c)


def knitted_straight_shanten(tiles: Iterable[Tile], meld_count: int | None = None) -> int:
    """组合龙 form: knitted straight + 1 set + a pair, with 0 or 1 declared meld."""
    c, k, _ = _counts_and_melds(tiles, meld_count)
    if k > 1:
        raise ValueError("the knitted straight form allows at most one declared meld")
    return _knitted(c, k)


def knitted_straight_useful(tiles: Iterable[Tile], meld_count: int | None = None) -> ShantenResult:
    c, k = _drawing(tiles, meld_count)
    if k > 1:
        raise ValueError("the knitted straight form allows at most one declared meld")
    return _knitted_useful(c, k)


def _special(c: list[int], best: int) -> int:
    """min(best, the three 0-meld special forms), cheapest first."""
    s = _seven_pairs(c)
    if s < best:
        best = s
    s = _thirteen_orphans(c)
    if s < best:
        best = s
    s = _honors_and_knitted(c)
    return s if s < best else best


def shanten(tiles: Iterable[Tile], meld_count: int | None = None) -> int:
    """Minimum shanten over the forms that apply: specials with 0 melds, 组合龙 with 0 or 1."""
    c, k, _ = _counts_and_melds(tiles, meld_count)
    best = _regular(c, k)
    if k == 0:
        best = _special(c, best)
    if k <= 1:
        best = _knitted(c, k, best)
    return best


def useful_tiles(tiles: Iterable[Tile], meld_count: int | None = None) -> ShantenResult:
    """Overall shanten and the kinds that lower it: the union over the forms at that minimum."""
    c, k = _drawing(tiles, meld_count)
    results = [_regular_useful(c, k)]
    if k == 0:
        results += [
            ShantenResult(_seven_pairs(c), tuple(t for t in range(34) if c[t] & 1)),
            _thirteen_orphans_useful(c),
            _honors_and_knitted_useful(c),
        ]
    if k <= 1:
        results.append(_knitted_useful(c, k))
    best = min(r.shanten for r in results)
    useful = set()
    for r in results:
        if r.shanten == best:
            useful.update(r.useful)
    return ShantenResult(best, tuple(sorted(useful)))
