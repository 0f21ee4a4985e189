"""The room's one error type: ``RoomError(code, message)`` with a stable code (DESIGN.md "Errors")."""

from __future__ import annotations


class RoomError(ValueError):
    """A rejected command; the room is unchanged. Codes are ``room/...`` or the game's ``action/...``."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def to_dict(self) -> dict:
        return {"t": "error", "code": self.code, "message": self.message}


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
BAD_CODE = "room/bad_code"
BANNED = "room/banned"
NOT_BOT = "room/not_bot"
NOT_FULL = "room/not_full"
