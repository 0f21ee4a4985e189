"""The tournament's one error type and every code it raises, in one place (docs/tournaments.md)."""

from __future__ import annotations

from rooms.errors import RoomError


class TournamentError(RoomError):
    """A rejected command or config; the tournament is unchanged. Codes are ``tournament/...``."""


BAD_CONFIG = "tournament/bad_config"
BAD_COMMAND = "tournament/bad_command"  # unknown command or field, wrong type
BAD_EVENT = "tournament/bad_event"  # a malformed table_event (a server bug, not a player's)
NOT_ORGANISER = "tournament/not_organiser"
NOT_REFEREE = "tournament/not_referee"
NOT_REGISTERED = "tournament/not_registered"
ALREADY_REGISTERED = "tournament/already_registered"
FULL = "tournament/full"
CLOSED = "tournament/closed"  # registration over, or the tournament finished/cancelled
STARTED = "tournament/started"  # only allowed before the first session
NOT_OPEN = "tournament/not_open"  # check-in not open (too early, no session, or not required)
ALREADY_CHECKED_IN = "tournament/already_checked_in"
FORFEITED = "tournament/forfeited"  # more than 15 min late: R98 第十三条(二)1 自动弃权
SUSPENDED = "tournament/suspended"
SESSION_RUNNING = "tournament/session_running"
NO_SESSION = "tournament/no_session"  # every session has been played
TOO_FEW = "tournament/too_few"
NO_TABLE = "tournament/no_table"
NOT_AT_TABLE = "tournament/not_at_table"
NO_HAND = "tournament/no_hand"  # the sanction needs a hand that is (or was) played at that table
BAD_SANCTION = "tournament/bad_sanction"  # e.g. points not one of the seven levels
NO_SANCTION = "tournament/no_sanction"
ALREADY_CANCELLED = "tournament/already_cancelled"
REFEREE_PLAYS = "tournament/referee_plays"  # a referee is never a player of the tournament, nor a player its referee
NO_OFFER = "tournament/no_offer"  # accept_referee by an account the organiser did not name
NO_BOT = "tournament/no_bot"  # register_bot: not a bot the server registered (bots.toml)
BOT_BUSY = "tournament/bot_busy"  # register_bot: the bot already holds its ``seats``

CODES = (BAD_CONFIG, BAD_COMMAND, BAD_EVENT, NOT_ORGANISER, NOT_REFEREE, NOT_REGISTERED, ALREADY_REGISTERED,
         FULL, CLOSED, STARTED, NOT_OPEN, ALREADY_CHECKED_IN, FORFEITED, SUSPENDED, SESSION_RUNNING, NO_SESSION,
         TOO_FEW, NO_TABLE, NOT_AT_TABLE, NO_HAND, BAD_SANCTION, NO_SANCTION, ALREADY_CANCELLED, REFEREE_PLAYS,
         NO_OFFER, NO_BOT, BOT_BUSY)

__all__ = ["TournamentError", "CODES", *(n for n, v in list(globals().items()) if isinstance(v, str) and v in CODES)]
