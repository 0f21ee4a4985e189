"""How a hand was won (the win context), and the validation of a hand plus its context.

Impossible inputs are errors, never silently corrected (decisions.md item 5); each error has a
stable ``code`` and a message that names the offending tile or flag.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.hand import CHOW, KONG, Hand
from game.tiles import NUM_KINDS, Tile, is_number, rank, tile_name

WIND_NAMES = "ESWN"


class HandError(ValueError):
    """An impossible hand or context, or a hand that does not win."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class WinContext:
    """The winning tile and the circumstances of the win.

    ``kong`` is 杠上开花 on a self-draw and 抢杠和 on a claimed tile; ``last_tile`` is 妙手回春 on a
    self-draw and 海底捞月 on a claimed tile; ``fourth_tile`` is 和绝张 (the three other copies are
    visible on the table). Winds are 0..3 = E, S, W, N.
    """

    win_tile: Tile
    self_drawn: bool = False
    fourth_tile: bool = False
    kong: bool = False
    last_tile: bool = False
    seat_wind: int = 0
    prevalent_wind: int = 0
    flowers: int = 0


_TILES = frozenset(range(NUM_KINDS))
_CHOW_STARTS = frozenset(t for t in range(27) if t % 9 <= 6)
_WINDS = frozenset(range(4))


def validate(hand: Hand, ctx: WinContext) -> list[int]:
    """Check the hand and context; return the count array of every tile of the hand (with the win)."""
    return counts(hand, ctx)[1]


def ordinary(hand: Hand, ctx: WinContext) -> bytes | None:
    """The standing tiles with the winning tile, sorted, as bytes, when the hand and its context
    pass every check of ``validate`` but the last two, the count of copies and ``check_flags``
    (the scorer makes them in that order, on its per-suit counts); None when anything is unusual,
    for ``validate`` to name the error. Mostly C-level: the scorer's fast way in."""
    melds = hand.melds
    tiles = hand.tiles
    if len(melds) > 4 or len(tiles) != 13 - 3 * len(melds) or not _TILES.issuperset(tiles):
        return None
    try:
        standing = bytes(sorted((*tiles, ctx.win_tile)))
    except (TypeError, ValueError):  # not a small int (a float equal to a tile passes the set test)
        return None
    if standing[-1] >= NUM_KINDS:
        return None
    for m in melds:
        t = m.tile
        if m.concealed and m.kind != KONG:
            return None
        if m.kind == CHOW:
            if t not in _CHOW_STARTS or t.__class__ is not int:
                return None
        elif t not in _TILES or t.__class__ is not int:
            return None
    if (ctx.flowers.__class__ is not int or not 0 <= ctx.flowers <= 8
            or ctx.seat_wind not in _WINDS or ctx.prevalent_wind not in _WINDS
            or ctx.seat_wind.__class__ is not int or ctx.prevalent_wind.__class__ is not int):
        return None
    return standing


def counts(hand: Hand, ctx: WinContext) -> tuple[list[int], list[int]]:
    """``validate``, returning the counts of the standing tiles with the winning tile as well:
    (standing, every tile). A fast pass handles ordinary input; anything unusual goes to the full
    check (``_validate``), which names the error."""
    melds = hand.melds
    tiles = hand.tiles
    win = ctx.win_tile
    if len(melds) > 4 or len(tiles) != 13 - 3 * len(melds) or not _TILES.issuperset(tiles) or win not in _TILES:
        return _validate(hand, ctx)
    standing = [0] * NUM_KINDS
    try:
        for t in tiles:
            standing[t] += 1
        standing[win] += 1
    except TypeError:  # a float equal to a tile passes the set test, not the index
        return _validate(hand, ctx)
    all_counts = standing.copy() if melds else standing
    for m in melds:
        t = m.tile
        if m.concealed and m.kind != KONG:
            return _validate(hand, ctx)
        if m.kind == CHOW:
            if t not in _CHOW_STARTS or t.__class__ is not int:
                return _validate(hand, ctx)
            all_counts[t] += 1
            all_counts[t + 1] += 1
            all_counts[t + 2] += 1
        elif t not in _TILES or t.__class__ is not int:
            return _validate(hand, ctx)
        else:
            all_counts[t] += 4 if m.kind == KONG else 3
    if (max(all_counts) > 4 or ctx.flowers.__class__ is not int or not 0 <= ctx.flowers <= 8
            or ctx.seat_wind not in _WINDS or ctx.prevalent_wind not in _WINDS
            or ctx.seat_wind.__class__ is not int or ctx.prevalent_wind.__class__ is not int):
        return _validate(hand, ctx)
    if ctx.fourth_tile or ctx.kong:
        check_flags(hand, ctx)
    return standing, all_counts


