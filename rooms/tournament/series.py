"""Scheduled events every few minutes (the seed: "每十分钟举办一场比赛"; tournament.md §4.5, 定时赛).

A ``Series`` is a pure timetable: instance k (0, 1, 2, …) starts at ``first_at + k * every`` and is open
for sign-up during the ``signup_window`` before that. Each instance is a one-session ``Tournament``
with a fixed number of hands, no check-in (being signed up is being present), bots padding any field of
at least ``min_players`` to a multiple of four, and cancelled at its start (with a notice to everyone)
when fewer signed up — platforms call the match off and refund. Its standings go out when it finishes.
The server creates instance k (``create``) when its window opens and drives it like any tournament.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

from rooms.tournament.config import MAX_HANDS, TournamentConfig
from rooms.tournament.errors import BAD_CONFIG, TournamentError
from rooms.tournament.tournament import Tournament


@dataclass(frozen=True, slots=True)
class Instance:
    index: int
    opens: float  # sign-up opens (the server creates the tournament then)
    starts: float  # the session starts; sign-up closes


@dataclass(frozen=True, slots=True)
class Series:
    template: TournamentConfig  # name, room type, timers, max_players, time limit
    every: float = 600.0
    first_at: float = 0.0
    signup_window: float | None = None  # None: ``every`` (the next one opens when one starts)
    hands: int = 4
    min_players: int = 4

    def __post_init__(self):
        if not isinstance(self.template, TournamentConfig):
            raise TournamentError(BAD_CONFIG, "template must be a TournamentConfig")
        for name in ("every", "first_at"):
            v = getattr(self, name)
            if type(v) not in (int, float) or not math.isfinite(v):
                raise TournamentError(BAD_CONFIG, f"{name} must be a finite number, got {v!r}")
        if not 60 <= self.every <= 7 * 86400:
            raise TournamentError(BAD_CONFIG, f"every must be 60 s..7 days, got {self.every!r}")
        w = self.signup_window
        if w is not None and (type(w) not in (int, float) or not 0 < w <= self.every):
            # at most one instance is open for sign-up at a time
            raise TournamentError(BAD_CONFIG, f"signup_window must be in (0, every], got {w!r}")
        if type(self.hands) is not int or not 1 <= self.hands <= MAX_HANDS:
            raise TournamentError(BAD_CONFIG, f"hands must be 1..{MAX_HANDS}, got {self.hands!r}")
        if type(self.min_players) is not int or not 1 <= self.min_players <= self.template.max_players:
            raise TournamentError(BAD_CONFIG, f"min_players must be 1..max_players, got {self.min_players!r}")

    @property
    def window(self) -> float:
        return self.every if self.signup_window is None else self.signup_window

    def instance(self, k: int) -> Instance:
        if type(k) is not int or k < 0:
            raise ValueError(f"instances are numbered from 0, got {k!r}")
        starts = self.first_at + k * self.every
        return Instance(k, starts - self.window, starts)

    def open_at(self, now: float) -> Instance | None:
        """The instance open for sign-up at ``now`` (its start is still ahead), or None between windows."""
        k = 0 if now < self.first_at else math.floor((now - self.first_at) / self.every) + 1
        inst = self.instance(k)
        return inst if inst.opens <= now < inst.starts else None

    def next_opening(self, now: float) -> Instance:
        """The first instance whose sign-up opens after ``now`` (when the server should look again)."""
        k = max(0, math.floor((now - self.first_at + self.window) / self.every) + 1)
        return self.instance(k)

    def config(self, k: int) -> TournamentConfig:
        inst = self.instance(k)
        suffix = f" #{k + 1}"
        return replace(self.template, name=self.template.name[:60 - len(suffix)] + suffix, sessions=1,
                       hands=self.hands, starts=(inst.starts,), checkin_required=False, fill_bots=True,
                       min_players=self.min_players, seating="random")

    def create(self, k: int, tid: str, organiser: str, referee: str, secret: bytes, now: float) -> Tournament:
        """Instance k as a Tournament (registration open until its start)."""
        return Tournament.create(tid, self.config(k), organiser, referee, secret, now)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["template"] = self.template.to_dict()
        return d

    @classmethod
    def from_dict(cls, d) -> Series:
        if not isinstance(d, dict) or "template" not in d:
            raise TournamentError(BAD_CONFIG, f"a series is a dict with a template, got {d!r}")
        extra = set(d) - {"template", "every", "first_at", "signup_window", "hands", "min_players"}
        if extra:
            raise TournamentError(BAD_CONFIG, f"unknown series fields {sorted(extra)}")
        return cls(**{**d, "template": TournamentConfig.from_dict(d["template"])})


__all__ = ["Series", "Instance"]
