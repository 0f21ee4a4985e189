"""Score a winning hand by the GB (MCR) fans: ``score(hand, ctx) -> Score``.

The hand is read every way it can be (special forms, every regular split); each reading collects its
fans from the checks (``game.fans.checks``), the principles decide which count
(``game.fans.principles``), and the best reading wins. Flowers are added last (R98 #81).
"""

from __future__ import annotations

from dataclasses import dataclass

from game.fans import table as F
from game.fans.checks import (
    CHOW,
    CONCEALED_PUNGS,
    HAND,
    KONG,
    KONGS,
    PUNG,
    PUNG_SINGLES,
    SHAPES,
    WIN,
)
from game.fans.context import HandError, WinContext, validate
from game.fans.decompose import (
    formal_waits,
    honors_and_knitted,
    is_complete as _counts_complete,
    is_seven_pairs,
    is_thirteen_orphans,
    knitted_in,
    regular_splits,
)
from game.fans.principles import better, combine_chows, combine_pungs, exclude, total
from game.fans.table import FANS
from game.hand import CHOW as MELD_CHOW, KONG as MELD_KONG, Hand
from game.rules import Rules
from game.tiles import NUM_KINDS, WINDS, format_tiles, tile_name

_MELD_KIND = {MELD_CHOW: CHOW, MELD_KONG: KONG}


@dataclass(frozen=True, slots=True)
class FanScore:
    id: int
    name: str
    name_en: str
    points: int  # per occurrence
    count: int
    sets: tuple[str, ...]  # the sets that formed it; () for the whole hand


@dataclass(frozen=True, slots=True)
class Score:
    fans: tuple[FanScore, ...]
    total: int
    total_without_flowers: int
    form: str  # regular, seven_pairs, thirteen_orphans, honors_and_knitted, knitted_straight
    groups: tuple[str, ...]  # the reading that scored: sets and pair in notation

    def counts(self) -> dict[int, int]:
        return {f.id: f.count for f in self.fans}


class _Facts:
    """What every reading of one hand shares: tiles present, win fans, waits."""

    __slots__ = ("ctx", "melds", "standing", "kinds", "win_fans", "melded", "tile_hog", "unique_wait")

    def __init__(self, hand: Hand, ctx: WinContext, all_counts: list[int]):
        self.ctx = ctx
        self.melds = [(m.tile, _MELD_KIND.get(m.kind, PUNG), m.is_melded) for m in hand.melds]
        standing = [0] * NUM_KINDS
        for t in hand.tiles:
            standing[t] += 1
        self.unique_wait = len(formal_waits(tuple(standing))) == 1
        standing[ctx.win_tile] += 1
        self.standing = tuple(standing)
        self.kinds = frozenset(t for t in range(NUM_KINDS) if all_counts[t])
        self.melded = sum(1 for m in hand.melds if m.is_melded)
        kongs = sum(1 for m in hand.melds if m.kind == MELD_KONG)
        self.tile_hog = all_counts.count(4) - kongs  # R98 #64: four copies used without a kong
        win_fans = {fan: [()] for fan, test in HAND.items() if test(self.kinds)}
        # 和绝张 is also certain when the winner's own melds show the other three copies (decisions.md 4).
        in_melds = sum(x == ctx.win_tile for m in hand.melds for x in m.tiles)
        if ctx.fourth_tile or in_melds == 3:
            win_fans[F.LAST_TILE] = [()]
        self.win_fans = win_fans


def _common(facts: _Facts, melded: int) -> dict[int, list]:
    found = {fan: list(occ) for fan, occ in facts.win_fans.items()}
    for fan, test in WIN.items():
        if test(facts.ctx, melded):
            found[fan] = [()]
    if facts.tile_hog > 0:
        found[F.TILE_HOG] = [()] * facts.tile_hog
    return found


