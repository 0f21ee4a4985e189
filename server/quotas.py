"""What one account or one address may make, and how often: rooms, guest accounts, tournaments, rematches
and replays (docs/protocol.md "Limits and quotas"). Counts live in memory: a restart forgets the rates,
and open rooms and tournaments are counted again as they are created. In cluster mode the nodes share
them in Redis instead (server.cluster.quotas, a ``Book`` whose checks ask Redis).

Addresses are counted as the connection limit counts them (an IPv4 address, an IPv6 /64); loopback is
exempt with ``Limits.exempt_loopback`` (behind a reverse proxy every player comes from there).
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from dataclasses import dataclass, field

from server.codec import ProtocolError
from server.conn import TokenBucket
from server.errors import (BAD_CONFIG, TOO_MANY_ACCOUNTS, TOO_MANY_ROOMS,  # noqa: F401 (quotas.X)
                           TOO_MANY_TOURNAMENTS, TOO_OFTEN)


# The shortest timers (seconds) a player may ask for in ``create``: with every timer at 0 a room with
# three bots played a 16-hand match as fast as the server could go. The defaults (rooms/config.py) are
# above them; the server's own rooms (quick match, tournament tables) are configured by the server.
TIMER_MINIMUMS = {"first_turn_time": 5.0, "turn_time": 5.0, "claim_time": 2.0, "bank": 0.0,
                  "grace": 5.0, "between_time": 5.0, "bot_delay": 0.5, "idle_after": 60.0, "abandon_after": 60.0}


@dataclass
class Quotas:
    timer_minimums: dict = field(default_factory=lambda: dict(TIMER_MINIMUMS))
    # (per second on average, at once) per account: creating rooms, and rematches
    creates: tuple[float, float] = (1 / 10, 5)
    rematches: tuple[float, float] = (1 / 10, 3)
    rooms_per_account: int = 3  # open rooms an account created (rooms close when empty or idle)
    rooms_per_address: int = 20
    accounts: tuple[float, float] = (1 / 60, 20)  # guest accounts created per address
    tournaments_per_address: int = 10  # not yet over (and Settings.max_organised per account)
    replays: tuple[float, float] = (1.0, 10)  # replays served (GET /api/matches/<id>) per address
    invites: tuple[float, float] = (1.0, 10)  # invite codes looked up (GET /api/invite/<code>) per address
    spectator_grace: float = 15.0  # a spectator who disconnected leaves the room after this


def address_of(host: str) -> str:
    """What a client's connections are counted under: its IPv4 address (also as the client of a
    dual-stack socket, ``::ffff:a.b.c.d``), or its IPv6 /64 network (one subscriber has a whole /64)."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    mapped = getattr(ip, "ipv4_mapped", None)
    if mapped is not None:
        return str(mapped)
    if ip.version == 6 and not ip.is_loopback:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:  # a /64 network, or not an IP address
        return False


def check_timers(cfg: dict, minimums: dict) -> None:
    """``room/bad_config`` for a timer the player asked for below its minimum."""
    for name, least in minimums.items():
        v = cfg.get(name)
        if type(v) in (int, float) and v < least:
            raise ProtocolError(BAD_CONFIG, f"{name}: at least {least:g} s")


class Rates:
    """Token buckets per key (an account or an address), dropped once full again (nothing to remember)."""

    def __init__(self, rate: float, burst: float):
        self.rate, self.burst = rate, burst
        self.buckets: dict[str, TokenBucket] = {}

    def take(self, key: str, now: float) -> bool:
        b = self.buckets.get(key)
        if b is None:
            if len(self.buckets) >= 10_000:
                self._prune(now)
            b = self.buckets[key] = TokenBucket(self.rate, self.burst, now)
        return b.take(now)

    def _prune(self, now: float) -> None:
        for key, b in list(self.buckets.items()):
            if b.tokens + (now - b.at) * self.rate >= self.burst:
                del self.buckets[key]
        for key in list(self.buckets)[:max(0, len(self.buckets) - 9_000)]:  # still full: the oldest go
            del self.buckets[key]


