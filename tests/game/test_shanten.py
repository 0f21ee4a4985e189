"""game.shanten against the reference calculator (PyMahjongGB 1.4.0) and its own properties.

* named cases for each form, each also checked against the reference where it applies;
* seeded random hands (uniform and themed: one suit, honors, terminals, knitted tiles, pairs,
  near-complete), 0-4 declared melds: every form's shanten and useful tiles, the overall shanten
  (reference ``MahjongShanten``) and the overall useful tiles must equal the reference's;
* 14-3k hands: the reference only takes 13-3k, so a form's value must be -1 when some discard
  leaves it ready on the discarded tile, else the best value over discards;
* hypothesis properties: reference agreement, "useful" means "drawing it lowers the shanten",
  14-tile consistency, symmetry under suit permutation and rank reversal.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from MahjongGB import (
    HonorsAndKnittedTilesShanten,
    KnittedStraightShanten,
    MahjongShanten,
    RegularShanten,
    SevenPairsShanten,
    ThirteenOrphansShanten,
)

from game import shanten as S
from game.tiles import (
    KNITTED_STRAIGHTS,
    M1,
    NORTH,
    P6,
    THIRTEEN_ORPHANS,
    WHITE,
    from_reference,
    parse_tiles,
    to_reference,
)

# ---- adapters ----

# name -> (ours with useful, ours shanten only, reference, which meld counts it applies to)
FORMS = {
    "regular": (S.regular_useful, S.regular_shanten, RegularShanten, (0, 1, 2, 3, 4)),
    "seven_pairs": (
        lambda t, k: S.seven_pairs_useful(t), lambda t, k: S.seven_pairs_shanten(t), SevenPairsShanten, (0,),
    ),
    "thirteen_orphans": (
        lambda t, k: S.thirteen_orphans_useful(t), lambda t, k: S.thirteen_orphans_shanten(t),
        ThirteenOrphansShanten, (0,),
    ),
    "honors_and_knitted": (
        lambda t, k: S.honors_and_knitted_useful(t), lambda t, k: S.honors_and_knitted_shanten(t),
        HonorsAndKnittedTilesShanten, (0,),
    ),
    "knitted_straight": (S.knitted_straight_useful, S.knitted_straight_shanten, KnittedStraightShanten, (0, 1)),
}


def codes(tiles) -> tuple[str, ...]:
    return tuple(to_reference(t) for t in sorted(tiles))


def reference_form(ref, tiles) -> tuple[int, tuple[int, ...]]:
    s, useful = ref(codes(tiles))
    return s, tuple(from_reference(c) for c in useful)


def reference_overall(tiles, melds: int) -> int:
    pack = tuple(("PENG", "F1", 1) for _ in range(melds))  # only the number of packs matters to it
    return MahjongShanten(pack, codes(tiles))


def applicable(melds: int):
    return [(name, f) for name, f in FORMS.items() if melds in f[3]]


def with_overall(melds: int):
    """(with useful, shanten only) for each applicable form, then for the overall functions."""
    return [(f[0], f[1]) for _, f in applicable(melds)] + [(S.useful_tiles, S.shanten)]


def check_drawing_hand(tiles, melds: int, stats: Counter | None = None) -> None:
    """A 13-3k hand: every applicable form, the overall shanten and useful tiles, vs the reference."""
    expected = {}
    for name, (ours_useful, ours_shanten, ref, _) in applicable(melds):
        want = reference_form(ref, tiles)
        got = ours_useful(tiles, melds)
        assert (got.shanten, got.useful) == want, (name, sorted(tiles), melds)
        assert ours_shanten(tiles, melds) == want[0], (name, sorted(tiles), melds)
        expected[name] = want
        if stats is not None:
            stats[name, min(want[0], 2)] += 1
    best = min(s for s, _ in expected.values())
    assert S.shanten(tiles, melds) == best == reference_overall(tiles, melds), (sorted(tiles), melds)
    union = sorted({t for s, u in expected.values() if s == best for t in u})
    assert S.useful_tiles(tiles, melds) == (best, tuple(union)), (sorted(tiles), melds)


def reference_fourteen_form(ref, tiles) -> int:
    """The reference's value for a 14-3k hand: -1 if a discard leaves it ready on that very tile,
    else the best over discards (its own convention when it enumerates discards)."""
    best = 99
    for d in set(tiles):
        rest = list(tiles)
        rest.remove(d)
        s, useful = reference_form(ref, rest)
        if s == 0 and d in useful:
            return -1
        best = min(best, s)
    return best


def check_fourteen_hand(tiles, melds: int) -> None:
    values = []
    for name, (_, ours_shanten, ref, _) in applicable(melds):
        want = reference_fourteen_form(ref, tiles)
        assert ours_shanten(tiles, melds) == want, (name, sorted(tiles), melds)
        values.append(want)
    assert S.shanten(tiles, melds) == min(values), (sorted(tiles), melds)


# ---- named cases ----

NAMED = [
    # (notation, melds, form, shanten, useful or None for a 14-3k hand)
    ("123m456p789sEEE5p", 0, "regular", 0, parse_tiles("5p")),
    ("123m456p789sEEE55p", 0, "regular", -1, None),
    ("123m456p789sE5p", 1, "regular", 0, parse_tiles("5pE")),
    ("2355m", 3, "regular", 0, parse_tiles("14m")),
    ("E", 4, "regular", 0, parse_tiles("E")),
    ("EE", 4, "regular", -1, None),
    ("ES", 4, "regular", 0, None),
    # The reference counts a fifth copy when the hand is ready (here the wait is 1m, all held)...
    ("1111m234p567p789s", 0, "regular", 0, parse_tiles("1m")),
    # ...but skips a kind held four times otherwise, though 11111m would be a set and a pair.
    ("1111m258p147sESWN", 0, "regular", 6, parse_tiles("23m123456789p123456789sESWN")),
    ("1122m3344p5566sE", 0, "seven_pairs", 0, parse_tiles("E")),
    ("1111m2233p4455sE", 0, "seven_pairs", 0, parse_tiles("E")),  # four of a kind is two pairs
    ("1122m3344p5566sEE", 0, "seven_pairs", -1, None),
    ("19m19s19pESWNCFP", 0, "thirteen_orphans", 0, tuple(sorted(THIRTEEN_ORPHANS))),
    ("19m19s19pESWNCFF", 0, "thirteen_orphans", 0, (WHITE,)),
    ("119m19s19pESWNCFP", 0, "thirteen_orphans", -1, None),
    ("147m258s369pESWN", 0, "honors_and_knitted", 0, parse_tiles("CFP")),
    ("147m258s3pESWNCFP", 0, "honors_and_knitted", -1, None),  # 七星不靠
    ("147m258s369pEEEN", 0, "knitted_straight", 0, (NORTH,)),
    ("147m258s39pEEENN", 0, "knitted_straight", 0, (P6,)),
    ("147m258s369pN", 1, "knitted_straight", 0, (NORTH,)),
    ("147m258s369pEEENN", 0, "knitted_straight", -1, None),
    ("147m258s369p123pEE", 0, "knitted_straight", -1, None),
]


@pytest.mark.parametrize("notation, melds, form, want, useful", NAMED)
def test_named_cases(notation, melds, form, want, useful):
    tiles = parse_tiles(notation)
    ours_useful, ours_shanten, ref, _ = FORMS[form]
    assert ours_shanten(tiles, melds) == want
    if len(tiles) + 3 * melds == 13:
        got = ours_useful(tiles, melds)
        assert isinstance(got, S.ShantenResult) and got.shanten == want
        if useful is not None:
            assert got.useful == tuple(sorted(useful))
        check_drawing_hand(tiles, melds)
    else:
        check_fourteen_hand(tiles, melds)


def test_overall_is_min_over_forms():
    orphans = parse_tiles("19m19s19pESWNCFP")
    assert S.regular_shanten(orphans) == 8
    assert S.shanten(orphans) == 0
    assert S.useful_tiles(orphans) == (0, tuple(sorted(THIRTEEN_ORPHANS)))
    knitted = parse_tiles("147m258s369pEEEN")
    assert (S.regular_shanten(knitted), S.honors_and_knitted_shanten(knitted)) == (6, 2)
    assert S.shanten(knitted) == 0
    # Regular (waits 5p 6p) and 七对 (waits 9s) are both ready: the useful tiles are the union.
    both = parse_tiles("445566999s5566p")
    assert S.regular_useful(both).useful == tuple(sorted(parse_tiles("56p")))
    assert S.seven_pairs_useful(both).useful == tuple(parse_tiles("9s"))
    assert S.useful_tiles(both) == (0, tuple(sorted(parse_tiles("9s56p"))))
    # With melds the special forms do not apply.
    assert S.shanten(parse_tiles("19m19s19pEENN"), 1) == S.regular_shanten(parse_tiles("19m19s19pEENN"), 1) == 4
    assert S.shanten(parse_tiles("147m258s369pN"), 1) == 0


def test_meld_count_is_inferred_or_checked():
    tiles = parse_tiles("123m456p789sE")
    assert S.regular_shanten(tiles) == S.regular_shanten(tiles, 1) == 0
    assert S.shanten(iter(tiles), 1) == 0  # any iterable
    with pytest.raises(ValueError):
        S.regular_shanten(tiles, 0)
    with pytest.raises(ValueError):
        S.regular_shanten(parse_tiles("123m"))  # 3 tiles fit no meld count
    with pytest.raises(ValueError):
        S.shanten(parse_tiles("123m456p789sEEE5p55s"))  # 15 tiles


@pytest.mark.parametrize(
    "call",
    [
        lambda: S.shanten([M1] * 5 + parse_tiles("23456789p")),  # five of a kind
        lambda: S.shanten([34] + parse_tiles("123m456p789sEEE")),  # a flower
        lambda: S.shanten([-1] + parse_tiles("123m456p789sEEE")),
        lambda: S.shanten(["1m"] * 13),
        lambda: S.regular_useful(parse_tiles("123m456p789sEEE55p")),  # useful tiles need 13-3k
        lambda: S.useful_tiles(parse_tiles("EE"), 4),
        lambda: S.seven_pairs_shanten(parse_tiles("1122m3344p55s")),  # specials: no melds
        lambda: S.thirteen_orphans_useful(parse_tiles("19m19s19pESWNCFPP")),
        lambda: S.honors_and_knitted_shanten(parse_tiles("147m258s369pE")),
        lambda: S.knitted_straight_shanten(parse_tiles("147m258s3p")),  # 组合龙: at most one meld
        lambda: S.knitted_straight_useful(parse_tiles("147m258s3p"), 2),
    ],
)
def test_invalid_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()


# ---- seeded random hands ----

WALL = [t for t in range(34) for _ in range(4)]
NUMBER_KINDS = range(27)


def _meld_tiles(rng: random.Random, wall: Counter, count: int) -> None:
    """Take ``count`` random sets out of ``wall`` (declared melds: only their count matters)."""
    for _ in range(count):
        while True:
            if rng.random() < 0.5:
                t = rng.randrange(34)
                if wall[t] >= 3:
                    wall[t] -= 3
                    break
            else:
                t = rng.choice([t for t in NUMBER_KINDS if t % 9 < 7])
                if all(wall[t + i] for i in range(3)):
                    for i in range(3):
                        wall[t + i] -= 1
                    break


def _theme_kinds(rng: random.Random, theme: str) -> list[int]:
    suit = rng.randrange(3) * 9
    if theme == "one_suit":
        return list(range(suit, suit + 9))
    if theme == "one_suit_honors":
        return list(range(suit, suit + 9)) + list(range(27, 34))
    if theme == "two_suits":
        other = (suit + 9 * rng.randrange(1, 3)) % 27
        return list(range(suit, suit + 9)) + list(range(other, other + 9))
    if theme == "orphans":
        return list(THIRTEEN_ORPHANS) + rng.sample(range(27), 3)
    if theme == "knitted":
        return list(rng.choice(KNITTED_STRAIGHTS)) + list(range(27, 34)) + rng.sample(range(27), 3)
    if theme == "few_kinds":
        return rng.sample(range(34), rng.randint(5, 8))
    return list(range(34))


def _complete(rng: random.Random, wall: Counter, sets: int, kinds: list[int]) -> list[int] | None:
    """Random sets + a pair from ``kinds`` (taken out of ``wall``), or None if they do not fit."""
    tiles: list[int] = []
    for i in range(sets + 1):
        for _ in range(20):
            t = rng.choice(kinds)
            if i == sets:
                group = [t, t]
            elif t < 27 and t % 9 < 7 and rng.random() < 0.6:
                group = [t, t + 1, t + 2]
            else:
                group = [t, t, t]
            need = Counter(group)
            if all(wall[g] >= n for g, n in need.items()):
                wall.subtract(need)
                tiles += group
                break
        else:
            return None
    return tiles


def _special_start(rng: random.Random, wall: Counter, melds: int) -> list[int]:
    """Most of a 十三幺, 全不靠 or 组合龙 hand (taken out of ``wall``), to be filled up at random."""
    kind = rng.choice(["orphans", "knitted_honors", "knitted_straight"] if melds == 0 else ["knitted_straight"])
    if kind == "orphans":
        tiles = rng.sample(THIRTEEN_ORPHANS, rng.randint(10, 13))
        tiles.append(rng.choice(tiles))
    else:
        straight = list(rng.choice(KNITTED_STRAIGHTS))
        tiles = rng.sample(straight, rng.randint(7, 9))
        if kind == "knitted_honors":
            tiles += rng.sample(range(27, 34), rng.randint(3, 7))
    tiles = [t for t in tiles if wall[t]]
    wall.subtract(tiles)
    if kind == "knitted_straight":
        tiles += _complete(rng, wall, 1 - melds, list(range(34))) or []
    return tiles


def random_hand(rng: random.Random, melds: int, extra: int = 0) -> list[int]:
    """13-3k (+ extra) standing tiles: themed, sometimes near-complete, sometimes 七对-like or
    close to a special form."""
    wall = Counter(WALL)
    _meld_tiles(rng, wall, melds)
    n = 13 - 3 * melds + extra
    theme = rng.choice(["any", "one_suit", "one_suit_honors", "two_suits", "orphans", "knitted", "few_kinds"])
    kinds = sorted({k for k in _theme_kinds(rng, theme) if wall[k]})
    shape = rng.random()
    tiles: list[int] | None = None
    if shape < 0.35:
        tiles = _complete(rng, wall, 4 - melds, kinds)
        if tiles is not None:  # drop and swap a few, so hands are ready or a step or two away
            rng.shuffle(tiles)
            del tiles[n:]
            for _ in range(rng.choice([0, 0, 1, 1, 2])):
                pool = [k for k in kinds if wall[k]]
                if pool:
                    wall[tiles[0]] += 1
                    tiles[0] = rng.choice(pool)
                    wall[tiles[0]] -= 1
                    rng.shuffle(tiles)
    elif shape < 0.5 and melds <= 1:
        tiles = _special_start(rng, wall, melds)
        rng.shuffle(tiles)
        del tiles[n:]
    elif shape < 0.6 and melds == 0:
        pairs = rng.sample(kinds, min(len(kinds), 7))
        tiles = [t for t in pairs for _ in range(2) if wall[t] >= 2][:n]
        for t in tiles:
            wall[t] -= 1
    if tiles is None:
        tiles = []
    # Fill from the theme first, then from anything left.
    theme_pool = [k for k in kinds for _ in range(wall[k])]
    for pool in (theme_pool, [k for k in range(34) if k not in kinds for _ in range(wall[k])]):
        while len(tiles) < n and pool:
            i = rng.randrange(len(pool))
            pool[i], pool[-1] = pool[-1], pool[i]
            tiles.append(pool.pop())
    return sorted(tiles)


def test_random_hands_match_reference():
    rng = random.Random(20240601)
    stats: Counter = Counter()
    for i in range(5000):
        melds = (0, 0, 0, 0, 1, 1, 2, 3, 4)[i % 9]
        check_drawing_hand(random_hand(rng, melds), melds, stats)
    # The themes must reach the interesting states of every form: ready and near-ready.
    for name in FORMS:
        assert stats[name, 0] >= 20, (name, stats)
        assert stats[name, 1] >= 20, (name, stats)


def test_random_fourteen_tile_hands_match_reference():
    rng = random.Random(7)
    complete = Counter()
    for i in range(1200):
        melds = (0, 0, 0, 1, 2, 3, 4)[i % 7]
        tiles = random_hand(rng, melds, extra=1)
        check_fourteen_hand(tiles, melds)
        complete[S.shanten(tiles, melds)] += 1
    assert complete[-1] >= 50 and complete[0] >= 50, complete


# ---- hypothesis properties ----


@st.composite
def hands(draw, extra: int = 0):
    """13-3k (+ extra) standing tiles and k, often from few kinds so that groups are likely."""
    melds = draw(st.integers(0, 4))
    n = 13 - 3 * melds + extra
    if draw(st.booleans()):
        kinds = list(range(34))
    else:
        kinds = draw(st.lists(st.integers(0, 33), min_size=(n + 3) // 4, max_size=9, unique=True))
    copies = [k for k in kinds for _ in range(4)]
    picks = draw(st.lists(st.integers(0, len(copies) - 1), min_size=n, max_size=n, unique=True))
    return sorted(copies[i] for i in picks), melds


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands())
def test_property_matches_reference(hand):
    check_drawing_hand(*hand)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands(extra=1))
def test_property_fourteen_tile_hands_match_reference(hand):
    check_fourteen_hand(*hand)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands())
def test_property_useful_means_drawing_it_lowers_shanten(hand):
    tiles, melds = hand
    held = Counter(tiles)
    for with_useful, shanten_only in with_overall(melds):
        base, useful = with_useful(tiles, melds)
        for t in range(34):
            if held[t] == 4:
                continue  # a fifth tile cannot be drawn (the reference's quirk aside)
            after = shanten_only(tiles + [t], melds)
            assert after >= base - 1
            assert (t in useful) == (after < base), (tiles, melds, t)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands(extra=1))
def test_property_fourteen_is_best_discard_or_complete(hand):
    tiles, melds = hand
    for with_useful, shanten_only in with_overall(melds):
        best = 99
        complete = False
        for d in set(tiles):
            rest = list(tiles)
            rest.remove(d)
            s, useful = with_useful(rest, melds)
            complete |= s == 0 and d in useful
            best = min(best, s)
        assert shanten_only(tiles, melds) == (-1 if complete else best)


def _mirror(t: int, suits: tuple[int, int, int], reverse: bool) -> int:
    if t >= 27:
        return t
    r = t % 9
    return suits[t // 9] * 9 + (8 - r if reverse else r)


@settings(max_examples=150, deadline=None)
@given(hands(), st.permutations([0, 1, 2]), st.booleans())
def test_property_symmetric_under_suit_permutation_and_rank_reversal(hand, suits, reverse):
    tiles, melds = hand
    image = [_mirror(t, tuple(suits), reverse) for t in tiles]
    for with_useful, _ in with_overall(melds):
        s, useful = with_useful(tiles, melds)
        assert with_useful(image, melds) == (s, tuple(sorted(_mirror(t, tuple(suits), reverse) for t in useful)))

