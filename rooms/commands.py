"""The room's commands, checked: each takes the room as it is and returns the log entry to commit, or
raises ``RoomError``; none changes the room (``Room.handle`` and ``Room.system`` commit what they return).
They read the room through ``CommandRoom`` only (public state and a few calls, nothing private).

``COMMANDS`` are the players' (docs/rooms.md "Commands"), ``SYSTEM`` the server's own for tournament
tables (start, 停和, substitutes, time up); each with the fields it may carry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Protocol

from game import match as gm
from game.actions import ILLEGAL, MALFORMED, NOT_YOUR_TURN, STALE, ActionError, from_dict
from game.actions import to_dict as action_dict
from rooms import errors as E
from rooms.config import BOT_LEVELS, LOBBY, PLAYING
from rooms.errors import NO_HAND, SUBSTITUTED, TABLE, RoomError
from rooms.fields import BOOL, INT, MAP, TEXT, opt, req
from rooms.invite import normalize

if TYPE_CHECKING:  # pragma: no cover
    from rooms.config import RoomConfig
    from rooms.botzone_seats import ExternalBot
    from rooms.membership import Member, Seat


class CommandRoom(Protocol):
    """What the checks read of a room (``rooms.room.Room``); tests/rooms/test_apply_render.py checks that
    they read nothing else."""
    config: RoomConfig
    invite: str
    host: str | None
    phase: str
    table: bool  # a tournament table: fixed seats, system commands
    quick: bool
    banned: set[str]
    members: Mapping[str, Member]
    seats: list[Seat | None]
    finished: list[dict]
    stand_in: list[bool]
    match: gm.MatchState | None

    def member(self, pid: str) -> Member: ...  # RoomError not_in_room when not one

    def spectator_ids(self) -> list[str]: ...

    def bot_level_available(self, level: str) -> bool: ...

    def external_level(self, level: str) -> bool: ...  # an external bot the server registered (docs/bots.md)

    def external_policy(self, level: str) -> ExternalBot: ...  # it says whether a seat may take it now

    def keep_parsed(self, wire: dict, action) -> None: ...  # so that applying the entry does not parse again


def _host_only(room, pid: str) -> None:
    room.member(pid)
    if pid != room.host:
        raise RoomError(E.NOT_HOST, "only the host may do that")


def _lobby_only(room, what: str) -> None:
    if room.phase != LOBBY:
        raise RoomError(E.IN_MATCH, f"{what}: not during a match")


def _check_code(room, pid: str, cmd: dict) -> None:
    if pid in room.banned:
        raise RoomError(E.BANNED, "you were removed from this room")
    if pid in room.members:
        raise RoomError(E.ALREADY_IN_ROOM, f"{pid!r} is already in this room")
    if room.config.private and normalize(cmd.get("code")) != room.invite:
        raise RoomError(E.BAD_CODE, "wrong invite code")


def _seat_arg(room, cmd: dict, free: bool = True) -> int:
    seat = cmd.get("seat")
    if seat is None and free:
        for i, s in enumerate(room.seats):
            if s is None:
                return i
        raise RoomError(E.FULL, "every seat is taken")
    if type(seat) is not int or not 0 <= seat <= 3:
        raise RoomError(E.BAD_SEAT, f"seat must be 0..3, got {seat!r}")
    if free and room.seats[seat] is not None:
        raise RoomError(E.SEAT_TAKEN, f"seat {seat} is taken")
    return seat


def _table_only_seat(room, what: str) -> None:
    if room.table:
        raise RoomError(TABLE, f"{what}: the seats of a tournament table are fixed")


def _owned_seat(room, pid: str) -> int | None:
    """A table's seat assigned to ``pid`` and not given to a substitute."""
    for i, s in enumerate(room.seats):
        if s is not None and s.bot is None and s.id == pid:
            return i
    return None


def join(room, pid, cmd, now):
    if room.table:
        # Only the seat's own player, at any time: back at the table after a leave.
        seat = _owned_seat(room, pid)
        if pid in room.members:
            raise RoomError(E.ALREADY_IN_ROOM, f"{pid!r} is already in this room")
        if seat is None:
            raise RoomError(TABLE, "the seats of a tournament table are fixed")
        if cmd.get("seat", seat) != seat:
            raise RoomError(E.BAD_SEAT, f"your seat at this table is {seat}")
        return {"k": "join", "player": pid, "seat": seat}
    _check_code(room, pid, cmd)
    _lobby_only(room, "join")
    return {"k": "join", "player": pid, "seat": _seat_arg(room, cmd)}


