"""Fan plans for the fan bot: target patterns and their restricted shanten.

A plan is a fan pattern a hand can steer toward (混一色, 花龙, 碰碰和, 七对, ...) with the fans it
guarantees once complete, flowers excluded. Its shanten counts only what the plan can use: tiles
outside its kinds are to be thrown, its fixed sets (the three chows of 花龙, a dragon pung, ...) must be
completed, and the rest must form ordinary sets (or pungs only, pairs only, ...). A plan whose fans
fall short of the room's minimum on their own is combined with what makes up the difference
(门前清, a dragon pung, 碰碰和), so that every plan offered for an 8-fan room guarantees 8.

Hands are packed ints, five bits of count per kind, as in ``game.shanten``, whose cached per-suit
option sets of the regular form are reused here (the bot's hot path; nothing else is).
Shanten follows game.shanten: 0 ready, -1 complete; ``INF`` when the plan cannot be reached.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations, permutations

from game import shanten as _gs
from game.tiles import DRAGONS, GREEN_TILES, HONORS, REVERSIBLE_TILES, WINDS

INF = 99

BIT = tuple(1 << 5 * t for t in range(34))
_FIELD = tuple(31 << 5 * t for t in range(34))
_LOW = sum(BIT)
_SUIT = (1 << 45) - 1

REG, PUNGS, PAIRS, KNITTED_HONORS, KNITTED, ORPHANS, FIVE = range(7)
CHOW, PUNG = "chow", "pung"

ALL = tuple(range(34))


def pack(tiles) -> int:
    return sum(map(BIT.__getitem__, tiles))


_LOW1, _LOW2 = _LOW << 1, _LOW << 2


def tile_count(key: int) -> int:
    """Tiles in a packed hand (counts are at most 4: three bits of each field)."""
    return (key & _LOW).bit_count() + 2 * (key & _LOW1).bit_count() + 4 * (key & _LOW2).bit_count()


def held_kinds(key: int):
    """(kind, count) of every kind held."""
    while key:
        t = ((key & -key).bit_length() - 1) // 5
        c = key >> 5 * t & 31
        yield t, c
        key -= c << 5 * t


def _mask(kinds) -> int:
    return sum(_FIELD[t] for t in kinds)


# ---- the regular form of a restricted hand ----


@lru_cache(maxsize=16384)
def free_shanten(key: int, sets: int) -> int:
    """Regular shanten of ``key`` as the free part of a plan, ``sets`` sets being settled already.

    Unlike a whole hand, a restricted part may hold too few tiles to start every group it needs
    (the rest is to be thrown): each group that has no tile to start from costs one more draw.
    """
    o = _gs.combine_options(
        _gs.combine_options(_gs.suit_info(key & _SUIT)[0], _gs.suit_info(key >> 45 & _SUIT)[0]),
        _gs.combine_options(_gs.suit_info(key >> 90 & _SUIT)[0], _gs.honor_info(key >> 135)[0]))
    n = tile_count(key)
    best = INF
    for p, m, d in _gs.OPTIONS[o]:
        total = m + sets
        if total > 4:
            m -= total - 4
            total = 4
        if d > 4 - total:
            d = 4 - total
        singles = n - 3 * m - 2 * d - 2 * p
        v = 8 - 2 * total - d - p
        short = 5 - total - d - p - singles
        if short > 0:
            v += short
        if v < best:
            best = v
    return best


# ---- plans ----


class Plan:
    """A fan pattern: ``form`` (REG, PUNGS, ...), the kinds its free part may use, its fixed sets
    ((CHOW, low) or (PUNG, tile)), whether it needs a concealed hand, and the fans it guarantees."""

    __slots__ = ("name", "value", "form", "kinds", "mask", "fixed", "pung_any", "concealed", "set_cats",
                 "wind_kinds")

    def __init__(self, name: str, value: int, form: int = REG, kinds=ALL, fixed=(), pung_any=(),
                 concealed: bool = False, set_cats=(), wind_kinds=WINDS):
        self.name, self.value, self.form = name, value, form
        self.kinds = frozenset(kinds)
        self.mask = _mask(self.kinds)
        self.fixed = tuple(fixed)
        self.pung_any = tuple(pung_any)  # one more pung, of any of these tiles (箭刻, 门风刻, 圈风刻)
        self.concealed = concealed
        # 五门齐 variants: categories (3 winds, 4 dragons) that must be a pung, and the winds allowed.
        self.set_cats, self.wind_kinds = tuple(set_cats), tuple(wind_kinds)

    def __repr__(self) -> str:
        return f"<Plan {self.name} {self.value}>"


def _suit_kinds(s: int) -> tuple:
    return tuple(range(9 * s, 9 * s + 9))


def _ranks(lo: int, hi: int) -> tuple:
    return tuple(9 * s + r - 1 for s in range(3) for r in range(lo, hi + 1))


SUIT_NAMES = "万条饼"
TERMINALS_HONORS = tuple(t for t in range(27) if t % 9 in (0, 8)) + HONORS
EVEN_SIMPLES = tuple(t for t in range(27) if t % 9 in (1, 3, 5, 7))


def _with_extras(name: str, value: int, min_fan: int, winds: tuple, **kw) -> list[Plan]:
    """A plan, and when its value falls short of ``min_fan``, its variants that make it up: 门前清
    (+2; 不求人 when self-drawn), a dragon pung or a seat/prevalent wind pung (+2), or both."""
    out = [Plan(name, value, **kw)]
    if value >= min_fan or kw.get("form", REG) not in (REG, PUNGS):
        return out
    concealed = kw.get("concealed")
    if not concealed:
        out.append(Plan(name + "+门前清", value + 2, concealed=True, **kw))
    kinds = kw.get("kinds", ALL)
    fixed = {t for _, t in kw.get("fixed", ())}
    pungs = tuple(t for t in dict.fromkeys(DRAGONS + winds) if t in kinds and t not in fixed)
    if pungs:
        out.append(Plan(name + "+刻", value + 2, pung_any=pungs, **kw))
        if not concealed and value + 2 < min_fan:
            out.append(Plan(name + "+门前清+刻", value + 4, pung_any=pungs, concealed=True, **kw))
    return out


@lru_cache(maxsize=16)
def plans_for(seat_wind: int, prevalent: int, min_fan: int) -> tuple[Plan, ...]:
    """Every plan worth ``min_fan`` or more, cheap ones first (they prune the rest)."""
    winds = (WINDS[seat_wind], WINDS[prevalent])
    out: list[Plan] = []

    def add(name, value, **kw):
        for p in _with_extras(name, value, min_fan, winds, **dict(kw)):
            if p.value >= min_fan:
                out.append(p)

    for s in range(3):
        add("清一色" + SUIT_NAMES[s], 24, kinds=_suit_kinds(s))
        add("混一色" + SUIT_NAMES[s], 6, kinds=_suit_kinds(s) + HONORS)
        add("混一色碰碰和" + SUIT_NAMES[s], 12, form=PUNGS, kinds=_suit_kinds(s) + HONORS)
    add("七对", 24, form=PAIRS, concealed=True)
    add("全不靠", 12, form=KNITTED_HONORS, concealed=True)
    add("组合龙", 12, form=KNITTED)
    add("十三幺", 88, form=ORPHANS, concealed=True)
    add("碰碰和", 6, form=PUNGS)
    add("五门齐", 6, form=FIVE)
    add("五门齐+门前清", 8, form=FIVE, concealed=True)
    add("五门齐+箭刻", 8, form=FIVE, set_cats=(4,))
    add("五门齐+风刻", 8, form=FIVE, set_cats=(3,), wind_kinds=tuple(dict.fromkeys(winds)))
    add("大于五", 12, kinds=_ranks(6, 9))
    add("小于五", 12, kinds=_ranks(1, 4))
    add("全大", 24, kinds=_ranks(7, 9))
    add("全中", 24, kinds=_ranks(4, 6))
    add("全小", 24, kinds=_ranks(1, 3))
    add("推不倒", 8, kinds=REVERSIBLE_TILES)
    add("绿一色", 88, kinds=GREEN_TILES)
    add("全双刻", 24, form=PUNGS, kinds=EVEN_SIMPLES)
    add("混幺九", 32, form=PUNGS, kinds=TERMINALS_HONORS)
    add("字一色", 64, form=PUNGS, kinds=HONORS)
    # 全带幺, roughly: no 4-6 (a pung or pair of 2, 3, 7 or 8 still slips through; the waits are scored).
    add("全带幺", 4, kinds=_ranks(1, 3) + _ranks(7, 9) + HONORS)
    add("断幺", 2, kinds=_ranks(2, 8))
    add("无番", 0)
    _add_fixed_sets(add)
    return tuple(out)


def _add_fixed_sets(add) -> None:
    """The plans built around given chows and pungs (龙, 三同顺, 三同刻, 步高, 节高, 箭刻, 风刻)."""
    for s in range(3):
        add("清龙" + SUIT_NAMES[s], 16, fixed=[(CHOW, 9 * s + r) for r in (0, 3, 6)])
    for perm in permutations(range(3)):
        add("花龙", 8, fixed=[(CHOW, 9 * s + r) for s, r in zip(perm, (0, 3, 6))])
    for r in range(7):
        add("三色三同顺", 8, fixed=[(CHOW, 9 * s + r) for s in range(3)])
    for r in range(9):
        add("三同刻", 16, fixed=[(PUNG, 9 * s + r) for s in range(3)])
    for r in range(5):
        for perm in permutations(range(3)):
            add("三色三步高", 6, fixed=[(CHOW, 9 * s + r + i) for i, s in enumerate(perm)])
    for r in range(7):
        for perm in permutations(range(3)):
            add("三色三节高", 8, fixed=[(PUNG, 9 * s + r + i) for i, s in enumerate(perm)])
    for s in range(3):
        for step in (1, 2):
            for r in range(7 - 2 * step):
                add("一色三步高", 16, fixed=[(CHOW, 9 * s + r + i * step) for i in range(3)])
        for r in range(7):
            add("一色三同顺", 24, fixed=[(CHOW, 9 * s + r)] * 3)
            add("一色三节高", 24, fixed=[(PUNG, 9 * s + r + i) for i in range(3)])
    for a, b in combinations(DRAGONS, 2):
        add("双箭刻", 6, fixed=[(PUNG, a), (PUNG, b)])
    for three in combinations(WINDS, 3):
        add("三风刻", 12, fixed=[(PUNG, t) for t in three])


# ---- plans against the declared melds ----


class Prepared:
    """A plan checked against the seat's declared melds: the fixed tiles still needed (kind,
    copies), the sets settled (melds and fixed sets still to build), and the categories of 五门齐
    the melds fill."""

    __slots__ = ("plan", "need", "need_key", "sets", "mask", "form", "covered", "pung_any")

    def __init__(self, plan: Plan, need: tuple, sets: int, covered: tuple = (), pung_any: tuple = ()):
        self.plan, self.need, self.sets, self.covered = plan, need, sets, covered
        self.need_key = sum(k << 5 * t for t, k in need)
        self.mask, self.form = plan.mask, plan.form
        self.pung_any = pung_any  # still to build (sets counts it)


def _category(t: int) -> int:
    """五门齐's categories: 0-2 the suits, 3 winds, 4 dragons."""
    return 4 if t >= 31 else 3 if t >= 27 else t // 9