class Book:
    """The server's quota counts (one per App)."""

    def __init__(self, quotas: Quotas, exempt_loopback: bool):
        self.q = quotas
        self.exempt_loopback = exempt_loopback
        self.creates = Rates(*quotas.creates)
        self.rematches = Rates(*quotas.rematches)
        self.accounts = Rates(*quotas.accounts)
        self.replays = Rates(*quotas.replays)
        self.invites = Rates(*quotas.invites)
        self.rooms_by: dict[str, tuple[str, str | None]] = {}  # open room id -> (account, address)
        self.room_accounts: Counter[str] = Counter()
        self.room_addresses: Counter[str] = Counter()
        self.tournaments_by: dict[str, str] = {}  # tournament id -> address it was created from

    def counted(self, address: str | None) -> str | None:
        """The address a quota counts, or None when it is exempt (loopback, unknown)."""
        if not address or (self.exempt_loopback and is_loopback(address)):
            return None
        return address

    # The checks are coroutines: in cluster mode they ask Redis (server.cluster.quotas); here they never wait.

    async def room_create(self, pid: str, address: str | None, now: float) -> object:
        """Before a player creates a room: the rate per account and the open rooms per account and address.
        Returns what ``room_opened`` (or ``room_not_made``) is given: None here, nothing is held."""
        address = self.counted(address)
        if self.room_accounts[pid] >= self.q.rooms_per_account:
            refuse("account rooms", self.q)
        if address is not None and self.room_addresses[address] >= self.q.rooms_per_address:
            refuse("address rooms", self.q)
        if not self.creates.take(pid, now):
            refuse("creates", self.q)
        return None

    def rematch(self, pid: str, now: float) -> None:
        if not self.rematches.take(pid, now):
            refuse("rematches", self.q)

    async def account(self, address: str | None, now: float) -> None:
        address = self.counted(address)
        if address is not None and not self.accounts.take(address, now):
            refuse("accounts", self.q)

    async def replay(self, address: str | None, now: float) -> bool:
        address = self.counted(address)
        return address is None or self.replays.take(address, now)

    async def invite(self, address: str | None, now: float) -> bool:
        """Whether ``address`` may look up one more invite code now (guessing codes stays slow)."""
        address = self.counted(address)
        return address is None or self.invites.take(address, now)

    def room_opened(self, room_id: str, pid: str, address: str | None, held: object = None) -> None:
        address = self.counted(address)
        self.rooms_by[room_id] = (pid, address)
        self.room_accounts[pid] += 1
        if address is not None:
            self.room_addresses[address] += 1

    def room_closed(self, room_id: str) -> None:
        owner = self.rooms_by.pop(room_id, None)
        if owner is None:
            return
        for counter, key in ((self.room_accounts, owner[0]), (self.room_addresses, owner[1])):
            if key is not None:
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]

    def room_not_made(self, held: object) -> None:
        """``room_create`` passed but the room could not be made (nothing was counted here)."""

    async def tournament_create(self, address: str | None, open_ids, organiser: str = "", most: int = 0) -> object:
        """Before a tournament is created from ``address``: ``open_ids`` are the tournaments not over.
        Returns what ``tournament_opened`` is given (None here). The organiser's own limit (``most`` not
        over) is counted by the caller here, from the tournaments it runs; in a cluster by the nodes'."""
        address = self.counted(address)
        if address is None:
            return None
        n = sum(1 for tid in open_ids if self.tournaments_by.get(tid) == address)
        if n >= self.q.tournaments_per_address:
            refuse("tournaments", self.q, n)
        return None

    def tournament_opened(self, tid: str, address: str | None, held: object = None) -> None:
        address = self.counted(address)
        if address is not None:
            self.tournaments_by[tid] = address

    def tournament_closed(self, tid: str) -> None:
        self.tournaments_by.pop(tid, None)


def refuse(what: str, q: Quotas, n: int = 0):
    """Raise the error of a quota (the same code and words in one process and in a cluster)."""
    code, message = {
        "account rooms": (TOO_MANY_ROOMS, f"you have {q.rooms_per_account} open rooms already"),
        "address rooms": (TOO_MANY_ROOMS, f"{q.rooms_per_address} rooms are open from your address"),
        "creates": (TOO_OFTEN, "you create rooms too often: wait a little"),
        "rematches": (TOO_OFTEN, "rematches too often: wait a little"),
        "accounts": (TOO_MANY_ACCOUNTS, "too many new accounts from your address: sign in with your token"),
        "tournaments": (TOO_MANY_TOURNAMENTS, f"{n} tournaments from your address are not over yet"),
        "organised": (TOO_MANY_TOURNAMENTS, f"you already organise {n} tournaments that are not over"),
    }[what]
    raise ProtocolError(code, message)


def conn_address(conn) -> str | None:
    ra = getattr(conn.ws, "remote_address", None)
    return address_of(ra[0]) if ra else None
