"""Score a winning hand by the GB (MCR) fans: ``score(hand, ctx) -> Score``.

The hand is read every way it can be (special forms, every regular split); each reading collects its
fans from the checks (``game.fans.checks``), the principles decide which count
(``game.fans.principles``), and the best reading wins. Flowers are added last (R98 #81).

For speed (bench/fans.py): what every reading of a hand shares is worked out once (``_Facts``), the
hand is read suit by suit through cached ``Suit``s (``game.fans.decompose``), and the check tables
are compiled at import into lookups (single pungs, kongs, whole-hand fans by parts, shape checks by
what they need), so a reading runs only the checks that can hold. No cache is keyed on a whole hand.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from game.fans import table as F
from game.fans.checks import (
    ANY_SETS,
    CHOW,
    CONCEALED_PUNGS,
    HAND,
    KONG,
    KONGS,
    NO_CHOWS,
    NO_PUNGS,
    PUNG,
    PUNG_SINGLES,
    SHAPE_NEEDS,
    SUIT_MASKS,
    SHAPES,
    WIN,
)
from game.fans.context import HandError, WinContext, check_flags, ordinary, validate
from game.fans.decompose import (
    formal_waits,
    honors_and_knitted,
    is_complete as _counts_complete,
    is_thirteen_orphans,
    knitted_in,
    regular_splits,
    regular_waits,
    splits_of,
    suit_of_tiles,
    suits_of_tiles,
)
from game.fans.principles import better, combine_chows, combine_pungs, exclude, total
from game.fans.table import FANS
from game.hand import CHOW as MELD_CHOW, KONG as MELD_KONG, Hand, Meld
from game.rules import Rules
from game.tiles import NUM_KINDS, WINDS, format_tiles, tile_name

_MELD_KIND = {MELD_CHOW: CHOW, MELD_KONG: KONG}
_WHOLE = ((),)  # the occurrences of a fan of the whole hand


@dataclass(frozen=True, slots=True)
class FanScore:
    """One scored fan. Callers read it by field name, so that a field added later breaks none of them."""
    id: int | None  # R98 fan number 1-81; None for a fan outside the 81 (game.extra_fans)
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
    pair: int | None = None  # the pair of a regular or 组合龙 reading (大众馆's 258将 reads it)

    def counts(self) -> dict[int, int]:
        return {f.id: f.count for f in self.fans}


# A frozen dataclass's __init__ sets each field through object.__setattr__; a Score is built once per
# hand, so _new_score fills its slots directly through their descriptors (the same object, at half
# the cost).
_SCORE_FIELDS = ("fans", "total", "total_without_flowers", "form", "groups", "pair")
assert tuple(Score.__dataclass_fields__) == _SCORE_FIELDS
_set_fans_slot, _set_total, _set_total_without_flowers, _set_form, _set_groups, _set_pair = (
    Score.__dict__[name].__set__ for name in _SCORE_FIELDS)


def _new_score(fans: tuple, total: int, total_without_flowers: int, form: str, groups: tuple,
               pair: int | None) -> Score:
    s = object.__new__(Score)
    _set_fans_slot(s, fans)
    _set_total(s, total)
    _set_total_without_flowers(s, total_without_flowers)
    _set_form(s, form)
    _set_groups(s, groups)
    _set_pair(s, pair)
    return s


# -- lookup tables compiled once from the check tables (game.fans.checks) --------------------------
# Each keeps the checks' own answers, so a reading looks a fan up instead of calling every check.

# The single-pung fans of each tile, for each seat wind and prevalent wind.
_PUNG_SINGLES = tuple(
    tuple(tuple(fan for fan, test in PUNG_SINGLES.items() if test(t, WINDS[seat], WINDS[prevalent]))
          for t in range(NUM_KINDS))
    for seat in range(4) for prevalent in range(4))  # at seat * 4 + prevalent
# The kong fans by (melded kongs, concealed kongs), the concealed-pung fans by their count.
_KONG_FANS = tuple(tuple(tuple(fan for fan, test in KONGS.items() if test(m, c)) for c in range(5)) for m in range(5))
# The kongs a kong fan names in its sets: 明杠/双明杠 (R98 #74/#57) only the melded ones, 暗杠/双暗杠
# (#67/#53) only the concealed ones, 三杠/四杠 all of them.
_MELDED_ONLY = frozenset((F.MELDED_KONG, F.TWO_MELDED_KONGS))
_CONCEALED_ONLY = frozenset((F.CONCEALED_KONG, F.TWO_CONCEALED_KONGS))
_CONCEALED_PUNG_FANS = tuple(tuple(fan for fan, test in CONCEALED_PUNGS.items() if test(n)) for n in range(5))
# The shape checks worth running, by the kinds of a reading's sets and its pair (SHAPE_NEEDS).
_SHAPE_TESTS = {
    kinds: tuple(
        tuple((fan, SHAPES[fan]) for fan, (need, pairs) in SHAPE_NEEDS.items()
              if (need == ANY_SETS or need == kinds) and pair in pairs)
        for pair in range(NUM_KINDS))
    for kinds in (ANY_SETS, NO_CHOWS, NO_PUNGS)
}


# The whole-hand fans (HAND, data) read part by part: a part's tiles (a suit, or a meld) stay within
# some of the fans' ``only`` masks and touch some of their ``needs`` (and suits); a hand stays within
# what all its parts stay within and touches what any touches. Few keys, so both steps are cached.
_ONLY_MASKS = tuple(sorted({w.only for w in HAND.values()}))
_NEED_MASKS = tuple(sorted({need for w in HAND.values() for need in w.needs} | set(SUIT_MASKS)))
_SUIT_NEEDS = tuple(1 << _NEED_MASKS.index(m) for m in SUIT_MASKS)


@lru_cache(maxsize=4096)
def _features(bits: int) -> tuple[int, int]:
    """(the only-masks these tiles stay within, the need-masks they touch), as bit sets."""
    within = sum(1 << i for i, only in enumerate(_ONLY_MASKS) if bits & ~only == 0)
    touches = sum(1 << i for i, need in enumerate(_NEED_MASKS) if bits & need)
    return within, touches


@lru_cache(maxsize=1024)
def _hand_fans(within: int, touches: int) -> tuple:
    """The whole-hand fans of a hand with these features, as (fan, occurrences)."""
    suits = sum(1 for bit in _SUIT_NEEDS if touches & bit)
    return tuple(
        (fan, _WHOLE) for fan, w in HAND.items()
        if within >> _ONLY_MASKS.index(w.only) & 1
        and all(touches >> _NEED_MASKS.index(need) & 1 for need in w.needs)
        and (w.suits is None or w.suits == suits))


@lru_cache(maxsize=512)
def _win_fans(last_tile: bool, self_drawn: bool, kong: bool, wall_last: bool, melded: int, tile_hog: int) -> tuple:
    """The fans of how the hand was won, as (fan, occurrences): 和绝张, the WIN checks (which read
    only these flags, see game.fans.checks) and 四归一. Few keys (some hundreds)."""
    found = {F.LAST_TILE: _WHOLE} if last_tile else {}
    ctx = WinContext(0, self_drawn, False, kong, wall_last)
    for fan, test in WIN.items():
        if test(ctx, melded):
            found[fan] = _WHOLE
    if tile_hog > 0:  # R98 #64: four copies used without a kong
        found[F.TILE_HOG] = _WHOLE * tile_hog
    return tuple(found.items())


# The suit of each tile in a ``suits`` tuple (3 = honors, from tile 27 = 3 * 9 too).
_PART = tuple(min(t // 9, 3) for t in range(NUM_KINDS))
_BYTES = tuple(bytes((t,)) for t in range(NUM_KINDS))  # each tile as a byte string
# R98 #4 九莲宝灯: 1112345678999 of one suit plus any tile of it, as the suit's key for each winning rank.
_NINE_GATES = tuple(tuple(n + (r == w) for r, n in enumerate((3, 1, 1, 1, 1, 1, 1, 1, 3))) for w in range(9))


class _Unusual(Exception):
    """The input is not the ordinary kind ``_Facts`` reads fast: ``validate`` decides."""


class _Facts:
    """What every reading of one hand shares, computed once per hand.

    Raises ``_Unusual`` unless the input passes ``ordinary`` (every check of ``validate`` but the
    copies) and no tile has more than four copies, counted here on the suits and the melds."""

    __slots__ = ("self_drawn", "win", "melds", "base", "singles", "parts", "nine_gates", "_unique_wait")

    def __init__(self, hand: Hand, ctx: WinContext):
        tiles = ordinary(hand, ctx)
        if tiles is None:
            raise _Unusual
        parts = self.parts = suits_of_tiles(tiles)
        a, b, c, d = parts
        if a.most > 4 or b.most > 4 or c.most > 4 or d.most > 4:
            raise _Unusual
        self.self_drawn = ctx.self_drawn
        win = self.win = ctx.win_tile
        self._unique_wait = None
        self.singles = _PUNG_SINGLES[ctx.seat_wind * 4 + ctx.prevalent_wind]
        wa, ta = _features(a.bits)
        wb, tb = _features(b.bits)
        wc, tc = _features(c.bits)
        wd, td = _features(d.bits)
        within, touches = wa & wb & wc & wd, ta | tb | tc | td
        fours = a.fours + b.fours + c.fours + d.fours  # tiles used four times (for 四归一)
        melded = kongs = 0
        in_melds = 0  # copies of the winning tile in the melds
        if hand.melds:
            groups, w, t, in_melds, melded, kongs, more_fours = _meld_facts(hand.melds, parts, win)
            within &= w
            touches |= t
            fours += more_fours
            self.melds = groups
            self.nine_gates = False
        else:
            self.melds = ()
            self.nine_gates = win < 27 and parts[win // 9].key == _NINE_GATES[win % 9]
        if ctx.fourth_tile or ctx.kong:
            check_flags(hand, ctx)  # validate's last check, after the copies

        # The fans of the whole hand, shared by every reading (the special forms have no melds, so
        # their melded count is the same 0). 和绝张 is also certain when the winner's own melds show
        # the other three copies (decisions.md 4). 四归一: four copies used without a kong.
        base = dict(_hand_fans(within, touches))
        base.update(_win_fans(ctx.fourth_tile or in_melds == 3, ctx.self_drawn, ctx.kong, ctx.last_tile, melded,
                              fours - kongs))
        self.base = base

    def counts(self) -> list[int]:
        """The count array of the standing tiles with the winning tile (for the special forms)."""
        a, b, c, d = self.parts
        return list(a.key + b.key + c.key + d.key)

    def unique_wait(self) -> bool:
        """Whether the standing tiles wait on one tile only (R98 #77-79), computed when first asked
        (only for a hand with a regular split)."""
        if self._unique_wait is None:
            win = self.win
            parts = self.parts
            i = _PART[win]
            # The win's suit without the winning tile.
            before = suit_of_tiles(parts[i].tiles.replace(_BYTES[win], b"", 1), i * 9)
            parts = parts[:i] + (before,) + parts[i + 1:]
            if self.parts[i].pair:
                # The pair is in the win's suit, so the other suits split into sets as they are and
                # only that suit can take a tile (what regular_waits finds, in short).
                waits = before.waits()
            else:
                waits = regular_waits(parts)
            if len(waits) > 1:
                self._unique_wait = False
            else:
                a, b, c, d = parts
                if not self.melds and a.pairs + b.pairs + c.pairs + d.pairs == 6:  # 13 tiles: 七对 waits too
                    waits = set(waits).union(a.odd(), b.odd(), c.odd(), d.odd())
                self._unique_wait = len(waits) == 1
        return self._unique_wait


def _meld_facts(melds, parts, win: int) -> tuple:
    """What the melds add to a hand's facts: (groups, within and touches masks, copies of the winning
    tile in them, melded count, kongs, tiles now used four times). Raises ``_Unusual`` on a fifth copy."""
    groups = []
    copies: dict[int, int] = {}  # of each tile in the melds
    within, touches = -1, 0
    in_melds = melded = kongs = fours = 0
    for m in melds:
        tile = m.tile
        kind = _MELD_KIND.get(m.kind, PUNG)
        groups.append((tile, kind, not m.concealed))
        w, t = _features(7 << tile if kind == CHOW else 1 << tile)
        within &= w
        touches |= t
        if kind == CHOW:
            in_melds += tile <= win <= tile + 2
            for x in (tile, tile + 1, tile + 2):
                copies[x] = copies.get(x, 0) + 1
        else:
            n = 4 if kind == KONG else 3
            if tile == win:
                in_melds += n
            copies[tile] = copies.get(tile, 0) + n
            kongs += kind == KONG
        melded += not m.concealed
    for tile, n in copies.items():  # with the standing copies
        part = _PART[tile]
        n += parts[part].key[tile - 9 * part]
        if n > 4:
            raise _Unusual
        fours += n == 4
    return tuple(groups), within, touches, in_melds, melded, kongs, fours


def _set_fans(found: dict, body: tuple, facts: _Facts) -> tuple:
    """Fans of the sets (``body``: the groups but the pair) of a regular or 组合龙 reading:
    combinations, single pungs, kongs. Returns, read on the same pass, the kinds of its sets
    (ANY_SETS, NO_CHOWS or NO_PUNGS) for the shape checks, and the concealed chows that hold the
    winning tile at an edge or in the middle (or None) for the wait fans."""
    win = facts.win
    singles = facts.singles
    chows, pungs = [], []
    kongs, concealed = [], []  # the kongs; the pungs and kongs not melded
    melded_kongs, concealed_kongs = [], []
    win_pung = False
    edge = closed = None
    for i, (tile, kind, melded) in enumerate(body):
        if kind == CHOW:
            chows.append((tile, i))
            if not melded and tile <= win <= tile + 2:
                if tile + 1 == win:
                    closed = i
                else:
                    edge = i
            continue
        pungs.append((tile, i))
        fans = singles[tile]
        if fans:
            for fan in fans:
                if fan in found:
                    found[fan].append((i,))
                else:
                    found[fan] = [(i,)]
        if not melded:
            concealed.append(i)
        if kind == KONG:
            kongs.append(i)
            (melded_kongs if melded else concealed_kongs).append(i)
        elif not melded:
            win_pung = win_pung or tile == win
    concealed_pungs = len(concealed)
    # R98 #33/#66 and fans.md §2.9: a pung completed by a discard is melded, unless the winning tile
    # can be read as part of a concealed chow.
    if win_pung and edge is None and closed is None and not facts.self_drawn:
        concealed_pungs -= 1
    if len(chows) > 1:
        _combinations(found, chows, combine_chows, facts.melds)
    if len(pungs) > 1:
        _combinations(found, pungs, combine_pungs, facts.melds)
    if kongs:
        for fan in _KONG_FANS[len(melded_kongs)][len(concealed_kongs)]:
            found[fan] = [tuple(melded_kongs if fan in _MELDED_ONLY else
                                concealed_kongs if fan in _CONCEALED_ONLY else kongs)]
    if concealed_pungs >= 2:
        occ = tuple(concealed)  # all of them, a pung completed by a discard included
        for fan in _CONCEALED_PUNG_FANS[concealed_pungs]:
            found[fan] = [occ]
    return NO_PUNGS if not pungs else NO_CHOWS if not chows else ANY_SETS, edge, closed

def _combinations(found: dict, sets: list, combine, melds) -> None:
    """The fans of two or more chows (or pungs) together, by the positions of the sets they use."""
    if melds:
        sets.sort()  # by tile: melds come first, unsorted (the concealed sets are sorted)
    tiles, index = zip(*sets)
    for fan, positions in combine(tiles):
        occ = tuple(map(index.__getitem__, positions))
        if fan in found:
            found[fan].append(occ)
        else:
            found[fan] = [occ]



def _wait_fan(edge, closed, pair_at: int, pair: int, win: int):
    """R98 #77-79 on a unique wait: where the winning tile sits among the concealed sets, given the
    chows ``_set_fans`` found (边张 > 嵌张 > 单钓将, fans.md §2.6)."""
    if edge is not None:
        return F.EDGE_WAIT, [(edge,)]
    if closed is not None:
        return F.CLOSED_WAIT, [(closed,)]
    if pair == win:
        return F.SINGLE_WAIT, [(pair_at,)]
    return None


_PAIR_GROUPS = tuple(((t, None, False),) for t in range(NUM_KINDS))  # a reading's last group: its pair


def _regular(facts: _Facts, split) -> tuple[dict, tuple]:
    sets, pair = split
    body = facts.melds + sets
    groups = body + _PAIR_GROUPS[pair]
    found = facts.base.copy()
    kinds, edge, closed = _set_fans(found, body, facts)
    tests = _SHAPE_TESTS[kinds][pair]
    if tests:
        for fan, test in tests:
            if test(body, pair):
                found[fan] = _WHOLE
    wait = _wait_fan(edge, closed, len(body), pair, facts.win)
    if wait is not None and facts.unique_wait():
        found[wait[0]] = wait[1]
    if facts.nine_gates:
        found[F.NINE_GATES] = _WHOLE
    return exclude(found), groups


def _special(facts: _Facts) -> tuple[dict, list, str] | None:
    """The forms other than a regular split: 七对/连七对, 全不靠/七星不靠, 十三幺, 组合龙 forms.
    Each is tried only when the suits show the traits it needs."""
    if len(facts.melds) > 1:
        return None
    counts = facts.counts()
    a, b, c, d = facts.parts
    if not facts.melds:
        if a.even and b.even and c.even and d.even:  # 14 tiles in pairs: 七对
            found = facts.base.copy()
            found[F.SEVEN_SHIFTED_PAIRS if _is_shifted_pairs(counts) else F.SEVEN_PAIRS] = _WHOLE
            return exclude(found), [], "seven_pairs"
        if a.single and b.single and c.single and d.single and honors_and_knitted(counts):
            found = facts.base.copy()
            honors = d.kinds
            if honors == 7:
                found[F.GREATER_HONORS_AND_KNITTED] = _WHOLE
            else:
                found[F.LESSER_HONORS_AND_KNITTED] = _WHOLE
                if honors == 5:
                    found[F.KNITTED_STRAIGHT] = _WHOLE
            return exclude(found), [], "honors_and_knitted"
        if d.kinds == 7 and is_thirteen_orphans(counts):
            found = facts.base.copy()
            found[F.THIRTEEN_ORPHANS] = _WHOLE
            return exclude(found), [], "thirteen_orphans"
    if a.knitted and b.knitted and c.knitted:
        return _knitted_straight(facts)
    return None


def _is_shifted_pairs(counts) -> bool:
    # R98 #6: seven pairs of one suit on seven consecutive ranks.
    present = [t for t in range(NUM_KINDS) if counts[t]]
    return (len(present) == 7 and present[-1] < 27 and present[-1] - present[0] == 6
            and present[0] // 9 == present[-1] // 9)


def _knitted_straight(facts: _Facts):
    """R98 #35 as a regular form: the nine knitted tiles stand for three sets (fans.md §2.7)."""
    counts = facts.counts()
    knitted = knitted_in(counts)
    if knitted is None:
        return None
    rest = list(counts)
    for t in knitted:
        rest[t] -= 1
    splits = regular_splits(rest)
    if len(splits) != 1:
        return None
    sets, pair = splits[0]
    body = facts.melds + sets
    groups = body + _PAIR_GROUPS[pair]
    found = facts.base.copy()
    found[F.KNITTED_STRAIGHT] = _WHOLE
    _, edge, closed = _set_fans(found, body, facts)
    if SHAPES[F.ALL_CHOWS](body, pair):
        found[F.ALL_CHOWS] = _WHOLE
    win = facts.win
    if not facts.melds:
        waits = list(rest)
        waits[win] -= 1
        if len(formal_waits(waits)) == 1:
            wait = _wait_fan(edge, closed, len(body), pair, win)
            if wait is not None:
                found[wait[0]] = wait[1]
    elif win not in knitted or counts[win] == 3:
        # With a declared set the only wait left is the pair (KNITTED_STRAIGHT_BODY_WITH_ECS).
        found[F.SINGLE_WAIT] = [(len(groups) - 1,)]
    return exclude(found), groups, "knitted_straight"


