"""The 81 fans of the 1998 rules (R98 番种分值表), one definition each.

Every fan carries its 不计 list as data (``excludes``); the scorer applies them in one place
(``game.fans.principles``). Exclusions follow the reference calculator where it goes beyond the R98
table (shared/rules/fans.md §1, decisions.md item 3); the Δ notes there say why.

- ``excludes``: fans never counted together with this one (不重复原则).
- ``excludes_own``: fans not counted again on the very sets that formed this one (e.g. 三风刻 and the
  幺九刻 of its three wind pungs; 圈风刻 and the 幺九刻 of its pung).
- ``excludes_once``: fans of which exactly one occurrence is absorbed (九莲宝灯 and one 幺九刻).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Fan:
    id: int
    points: int
    name: str
    name_en: str
    excludes: frozenset[int] = frozenset()
    excludes_own: frozenset[int] = frozenset()
    excludes_once: frozenset[int] = frozenset()


# Fan ids: the official 1998 numbers.
BIG_FOUR_WINDS = 1
BIG_THREE_DRAGONS = 2
ALL_GREEN = 3
NINE_GATES = 4
FOUR_KONGS = 5
SEVEN_SHIFTED_PAIRS = 6
THIRTEEN_ORPHANS = 7
ALL_TERMINALS = 8
LITTLE_FOUR_WINDS = 9
LITTLE_THREE_DRAGONS = 10
ALL_HONORS = 11
FOUR_CONCEALED_PUNGS = 12
PURE_TERMINAL_CHOWS = 13
QUADRUPLE_CHOW = 14
FOUR_PURE_SHIFTED_PUNGS = 15
FOUR_PURE_SHIFTED_CHOWS = 16
THREE_KONGS = 17
ALL_TERMINALS_AND_HONORS = 18
SEVEN_PAIRS = 19
GREATER_HONORS_AND_KNITTED = 20
ALL_EVEN_PUNGS = 21
FULL_FLUSH = 22
PURE_TRIPLE_CHOW = 23
PURE_SHIFTED_PUNGS = 24
UPPER_TILES = 25
MIDDLE_TILES = 26
LOWER_TILES = 27
PURE_STRAIGHT = 28
THREE_SUITED_TERMINAL_CHOWS = 29
PURE_SHIFTED_CHOWS = 30
ALL_FIVE = 31
TRIPLE_PUNG = 32
THREE_CONCEALED_PUNGS = 33
LESSER_HONORS_AND_KNITTED = 34
KNITTED_STRAIGHT = 35
UPPER_FOUR = 36
LOWER_FOUR = 37
BIG_THREE_WINDS = 38
MIXED_STRAIGHT = 39
REVERSIBLE_TILES = 40
MIXED_TRIPLE_CHOW = 41
MIXED_SHIFTED_PUNGS = 42
CHICKEN_HAND = 43
LAST_TILE_DRAW = 44
LAST_TILE_CLAIM = 45
OUT_WITH_REPLACEMENT_TILE = 46
ROBBING_THE_KONG = 47
ALL_PUNGS = 48
HALF_FLUSH = 49
MIXED_SHIFTED_CHOWS = 50
ALL_TYPES = 51
MELDED_HAND = 52
TWO_CONCEALED_KONGS = 53
TWO_DRAGONS_PUNGS = 54
OUTSIDE_HAND = 55
FULLY_CONCEALED_HAND = 56
TWO_MELDED_KONGS = 57
LAST_TILE = 58
DRAGON_PUNG = 59
PREVALENT_WIND = 60
SEAT_WIND = 61
CONCEALED_HAND = 62
ALL_CHOWS = 63
TILE_HOG = 64
DOUBLE_PUNG = 65
TWO_CONCEALED_PUNGS = 66
CONCEALED_KONG = 67
ALL_SIMPLES = 68
PURE_DOUBLE_CHOW = 69
MIXED_DOUBLE_CHOW = 70
SHORT_STRAIGHT = 71
TWO_TERMINAL_CHOWS = 72
PUNG_OF_TERMINALS_OR_HONORS = 73
MELDED_KONG = 74
ONE_VOIDED_SUIT = 75
NO_HONORS = 76
EDGE_WAIT = 77
CLOSED_WAIT = 78
SINGLE_WAIT = 79
SELF_DRAWN = 80
FLOWER_TILES = 81

# The 1-fan chow pairs, in the account-once pruning priority (R98 套算一次; fans.md §2.4).
CHOW_PAIR_FANS = (PURE_DOUBLE_CHOW, MIXED_DOUBLE_CHOW, SHORT_STRAIGHT, TWO_TERMINAL_CHOWS)
KONG_FANS = (FOUR_KONGS, THREE_KONGS, TWO_CONCEALED_KONGS, TWO_MELDED_KONGS, CONCEALED_KONG, MELDED_KONG)
CONCEALMENT = (CONCEALED_HAND, FULLY_CONCEALED_HAND)


def _fan(id_, points, name, name_en, excludes=(), own=(), once=()) -> Fan:
    return Fan(id_, points, name, name_en, frozenset(excludes), frozenset(own), frozenset(once))


_SPECIAL_FORM = (CONCEALED_HAND, FULLY_CONCEALED_HAND, SINGLE_WAIT)

FANS: dict[int, Fan] = {f.id: f for f in (
    # 88
    _fan(1, 88, "大四喜", "Big Four Winds",
         (BIG_THREE_WINDS, LITTLE_FOUR_WINDS, ALL_PUNGS, PREVALENT_WIND, SEAT_WIND, PUNG_OF_TERMINALS_OR_HONORS)),
    _fan(2, 88, "大三元", "Big Three Dragons", (TWO_DRAGONS_PUNGS, DRAGON_PUNG)),
    _fan(3, 88, "绿一色", "All Green", (HALF_FLUSH, ONE_VOIDED_SUIT)),
    _fan(4, 88, "九莲宝灯", "Nine Gates",
         (FULL_FLUSH, CONCEALED_HAND, FULLY_CONCEALED_HAND, ONE_VOIDED_SUIT, NO_HONORS),
         once=(PUNG_OF_TERMINALS_OR_HONORS,)),
    _fan(5, 88, "四杠", "Four Kongs",
         (THREE_KONGS, TWO_MELDED_KONGS, TWO_CONCEALED_KONGS, MELDED_KONG, CONCEALED_KONG, ALL_PUNGS, SINGLE_WAIT)),
    _fan(6, 88, "连七对", "Seven Shifted Pairs",
         (SEVEN_PAIRS, FULL_FLUSH, ONE_VOIDED_SUIT, NO_HONORS) + _SPECIAL_FORM),
    _fan(7, 88, "十三幺", "Thirteen Orphans", (ALL_TYPES, ALL_TERMINALS_AND_HONORS) + _SPECIAL_FORM),
    # 64
    _fan(8, 64, "清幺九", "All Terminals",
         (ALL_TERMINALS_AND_HONORS, ALL_PUNGS, OUTSIDE_HAND, PUNG_OF_TERMINALS_OR_HONORS, NO_HONORS, DOUBLE_PUNG)),
    _fan(9, 64, "小四喜", "Little Four Winds", (BIG_THREE_WINDS, PUNG_OF_TERMINALS_OR_HONORS)),
    _fan(10, 64, "小三元", "Little Three Dragons", (TWO_DRAGONS_PUNGS, DRAGON_PUNG)),
    _fan(11, 64, "字一色", "All Honors",
         (ALL_TERMINALS_AND_HONORS, ALL_PUNGS, OUTSIDE_HAND, PUNG_OF_TERMINALS_OR_HONORS, ONE_VOIDED_SUIT)),
    _fan(12, 64, "四暗刻", "Four Concealed Pungs",
         (THREE_CONCEALED_PUNGS, TWO_CONCEALED_PUNGS, ALL_PUNGS, CONCEALED_HAND, FULLY_CONCEALED_HAND)),
    _fan(13, 64, "一色双龙会", "Pure Terminal Chows",
         (SEVEN_PAIRS, FULL_FLUSH, ALL_CHOWS, NO_HONORS, ONE_VOIDED_SUIT) + CHOW_PAIR_FANS),
    # 48
    _fan(14, 48, "一色四同顺", "Quadruple Chow", (PURE_TRIPLE_CHOW, PURE_DOUBLE_CHOW, TILE_HOG)),
    _fan(15, 48, "一色四节高", "Four Pure Shifted Pungs", (PURE_SHIFTED_PUNGS, ALL_PUNGS)),
    # 32
    _fan(16, 32, "一色四步高", "Four Pure Shifted Chows",
         (PURE_SHIFTED_CHOWS, SHORT_STRAIGHT, TWO_TERMINAL_CHOWS, PURE_DOUBLE_CHOW)),
    _fan(17, 32, "三杠", "Three Kongs", (TWO_MELDED_KONGS, TWO_CONCEALED_KONGS, MELDED_KONG, CONCEALED_KONG)),
    _fan(18, 32, "混幺九", "All Terminals and Honors", (ALL_PUNGS, OUTSIDE_HAND, PUNG_OF_TERMINALS_OR_HONORS)),
    # 24
    _fan(19, 24, "七对", "Seven Pairs", _SPECIAL_FORM),
    _fan(20, 24, "七星不靠", "Greater Honors and Knitted Tiles",
         (LESSER_HONORS_AND_KNITTED, ALL_TYPES) + _SPECIAL_FORM),
    _fan(21, 24, "全双刻", "All Even Pungs", (ALL_PUNGS, ALL_SIMPLES, NO_HONORS)),
    _fan(22, 24, "清一色", "Full Flush", (ONE_VOIDED_SUIT, NO_HONORS)),
    _fan(23, 24, "一色三同顺", "Pure Triple Chow", (PURE_SHIFTED_PUNGS,)),
    _fan(24, 24, "一色三节高", "Pure Shifted Pungs", (PURE_TRIPLE_CHOW,)),
    _fan(25, 24, "全大", "Upper Tiles", (UPPER_FOUR, NO_HONORS)),
    _fan(26, 24, "全中", "Middle Tiles", (ALL_SIMPLES, NO_HONORS)),
    _fan(27, 24, "全小", "Lower Tiles", (LOWER_FOUR, NO_HONORS)),
    # 16
    _fan(28, 16, "清龙", "Pure Straight"),
    _fan(29, 16, "三色双龙会", "Three-Suited Terminal Chows", (ALL_CHOWS, NO_HONORS) + CHOW_PAIR_FANS),
    _fan(30, 16, "一色三步高", "Pure Shifted Chows"),
    _fan(31, 16, "全带五", "All Five", (ALL_SIMPLES, NO_HONORS)),
    _fan(32, 16, "三同刻", "Triple Pung"),
    _fan(33, 16, "三暗刻", "Three Concealed Pungs"),
    # 12
    _fan(34, 12, "全不靠", "Lesser Honors and Knitted Tiles", (ALL_TYPES,) + _SPECIAL_FORM),
    _fan(35, 12, "组合龙", "Knitted Straight"),
    _fan(36, 12, "大于五", "Upper Four", (NO_HONORS,)),
    _fan(37, 12, "小于五", "Lower Four", (NO_HONORS,)),
    _fan(38, 12, "三风刻", "Big Three Winds", own=(PUNG_OF_TERMINALS_OR_HONORS,)),
    # 8
    _fan(39, 8, "花龙", "Mixed Straight"),
    _fan(40, 8, "推不倒", "Reversible Tiles", (ONE_VOIDED_SUIT,)),
    _fan(41, 8, "三色三同顺", "Mixed Triple Chow"),
    _fan(42, 8, "三色三节高", "Mixed Shifted Pungs"),
    _fan(43, 8, "无番和", "Chicken Hand"),
    _fan(44, 8, "妙手回春", "Last Tile Draw", (SELF_DRAWN,)),
    _fan(45, 8, "海底捞月", "Last Tile Claim"),
    _fan(46, 8, "杠上开花", "Out with Replacement Tile", (SELF_DRAWN,)),
    _fan(47, 8, "抢杠和", "Robbing The Kong", (LAST_TILE,)),
    # 6
    _fan(48, 6, "碰碰和", "All Pungs"),
    _fan(49, 6, "混一色", "Half Flush", (ONE_VOIDED_SUIT,)),
    _fan(50, 6, "三色三步高", "Mixed Shifted Chows"),
    _fan(51, 6, "五门齐", "All Types"),
    _fan(52, 6, "全求人", "Melded Hand", (SINGLE_WAIT,)),
    _fan(53, 6, "双暗杠", "Two Concealed Kongs", (CONCEALED_KONG, TWO_CONCEALED_PUNGS)),
    _fan(54, 6, "双箭刻", "Two Dragons Pungs", (DRAGON_PUNG,)),
    # 4
    _fan(55, 4, "全带幺", "Outside Hand"),
    _fan(56, 4, "不求人", "Fully Concealed Hand", (CONCEALED_HAND, SELF_DRAWN)),
    _fan(57, 4, "双明杠", "Two Melded Kongs", (MELDED_KONG,)),
    _fan(58, 4, "和绝张", "Last Tile"),
    # 2
    _fan(59, 2, "箭刻", "Dragon Pung"),
    _fan(60, 2, "圈风刻", "Prevalent Wind", own=(PUNG_OF_TERMINALS_OR_HONORS,)),
    _fan(61, 2, "门风刻", "Seat Wind", own=(PUNG_OF_TERMINALS_OR_HONORS,)),
    _fan(62, 2, "门前清", "Concealed Hand"),
    _fan(63, 2, "平和", "All Chows", (NO_HONORS,)),
    _fan(64, 2, "四归一", "Tile Hog"),
    _fan(65, 2, "双同刻", "Double Pung"),
    _fan(66, 2, "双暗刻", "Two Concealed Pungs"),
    _fan(67, 2, "暗杠", "Concealed Kong"),
    _fan(68, 2, "断幺", "All Simples", (NO_HONORS,)),
    # 1
    _fan(69, 1, "一般高", "Pure Double Chow"),
    _fan(70, 1, "喜相逢", "Mixed Double Chow"),
    _fan(71, 1, "连六", "Short Straight"),
    _fan(72, 1, "老少副", "Two Terminal Chows"),
    _fan(73, 1, "幺九刻", "Pung of Terminals or Honors"),
    _fan(74, 1, "明杠", "Melded Kong"),
    _fan(75, 1, "缺一门", "One Voided Suit"),
    _fan(76, 1, "无字", "No Honors"),
    _fan(77, 1, "边张", "Edge Wait"),
    _fan(78, 1, "嵌张", "Closed Wait"),  # R98 writes 坎张; see fans.md "Naming and numbering gotchas"
    _fan(79, 1, "单钓将", "Single Wait"),
    _fan(80, 1, "自摸", "Self-Drawn"),
    _fan(81, 1, "花牌", "Flower Tiles"),
)}

ALIASES = {"坎张": CLOSED_WAIT}

# Exclusions are applied from the highest fan down, so a fan that is itself excluded no longer
# excludes anything (四暗刻 drops 不求人, which then cannot drop 自摸).
PRECEDENCE = tuple(sorted(FANS, key=lambda i: (-FANS[i].points, i)))

assert len(FANS) == 81 and all(FANS[i].id == i for i in range(1, 82))
