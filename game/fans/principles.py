"""The cross-fan principles of R98 第十条 (五), each a named step, in one place.

- 不拆移 / 不得相同 / 套算一次 (``combine_chows``, ``combine_pungs``): which combinations of sets count;
- 不重复 (``exclude``): a fan's 不计 list (data on the fan) removes the fans it implies;
- 就高不就低 (``better``): the split with the highest total counts, with the reference's tie-breaks.

Occurrences are ``(fan id, set indices)``; set indices point into the reading's groups, ``()`` for
the whole hand.
"""

from __future__ import annotations

from game.fans import table as F
from game.fans.checks import CHOW_PAIRS, CHOW_QUADS, CHOW_TRIPLES, PUNG_PAIRS, PUNG_QUADS, PUNG_TRIPLES
from game.fans.table import FANS

# The reference tries the three-set combinations of four sets in this order (fans.md §2.3).
_TRIPLES_OF_FOUR = (((0, 1, 2), 3), ((0, 1, 3), 2), ((0, 2, 3), 1), ((1, 2, 3), 0))
_PAIRS_OF_FOUR = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))
_PAIRS_OF_THREE = ((0, 1), (0, 2), (1, 2))


def _first(table, *tiles):
    for fan, test in table.items():
        if test(*tiles):
            return fan
    return None


def combine_chows(chows: list[tuple[int, int]]) -> list:
    """Chow combinations: ``chows`` are (lowest tile, group index), sorted by tile.

    不拆移: a fan of four chows takes them all; a fan of three leaves the fourth to combine once
    (套算一次) with one of them, by the priority 一般高 > 喜相逢 > 连六 > 老少副. Without such fans,
    pairs of chows count under the account-once limit (``_account_once``).
    """
    n = len(chows)
    tiles = [t for t, _ in chows]
    index = [i for _, i in chows]
    if n < 2:
        return []
    if n == 4:
        fan = _first(CHOW_QUADS, *tiles)
        if fan is not None:
            return [(fan, tuple(index))]
        for triple, extra in _TRIPLES_OF_FOUR:
            fan = _first(CHOW_TRIPLES, *(tiles[i] for i in triple))
            if fan is None:
                continue
            found = [(fan, tuple(index[i] for i in triple))]
            for pair_fan, test in CHOW_PAIRS.items():
                partner = next((i for i in triple if test(tiles[i], tiles[extra])), None)
                if partner is not None:
                    found.append((pair_fan, (index[partner], index[extra])))
                    break
            return found
        pairs = [(f, (index[i], index[j])) for i, j in _PAIRS_OF_FOUR
                 if (f := _first(CHOW_PAIRS, tiles[i], tiles[j])) is not None]
        related = {k for _, ij in pairs for k in ij}
        return _account_once(pairs, 3 - (4 - len(related)))
    if n == 3:
        fan = _first(CHOW_TRIPLES, *tiles)
        if fan is not None:
            return [(fan, tuple(index))]
        pairs = [(f, (index[i], index[j])) for i, j in _PAIRS_OF_THREE
                 if (f := _first(CHOW_PAIRS, tiles[i], tiles[j])) is not None]
        return _account_once(pairs, 2)
    fan = _first(CHOW_PAIRS, tiles[0], tiles[1])
    return [] if fan is None else [(fan, tuple(index))]


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


def combine_pungs(pungs: list[tuple[int, int]]) -> list:
    """Pung combinations, as ``combine_chows``; pairs of pungs have no account-once limit."""
    n = len(pungs)
    tiles = [t for t, _ in pungs]
    index = [i for _, i in pungs]
    if n < 2:
        return []
    if n == 4:
        fan = _first(PUNG_QUADS, *tiles)
        if fan is not None:
            return [(fan, tuple(index))]
        for triple, extra in _TRIPLES_OF_FOUR:
            fan = _first(PUNG_TRIPLES, *(tiles[i] for i in triple))
            if fan is None:
                continue
            found = [(fan, tuple(index[i] for i in triple))]
            for i in range(4):
                if i != extra and (f := _first(PUNG_PAIRS, tiles[i], tiles[extra])) is not None:
                    found.append((f, (index[i], index[extra])))
                    break
            return found
        return [(f, (index[i], index[j])) for i, j in _PAIRS_OF_FOUR
                if (f := _first(PUNG_PAIRS, tiles[i], tiles[j])) is not None]
    if n == 3:
        fan = _first(PUNG_TRIPLES, *tiles)
        if fan is not None:
            return [(fan, tuple(index))]
        return [(f, (index[i], index[j])) for i, j in _PAIRS_OF_THREE
                if (f := _first(PUNG_PAIRS, tiles[i], tiles[j])) is not None]
    fan = _first(PUNG_PAIRS, tiles[0], tiles[1])
    return [] if fan is None else [(fan, tuple(index))]


_RANK = {fan: i for i, fan in enumerate(F.PRECEDENCE)}


def exclude(found: dict[int, list]) -> dict[int, list]:
    """不重复: apply each present fan's 不计 list, from the highest fan down (in place)."""
    for fan in sorted(found, key=_RANK.__getitem__):
        if fan not in found:
            continue
        d = FANS[fan]
        for other in d.excludes:
            found.pop(other, None)
        if d.excludes_own:
            own = {i for sets in found[fan] for i in sets}
            for other in d.excludes_own:
                if other in found:
                    kept = [sets for sets in found[other] if not set(sets) <= own]
                    if kept:
                        found[other] = kept
                    else:
                        del found[other]
        for other in d.excludes_once:
            if other in found:
                found[other].pop()
                if not found[other]:
                    del found[other]
    if not found:
        found[F.CHICKEN_HAND] = [()]  # R98 #43: no fan at all, flowers not counted
    return found


def total(found: dict[int, list]) -> int:
    return sum(FANS[fan].points * len(occ) for fan, occ in found.items())


def better(candidate: dict, candidate_total: int, best_total: int, best_is_seven_pairs: bool) -> bool:
    """就高不就低 between splits; on equal totals the reference keeps the first split, except that
    a split with 一色三同顺 or 三同刻 replaces it, and any regular split replaces 七对 (fans.md §2.1)."""
    if candidate_total != best_total:
        return candidate_total > best_total
    return best_is_seven_pairs or len(candidate.get(F.PURE_TRIPLE_CHOW, ())) == 1 or F.TRIPLE_PUNG in candidate
