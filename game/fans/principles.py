"""The cross-fan principles of R98 第十条 (五), each a named step, in one place.

- 不拆移 / 不得相同 / 套算一次 (``combine_chows``, ``combine_pungs``): which combinations of sets count;
- 不重复 (``exclude``): a fan's 不计 list (data on the fan) removes the fans it implies;
- 就高不就低 (``better``): the split with the highest total counts, with the reference's tie-breaks.

Occurrences are ``(fan id, set indices)``; set indices point into the reading's groups, ``()`` for
the whole hand. The combination steps are cached on the sorted tiles of the chows or pungs.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement, product
from operator import mul

from game.fans import table as F
from game.fans.checks import CHOW_PAIRS, CHOW_QUADS, CHOW_TRIPLES, PUNG_PAIRS, PUNG_QUADS, PUNG_TRIPLES
from game.fans.table import FANS

# The reference tries the three-set combinations of four sets in this order (fans.md §2.3).
_TRIPLES_OF_FOUR = (((0, 1, 2), 3), ((0, 1, 3), 2), ((0, 2, 3), 1), ((1, 2, 3), 0))
_PAIRS_OF_FOUR = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))
_PAIRS_OF_THREE = ((0, 1), (0, 2), (1, 2))
_PAIR_FANS = tuple(CHOW_PAIRS)  # the table's order is the pairing priority
_PAIR_PRIORITY = {fan: i for i, fan in enumerate(_PAIR_FANS)}


_TABLES = {
    "chow quads": CHOW_QUADS, "chow triples": CHOW_TRIPLES, "chow pairs": CHOW_PAIRS,
    "pung quads": PUNG_QUADS, "pung triples": PUNG_TRIPLES, "pung pairs": PUNG_PAIRS,
}


def _first_of(table: str, tiles: tuple):
    """The first fan of a combination table whose check holds on these tiles."""
    for fan, test in _TABLES[table].items():
        if test(*tiles):
            return fan
    return None


# The answers for every pair, and every sorted triple, of chow starts or pung tiles, worked out once
# at import (some 10,000 checks) so that a combination never runs a check twice.
_CHOW_STARTS = tuple(t for t in range(27) if t % 9 <= 6)
_KNOWN = {table: {} for table in _TABLES}
_KNOWN["chow pairs"] = {ab: _first_of("chow pairs", ab) for ab in product(_CHOW_STARTS, repeat=2)}
_KNOWN["pung pairs"] = {ab: _first_of("pung pairs", ab) for ab in product(range(34), repeat=2)}
_KNOWN["chow triples"] = {
    abc: _first_of("chow triples", abc) for abc in combinations_with_replacement(_CHOW_STARTS, 3)}
_KNOWN["pung triples"] = {abc: _first_of("pung triples", abc) for abc in combinations_with_replacement(range(34), 3)}
_UNKNOWN = object()


def _first(table: str, *tiles):
    fan = _KNOWN[table].get(tiles, _UNKNOWN)
    return _first_of(table, tiles) if fan is _UNKNOWN else fan


@lru_cache(maxsize=8192)
def combine_chows(tiles: tuple) -> tuple:
    """Chow combinations: ``tiles`` are the chows' lowest tiles, sorted; each occurrence names its
    chows by position in ``tiles``. Cached: the answer depends on those tiles alone.

    不拆移: a fan of four chows takes them all; a fan of three leaves the fourth to combine once
    (套算一次) with one of them, by the priority 一般高 > 喜相逢 > 连六 > 老少副. Without such fans,
    pairs of chows count under the account-once limit (``_account_once``).
    """
    n = len(tiles)
    if n < 2:
        return ()
    if n == 4:
        fan = _first("chow quads", *tiles)
        if fan is not None:
            return ((fan, (0, 1, 2, 3)),)
        for triple, extra in _TRIPLES_OF_FOUR:
            fan = _first("chow triples", tiles[triple[0]], tiles[triple[1]], tiles[triple[2]])
            if fan is None:
                continue
            found = [(fan, triple)]
            # The fourth chow pairs once: the first fan of the priority with a partner in the triple.
            options = [(_PAIR_PRIORITY[f], i) for i in triple
                       if (f := _first("chow pairs", tiles[i], tiles[extra])) is not None]
            if options:
                rank, partner = min(options)
                found.append((_PAIR_FANS[rank], (partner, extra)))
            return tuple(found)
        pairs = [(f, (i, j)) for i, j in _PAIRS_OF_FOUR if (f := _first("chow pairs", tiles[i], tiles[j])) is not None]
        related = {k for _, ij in pairs for k in ij}
        return tuple(_account_once(pairs, 3 - (4 - len(related))))
    if n == 3:
        fan = _first("chow triples", *tiles)
        if fan is not None:
            return ((fan, (0, 1, 2)),)
        pairs = [(f, (i, j)) for i, j in _PAIRS_OF_THREE if (f := _first("chow pairs", tiles[i], tiles[j])) is not None]
        return tuple(_account_once(pairs, 2))
    fan = _first("chow pairs", tiles[0], tiles[1])
    return () if fan is None else ((fan, (0, 1)),)


def _account_once(pairs: list, limit: int) -> list:
    """套算一次 / 不得相同: n chows give at most n-1 pair fans (less one per chow that relates to none).

    Over the limit, repeated fans are cut first down to one, then singles, scanning 老少副 → 连六 →
    喜相逢 → 一般高 (the reference's order, fans.md §2.4).
    """
    excess = len(pairs) - limit
    if excess <= 0:
        return pairs
    by_fan = {fan: [p for p in pairs if p[0] == fan] for fan in F.CHOW_PAIR_FANS}
    for keep in (1, 0):
        for fan in reversed(F.CHOW_PAIR_FANS):
            while len(by_fan[fan]) > keep and excess > 0:
                by_fan[fan].pop()
                excess -= 1
    return [p for fan in F.CHOW_PAIR_FANS for p in by_fan[fan]]


@lru_cache(maxsize=8192)
def combine_pungs(tiles: tuple) -> tuple:
    """Pung combinations, as ``combine_chows``; pairs of pungs have no account-once limit."""
    n = len(tiles)
    if n < 2:
        return ()
    if n == 4:
        fan = _first("pung quads", *tiles)
        if fan is not None:
            return ((fan, (0, 1, 2, 3)),)
        for triple, extra in _TRIPLES_OF_FOUR:
            fan = _first("pung triples", tiles[triple[0]], tiles[triple[1]], tiles[triple[2]])
            if fan is None:
                continue
            found = [(fan, triple)]
            for i in range(4):
                if i != extra and (f := _first("pung pairs", tiles[i], tiles[extra])) is not None:
                    found.append((f, (i, extra)))
                    break
            return tuple(found)
        return tuple((f, (i, j)) for i, j in _PAIRS_OF_FOUR
                     if (f := _first("pung pairs", tiles[i], tiles[j])) is not None)
    if n == 3:
        fan = _first("pung triples", *tiles)
        if fan is not None:
            return ((fan, (0, 1, 2)),)
        return tuple((f, (i, j)) for i, j in _PAIRS_OF_THREE
                     if (f := _first("pung pairs", tiles[i], tiles[j])) is not None)
    fan = _first("pung pairs", tiles[0], tiles[1])
    return () if fan is None else ((fan, (0, 1)),)


_RANK = {fan: i for i, fan in enumerate(F.PRECEDENCE)}.__getitem__
# Each fan's 不计 lists (None when it has none), read once per present fan.
_RULES = {fan: (d.excludes, tuple(d.excludes_own), tuple(d.excludes_once))
          if d.excludes or d.excludes_own or d.excludes_once else None for fan, d in FANS.items()}


def exclude(found: dict[int, list]) -> dict[int, list]:
    """不重复: apply each present fan's 不计 list, from the highest fan down (in place on ``found``;
    occurrence lists are replaced, never changed, so they may be shared between readings)."""
    for fan in sorted(found, key=_RANK):
        rules = _RULES[fan]
        if rules is None or fan not in found:  # most fans exclude nothing
            continue
        excludes, own, once = rules
        if not excludes.isdisjoint(found):
            for other in found.keys() & excludes:
                del found[other]
        if own:
            sets = {i for occ in found[fan] for i in occ}
            for other in own:
                if other in found:
                    kept = [occ for occ in found[other] if not sets.issuperset(occ)]
                    if kept:
                        found[other] = kept
                    else:
                        del found[other]
        for other in once:
            if other in found:
                if len(found[other]) > 1:
                    found[other] = found[other][:-1]
                else:
                    del found[other]
    if not found:
        found[F.CHICKEN_HAND] = [()]  # R98 #43: no fan at all, flowers not counted
    return found


_POINTS = {fan: d.points for fan, d in FANS.items()}


def total(found: dict[int, list]) -> int:
    return sum(map(mul, map(_POINTS.__getitem__, found), map(len, found.values())))


def better(candidate: dict, candidate_total: int, best_total: int, best_is_seven_pairs: bool) -> bool:
    """就高不就低 between splits; on equal totals the reference keeps the first split, except that
    a split with 一色三同顺 or 三同刻 replaces it, and any regular split replaces 七对 (fans.md §2.1)."""
    if candidate_total != best_total:
        return candidate_total > best_total
    return best_is_seven_pairs or len(candidate.get(F.PURE_TRIPLE_CHOW, ())) == 1 or F.TRIPLE_PUNG in candidate
