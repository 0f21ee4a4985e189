"""The rules value: every rule a room may change, with the defaults of decisions.md."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rules:
    # R98 第十条: a win needs 8 fans, flowers excluded (decisions.md item 6). 0 = any complete hand.
    min_fan: int = 8
    # Extra fans of 大众馆 (decisions.md): points of 258将 and 听; 0 = not in use.
    pair_258_points: int = 0
    declared_ready_points: int = 0
    # Whether fans are counted at all (无番馆 counts none: any complete hand wins).
    count_fans: bool = True
    # Procedure options (decisions.md items 7-14).
    flowers: bool = True  # 144 tiles with flowers; False = 136 tiles
    hands: int = 16  # 16 = a full match of four wind rounds; 4 = one round
    blocked_may_claim: bool = True  # 停和 players may still chow, pung and kong
    false_win_penalty: bool = False  # training mode: declare freely, R98 错和/诈和 penalties
    declare_ready: bool = False  # 报听 allowed (大众馆)
    # Name of the payment formula in game.settlement.SETTLEMENTS; a name, not a function, so a match
    # stays (seed, rules, actions) and replays. "guobiao" = R98 第十条: 8 + fans.
    settlement: str = "guobiao"
