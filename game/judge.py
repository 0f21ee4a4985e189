"""Whether a seat wins, and with what: the bridge from the table to ``game.scoring``.

The scorer is the one authority on winning; ``game.shape.may_complete`` only skips it on hands that
cannot be complete. The win context comes from the table (procedure.md §4.10, §4.6, §4.7).
"""

from __future__ import annotations

from game.extra_fans import extra_fans
from game.fans.context import HandError, WinContext
from game.hand import Hand
from game.records import WinRecord
from game.scoring import is_complete, is_winning, score
from game.shanten import shanten
from game.shape import may_win
from game.tiles import NUM_KINDS

SELF, DISCARD, ROB = "self", "discard", "rob"

# 错和 and 诈和 (R98 第十四条 六; decisions.md item 12): points paid to each other player.
WRONG_WIN, FALSE_WIN = "wrong_win", "false_win"
FALSE_WIN_POINTS = {WRONG_WIN: 10, FALSE_WIN: 20}


def _standing(s, seat: int, tile: int, how: str) -> tuple:
    """The winner's standing tiles without the winning tile (a self-drawn tile is in the hand)."""
    c = s.concealed[seat]
    if how == SELF:
        i = c.index(tile)
        return c[:i] + c[i + 1:]
    return c


def hand_of(s, seat: int, tile: int, how: str) -> Hand:
    return Hand(tuple(m.meld() for m in s.melds[seat]), _standing(s, seat, tile, how))


def visible(s, tile: int) -> int:
    """Copies of ``tile`` face up: unclaimed discards and exposed melds, not concealed kongs (§4.10)."""
    n = 0
    for pond in s.ponds:
        for t, claimed in pond:
            if t == tile and not claimed:
                n += 1
    for melds in s.melds:
        for m in melds:
            if not m.concealed:
                n += m.tiles.count(tile)
    return n


def context(s, seat: int, tile: int, how: str) -> WinContext:
    standing = _standing(s, seat, tile, how)
    if how == ROB:
        fourth = False  # 抢杠和 excludes 和绝张 (procedure.md §4.6)
    else:
        # §4.10: the other three copies visible; a claimed discard is itself the visible 4th copy.
        fourth = tile not in standing and visible(s, tile) == (4 if how == DISCARD else 3)
    return WinContext(
        win_tile=tile,
        self_drawn=how == SELF,
        fourth_tile=fourth,
        # 杠上开花 only on a kong's own replacement (R98 #46 "不包括补花"); 抢杠和 when robbing.
        kong=(how == SELF and s.kong_draw) or how == ROB,
        # 妙手回春 / 海底捞月: the wall is empty (decisions.md item 11); never with 抢杠和, as no kong
        # is allowed once the wall is empty.
        last_tile=how != ROB and s.tail == s.head,
        seat_wind=(seat - s.dealer) % 4,
        prevalent_wind=s.prevalent,
        flowers=len(s.flowers[seat]),
    )


def can_win(s, seat: int, tile: int, how: str) -> bool:
    """A real win: complete and meeting rules.min_fan (decisions.md item 12); 停和 seats never win."""
    if s.blocked[seat]:
        return False
    standing = s.concealed[seat]
    if how == SELF:
        i = standing.index(tile)
        standing = standing[:i] + standing[i + 1:]
    if not may_win(standing, tile, len(s.melds[seat])):
        return False
    return wins(s, seat, tile, how)


def wins(s, seat: int, tile: int, how: str) -> bool:
    """``can_win`` once the shape test has passed."""
    return is_winning(hand_of(s, seat, tile, how), context(s, seat, tile, how), s.rules)


def evaluate(s, seat: int, tile: int, how: str, payer: int | None) -> WinRecord | None:
    """The scored win, or None when the declaration is not a win."""
    if not can_win(s, seat, tile, how):
        return None
    hand, ctx = hand_of(s, seat, tile, how), context(s, seat, tile, how)
    rules = s.rules
    fans: list = []
    total = 0
    sc = None
    if rules.count_fans:
        sc = score(hand, ctx)
        fans = list(sc.fans)
        total = sc.total
    # 大众馆's 258将 and 听 (decisions.md): not among the 81, so they have no fan id.
    for extra in extra_fans(sc, rules, s.declared[seat]):
        fans.append(extra)
        total += extra.points * extra.count
    return WinRecord(seat, payer, tile, hand, ctx, tuple(fans), total, robbed=how == ROB)


def waits(melds: tuple, standing: tuple) -> frozenset:
    """Tiles completing 3n+1 standing tiles (``melds``: game.hand.Meld) in any winning shape."""
    hand = Hand(melds, standing)
    n = len(melds)
    return frozenset(t for t in range(NUM_KINDS) if may_win(standing, t, n) and is_complete(hand, t))


def ready_discards(melds: tuple, concealed: tuple) -> list[int]:
    """Tiles whose discard leaves ``concealed`` (3n+2 tiles) ready, for 报听."""
    if shanten(concealed, len(melds)) > 0:
        return []  # not even one tile from complete: saves 34 tests per candidate discard
    out = []
    for t in dict.fromkeys(concealed):
        i = concealed.index(t)
        if waits(melds, concealed[:i] + concealed[i + 1:]):
            out.append(t)
    return out


def false_win_kind(s, seat: int, tile: int, how: str) -> str:
    """错和 when complete (under the minimum) or ready on another tile, 诈和 when not even ready."""
    standing = _standing(s, seat, tile, how)
    if waits(tuple(m.meld() for m in s.melds[seat]), standing):
        return WRONG_WIN
    return FALSE_WIN


__all__ = ["HandError", "SELF", "DISCARD", "ROB", "can_win", "evaluate", "waits", "false_win_kind", "visible"]
