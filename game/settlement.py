"""Payments at the end of a hand: a registry of named formulas (the rooms add theirs).

A formula is ``settle(win, rules) -> (p0, p1, p2, p3)``: the change of each seat's score, zero-sum;
``win`` is the WinRecord, or ``None`` for an exhaustive draw. Rules name the formula
(``rules.settlement``) so a match remains (seed, rules, actions) and replays.
"""

from __future__ import annotations

from typing import Callable

from game.records import WinRecord
from game.rules import Rules

Settle = Callable[[WinRecord | None, Rules], tuple[int, int, int, int]]

BASE = 8  # 底分 (R98 第五条 三十四)


def guobiao(win: WinRecord | None, rules: Rules) -> tuple[int, int, int, int]:
    """R98 第十条 一 (procedure.md §4.9): self-draw: each other pays 8 + fans; discard (and 抢杠和, paid
    by the robbed seat): the discarder pays 8 + fans, the two others 8; 荒牌: nothing."""
    pay = [0, 0, 0, 0]
    if win is None:
        return (0, 0, 0, 0)
    for s in range(4):
        if s == win.winner:
            continue
        amount = BASE + win.total if win.payer is None or s == win.payer else BASE
        pay[s] -= amount
        pay[win.winner] += amount
    return tuple(pay)


SETTLEMENTS: dict[str, Settle] = {"guobiao": guobiao}


def register(name: str, settle: Settle) -> None:
    SETTLEMENTS[name] = settle


def settle(win: WinRecord | None, rules: Rules) -> tuple[int, int, int, int]:
    try:
        formula = SETTLEMENTS[rules.settlement]
    except KeyError:
        raise ValueError(f"no settlement named {rules.settlement!r}") from None
    pay = tuple(formula(win, rules))
    # Settlements are zero-sum (decisions.md, Rooms); a formula that is not is a bug.
    assert len(pay) == 4 and sum(pay) == 0, f"settlement {rules.settlement!r} is not zero-sum: {pay}"
    return pay
