"""The uniform claim window: after every discard and every added kong, all three other seats are asked,
whether or not anybody can claim, so the table never learns who could (docs/rooms.md).

``game.views`` would show every seat that the game opened a window (and the game opens one only when
somebody has a claim). The room instead opens its own window every time, holds back the game's events
that follow the discard until it closes, and shows each seat the view as it was right after the discard:
a seat with claims sees them, any other sees only ``pass``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from game import match as gm
from game.actions import PASS, to_dict as action_dict
from game.state import CLAIM

DISCARD, ROB = "discard", "rob"


@dataclass(slots=True)
class Window:
    kind: str  # DISCARD or ROB (an added kong)
    tile: int
    seat: int  # table seat of the discarder / kong seat
    player: int  # that seat's player
    seq: int  # the game seq the answers carry
    opened: float
    asked: tuple[int, ...]  # the other three players, counterclockwise from the discarder
    options: dict  # player -> the game's legal answers (with pass), or () when the game does not ask
    before: gm.MatchState  # the match before the discard: the base of every view during the window
    ready: bool  # the discard declared 听
    held: list  # the game's events after the discard, sent when the window closes
    answers: dict = field(default_factory=dict)  # player -> action

    def legal(self, player: int) -> tuple:
        """What ``player`` may answer now: its claims and pass, only pass, or nothing."""
        if player not in self.asked or player in self.answers:
            return ()
        return self.options[player] or (PASS,)

    @property
    def complete(self) -> bool:
        return len(self.answers) == len(self.asked)


def open_window(kind: str, tile: int, player: int, before: gm.MatchState, after: gm.MatchState, ready: bool,
                held: list, now: float) -> Window:
    seat = before.seat_of(player)
    seats = before.seats()
    asked = tuple(seats[(seat + k) % 4] for k in (1, 2, 3))
    game_asks = after.phase == gm.PLAYING and after.hand.phase == CLAIM
    options = {p: (gm.legal_actions(after, p) if game_asks else ()) for p in asked}
    return Window(kind, tile, seat, player, after.seq, now, asked, options, before, ready, held)


def window_view(w: Window, player: int | None) -> dict:
    """The view of ``player`` (None: spectator) during the window: the match right after the discard,
    built from the state before it, so that it is the same whether the game asked anybody or not."""
    v = gm.view(w.before, player)
    v["seq"] = w.seq
    v["match"]["seq"] = w.seq
    v["phase"] = CLAIM
    v["turn"] = w.seat
    v["claim"] = {"kind": w.kind, "tile": w.tile, "seat": w.seat}
    p = v["players"][w.seat]
    p["tiles"] -= 1
    if w.kind == DISCARD:
        p["discards"].append([w.tile, False])
        if w.ready:
            p["declared"] = True
    if player is not None:
        if player == w.player:
            hand = v["hand"]
            hand.remove(w.tile)
        v["drawn"] = None
        v["legal"] = [action_dict(a) for a in w.legal(player)]
        v["to_act"] = bool(v["legal"])
    return v


__all__ = ["Window", "open_window", "window_view", "DISCARD", "ROB"]
