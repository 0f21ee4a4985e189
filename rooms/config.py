"""A room's settings, chosen at creation: type, privacy, length, timers, bots, spectators, training.

Defaults are decisions.md item 14 (R98): 30 s for the dealer's first discard, 15 s per turn, an 8 s
claim window, a 60 s time bank per match, and our 20 s grace for a disconnected seat.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from game.rules import Rules
from rooms.errors import BAD_CONFIG, RoomError
from rooms.types import ROOM_TYPES, rules_for

HANDS = (4, 8, 16)  # one, two or four wind rounds (decisions.md item 8)
TABLE_HANDS = range(1, 17)  # a tournament table: a session of up to 16 hands (tournament.md 2.5)
BOT_LEVELS = ("fan", "random")
LOBBY, PLAYING = "lobby", "playing"  # a room's phases: seating and readying, or a match in play


class _Dict:
    __slots__ = ("_dict",)  # RoomConfig.to_dict's answer, made once: no field, so not compared nor stored


@dataclass(frozen=True, slots=True)
class RoomConfig(_Dict):
    type: str = "guobiao"
    private: bool = True
    hands: int = 16
    first_turn_time: float = 30.0  # R98: the dealer's first discard, including 补花
    turn_time: float = 15.0  # R98: every other turn
    claim_time: float = 8.0  # decisions.md item 14: 8 s online
    claim_min: float = 1.0  # bots and 托管 answer a claim window no sooner (docs/rooms.md)
    claim_early_close: bool = True  # False: bots and 托管 answer a claim window at claim_time
    bank: float = 60.0  # per player per match, used after the free time
    grace: float = 20.0  # a disconnected seat goes to 托管 after this
    between_time: float = 30.0  # to press "continue" between hands
    bot_delay: float = 1.0  # bots act this long after their decision starts
    bots: bool = True  # bots allowed
    spectators: bool = True
    max_spectators: int = 50  # watchers at once: every message to the table goes to each of them
    false_win_penalty: bool = False  # training mode (decisions.md item 12)
    pair_258_points: int = 1  # 大众馆 only (decisions.md: "our defaults, configurable")
    declared_ready_points: int = 1
    idle_after: float = 1800.0  # a lobby with nothing happening is disposable after this
    abandon_after: float = 600.0  # a match whose humans are all gone is disposable after this
    table: bool = False  # a tournament table (Room.create_table): fixed seats, started by the server
    ranked: bool = False  # finished matches change ratings (docs/ratings.md); quick matches always are
    flowers: bool = True  # False: 136 tiles, no flowers (the contest format external bots expect, docs/bots.md)

    def __post_init__(self):
        if self.type not in ROOM_TYPES:
            raise RoomError(BAD_CONFIG, f"unknown room type {self.type!r}; one of {sorted(ROOM_TYPES)}")
        if type(self.table) is not bool:
            raise RoomError(BAD_CONFIG, f"table must be a bool, got {self.table!r}")
        if self.table:
            if type(self.hands) is not int or self.hands not in TABLE_HANDS:
                raise RoomError(BAD_CONFIG, f"a table plays 1..16 hands, got {self.hands!r}")
        elif type(self.hands) is not int or self.hands not in HANDS:
            raise RoomError(BAD_CONFIG, f"hands must be one of {HANDS}, got {self.hands!r}")
        for f in fields(self):
            v = getattr(self, f.name)
            if f.type == "bool" and type(v) is not bool:
                raise RoomError(BAD_CONFIG, f"{f.name} must be a bool, got {v!r}")
            if f.type == "float":
                if type(v) not in (int, float) or not 0 <= v <= 86400 or v != v:
                    raise RoomError(BAD_CONFIG, f"{f.name} must be seconds in 0..86400, got {v!r}")
            if f.type == "int" and (type(v) is not int or not 0 <= v <= 88):
                raise RoomError(BAD_CONFIG, f"{f.name} must be an int in 0..88, got {v!r}")
        if self.table and self.ranked:
            raise RoomError(BAD_CONFIG, "tournament tables are not rated")
        if self.claim_min > self.claim_time:
            raise RoomError(BAD_CONFIG, "claim_min must not exceed claim_time")

    def rules(self) -> Rules:
        return rules_for(self.type, hands=self.hands, false_win_penalty=self.false_win_penalty,
                         pair_258_points=self.pair_258_points, declared_ready_points=self.declared_ready_points,
                         flowers=self.flowers)

    def to_dict(self) -> dict:
        """The fields as a dict (a copy: the caller may change it). Built once, as the config is frozen:
        a room's info carries it in every message (~30 us for asdict, ~0.3 us for the copy)."""
        try:
            d = self._dict
        except AttributeError:
            d = asdict(self)
            object.__setattr__(self, "_dict", d)  # frozen: the way a dataclass sets what it derives
        return dict(d)

    @classmethod
    def from_dict(cls, d) -> RoomConfig:
        if not isinstance(d, dict):
            raise RoomError(BAD_CONFIG, f"a config is a dict, got {d!r}")
        known = {f.name for f in fields(cls)}
        extra = set(d) - known
        if extra:
            raise RoomError(BAD_CONFIG, f"unknown config fields {sorted(extra)}")
        return cls(**d)


__all__ = ["RoomConfig", "HANDS", "TABLE_HANDS", "BOT_LEVELS"]
