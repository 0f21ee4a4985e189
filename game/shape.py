"""A fast shape test used to skip the scorer on hands that cannot be complete.

The state machine asks "can this seat win on this tile?" three times per discard and once per draw;
almost always the answer is no. ``may_complete`` answers on the sorted standing tiles, mostly with
C-level slicing and set operations, and only a ``True`` goes on to ``game.scoring`` (the one authority
on winning). It accepts every winning shape (regular, 七对, 十三幺, 全不靠/七星不靠, 组合龙 forms), so it
never hides a win; tests check it against ``game.scoring.is_complete``.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache

from game.tiles import KNITTED_STRAIGHTS, THIRTEEN_ORPHANS

_ORPHANS = frozenset(THIRTEEN_ORPHANS)
_KNITTED = tuple(frozenset(k) for k in KNITTED_STRAIGHTS)


def _counts9(tiles: tuple) -> tuple:
    c = [0] * 9
    base = tiles[0] - tiles[0] % 9
    for t in tiles:
        c[t - base] += 1
    return tuple(c)


@lru_cache(maxsize=8192)
def _sets_only(c: tuple) -> bool:
    """Nine counts of one suit split into chows and pungs."""
    i = 0
    while i < 9 and c[i] == 0:
        i += 1
    if i == 9:
        return True
    n = c[i]
    if n >= 3 and _sets_only(c[:i] + (n - 3,) + c[i + 1:]):
        return True
    if i <= 6 and c[i + 1] and c[i + 2]:
        return _sets_only(c[:i] + (n - 1, c[i + 1] - 1, c[i + 2] - 1) + c[i + 3:])
    return False


@lru_cache(maxsize=4096)
def _sets_and_pair(c: tuple) -> bool:
    return any(c[i] >= 2 and _sets_only(c[:i] + (c[i] - 2,) + c[i + 1:]) for i in range(9))


@lru_cache(maxsize=8192)
def _suit_ok(tiles: tuple) -> bool:
    """Sorted tiles of one suit: sets only (3n tiles) or sets and the pair (3n+2)."""
    if not tiles:
        return True
    c = _counts9(tiles)
    return _sets_and_pair(c) if len(tiles) % 3 == 2 else _sets_only(c)


def _residues_ok(a: int, b: int, c: int, d: int) -> bool:
    """Group sizes (万, 条, 饼, honors) of a regular hand: one group 3n+2, the others 3n."""
    r = (a % 3, b % 3, c % 3, d % 3)
    return 1 not in r and r.count(2) == 1


def _regular(h: tuple) -> bool:
    """Sorted standing tiles form sets plus exactly one pair."""
    n = len(h)
    a = bisect_left(h, 9)
    b = bisect_left(h, 18, a)
    c = bisect_left(h, 27, b)
    if not _residues_ok(a, b - a, c - b, n - c):
        return False
    i, pairs = c, 0
    while i < n:  # honors: only pungs and the pair
        j = i
        while j < n and h[j] == h[i]:
            j += 1
        if j - i == 2:
            pairs += 1
        elif j - i != 3:
            return False
        i = j
    if pairs != ((n - c) % 3 == 2):
        return False
    return _suit_ok(h[:a]) and _suit_ok(h[a:b]) and _suit_ok(h[b:c])


def _knitted_honors(tiles: set) -> bool:
    """全不靠 / 七星不靠: 14 different tiles, each suit on one 147/258/369 line, lines all different."""
    lines = {}
    for t in tiles:
        if t < 27:
            s, line = divmod(t, 9)
            line %= 3
            if lines.setdefault(s, line) != line:
                return False
    return len(set(lines.values())) == len(lines)


def may_complete(h: tuple, melds: int) -> bool:
    """``h``: the sorted standing tiles including the winning tile; ``melds``: declared sets."""
    if _regular(h):
        return True
    n = len(h)
    if n < 11:
        return False
    a = bisect_left(h, 9)
    b = bisect_left(h, 18, a)
    c = bisect_left(h, 27, b)
    s = set(h)
    d = len(s)
    if melds == 0:
        if d <= 7 and h[0::2] == h[1::2]:  # 七对 (four of a kind counts as two pairs)
            return True
        if d == 13 and s == _ORPHANS:  # 十三幺: 14 tiles, all 13 orphans, so one is paired
            return True
        if d == 14 and _knitted_honors(s):
            return True
    if d >= 9 and a >= 3 and b - a >= 3 and c - b >= 3:
        for knitted in _KNITTED:  # 组合龙 plus one set and the pair (at most one meld)
            if knitted <= s:
                rest = list(h)
                for t in knitted:
                    rest.remove(t)
                return _regular(tuple(rest))
    return False


def _regular_table() -> tuple:
    """For 3n+1 standing tiles with group sizes ≡ (ra, rb, rc) mod 3 (honors follow), whether adding
    a tile to group g (0..3) can give the regular residues."""
    out = []
    for ra in range(3):
        for rb in range(3):
            for rc in range(3):
                rd = (1 - ra - rb - rc) % 3
                for g in range(4):
                    r = [ra, rb, rc, rd]
                    r[g] += 1
                    out.append(_residues_ok(*r))
    return tuple(out)


_REGULAR_RESIDUES = _regular_table()
_LINES = tuple(tuple(frozenset(base + r + k for k in (0, 3, 6)) for r in range(3)) for base in (0, 9, 18))


def _has_line(st: set, suit: int) -> bool:
    a, b, c = _LINES[suit]
    return a <= st or b <= st or c <= st


def may_win(standing: tuple, tile: int, melds: int) -> bool:
    """``may_complete`` of sorted ``standing`` tiles (3n+1) plus ``tile``, rejecting most hands
    before building the 14-tile tuple."""
    a = bisect_left(standing, 9)
    b = bisect_left(standing, 18, a)
    c = bisect_left(standing, 27, b)
    g = tile // 9 if tile < 27 else 3
    if _REGULAR_RESIDUES[((a % 3 * 3 + (b - a) % 3) * 3 + (c - b) % 3) * 4 + g]:
        i = bisect_left(standing, tile)
        if _regular(standing[:i] + (tile,) + standing[i:]):
            return True
    if melds > 1:
        return False
    # Only the special forms remain. 组合龙 needs three tiles of each suit; 全不靠 five honors or
    # more, 十三幺 seven; 七对 a tile to pair with the winning tile.
    sizes = [a, b - a, c - b, len(standing) - c]
    sizes[g] += 1
    if not (sizes[0] >= 3 and sizes[1] >= 3 and sizes[2] >= 3):
        if melds:
            return False
        if sizes[3] < 5:
            i = bisect_left(standing, tile)
            if i == len(standing) or standing[i] != tile:
                return False
            h = standing[:i] + (tile,) + standing[i:]
            return h[0::2] == h[1::2]
    st = set(standing)
    st.add(tile)
    d = len(st)
    i = bisect_left(standing, tile)
    if melds == 0 and (d <= 7 or d == 14 or (d == 13 and st == _ORPHANS)):
        return may_complete(standing[:i] + (tile,) + standing[i:], melds)
    if d >= 9 and _has_line(st, 0) and _has_line(st, 1) and _has_line(st, 2):
        return may_complete(standing[:i] + (tile,) + standing[i:], melds)
    return False
