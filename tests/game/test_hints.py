"""The wait hint (game.hints): each wait of a seat's own tiles with the fans it would score."""

from game import match as M
from game.hand import parse_hand
from game.hints import hint, hint_of_view
from game.rules import Rules
from game.tiles import parse_tiles
from game.wall import arrange_wall

T = lambda s: parse_tiles(s)[0]  # noqa: E731
GUOBIAO = Rules(min_fan=8)


def waits_of(h: dict) -> dict:
    return {w["tile"]: w for w in h["waits"]}


def test_ready_hand_lists_each_wait_with_its_fans():
    hand, _ = parse_hand("123456789m 11s 23s")
    h = hint(hand.melds, hand.tiles, rules=GUOBIAO)
    w = waits_of(h)
    assert set(w) == {T("1s"), T("4s")}
    one = w[T("1s")]
    names = {f[2] for f in one["fans"]}
    assert {"Pure Straight", "Concealed Hand", "All Chows", "Mixed Double Chow"} <= names
    assert all(len(f) == 5 for f in one["fans"])
    assert one["total"] == one["total_without_flowers"] == sum(f[3] * f[4] for f in one["fans"]) == 22
    assert one["meets_min"] is True
    assert w[T("4s")]["total"] == 21  # no 喜相逢 with 234s
    # Not self-drawn: no 自摸 / 不求人 in the hint.
    assert "Self-Drawn" not in names and "Fully Concealed Hand" not in names


def test_discard_hint_lists_the_discards_that_leave_the_hand_ready():
    hand, _ = parse_hand("123456789m 11s 23s N")
    h = hint(hand.melds, hand.tiles, rules=GUOBIAO)
    assert set(h["discards"]) == {str(T("N")), str(T("1s"))}  # JSON keys: strings
    assert {w["tile"] for w in h["discards"][str(T("N"))]} == {T("1s"), T("4s")}
    (single,) = h["discards"][str(T("1s"))]
    assert single["tile"] == T("N")
    # Far from ready: no discard listed.
    hand, _ = parse_hand("1357m 2468p 1359s EC")
    assert hint(hand.melds, hand.tiles, rules=GUOBIAO) == {"discards": {}}


def test_minimum_winds_flowers_and_room_types():
    hand, _ = parse_hand("234m 567p 678s 345s 5m")
    two, w = hint(hand.melds, hand.tiles, rules=GUOBIAO)["waits"]
    assert two["tile"] == T("2m") and two["total"] == 8 and two["meets_min"] is True  # 喜相逢 with 345s
    assert w["tile"] == T("5m") and w["total"] == 7 and w["meets_min"] is False
    assert hint(hand.melds, hand.tiles, rules=Rules(min_fan=0))["waits"][1]["meets_min"] is True
    # Flowers count in the total, not towards the minimum.
    f = hint(hand.melds, hand.tiles, rules=GUOBIAO, flowers=7)["waits"][1]
    assert f["total"] == w["total"] + 7 and f["total_without_flowers"] == w["total_without_flowers"]
    assert f["meets_min"] is False
    # The seat's own wind: a pung of it scores 门风刻 only when it is the seat's.
    hand, _ = parse_hand("[SSS] 123m 456m 789m 5p")
    south = {x[2] for x in hint(hand.melds, hand.tiles, rules=GUOBIAO, seat_wind=1)["waits"][0]["fans"]}
    east = {x[2] for x in hint(hand.melds, hand.tiles, rules=GUOBIAO, seat_wind=0)["waits"][0]["fans"]}
    assert "Seat Wind" in south and "Seat Wind" not in east
    # 无番馆 counts no fans; 大众馆 adds 258将 (the pair is 22m or 55m).
    hand, _ = parse_hand("234m 567p 678s 345s 5m")
    wufan = hint(hand.melds, hand.tiles, rules=Rules(min_fan=0, count_fans=False))["waits"]
    assert [(x["fans"], x["total"], x["meets_min"]) for x in wufan] == [([], 0, True)] * 2
    dz2, dz5 = hint(hand.melds, hand.tiles, rules=Rules(min_fan=0, pair_258_points=1))["waits"]
    assert [None, "258将", "Pair of 2, 5 or 8", 1, 1] in dz2["fans"] and dz2["total"] == two["total"] + 1
    assert [None, "258将", "Pair of 2, 5 or 8", 1, 1] in dz5["fans"] and dz5["total"] == w["total"] + 1
    # A seat out of the hand (停和) never meets the minimum.
    assert hint(hand.melds, hand.tiles, rules=Rules(min_fan=0), blocked=True)["waits"][0]["meets_min"] is False


