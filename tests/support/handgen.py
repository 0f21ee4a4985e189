"""Seeded random VALID winning hands ``(Hand, WinContext)`` for differential tests.

Hands are built from their sets, never by filtering random tiles, and biased towards themes (one
suit, honors, terminals, ...) and patterns (shifted or identical chows, same-rank pungs, wind and
dragon pungs, ...) so that rare fans occur often. Every hand is valid by construction: at most four
copies of a tile, and win flags consistent with the hand (decisions.md item 5), so our engine must
score it and the reference calculator must accept it.

Usage: ``random_win(random.Random(seed))`` or ``winning_hands(seed, n)``; ``compare(hand, ctx)``
scores a hand with our engine and the reference and describes any disagreement.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterator

from game.fans.context import HandError, WinContext
from game.fans.table import FANS
from game.hand import CHOW, KONG, PUNG, Hand, Meld, format_hand
from game.tiles import (
    DRAGONS,
    GREEN_TILES,
    HONORS,
    KNITTED_STRAIGHTS,
    NUM_KINDS,
    REVERSIBLE_TILES,
    THIRTEEN_ORPHANS,
    WINDS,
    Tile,
    is_honor,
    is_number,
    is_terminal,
    is_terminal_or_honor,
    make,
    rank,
    suit,
    tile_name,
)
from tests.support.reference import reference_fans

# The forms a generated hand is built as (the reference may still score it differently, e.g. a
# 七对 built as pairs that also splits into chows).
REGULAR = "regular"
SEVEN_PAIRS = "seven_pairs"
SEVEN_SHIFTED_PAIRS = "seven_shifted_pairs"
THIRTEEN_ORPHANS_FORM = "thirteen_orphans"
HONORS_AND_KNITTED = "honors_and_knitted"  # 全不靠 (5 or 6 honors)
GREATER_HONORS_AND_KNITTED = "greater_honors_and_knitted"  # 七星不靠
KNITTED_STRAIGHT = "knitted_straight"  # 组合龙 + one set + pair, 0 or 1 meld
NINE_GATES = "nine_gates"

_FORM_WEIGHTS = {
    REGULAR: 72,
    SEVEN_PAIRS: 8,
    SEVEN_SHIFTED_PAIRS: 2,
    THIRTEEN_ORPHANS_FORM: 3,
    HONORS_AND_KNITTED: 3,
    GREATER_HONORS_AND_KNITTED: 2,
    KNITTED_STRAIGHT: 6,
    NINE_GATES: 4,
}
FORMS = tuple(_FORM_WEIGHTS)

Set = tuple[str, Tile]  # (CHOW or PUNG, lowest tile)


@dataclass(frozen=True, slots=True)
class Generated:
    form: str
    theme: str  # the tile theme and pattern used, for reporting
    hand: Hand
    ctx: WinContext


# ---------------------------------------------------------------------------------------------
# Themes: which sets and pairs may be drawn to fill a hand.


@dataclass(frozen=True, slots=True)
class _Theme:
    name: str
    chows: tuple[Tile, ...]
    pungs: tuple[Tile, ...]
    pairs: tuple[Tile, ...]
    chow_weight: float


def _theme(
    name: str,
    tile_ok: Callable[[Tile], bool],
    chow_weight: float = 0.55,
    set_ok: Callable[[tuple[Tile, ...]], bool] | None = None,
    pair_ok: Callable[[Tile], bool] | None = None,
    pungs: bool = True,
    chows: bool = True,
) -> _Theme:
    def ok(tiles: tuple[Tile, ...]) -> bool:
        return all(tile_ok(t) for t in tiles) and (set_ok is None or set_ok(tiles))

    chow_list = tuple(t for t in range(27) if chows and rank(t) <= 7 and ok((t, t + 1, t + 2)))
    pung_list = tuple(t for t in range(NUM_KINDS) if pungs and ok((t, t, t)))
    pair_list = tuple(t for t in range(NUM_KINDS) if tile_ok(t) and (pair_ok is None or pair_ok(t)))
    if not chow_list:
        chow_weight = 0.0
    elif not pung_list:
        chow_weight = 1.0
    return _Theme(name, chow_list, pung_list, pair_list, chow_weight)


def _has_terminal_or_honor(tiles: tuple[Tile, ...]) -> bool:
    return any(is_terminal_or_honor(t) for t in tiles)


def _has_five(tiles: tuple[Tile, ...]) -> bool:
    return any(rank(t) == 5 for t in tiles)


def _ranks(lo: int, hi: int) -> Callable[[Tile], bool]:
    return lambda t: is_number(t) and lo <= rank(t) <= hi


def _build_themes() -> list[tuple[_Theme, int]]:
    themes: list[tuple[_Theme, int]] = [(_theme("any", lambda t: True), 24)]
    for s in range(3):
        themes.append((_theme(f"flush{s}", lambda t, s=s: suit(t) == s), 4))
        themes.append((_theme(f"half-flush{s}", lambda t, s=s: suit(t) in (s, 3), 0.45), 3))
        themes.append((_theme(f"honor-heavy{s}", lambda t, s=s: suit(t) in (s, 3), 0.25), 2))
        others = tuple(x for x in range(3) if x != s)
        themes.append((_theme(f"voided{s}", lambda t, o=others: suit(t) in o), 1))
    themes += [
        (_theme("all-honors", is_honor), 2),
        (_theme("outside", lambda t: True, 0.5, _has_terminal_or_honor, is_terminal_or_honor), 4),
        (_theme("terminals-and-honors", is_terminal_or_honor), 3),
        (_theme("all-terminals", is_terminal), 2),
        (_theme("simples", lambda t: not is_terminal_or_honor(t)), 4),
        (_theme("no-honors", is_number), 3),
        (_theme("upper", _ranks(7, 9)), 2),
        (_theme("middle", _ranks(4, 6)), 2),
        (_theme("lower", _ranks(1, 3)), 2),
        (_theme("upper-four", _ranks(6, 9)), 2),
        (_theme("lower-four", _ranks(1, 4)), 2),
        (_theme("all-five", is_number, 0.6, _has_five, lambda t: rank(t) == 5), 2),
        (_theme("even-pungs", lambda t: is_number(t) and rank(t) % 2 == 0, chows=False), 2),
        (_theme("green", lambda t: t in GREEN_TILES, 0.4), 2),
        (_theme("reversible", lambda t: t in REVERSIBLE_TILES, 0.4), 2),
        (_theme("pungs", lambda t: True, chows=False), 4),
        (_theme("chows", is_number, pungs=False), 4),
    ]
    return themes


_THEMES = _build_themes()
_THEME_LIST = [t for t, _ in _THEMES]
_THEME_WEIGHTS = [w for _, w in _THEMES]
_ANY = _THEME_LIST[0]


def _theme_set(rng: random.Random, theme: _Theme) -> Set:
    if rng.random() < theme.chow_weight:
        return CHOW, rng.choice(theme.chows)
    return PUNG, rng.choice(theme.pungs)


# ---------------------------------------------------------------------------------------------
# Patterns: a few sets (and maybe the pair) placed first, to make multi-set fans frequent.

Pattern = Callable[[random.Random], tuple[list[Set], Tile | None]]


def _p_shifted_chows(rng: random.Random) -> tuple[list[Set], Tile | None]:
    s, step, n = rng.randrange(3), rng.choice((1, 1, 2)), rng.choice((2, 3, 3, 4))
    r = rng.randint(1, 7 - (n - 1) * step)
    return [(CHOW, make(s, r + i * step)) for i in range(n)], None


def _p_identical_chows(rng: random.Random) -> tuple[list[Set], Tile | None]:
    t = make(rng.randrange(3), rng.randint(1, 7))
    return [(CHOW, t)] * rng.choice((2, 2, 3, 4)), None


def _p_mixed_chows(rng: random.Random) -> tuple[list[Set], Tile | None]:
    # Same rank in 2 or 3 suits (喜相逢 / 三色三同顺) or shifted across suits (三色三步高).
    suits = rng.sample(range(3), rng.choice((2, 3, 3)))
    if rng.random() < 0.5:
        r = rng.randint(1, 7)
        return [(CHOW, make(s, r)) for s in suits], None
    r = rng.randint(1, 5)
    return [(CHOW, make(s, r + i)) for i, s in enumerate(suits)], None


def _p_straight(rng: random.Random) -> tuple[list[Set], Tile | None]:
    if rng.random() < 0.5:
        s = rng.randrange(3)
        return [(CHOW, make(s, r)) for r in (1, 4, 7)], None
    suits = rng.sample(range(3), 3)
    return [(CHOW, make(s, 1 + 3 * i)) for i, s in enumerate(suits)], None


def _p_terminal_chows(rng: random.Random) -> tuple[list[Set], Tile | None]:
    s1, s2, s3 = rng.sample(range(3), 3)
    form = rng.randrange(3)
    if form == 0:  # 老少副
        return [(CHOW, make(s1, 1)), (CHOW, make(s1, 7))], None
    if form == 1:  # 一色双龙会
        return [(CHOW, make(s1, 1)), (CHOW, make(s1, 1)), (CHOW, make(s1, 7)), (CHOW, make(s1, 7))], make(s1, 5)
    # 三色双龙会
    return [(CHOW, make(s1, 1)), (CHOW, make(s1, 7)), (CHOW, make(s2, 1)), (CHOW, make(s2, 7))], make(s3, 5)


def _p_short_straight(rng: random.Random) -> tuple[list[Set], Tile | None]:
    s, r = rng.randrange(3), rng.randint(1, 4)
    return [(CHOW, make(s, r)), (CHOW, make(s, r + 3))], None


def _p_same_rank_pungs(rng: random.Random) -> tuple[list[Set], Tile | None]:
    r = rng.randint(1, 9)
    return [(PUNG, make(s, r)) for s in rng.sample(range(3), rng.choice((2, 3)))], None


def _p_shifted_pungs(rng: random.Random) -> tuple[list[Set], Tile | None]:
    if rng.random() < 0.6:
        s, n = rng.randrange(3), rng.choice((3, 3, 4))
        r = rng.randint(1, 10 - n)
        return [(PUNG, make(s, r + i)) for i in range(n)], None
    r = rng.randint(1, 7)
    return [(PUNG, make(s, r + i)) for i, s in enumerate(rng.sample(range(3), 3))], None


def _p_winds(rng: random.Random) -> tuple[list[Set], Tile | None]:
    winds = rng.sample(WINDS, 4)
    n = rng.choice((1, 2, 3, 3, 4))
    pair = winds[n] if n < 4 and rng.random() < 0.5 else None
    return [(PUNG, w) for w in winds[:n]], pair


def _p_dragons(rng: random.Random) -> tuple[list[Set], Tile | None]:
    dragons = rng.sample(DRAGONS, 3)
    n = rng.choice((1, 2, 2, 3))
    pair = dragons[n] if n < 3 and rng.random() < 0.5 else None
    return [(PUNG, d) for d in dragons[:n]], pair


def _p_kongs(rng: random.Random) -> tuple[list[Set], Tile | None]:
    # Pungs only; _regular declares most of them as kongs (三杠, 四杠, 双暗杠 ...).
    return [(PUNG, t) for t in rng.sample(range(NUM_KINDS), rng.choice((2, 3, 4)))], None


_PATTERNS: list[tuple[Pattern | None, int]] = [
    (None, 40),
    (_p_shifted_chows, 8),
    (_p_identical_chows, 6),
    (_p_mixed_chows, 8),
    (_p_straight, 5),
    (_p_terminal_chows, 5),
    (_p_short_straight, 3),
    (_p_same_rank_pungs, 5),
    (_p_shifted_pungs, 5),
    (_p_winds, 5),
    (_p_dragons, 5),
    (_p_kongs, 5),
]
_PATTERN_LIST = [p for p, _ in _PATTERNS]
_PATTERN_WEIGHTS = [w for _, w in _PATTERNS]


# ---------------------------------------------------------------------------------------------
# Forms.


def _set_tiles(s: Set) -> tuple[Tile, ...]:
    kind, t = s
    return (t, t + 1, t + 2) if kind == CHOW else (t, t, t)


def _fits(sets: list[Set], pair: Tile | None, extra: tuple[Tile, ...] = ()) -> list[int] | None:
    """The count array of sets + pair + extra tiles, or None if a tile would exceed 4 copies."""
    c = [0] * NUM_KINDS
    for s in sets:
        for t in _set_tiles(s):
            c[t] += 1
    if pair is not None:
        c[pair] += 2
    for t in extra:
        c[t] += 1
    return None if max(c) > 4 else c


def _declare(rng: random.Random, sets: list[Set], counts: list[int], n: int, kong_p: float) -> list[Meld]:
    """Turn n of the sets into declared melds, some pungs into melded or concealed kongs."""
    melds = []
    for kind, t in rng.sample(sets, n):
        if kind == CHOW:
            melds.append(Meld(CHOW, t, claimed=t + rng.randrange(3)))
        elif counts[t] == 3 and rng.random() < kong_p:
            counts[t] = 4
            concealed = rng.random() < 0.4
            melds.append(Meld(KONG, t, concealed=concealed))
        else:
            melds.append(Meld(PUNG, t))
    return melds


def _remove_sets(sets: list[Set], melds: list[Meld]) -> list[Set]:
    rest = list(sets)
    for m in melds:
        rest.remove((CHOW if m.kind == CHOW else PUNG, m.tile))
    return rest


def _regular(rng: random.Random) -> tuple[str, list[Meld], list[Tile]]:
    for _ in range(100):
        theme = rng.choices(_THEME_LIST, _THEME_WEIGHTS)[0]
        pattern = rng.choices(_PATTERN_LIST, _PATTERN_WEIGHTS)[0]
        sets, pair = pattern(rng) if pattern else ([], None)
        while len(sets) < 4:
            sets.append(_theme_set(rng, theme))
        if pair is None:
            pair = rng.choice(theme.pairs)
        counts = _fits(sets, pair)
        if counts is not None:
            break
    else:  # pragma: no cover - the themes above always fit within a few tries
        raise RuntimeError("could not build a regular hand")
    kongs = pattern is _p_kongs
    n = rng.choices((0, 1, 2, 3, 4), (34, 22, 18, 12, 14))[0]
    kong_p = 0.85 if kongs or rng.random() < 0.08 else 0.15
    if kongs:
        n = max(n, rng.randint(2, 4))
    melds = _declare(rng, sets, counts, n, kong_p)
    standing = [t for s in _remove_sets(sets, melds) for t in _set_tiles(s)] + [pair, pair]
    name = f"{theme.name}/{pattern.__name__[3:] if pattern else '-'}"
    return name, melds, standing


def _seven_pairs(rng: random.Random) -> tuple[str, list[Meld], list[Tile]]:
    theme = rng.choices(_THEME_LIST, _THEME_WEIGHTS)[0]
    while len(theme.pairs) < 4:  # at most two pairs of a kind: 4 kinds are needed
        theme = rng.choices(_THEME_LIST, _THEME_WEIGHTS)[0]
    pairs: Counter = Counter()
    if theme.chows and rng.random() < 0.35:
        # Doubled chows (445566) also split as a regular hand: the reference prefers that split
        # over 七对 on equal totals, a tie-break worth exercising.
        for t in rng.sample(theme.chows, min(len(theme.chows), rng.choice((1, 1, 2)))):
            if all(pairs[x] < 2 for x in (t, t + 1, t + 2)):
                pairs.update((t, t + 1, t + 2))
    doubles = rng.choices((0, 1, 2), (75, 20, 5))[0]  # four of a kind as two pairs
    fresh = [t for t in theme.pairs if t not in pairs]
    rng.shuffle(fresh)
    while sum(pairs.values()) < 7 - doubles and fresh:
        pairs[fresh.pop()] += 1
    while sum(pairs.values()) < 7:
        pairs[rng.choice([t for t in theme.pairs if pairs[t] < 2])] += 1
    return theme.name, [], [t for t, n in pairs.items() for _ in range(2 * n)]


def _seven_shifted_pairs(rng: random.Random) -> tuple[str, list[Meld], list[Tile]]:
    s, r = rng.randrange(3), rng.randint(1, 3)
    return "-", [], [make(s, r + i) for i in range(7) for _ in range(2)]


def _thirteen_orphans(rng: random.Random) -> tuple[str, list[Meld], list[Tile]]:
    return "-", [], list(THIRTEEN_ORPHANS) + [rng.choice(THIRTEEN_ORPHANS)]


def _knitted(rng: random.Random, honors: int) -> tuple[str, list[Meld], list[Tile]]:
    straight = rng.choice(KNITTED_STRAIGHTS)
    return "-", [], rng.sample(straight, 14 - honors) + rng.sample(HONORS, honors)


def _knitted_straight(rng: random.Random) -> tuple[str, list[Meld], list[Tile]]:
    straight = rng.choice(KNITTED_STRAIGHTS)
    while True:
        theme = rng.choices(_THEME_LIST, _THEME_WEIGHTS)[0]
        sets, pair = [_theme_set(rng, theme)], rng.choice(theme.pairs)
        counts = _fits(sets, pair, straight)
        if counts is not None:
            break
    melds = _declare(rng, sets, counts, int(rng.random() < 0.4), 0.3)
    standing = list(straight) + [pair, pair] + [t for s in _remove_sets(sets, melds) for t in _set_tiles(s)]
    return theme.name, melds, standing


def _nine_gates(rng: random.Random) -> tuple[str, list[Meld], list[Tile]]:
    s = rng.randrange(3)
    extra = make(s, rng.randint(1, 9))
    return "-", [], [make(s, r) for r in (1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9)] + [extra]


_BUILDERS: dict[str, Callable[[random.Random], tuple[str, list[Meld], list[Tile]]]] = {
    REGULAR: _regular,
    SEVEN_PAIRS: _seven_pairs,
    SEVEN_SHIFTED_PAIRS: _seven_shifted_pairs,
    THIRTEEN_ORPHANS_FORM: _thirteen_orphans,
    HONORS_AND_KNITTED: lambda rng: _knitted(rng, rng.choice((5, 6))),
    GREATER_HONORS_AND_KNITTED: lambda rng: _knitted(rng, 7),
    KNITTED_STRAIGHT: _knitted_straight,
    NINE_GATES: _nine_gates,
}


# ---------------------------------------------------------------------------------------------
# The winning tile and the win flags.


def _context(rng: random.Random, melds: list[Meld], tiles: list[Tile], win: Tile) -> WinContext:
    held = tiles.count(win)
    melded = sum(x == win for m in melds for x in m.tiles)
    self_drawn = rng.random() < 0.45
    kong = False
    if self_drawn:
        # 杠上开花 needs a declared kong (the winner's replacement draw).
        kong = any(m.kind == KONG for m in melds) and rng.random() < 0.3
    elif held == 0 and melded == 0:
        # 抢杠和: the other three copies are the robbed kong, so the winner has none.
        kong = rng.random() < 0.12
    robbed = kong and not self_drawn
    # 海底捞月 and 抢杠和 cannot meet: no kong after the last tile.
    last_tile = not robbed and rng.random() < 0.08
    # 和绝张: three copies visible on the table, so none concealed in the winner's hand.
    fourth_tile = held == 0 and rng.random() < (0.5 if robbed else 0.2)
    return WinContext(
        win_tile=win,
        self_drawn=self_drawn,
        fourth_tile=fourth_tile,
        kong=kong,
        last_tile=last_tile,
        seat_wind=rng.randrange(4),
        prevalent_wind=rng.randrange(4),
        flowers=0 if rng.random() < 0.5 else rng.randint(1, 8),
    )


def random_generated(rng: random.Random, form: str | None = None) -> Generated:
    """One random valid winning hand, with the form and theme it was built from."""
    if form is None:
        form = rng.choices(FORMS, [_FORM_WEIGHTS[f] for f in FORMS])[0]
    theme, melds, standing = _BUILDERS[form](rng)
    if form == NINE_GATES and rng.random() < 0.7:
        win = standing[-1]  # the extra tile, so the 13 standing tiles are 1112345678999
    else:
        win = rng.choice(standing)
    standing.remove(win)
    hand = Hand(tuple(melds), tuple(sorted(standing)))
    return Generated(form, theme, hand, _context(rng, melds, standing, win))


def random_win(rng: random.Random, form: str | None = None) -> tuple[Hand, WinContext]:
    g = random_generated(rng, form)
    return g.hand, g.ctx


def winning_hands(seed: int, n: int) -> Iterator[Generated]:
    rng = random.Random(seed)
    for _ in range(n):
        yield random_generated(rng)


def copies(hand: Hand, ctx: WinContext) -> list[int]:
    """Count array of every tile of the hand: melds, standing tiles and the winning tile."""
    c = [0] * NUM_KINDS
    for t in (*hand.tiles, ctx.win_tile, *(x for m in hand.melds for x in m.tiles)):
        c[t] += 1
    return c


def reference_accepts(hand: Hand, ctx: WinContext) -> bool:
    """Whether the reference calculator scores the hand (it raises TypeError when it rejects it)."""
    try:
        reference_fans(hand, ctx)
    except TypeError:
        return False
    return True


# ---------------------------------------------------------------------------------------------
# Comparison of our engine with the reference, shared by the differential test and the bench.


@dataclass(frozen=True, slots=True)
class Disagreement:
    hand: Hand
    ctx: WinContext
    ours_total: int | None  # None when our engine raised
    ours: Counter
    ref_total: int
    ref: Counter
    error: str | None = None

    @property
    def same_total(self) -> bool:
        return self.ours_total == self.ref_total

    @property
    def kind(self) -> str:
        """The class of the disagreement: +id for fans only we score (or score more often), -id for
        fans only the reference scores; an error code when our engine rejected the hand."""
        if self.error is not None:
            return f"error {self.error}"
        diff = [f"+{i}" for i in sorted(self.ours - self.ref)] + [f"-{i}" for i in sorted(self.ref - self.ours)]
        return " ".join(diff) or "total only"

    def __str__(self) -> str:
        ours = f"error {self.error}" if self.error else f"total {self.ours_total}: {format_fans(self.ours)}"
        return (
            f"hand:      {format_hand(self.hand, self.ctx.win_tile)}\n"
            f"context:   {format_context(self.ctx)}\n"
            f"ours:      {ours}\n"
            f"reference: total {self.ref_total}: {format_fans(self.ref)}\n"
            f"class:     {self.kind}"
        )


def format_fans(fans: Counter | dict) -> str:
    return ", ".join(
        f"{i} {FANS[i].name}" + (f"×{n}" if n != 1 else "") for i, n in sorted(fans.items()) if n
    ) or "(none)"


def format_context(ctx: WinContext) -> str:
    flags = [
        "self-drawn" if ctx.self_drawn else "discard",
        *(name for name, on in (("4th-tile", ctx.fourth_tile), ("kong", ctx.kong), ("last-tile", ctx.last_tile)) if on),
        f"seat {'ESWN'[ctx.seat_wind]}",
        f"prevalent {'ESWN'[ctx.prevalent_wind]}",
        f"flowers {ctx.flowers}",
    ]
    return f"win {tile_name(ctx.win_tile)}, " + ", ".join(flags)


def compare(hand: Hand, ctx: WinContext) -> Disagreement | None:
    """Score with our engine and the reference; None when totals and fan multisets agree."""
    from game.scoring import score  # imported late: the generator works without the engine

    ref_total, ref = reference_fans(hand, ctx)
    try:
        result = score(hand, ctx)
    except HandError as e:
        return Disagreement(hand, ctx, None, Counter(), ref_total, ref, e.code)
    ours = Counter({i: n for i, n in result.counts().items() if n})
    ref = Counter({i: n for i, n in ref.items() if n})
    if result.total == ref_total and ours == ref:
        return None
    return Disagreement(hand, ctx, result.total, ours, ref_total, ref)
