"""Ownership by lease (docs/cluster.md "Ownership"): a room or tournament is owned by the node holding
its lease in Redis. A lease is a key with an expiry; its holder renews it while alive, and a node that
stops renewing (killed, cut off) loses it when it expires, so another node may take the room over.

Each acquisition draws a fencing token, larger than every earlier one for the same name (an INCR that
never goes back, even when the lease key expires). The token goes with every write of the owner to the
shared log, so that a former owner that does not yet know it lost the lease cannot write after the new
one (docs/cluster.md "Fencing").

The holder also keeps a local deadline: the moment (its own monotonic clock) the key expires at the
latest, counted from before the request that set it. Past it the holder no longer acts as the owner,
even if Redis could not be reached to tell it so.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Callable

from redis.exceptions import RedisError

from server.cluster.cancel import end_if_cancelled

log = logging.getLogger("guobiao.cluster")

PREFIX = "gb:lease:"
FENCE = "gb:fence:"

# KEYS: lease, fence counter. ARGV: node, ttl ms. The key is set only when absent (SET NX PX); the
# token is drawn in the same script, so no two holders ever see the same token.
_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return nil end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. token, 'PX', ARGV[2], 'NX')
return token
"""

# Compare-and-set: only the holder (its node and token) may extend the lease or drop it.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class Lease:
    """One name's lease as seen by one node. ``acquire`` (once), then ``renew`` more often than ``ttl``,
    or ``keep`` renewing in a task; ``owned`` says whether this node may still act as the owner."""

    def __init__(self, redis, name: str, node: str, ttl: float = 5.0, clock: Callable[[], float] = time.monotonic):
        self.redis = redis
        self.name = name
        self.node = node
        self.ttl = ttl  # seconds
        self.clock = clock
        self.token: int | None = None
        self.deadline = 0.0  # local clock: owned until then at the latest
        self._acquire = redis.register_script(_ACQUIRE)
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)

    @property
    def key(self) -> str:
        return PREFIX + self.name

    @property
    def value(self) -> str:
        return f"{self.node}:{self.token}"

    @property
    def owned(self) -> bool:
        return self.token is not None and self.clock() < self.deadline

    async def acquire(self) -> int | None:
        """The fencing token if this node now holds the lease, None if another node does."""
        started = self.clock()
        token = await self._acquire(keys=[self.key, FENCE + self.name], args=[self.node, int(self.ttl * 1000)])
        if token is None:
            return None
        self.token = int(token)
        self.deadline = started + self.ttl
        return self.token

    async def renew(self) -> bool:
        """Extend the lease by ``ttl``; False (and no longer owned) if it expired or another node has it."""
        if self.token is None:
            return False
        started = self.clock()
        if await self._renew(keys=[self.key], args=[self.value, int(self.ttl * 1000)]):
            self.deadline = started + self.ttl
            return True
        self.token, self.deadline = None, 0.0
        return False

    async def release(self) -> None:
        """Give the lease up at once (a clean stop): another node need not wait for the expiry."""
        if self.token is not None:
            await self._release(keys=[self.key], args=[self.value])
        self.token, self.deadline = None, 0.0

    async def keep(self, on_lost: Callable[[], None], every: float | None = None) -> None:
        """Renew every ``every`` seconds (a third of the ttl) until cancelled; ``on_lost`` is called once
        when the lease is lost: refused by Redis, or not renewed before the local deadline."""
        every = self.ttl / 3 if every is None else every
        while True:
            await asyncio.sleep(every)
            try:
                async with asyncio.timeout(max(0.0, self.deadline - self.clock())):
                    ok = await self.renew()
            except (TimeoutError, OSError, RedisError) as e:  # Redis unreachable or slow
                end_if_cancelled()
                if self.owned:
                    log.warning("lease %s: renewing failed (%s); retrying", self.name, e)
                    continue
                ok = False
            if not ok:
                self.token, self.deadline = None, 0.0
                log.warning("lease %s lost by %s", self.name, self.node)
                on_lost()
                return


async def holder(redis, name: str) -> tuple[str, int] | None:
    """Who holds a lease now: (node, token), or None."""
    value = await redis.get(PREFIX + name)
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode()
    node, _, token = value.rpartition(":")
    return node, int(token)


