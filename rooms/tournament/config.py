"""A tournament's settings, fixed at creation (docs/tournaments.md "Config").

R98 第五条: a 局 (session) is four 圈 = 16 盘, or until the prescribed time runs out; our decision
(tournament.md "Our decisions"): when time is called the hand in progress is void, or, as an option,
finished.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

from rooms.tournament.errors import BAD_CONFIG, TournamentError
from rooms.types import ROOM_TYPES

SEATINGS = ("random", "standing", "snake", "swiss")  # rooms/tournament/seating.py
TIME_UP = ("void", "finish")
MAX_SESSIONS = 20
MAX_HANDS = 16  # R98 第五条: a 局 is 16 盘 at most
MAX_PLAYERS = 1024
_MAX_SECONDS = 86400.0


def _bad(message: str) -> TournamentError:
    return TournamentError(BAD_CONFIG, message)


def _int(name: str, v, low: int, high: int) -> None:
    if type(v) is not int or not low <= v <= high:
        raise _bad(f"{name} must be an int in {low}..{high}, got {v!r}")


def _seconds(name: str, v, low: float = 0.0, high: float = _MAX_SECONDS) -> None:
    if type(v) not in (int, float) or not math.isfinite(v) or not low <= v <= high:
        raise _bad(f"{name} must be seconds in {low:g}..{high:g}, got {v!r}")


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    name: str
    type: str = "guobiao"  # the tables' room type (rooms/types.py)
    sessions: int = 1
    hands: int = 16  # per session (R98: 16 盘)
    time_limit: int = 0  # minutes per table and session; 0: no limit
    time_up: str = "void"  # "void": the hand in progress is void; "finish": it is played out
    seating: str = "swiss"
    starts: tuple = ()  # absolute `now` per session, None = started by the organiser; () = all by the organiser
    checkin_before: float = 1800.0  # check-in opens this long before a scheduled start
    max_players: int = 64
    min_players: int = 4  # fewer registered at the first start: the tournament is cancelled
    fill_bots: bool = True  # pad each session to a multiple of 4 with unranked can't-win bots; False: byes
    checkin_required: bool = True  # False: being registered counts as present (scheduled events)
    turn_time: float = 15.0  # R98 第七条: 15 s per turn (passed to the tables)
    claim_time: float = 8.0  # decisions.md item 14
    bank: float = 60.0
    false_win_penalty: bool = False  # decisions.md item 12: tables let players declare freely, R98 penalties
    duplicate: bool = False  # 复式: every table of a session plays the same walls (rooms/tournament/duplicate.py)

    def __post_init__(self):
        if type(self.name) is not str or not 1 <= len(self.name.strip()) <= 60 or len(self.name) > 60:
            raise _bad(f"name must be 1..60 characters, got {self.name!r}")
        if self.type not in ROOM_TYPES:
            raise _bad(f"unknown room type {self.type!r}; one of {sorted(ROOM_TYPES)}")
        _int("sessions", self.sessions, 1, MAX_SESSIONS)
        _int("hands", self.hands, 1, MAX_HANDS)
        _int("time_limit", self.time_limit, 0, 24 * 60)
        if self.time_up not in TIME_UP:
            raise _bad(f"time_up must be one of {TIME_UP}, got {self.time_up!r}")
        if self.seating not in SEATINGS:
            raise _bad(f"seating must be one of {SEATINGS}, got {self.seating!r}")
        if type(self.starts) is not tuple:
            raise _bad(f"starts must be a tuple (a list in a dict), got {self.starts!r}")
        if self.starts and len(self.starts) != self.sessions:
            raise _bad(f"starts: one entry per session ({self.sessions}), got {len(self.starts)}")
        last = -math.inf
        for s in self.starts:
            if s is None:
                continue
            if type(s) not in (int, float) or not math.isfinite(s) or s <= last:
                raise _bad(f"starts must be increasing finite times or None, got {self.starts!r}")
            last = s
        _seconds("checkin_before", self.checkin_before)
        _int("max_players", self.max_players, 1, MAX_PLAYERS)
        _int("min_players", self.min_players, 1, self.max_players)
        for f in ("fill_bots", "checkin_required", "false_win_penalty", "duplicate"):
            if type(getattr(self, f)) is not bool:
                raise _bad(f"{f} must be a bool, got {getattr(self, f)!r}")
        if not self.fill_bots and self.min_players < 4:
            raise _bad("without fill_bots a table needs four players: min_players must be at least 4")
        _seconds("turn_time", self.turn_time, 1.0, 3600.0)
        _seconds("claim_time", self.claim_time, 1.0, 3600.0)
        _seconds("bank", self.bank, 0.0, 3600.0)

    def start_of(self, session: int) -> float | None:
        """The scheduled start of session ``session`` (1-based), or None: the organiser starts it."""
        return self.starts[session - 1] if self.starts else None

    def table_config(self) -> dict:
        """What OpenTable carries: rooms.config.RoomConfig fields (``hands`` may be any of 1..16)."""
        return {"type": self.type, "private": True, "hands": self.hands, "turn_time": self.turn_time,
                "claim_time": self.claim_time, "bank": self.bank, "bots": True,
                "false_win_penalty": self.false_win_penalty}

    def to_dict(self) -> dict:
        d = asdict(self)
        d["starts"] = list(self.starts)
        return d

    @classmethod
    def from_dict(cls, d) -> TournamentConfig:
        if not isinstance(d, dict):
            raise _bad(f"a config is a dict, got {d!r}")
        known = {f.name for f in fields(cls)}
        extra = set(d) - known
        if extra:
            raise _bad(f"unknown config fields {sorted(extra)}")
        if "name" not in d:
            raise _bad("a tournament needs a name")
        d = dict(d)
        if "starts" in d:
            if not isinstance(d["starts"], (list, tuple)):
                raise _bad(f"starts must be a list, got {d['starts']!r}")
            d["starts"] = tuple(d["starts"])
        return cls(**d)


__all__ = ["TournamentConfig", "SEATINGS", "TIME_UP", "MAX_SESSIONS", "MAX_HANDS", "MAX_PLAYERS"]