def _group_text(group) -> str:
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


# The notation of every group a reading can hold, (tile, kind, melded) -> text.
_TEXTS = {(t, kind, melded): _group_text((t, kind, melded))
          for t in range(NUM_KINDS) for kind in (None, PUNG, KONG, CHOW) for melded in (False, True)
          if kind != CHOW or (t < 27 and t % 9 <= 6)}


_ORDER = {fan: i for i, fan in enumerate(F.PRECEDENCE)}.__getitem__  # by points, then id


def score(hand: Hand, ctx: WinContext) -> Score:
    """Score a win. Raises ``HandError`` for impossible input or a hand that does not win."""
    try:
        facts = _Facts(hand, ctx)
    except _Unusual:
        validate(hand, ctx)  # raises HandError, naming what is wrong
        facts = _Facts(*_plain(hand, ctx))  # or it was valid after all: bools where ints belong
    best = None
    best_total = 0
    best_groups: tuple = ()
    form = "regular"
    seven = False
    special = _special(facts)
    if special is not None:
        best, best_groups, form = special
        best_total = total(best)
        seven = F.SEVEN_PAIRS in best
    if best is None or seven:
        for split in splits_of(facts.parts):
            found, groups = _regular(facts, split)
            found_total = total(found)
            if best is None or better(found, found_total, best_total, seven):
                best, best_total, best_groups, form = found, found_total, groups, "regular"
    if best is None:
        raise HandError("hand/not_winning", f"{_describe(hand, ctx)} is not a complete hand")
    texts = tuple(map(_TEXTS.__getitem__, best_groups))
    fans = []
    append = fans.append
    for fan in sorted(best, key=_ORDER):
        occurrences = best[fan]
        first = occurrences[0]
        if first:  # a fan's occurrences are all () when it is of the whole hand
            if len(occurrences) == 1 and len(first) == 1:  # the common single pung
                sets = (texts[first[0]],)
            else:
                sets = tuple(dict.fromkeys([texts[i] for occ in occurrences for i in occ]))
            append(_fan_score(fan, len(occurrences), sets))
        else:
            append(_WHOLE_SCORES[fan][len(occurrences)])
    if ctx.flowers:
        fans.append(_WHOLE_SCORES[F.FLOWER_TILES][ctx.flowers])
    pair = best_groups[-1][0] if best_groups else None  # the pair is a reading's last group
    return _new_score(tuple(fans), best_total + ctx.flowers, best_total, form, texts, pair)


