"""The game's shapes on the wire (game/views.py, game/match.py, game/hints.py): the view a seat sees,
its legal actions, the events of a hand and the wait hint. Part of server/wire.py's schema, which
imports them; server/wire_ts.py generates their client types with the others.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict, Union

Tile = int  # 0..33 suits and honours, 34..41 flowers (game/tiles.py)
# A fan: [id, Chinese name, English name, points, count] and, in results, the sets that formed it
# (game.fans fan_lists); the id is None for a room's extra fans (258将, 听).
Fan = Union[tuple[int | None, str, str, int, int], tuple[int | None, str, str, int, int, list[str]]]


# -- game view (game/views.py view, game/match.py view) -----------------------------------------------

class Meld(TypedDict):
    kind: Literal["chow", "pung", "kong"]
    tile: NotRequired[Tile]  # absent for another seat's concealed kong (face down)
    concealed: bool
    claimed: NotRequired[Tile]
    source: NotRequired[int]  # the seat it was claimed from
    added: NotRequired[bool]


class PlayerView(TypedDict):
    seat: int
    wind: int  # 0..3 = E S W N
    melds: list[Meld]
    flowers: list[Tile]
    discards: list[tuple[Tile, bool]]  # [tile, claimed]
    tiles: int  # concealed tile count
    blocked: bool
    declared: bool  # 报听
    hand: NotRequired[list[Tile]]


# A legal action (game/actions.py to_dict): a player's answer carries one with the prompt's ``seq``.
class ActDiscard(TypedDict):
    a: Literal["discard"]
    tile: Tile
    ready: NotRequired[bool]  # 报听 with the discard (大众馆)
    seq: NotRequired[int]


class ActWin(TypedDict):
    a: Literal["win"]
    seq: NotRequired[int]


class ActPass(TypedDict):
    a: Literal["pass"]
    seq: NotRequired[int]


class ActChow(TypedDict):
    a: Literal["chow"]
    low: Tile
    seq: NotRequired[int]


class ActPung(TypedDict):
    a: Literal["pung"]
    seq: NotRequired[int]


class ActKong(TypedDict):
    a: Literal["kong"]
    seq: NotRequired[int]


class ActConcealedKong(TypedDict):
    a: Literal["concealed_kong"]
    tile: Tile
    seq: NotRequired[int]


class ActAddedKong(TypedDict):
    a: Literal["added_kong"]
    tile: Tile
    seq: NotRequired[int]


class ActContinue(TypedDict):
    a: Literal["continue"]
    seq: NotRequired[int]


Action = Union[ActDiscard, ActWin, ActPass, ActChow, ActPung, ActKong, ActConcealedKong, ActAddedKong, ActContinue]


class WinView(TypedDict):
    seat: int
    from_: int | None
    tile: Tile
    robbed: bool
    self_drawn: bool
    tiles: list[Tile]  # the winner's concealed tiles without the winning tile
    fans: list[Fan]
    total: int


class HandEndWin(WinView):
    """The win as the hand_end event tells it: with the context its fans came from."""
    kong: bool  # on a kong's replacement tile (杠上开花) or robbing one (抢杠和)
    last_tile: bool  # the wall's last tile (妙手回春, 海底捞月)
    fourth_tile: bool  # the last copy of its tile (和绝张)


class ResultView(TypedDict):
    payments: list[int]
    penalties: list[int]
    win: WinView | None
    hands: NotRequired[list[list[Tile]]]  # every seat's concealed tiles, after an exhaustive draw


class MatchInfo(TypedDict):
    hand: int
    hands: int
    round: int
    seats: list[int]  # the player at each table seat
    scores: list[int]  # per player
    phase: Literal["playing", "between", "finished"]
    ready: list[bool]
    player: int | None
    seq: int
    no_win: list[bool]  # per player: an unranked bot that cannot win
    last: int  # the last hand to play (a time limit may bring it forward)
    void: bool  # the match was stopped before its end (time up)
    deltas: NotRequired[list[int]]


class SelfDrawn(TypedDict):
    total: int
    total_without_flowers: int
    meets_min: bool


class HintWait(TypedDict):
    """A wait as game/hints.py gives it: its fans on a discard, and self-drawn (自摸, 不求人)."""
    tile: Tile
    fans: list[Fan]
    total: int
    total_without_flowers: int
    meets_min: bool
    self_drawn: NotRequired[SelfDrawn]


class Hint(TypedDict):
    """The waits now (13 − 3k tiles), or per discard (its tile as a string key) that leaves the hand ready."""
    waits: NotRequired[list[HintWait]]
    discards: NotRequired[dict[str, list[HintWait]]]


class ClaimView(TypedDict):
    kind: str
    tile: Tile
    seat: int


class GameView(TypedDict):
    seq: int
    phase: Literal["turn", "claim", "over"]
    dealer: int
    prevalent: int
    turn: int
    wall: int
    seat: int | None  # the viewer's table seat (None: a spectator)
    players: list[PlayerView]
    fouls: list[tuple[int, str, int]]  # [seat, kind, points]
    claim: NotRequired[ClaimView | None]
    hand: NotRequired[list[Tile]]
    drawn: NotRequired[Tile | None]
    legal: NotRequired[list[Action]]
    to_act: NotRequired[bool]
    result: NotRequired[ResultView]
    match: MatchInfo
    hint: NotRequired[Hint | None]


# -- game events (game/views.py EVENT_FIELDS: what each seat may see of them) -------------------------

class EvStart(TypedDict):
    t: Literal["start"]
    dealer: int
    prevalent: int
    wall: int
    seq: int
    hand: NotRequired[int]


class EvDeal(TypedDict):
    t: Literal["deal"]
    seat: int
    count: int
    tiles: NotRequired[list[Tile]]  # the own seat's only
    hand: NotRequired[int]


class EvFlower(TypedDict):
    t: Literal["flower"]
    seat: int
    tile: Tile
    source: Literal["deal", "wall", "tail"]
    hand: NotRequired[int]


class EvDraw(TypedDict):
    t: Literal["draw"]
    seat: int
    source: Literal["wall", "tail"]
    tile: NotRequired[Tile]  # the own seat's only
    hand: NotRequired[int]


class EvTurn(TypedDict):
    t: Literal["turn"]
    seat: int
    seq: int
    hand: NotRequired[int]


class EvDiscard(TypedDict):
    t: Literal["discard"]
    seat: int
    tile: Tile
    ready: bool
    hand: NotRequired[int]


class EvClaimWindow(TypedDict):
    t: Literal["claim_window"]
    kind: str
    tile: Tile
    seat: int
    seq: int
    hand: NotRequired[int]


class EvResponse(TypedDict):
    t: Literal["response"]
    seat: NotRequired[int]  # the own seat's only
    action: NotRequired[str]
    hand: NotRequired[int]


class EvClaim(TypedDict):
    t: Literal["claim"]
    seat: int
    kind: str
    tile: Tile
    from_: int
    meld: Meld
    hand: NotRequired[int]


class EvConcealedKong(TypedDict):
    t: Literal["concealed_kong"]
    seat: int
    tile: NotRequired[Tile]  # the own seat's only
    hand: NotRequired[int]


class EvAddedKong(TypedDict):
    t: Literal["added_kong"]
    seat: int
    tile: Tile
    hand: NotRequired[int]


class EvFoul(TypedDict):
    t: Literal["foul"]
    seat: int
    kind: str
    points: int
    hand: NotRequired[int]


class EvHandEnd(TypedDict):
    t: Literal["hand_end"]
    seq: int
    kongs: list[list[Tile]]  # each seat's concealed kongs, shown at the end
    payments: list[int]
    penalties: list[int]
    win: HandEndWin | None
    hands: NotRequired[list[list[Tile]]]  # 荒牌: every seat's concealed tiles
    hand: NotRequired[int]


class EvHandStart(TypedDict):
    t: Literal["hand_start"]
    hand: int
    round: int
    seats: list[int]
    scores: list[int]
    seq: int


class EvScores(TypedDict):
    t: Literal["scores"]
    hand: int
    scores: list[int]
    deltas: list[int]


class EvReady(TypedDict):
    t: Literal["ready"]
    player: int
    hand: NotRequired[int]


class EvMatchEnd(TypedDict):
    t: Literal["match_end"]
    scores: list[int]
    hand: NotRequired[int]


EVENTS = (EvStart, EvDeal, EvFlower, EvDraw, EvTurn, EvDiscard, EvClaimWindow, EvResponse, EvClaim,
          EvConcealedKong, EvAddedKong, EvFoul, EvHandEnd, EvHandStart, EvScores, EvReady, EvMatchEnd)
GameEvent = Union[EvStart, EvDeal, EvFlower, EvDraw, EvTurn, EvDiscard, EvClaimWindow, EvResponse, EvClaim,
                  EvConcealedKong, EvAddedKong, EvFoul, EvHandEnd, EvHandStart, EvScores, EvReady, EvMatchEnd]
