"""Fans outside the 81 that a room may add: 大众馆's 258将 and 听 (decisions.md, "The two extra fans").

``extra_fans(score, rules, declared)`` is pure and separate from the GB scorer, so the 81 fans stay
exactly the reference's (decisions.md item 3). They have no fan id; their points come from the rules
(0 = not in use).
"""

from __future__ import annotations

from game.fans import table as F
from game.rules import Rules
from game.scoring import FanScore
from game.tiles import NUM_KINDS, rank

PAIR_258 = ("258将", "Pair of 2, 5 or 8")
DECLARED_READY = ("听", "Declared Ready")

# decisions.md: "a regular-form hand (including the 组合龙 form)" ...
_PAIR_FORMS = frozenset(("regular", "knitted_straight"))
# ... "Not counted with 一色双龙会, 三色双龙会 or 全带五, which already imply it."
_IMPLY_258 = frozenset((F.PURE_TERMINAL_CHOWS, F.THREE_SUITED_TERMINAL_CHOWS, F.ALL_FIVE))


def pair_of(score) -> int | None:
    """The pair of the scored reading, or None for a form without one (七对, 十三幺, 全不靠)."""
    if score.form not in _PAIR_FORMS:
        return None
    return score.pair


def is_258(tile: int | None) -> bool:
    # A number tile (not an honor) of rank 2, 5 or 8.
    return tile is not None and tile < 27 and tile < NUM_KINDS and rank(tile) in (2, 5, 8)


def extra_fans(score, rules: Rules, declared: bool) -> list[FanScore]:
    """Each extra fan the win scores (id None, count 1, no sets). ``score`` is the GB Score
    (None when the room counts no fans); ``declared``: the winner declared 听 (报听)."""
    out: list[FanScore] = []
    if score is not None and rules.pair_258_points > 0 and is_258(pair_of(score)):
        if not _IMPLY_258 & score.counts().keys():
            out.append(FanScore(None, *PAIR_258, rules.pair_258_points, 1, ()))
    if declared and rules.declared_ready_points > 0:
        out.append(FanScore(None, *DECLARED_READY, rules.declared_ready_points, 1, ()))
    return out


__all__ = ["extra_fans", "pair_of", "is_258", "PAIR_258", "DECLARED_READY"]