def prepare(plan: Plan, melds: tuple) -> Prepared | None:
    """``melds``: (kind, tile, concealed) of the seat's declared melds. None if they rule the plan out."""
    if plan.concealed and not all(c for _, _, c in melds):
        return None
    form = plan.form
    if form in (PAIRS, KNITTED_HONORS, ORPHANS):
        return None if melds else Prepared(plan, (), 0)
    if form == KNITTED:
        if len(melds) > 1:
            return None
        return Prepared(plan, (), len(melds))
    if form == FIVE:
        covered = []
        for kind, t, _ in melds:
            cat = _category(t)
            if cat in covered or (cat == 3 and (kind == CHOW or t not in plan.wind_kinds)):
                return None
            covered.append(cat)
        return Prepared(plan, (), len(melds), tuple(covered))
    fixed = list(plan.fixed)
    pung_any = plan.pung_any
    for kind, t, _ in melds:
        key = (CHOW if kind == CHOW else PUNG, t)
        if key in fixed:
            fixed.remove(key)
            continue
        if kind != CHOW and t in pung_any:
            pung_any = ()
            continue
        tiles = (t, t + 1, t + 2) if kind == CHOW else (t,)
        if (form == PUNGS and kind == CHOW) or not plan.kinds.issuperset(tiles):
            return None
    sets = len(melds) + len(fixed) + (len(pung_any) > 0)
    if sets > 4:
        return None  # the melds leave no room for the plan's sets
    need: dict[int, int] = {}
    for kind, t in fixed:
        for x in ((t, t + 1, t + 2) if kind == CHOW else (t, t, t)):
            need[x] = need.get(x, 0) + 1
    return Prepared(plan, tuple(need.items()), sets, (), pung_any)