@lru_cache(maxsize=2048)
def _fan_score(fan: int, count: int, sets: tuple) -> FanScore:
    # FanScore is immutable, so equal ones can be shared.
    d = FANS[fan]
    return FanScore(fan, d.name, d.name_en, d.points, count, sets)


# The FanScore of each whole-hand fan by its count (at most 8: the flowers; 四归一 at most 3).
_WHOLE_SCORES = {fan: (None,) + tuple(
    FanScore(fan, d.name, d.name_en, d.points, count, ()) for count in range(1, 9)) for fan, d in FANS.items()}


def _plain(hand: Hand, ctx: WinContext) -> tuple[Hand, WinContext]:
    """The hand and context with plain ints where ``validate`` also takes bools."""
    melds = tuple(Meld(m.kind, int(m.tile), m.concealed, m.claimed) for m in hand.melds)
    return Hand(melds, tuple(map(int, hand.tiles))), replace(
        ctx, win_tile=int(ctx.win_tile), seat_wind=int(ctx.seat_wind), prevalent_wind=int(ctx.prevalent_wind),
        flowers=int(ctx.flowers))


def _describe(hand: Hand, ctx: WinContext) -> str:
    from game.hand import format_hand

    return format_hand(hand, ctx.win_tile)


def is_complete(hand: Hand, win_tile: int) -> bool:
    """Whether the hand plus the winning tile has a winning shape (any form, fans not counted)."""
    standing = [0] * NUM_KINDS
    for t in (*hand.tiles, win_tile):
        standing[t] += 1
    if max(standing) > 4:
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