def watch(room, pid, cmd, now):
    if not room.config.spectators:
        raise RoomError(E.NO_SPECTATORS, "this room has no spectators")
    if pid in room.members:
        m = room.members[pid]
        if m.seat is None:
            raise RoomError(E.ALREADY_IN_ROOM, "already watching")
        _table_only_seat(room, "stand up")
        _lobby_only(room, "stand up")
    else:
        if _owned_seat(room, pid) is not None and room.table:
            raise RoomError(TABLE, "your seat at this table is waiting: join it")
        _check_code(room, pid, cmd)
    if len(room.spectator_ids()) >= room.config.max_spectators:
        raise RoomError(E.TOO_MANY_SPECTATORS, f"at most {room.config.max_spectators} spectators")
    return {"k": "watch", "player": pid}


def sit(room, pid, cmd, now):
    room.member(pid)
    _table_only_seat(room, "sit")
    _lobby_only(room, "sit")
    if "seat" not in cmd:
        raise RoomError(E.BAD_COMMAND, "sit: which seat?")
    return {"k": "sit", "player": pid, "seat": _seat_arg(room, cmd)}


def ready(room, pid, cmd, now):
    m = room.member(pid)
    if room.table:
        raise RoomError(TABLE, "a tournament table starts when the tournament starts it")
    _lobby_only(room, "ready")
    if m.seat is None:
        raise RoomError(E.NOT_SEATED, "only a seated player can be ready")
    ready = cmd.get("ready", True)
    if type(ready) is not bool:
        raise RoomError(E.BAD_COMMAND, f"ready must be a bool, got {ready!r}")
    return {"k": "ready", "player": pid, "ready": ready}


def rematch(room, pid, cmd, now):
    room.member(pid)
    if room.table:
        raise RoomError(TABLE, "a tournament table plays one match")
    _lobby_only(room, "rematch")
    if not room.finished:
        raise RoomError(E.NO_MATCH, "no match has finished yet")
    return ready(room, pid, {"ready": True}, now)


def start(room, pid, cmd, now):
    room.member(pid)
    if room.table:
        raise RoomError(TABLE, "a tournament table starts when the tournament starts it")
    _host_only(room, pid)
    _lobby_only(room, "start")
    if any(s is None for s in room.seats):
        raise RoomError(E.NOT_FULL, "four seats must be filled (add bots?)")
    return {"k": "start"}


def add_bot(room, pid, cmd, now):
    room.member(pid)
    _table_only_seat(room, "add a bot")
    _host_only(room, pid)
    _lobby_only(room, "add a bot")
    if not room.config.bots:
        raise RoomError(E.BOTS_DISABLED, "this room has no bots")
    level = cmd.get("level", "fan")
    if level not in BOT_LEVELS and not (isinstance(level, str) and room.external_level(level)):
        raise RoomError(E.BAD_COMMAND, f"level must be one of {BOT_LEVELS} or a bot of this server, got {level!r}")
    if not room.bot_level_available(level):
        raise RoomError(E.BOTS_DISABLED, f"no {level} bot on this server")
    if room.external_level(level) and not room.external_policy(level).available():
        raise RoomError(E.BOTS_DISABLED, f"every seat the server gives the {level} bot is taken")
    return {"k": "add_bot", "seat": _seat_arg(room, cmd), "level": level}


def remove_bot(room, pid, cmd, now):
    room.member(pid)
    _table_only_seat(room, "remove a bot")
    _host_only(room, pid)
    _lobby_only(room, "remove a bot")
    seat = _seat_arg(room, cmd, free=False)
    if room.seats[seat] is None or room.seats[seat].bot is None:
        raise RoomError(E.NOT_BOT, f"seat {seat} is not a bot")
    return {"k": "remove_bot", "seat": seat}


def kick(room, pid, cmd, now):
    room.member(pid)
    _table_only_seat(room, "kick")
    if room.quick:
        raise RoomError(E.QUICK, "nobody may kick in a quick-match room")
    _host_only(room, pid)
    target = cmd.get("player")
    if target == pid or target not in room.members:
        raise RoomError(E.NOT_IN_ROOM, f"no other member {target!r}")
    return {"k": "kick", "player": pid, "target": target}


def leave(room, pid, cmd, now):
    room.member(pid)
    return {"k": "leave", "player": pid}


def host(room, pid, cmd, now):
    room.member(pid)
    if room.table:
        raise RoomError(TABLE, "a tournament table has no host")
    _host_only(room, pid)
    to = cmd.get("player")
    if to == pid or to not in room.members:
        raise RoomError(E.NOT_IN_ROOM, f"no other member {to!r}")
    return {"k": "host", "to": to}


def _seated_in_match(room, pid) -> int:
    m = room.member(pid)
    if room.phase != PLAYING:
        raise RoomError(E.NO_MATCH, "no match is being played")
    if m.seat is None:
        raise RoomError(E.NOT_SEATED, "spectators do not play")
    return m.seat