@lru_cache(maxsize=256)
def prepared_plans(melds: tuple, seat_wind: int, prevalent: int, min_fan: int) -> tuple[Prepared, ...]:
    out = []
    for plan in plans_for(seat_wind, prevalent, min_fan):
        p = prepare(plan, melds)
        if p is not None:
            out.append(p)
    return tuple(out)


# ---- restricted shanten ----

_B16 = 16 * _LOW  # bit 4 of every field: a borrow guard for packed subtraction


class Live:
    """Unseen copies per kind (not in the seat's hand, in no pond, in no exposed meld), as a list and
    packed like a hand."""

    __slots__ = ("counts", "key")

    def __init__(self, counts):
        self.counts = counts
        self.key = sum(n << 5 * t for t, n in enumerate(counts))


def shanten_of(p: Prepared, key: int, live: Live, bound: int = INF) -> int:
    """The plan's shanten of the packed standing tiles; ``INF`` if out of reach (a needed tile has no
    unseen copy left). Stops early (returning something >= ``bound``) once it cannot beat ``bound``."""
    form = p.form
    if form == REG or form == PUNGS:
        missing = 0
        need = p.need_key
        if need:
            # Per kind, the fixed sets take min(held, needed) from the hand, all fields at once:
            # a field of (need + 16) - held has bit 4 set when need >= held.
            ge = ((need + _B16 - key) >> 4 & _LOW) * 31
            used = (key & ge) | (need & ~ge)
            lack = need - used
            if ((live.key + _B16 - lack) & _B16) != _B16:
                return INF  # a needed tile has fewer unseen copies than it lacks
            if lack:
                missing = (lack & _LOW).bit_count() + 2 * (lack & _LOW1).bit_count() + 4 * (lack & _LOW2).bit_count()
            key -= used
        if p.pung_any:
            # The extra pung: of the tile held most, then the most live one.
            counts = live.counts
            best_t, best_v = -1, (-1, -1)
            for t in p.pung_any:
                v = (min(key >> 5 * t & 31, 3), counts[t])
                if v > best_v:
                    best_t, best_v = t, v
            h = best_v[0]
            if 3 - h > counts[best_t]:
                return INF
            key -= h << 5 * best_t
            missing += 3 - h
        if missing - 1 >= bound:
            return missing - 1
        if form == REG:
            return missing + free_shanten(key & p.mask, p.sets)
        return missing + _pungs_cost(key & p.mask, 4 - p.sets, live.counts) - 1
    if form == PAIRS:
        return _pairs_cost(key, live.counts) - 1
    if form == KNITTED:
        return _gs.PackedHand(key, p.sets).knitted()
    if form == KNITTED_HONORS:
        return _gs.PackedHand(key, 0).honors_and_knitted()
    if form == ORPHANS:
        return _gs.PackedHand(key, 0).thirteen_orphans()
    return _five_cost(p, key, live.key) - 1


