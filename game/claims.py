"""The claim window after a discard or an added kong: who may claim what, and who gets the tile.

decisions.md item 9 (R98 第七条, 第八条 二(三)): 和 > 碰/杠 > 吃; 吃 only from the player on the left
(the seat just before, so only the discarder's next seat); with several 和 the first counterclockwise
from the discarder wins (截和), never several winners. Item 11: the final discard is claimable only
for 和 (海底捞月). Item 10: only an added kong can be robbed.

The window is decided only when all three other seats have answered, never earlier: an early close
would depend on what the seats still to answer could claim (an open 和 option, say), and so tell it.
"""

from __future__ import annotations

from game import judge
from game.actions import CHOWS, KONG, PASS, PUNG, WIN, Chow, Kong, Pung, Win
from game.records import ROB_CLAIM, ClaimWindow
from game.shape import may_win

_NONE: tuple = ()


def order(seat: int) -> tuple[int, int, int]:
    """The other seats counterclockwise from ``seat``: 下家, 对家, 上家."""
    return ((seat + 1) % 4, (seat + 2) % 4, (seat + 3) % 4)


def chow_lows(concealed: tuple, tile: int) -> list[int]:
    """Lowest tiles of the chows ``concealed`` can make with ``tile`` (a number tile)."""
    r = tile % 9
    below1 = r >= 1 and tile - 1 in concealed
    above1 = r <= 7 and tile + 1 in concealed
    lows = []
    if below1 and r >= 2 and tile - 2 in concealed:
        lows.append(tile - 2)
    if below1 and above1:
        lows.append(tile - 1)
    if above1 and r <= 6 and tile + 2 in concealed:
        lows.append(tile)
    return lows


def discard_options(s, discarder: int, tile: int) -> tuple:
    """Each seat's claims on a discard (empty for the discarder and for seats that have none)."""
    rules = s.rules
    # The final discard may be claimed only for 和 (decisions.md item 11); 报听 locks the hand
    # (decisions.md, 大众馆); 停和 may claim only if the room allows it (item 13).
    melds_ok = s.tail != s.head
    training, blocked_claims = rules.false_win_penalty, rules.blocked_may_claim
    blocked, declared, concealed, melds = s.blocked, s.declared, s.concealed, s.melds
    out = [_NONE, _NONE, _NONE, _NONE]
    for k in (1, 2, 3):
        seat = (discarder + k) & 3
        c = concealed[seat]
        opts = []
        if not blocked[seat] and (
            training or (may_win(c, tile, len(melds[seat])) and judge.wins(s, seat, tile, judge.DISCARD))
        ):
            opts.append(WIN)  # training mode: anyone not 停和 may declare (item 12)
        if melds_ok and not declared[seat] and (blocked_claims or not blocked[seat]):
            if tile in c:
                n = c.count(tile)
                if n >= 2:
                    opts.append(PUNG)
                    if n >= 3:
                        opts.append(KONG)  # the wall is not empty: a replacement exists (item 10)
            if k == 1 and tile < 27:  # 吃 only from the left: the discarder's next seat (item 9)
                for low in chow_lows(c, tile):
                    opts.append(CHOWS[low])
        if opts:
            out[seat] = tuple(opts)
    return tuple(out)


def rob_options(s, kong_seat: int, tile: int) -> tuple:
    """Who may rob an added kong: only a win (抢杠和, R98 #47)."""
    out = [_NONE, _NONE, _NONE, _NONE]
    for seat in order(kong_seat):
        if not s.blocked[seat] and (s.rules.false_win_penalty or judge.can_win(s, seat, tile, judge.ROB)):
            out[seat] = (WIN,)
    return tuple(out)


def open_window(kind: str, tile: int, seat: int, options: tuple) -> ClaimWindow:
    """The window every discard and added kong opens, asking all three other seats."""
    return ClaimWindow(kind, tile, seat, options, (None, None, None, None))


def legal(window: ClaimWindow, seat: int) -> tuple:
    """A seat still to answer may claim what it can, or pass (only pass, if it has no claim)."""
    if seat == window.seat or window.responses[seat] is not None:
        return _NONE
    return window.options[seat] + (PASS,)


def winners(window: ClaimWindow) -> list[int]:
    """Seats that declared 和, in priority order (the first valid one wins: 截和)."""
    return [seat for seat in order(window.seat) if type(window.responses[seat]) is Win]


def meld_claim(window: ClaimWindow):
    """The winning non-和 claim: (seat, action) for 碰/杠 first, then 吃, or None."""
    if window.kind == ROB_CLAIM:
        return None
    for seat in order(window.seat):
        if type(window.responses[seat]) in (Pung, Kong):
            return seat, window.responses[seat]
    left = (window.seat + 1) % 4
    if type(window.responses[left]) is Chow:
        return left, window.responses[left]
    return None
