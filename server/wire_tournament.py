"""The tournaments' shapes on the wire (rooms/tournament/report.py views, docs/protocol.md "Tournaments"),
declared apart from server/wire.py, which imports them; server/wire_ts.py generates their client types
with the others. Import server.wire, not this module, first (this one takes Envelope, Meld and Tile from it).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict, Union

from server.wire import Envelope, Meld, Tile


class TournamentSummary(TypedDict):
    id: str
    name: str
    type: str
    state: str
    players: int
    max_players: int
    sessions: int
    session: int | None  # the session being played
    next_start: float | None  # the next session's scheduled start (Unix seconds)
    organiser: str


class TournamentConfig(TypedDict):
    """rooms/tournament/config.py TournamentConfig.to_dict (tests/server/test_wire.py: the same keys)."""
    name: str
    type: str
    sessions: int
    hands: int
    time_limit: float
    time_up: str
    seating: str
    starts: list[float | None]
    checkin_before: float
    max_players: int
    min_players: int
    fill_bots: bool
    checkin_required: bool
    turn_time: float
    claim_time: float
    bank: float
    false_win_penalty: bool
    duplicate: bool


class FoulEvidence(TypedDict):
    tiles: list[Tile]
    drawn: Tile | None
    melds: list[Meld]
    from_ready: int  # shanten: 0 ready, 1 one tile from ready


class Cancellation(TypedDict):
    by: str
    at: float
    reason: str


class SanctionRecord(TypedDict):
    id: int
    kind: str  # warning | points | stop_win | suspend | notice | late | forfeit | offence | false_win
    player: str | None
    session: int | None
    table: str | None
    hand: int | None  # 1-based
    points: int
    reason: str
    by: str  # a referee's id or "system"
    at: float
    public: bool
    offence: str | None
    reported: int | None  # the table's own count of that offence in that hand; None: not a table's report
    evidence: NotRequired[FoulEvidence | None]  # a false win's hand: the player and the referee only
    cancelled: Cancellation | None


class SeatResult(TypedDict):
    seat: int
    player: str | None
    bot: bool
    substituted: str | None  # "forfeit" | "suspended"
    ranked: bool
    points: list[int]  # 盘分 per hand
    late: int
    forfeit: bool
    score: int  # 局分
    std12: int | None
    std: float | None


class TableHand(TypedDict):
    hand: int  # 1-based
    deltas: list[int]
    void: bool
    winner: int | None
    discarder: int | None
    self_drawn: bool
    total: int


class TableView(TypedDict):
    table: str
    session: int
    number: int
    state: str
    started: float | None
    time_up: bool
    hands: list[TableHand]
    seats: list[SeatResult]


class SessionView(TypedDict):
    index: int
    scheduled: float | None
    start: float | None
    ended: float | None
    state: str
    checkin_opens: float | None
    byes: list[str]
    commitment: str | None  # duplicate: SHA-256 of the session's walls (seed and salt), before play
    tables: list[TableView]


class DuplicateHolder(TypedDict):
    """One table's holder of a wind seat of a deal (rooms/tournament/duplicate.py)."""
    table: str
    room_seat: int
    slot: int  # the holder's rank at its table when seated (0 = best): the seat turn is by slot
    player: str | None
    points: int  # 盘分
    compared: bool
    diff: float | None  # 盘分 - the mean of the holders compared
    replay: int | None  # the table's match (GET /api/matches/<id>)


class DuplicateSeat(TypedDict):
    seat: int  # the wind seat of the deal, 0..3 = E S W N
    holders: list[DuplicateHolder]


class DuplicateDeal(TypedDict):
    hand: int
    seats: list[DuplicateSeat]


class DuplicateSession(TypedDict):
    session: int
    commitment: str | None
    seed: str | None  # revealed once the session is over
    salt: str | None
    deals: list[DuplicateDeal]


class DuplicateRow(TypedDict):
    place: int
    player: str
    score: float
    deals: int


class DuplicateView(TypedDict):
    sessions: list[DuplicateSession]
    standings: list[DuplicateRow]


class StandingRow(TypedDict):
    place: int
    player: str
    std12: int
    std: float
    score: int
    sessions: int
    by_std: list[float]
    suspended: NotRequired[bool]  # 停赛: earlier results stand, no more play


class TeamRow(TypedDict):
    place: int
    team: str
    players: list[str]
    std12: int
    std: float
    score: int


class TournamentPlayer(TypedDict):
    id: str
    team: str | None
    order: int
    status: str
    warnings: NotRequired[int]  # 警告 on record
    checked_in: bool
    table: str | None


class TournamentYou(TypedDict):
    id: str | None
    roles: list[str]
    registered: bool


class TableRoom(TypedDict):
    room: str
    code: str | None  # None once the room is gone