def _pungs_cost(key: int, n: int, unseen) -> int:
    """Draws to make ``n`` pungs and a pair of the kinds in ``key`` (a fresh kind: 3 and 2 draws)."""
    pungs = []
    pairs = []
    for t, c in held_kinds(key):
        u = unseen[t]
        pc = 3 - c if c < 3 else 0
        pungs.append((pc if pc <= u else INF, t))
        qc = 2 - c if c < 2 else 0
        pairs.append((qc if qc <= u else INF, t))
    pungs.sort()
    costs = [c for c, _ in pungs[:n + 1]]
    costs += [3] * (n + 1 - len(costs))
    base = sum(costs[:n])
    chosen = {t: c for c, t in pungs[:n]}
    best = base + 2  # a fresh pair
    for qc, t in pairs:
        # The pair's kind cannot be one of the pungs: the next best pung replaces it.
        v = qc + base - chosen[t] + costs[n] if t in chosen else qc + base
        if v < best:
            best = v
    return min(best, INF)


def _pairs_cost(key: int, unseen) -> int:
    """Draws to seven pairs (four of a kind is two pairs); a lone tile with no unseen copy is dead."""
    pairs = live = 0
    for t, c in held_kinds(key):
        pairs += c >> 1
        if c & 1 and unseen[t]:
            live += 1
    need = 7 - pairs
    if need <= 0:
        return 0
    return need + max(0, need - live)


