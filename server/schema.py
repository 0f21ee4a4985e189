"""Every command a client may send, with its fields (rooms.fields: type, required), checked before the
command is dispatched: an unknown field, a missing required one or a value of the wrong type is
``protocol/bad_field`` and the frame changes nothing (docs/protocol.md "Commands and their fields").

Room commands declare their fields where the room handles them (rooms.commands.FIELDS), tournament
commands where the tournament does (rooms.tournament.tournament.COMMAND_FIELDS); the lobby's are here.
"""

from __future__ import annotations

from rooms.commands import FIELDS as ROOM_FIELDS
from rooms.fields import BOOL, INT, MAP, NUMBER, TEXT, opt, problem, req
from rooms.tournament.tournament import COMMAND_FIELDS as TOURNAMENT_FIELDS
from server.codec import BAD_FIELD, ProtocolError

LOBBY_FIELDS = {
    "guest": {"name": req(TEXT)},
    "resume": {"token": req(TEXT)},
    "login": {"login": req(TEXT), "password": req(TEXT)},
    "ping": {},
    "rooms": {"q": opt(TEXT), "page": opt(INT)},
    "create": {"config": opt(MAP)},
    # join and watch also go to the room: its fields, and the room's id to find it by.
    "join": {**ROOM_FIELDS["join"], "room": opt(TEXT)},
    "watch": {**ROOM_FIELDS["watch"], "room": opt(TEXT)},
    "quick": {"type": opt(TEXT), "bots": opt(BOOL), "wait": opt(NUMBER), "hands": opt(INT)},
    "quick_cancel": {},
    "snapshot": {},
    "history": {"page": opt(INT)},
    "matches": {"page": opt(INT)},
    "chat": {"text": req(TEXT)},
    "tournaments": {"q": opt(TEXT), "page": opt(INT)},
    "tournament": {"tournament": req(TEXT)},
    "tournament_create": {"config": req(MAP)},
    "tournament_cmd": {"tournament": req(TEXT), "cmd": req(MAP)},
}

# Account commands (server.auth), for a signed-in player.
ACCOUNT_FIELDS = {
    "account": {},
    "claim": {"login": req(TEXT), "password": req(TEXT)},
    "password": {"password": req(TEXT), "new": req(TEXT)},
    "sessions": {},
    "revoke": {"session": req(TEXT)},
    "privacy": {"hide_history": req(BOOL)},
    "delete_account": {"password": opt(TEXT)},
}
LOBBY_FIELDS.update(ACCOUNT_FIELDS)

# Commands the server hands to the player's room as they are.
ROOM_COMMANDS = frozenset(t for t in ROOM_FIELDS if t not in LOBBY_FIELDS)
COMMANDS = {**LOBBY_FIELDS, **{t: f for t, f in ROOM_FIELDS.items() if t in ROOM_COMMANDS}}


def check(msg: dict) -> None:
    """``ProtocolError(BAD_FIELD)`` if ``msg`` (a known command, its ``id`` taken off) has a field it
    does not take, lacks one it needs or has one of the wrong type; a tournament command's own fields
    (``tournament_cmd``'s ``cmd``) are checked too."""
    wrong = problem(msg, COMMANDS[msg["t"]])
    if wrong is not None:
        raise ProtocolError(BAD_FIELD, wrong)
    if msg["t"] == "tournament_cmd":
        cmd = msg["cmd"]
        if not isinstance(cmd.get("t"), str):
            raise ProtocolError(BAD_FIELD, "cmd: a map with a string t")
        inner = TOURNAMENT_FIELDS.get(cmd["t"])
        if inner is not None:  # an unknown one is the tournament's to refuse (tournament/bad_command)
            wrong = problem(cmd, inner)
            if wrong is not None:
                raise ProtocolError(BAD_FIELD, "cmd: " + wrong)
