"""Every one of the 81 fans, one case at a time, checked against the reference calculator.

Each fan has (at least) three cases in ``CASES``:

- **positive**: a hand that scores the fan, with the count it must have;
- **negative**: a close hand (a tile, a meld or a flag changed) where the fan is not scored;
- **exclusion**: a hand where a fan on its 不计 list (``game/fans/table.py``) would apply but is
  correctly absent. For a fan that excludes nothing, the hand shows a fan that excludes *it*
  winning over it; for the few fans with no exclusion either way (清龙, 三同刻, 组合龙, 花龙, ...)
  it shows the scoring principle that bounds them (不拆移, 套算一次, the 边张 > 嵌张 > 单钓将
  priority) or a fan that is *not* excluded and must stay (e.g. 组合龙 with 平和, flowers with 无番和).

Every case also asserts that our whole fan multiset and total equal the reference calculator's
(PyMahjongGB 1.4.0 through ``tests.support.reference``, which already turns its non-1998 明暗杠 into
明杠 + 暗杠, decisions.md item 2).

Context column: empty = won on a discard, seat and prevalent wind East, no flowers. Otherwise any of
``self_drawn``, ``fourth_tile`` (和绝张), ``kong`` (杠上开花 when self-drawn, 抢杠和 on a discard),
``last_tile`` (妙手回春 / 海底捞月), ``seat=S``, ``prevalent=N``, ``flowers=3``.

Expected column: ``{fan name: count}``; a count of 0 means the fan must be absent. Fans not named
are still checked, through the comparison with the reference.

The file also holds ``is_winning`` / ``is_complete`` tests and a hypothesis property test of ``score``
on generated winning hands; error codes are in ``test_scoring_errors.py``.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from game.fans.context import WinContext
from game.fans.table import ALIASES, FANS, FLOWER_TILES
from game.hand import CHOW, KONG, PUNG, Hand, Meld, format_hand, parse_hand
from game.rules import Rules
from game.scoring import is_complete, is_winning, score
from game.tiles import NUM_KINDS, rank
from tests.support.reference import reference_fans

POS, NEG, EXC = "positive", "negative", "exclusion"

# fmt: off
CASES = [
    # fan kind  hand                                    context                     expected {fan: count}, 0 = absent
    # ---- 88 ------------------------------------------------------------------------------------------------
    (1,  POS, "[EEE] [SSSS] 55pWWWNN +N",              "",                          {"大四喜": 1}),
    (1,  NEG, "[EEE] [SSS] WWWNN12p +3p",              "",                          {"大四喜": 0, "小四喜": 1}),
    (1,  EXC, "[EEE] [SSSS] 55pWWWNN +N",              "seat=W prevalent=S",        {"大四喜": 1, "小四喜": 0, "三风刻": 0, "碰碰和": 0,
                                                                                     "圈风刻": 0, "门风刻": 0, "幺九刻": 0}),
    (2,  POS, "[CCC] [FFF] PPP123m5s +5s",             "",                          {"大三元": 1}),
    (2,  NEG, "[CCC] [FFF] PP123m55s +5s",             "",                          {"大三元": 0, "小三元": 1}),
    (2,  EXC, "[CCC] [FFFF] PPP123m5s +5s",            "",                          {"大三元": 1, "双箭刻": 0, "箭刻": 0}),
    (3,  POS, "22334466688sFF +F",                     "",                          {"绿一色": 1}),
    (3,  NEG, "22334455588sFF +F",                     "",                          {"绿一色": 0, "混一色": 1}),
    (3,  EXC, "[234s] 234s666s88sFF +F",               "",                          {"绿一色": 1, "混一色": 0, "缺一门": 0}),
    (4,  POS, "1112345678999m +5m",                    "",                          {"九莲宝灯": 1}),
    (4,  NEG, "[111m] 2345678999m +5m",                "",                          {"九莲宝灯": 0, "清一色": 1}),
    (4,  EXC, "1112345678999m +5m",                    "self_drawn",                {"九莲宝灯": 1, "清一色": 0, "不求人": 0, "门前清": 0,
                                                                                     "缺一门": 0, "无字": 0, "幺九刻": 1, "自摸": 1}),
    (5,  POS, "[1111m] [2222s] {3333p} [EEEE] W +W",   "",                          {"四杠": 1}),
    (5,  NEG, "[1111m] [2222s] {3333p} [EEE] W +W",    "",                          {"四杠": 0, "三杠": 1}),
    (5,  EXC, "[1111m] {2222s} {3333p} {EEEE} W +W",   "self_drawn",                {"四杠": 1, "三杠": 0, "双暗杠": 0, "双明杠": 0, "暗杠": 0,
                                                                                     "明杠": 0, "碰碰和": 0, "单钓将": 0, "三暗刻": 1}),
    (6,  POS, "1122334455667s +7s",                    "",                          {"连七对": 1}),
    (6,  NEG, "1122334455668s +8s",                    "",                          {"连七对": 0, "七对": 1, "清一色": 1}),
    (6,  EXC, "2233445566778p +8p",                    "self_drawn",                {"连七对": 1, "七对": 0, "清一色": 0, "不求人": 0, "门前清": 0,
                                                                                     "缺一门": 0, "无字": 0, "单钓将": 0, "断幺": 1, "自摸": 1}),
    (7,  POS, "19m19s19pESWNCFP +1m",                  "",                          {"十三幺": 1}),
    (7,  NEG, "1199m1199sEESSC +C",                    "",                          {"十三幺": 0, "七对": 1, "混幺九": 1}),
    (7,  EXC, "19m19s19pESWNCFP +P",                   "self_drawn",                {"十三幺": 1, "五门齐": 0, "混幺九": 0, "不求人": 0, "门前清": 0,
                                                                                     "单钓将": 0, "自摸": 1}),
    # ---- 64 ------------------------------------------------------------------------------------------------
    (8,  POS, "[111m] 999m111s999s1p +1p",             "",                          {"清幺九": 1}),
    (8,  NEG, "[111m] 999m111s999sE +E",               "",                          {"清幺九": 0, "混幺九": 1}),
    (8,  EXC, "[111m] 999m111s999s1p +1p",             "",                          {"清幺九": 1, "混幺九": 0, "碰碰和": 0, "全带幺": 0, "幺九刻": 0,
                                                                                     "无字": 0, "双同刻": 0}),
    # decisions.md item 3: 清幺九 drops 双同刻 but keeps 三同刻.
    (8,  EXC, "111m111s111p999m9s +9s",                "self_drawn",                {"清幺九": 1, "三同刻": 1, "双同刻": 0, "四暗刻": 1}),
    (9,  POS, "[EEE] [SSS] WWWNN12p +3p",              "",                          {"小四喜": 1}),
    (9,  NEG, "[EEE] [SSS] WWW12p55p +3p",             "",                          {"小四喜": 0, "三风刻": 1}),
    (9,  EXC, "[EEE] [SSS] WWWNN99p +9p",              "seat=W prevalent=N",        {"小四喜": 1, "三风刻": 0, "幺九刻": 0, "门风刻": 1}),
    (10, POS, "[CCC] [FFF] PP123m55s +5s",             "",                          {"小三元": 1}),
    (10, NEG, "[CCC] [FFF] 123m55s99s +5s",            "",                          {"小三元": 0, "双箭刻": 1}),
    (10, EXC, "[CCC] [FFFF] PP789m11s +1s",            "",                          {"小三元": 1, "双箭刻": 0, "箭刻": 0, "明杠": 1}),
    (11, POS, "[EEE] [WWW] CCCNNPP +P",                "",                          {"字一色": 1}),
    (11, NEG, "[EEE] [WWW] CCCNN11m +1m",              "",                          {"字一色": 0, "混幺九": 1}),
    (11, EXC, "[SSS] [NNN] WWWCCFF +F",                "",                          {"字一色": 1, "混幺九": 0, "碰碰和": 0, "全带幺": 0, "幺九刻": 0,
                                                                                     "缺一门": 0, "三风刻": 1}),
    (12, POS, "111m222s333pEEEC +C",                   "",                          {"四暗刻": 1}),
    (12, NEG, "111m222s333pEECC +C",                   "",                          {"四暗刻": 0, "三暗刻": 1, "碰碰和": 1}),
    (12, EXC, "111m222s333pEEEC +C",                   "self_drawn",                {"四暗刻": 1, "三暗刻": 0, "双暗刻": 0, "碰碰和": 0, "门前清": 0,
                                                                                     "不求人": 0, "自摸": 1}),
    (13, POS, "1122337788995s +5s",                    "",                          {"一色双龙会": 1}),
    (13, NEG, "112233778899s5p +5p",                   "",                          {"一色双龙会": 0, "七对": 1}),
    (13, EXC, "1122337788995s +5s",                    "self_drawn",                {"一色双龙会": 1, "七对": 0, "清一色": 0, "平和": 0, "一般高": 0,
                                                                                     "老少副": 0, "无字": 0, "缺一门": 0, "不求人": 1}),
    # ---- 48 ------------------------------------------------------------------------------------------------
    (14, POS, "[123m] 123m123m123m5p +5p",             "",                          {"一色四同顺": 1}),
    (14, NEG, "[123m] 123m123m234m5p +5p",             "",                          {"一色四同顺": 0, "一色三同顺": 1}),
    (14, EXC, "111122223333m5p +5p",                   "",                          {"一色四同顺": 1, "一色三同顺": 0, "一般高": 0, "四归一": 0,
                                                                                     "一色三节高": 0}),
    (15, POS, "[111m] [222m] 333444m5p +5p",           "",                          {"一色四节高": 1}),
    (15, NEG, "[111m] [222m] 333555m5p +5p",           "",                          {"一色四节高": 0, "一色三节高": 1}),
    (15, EXC, "[111m] [222m] [333m] 444m5p +5p",       "",                          {"一色四节高": 1, "一色三节高": 0, "碰碰和": 0}),
    # ---- 32 ------------------------------------------------------------------------------------------------
    (16, POS, "[123m] 345m567m789m1p +1p",             "",                          {"一色四步高": 1}),
    (16, NEG, "[123m] 345m567m678m1p +1p",             "",                          {"一色四步高": 0, "一色三步高": 1}),
    (16, EXC, "123m234m345m456m5p +5p",                "",                          {"一色四步高": 1, "一色三步高": 0, "连六": 0, "老少副": 0,
                                                                                     "一般高": 0}),
    (17, POS, "[1111m] [2222s] {3333p} 456pW +W",      "",                          {"三杠": 1}),
    (17, NEG, "[1111m] [2222s] 333p456pW +W",          "",                          {"三杠": 0, "双明杠": 1}),
    (17, EXC, "[1111m] {2222s} {3333p} 456pW +W",      "self_drawn",                {"三杠": 1, "双暗杠": 0, "双明杠": 0, "暗杠": 0, "明杠": 0,
                                                                                     "双暗刻": 1}),
    (18, POS, "[111m] 999m111sEEEW +W",                "",                          {"混幺九": 1}),
    (18, NEG, "[111m] 999m123sEEEW +W",                "",                          {"混幺九": 0, "全带幺": 1}),
    (18, EXC, "[111m] 999m111sEEEW +W",                "seat=S prevalent=S",        {"混幺九": 1, "碰碰和": 0, "全带幺": 0, "幺九刻": 0}),
    # ---- 24 ------------------------------------------------------------------------------------------------
    (19, POS, "1133m2266s44pEEC +C",                   "",                          {"七对": 1}),
    (19, NEG, "112233m345s44pEE +E",                   "",                          {"七对": 0, "一般高": 1}),
    (19, EXC, "1133m2266s44pEEC +C",                   "self_drawn",                {"七对": 1, "不求人": 0, "门前清": 0, "单钓将": 0, "自摸": 1}),
    (20, POS, "147m258sESWNCFP +3p",                   "",                          {"七星不靠": 1}),
    (20, NEG, "147m258s36pESWNC +F",                   "",                          {"七星不靠": 0, "全不靠": 1}),
    (20, EXC, "147m258sESWNCFP +3p",                   "self_drawn",                {"七星不靠": 1, "全不靠": 0, "五门齐": 0, "不求人": 0, "门前清": 0,
                                                                                     "单钓将": 0, "自摸": 1}),
    (21, POS, "[222m] [444s] 666p888m2s +2s",          "",                          {"全双刻": 1}),
    (21, NEG, "[222m] [444s] 666p888m5s +5s",          "",                          {"全双刻": 0, "碰碰和": 1, "断幺": 1}),
    (21, EXC, "[444m] [666s] 888p222s4p +4p",          "",                          {"全双刻": 1, "碰碰和": 0, "断幺": 0, "无字": 0}),
    (22, POS, "[123m] 345m678m999m2m +2m",             "",                          {"清一色": 1}),
    (22, NEG, "[123m] 345m678m999m2s +2s",             "",                          {"清一色": 0, "缺一门": 1}),
    (22, EXC, "[123m] 345m678m999m2m +2m",             "self_drawn",                {"清一色": 1, "缺一门": 0, "无字": 0}),
    (23, POS, "[123m] 123m123m456s5p +5p",             "",                          {"一色三同顺": 1}),
    (23, NEG, "[123m] 123m234m456s5p +5p",             "",                          {"一色三同顺": 0, "一般高": 1}),
    # 222 333 444m also reads as 一色三节高 for the same total (31); the 三同顺 reading is preferred
    # (decisions.md item 3) and 一色三节高 is not added on top.
    (23, EXC, "22233344m234s55p +4m",                  "",                          {"一色三同顺": 1, "一色三节高": 0, "喜相逢": 1}),
    (24, POS, "[111m] [222m] 333m456s5p +5p",          "",                          {"一色三节高": 1}),
    (24, NEG, "[111m] [222m] 444m456s5p +5p",          "",                          {"一色三节高": 0}),
    (24, EXC, "111222333m789s5p +5p",                  "",                          {"一色三节高": 1, "一色三同顺": 0, "三暗刻": 1}),
    (25, POS, "[789m] 789s999p888s7p +7p",             "",                          {"全大": 1}),
    (25, NEG, "[789m] 789s999p888s6p +6p",             "",                          {"全大": 0, "大于五": 1}),
    (25, EXC, "[789m] 789s789p999s8m +8m",             "",                          {"全大": 1, "大于五": 0, "无字": 0, "三色三同顺": 1}),
    (26, POS, "[456m] 456s444p666s5p +5p",             "",                          {"全中": 1}),
    (26, NEG, "[456m] 456s444p666s3p +3p",             "",                          {"全中": 0, "断幺": 1}),
    (26, EXC, "[456m] 456s456p555m6s +6s",             "",                          {"全中": 1, "断幺": 0, "无字": 0, "三色三同顺": 1}),
    (27, POS, "[123m] 123s111p222s3p +3p",             "",                          {"全小": 1}),
    (27, NEG, "[123m] 123s111p222s4p +4p",             "",                          {"全小": 0, "小于五": 1}),
    (27, EXC, "[123m] 123s123p333s2m +2m",             "",                          {"全小": 1, "小于五": 0, "无字": 0, "三色三同顺": 1}),
    # ---- 16 ------------------------------------------------------------------------------------------------
    (28, POS, "[123m] 456m789m234s5p +5p",             "",                          {"清龙": 1}),
    (28, NEG, "[123m] 456s789p234s5p +5p",             "",                          {"清龙": 0, "花龙": 1}),
    # 清龙 excludes nothing and nothing excludes it: 不拆移, its chows give no 连六 / 老少副.
    (28, EXC, "123456789mEEE5p +5p",                   "seat=S prevalent=S",        {"清龙": 1, "连六": 0, "老少副": 0}),
    (29, POS, "[123m] 789m123s789s5p +5p",             "",                          {"三色双龙会": 1}),
    (29, NEG, "[123m] 789m123s789s5m +5m",             "",                          {"三色双龙会": 0, "喜相逢": 2, "老少副": 1}),
    (29, EXC, "123789p123789s5m +5m",                  "",                          {"三色双龙会": 1, "平和": 0, "喜相逢": 0, "老少副": 0, "一般高": 0,
                                                                                     "连六": 0, "无字": 0}),
    (30, POS, "[123m] 234m345m789s5p +5p",             "",                          {"一色三步高": 1}),
    (30, NEG, "[123m] 234m456m789s5p +5p",             "",                          {"一色三步高": 0, "连六": 1}),
    (30, EXC, "[234p] 345p456p567p9m +9m",             "",                          {"一色三步高": 0, "一色四步高": 1}),
    (31, POS, "[345m] 555s456p567m5p +5p",             "",                          {"全带五": 1}),
    (31, NEG, "[345m] 555s456p567m6p +6p",             "",                          {"全带五": 0, "断幺": 1}),
    (31, EXC, "[456s] 345m555p567s5m +5m",             "",                          {"全带五": 1, "断幺": 0, "无字": 0}),
    (32, POS, "[222m] [222s] 222p456m9s +9s",          "",                          {"三同刻": 1}),
    (32, NEG, "[222m] [222s] 333p456m9s +9s",          "",                          {"三同刻": 0, "双同刻": 1}),
    # 三同刻 excludes nothing and nothing excludes it: no 双同刻 among its own three pungs.
    (32, EXC, "[555m] [555s] 555p789m1s +1s",          "",                          {"三同刻": 1, "双同刻": 0}),
    (33, POS, "[123m] 222s444p666m9s +9s",             "",                          {"三暗刻": 1}),
    (33, NEG, "[123m] 222s444p66m99s +6m",             "",                          {"三暗刻": 0, "双暗刻": 1}),
    (33, EXC, "222m444s666p888mE +E",                  "",                          {"三暗刻": 0, "四暗刻": 1}),
    # ---- 12 ------------------------------------------------------------------------------------------------
    (34, POS, "147m258s36pESWNC +F",                   "",                          {"全不靠": 1}),
    (34, NEG, "147m258sESWNCFP +3p",                   "",                          {"全不靠": 0, "七星不靠": 1}),
    (34, EXC, "258m369s14pESWCF +7p",                  "self_drawn",                {"全不靠": 1, "五门齐": 0, "不求人": 0, "门前清": 0, "单钓将": 0,
                                                                                     "自摸": 1}),
    (35, POS, "147m258s369p123m5p +5p",                "",                          {"组合龙": 1}),
    (35, NEG, "123m456s789p123m5p +5p",                "",                          {"组合龙": 0, "花龙": 1}),
    # 组合龙 excludes nothing and nothing excludes it: it stays with 全不靠 (which drops 五门齐), and
    # the regular form keeps 平和 (fans.md §2.7).
    (35, EXC, "147m258s369pESWN +C",                   "",                          {"组合龙": 1, "全不靠": 1, "五门齐": 0}),
    (35, EXC, "[567m] 147m258s369p5p +5p",             "",                          {"组合龙": 1, "平和": 1, "单钓将": 1}),
    (36, POS, "[678m] 789s999p888s6p +6p",             "",                          {"大于五": 1}),
    (36, NEG, "[678m] 789s999p888s5p +5p",             "",                          {"大于五": 0}),
    (36, EXC, "[678m] 678s678p999s6m +6m",             "",                          {"大于五": 1, "无字": 0, "三色三同顺": 1}),
    (37, POS, "[123m] 234s111p444s3p +3p",             "",                          {"小于五": 1}),
    (37, NEG, "[123m] 234s111p444s5p +5p",             "",                          {"小于五": 0}),
    (37, EXC, "[234m] 234s234p111s4m +4m",             "",                          {"小于五": 1, "无字": 0, "三色三同顺": 1}),
    (38, POS, "[EEE] [SSS] WWW123m5p +5p",             "seat=N prevalent=N",        {"三风刻": 1}),
    (38, NEG, "[EEE] [SSS] 123m456p9s +9s",            "seat=N prevalent=N",        {"三风刻": 0, "幺九刻": 2}),
    # 三风刻 drops the 幺九刻 of its own three pungs only; a fourth terminal pung keeps its own.
    (38, EXC, "[EEE] [SSS] WWW999m5p +5p",             "seat=N prevalent=N",        {"三风刻": 1, "幺九刻": 1}),
    # ---- 8 -------------------------------------------------------------------------------------------------
    (39, POS, "[123m] 456s789p234s5p +5p",             "",                          {"花龙": 1}),
    (39, NEG, "[123m] 456s789s234s5p +5p",             "",                          {"花龙": 0, "连六": 1}),
    # 花龙 excludes nothing and nothing excludes it: 套算一次, the fourth chow pairs with one of its chows.
    (39, EXC, "[123m] 456s789p123s5p +5p",             "",                          {"花龙": 1, "喜相逢": 1}),
    (40, POS, "[123p] 345p888s999pP +P",               "",                          {"推不倒": 1}),
    (40, NEG, "[123p] 345p777s999pP +P",               "",                          {"推不倒": 0, "缺一门": 1}),
    (40, EXC, "[456s] 234p888sPP99p +9p",              "",                          {"推不倒": 1, "缺一门": 0}),
    (41, POS, "[123m] 123s123p789m5s +5s",             "",                          {"三色三同顺": 1}),
    (41, NEG, "[123m] 123s234p789m5s +5s",             "",                          {"三色三同顺": 0, "喜相逢": 1}),
    # 三色三同顺 excludes nothing and nothing excludes it: no 喜相逢 among its own three chows.
    (41, EXC, "[456m] 456s456pEEEN +N",                "",                          {"三色三同顺": 1, "喜相逢": 0}),
    (42, POS, "[222m] [333s] 444p567m9s +9s",          "",                          {"三色三节高": 1}),
    (42, NEG, "[222m] [333s] 555p567m9s +9s",          "",                          {"三色三节高": 0}),
    # 三色三节高 excludes nothing and nothing excludes it: a fourth pung still pairs with one of its pungs.
    (42, EXC, "[222m] [333s] 444p222s9s +9s",          "",                          {"三色三节高": 1, "双同刻": 1, "碰碰和": 1}),
    (43, POS, "[123m] [678s] 34p888mWW +5p",           "",                          {"无番和": 1}),
    (43, NEG, "[123m] [678s] 34p888mWW +5p",           "self_drawn",                {"无番和": 0, "自摸": 1}),
    # 无番和 excludes nothing and no table entry excludes it: flowers do not count against it.
    (43, EXC, "[123m] [678s] 34p888mWW +5p",           "flowers=3",                 {"无番和": 1, "花牌": 3}),
    (44, POS, "[123m] [678s] 34p888mWW +5p",           "self_drawn last_tile",      {"妙手回春": 1}),
    (44, NEG, "[123m] [678s] 34p888mWW +5p",           "last_tile",                 {"妙手回春": 0, "海底捞月": 1}),
    (44, EXC, "123m678s34p888mWW +5p",                 "self_drawn last_tile",      {"妙手回春": 1, "自摸": 0, "不求人": 1}),
    (45, POS, "[123m] [678s] 34p888mWW +5p",           "last_tile",                 {"海底捞月": 1}),
    (45, NEG, "[123m] [678s] 34p888mWW +5p",           "self_drawn last_tile",      {"海底捞月": 0, "妙手回春": 1}),
    # 海底捞月 excludes nothing and nothing excludes it: 和绝张 stays with it.
    (45, EXC, "[123m] [678s] 34p888mWW +5p",           "last_tile fourth_tile",     {"海底捞月": 1, "和绝张": 1}),
    (46, POS, "[1111m] [678s] 34p888mWW +5p",          "self_drawn kong",           {"杠上开花": 1}),
    (46, NEG, "[1111m] [678s] 34p888mWW +5p",          "self_drawn",                {"杠上开花": 0, "自摸": 1}),
    (46, EXC, "[1111m] [678s] 34p888mWW +5p",          "self_drawn kong last_tile", {"杠上开花": 1, "妙手回春": 1, "自摸": 0}),
    (47, POS, "[123m] [678s] 34p888mWW +5p",           "kong",                      {"抢杠和": 1}),
    (47, NEG, "[123m] [678s] 34p888mWW +5p",           "",                          {"抢杠和": 0, "无番和": 1}),
    (47, EXC, "[123m] [678s] 34p888mWW +5p",           "kong fourth_tile",          {"抢杠和": 1, "和绝张": 0}),
    # ---- 6 -------------------------------------------------------------------------------------------------
    (48, POS, "[222m] [555s] 777pEEEN +N",             "",                          {"碰碰和": 1}),
    (48, NEG, "[222m] [555s] 789pEEEN +N",             "",                          {"碰碰和": 0}),
    (48, EXC, "[111m] [999m] [111s] [999p] 9s +9s",    "",                          {"碰碰和": 0, "清幺九": 1}),
    (49, POS, "[123m] 456m888mEEEN +N",                "",                          {"混一色": 1}),
    (49, NEG, "[123m] 456m888mEEE5s +5s",              "",                          {"混一色": 0, "缺一门": 1}),
    (49, EXC, "[CCC] 111s345s789sW +W",                "",                          {"混一色": 1, "缺一门": 0}),
    (50, POS, "[123m] 234s345p789m5s +5s",             "",                          {"三色三步高": 1}),
    (50, NEG, "[123m] 345s567p789m5s +5s",             "",                          {"三色三步高": 0}),
    # 三色三步高 excludes nothing and nothing excludes it: 套算一次, the fourth chow pairs with one of its chows.
    (50, EXC, "[123m] 234s345p123s5p +5p",             "",                          {"三色三步高": 1, "喜相逢": 1}),
    (51, POS, "[123m] 345s678pEEEC +C",                "",                          {"五门齐": 1}),
    (51, NEG, "[123m] 345s678pEEEN +N",                "",                          {"五门齐": 0}),
    (51, EXC, "19m19s19pESWNCFP +9s",                  "",                          {"五门齐": 0, "十三幺": 1}),
    (52, POS, "[123m] [456s] [789p] [EEE] 5p +5p",     "",                          {"全求人": 1}),
    (52, NEG, "[123m] [456s] [789p] [EEE] 5p +5p",     "self_drawn",                {"全求人": 0, "自摸": 1, "单钓将": 1}),
    (52, EXC, "[234m] [567s] [888p] [CCC] 5m +5m",     "",                          {"全求人": 1, "单钓将": 0}),
    (53, POS, "{1111m} {2222s} 345p678m9s +9s",        "",                          {"双暗杠": 1}),
    # decisions.md item 2: a melded and a concealed kong score 明杠 + 暗杠, not 明暗杠.
    (53, NEG, "[1111m] {2222s} 345p678m9s +9s",        "",                          {"双暗杠": 0, "明杠": 1, "暗杠": 1}),
    (53, EXC, "{5555m} {7777s} 456p678m9s +9s",        "",                          {"双暗杠": 1, "暗杠": 0, "双暗刻": 0}),
    (54, POS, "[CCC] [FFF] 123m456s9p +9p",            "",                          {"双箭刻": 1}),
    (54, NEG, "[CCC] [EEE] 123m456s9p +9p",            "",                          {"双箭刻": 0, "箭刻": 1}),
    (54, EXC, "[PPP] CCC234s678s9s +9s",               "",                          {"双箭刻": 1, "箭刻": 0}),
    # ---- 4 -------------------------------------------------------------------------------------------------
    (55, POS, "[123m] 789s111pEEE9m +9m",              "",                          {"全带幺": 1}),
    (55, NEG, "[123m] 456s111pEEE9m +9m",              "",                          {"全带幺": 0}),
    (55, EXC, "[NNN] [WWW] CCCPPSS +S",                "",                          {"全带幺": 0, "字一色": 1}),
    (56, POS, "123m456s678p234s5p +5p",                "self_drawn",                {"不求人": 1}),
    (56, NEG, "123m456s678p234s5p +5p",                "",                          {"不求人": 0, "门前清": 1}),
    (56, EXC, "{2222m} 345m567s789p5s +5s",            "self_drawn",                {"不求人": 1, "门前清": 0, "自摸": 0, "暗杠": 1}),
    (57, POS, "[1111m] [2222s] 345p678m9s +9s",        "",                          {"双明杠": 1}),
    (57, NEG, "[1111m] [222s] 345p678m9s +9s",         "",                          {"双明杠": 0, "明杠": 1}),
    (57, EXC, "[5555m] [7777p] 234s678s9s +9s",        "",                          {"双明杠": 1, "明杠": 0}),
    (58, POS, "[123m] [678s] 34p888mWW +5p",           "fourth_tile",               {"和绝张": 1}),
    # decisions.md item 4: derived without the flag when the winner's own melds show three copies.
    (58, POS, "[111m] [456s] 23m789p55s +1m",          "",                          {"和绝张": 1}),
    (58, NEG, "[123m] [678s] 34p888mWW +5p",           "",                          {"和绝张": 0}),
    (58, EXC, "[111m] [456s] 23m789p55s +4m",          "kong fourth_tile",          {"和绝张": 0, "抢杠和": 1}),
    # ---- 2 -------------------------------------------------------------------------------------------------
    (59, POS, "[CCC] 123m456s678p5s +5s",              "",                          {"箭刻": 1, "幺九刻": 0}),
    (59, NEG, "[EEE] 123m456s678p5s +5s",              "seat=S prevalent=S",        {"箭刻": 0, "幺九刻": 1}),
    (59, EXC, "[PPP] [FFF] CC45m789p +6m",             "",                          {"箭刻": 0, "小三元": 1}),
    (60, POS, "[SSS] 123m456s678p5s +5s",              "prevalent=S",               {"圈风刻": 1}),
    (60, NEG, "[SSS] 123m456s678p5s +5s",              "prevalent=W",               {"圈风刻": 0, "幺九刻": 1}),
    # 圈风刻 drops the 幺九刻 of its own pung only.
    (60, EXC, "[SSS] 111m456s678p5s +5s",              "prevalent=S",               {"圈风刻": 1, "幺九刻": 1}),
    (61, POS, "[SSS] 123m456s678p5s +5s",              "seat=S",                    {"门风刻": 1}),
    (61, NEG, "[SSS] 123m456s678p5s +5s",              "seat=W",                    {"门风刻": 0, "幺九刻": 1}),
    (61, EXC, "[SSS] 123m456s678p5s +5s",              "seat=S prevalent=S",        {"门风刻": 1, "圈风刻": 1, "幺九刻": 0}),
    (62, POS, "123m456s678p234s5p +5p",                "",                          {"门前清": 1}),
    (62, NEG, "[123m] 456s678p234s5p +5p",             "",                          {"门前清": 0}),
    (62, EXC, "2255m3366s4477p8p +8p",                 "",                          {"门前清": 0, "七对": 1}),
    (63, POS, "[123m] 456s678p234s5p +5p",             "",                          {"平和": 1}),
    (63, NEG, "[123m] 456s678p234sE +E",               "",                          {"平和": 0}),
    (63, EXC, "234m567m345s678p9p +9p",                "",                          {"平和": 1, "无字": 0}),
    (64, POS, "[123m] 111m456s678p5s +5s",             "",                          {"四归一": 1}),
    # 七对 may use four copies as two pairs: 四归一 once per such tile.
    (64, POS, "2222m5555s11p99pE +E",                  "",                          {"四归一": 2, "七对": 1}),
    (64, NEG, "[1111m] 234m456s678p5s +5s",            "",                          {"四归一": 0, "明杠": 1}),
    (64, EXC, "[234p] 234p234p234p9s +9s",             "",                          {"四归一": 0, "一色四同顺": 1}),
    (65, POS, "[222m] 222s345p678m9s +9s",             "",                          {"双同刻": 1}),
    (65, POS, "[111m] 999m111s999sE +E",               "",                          {"双同刻": 2}),
    (65, NEG, "[222m] 333s345p678m9s +9s",             "",                          {"双同刻": 0}),
    (65, EXC, "[999m] [999s] 111m111p9p +9p",          "",                          {"双同刻": 0, "清幺九": 1}),
    (66, POS, "[123m] 222s444p567m9s +9s",             "",                          {"双暗刻": 1}),
    # A pung completed by a discard is melded (R98 #66, fans.md §2.9).
    (66, NEG, "[123m] 222s44p567m99s +4p",             "",                          {"双暗刻": 0}),
    (66, EXC, "{2222m} {3333s} 456p567m9s +9s",        "",                          {"双暗刻": 0, "双暗杠": 1}),
    (67, POS, "{2222m} 345s567p678m9s +9s",            "",                          {"暗杠": 1}),
    (67, NEG, "[2222m] 345s567p678m9s +9s",            "",                          {"暗杠": 0, "明杠": 1}),
    (67, EXC, "{1111m} {2222s} [3333p] 456pW +W",      "",                          {"暗杠": 0, "三杠": 1}),
    (68, POS, "[234m] 456s678p345s2s +2s",             "",                          {"断幺": 1}),
    (68, NEG, "[234m] 456s678p345s1s +1s",             "",                          {"断幺": 0}),
    (68, EXC, "223344m567s66p88p +8p",                 "",                          {"断幺": 1, "无字": 0}),
    # ---- 1 -------------------------------------------------------------------------------------------------
    (69, POS, "[123m] 123m456s678p5s +5s",             "",                          {"一般高": 1}),
    (69, POS, "[123m] 123m456s456s5p +5p",             "",                          {"一般高": 2}),
    (69, NEG, "[123m] 234m456s678p5s +5s",             "",                          {"一般高": 0}),
    (69, EXC, "[345s] 345s345s345s9p +9p",             "",                          {"一般高": 0, "一色四同顺": 1}),
    (70, POS, "[123m] 123s456p678m5s +5s",             "",                          {"喜相逢": 1}),
    # fans.md §2.4: 234567s234567p gives 喜相逢 ×2 + 连六 (套算一次).
    (70, POS, "234567s234567pE +E",                    "",                          {"喜相逢": 2, "连六": 1}),
    (70, NEG, "[123m] 234s456p678m5s +5s",             "",                          {"喜相逢": 0}),
    (70, EXC, "[789p] 123p123s789s5m +5m",             "",                          {"喜相逢": 0, "三色双龙会": 1}),
    (71, POS, "[123m] 456m234s678p5p +5p",             "",                          {"连六": 1}),
    (71, NEG, "[123m] 567m234s678p5p +5p",             "",                          {"连六": 0}),
    (71, EXC, "[123s] 234s345s456s9m +9m",             "",                          {"连六": 0, "一色四步高": 1}),
    (72, POS, "[123m] 789m234s567p5p +5p",             "",                          {"老少副": 1}),
    (72, NEG, "[123m] 678m234s567p5p +5p",             "",                          {"老少副": 0}),
    (72, EXC, "[123s] 789s123p789p5m +5m",             "",                          {"老少副": 0, "三色双龙会": 1}),
    (73, POS, "[111m] 234s567p678m5s +5s",             "",                          {"幺九刻": 1}),
    (73, POS, "[111m] [999s] EEE123p5p +5p",           "seat=S prevalent=S",        {"幺九刻": 3}),
    (73, NEG, "[222m] 234s567p678m5s +5s",             "",                          {"幺九刻": 0}),
    (73, EXC, "[WWW] 234s567p678m5s +5s",              "seat=W",                    {"幺九刻": 0, "门风刻": 1}),
    (74, POS, "[2222m] 345s567p678m9s +9s",            "",                          {"明杠": 1}),
    (74, NEG, "[222m] 345s567p678m9s +9s",             "",                          {"明杠": 0}),
    (74, EXC, "[2222m] [3333s] 456p678m9s +9s",        "",                          {"明杠": 0, "双明杠": 1}),
    (75, POS, "[123m] 456m678s234s5s +5s",             "",                          {"缺一门": 1}),
    (75, NEG, "[123m] 456m678s234s5p +5p",             "",                          {"缺一门": 0}),
    (75, EXC, "[123m] 456m888mWWWN +N",                "",                          {"缺一门": 0, "混一色": 1}),
    (76, POS, "[123m] 456s678p222s9s +9s",             "",                          {"无字": 1}),
    (76, NEG, "[123m] 456s678p234sN +N",               "",                          {"无字": 0}),
    (76, EXC, "[345m] 456s678p456s2s +2s",             "",                          {"无字": 0, "断幺": 1}),
    (77, POS, "[456s] 789p12m678m55s +3m",             "",                          {"边张": 1}),
    # R98 #77: 12345 和 3 is no 边张 (3 and 6 both win).
    (77, NEG, "[456s] 789p12345m55s +3m",              "",                          {"边张": 0}),
    # 边张 excludes nothing and nothing excludes it: 1233 和 3 is 边张 and not also 单钓将 (fans.md §2.6).
    (77, EXC, "[456s] [789p] 1233m678s +3m",           "",                          {"边张": 1, "单钓将": 0}),
    (78, POS, "[456s] 789p13m678m55s +2m",             "",                          {"嵌张": 1}),
    # R98 #78: 45567 和 6 is no 嵌张 (3 and 6 both win).
    (78, NEG, "[456s] 789p45567m55s +6m",              "",                          {"嵌张": 0}),
    # 嵌张 excludes nothing and nothing excludes it: 4556 和 5 is 嵌张 and not also 单钓将.
    (78, EXC, "[456s] [789p] 4556m678s +5m",           "",                          {"嵌张": 1, "单钓将": 0}),
    (79, POS, "[456s] 789p123m678m5s +5s",             "",                          {"单钓将": 1}),
    # fans.md §2.6: a wait on a tile held four times still counts, so 4444567 和 7 has two waits.
    (79, NEG, "[234m] [567p] 4444567s +7s",            "",                          {"单钓将": 0}),
    (79, EXC, "[234s] [345p] [678m] [999m] 7p +7p",    "",                          {"单钓将": 0, "全求人": 1}),
    (80, POS, "[123m] 456s678p234s5p +5p",             "self_drawn",                {"自摸": 1}),
    (80, NEG, "[123m] 456s678p234s5p +5p",             "",                          {"自摸": 0}),
    (80, EXC, "234m456m678s345p9p +9p",                "self_drawn",                {"自摸": 0, "不求人": 1}),
    (81, POS, "[123m] 456s678p234s5p +5p",             "flowers=3",                 {"花牌": 3}),
    (81, NEG, "[123m] 456s678p234s5p +5p",             "",                          {"花牌": 0}),
    # 花牌 excludes nothing and nothing excludes it: flowers do not take 无番和 away.
    (81, EXC, "[123m] [678s] 34p888mWW +5p",           "flowers=8",                 {"花牌": 8, "无番和": 1}),
]
# fmt: on

# Cases where our engine and the reference disagree: (fan, kind, notation, context) -> reason.
# Each is run as xfail(strict=True) so a fix on either side is noticed.
DISAGREEMENTS: dict[tuple, str] = {}

FAN_BY_NAME = {f.name: f.id for f in FANS.values()} | ALIASES


def parse_context(win_tile: int, text: str) -> WinContext:
    kwargs: dict = {}
    for word in text.split():
        key, _, value = word.partition("=")
        if key in ("self_drawn", "fourth_tile", "kong", "last_tile") and not value:
            kwargs[key] = True
        elif key in ("seat", "prevalent") and value in ("E", "S", "W", "N"):
            kwargs[f"{key}_wind"] = "ESWN".index(value)
        elif key == "flowers":
            kwargs["flowers"] = int(value)
        else:
            raise ValueError(f"unknown context word {word!r}")
    return WinContext(win_tile=win_tile, **kwargs)


def case_id(fan: int, kind: str, seen: Counter) -> str:
    seen[fan, kind] += 1
    suffix = f"-{seen[fan, kind]}" if seen[fan, kind] > 1 else ""
    return f"{fan:02d}-{FANS[fan].name}-{kind}{suffix}"


def _params():
    seen: Counter = Counter()
    params = []
    for fan, kind, notation, context, expected in CASES:
        marks = ()
        reason = DISAGREEMENTS.get((fan, kind, notation, context))
        if reason is not None:
            marks = (pytest.mark.xfail(strict=True, reason=reason),)
        params.append(pytest.param(fan, kind, notation, context, expected, id=case_id(fan, kind, seen), marks=marks))
    return params


def _table(counts) -> str:
    shown = [f"{i} {FANS[i].name}" + (f"×{n}" if n != 1 else "") for i, n in sorted(counts.items()) if n]
    return ", ".join(shown) or "(none)"


def _context_text(ctx: WinContext) -> str:
    flags = [name for name in ("self_drawn", "fourth_tile", "kong", "last_tile") if getattr(ctx, name)]
    flags.append(f"seat={'ESWN'[ctx.seat_wind]} prevalent={'ESWN'[ctx.prevalent_wind]} flowers={ctx.flowers}")
    return " ".join(flags if ctx.self_drawn else ["discard", *flags])


@pytest.mark.parametrize(("fan", "kind", "notation", "context", "expected"), _params())
def test_fan_case(fan, kind, notation, context, expected):
    hand, win = parse_hand(notation)
    ctx = parse_context(win, context)
    result = score(hand, ctx)
    ours = {i: n for i, n in result.counts().items() if n}
    where = f"\nhand:    {format_hand(hand, win)}\ncontext: {_context_text(ctx)}\nours:    total {result.total}: {_table(ours)}"
    for name, count in expected.items():
        fan_id = FAN_BY_NAME[name]
        assert ours.get(fan_id, 0) == count, f"{fan_id} {name}: expected ×{count}, got ×{ours.get(fan_id, 0)}{where}"
    ref_total, ref = reference_fans(hand, ctx)
    ref = {i: n for i, n in ref.items() if n}
    assert (result.total, ours) == (ref_total, ref), f"{where}\nref:     total {ref_total}: {_table(ref)}"


def test_every_fan_has_all_three_cases():
    """The table covers the 81 fans, and each case asserts what its kind promises."""
    kinds: dict[int, set] = {i: set() for i in FANS}
    for fan, kind, notation, _context, expected in CASES:
        kinds[fan].add(kind)
        name = FANS[fan].name
        assert name in expected, f"{fan} {kind} {notation}: the case must assert its own fan"
        if kind == POS:
            assert expected[name] >= 1, f"{fan} {notation}"
        elif kind == NEG:
            assert expected[name] == 0, f"{fan} {notation}"
        else:
            assert kind == EXC
            assert len(expected) >= 2, f"{fan} {notation}: an exclusion case names a second fan"
    missing = {i: {POS, NEG, EXC} - k for i, k in kinds.items() if k != {POS, NEG, EXC}}
    assert not missing


def test_exclusion_cases_use_the_table():
    """Exclusion cases name a fan from the 不计 list, a fan that excludes this one, or (for the fans
    with neither) say which principle they show."""
    by = {i: set() for i in FANS}
    for f in FANS.values():
        for x in f.excludes | f.excludes_own | f.excludes_once:
            by[x].add(f.id)
    unrelated = {i for i, f in FANS.items() if not (f.excludes | f.excludes_own | f.excludes_once | by[i])}
    # If the table changes, the exclusion cases of these fans need another look.
    assert unrelated == {28, 32, 35, 39, 41, 42, 43, 45, 50, 77, 78, 81}
    for fan, kind, notation, _context, expected in CASES:
        if kind != EXC or fan in unrelated:
            continue
        f = FANS[fan]
        others = {FAN_BY_NAME[n] for n in expected} - {fan}
        related = f.excludes | f.excludes_own | f.excludes_once | by[fan]
        assert others & related, f"{fan} {notation}: names none of {sorted(related)}"
        if expected[f.name]:
            if f.excludes:
                absent = {FAN_BY_NAME[n] for n, c in expected.items() if c == 0}
                assert absent & f.excludes, f"{fan} {notation}: no fan of the 不计 list is asserted absent"
        else:
            assert any(expected[FANS[b].name] for b in by[fan] if FANS[b].name in expected), f"{fan} {notation}"


# ---- is_winning and is_complete --------------------------------------------------------------------------


def _hand(notation: str, context: str = "") -> tuple[Hand, WinContext]:
    hand, win = parse_hand(notation)
    return hand, parse_context(win, context)


@pytest.mark.parametrize(
    ("notation", "context", "min_fan", "fans", "winning"),
    [
        # A 7-fan hand does not reach 8 with flowers: R98 第十条, decisions.md item 6.
        ("[123m] [777m] 345m99mWW +W", "seat=S prevalent=S", 8, 7, False),
        ("[123m] [777m] 345m99mWW +W", "seat=S prevalent=S flowers=8", 8, 7, False),
        ("[123m] [777m] 345m99mWW +W", "seat=S prevalent=S flowers=8", 7, 7, True),
        # 无番和 is itself 8 fans.
        ("[123m] [678s] 34p888mWW +5p", "", 8, 8, True),
        # The same shape self-drawn is 自摸 only: 1 fan.
        ("[123m] [678s] 34p888mWW +5p", "self_drawn", 8, 1, False),
        ("[123m] [678s] 34p888mWW +5p", "self_drawn flowers=8", 8, 1, False),
        ("[123m] [678s] 34p888mWW +5p", "self_drawn", 0, 1, True),
        ("[123m] [678s] 34p888mWW +5p", "self_drawn", 1, 1, True),
        ("[123m] [678s] 34p888mWW +5p", "self_drawn", 2, 1, False),
    ],
)
def test_is_winning_minimum(notation, context, min_fan, fans, winning):
    hand, ctx = _hand(notation, context)
    assert score(hand, ctx).total_without_flowers == fans
    assert is_winning(hand, ctx, Rules(min_fan=min_fan)) is winning


def test_is_winning_default_rules_need_eight():
    hand, ctx = _hand("[123m] [678s] 34p888mWW +5p", "self_drawn")
    assert not is_winning(hand, ctx, Rules())
    hand, ctx = _hand("[123m] [678s] 34p888mWW +5p")
    assert is_winning(hand, ctx, Rules())


def test_is_winning_without_counting_fans():
    hand, ctx = _hand("[123m] [678s] 34p888mWW +5p", "self_drawn")
    assert is_winning(hand, ctx, Rules(min_fan=8, count_fans=False))


@pytest.mark.parametrize("min_fan", [0, 8])
def test_is_winning_rejects_incomplete_and_invalid(min_fan):
    rules = Rules(min_fan=min_fan)
    hand, ctx = _hand("[123m] [678s] 34p888mWW +6p")  # 346p is no set
    assert not is_winning(hand, ctx, rules)
    # 和绝张 on a tile the winner holds: an invalid context is not a win (and does not raise).
    hand, ctx = _hand("[123m] [678s] 55p888mWW +5p", "fourth_tile")
    assert is_complete(hand, ctx.win_tile)
    assert not is_winning(hand, ctx, rules)
    # 杠上开花 without a kong.
    hand, ctx = _hand("[123m] [678s] 34p888mWW +5p", "self_drawn kong")
    assert not is_winning(hand, ctx, rules)


@pytest.mark.parametrize(
    ("notation", "complete"),
    [
        ("123m456s789p123s5p +5p", True),  # regular, concealed
        ("[123m] [678s] 34p888mWW +5p", True),  # regular with melds
        ("[1111m] [2222s] {3333p} [EEEE] W +W", True),  # four kongs: pair only
        ("1133m2266s44pEEC +C", True),  # 七对
        ("1133m2266s44pEEEE +C", False),  # not 13 tiles: 5 pairs + EEEE + C is no hand
        ("2255m3366s4477p7p +7p", True),  # 七对 with two identical pairs
        ("19m19s19pESWNCFP +1m", True),  # 十三幺
        ("19m19s19pESWNCFF +1m", False),  # no 白: not 十三幺
        ("147m258s36pESWNC +F", True),  # 全不靠
        ("147m258sESWNCFP +3p", True),  # 七星不靠
        ("147m258s36pESWNC +C", False),  # a pair breaks 全不靠
        ("147m258s369p123m5p +5p", True),  # 组合龙 + set + pair
        ("[567m] 147m258s369p5p +5p", True),  # 组合龙 with one meld
        ("1112345678999m +5m", True),  # 九莲宝灯
        ("[123m] [678s] 34p888mWW +6p", False),
        ("123m456s789p123s5p +6p", False),
        ("[456s] 789p12345m55s +7m", False),
    ],
)
def test_is_complete(notation, complete):
    hand, win = parse_hand(notation)
    assert is_complete(hand, win) is complete


def test_is_complete_rejects_a_fifth_copy():
    # 111m + 11m + 234m + 567s + 678p would be a winning shape, but with five 1m.
    hand, win = parse_hand("1111m234m567s678p +1m")
    assert not is_complete(hand, win)
    hand, win = parse_hand("1111m234m567s678p +4m")  # four 1m: 111m + 123m + 44m
    assert is_complete(hand, win)


# ---- property: score never raises on a valid winning hand ------------------------------------------------


@st.composite
def regular_wins(draw):
    """A valid winning hand built from 4 sets + a pair (≤4 copies of a tile), some declared, and a
    consistent win context (decisions.md item 5)."""
    counts = [0] * NUM_KINDS
    sets = []
    for _ in range(4):
        kind = draw(st.sampled_from((CHOW, CHOW, PUNG, PUNG, KONG)))
        if kind == CHOW:
            tile = draw(st.sampled_from([t for t in range(27) if rank(t) <= 7]))
            tiles = (tile, tile + 1, tile + 2)
        else:
            tile = draw(st.integers(0, NUM_KINDS - 1))
            tiles = (tile,) * (4 if kind == KONG else 3)
        for t in tiles:
            counts[t] += 1
        sets.append((kind, tile, tiles))
    pair = draw(st.integers(0, NUM_KINDS - 1))
    counts[pair] += 2
    assume(max(counts) <= 4)
    melds, standing = [], [pair, pair]
    for kind, tile, tiles in sets:
        if kind == KONG:  # a kong is always declared
            melds.append(Meld(KONG, tile, concealed=draw(st.booleans())))
        elif draw(st.integers(0, 3)) == 0:
            melds.append(Meld(kind, tile))
        else:
            standing.extend(tiles)
    win = draw(st.sampled_from(sorted(set(standing))))
    standing.remove(win)
    return Hand(tuple(melds), tuple(sorted(standing))), draw(contexts(melds, standing, win))


@st.composite
def seven_pairs_wins(draw):
    kinds = draw(st.lists(st.integers(0, NUM_KINDS - 1), min_size=7, max_size=7))
    c = Counter(kinds)
    assume(max(c.values()) <= 2)  # two identical pairs at most: four copies
    standing = sorted(t for t in kinds for _ in range(2))
    win = draw(st.sampled_from(sorted(set(standing))))
    standing.remove(win)
    return Hand((), tuple(standing)), draw(contexts([], standing, win))


@st.composite
def contexts(draw, melds, standing, win):
    held = standing.count(win)
    melded = sum(x == win for m in melds for x in m.tiles)
    self_drawn = draw(st.booleans())
    if self_drawn:
        kong = any(m.kind == KONG for m in melds) and draw(st.booleans())
    else:
        kong = held == 0 and melded == 0 and draw(st.booleans())
    last_tile = not (kong and not self_drawn) and draw(st.booleans())
    fourth_tile = held == 0 and draw(st.booleans())
    return WinContext(
        win_tile=win,
        self_drawn=self_drawn,
        fourth_tile=fourth_tile,
        kong=kong,
        last_tile=last_tile,
        seat_wind=draw(st.integers(0, 3)),
        prevalent_wind=draw(st.integers(0, 3)),
        flowers=draw(st.integers(0, 8)),
    )


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(st.one_of(regular_wins(), seven_pairs_wins()))
def test_score_never_raises_and_totals_add_up(win):
    hand, ctx = win
    assert is_complete(hand, ctx.win_tile)
    result = score(hand, ctx)  # must not raise
    assert result.total == result.total_without_flowers + ctx.flowers
    assert result.total == sum(f.points * f.count for f in result.fans)
    assert all(f.count >= 1 and f.points == FANS[f.id].points for f in result.fans)
    assert result.counts().get(FLOWER_TILES, 0) == ctx.flowers
    # The 8-fan minimum ignores flowers (decisions.md item 6); with no minimum any valid win wins.
    assert is_winning(hand, ctx, Rules(min_fan=8)) is (result.total_without_flowers >= 8)
    assert is_winning(hand, ctx, Rules(min_fan=0))
