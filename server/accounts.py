"""Guest accounts: validated display names, 128-bit sign-in tokens, public player ids."""

from __future__ import annotations

import secrets
import unicodedata

from rooms import text as policy

NAME_MIN, NAME_MAX = 1, 20
_NAME_PUNCT = set(" _-.'·")
TOKEN_BYTES = 16  # 128 bits from the OS's CSPRNG

# Room codes avoid look-alikes (0/O, 1/I/L) so they can be read aloud.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


def clean_name(name) -> str:
    """The name as stored, or ``ValueError`` saying what is wrong.

    The text policy for names first (rooms/text.py: NFC; no control, direction, invisible or
    blank-looking characters; at most 4 combining marks on a letter); then letters (any script, so
    张三 works), digits, marks and `` _-.'·`` only; no leading, trailing or doubled spaces; 1..20
    characters. Format and symbol characters are refused so a name cannot fake another player's.
    """
    name = policy.name(name, NAME_MAX)  # the text policy every user-supplied string follows
    if name != name.strip() or "  " in name:
        raise ValueError("no leading, trailing or doubled spaces in a name")
    for ch in name:
        cat = unicodedata.category(ch)
        if ch in _NAME_PUNCT or cat[0] in "LN" or cat in ("Mn", "Mc"):
            continue
        raise ValueError(f"a name may not contain {ch!r}")
    if not any(unicodedata.category(ch)[0] in "LN" for ch in name):
        raise ValueError("a name needs a letter or a digit")
    return name


def new_token() -> str:
    return secrets.token_hex(TOKEN_BYTES)


def valid_token(token) -> bool:
    return isinstance(token, str) and len(token) == 2 * TOKEN_BYTES and all(c in "0123456789abcdef" for c in token)


def new_player_id() -> str:
    return "p" + secrets.token_hex(6)


def new_room_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


# -- claimed accounts -----------------------------------------------------------------------------

LOGIN_MIN, LOGIN_MAX = 3, 32
PASSWORD_MIN, PASSWORD_MAX = 8, 128
_LOGIN_PUNCT = set("_.-")
DELETED_NAME = "deleted player"  # what a deleted account's name becomes everywhere


def clean_login(login) -> str:
    """The login name as stored and compared, or ``ValueError``: NFKC, case-folded, NFKC again (so
    ``ＡＮＮ``, ``Ann`` and ``ann`` are one login); then 3..32 characters, letters of any script,
    digits and ``_.-`` only, starting with a letter or a digit. Logins are never shown to others."""
    if not isinstance(login, str):
        raise ValueError("a login name is a string")
    login = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", login).casefold())
    if not LOGIN_MIN <= len(login) <= LOGIN_MAX:
        raise ValueError(f"a login name has {LOGIN_MIN} to {LOGIN_MAX} characters")
    for ch in login:
        if ch not in _LOGIN_PUNCT and unicodedata.category(ch) not in ("Ll", "Lu", "Lt", "Lo", "Lm", "Nd"):
            raise ValueError(f"a login name may not contain {ch!r}: letters, digits and _.- only")
    if login[0] in _LOGIN_PUNCT:
        raise ValueError("a login name starts with a letter or a digit")
    return policy.name(login, LOGIN_MAX, "a login name")  # the text policy too: no blank-looking letters


def clean_password(password) -> str:
    """The password as hashed (NFKC: the same password typed on another device's keyboard matches),
    or ``ValueError``: 8..128 characters, anything else allowed."""
    if not isinstance(password, str):
        raise ValueError("a password is a string")
    password = unicodedata.normalize("NFKC", password)
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise ValueError(f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters")
    return password


def new_session_id() -> str:
    return "s" + secrets.token_hex(8)
