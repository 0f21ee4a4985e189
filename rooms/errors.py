"""The room's one error type: ``RoomError(code, message)`` with a stable code (DESIGN.md "Errors")."""

from __future__ import annotations


class RoomError(ValueError):
    """A rejected command; the room is unchanged. Codes are ``room/...`` or the game's ``action/...``
    (a tournament's ``TournamentError`` is one too, with ``tournament/...`` codes)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def to_dict(self) -> dict:
        return {"t": "error", "code": self.code, "message": self.message}


def command_check(command, checks: dict, fields: dict, error=RoomError, code: str = "room/bad_command",
                  what: str = "command"):
    """The check for ``command`` (a dict with a known string ``t`` and only that command's fields),
    or ``error(code, ...)`` saying what is wrong with it."""
    if not isinstance(command, dict) or not isinstance(command.get("t"), str):
        raise error(code, f"a {what} is a dict with a string 't', got {command!r}")
    check = checks.get(command["t"])
    if check is None:
        raise error(code, f"unknown {what} {command['t']!r}")
    allowed = fields[command["t"]]
    for k in command:  # a set difference per command cost more than these few lookups
        if k != "t" and k not in allowed:
            extra = set(command).difference(allowed, ("t",))
            raise error(code, f"{command['t']}: unknown fields {sorted(extra)}")
    return check


BAD_COMMAND = "room/bad_command"
BAD_CONFIG = "room/bad_config"
NOT_IN_ROOM = "room/not_in_room"
ALREADY_IN_ROOM = "room/already_in_room"
NOT_HOST = "room/not_host"
FULL = "room/full"
SEAT_TAKEN = "room/seat_taken"
BAD_SEAT = "room/bad_seat"
NOT_SEATED = "room/not_seated"
IN_MATCH = "room/in_match"
NO_MATCH = "room/no_match"
BOTS_DISABLED = "room/bots_disabled"
NO_SPECTATORS = "room/no_spectators"
TOO_MANY_SPECTATORS = "room/too_many_spectators"
BAD_CODE = "room/bad_code"
BANNED = "room/banned"
NOT_BOT = "room/not_bot"
NOT_FULL = "room/not_full"

# Tournament tables and system commands (docs/rooms.md).
TABLE = "room/table"  # a table's seats are fixed and it plays one match: not for players to change
NOT_TABLE = "room/not_table"  # a system command for a room that is not a table
NO_HAND = "room/no_hand"  # 停和 needs a hand in play
SUBSTITUTED = "room/substituted"
QUICK = "room/quick_match"  # a quick-match room has no host powers over seats (strangers were placed together)  # the seat is already played by a can't-win substitute