def test_hint_of_a_seats_view_and_its_cache():
    ours = parse_tiles("123456789m11s23sN")
    wall = arrange_wall([ours, parse_tiles("19m19p5s5pESWCFP7s"), parse_tiles("28m28p6s6p8sESWCFP"),
                         parse_tiles("37m37p4p5s7p9sESWCF")])
    m, _ = M.start_match(Rules(hands=4), walls=[wall] * 4)
    v = M.view(m, 0)
    h = hint_of_view(v, m.rules)
    assert set(h["discards"]) == {str(T("N")), str(T("1s"))}
    assert hint_of_view(M.view(m, 0), m.rules) == h  # the same hand, the same hint
    # Discarding N leaves a ready hand whose waits were scored for the hint above: taken from the cache.
    after = list(ours)
    after.remove(T("N"))
    assert hint((), after, rules=m.rules)["waits"] is h["discards"][str(T("N"))]
    assert hint_of_view(M.view(m, None), m.rules) is None  # a spectator has no hand
    other = hint_of_view(M.view(m, 1), m.rules)
    assert other == {"waits": []}  # 13 tiles, not ready


def test_skipping_hands_that_are_not_ready_changes_no_hint():
    """_waits skips scoring when shanten says the hand is not ready: for ready hands of every form
    (the generator's winning hands less their winning tile) and for the same hands with one tile
    changed (mostly not ready), it must give what scoring all 34 kinds gives."""
    import random

    from game.fans.context import WinContext
    from game.hints import _score_waits, _waits
    from game.tiles import NUM_KINDS
    from tests.support.handgen import copies, winning_hands

    rng = random.Random(5)
    ctx = WinContext(win_tile=0)
    ready = empty = 0
    for g in winning_hands(11, 400):
        melds, tiles = tuple(g.hand.melds), tuple(sorted(g.hand.tiles))
        hands = [tiles]
        used = copies(g.hand, g.ctx)
        for _ in range(3):
            i, t = rng.randrange(len(tiles)), rng.randrange(NUM_KINDS)
            if used[t] < 4:
                hands.append(tuple(sorted(tiles[:i] + (t,) + tiles[i + 1:])))
        for standing in hands:
            got = _waits(melds, standing, GUOBIAO, ctx, False, False)
            assert got == _score_waits(melds, standing, GUOBIAO, ctx, False, False), (melds, standing)
            ready += bool(got)
            empty += not got
    assert ready >= 400 and empty >= 300  # ready hands and hands with no wait were both checked


def test_a_wait_short_of_the_minimum_on_a_discard_may_reach_it_self_drawn():
    """门前清 2 + 平和 2 + 断幺 2 + 喜相逢 1 = 7 on a discard: not enough in a 国标馆; self-drawn,
    不求人 4 (instead of 门前清 and 自摸) makes 9."""
    hand, _ = parse_hand("234m 234p 678s 55m 67s")
    w = waits_of(hint(hand.melds, hand.tiles, rules=GUOBIAO))[T("5s")]
    assert (w["total"], w["meets_min"]) == (7, False)
    assert w["self_drawn"] == {"total": 9, "total_without_flowers": 9, "meets_min": True}
    # An exposed set: 自摸 1 rather than 不求人, and neither way enough.
    hand, _ = parse_hand("[234m] 234p 678s 55m 67s")
    w = waits_of(hint(hand.melds, hand.tiles, rules=GUOBIAO))[T("5s")]
    assert w["self_drawn"]["total"] == w["total"] + 1 and not w["self_drawn"]["meets_min"]


def test_a_draw_lowers_the_shanten_by_one_at_most_and_a_discard_never():
    """What rooms/messages.py's hint memo relies on to skip the shanten (``hint_and_shanten``'s floor):
    random hands of every meld count, every draw and every discard after it; honor-heavy hands too, for
    the special forms."""
    import random

    from game.hints import hint_and_shanten
    from game.rules import Rules
    from game.shanten import shanten

    rng = random.Random(3)
    for trial in range(400):
        k = rng.choice((0, 0, 0, 1, 2, 3, 4))
        wall = [t for t in range(34) for _ in range(4)]
        rng.shuffle(wall)
        if trial % 3 == 0:
            wall.sort(key=lambda t: (t < 27, rng.random()))
        hand = tuple(sorted(wall[:13 - 3 * k]))
        s13 = shanten(hand, k)
        for t in range(34):
            if hand.count(t) == 4:
                continue
            drawn = tuple(sorted(hand + (t,)))
            s14 = shanten(drawn, k)
            assert s13 - 1 <= s14 <= s13
            for d in set(drawn):
                i = drawn.index(d)
                assert shanten(drawn[:i] + drawn[i + 1:], k) >= s14
        # A floor at or below the shanten gives the same hint and bound as computing it.
        exact = hint_and_shanten((), hand, rules=Rules()) if k == 0 else None
        if exact is not None and exact[1] > 0:
            assert hint_and_shanten((), hand, rules=Rules(), floor=exact[1]) == exact