# 五门齐: the five categories (万, 条, 饼, winds, dragons) each hold one set or the pair.
_CAT_KINDS = (tuple(range(0, 9)), tuple(range(9, 18)), tuple(range(18, 27)), WINDS, DRAGONS)
_CAT_SHIFT = (0, 45, 90, 135, 155)
_CAT_MASK = ((1 << 45) - 1,) * 3 + ((1 << 20) - 1, (1 << 15) - 1)


@lru_cache(maxsize=4096)
def _category_costs(cat: int, sub: int, usub: int, set_kinds: tuple) -> tuple[int, int]:
    """(draws to a set, draws to a pair) in one category, from its packed counts and unseen copies;
    ``set_kinds``: the kinds whose pungs may serve as the set (chows too for a suit)."""
    size = len(_CAT_KINDS[cat])
    c = [sub >> 5 * i & 31 for i in range(size)]
    u = [usub >> 5 * i & 31 for i in range(size)]
    best_set = INF
    base = _CAT_KINDS[cat][0]
    for i in range(size):
        if base + i in set_kinds:
            lack = 3 - c[i] if c[i] < 3 else 0
            if lack <= u[i] and lack < best_set:
                best_set = lack
    if cat < 3:
        for i in range(7):
            lack = 0
            for j in (i, i + 1, i + 2):
                if not c[j]:
                    if not u[j]:
                        lack = INF
                        break
                    lack += 1
            if lack < best_set:
                best_set = lack
    best_pair = INF
    for i in range(size):
        lack = 2 - c[i] if c[i] < 2 else 0
        if lack <= u[i] and lack < best_pair:
            best_pair = lack
    return best_set, best_pair


def _five_cost(p: Prepared, key: int, ukey: int) -> int:
    plan = p.plan
    set_costs = []
    pair_costs = []
    for cat in range(5):
        if cat in p.covered:
            continue
        shift, mask = _CAT_SHIFT[cat], _CAT_MASK[cat]
        kinds = plan.wind_kinds if cat == 3 else _CAT_KINDS[cat]
        sc, pc = _category_costs(cat, key >> shift & mask, ukey >> shift & mask, kinds)
        set_costs.append(sc)
        pair_costs.append(INF if cat in plan.set_cats else pc)
    total = sum(set_costs)
    best = INF
    for sc, pc in zip(set_costs, pair_costs):
        v = total - sc + pc
        if v < best:
            best = v
    return best


def useful_draws(p: Prepared, key: int, live: Live, v: int, known: set = frozenset()) -> set[int]:
    """The kinds with unseen copies whose draw takes the plan's shanten of ``key`` below ``v``;
    kinds in ``known`` (already found useful) are not tested again."""
    counts = live.counts
    form = p.form
    if form == PAIRS:
        return {t for t, c in held_kinds(key) if c & 1 and counts[t]}
    if form == KNITTED:
        useful = _gs.knitted_useful_packed(key, p.sets).useful
    elif form == KNITTED_HONORS:
        useful = _gs.honors_and_knitted_useful_packed(key).useful
    elif form == ORPHANS:
        useful = _gs.thirteen_orphans_useful_packed(key).useful
    else:
        useful = [t for t in _candidates(p, key) - known
                  if counts[t] and shanten_of(p, key + BIT[t], live, v) < v]
    return {t for t in useful if counts[t]}


def _candidates(p: Prepared, key: int) -> set[int]:
    """Kinds whose draw could lower the plan's shanten of ``key`` (a superset): the fixed sets'
    tiles, and for the free part its kinds held or within two ranks of one held."""
    out = {t for t, _ in p.need}
    out.update(p.pung_any)
    if p.form == PUNGS:
        out.update(t for t, c in held_kinds(key & p.mask) if c < 3)
        return out
    kinds = p.plan.kinds
    near = set()
    for t, _ in held_kinds(key & p.mask if p.form == REG else key):
        near.add(t)
        if t < 27:
            r = t % 9
            for d in (-2, -1, 1, 2):
                if 0 <= r + d <= 8:
                    near.add(t + d)
    out.update(near if p.form == FIVE else near & kinds)
    return out
