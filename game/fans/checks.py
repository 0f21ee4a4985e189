"""One check per fan. Each check is a predicate in the table of its kind:

- chow and pung combinations (on 4, 3 or 2 sets) and single pungs, read on one split;
- shape fans of a regular split (pair, set traits);
- whole-hand fans, read on the tiles alone (suits, ranks, tile traits);
- win fans, read on the win context.

Combination checks only say whether sets *could* form a fan; which of those occurrences count is
decided by the principles (``game.fans.principles``), in one place.
Sets are tuples ``(tile, kind, melded)``; a chow's tile is its lowest tile.
"""

from __future__ import annotations

from typing import NamedTuple

from game.fans import table as F
from game.tiles import GREEN_TILES, REVERSIBLE_TILES, WINDS

CHOW, PUNG, KONG = 1, 0, 2  # set kinds in a reading; pung sorts before chow as in the reference

WIND_SET = frozenset(WINDS)


_SUIT = tuple(t // 9 for t in range(34))
_START = tuple(t % 9 if t < 27 else -9 for t in range(34))  # 0-based rank; honors never match
_suit = _SUIT.__getitem__
_start = _START.__getitem__


# -- chows -------------------------------------------------------------------------------------
# Chows are given as their lowest tiles, sorted.

def _shifted(a, b, c, step):
    return _suit(a) == _suit(b) == _suit(c) and b - a == step and c - b == step


def _three_suits(*tiles):
    return len({_suit(t) for t in tiles}) == len(tiles)


CHOW_QUADS = {
    F.FOUR_PURE_SHIFTED_CHOWS: lambda a, b, c, d: (
        _suit(a) == _suit(d) and (b - a == c - b == d - c) and b - a in (1, 2)),
    F.QUADRUPLE_CHOW: lambda a, b, c, d: a == b == c == d,
}

CHOW_TRIPLES = {
    F.MIXED_SHIFTED_CHOWS: lambda a, b, c: (
        _three_suits(a, b, c) and sorted((_start(a), _start(b), _start(c))) == [
            min(_start(a), _start(b), _start(c)) + i for i in range(3)]),
    F.MIXED_TRIPLE_CHOW: lambda a, b, c: _three_suits(a, b, c) and _start(a) == _start(b) == _start(c),
    F.MIXED_STRAIGHT: lambda a, b, c: _three_suits(a, b, c) and {_start(a), _start(b), _start(c)} == {0, 3, 6},
    F.PURE_STRAIGHT: lambda a, b, c: _shifted(a, b, c, 3) and _start(a) == 0,
    F.PURE_SHIFTED_CHOWS: lambda a, b, c: _shifted(a, b, c, 1) or _shifted(a, b, c, 2),
    F.PURE_TRIPLE_CHOW: lambda a, b, c: a == b == c,
}

# In the account-once pruning priority (一般高 > 喜相逢 > 连六 > 老少副).
CHOW_PAIRS = {
    F.PURE_DOUBLE_CHOW: lambda a, b: a == b,
    F.MIXED_DOUBLE_CHOW: lambda a, b: _suit(a) != _suit(b) and _start(a) == _start(b),
    F.SHORT_STRAIGHT: lambda a, b: _suit(a) == _suit(b) and abs(a - b) == 3,
    F.TWO_TERMINAL_CHOWS: lambda a, b: _suit(a) == _suit(b) and {_start(a), _start(b)} == {0, 6},
}

# -- pungs and kongs ---------------------------------------------------------------------------
# Pungs are given as their tiles, sorted.

def _numbers(*tiles):
    return all(t < 27 for t in tiles)


PUNG_QUADS = {
    F.FOUR_PURE_SHIFTED_PUNGS: lambda a, b, c, d: _numbers(a, d) and _suit(a) == _suit(d) and d - a == 3 and (
        b == a + 1 and c == a + 2),
    F.BIG_FOUR_WINDS: lambda a, b, c, d: {a, b, c, d} == WIND_SET,
}

PUNG_TRIPLES = {
    F.MIXED_SHIFTED_PUNGS: lambda a, b, c: _numbers(a, b, c) and _three_suits(a, b, c) and sorted(
        (_start(a), _start(b), _start(c))) == [min(_start(a), _start(b), _start(c)) + i for i in range(3)],
    F.TRIPLE_PUNG: lambda a, b, c: _numbers(a, b, c) and _three_suits(a, b, c) and (
        _start(a) == _start(b) == _start(c)),
    F.PURE_SHIFTED_PUNGS: lambda a, b, c: _numbers(a, b, c) and _shifted(a, b, c, 1),
    F.BIG_THREE_WINDS: lambda a, b, c: 27 <= a and c < 31,
    F.BIG_THREE_DRAGONS: lambda a, b, c: a >= 31,
}

PUNG_PAIRS = {
    F.DOUBLE_PUNG: lambda a, b: _numbers(a, b) and _suit(a) != _suit(b) and _start(a) == _start(b),
    F.TWO_DRAGONS_PUNGS: lambda a, b: a >= 31 and b >= 31,
}

# Single pungs: (tile, seat wind tile, prevalent wind tile) -> bool
PUNG_SINGLES = {
    F.DRAGON_PUNG: lambda t, seat, prevalent: t >= 31,
    F.PUNG_OF_TERMINALS_OR_HONORS: lambda t, seat, prevalent: 27 <= t < 31 or (t < 27 and t % 9 in (0, 8)),
    F.PREVALENT_WIND: lambda t, seat, prevalent: t == prevalent,
    F.SEAT_WIND: lambda t, seat, prevalent: t == seat,
}

# -- shape fans of a regular split -------------------------------------------------------------
# (sets, pair) -> bool; sets as (tile, kind, melded).


OUTSIDE_TILES = frozenset(t for t in range(34) if t >= 27 or t % 9 in (0, 8))
FIVE_TILES = frozenset(t for t in range(27) if t % 9 == 4)
EVEN_TILES = frozenset(t for t in range(27) if t % 9 % 2 == 1)  # ranks 2, 4, 6, 8


def _all_sets(sets, pair, tiles):
    """The pair and every set hold one of ``tiles``."""
    return pair in tiles and all(
        s[0] in tiles or (s[1] == CHOW and (s[0] + 1 in tiles or s[0] + 2 in tiles)) for s in sets)


def _terminal_chows_by_suit(sets):
    """{suit: sorted chow starts}, or None if any set is not a chow."""
    by_suit: dict[int, list[int]] = {}
    for tile, kind, _ in sets:
        if kind != CHOW:
            return None
        by_suit.setdefault(_suit(tile), []).append(_start(tile))
    return by_suit


def _pure_terminal_chows(sets, pair):
    if pair >= 27 or _start(pair) != 4 or len(sets) != 4:
        return False
    by_suit = _terminal_chows_by_suit(sets)
    return by_suit is not None and list(by_suit) == [_suit(pair)] and sorted(by_suit[_suit(pair)]) == [0, 0, 6, 6]


def _three_suited_terminal_chows(sets, pair):
    if pair >= 27 or _start(pair) != 4 or len(sets) != 4:
        return False
    by_suit = _terminal_chows_by_suit(sets)
    return (by_suit is not None and _suit(pair) not in by_suit and len(by_suit) == 2
            and all(sorted(starts) == [0, 6] for starts in by_suit.values()))


def _pungs(sets):
    return [s[0] for s in sets if s[1] != CHOW]


SHAPES = {
    F.ALL_PUNGS: lambda sets, pair: len(sets) == 4 and all(s[1] != CHOW for s in sets),
    F.ALL_CHOWS: lambda sets, pair: all(s[1] == CHOW for s in sets) and pair < 27,
    F.LITTLE_FOUR_WINDS: lambda sets, pair: 27 <= pair < 31 and len(
        {t for t in _pungs(sets) if 27 <= t < 31}) == 3,
    F.LITTLE_THREE_DRAGONS: lambda sets, pair: pair >= 31 and len([t for t in _pungs(sets) if t >= 31]) == 2,
    F.OUTSIDE_HAND: lambda sets, pair: _all_sets(sets, pair, OUTSIDE_TILES),
    F.ALL_FIVE: lambda sets, pair: _all_sets(sets, pair, FIVE_TILES),
    F.ALL_EVEN_PUNGS: lambda sets, pair: len(sets) == 4 and all(s[1] != CHOW for s in sets) and all(
        t in EVEN_TILES for t in (*_pungs(sets), pair)),
    F.PURE_TERMINAL_CHOWS: _pure_terminal_chows,
    F.THREE_SUITED_TERMINAL_CHOWS: _three_suited_terminal_chows,
}

# What each shape check needs before it can hold: the kinds of sets allowed, and the tiles the pair
# may be. A reading runs only the checks whose needs it meets (the scorer compiles a table of them
# by set kinds and pair); a need must follow from the check, never add to it.
ANY_SETS, NO_CHOWS, NO_PUNGS = 0, 1, 2
_ANY_PAIR = frozenset(range(34))
SHAPE_NEEDS = {
    F.ALL_PUNGS: (NO_CHOWS, _ANY_PAIR),
    F.ALL_CHOWS: (NO_PUNGS, frozenset(range(27))),
    F.LITTLE_FOUR_WINDS: (ANY_SETS, frozenset(WINDS)),
    F.LITTLE_THREE_DRAGONS: (ANY_SETS, frozenset(range(31, 34))),
    F.OUTSIDE_HAND: (ANY_SETS, OUTSIDE_TILES),
    F.ALL_FIVE: (ANY_SETS, FIVE_TILES),
    F.ALL_EVEN_PUNGS: (NO_CHOWS, EVEN_TILES),
    F.PURE_TERMINAL_CHOWS: (NO_PUNGS, FIVE_TILES),
    F.THREE_SUITED_TERMINAL_CHOWS: (NO_PUNGS, FIVE_TILES),
}
assert SHAPE_NEEDS.keys() == SHAPES.keys()

# -- whole-hand fans ---------------------------------------------------------------------------
# Read on the tile kinds present anywhere in the hand, as a bit mask (bit t set = kind t present).


def _mask(tiles):
    return sum(1 << t for t in set(tiles))


ALL_MASK = _mask(range(34))
SUIT_MASKS = tuple(_mask(range(9 * s, 9 * s + 9)) for s in range(3))
NUMBER_MASK = _mask(range(27))
HONOR_MASK = _mask(range(27, 34))
WIND_MASK = _mask(range(27, 31))
DRAGON_MASK = _mask(range(31, 34))
TERMINAL_MASK = _mask(t for t in range(27) if t % 9 in (0, 8))
OUTSIDE_MASK = TERMINAL_MASK | HONOR_MASK
GREEN_MASK = _mask(GREEN_TILES)
REVERSIBLE_MASK = _mask(REVERSIBLE_TILES)


def _ranks_mask(ranks):
    return _mask(9 * s + r - 1 for s in range(3) for r in ranks)


class Whole(NamedTuple):
    """A whole-hand fan, read on the tile kinds present (a mask ``m``): every tile present is one of
    ``only``, each mask of ``needs`` has a tile present, and ``suits`` (when given) is the number of
    suits present. Being data, it can be read part by part (the scorer combines suits and melds)."""

    only: int = ALL_MASK
    needs: tuple[int, ...] = ()
    suits: int | None = None

    def __call__(self, m: int) -> bool:
        return (m & ~self.only == 0 and all(m & need for need in self.needs)
                and (self.suits is None or sum(m & s != 0 for s in SUIT_MASKS) == self.suits))


HAND = {
    F.NO_HONORS: Whole(only=NUMBER_MASK),
    F.ONE_VOIDED_SUIT: Whole(suits=2),
    F.HALF_FLUSH: Whole(suits=1, needs=(HONOR_MASK,)),
    F.FULL_FLUSH: Whole(only=NUMBER_MASK, suits=1),
    F.ALL_TYPES: Whole(suits=3, needs=(WIND_MASK, DRAGON_MASK)),
    F.ALL_SIMPLES: Whole(only=ALL_MASK & ~OUTSIDE_MASK),
    F.REVERSIBLE_TILES: Whole(only=REVERSIBLE_MASK),
    F.ALL_GREEN: Whole(only=GREEN_MASK),
    F.ALL_HONORS: Whole(only=HONOR_MASK),
    F.ALL_TERMINALS: Whole(only=TERMINAL_MASK),
    F.ALL_TERMINALS_AND_HONORS: Whole(only=OUTSIDE_MASK, needs=(HONOR_MASK, TERMINAL_MASK)),
    F.LOWER_FOUR: Whole(only=_ranks_mask(range(1, 5))),
    F.LOWER_TILES: Whole(only=_ranks_mask(range(1, 4))),
    F.UPPER_FOUR: Whole(only=_ranks_mask(range(6, 10))),
    F.UPPER_TILES: Whole(only=_ranks_mask(range(7, 10))),
    F.MIDDLE_TILES: Whole(only=_ranks_mask(range(4, 7))),
}


# -- kongs and concealed pungs (R98 #5, #17, #53, #57, #67, #74; #12, #33, #66) -------------------
# One fan from the kong series and one from the concealed-pung series (fans.md §2.9); a concealed
# kong counts in both. 明杠 + 暗杠 stay two fans (decisions.md item 2: no 明暗杠).

KONGS = {
    F.FOUR_KONGS: lambda melded, concealed: melded + concealed == 4,
    F.THREE_KONGS: lambda melded, concealed: melded + concealed == 3,
    F.TWO_MELDED_KONGS: lambda melded, concealed: melded >= 2,
    F.TWO_CONCEALED_KONGS: lambda melded, concealed: concealed >= 2,
    F.MELDED_KONG: lambda melded, concealed: melded == 1,
    F.CONCEALED_KONG: lambda melded, concealed: concealed == 1,
}

CONCEALED_PUNGS = {
    F.FOUR_CONCEALED_PUNGS: lambda n: n == 4,
    F.THREE_CONCEALED_PUNGS: lambda n: n == 3,
    F.TWO_CONCEALED_PUNGS: lambda n: n == 2,
}

# -- how the hand was won ----------------------------------------------------------------------
# (ctx, melded sets count) -> bool. 不求人/门前清/全求人 only apply to the regular and 组合龙 forms;
# the special forms exclude them by their 不计 lists. The checks read only ctx.self_drawn, ctx.kong
# and ctx.last_tile (the scorer caches their answers on those three flags and the melded count).

WIN = {
    F.SELF_DRAWN: lambda ctx, melded: ctx.self_drawn,
    F.LAST_TILE_DRAW: lambda ctx, melded: ctx.self_drawn and ctx.last_tile,
    F.OUT_WITH_REPLACEMENT_TILE: lambda ctx, melded: ctx.self_drawn and ctx.kong,
    F.LAST_TILE_CLAIM: lambda ctx, melded: not ctx.self_drawn and ctx.last_tile,
    F.ROBBING_THE_KONG: lambda ctx, melded: not ctx.self_drawn and ctx.kong,
    F.FULLY_CONCEALED_HAND: lambda ctx, melded: ctx.self_drawn and melded == 0,
    F.CONCEALED_HAND: lambda ctx, melded: not ctx.self_drawn and melded == 0,
    F.MELDED_HAND: lambda ctx, melded: not ctx.self_drawn and melded == 4,
}
