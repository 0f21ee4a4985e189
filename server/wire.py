"""The messages the server sends, declared once (docs/protocol.md describes them; this module is the
source of truth for their shape). The browser client's types are generated from here and from the
commands' fields (server/schema.py) by server/wire_ts.py: ``make wire`` writes
web_client/src/wire.gen.ts, and tests/server/test_wire.py fails when that file is stale.

``NotRequired`` marks a field a message may leave out; ``X | None`` a field sent as null.
Every message may also carry ``re`` (the ``id`` of the command it answers) and ``n`` (its number among
the pushes of this connection), and a room's messages ``room`` and ``rseq`` (Envelope).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict, Union

from rooms.config import RoomConfig  # a dataclass: its fields are the config's keys (docs/protocol.md "Room config")

Tile = int  # 0..33 suits and honours, 34..41 flowers (game/tiles.py)
# A fan: [id, Chinese name, English name, points, count] and, in results, the sets that formed it
# (game.fans fan_lists); the id is None for a room's extra fans (258将, 听).
Fan = Union[tuple[int | None, str, str, int, int], tuple[int | None, str, str, int, int, list[str]]]


class Envelope(TypedDict):
    re: NotRequired[int]
    n: NotRequired[int]
    room: NotRequired[str]
    rseq: NotRequired[int]


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
    win: WinView | None
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


# -- rooms (rooms/messages.py, server/roomtask.py) ---------------------------------------------------

class SeatInfo(TypedDict):
    id: str
    bot: str | None
    ready: bool
    connected: bool
    auto: str | None
    name: NotRequired[str]
    blocked: bool  # 停和 in the hand in play
    no_win: bool  # an unranked bot that cannot win plays the seat (tournament tables)
    substitute: bool
    replaces: str | None  # the player a substitute stands in for


class RoomInfo(TypedDict):
    id: str
    type: str
    config: RoomConfig
    host: str | None
    phase: Literal["lobby", "playing"]
    seats: list[SeatInfo | None]
    matches: int
    spectators: int  # how many watch
    invite: NotRequired[str]  # members only
    names: NotRequired[dict[str, str]]
    table: Any  # a tournament table's key, else None
    quick: bool  # a quick-match room: no kick
    time_up: bool


class SeatSummary(TypedDict):
    id: str
    bot: str | None
    name: NotRequired[str]


class RoomSummary(TypedDict):
    room: str
    type: str
    phase: str
    hands: int
    seats: list[SeatSummary | None]
    spectators: int
    names: NotRequired[dict[str, str]]


class Clock(TypedDict):
    decision: Literal["turn", "claim", "between"] | None
    deadline: float | None
    started: float | None
    free_until: float | None
    banks: list[float]
    auto: list[str | None]
    player: NotRequired[int]


class HandRecord(TypedDict):
    match: int
    hand: int
    round: int
    dealer: int
    seats: list[int]
    ids: list[str]  # the player at each seat
    winner: int | None
    discarder: int | None
    self_drawn: bool
    robbed: bool
    tile: Tile | None
    fans: list[Fan]  # with the sets that formed each fan
    total: int
    payments: list[int]
    penalties: list[int]
    deltas: list[int]
    scores: list[int]
    void: bool


class Placing(TypedDict):
    place: int
    player: int
    id: str
    score: int


class MatchSummary(TypedDict):
    match: int  # the room's match number
    ids: list[str]  # the player at each seat
    scores: list[int]
    ranking: list[Placing]
    void: bool
    id: NotRequired[int | None]  # in ``history``: GET /api/matches/<id>


class MatchRecord(MatchSummary):
    hands: list[HandRecord]
    seed: Any
    rules: dict[str, Any]
    actions: NotRequired[list[Any]]  # not in a snapshot's records (GET /api/matches/<id> has them)
    no_win: list[bool]
    log_format: int  # how to read ``actions`` (game.match.replay_step)


class Records(TypedDict):
    matches: list[MatchRecord]  # the match just finished (in the lobby after it), else none
    current: list[HandRecord]


class You(TypedDict):
    id: str
    seat: int | None
    host: bool
    hints: bool  # whether the room sends this player the wait hint


class ReplayHand(HandRecord):
    events: NotRequired[list[GameEvent]]  # every seat's tiles open; absent when the log does not replay


class MatchFile(TypedDict):
    """A finished match as GET /api/matches/<id> serves it (server/store.py finished_match, the replay's
    events added by server/app.py replay_file): ``guobiao replay`` checks it."""
    format: Literal["guobiao-match/1"]
    id: int
    room: str
    number: int
    rules: dict[str, Any]
    seed: int | str
    salt: str
    commitment: str
    players: list[str | None]
    started_at: float | None
    finished_at: float | None
    actions: list[Any]
    hands: list[ReplayHand]
    scores: list[int]
    ranking: list[Placing]
    log_format: int


# -- tournaments: server/wire_tournament.py -------------------------------------------------------------

from server.wire_tournament import (  # noqa: E402 (its shapes use Envelope, Meld and Tile above)
    TournamentSummary, TournamentConfig, FoulEvidence, Cancellation, SanctionRecord, SeatResult, TableHand,
    TableView, SessionView, StandingRow, TeamRow, TournamentPlayer, TournamentYou, TableRoom, TournamentView,
    TournamentDeltaMsg,
)


# -- the messages --------------------------------------------------------------------------------------

class WelcomeMsg(Envelope):
    t: Literal["welcome"]
    player: str
    name: str
    token: str
    login: str | None  # the account's login name; None: a guest (docs/protocol.md "Accounts")
    room: str | None
    queued: str | None  # the room type quick match has this player waiting for


class AccountMsg(Envelope):
    t: Literal["account"]
    player: str
    name: str
    login: str | None
    hide_history: bool


class SessionRow(TypedDict):
    session: str
    created: float
    last_seen: float
    user_agent: str | None
    address: str | None
    current: bool  # the session this connection signed in with


class SessionsMsg(Envelope):
    t: Literal["sessions"]
    sessions: list[SessionRow]


class DeletedMsg(Envelope):
    t: Literal["deleted"]
    player: str


class Page(Envelope):  # a list in pages (from 0)
    page: int
    pages: int
    total: int


class RoomsMsg(Page):
    t: Literal["rooms"]
    rooms: list[RoomSummary]  # ranked (server/listing.py), one page


class QueuedMsg(Envelope):
    t: Literal["queued"]
    type: str
    wait: float | None


class SnapshotMsg(Envelope):
    t: Literal["snapshot"]
    info: RoomInfo
    you: You
    game: GameView | None
    clock: Clock
    records: Records
    seq: NotRequired[int]  # while a match is on: where the table is
    commitment: NotRequired[str]


class RoomMsg(Envelope):
    t: Literal["room"]
    info: RoomInfo


class GameMsg(Envelope):
    t: Literal["game"]
    events: list[GameEvent]
    legal: list[Action]
    to_act: bool
    seq: int | None  # what an answer must carry
    clock: Clock
    hint: NotRequired[Hint | None]  # only when it changed


class HandResultMsg(Envelope):
    t: Literal["hand_result"]
    record: HandRecord


class MatchResultMsg(Envelope):
    t: Literal["match_result"]
    record: MatchRecord


class CommitmentMsg(Envelope):
    t: Literal["commitment"]
    match: int
    commitment: str


class RevealMsg(Envelope):
    t: Literal["reveal"]
    match: int
    id: int | None  # the stored match: GET /api/matches/<id>
    seed: int | str
    salt: str
    commitment: str


class KickedMsg(Envelope):
    t: Literal["kicked"]


class LeftMsg(Envelope):
    t: Literal["left"]


class ClosedMsg(Envelope):
    t: Literal["closed"]


class ReplacedMsg(Envelope):
    t: Literal["replaced"]
    message: str


class ChatMsg(Envelope):
    t: Literal["chat"]
    from_: str
    name: str
    text: str


class TournamentsMsg(Page):
    t: Literal["tournaments"]
    tournaments: list[TournamentSummary]  # ranked, scheduled events first (server/listing.py), one page


class TournamentMsg(Envelope):
    t: Literal["tournament"]
    tournament: TournamentView


class TournamentEventMsg(Envelope):
    """What just happened in a tournament (docs/protocol.md "Tournaments"); fields by event."""
    t: Literal["tournament_event"]
    tournament: str
    tseq: int
    event: str
    sanction: NotRequired[SanctionRecord]
    reason: NotRequired[str]


class TableMsg(Envelope):
    t: Literal["table"]
    tournament: str
    table: str


class SubstitutedMsg(Envelope):
    t: Literal["substituted"]
    player: int


class OkMsg(Envelope):
    t: Literal["ok"]


class PongMsg(Envelope):
    t: Literal["pong"]


class HistoryMsg(Page):
    t: Literal["history"]
    room: str
    matches: list[MatchSummary]  # newest first


class ErrorMsg(Envelope):
    t: Literal["error"]
    code: str
    message: str
    tournament: NotRequired[str]  # server/internal pushed to a tournament's followers: which one


MESSAGES = (WelcomeMsg, RoomsMsg, QueuedMsg, SnapshotMsg, RoomMsg, GameMsg, HandResultMsg, MatchResultMsg,
    CommitmentMsg, RevealMsg, KickedMsg, LeftMsg, ClosedMsg, ReplacedMsg, ChatMsg, TournamentsMsg,
    TournamentMsg, TournamentDeltaMsg, TournamentEventMsg, TableMsg, SubstitutedMsg, OkMsg, PongMsg, HistoryMsg, ErrorMsg,
    AccountMsg, SessionsMsg, DeletedMsg)
ServerMessage = Union[WelcomeMsg, AccountMsg, SessionsMsg, DeletedMsg, RoomsMsg, QueuedMsg, SnapshotMsg, RoomMsg, GameMsg, HandResultMsg,
    MatchResultMsg, CommitmentMsg, RevealMsg, KickedMsg, LeftMsg, ClosedMsg, ReplacedMsg, ChatMsg,
    TournamentsMsg, TournamentMsg, TournamentDeltaMsg, TournamentEventMsg, TableMsg, SubstitutedMsg, OkMsg, PongMsg, HistoryMsg, ErrorMsg]
