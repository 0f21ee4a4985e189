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

from game.fans import table as F
from game.tiles import GREEN_TILES, REVERSIBLE_TILES, WINDS

CHOW, PUNG, KONG = 1, 0, 2  # set kinds in a reading; pung sorts before chow as in the reference

WIND_SET = frozenset(WINDS)


def _suit(t):
    return t // 9


def _start(t):  # 0-based rank
    return t % 9


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


def _chow_tiles(s):
    return (s[0], s[0] + 1, s[0] + 2) if s[1] == CHOW else (s[0],)


def _all_sets(sets, pair, test):
    return all(any(test(t) for t in _chow_tiles(s)) for s in sets) and test(pair)


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
    F.OUTSIDE_HAND: lambda sets, pair: _all_sets(sets, pair, lambda t: t >= 27 or t % 9 in (0, 8)),
    F.ALL_FIVE: lambda sets, pair: _all_sets(sets, pair, lambda t: t < 27 and t % 9 == 4),
    F.ALL_EVEN_PUNGS: lambda sets, pair: len(sets) == 4 and all(s[1] != CHOW for s in sets) and all(
        t < 27 and t % 9 % 2 == 1 for t in (*_pungs(sets), pair)),
    F.PURE_TERMINAL_CHOWS: _pure_terminal_chows,
    F.THREE_SUITED_TERMINAL_CHOWS: _three_suited_terminal_chows,
}

# -- whole-hand fans ---------------------------------------------------------------------------
# Read on the set of tile kinds present anywhere in the hand (``kinds``, a frozenset).


def _suits(kinds):
    return {_suit(t) for t in kinds if t < 27}


def _has_honor(kinds):
    return any(t >= 27 for t in kinds)


def _ranks(kinds):
    """Ranks 1..9 of the number tiles, or None when there are honors."""
    if _has_honor(kinds):
        return None
    return {t % 9 + 1 for t in kinds}


def _terminal(t):
    return t < 27 and t % 9 in (0, 8)


HAND = {
    F.NO_HONORS: lambda kinds: not _has_honor(kinds),
    F.ONE_VOIDED_SUIT: lambda kinds: len(_suits(kinds)) == 2,
    F.HALF_FLUSH: lambda kinds: len(_suits(kinds)) == 1 and _has_honor(kinds),
    F.FULL_FLUSH: lambda kinds: len(_suits(kinds)) == 1 and not _has_honor(kinds),
    F.ALL_TYPES: lambda kinds: len(_suits(kinds)) == 3 and any(27 <= t < 31 for t in kinds) and any(
        t >= 31 for t in kinds),
    F.ALL_SIMPLES: lambda kinds: all(t < 27 and t % 9 not in (0, 8) for t in kinds),
    F.REVERSIBLE_TILES: lambda kinds: kinds <= REVERSIBLE_TILES,
    F.ALL_GREEN: lambda kinds: kinds <= GREEN_TILES,
    F.ALL_HONORS: lambda kinds: all(t >= 27 for t in kinds),
    F.ALL_TERMINALS: lambda kinds: all(_terminal(t) for t in kinds),
    F.ALL_TERMINALS_AND_HONORS: lambda kinds: all(t >= 27 or _terminal(t) for t in kinds) and _has_honor(
        kinds) and any(_terminal(t) for t in kinds),
    F.LOWER_FOUR: lambda kinds: (r := _ranks(kinds)) is not None and max(r) <= 4,
    F.LOWER_TILES: lambda kinds: (r := _ranks(kinds)) is not None and max(r) <= 3,
    F.UPPER_FOUR: lambda kinds: (r := _ranks(kinds)) is not None and min(r) >= 6,
    F.UPPER_TILES: lambda kinds: (r := _ranks(kinds)) is not None and min(r) >= 7,
    F.MIDDLE_TILES: lambda kinds: (r := _ranks(kinds)) is not None and r <= {4, 5, 6},
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
# the special forms exclude them by their 不计 lists.

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
