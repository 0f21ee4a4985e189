"""Waits (听牌): the tiles that complete a hand, and what each would score."""

from __future__ import annotations

from dataclasses import replace

from game.fans.context import HandError, WinContext
from game.hand import Hand
from game.scoring import Score, is_complete, score
from game.tiles import NUM_KINDS, Tile


def waits(hand: Hand) -> tuple[Tile, ...]:
    """Tiles that complete the hand in any form. A tile the hand already uses four times is no
    wait: there is no fifth copy to win on."""
    used = [0] * NUM_KINDS
    for t in hand.tiles:
        used[t] += 1
    for m in hand.melds:
        for t in m.tiles:
            used[t] += 1
    return tuple(t for t in range(NUM_KINDS) if used[t] < 4 and is_complete(hand, t))


def wait_scores(hand: Hand, ctx: WinContext | None = None) -> dict[Tile, Score | None]:
    """Each wait with the score it would make under ``ctx`` (its winning tile is replaced).

    ``None`` for a wait the context makes impossible (e.g. 和绝张 on a tile the hand holds).
    """
    base = ctx or WinContext(win_tile=0)
    result: dict[Tile, Score | None] = {}
    for t in waits(hand):
        try:
            result[t] = score(hand, replace(base, win_tile=t))
        except HandError:
            result[t] = None
    return result