def _validate(hand: Hand, ctx: WinContext) -> tuple[list[int], list[int]]:
    """The full check, in the order its errors are reported."""
    melds = hand.melds
    if len(melds) > 4:
        raise HandError("hand/too_many_melds", f"a hand has at most 4 melds, got {len(melds)}")
    expected = 13 - 3 * len(melds)
    if len(hand.tiles) != expected:
        raise HandError(
            "hand/tile_count",
            f"with {len(melds)} melds a hand stands {expected} tiles besides the winning tile, got {len(hand.tiles)}",
        )
    all_counts = [0] * NUM_KINDS
    for t in (*hand.tiles, ctx.win_tile):
        if not (isinstance(t, int) and 0 <= t < NUM_KINDS):
            raise HandError("hand/bad_tile", f"not a playable tile: {t!r}")
        all_counts[t] += 1
    for m in melds:
        t = m.tile
        if not (isinstance(t, int) and 0 <= t < NUM_KINDS):
            raise HandError("hand/bad_tile", f"not a playable tile in a meld: {t!r}")
        # R98 第七条: only a kong may be declared concealed (暗杠); a chow or pung is always claimed.
        if m.concealed and m.kind != KONG:
            raise HandError("hand/bad_meld", f"only a kong can be concealed, not {m}")
        if m.kind == CHOW and (not is_number(t) or rank(t) > 7):
            raise HandError("hand/bad_chow", f"no chow starts at {tile_name(t)}: a chow is three ranks of one suit")
        for x in m.tiles:
            all_counts[x] += 1
    for t, n in enumerate(all_counts):
        if n > 4:
            raise HandError("hand/too_many_copies", f"{n} copies of {tile_name(t)}; there are only 4")
    if not (isinstance(ctx.flowers, int) and 0 <= ctx.flowers <= 8):
        raise HandError("context/flowers", f"flowers must be 0..8, got {ctx.flowers!r}")
    for field_name in ("seat_wind", "prevalent_wind"):
        value = getattr(ctx, field_name)
        if not (isinstance(value, int) and 0 <= value <= 3):
            raise HandError("context/wind", f"{field_name} must be 0..3 (E, S, W, N), got {value!r}")
    check_flags(hand, ctx)
    standing = [0] * NUM_KINDS
    for t in (*hand.tiles, ctx.win_tile):
        standing[t] += 1
    return standing, all_counts


def check_flags(hand: Hand, ctx: WinContext) -> None:
    """The flags that must agree with the hand: 和绝张 and the kong flag (the last check)."""
    melds = hand.melds
    win = ctx.win_tile
    held = hand.tiles.count(win)
    if ctx.fourth_tile and held:
        raise HandError(
            "context/fourth_tile_held",
            f"和绝张 on {tile_name(win)} while the winner holds {held} concealed cop{'y' if held == 1 else 'ies'} of it",
        )
    if ctx.kong:
        if ctx.self_drawn:
            if not any(m.kind == KONG for m in melds):
                raise HandError("context/kong_without_kong", "杠上开花 (kong flag on a self-draw) needs a declared kong")
        else:
            melded = sum(x == win for m in melds for x in m.tiles)
            if held or melded:
                raise HandError(
                    "context/robbed_tile_held",
                    f"抢杠和 on {tile_name(win)} while the winner already holds or has melded a copy",
                )
            if ctx.last_tile:
                raise HandError("context/robbed_and_last", "抢杠和 and 海底捞月 together: no kong is allowed after the last tile")
