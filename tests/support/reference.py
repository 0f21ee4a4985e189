"""Adapter to the reference calculator (PyMahjongGB 1.4.0, a test dependency only).

Converts our hands and win contexts to its argument format (shared/rules/oracle.md) and back, and
normalises its answer to fan ids and counts: its names (独听・边张 → 边张 ...) and its non-1998
明暗杠 (5) → 明杠 (1) + 暗杠 (2), decisions.md item 2.
"""

from __future__ import annotations

from collections import Counter

from game.fans.context import WinContext
from game.fans.table import CONCEALED_KONG, FANS, MELDED_KONG
from game.hand import CHOW, KONG, PUNG, Hand, Meld
from game.tiles import from_reference, to_reference

_ID_BY_NAME = {f.name: f.id for f in FANS.values()}
_ID_BY_NAME.update({"独听・边张": 77, "独听・嵌张": 78, "独听・单钓": 79, "坎张": 78})
MINGANGANG = "明暗杠"

_PACK_TYPE = {CHOW: "CHI", PUNG: "PENG", KONG: "GANG"}
_MELD_KIND = {v: k for k, v in _PACK_TYPE.items()}


def to_reference_args(hand: Hand, ctx: WinContext) -> dict:
    pack = []
    for m in hand.melds:
        tile = m.tile + 1 if m.kind == CHOW else m.tile
        pack.append((_PACK_TYPE[m.kind], to_reference(tile), 0 if m.concealed else 1))
    return {
        "pack": tuple(pack),
        "hand": tuple(to_reference(t) for t in hand.tiles),
        "winTile": to_reference(ctx.win_tile),
        "flowerCount": ctx.flowers,
        "isSelfDrawn": ctx.self_drawn,
        "is4thTile": ctx.fourth_tile,
        "isAboutKong": ctx.kong,
        "isWallLast": ctx.last_tile,
        "seatWind": ctx.seat_wind,
        "prevalentWind": ctx.prevalent_wind,
    }


def from_reference_args(args: dict) -> tuple[Hand, WinContext]:
    melds = []
    for kind, code, offer in args["pack"]:
        tile = from_reference(code)
        meld_kind = _MELD_KIND[kind]
        if meld_kind == CHOW:
            tile -= 1
        melds.append(Meld(meld_kind, tile, concealed=(meld_kind == KONG and offer == 0)))
    hand = Hand(tuple(melds), tuple(sorted(from_reference(c) for c in args["hand"])))
    ctx = WinContext(
        win_tile=from_reference(args["winTile"]),
        self_drawn=bool(args["isSelfDrawn"]),
        fourth_tile=bool(args["is4thTile"]),
        kong=bool(args["isAboutKong"]),
        last_tile=bool(args["isWallLast"]),
        seat_wind=args["seatWind"],
        prevalent_wind=args["prevalentWind"],
        flowers=args["flowerCount"],
    )
    return hand, ctx


def _calculator():
    from MahjongGB import MahjongFanCalculator

    return MahjongFanCalculator


def reference_fans(hand: Hand, ctx: WinContext) -> tuple[int, Counter]:
    """(total, Counter{fan id: count}) from the reference, normalised to the 1998 fans.

    Raises ``TypeError`` (the reference's own error) when it rejects the hand.
    """
    a = to_reference_args(hand, ctx)
    result = _calculator()(
        a["pack"], a["hand"], a["winTile"], a["flowerCount"], a["isSelfDrawn"], a["is4thTile"],
        a["isAboutKong"], a["isWallLast"], a["seatWind"], a["prevalentWind"], True,
    )
    return normalise(result)


def normalise(result) -> tuple[int, Counter]:
    """Turn the reference's verbose tuple ``((value, count, name, name_en), ...)`` into ids."""
    fans: Counter = Counter()
    total = 0
    for value, count, name, _name_en in result:
        if name == MINGANGANG:
            fans[MELDED_KONG] += 1
            fans[CONCEALED_KONG] += 1
            total += FANS[MELDED_KONG].points + FANS[CONCEALED_KONG].points
            continue
        fan_id = _ID_BY_NAME[name]
        fans[fan_id] += count
        total += value * count
    return total, fans
