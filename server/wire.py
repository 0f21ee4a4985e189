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

from rooms.config import RoomConfig  # a dataclass: its fields are the config keys (docs/protocol.md)
from server.wire_game import (  # the game's part of the schema
    EVENTS, Action, ClaimView, Fan, GameEvent, GameView, Hint, HintWait, MatchInfo, Meld, PlayerView, ResultView,
    SelfDrawn, Tile, WinView,
)

class Envelope(TypedDict):
    re: NotRequired[int]
    n: NotRequired[int]
    room: NotRequired[str]
    rseq: NotRequired[int]


MODULES = ("server.wire", "server.wire_game", "server.wire_tournament", "server.wire_api")  # server/wire_ts.py


# -- the game: server/wire_game.py ----------------------------------------------------------------------

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
    faults: NotRequired[dict[str, int]]  # an external bot's seat: answers replaced ("late", "bad"), docs/bots.md


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
    id: NotRequired[int | None]  # in ``history`` and a snapshot's records: GET /api/matches/<id>


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
    TournamentDeltaMsg, TOURNAMENT_EVENTS, TournamentEventMsg,
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
    bots: NotRequired[list[str]]  # the external bots this server registered (docs/bots.md)


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
    t: Literal["queued"]  # the reply to quick; again (without re) when the queue changes or you sign in
    type: str
    hands: int  # the match's length: 4, 8 or 16
    wait: float | None  # the wait you asked for (null when resent)
    waiting: int  # players in this queue (type and hands), you included
    fill: float | None  # seconds until bots are expected to fill your table; null: humans only
    waited: float  # seconds since you joined the queue (a reloaded page shows the whole wait)


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


class OwnMatch(TypedDict):
    id: int  # the match: GET /api/matches/<id> is its replay
    type: str
    hands: int | None
    place: int
    points: int
    abandoned: bool
    rating: float | None  # after the match; null: not rated
    finished_at: float
    others: list[str]  # the other humans' names, by first-round seat
    bots: int
    replay: str


class MatchesMsg(Envelope):
    t: Literal["matches"]  # your own finished matches, newest first (also when your profile hides them)
    page: int
    per_page: int
    total: int
    items: list[OwnMatch]


class ErrorMsg(Envelope):
    t: Literal["error"]
    code: str
    message: str
    tournament: NotRequired[str]  # server/internal pushed to a tournament's followers: which one


MESSAGES = (
    WelcomeMsg, AccountMsg, SessionsMsg, DeletedMsg, RoomsMsg, QueuedMsg, SnapshotMsg, RoomMsg, GameMsg, HandResultMsg,
    MatchResultMsg, CommitmentMsg, RevealMsg, KickedMsg, LeftMsg, ClosedMsg, ReplacedMsg, ChatMsg, TournamentsMsg,
    TournamentMsg, TournamentDeltaMsg, *TOURNAMENT_EVENTS, TableMsg, SubstitutedMsg, OkMsg, PongMsg, HistoryMsg,
    MatchesMsg, ErrorMsg,
)
ServerMessage = Union[MESSAGES]  # a message is one of these (told apart by its "t")
