"""Who is in a room: its members (players and spectators), the seats (humans and bots), the host and
the banned; the lobby's entries (join, watch, sit, ready, add and remove a bot, host, leave, kick)
applied. Mixed into ``rooms.room.Room``, which holds the state these methods change (``members``,
``seats``, ``host``, ``banned``) and starts the match (``_after_lobby``)."""

from __future__ import annotations

from dataclasses import dataclass

from rooms import errors as E
from rooms.auto import AUTO
from rooms.config import PLAYING
from rooms.effects import ROOM_CHANGED, Effect, Notice
from rooms.errors import RoomError


@dataclass(slots=True)
class Seat:
    id: str  # the player id, or a bot's name
    bot: str | None = None  # the bot level; None for a human
    ready: bool = False


@dataclass(slots=True)
class Member:
    id: str
    order: int  # joining order: the host role passes to the longest-present human
    seat: int | None  # None: a spectator
    connected: bool = True
    since: float = 0.0  # when the last disconnect happened
    hints: bool = True  # send this player the wait hint of its seat (the client's switch)


class Membership:
    def _add_member(self, pid: str, seat: int | None, now: float, connected: bool = True) -> None:
        self._order += 1
        self.members[pid] = Member(pid, self._order, seat, connected, now)
        if seat is not None:
            self.seats[seat] = Seat(pid)

    def _add_bot(self, seat: int, level: str) -> None:
        self._bot_names += 1
        self.seats[seat] = Seat(f"bot-{self._bot_names}", level, True)

    def _apply_join(self, e, now):
        self._add_member(e["player"], e["seat"], now)
        if self.table and self.phase == PLAYING and self.auto[e["seat"]] == "left":
            self.auto[e["seat"]] = None  # back at the table: the player plays again
        return self._after_lobby(now)

    def _apply_watch(self, e, now):
        pid = e["player"]
        if pid in self.members:  # a seated player standing up in the lobby
            self._free_seat(self.members[pid])
        else:
            self._add_member(pid, None, now)
        return [ROOM_CHANGED]

    def _free_seat(self, m: Member) -> None:
        if m.seat is not None:
            self.seats[m.seat] = None
            m.seat = None

    def _apply_sit(self, e, now):
        m = self.members[e["player"]]
        self._free_seat(m)
        m.seat = e["seat"]
        self.seats[m.seat] = Seat(m.id)
        return self._after_lobby(now)

    def _apply_ready(self, e, now):
        self.seats[self.members[e["player"]].seat].ready = e["ready"]
        return self._after_lobby(now)

    def _apply_start(self, e, now):
        return self._start(now)

    def _apply_add_bot(self, e, now):
        self._add_bot(e["seat"], e["level"])
        return self._after_lobby(now)

    def _apply_remove_bot(self, e, now):
        self.seats[e["seat"]] = None
        return [ROOM_CHANGED]

    def _apply_host(self, e, now):
        self.host = e["to"]
        return [ROOM_CHANGED]

    def _apply_leave(self, e, now):
        return self._remove(e["player"], now, [Notice(e["player"], {"t": "left"})])

    def _apply_kick(self, e, now):
        self.banned.add(e["target"])
        return self._remove(e["target"], now, [Notice(e["target"], {"t": "kicked"})])

    def _remove(self, pid: str, now: float, out: list) -> list[Effect]:
        m = self.members.pop(pid)
        if m.seat is not None and self.table:
            # A table's seat stays the player's: 托管 plays it until they join again.
            if self.phase == PLAYING:
                self.auto[m.seat] = "left"
        elif m.seat is not None:
            if self.phase == PLAYING:
                # The match goes on: the seat is played by a bot, or by 托管 if the room has no bots.
                self._add_bot(m.seat, "fan" if self.config.bots else AUTO)
                self.auto[m.seat] = None
            else:
                self.seats[m.seat] = None
        if pid == self.host:
            humans = sorted(self.members.values(), key=lambda x: (x.seat is None, x.order))
            self.host = humans[0].id if humans else None
        return out + [ROOM_CHANGED]

    def member_ids(self) -> set[str]:
        """Every human the room is for: seated players (a table's absent ones too) and spectators."""
        ids = {s.id for s in self.seats if s is not None and s.bot is None}
        ids.update(m.id for m in self.members.values() if m.seat is None)
        return ids

    def member(self, pid: str) -> Member:
        """The member ``pid``; RoomError ``not_in_room`` when they are not one."""
        m = self.members.get(pid)
        if m is None:
            raise RoomError(E.NOT_IN_ROOM, f"{pid!r} is not in this room")
        return m