def auto(room, pid, cmd, now):
    p = _seated_in_match(room, pid)
    on = cmd.get("on")
    if type(on) is not bool:
        raise RoomError(E.BAD_COMMAND, f"on must be a bool, got {on!r}")
    return {"k": "auto", "player": p, "on": on, "why": "requested"}


def hint(room, pid, cmd, now):
    room.member(pid)
    on = cmd.get("on")
    if type(on) is not bool:
        raise RoomError(E.BAD_COMMAND, f"on must be a bool, got {on!r}")
    return {"k": "hint", "player": pid, "on": on}


def act(room, pid, cmd, now):
    p = _seated_in_match(room, pid)
    try:
        action = from_dict(cmd.get("action"))
    except ActionError as err:
        raise RoomError(err.code, err.message) from None
    if action.seq is None:
        raise RoomError(MALFORMED, "an action must carry the seq it answers")
    legal, seq = gm.legal_actions(room.match, p), room.match.seq
    if action.seq != seq:  # a closed claim window moved seq on too: a late answer is stale
        raise RoomError(STALE, f"action answers seq {action.seq}, the table is at seq {seq}")
    if not legal:
        raise RoomError(NOT_YOUR_TURN, "you have nothing to do now")
    if action not in legal:
        raise RoomError(ILLEGAL, f"{action_dict(action)} is not legal now")
    wire = action_dict(action)  # it carries seq (checked above)
    room.keep_parsed(wire, action)
    return {"k": "act", "player": p, "action": wire, "by": "player"}


# -- system commands (from the server, for tournament tables) ---------------------------------


def _sys_player(room, cmd: dict) -> int:
    p = cmd.get("player")
    if type(p) is not int or not 0 <= p <= 3:
        raise RoomError(E.BAD_SEAT, f"player must be a seat 0..3, got {p!r}")
    return p


def _sys_in_match(room, what: str) -> None:
    if room.phase != PLAYING or room.match.phase == gm.FINISHED:
        raise RoomError(E.NO_MATCH, f"{what}: no match is being played")


def sys_start(room, cmd, now):
    if room.phase == PLAYING:
        raise RoomError(E.IN_MATCH, "the table's match has started")
    if room.finished:
        raise RoomError(TABLE, "a tournament table plays one match")
    return {"k": "start", "by": "system"}


def sys_stop_win(room, cmd, now):
    p = _sys_player(room, cmd)
    _sys_in_match(room, "stop_win")
    if room.match.phase != gm.PLAYING:
        raise RoomError(NO_HAND, "stop_win: no hand is in play (停和 lasts for the hand)")
    return {"k": "stop_win", "player": p}


def sys_substitute(room, cmd, now):
    p = _sys_player(room, cmd)
    if room.finished:
        raise RoomError(E.NO_MATCH, "substitute: the table's match is over")
    if room.phase == PLAYING and room.match.phase == gm.FINISHED:
        raise RoomError(E.NO_MATCH, "substitute: the match is over")
    if room.seats[p] is None or room.stand_in[p]:  # an empty seat gets one at the start
        raise RoomError(SUBSTITUTED, f"seat {p} is (or will be) played by a substitute already")
    return {"k": "substitute", "player": p}


def sys_time_up(room, cmd, now):
    finish = cmd.get("finish_hand", False)
    if type(finish) is not bool:
        raise RoomError(E.BAD_COMMAND, f"finish_hand must be a bool, got {finish!r}")
    _sys_in_match(room, "time_up")
    return {"k": "time_up", "finish_hand": finish}


COMMANDS = {
    "join": join, "watch": watch, "sit": sit, "ready": ready, "rematch": rematch, "start": start,
    "add_bot": add_bot, "remove_bot": remove_bot, "kick": kick, "leave": leave, "host": host, "auto": auto,
    "act": act, "hint": hint,
}
# Each command's fields (rooms.fields): the server refuses a frame with others, or with a value of the
# wrong type, as protocol/bad_field before the room sees it; the room refuses unknown ones too.
FIELDS = {
    "join": {"code": opt(TEXT), "seat": opt(INT)}, "watch": {"code": opt(TEXT)}, "sit": {"seat": req(INT)},
    "ready": {"ready": opt(BOOL)}, "rematch": {}, "start": {}, "add_bot": {"seat": opt(INT), "level": opt(TEXT)},
    "remove_bot": {"seat": req(INT)}, "kick": {"player": req(TEXT)}, "leave": {}, "host": {"player": req(TEXT)},
    "auto": {"on": req(BOOL)}, "act": {"action": req(MAP)}, "hint": {"on": req(BOOL)},
}
SYSTEM = {"start": sys_start, "stop_win": sys_stop_win, "substitute": sys_substitute, "time_up": sys_time_up}
SYSTEM_FIELDS = {"start": set(), "stop_win": {"player"}, "substitute": {"player"}, "time_up": {"finish_hand"}}