class TournamentView(TypedDict):
    id: str
    config: TournamentConfig
    organiser: str
    referee: str | None
    referee_offer: NotRequired[str | None]  # named referee, not yet accepted
    state: str
    created: float
    cancel_reason: str | None
    you: TournamentYou
    session: int | None
    players: list[TournamentPlayer]
    sessions: list[SessionView]
    standings: list[StandingRow]
    teams: list[TeamRow]
    suspended: list[str]
    duplicate: DuplicateView | None  # duplicate (复式) events only
    sanctions: list[SanctionRecord]
    notices: list[SanctionRecord]
    rooms: NotRequired[dict[str, TableRoom]]  # referee and organiser: each table's room
    names: NotRequired[dict[str, str]]
    tseq: NotRequired[int]  # the point of its log it shows (server/wire_delta.py); not in a closed one


class TournamentDeltaMsg(Envelope):
    """What changed in a followed tournament's view (docs/protocol.md "Tournament deltas")."""
    t: Literal["tournament_delta"]
    tournament: str
    from_: int  # the tseq of the view it applies to
    tseq: int  # the view's tseq after it
    set: NotRequired[dict[str, Any]]  # top-level view fields, replaced whole
    players: NotRequired[list[TournamentPlayer]]  # replace by id, or add
    unregistered: NotRequired[list[str]]
    sessions: NotRequired[list[SessionView]]  # replace by index
    tables: NotRequired[list[TableView]]  # replace by table key in their session, or add
    standings: NotRequired[list[StandingRow]]  # rows that changed or are new
    ranking: NotRequired[list[str]]  # every standings row's player in order; absent: the old order, new rows last
    names: NotRequired[dict[str, str]]  # merged into names


# -- tournament_event: one declaration per event (rooms/tournament/tournament.py _notify) ---------------

class TournamentEventBase(Envelope):
    t: Literal["tournament_event"]
    tournament: str
    tseq: int  # the point of the tournament's log it follows


class TevRegistered(TournamentEventBase):
    event: Literal["registered"]
    player: str
    team: str | None


class TevUnregistered(TournamentEventBase):
    event: Literal["unregistered"]
    player: str


class TevCheckedIn(TournamentEventBase):
    event: Literal["checked_in"]
    player: str
    session: int


class TevReferee(TournamentEventBase):
    event: Literal["referee"]
    referee: str | None  # None: nobody referees


class TevRefereeOffered(TournamentEventBase):
    """To the account named referee and the organiser: send ``accept_referee`` to take the role."""
    event: Literal["referee_offered"]
    player: str


class TevCancelled(TournamentEventBase):
    event: Literal["cancelled"]
    reason: str


class TevSanction(TournamentEventBase):
    """A sanction to its audience (a non-public one: its player, the referee and the organiser)."""
    event: Literal["sanction"]
    sanction: SanctionRecord


class TevSanctionCancelled(TournamentEventBase):
    event: Literal["sanction_cancelled"]
    sanction: SanctionRecord


class SessionTable(TypedDict):
    table: str
    players: list[str | None]  # by room seat; None: a bot's seat


class TevSessionStarted(TournamentEventBase):
    event: Literal["session_started"]
    session: int
    start: float
    byes: list[str]
    tables: list[SessionTable]


class TevTableStarted(TournamentEventBase):
    event: Literal["table_started"]
    table: str


class TevSubstituted(TournamentEventBase):
    event: Literal["substituted"]
    table: str
    seat: int  # the room seat a bot that cannot win now plays
    player: str | None
    why: Literal["forfeit", "suspended"]


class TevTimeUp(TournamentEventBase):
    event: Literal["time_up"]
    table: str
    finish_hand: bool  # the hand in play is finished (else it is void)


class TevHand(TournamentEventBase):
    event: Literal["hand"]
    table: str
    hand: int  # 1-based


class TevTableFinished(TournamentEventBase):
    event: Literal["table_finished"]
    table: str
    seats: list[SeatResult]


class TevSessionFinished(TournamentEventBase):
    event: Literal["session_finished"]
    session: int
    standings: list[StandingRow]


class TevFinished(TournamentEventBase):
    event: Literal["finished"]
    standings: list[StandingRow]
    teams: list[TeamRow]


TOURNAMENT_EVENTS = (
    TevRegistered, TevUnregistered, TevCheckedIn, TevReferee, TevRefereeOffered, TevCancelled, TevSanction,
    TevSanctionCancelled, TevSessionStarted, TevTableStarted, TevSubstituted, TevTimeUp, TevHand, TevTableFinished,
    TevSessionFinished, TevFinished,
)
TournamentEventMsg = Union[TOURNAMENT_EVENTS]  # told apart by "event" (docs/protocol.md "Tournaments")
