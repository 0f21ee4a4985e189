"""The HTTP API's JSON (GET /api/..., server/api.py), declared with the messages of server/wire.py: the
browser client's types for them are generated from here (server/wire_ts.py) and tests/server/
test_wire_api.py checks real answers against ``ROUTES``. Import server.wire, not this module, first.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from server.wire import MatchFile, RoomSummary
from server.wire_tournament import TournamentSummary, TournamentView


class ApiError(TypedDict):
    error: Literal["not_found", "too_many_requests"]  # 404, 429


class LoopLag(TypedDict):
    last: float | None  # milliseconds; None before the first sample
    max_1m: float | None


class StorageHealth(TypedDict):
    state: Literal["ok", "paused"]
    reason: str | None  # why writes are held back (play is paused)


class Health(TypedDict):
    """GET /api/health (server/metrics.py health): 200, or 503 while the storage holds writes back."""
    ok: bool
    version: str
    uptime: float  # seconds
    rooms: int
    tournaments: int
    connections: int  # websockets open
    players: int  # players signed in
    loop_lag_ms: LoopLag
    storage: StorageHealth


class RoomsPage(TypedDict):
    """GET /api/rooms: the first page of the public rooms, as ``rooms`` sends it."""
    page: int
    pages: int
    total: int
    rooms: list[RoomSummary]


class TournamentsPage(TypedDict):
    """GET /api/tournaments: the first page of the tournaments, as ``tournaments`` sends it."""
    page: int
    pages: int
    total: int
    tournaments: list[TournamentSummary]


class InviteView(TypedDict):
    """GET /api/invite/<code> (server/invites.py): what an invite link opens, before signing in."""
    code: str  # ABCD-EFGH
    type: str
    hands: int
    host: str | None  # the host's display name
    phase: Literal["lobby", "playing"]
    seated: int
    seats: int
    spectators: bool  # the room lets spectators watch
    quick: bool
    table: bool  # a tournament's table


class Rating(TypedDict):
    rating: float  # mu - 3 sigma
    mu: float
    sigma: float
    matches: int  # rated matches


class PlayerStats(TypedDict):
    matches: int
    hands: int
    wins: int
    win_rate: float | None  # None: no hand yet
    deal_in_rate: float | None
    self_drawn_share: float | None  # None: no win yet
    average_fan: float | None
    average_place: float | None


class FanCount(TypedDict):
    fan: str  # the fan's Chinese name
    name_en: str
    count: int


class ProfileMatch(TypedDict):
    id: int
    type: str
    place: int
    points: int
    abandoned: bool
    rating: float | None  # after the match; None: not rated
    finished_at: float
    replay: str  # GET /api/matches/<id>


class ProfileMatches(TypedDict):
    page: int
    per_page: int
    total: int
    items: list[ProfileMatch]  # newest first


class PlayerProfile(TypedDict):
    """GET /api/players/<id> (server/profiles.py): the history fields are absent when it is hidden."""
    player: str
    name: str
    hide_history: bool
    deleted: bool
    ratings: NotRequired[dict[str, Rating]]  # by room type
    stats: NotRequired[PlayerStats]
    fans: NotRequired[list[FanCount]]  # the ten most scored
    curves: NotRequired[dict[str, list[tuple[float, float]]]]  # by room type: [finished_at, rating]
    matches: NotRequired[ProfileMatches]


class BoardPosition(TypedDict):
    rank: int
    player: str
    rating: float
    matches: int


class BoardEntry(BoardPosition):
    name: str


class Leaderboard(TypedDict):
    """GET /api/leaderboard/<room type>[?page=N&player=ID] (server/profiles.py)."""
    type: str
    page: int
    per_page: int
    total: int
    entries: list[BoardEntry]
    you: BoardPosition | None  # ``player``'s own place; None: not asked, or not rated


# Each route's answer when it is found (200; /api/health also 503); any other status is an ApiError.
ROUTES = {
    "/api/health": Health,
    "/api/rooms": RoomsPage,
    "/api/tournaments": TournamentsPage,
    "/api/tournaments/<id>": TournamentView,
    "/api/invite/<code>": InviteView,
    "/api/players/<id>": PlayerProfile,
    "/api/leaderboard/<type>": Leaderboard,
    "/api/matches/<id>": MatchFile,
}
