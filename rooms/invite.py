"""Invite codes: short, unambiguous, case-free and unguessable.

The alphabet leaves out 0/O, 1/I/L (and nothing else), so 31 symbols remain; 8 of them carry
31**8 ≈ 8.5e11 codes (39.6 bits): with the server's join rate limit, guessing a live code among even a
million rooms takes ~850,000 tries per hit. The bytes come from the caller (server/ uses ``secrets``;
rooms/ keeps no randomness of its own).
"""

from __future__ import annotations

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
assert len(ALPHABET) == 31 and not set("01OIL") & set(ALPHABET)
LENGTH = 8
_LIMIT = 256 - 256 % len(ALPHABET)  # 248: bytes at or above it are skipped, so every symbol is equally likely
_SEPARATORS = " \t-_."


def new_code(entropy: bytes, length: int = LENGTH) -> str:
    """A code from random bytes (rejection sampling: unbiased). 16 bytes are plenty for 8 symbols."""
    out = []
    for b in entropy:
        if b < _LIMIT:
            out.append(ALPHABET[b % len(ALPHABET)])
            if len(out) == length:
                return "".join(out)
    raise ValueError(f"not enough entropy for a {length}-symbol code: pass more random bytes")


def normalize(text) -> str | None:
    """The code a user typed, in canonical form (upper case, separators removed), or None when it cannot
    be a code (wrong length or a symbol outside the alphabet, e.g. O for 0)."""
    if not isinstance(text, str):
        return None
    code = "".join(ch for ch in text.upper() if ch not in _SEPARATORS)
    if len(code) != LENGTH or any(ch not in ALPHABET for ch in code):
        return None
    return code


def display(code: str) -> str:
    """Grouped for reading aloud: ABCD-EFGH."""
    return code[:4] + "-" + code[4:]


__all__ = ["ALPHABET", "LENGTH", "new_code", "normalize", "display"]