def _set_fans(found: dict, groups: list, facts: _Facts) -> None:
    """Fans of the sets of a regular or 组合龙 reading: combinations, single pungs, kongs."""
    ctx = facts.ctx
    seat, prevalent = WINDS[ctx.seat_wind], WINDS[ctx.prevalent_wind]
    chows, pungs = [], []
    melded_kongs = concealed_kongs = concealed_pungs = 0
    win = ctx.win_tile
    # R98 #33/#66 and fans.md §2.9: a pung completed by a discard is melded, unless the winning tile
    # can be read as part of a concealed chow.
    demote = not ctx.self_drawn and not any(
        kind == CHOW and not melded and tile <= win <= tile + 2 for tile, kind, melded in groups[:-1])
    for i, (tile, kind, melded) in enumerate(groups[:-1]):
        if kind == CHOW:
            chows.append((tile, i))
            continue
        pungs.append((tile, i))
        for fan, test in PUNG_SINGLES.items():
            if test(tile, seat, prevalent):
                found.setdefault(fan, []).append((i,))
        if kind == KONG:
            if melded:
                melded_kongs += 1
            else:
                concealed_kongs += 1
                concealed_pungs += 1
        elif not melded and not (demote and tile == win):
            concealed_pungs += 1
    for fan, occ in (*combine_chows(sorted(chows)), *combine_pungs(sorted(pungs))):
        found.setdefault(fan, []).append(occ)
    kong_sets = tuple(i for i, g in enumerate(groups[:-1]) if g[1] == KONG)
    for fan, test in KONGS.items():
        if test(melded_kongs, concealed_kongs):
            found[fan] = [kong_sets]
    for fan, test in CONCEALED_PUNGS.items():
        if test(concealed_pungs):
            found[fan] = [tuple(i for i, g in enumerate(groups[:-1]) if g[1] != CHOW and not g[2])]


def _wait_fan(groups: list, first_concealed: int, win: int):
    """R98 #77-79 on a unique wait: where the winning tile sits among the concealed sets
    (边张 > 嵌张 > 单钓将, fans.md §2.6)."""
    edge = closed = single = None
    for i in range(first_concealed, len(groups)):
        tile, kind, _ = groups[i]
        if i == len(groups) - 1:
            if tile == win:
                single = i
        elif kind == CHOW:
            if tile + 1 == win:
                closed = i
            elif tile == win or tile + 2 == win:
                edge = i
    if edge is not None:
        return F.EDGE_WAIT, (edge,)
    if closed is not None:
        return F.CLOSED_WAIT, (closed,)
    if single is not None:
        return F.SINGLE_WAIT, (single,)
    return None


def _regular(facts: _Facts, split) -> tuple[dict, list]:
    sets, pair = split
    groups = list(facts.melds) + [(tile, kind, False) for tile, kind in sets] + [(pair, None, False)]
    found = _common(facts, facts.melded)
    _set_fans(found, groups, facts)
    body = groups[:-1]
    for fan, test in SHAPES.items():
        if test(body, pair):
            found[fan] = [()]
    if facts.unique_wait:
        wait = _wait_fan(groups, len(facts.melds), facts.ctx.win_tile)
        if wait is not None:
            found[wait[0]] = [wait[1]]
    if not facts.melds and _is_nine_gates(facts):
        found[F.NINE_GATES] = [()]
    return exclude(found), groups


def _is_nine_gates(facts: _Facts) -> bool:
    # R98 #4: 1112345678999 of one suit, concealed, waiting on any tile of that suit.
    win = facts.ctx.win_tile
    if win >= 27:
        return False
    base = win - win % 9
    held = list(facts.standing)
    held[win] -= 1
    return all(held[base + r] == (3 if r in (0, 8) else 1) for r in range(9)) and sum(held) == 13


def _special(facts: _Facts) -> tuple[dict, list, str] | None:
    """The forms other than a regular split: 七对/连七对, 全不靠/七星不靠, 十三幺, 组合龙 forms."""
    counts = facts.standing
    if not facts.melds:
        if is_seven_pairs(counts):
            found = _common(facts, 0)
            found[F.SEVEN_SHIFTED_PAIRS if _is_shifted_pairs(counts) else F.SEVEN_PAIRS] = [()]
            return exclude(found), [], "seven_pairs"
        if honors_and_knitted(counts):
            found = _common(facts, 0)
            honors = sum(counts[27:])
            if honors == 7:
                found[F.GREATER_HONORS_AND_KNITTED] = [()]
            else:
                found[F.LESSER_HONORS_AND_KNITTED] = [()]
                if honors == 5:
                    found[F.KNITTED_STRAIGHT] = [()]
            return exclude(found), [], "honors_and_knitted"
        if is_thirteen_orphans(counts):
            found = _common(facts, 0)
            found[F.THIRTEEN_ORPHANS] = [()]
            return exclude(found), [], "thirteen_orphans"
    if len(facts.melds) <= 1:
        return _knitted_straight(facts)
    return None