# KEYS: leases. ARGV[1]: ttl ms, ARGV[i + 1]: the value KEYS[i] must hold. Each key's compare-and-set
# renewal, all in one round trip: 1 renewed, 0 lost.
_RENEW_MANY = """
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i + 1] then out[i] = redis.call('PEXPIRE', key, ARGV[1]) else out[i] = 0 end
end
return out
"""


class Renewer:
    """Every lease of one node renewed by one task, many a round trip (docs/cluster.md "Ownership").

    It shares nothing with the work a node does on its rooms: restoring hundreds of rooms delays it only
    as long as one room's restore holds the event loop (restores yield between rooms), never by the
    number of rooms waiting, and one round trip renews them all. A lease whose renewal is refused, or
    that is past its local deadline when Redis cannot be reached, is dropped and its ``on_lost`` called."""

    CHUNK = 1000  # leases a script call renews

    def __init__(self, redis, ttl: float, clock: Callable[[], float] = time.monotonic):
        self.redis, self.ttl, self.clock = redis, ttl, clock
        self.held: dict[str, tuple[Lease, Callable[[], None]]] = {}  # name -> lease, its on_lost
        self._renew = redis.register_script(_RENEW_MANY)

    def add(self, lease: Lease, on_lost: Callable[[], None]) -> None:
        self.held[lease.name] = (lease, on_lost)

    def remove(self, lease: Lease) -> None:
        if self.held.get(lease.name, (None,))[0] is lease:
            del self.held[lease.name]

    async def run(self, every: float | None = None) -> None:
        """Renew every ``every`` seconds (a third of the ttl) until cancelled."""
        every = self.ttl / 3 if every is None else every
        while True:
            await asyncio.sleep(every)
            await self.renew_all()
            end_if_cancelled()

    async def renew_all(self) -> None:
        leases = [lease for lease, _ in self.held.values() if lease.token is not None]
        for i in range(0, len(leases), self.CHUNK):
            await self._renew_chunk(leases[i:i + self.CHUNK])

    async def _renew_chunk(self, leases: list[Lease]) -> None:
        started = self.clock()
        try:
            async with asyncio.timeout(self.ttl / 3):
                ok = await self._renew(keys=[lease.key for lease in leases],
                                       args=[int(self.ttl * 1000), *(lease.value for lease in leases)])
        except (TimeoutError, OSError, RedisError) as e:  # Redis unreachable or slow: owned until the deadline
            end_if_cancelled()
            log.warning("leases: renewing %d failed (%s); retrying", len(leases), e)
            ok = [1 if lease.owned else 0 for lease in leases]
            started = None
        for lease, renewed in zip(leases, ok):
            if renewed and started is not None:
                lease.deadline = max(lease.deadline, started + self.ttl)
            elif not renewed:
                self._lost(lease)

    def _lost(self, lease: Lease) -> None:
        held = self.held.get(lease.name)
        if held is None or held[0] is not lease:
            return  # released or replaced meanwhile
        del self.held[lease.name]
        lease.token, lease.deadline = None, 0.0
        log.warning("lease %s lost by %s", lease.name, lease.node)
        held[1]()


# KEYS: n leases, then their n fence counters. ARGV: node, ttl ms. ``_ACQUIRE`` for each: its token, or
# 0 where the lease is held.
_ACQUIRE_MANY = """
local n = #KEYS / 2
local out = {}
for i = 1, n do
  if redis.call('EXISTS', KEYS[i]) == 1 then out[i] = 0 else
    local token = redis.call('INCR', KEYS[n + i])
    redis.call('SET', KEYS[i], ARGV[1] .. ':' .. token, 'PX', ARGV[2])
    out[i] = token
  end
end
return out
"""


async def acquire_many(redis, leases: list[Lease]) -> list[Lease]:
    """``Lease.acquire`` for many leases of one node and ttl, in one round trip; those now held."""
    if not leases:
        return []
    first = leases[0]
    started = first.clock()
    tokens = await redis.register_script(_ACQUIRE_MANY)(
        keys=[lease.key for lease in leases] + [FENCE + lease.name for lease in leases],
        args=[first.node, int(first.ttl * 1000)])
    held = []
    for lease, token in zip(leases, tokens):
        if token:
            lease.token, lease.deadline = int(token), started + lease.ttl
            held.append(lease)
    return held
