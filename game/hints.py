"""The wait hint (听牌提示): each wait of a seat's own tiles with the fans it would score.

``hint(melds, concealed, ...)`` reads only what the seat itself holds, so it can be sent to that seat
and to nobody else. With 13 − 3k standing tiles it lists the waits; with 14 − 3k (the seat must
discard) it lists, for each discard that leaves the hand ready, the waits after it. The context is the
hand's own (seat and prevalent wind, flowers) as ``game.judge`` builds it, on a discard, and its totals
self-drawn too (自摸 or 不求人); nothing that depends on the table (和绝张, 杠上开花, 海底) — those change
from one tile to the next.

The waits of a ready hand are cached (the hand that discards is usually the one that was shown its
discards' waits just before). The returned lists are shared between callers: do not change them.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from game.extra_fans import extra_fans
from game.fans.context import WinContext
from game.hand import Hand, Meld
from game.rules import Rules
from game.shanten import shanten
from game.waits import wait_scores


def hint(melds: tuple[Meld, ...], concealed: tuple[int, ...], *, rules: Rules, seat_wind: int = 0,
         prevalent: int = 0, flowers: int = 0, declared: bool = False, blocked: bool = False) -> dict | None:
    """``{"waits": [...]}`` or ``{"discards": {"<tile>": [...]}}`` (JSON keys are strings); each wait
    ``{"tile", "fans": [[id, name, name_en, points, count], ...], "total", "total_without_flowers",
    "meets_min", "self_drawn": {"total", "total_without_flowers", "meets_min"}}`` (on a discard, and
    self-drawn). None for a tile count that is neither (never at a live table)."""
    return hint_and_shanten(melds, concealed, rules=rules, seat_wind=seat_wind, prevalent=prevalent,
                            flowers=flowers, declared=declared, blocked=blocked)[0]


def hint_and_shanten(melds: tuple[Meld, ...], concealed: tuple[int, ...], *, rules: Rules, seat_wind: int = 0,
                     prevalent: int = 0, flowers: int = 0, declared: bool = False, blocked: bool = False,
                     floor: int | None = None) -> tuple[dict | None, int | None]:
    """``hint`` and the shanten of the tiles (None for a count that has no hint). ``floor``: a lower
    bound known for that shanten; above 0 the hand cannot be ready (after any discard), and neither is
    computed: the floor is returned as the bound. A tile drawn lowers the shanten by at most one, a
    discard never (tests/game/test_hints.py checks both)."""
    melds, concealed = tuple(melds), tuple(sorted(concealed))
    n = len(concealed)
    if n % 3 == 1:
        s = floor if floor is not None and floor > 0 else shanten(concealed, len(melds))
        if s > 0:
            return {"waits": []}, s  # most hands, most of the time: no context, no cache needed
        return {"waits": _waits(melds, concealed, *_args(rules, seat_wind, prevalent, flowers, declared, blocked))}, s
    if n % 3 != 2:
        return None, None
    out: dict = {}
    s = floor if floor is not None and floor > 0 else shanten(concealed, len(melds))
    if s <= 0:  # otherwise no discard leaves the hand ready
        args = _args(rules, seat_wind, prevalent, flowers, declared, blocked)
        for t in dict.fromkeys(concealed):
            i = concealed.index(t)
            waits = _waits(melds, concealed[:i] + concealed[i + 1:], *args)
            if waits:
                out[str(t)] = waits
    return {"discards": out}, s


def _args(rules: Rules, seat_wind: int, prevalent: int, flowers: int, declared: bool, blocked: bool) -> tuple:
    ctx = WinContext(win_tile=0, seat_wind=seat_wind, prevalent_wind=prevalent, flowers=flowers)
    return rules, ctx, declared, blocked


@lru_cache(maxsize=1024)
def _waits(melds, standing, rules: Rules, ctx: WinContext, declared: bool, blocked: bool) -> list:
    if shanten(standing, len(melds)) > 0:
        return []  # not ready: no tile completes it (saves wait_scores trying all 34 kinds)
    return _score_waits(melds, standing, rules, ctx, declared, blocked)


def _score_waits(melds, standing, rules: Rules, ctx: WinContext, declared: bool, blocked: bool) -> list:
    hand = Hand(melds, standing)
    self_drawn = wait_scores(hand, replace(ctx, self_drawn=True))
    out = []
    for tile, sc in wait_scores(hand, ctx).items():
        if sc is None:
            continue  # impossible under this context
        w = _scored(sc, rules, declared, blocked)
        own = self_drawn.get(tile)
        if own is not None:
            # The same wait self-drawn (自摸, or 不求人 for a concealed hand): a wait short of the minimum on
            # a discard may still reach it this way.
            s = _scored(own, rules, declared, blocked)
            w["self_drawn"] = {k: s[k] for k in ("total", "total_without_flowers", "meets_min")}
        out.append({"tile": tile, **w})
    return out


def _scored(sc, rules: Rules, declared: bool, blocked: bool) -> dict:
    fans: list = []
    total = twf = 0
    if rules.count_fans:  # 无番馆 counts none (game.judge.evaluate)
        fans = [[f.id, f.name, f.name_en, f.points, f.count] for f in sc.fans]
        total, twf = sc.total, sc.total_without_flowers
    for extra in extra_fans(sc if rules.count_fans else None, rules, declared):
        fans.append([extra.id, extra.name, extra.name_en, extra.points, extra.count])
        total += extra.points * extra.count
        twf += extra.points * extra.count
    # game.scoring.is_winning: the minimum is counted without flowers (and without the extra fans).
    meets = not blocked and (rules.min_fan <= 0 or not rules.count_fans
                             or sc.total_without_flowers >= rules.min_fan)
    return {"fans": fans, "total": total, "total_without_flowers": twf, "meets_min": meets}


def hint_of_view(view: dict, rules: Rules) -> dict | None:
    """The hint of the seat whose view (``game.views.view`` shape, with ``hand``) this is."""
    seat = view.get("seat")
    if seat is None or view.get("phase") == "over" or "hand" not in view:
        return None
    me = view["players"][seat]
    melds = tuple(Meld(m["kind"], m["tile"], m["concealed"]) for m in me["melds"])
    return hint(melds, tuple(view["hand"]), rules=rules, seat_wind=me["wind"], prevalent=view["prevalent"],
                flowers=len(me["flowers"]), declared=me["declared"], blocked=me["blocked"])


__all__ = ["hint", "hint_and_shanten", "hint_of_view"]
