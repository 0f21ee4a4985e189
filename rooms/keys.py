"""A room's keys: its invite code and the server's secret, from which every match's seed derives."""

from __future__ import annotations

import hashlib

from rooms.invite import normalize


def match_seed(secret: bytes, k: int) -> int:
    """Match k's seed: unpredictable from earlier walls, because the secret never leaves the server."""
    return int.from_bytes(hashlib.sha256(secret + b"match" + k.to_bytes(4, "big")).digest()[:8], "big")


def check_keys(invite: str, secret: bytes) -> None:
    if normalize(invite) != invite:
        raise ValueError(f"invite must be a code from rooms.invite.new_code, got {invite!r}")
    if not isinstance(secret, bytes) or len(secret) < 16:
        raise ValueError("secret: at least 16 random bytes from the server")


__all__ = ["match_seed", "check_keys"]
