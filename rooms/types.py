"""The three room types of the seed (decisions.md, "Rooms"): who may win and how a win is paid.

| room | who may win | self-draw | win on a discard |
| 无番馆 | any complete hand, fans not counted | each other pays 10 | discarder pays 10, others 0 |
| 国标馆 | fans (without flowers) >= 8 | each other pays 8 + fans | discarder 8 + fans, others 8 |
| 大众馆 | any complete hand, + 258将 and 听 | each other pays fans | discarder pays fans, others 0 |

"fans" is the hand's total including flowers (R98's 基本分); 抢杠和 is paid by the robbed player as
the discarder (``WinRecord.payer``); an exhaustive draw pays nothing. The formulas are registered in
``game.settlement`` by name, so a match stays (seed, rules, actions) and replays.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.records import WinRecord
from game.rules import Rules
from game.settlement import SETTLEMENTS, register

WUFAN, GUOBIAO, DAZHONG = "wufan", "guobiao", "dazhong"

WUFAN_POINTS = 10  # seed: 无番馆 "自摸和牌： 10 × 3 ... 点炮者： － 10"


def _pay(win: WinRecord | None, amount: int) -> tuple[int, int, int, int]:
    """Self-draw: each other seat pays ``amount``; on a discard (or 抢杠和) only the payer does."""
    pay = [0, 0, 0, 0]
    if win is None:
        return (0, 0, 0, 0)  # decisions.md item 11: 荒庄 pays nothing
    for s in range(4):
        if s != win.winner and (win.payer is None or s == win.payer):
            pay[s] -= amount
            pay[win.winner] += amount
    return tuple(pay)


def wufan(win: WinRecord | None, rules: Rules) -> tuple[int, int, int, int]:
    """无番馆: self-draw 10 from each (winner +30); discard 10 from the discarder only (winner +10)."""
    return _pay(win, WUFAN_POINTS)


def dazhong(win: WinRecord | None, rules: Rules) -> tuple[int, int, int, int]:
    """大众馆: self-draw fans from each (winner +fans×3); discard fans from the discarder only."""
    return _pay(win, 0 if win is None else win.total)


register(WUFAN, wufan)
register(DAZHONG, dazhong)
assert GUOBIAO in SETTLEMENTS  # 国标馆 is game.settlement's default formula (R98 第十条)


@dataclass(frozen=True, slots=True)
class RoomType:
    name: str
    chinese: str
    english: str


ROOM_TYPES = {
    WUFAN: RoomType(WUFAN, "无番馆", "No-fan room"),
    GUOBIAO: RoomType(GUOBIAO, "国标馆", "Guobiao room"),
    DAZHONG: RoomType(DAZHONG, "大众馆", "Popular room"),
}


def rules_for(room_type: str, *, hands: int = 16, false_win_penalty: bool = False, pair_258_points: int = 1,
              declared_ready_points: int = 1, flowers: bool = True) -> Rules:
    """The Rules of a room type (decisions.md table); the extra fans' points only matter in 大众馆."""
    common = dict(hands=hands, false_win_penalty=false_win_penalty, flowers=flowers, settlement=room_type)
    if room_type == WUFAN:
        # seed: "完成基本牌型即可和牌，不计算番数"
        return Rules(min_fan=0, count_fans=False, **common)
    if room_type == GUOBIAO:
        # seed: "8番起和"
        return Rules(min_fan=8, **common)
    if room_type == DAZHONG:
        # seed: "在国标馆的基础上增加常见的番种：'听'、'258将'，不设起和番数"
        return Rules(min_fan=0, pair_258_points=pair_258_points, declared_ready_points=declared_ready_points,
                     declare_ready=True, **common)
    raise ValueError(f"unknown room type {room_type!r}")


__all__ = ["WUFAN", "GUOBIAO", "DAZHONG", "ROOM_TYPES", "RoomType", "rules_for", "wufan", "dazhong"]