def _is_shifted_pairs(counts) -> bool:
    # R98 #6: seven pairs of one suit on seven consecutive ranks.
    present = [t for t in range(NUM_KINDS) if counts[t]]
    return (len(present) == 7 and present[-1] < 27 and present[-1] - present[0] == 6
            and present[0] // 9 == present[-1] // 9)


def _knitted_straight(facts: _Facts):
    """R98 #35 as a regular form: the nine knitted tiles stand for three sets (fans.md §2.7)."""
    counts = facts.standing
    knitted = knitted_in(counts)
    if knitted is None:
        return None
    rest = list(counts)
    for t in knitted:
        rest[t] -= 1
    splits = regular_splits(tuple(rest))
    if len(splits) != 1:
        return None
    sets, pair = splits[0]
    groups = list(facts.melds) + [(tile, kind, False) for tile, kind in sets] + [(pair, None, False)]
    found = _common(facts, facts.melded)
    found[F.KNITTED_STRAIGHT] = [()]
    _set_fans(found, groups, facts)
    if SHAPES[F.ALL_CHOWS](groups[:-1], pair):
        found[F.ALL_CHOWS] = [()]
    win = facts.ctx.win_tile
    if not facts.melds:
        waits = list(rest)
        waits[win] -= 1
        if len(formal_waits(tuple(waits))) == 1:
            wait = _wait_fan(groups, 0, win)
            if wait is not None:
                found[wait[0]] = [wait[1]]
    elif win not in knitted or counts[win] == 3:
        # With a declared set the only wait left is the pair (KNITTED_STRAIGHT_BODY_WITH_ECS).
        found[F.SINGLE_WAIT] = [(len(groups) - 1,)]
    return exclude(found), groups, "knitted_straight"


def _group_text(group, win_tile) -> str:
    tile, kind, melded = group
    if kind is None:
        body = format_tiles((tile, tile))
    elif kind == CHOW:
        body = format_tiles((tile, tile + 1, tile + 2))
    else:
        body = format_tiles((tile,) * (4 if kind == KONG else 3))
    if kind == KONG and not melded:
        return "{" + body + "}"
    return "[" + body + "]" if melded else body


def score(hand: Hand, ctx: WinContext) -> Score:
    """Score a win. Raises ``HandError`` for impossible input or a hand that does not win."""
    all_counts = validate(hand, ctx)
    facts = _Facts(hand, ctx, all_counts)
    best = None
    best_total = 0
    best_groups: list = []
    form = "regular"
    seven = False
    special = _special(facts)
    if special is not None:
        best, best_groups, form = special
        best_total = total(best)
        seven = F.SEVEN_PAIRS in best
    if best is None or seven:
        for split in regular_splits(facts.standing):
            found, groups = _regular(facts, split)
            found_total = total(found)
            if best is None or better(found, found_total, best_total, seven):
                best, best_total, best_groups, form = found, found_total, groups, "regular"
    if best is None:
        raise HandError("hand/not_winning", f"{_describe(hand, ctx)} is not a complete hand")
    texts = [_group_text(g, ctx.win_tile) for g in best_groups]
    fans = []
    for fan in sorted(best, key=lambda f: (-FANS[f].points, f)):
        occurrences = best[fan]
        d = FANS[fan]
        sets = tuple(dict.fromkeys(texts[i] for occ in occurrences for i in occ))
        fans.append(FanScore(fan, d.name, d.name_en, d.points, len(occurrences), sets))
    if ctx.flowers:
        d = FANS[F.FLOWER_TILES]
        fans.append(FanScore(F.FLOWER_TILES, d.name, d.name_en, d.points, ctx.flowers, ()))
    return Score(tuple(fans), best_total + ctx.flowers, best_total, form, tuple(texts))


def _describe(hand: Hand, ctx: WinContext) -> str:
    from game.hand import format_hand

    return format_hand(hand, ctx.win_tile)


def is_complete(hand: Hand, win_tile: int) -> bool:
    """Whether the hand plus the winning tile has a winning shape (any form, fans not counted)."""
    standing = [0] * NUM_KINDS
    for t in (*hand.tiles, win_tile):
        standing[t] += 1
    if any(n > 4 for n in standing):
        return False
    return _counts_complete(standing, len(hand.melds))


def is_winning(hand: Hand, ctx: WinContext, rules: Rules) -> bool:
    """Complete, and meeting the rules' minimum without flowers (R98 第十条, decisions.md item 6)."""
    if not is_complete(hand, ctx.win_tile):
        return False
    if rules.min_fan <= 0 or not rules.count_fans:
        try:
            validate(hand, ctx)
        except HandError:
            return False
        return True
    try:
        return score(hand, ctx).total_without_flowers >= rules.min_fan
    except HandError:
        return False


__all__ = ["FanScore", "HandError", "Score", "WinContext", "is_complete", "is_winning", "score", "tile_name"]
