"""The server's wire error codes, in one place (docs/protocol.md lists each one; DESIGN.md "Errors").

A code is ``area/reason``. The room and game layers have their own (``rooms/``, ``game/``); these are
the server's: framing and decoding, sign-in, lobby, chat, storage, and a task's internal error.
"""

# codec: a frame that cannot be read as a message
BAD_FRAME = "protocol/bad_frame"  # not msgpack / not JSON / trailing bytes / not UTF-8
TOO_LARGE = "protocol/too_large"  # over codec.MAX_FRAME
BAD_MESSAGE = "protocol/bad_message"  # decodes, but not a map with a string "t", or bad values
BAD_FIELD = "protocol/bad_field"  # a known type with a missing field or one of the wrong type
UNKNOWN_TYPE = "protocol/unknown_type"

# a frame the server refuses before any room sees it
RATE_LIMITED = "protocol/rate_limited"
NOT_SIGNED_IN = "protocol/not_signed_in"
ALREADY_SIGNED_IN = "protocol/already_signed_in"
INTERNAL = "protocol/internal"  # a bug while handling the frame: it changed nothing

# accounts and sign-in (server.auth, server.attempts)
BAD_NAME = "auth/bad_name"
BAD_TOKEN = "auth/bad_token"
BAD_LOGIN = "auth/bad_login"
BAD_PASSWORD = "auth/bad_password"
BAD_CREDENTIALS = "auth/bad_credentials"
LOGIN_TAKEN = "auth/login_taken"
CLAIMED = "auth/claimed"
NOT_CLAIMED = "auth/not_claimed"
NO_SESSION = "auth/no_session"
TOO_MANY_ATTEMPTS = "auth/too_many_attempts"
TOO_MANY_ACCOUNTS = "auth/too_many_accounts"

# lobby, rooms and tournaments; quotas (server.quotas)
NO_ROOM = "lobby/no_room"
IN_ROOM = "lobby/in_room"
NOT_IN_ROOM = "lobby/not_in_room"
QUEUED = "lobby/queued"
NOT_QUEUED = "lobby/not_queued"
NO_TOURNAMENT = "lobby/no_tournament"
TOO_MANY_TOURNAMENTS = "lobby/too_many_tournaments"
TOO_OFTEN = "lobby/too_often"
TOO_MANY_ROOMS = "lobby/too_many_rooms"
BAD_CONFIG = "room/bad_config"
CHAT_TOO_FAST = "chat/too_fast"
CHAT_BAD = "chat/bad_text"

# the server itself
STORAGE = "server/storage"  # the database cannot be written: the room waits
MOVED = "server/moved"  # cluster: the room's server died before answering; another took it over
TASK_FAILED = "server/internal"  # a room's or a tournament's task hit a bug and goes on
