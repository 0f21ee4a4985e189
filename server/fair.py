"""Provably fair walls: the seed is committed to before the first tile and revealed after the last.

commitment = SHA-256 hex of the UTF-8 text ``"<seed>:<salt>"`` (seed in decimal, salt 32 hex digits),
so anybody can check a finished match with ``printf '%s' '<seed>:<salt>' | sha256sum``. The seed comes
from the room (``rooms.keys.match_seed``); the salt, new for every match, keeps the commitment from
being checked against guessed seeds.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_salt() -> str:
    return secrets.token_hex(16)


def commitment(seed: int, salt: str) -> str:
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()


def check(seed: int, salt: str, announced: str) -> bool:
    return hmac.compare_digest(commitment(seed, salt), announced)
