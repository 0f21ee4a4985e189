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
