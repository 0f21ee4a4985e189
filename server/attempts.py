"""Rate limits on password attempts (docs/protocol.md "Accounts"), in memory: a restart forgets them.

Per address (an IPv4 address, an IPv6 /64: as the connection limit counts them), every command that
carries a password takes a token, whether it is right or not: each costs an argon2 hash (tens of ms and
64 MiB). Per login name, every wrong password takes a token, from whichever address it came, and an
unknown login name is counted like a known one (the answer does not tell them apart).
"""

from __future__ import annotations

from dataclasses import dataclass

from server.conn import TokenBucket
from server.errors import TOO_MANY_ATTEMPTS  # noqa: F401 (attempts.TOO_MANY_ATTEMPTS)



@dataclass
class AttemptLimits:
    per_address: tuple[float, float] = (1 / 30, 10)  # (per second on average, at once): password commands
    per_login: tuple[float, float] = (1 / 60, 5)  # wrong passwords for one login name
    exempt_loopback: bool = True  # behind a reverse proxy every player comes from there


class Buckets:
    """Token buckets per key, dropped once full again (nothing to remember); at most ``cap`` kept."""

    def __init__(self, rate: float, burst: float, cap: int = 100_000):
        self.rate, self.burst, self.cap = rate, burst, cap
        self.buckets: dict[str, TokenBucket] = {}

    def _bucket(self, key: str, now: float) -> TokenBucket:
        b = self.buckets.get(key)
        if b is None:
            if len(self.buckets) >= self.cap:
                self.prune(now)
            b = self.buckets[key] = TokenBucket(self.rate, self.burst, now)
        return b

    def left(self, key: str, now: float) -> bool:
        """Whether ``key`` may try now (a token is there), without taking it."""
        b = self.buckets.get(key)
        return b is None or min(b.burst, b.tokens + (now - b.at) * b.rate) >= 1

    def take(self, key: str, now: float) -> bool:
        return self._bucket(key, now).take(now)

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` has a token again."""
        b = self.buckets.get(key)
        if b is None:
            return 0.0
        tokens = min(b.burst, b.tokens + (now - b.at) * b.rate)
        return max(0.0, (1 - tokens) / b.rate)

    def prune(self, now: float) -> None:
        for key in [k for k, b in self.buckets.items() if b.tokens + (now - b.at) * b.rate >= b.burst]:
            del self.buckets[key]
        while len(self.buckets) >= self.cap:  # all of them busy: forget the oldest
            del self.buckets[next(iter(self.buckets))]


class Attempts:
    def __init__(self, limits: AttemptLimits):
        self.limits = limits
        self.addresses = Buckets(*limits.per_address)
        self.logins = Buckets(*limits.per_login)

    def before(self, address: str | None, login: str | None, now: float, loopback: bool) -> str | None:
        """Before a password is checked: None if it may be, else why not (the attempt is refused
        without hashing anything). Takes the address's token."""
        if address and not (loopback and self.limits.exempt_loopback):
            if not self.addresses.take(address, now):
                return f"too many password attempts from your address: try again in {self._s(self.addresses, address, now)}"
        if login is not None and not self.logins.left(login, now):
            return f"too many wrong passwords for this login: try again in {self._s(self.logins, login, now)}"
        return None

    def failed(self, login: str, now: float) -> None:
        """A wrong password (or an unknown login) for ``login``."""
        self.logins.take(login, now)

    @staticmethod
    def _s(buckets: Buckets, key: str, now: float) -> str:
        return f"{max(1, round(buckets.wait(key, now)))} s"
