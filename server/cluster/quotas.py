"""The quotas of server.quotas shared by a cluster's nodes, in Redis (docs/cluster.md "Quotas"): a client
connecting to several nodes gets the limits of one process, not one set per node.

- Rates (creations, rematches, guest accounts, replays, invite lookups) are token buckets in Redis, one
  hash per key, taken by a Lua script in one round trip on Redis's clock; a bucket's key expires once it
  is full again (a new key is a full bucket: nothing lingers).
- Open rooms per account and per address are sorted sets of room ids. ``room_create`` checks the counts,
  takes a creation from the bucket and holds a place (a token) in one script; ``room_opened`` puts the
  room's id in its place and records which sets hold it, so that whichever node closes the room (its
  owner then, after a takeover too) takes it out. A recount keeps a crashed node from leaking a count:
  each check first drops the members past their grace whose room is neither open (``gb:rooms``) nor
  leased (a place held by a node that died before its room was made, a close whose release was lost).
- Tournaments not over per organiser (``Settings.max_organised``) and per address: sorted sets of
  tournament ids, recounted at each check against the tournaments PostgreSQL has not closed.
- Redis unreachable (or slower than ``WAIT``): the check falls back to the node's own counts in memory,
  those of a single process (fails open to the one-process limits; logged once per outage).
"""

from __future__ import annotations

import asyncio
import logging
import secrets

from redis.exceptions import RedisError

from server.cluster.keys import ROOM_LEASE, ROOMS
from server.cluster.lease import PREFIX
from server.quotas import Book, Quotas, refuse
from server.store_sql import StorageError

log = logging.getLogger("guobiao.cluster")

RATE = "gb:quota:rate:"  # + kind:key -> a token bucket {tokens, at (ms, Redis's clock)}
ROOMS_OF = "gb:quota:rooms:"  # + account:<pid> | address:<address> -> sorted set: room id (or place) -> grace end
ROOM = "gb:quota:room:"  # + room id -> {a: its account's set, d: its address's set or ""}
TOURNAMENTS_OF = "gb:quota:tournaments:"  # + organiser:<pid> | address:<address> -> sorted set: id -> grace end
GRACE = 60_000  # ms a held place, or a room just opened, counts whatever Redis says of the room
SETTLED = 5_000  # ms a tournament just opened counts though another node read the open ones just before
KEEP = 7 * 86_400_000  # ms the sets and records outlive their last write (only what no check visits again)
WAIT = 1.0  # seconds a check may wait for Redis before the node's own counts answer

_LIB = """
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function take(key, rate, burst)
  local b = redis.call('HMGET', key, 'tokens', 'at')
  local tokens = burst
  if b[1] then tokens = math.min(burst, tonumber(b[1]) + (now - tonumber(b[2])) * rate / 1000) end
  if tokens < 1 then return false end
  tokens = tokens - 1
  redis.call('HSET', key, 'tokens', string.format('%.17g', tokens), 'at', string.format('%.0f', now))
  redis.call('PEXPIRE', key, math.max(1, math.ceil((burst - tokens) * 1000 / rate)))
  return true
end
local function hold(key, member, grace, keep)
  redis.call('ZADD', key, now + tonumber(grace), member)
  redis.call('PEXPIRE', key, keep)
end
"""
# KEYS: the bucket. ARGV: rate (per second), burst. 1: taken.
_RATE = _LIB + "return take(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])) and 1 or 0"
# KEYS: the account's rooms, its bucket of creations, gb:rooms, [the address's rooms]. ARGV: rooms per
# account, per address, rate, burst, the place's token, grace, keep, the prefix of a room's lease.
# 0: a place held; 1: the account's rooms, 2: the address's are too many; 3: too often.
_ROOM_CREATE = _LIB + """
local function open(key)
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', key, '-inf', now)) do
    if redis.call('SISMEMBER', KEYS[3], m) == 0 and redis.call('EXISTS', ARGV[8] .. m) == 0 then
      redis.call('ZREM', key, m)
    end
  end
  return redis.call('ZCARD', key)
end
if open(KEYS[1]) >= tonumber(ARGV[1]) then return 1 end
if KEYS[4] and open(KEYS[4]) >= tonumber(ARGV[2]) then return 2 end
if not take(KEYS[2], tonumber(ARGV[3]), tonumber(ARGV[4])) then return 3 end
hold(KEYS[1], ARGV[5], ARGV[6], ARGV[7])
if KEYS[4] then hold(KEYS[4], ARGV[5], ARGV[6], ARGV[7]) end
return 0
"""
# KEYS: the room's record, the account's rooms, [the address's]. ARGV: the place's token, room id, grace, keep.
_ROOM_OPENED = _LIB + """
redis.call('HSET', KEYS[1], 'a', KEYS[2], 'd', KEYS[3] or '')
redis.call('PEXPIRE', KEYS[1], ARGV[4])
for i = 2, #KEYS do
  redis.call('ZREM', KEYS[i], ARGV[1])
  hold(KEYS[i], ARGV[2], ARGV[3], ARGV[4])
end
"""
# KEYS: the room's record. ARGV: room id. Its sets are named in the record (one Redis, as every script here).
_ROOM_CLOSED = """
local r = redis.call('HMGET', KEYS[1], 'a', 'd')
if r[1] then redis.call('ZREM', r[1], ARGV[1]) end
if r[2] and r[2] ~= '' then redis.call('ZREM', r[2], ARGV[1]) end
return redis.call('DEL', KEYS[1])
"""
# KEYS: the organiser's tournaments, [the address's]. ARGV: the limits (organiser, address), the place's
# token, grace, keep, the open tournaments' ids... {0, 0}: a place held; {1 or 2, the count}: refused.
_TOURNAMENT_CREATE = _LIB + """
local open = {}
for i = 6, #ARGV do open[ARGV[i]] = true end
local function count(key)
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', key, '-inf', now)) do
    if not open[m] then redis.call('ZREM', key, m) end
  end
  return redis.call('ZCARD', key)
end
for i = 1, #KEYS do
  local n = count(KEYS[i])
  if n >= tonumber(ARGV[i]) then return {i, n} end
end
for i = 1, #KEYS do hold(KEYS[i], ARGV[3], ARGV[4], ARGV[5]) end
return {0, 0}
"""
# KEYS: the tournament's sets. ARGV: the place's token, tournament id, grace, keep.
_TOURNAMENT_OPENED = _LIB + """
for i = 1, #KEYS do
  redis.call('ZREM', KEYS[i], ARGV[1])
  hold(KEYS[i], ARGV[2], ARGV[3], ARGV[4])
end
"""


class SharedBook(Book):
    """``Book`` with its counts in Redis; its own (in memory) answer while Redis cannot."""

    def __init__(self, quotas: Quotas, exempt_loopback: bool, node):
        super().__init__(quotas, exempt_loopback)
        self.node = node
        self.redis = node.redis
        self.down = False  # the last call to Redis failed (logged once until one succeeds)
        self.grace, self.keep = GRACE, KEEP
        script = self.redis.register_script  # EVALSHA (loaded on a NoScriptError): one round trip
        self._rate, self._room_create = script(_RATE), script(_ROOM_CREATE)
        self._room_opened, self._room_closed = script(_ROOM_OPENED), script(_ROOM_CLOSED)
        self._t_create, self._t_opened = script(_TOURNAMENT_CREATE), script(_TOURNAMENT_OPENED)

    async def _call(self, script, keys: list, args: list):
        """A script's answer, or None when Redis failed or took longer than WAIT."""
        try:
            async with asyncio.timeout(WAIT):
                got = await script(keys=keys, args=args)
        except (OSError, RedisError) as e:  # (TimeoutError is an OSError)
            if not self.down:
                log.warning("cluster: quotas counted by this node alone while Redis fails (%s)", e)
            self.down = True
            return None
        if self.down:
            log.warning("cluster: quotas shared in Redis again")
        self.down = False
        return got

    async def _take(self, kind: str, key: str, local, now: float) -> bool:
        """A token of ``key``'s bucket of ``kind`` (a Quotas field); ``local``: this node's own buckets."""
        rate, burst = getattr(self.q, kind)
        got = await self._call(self._rate, [f"{RATE}{kind}:{key}"], [rate, burst])
        return local.take(key, now) if got is None else got == 1

    # -- rates ----------------------------------------------------------------------------------

    async def account(self, address: str | None, now: float) -> None:
        address = self.counted(address)
        if address is not None and not await self._take("accounts", address, self.accounts, now):
            refuse("accounts", self.q)

    async def replay(self, address: str | None, now: float) -> bool:
        address = self.counted(address)
        return address is None or await self._take("replays", address, self.replays, now)

    async def invite(self, address: str | None, now: float) -> bool:
        address = self.counted(address)
        return address is None or await self._take("invites", address, self.invites, now)

    async def rematch_then(self, pid: str, task, command) -> None:
        """``rematch``: the rate checked in Redis, then the command given to its room."""
        if not await self._take("rematches", pid, self.rematches, asyncio.get_running_loop().time()):
            refuse("rematches", self.q)
        task.put(command)

    # -- open rooms -----------------------------------------------------------------------------

    async def room_create(self, pid: str, address: str | None, now: float) -> object:
        address = self.counted(address)
        token = "+" + secrets.token_hex(8)  # the place held until the room's id takes it
        keys = [ROOMS_OF + "account:" + pid, f"{RATE}creates:{pid}", ROOMS,
                *([ROOMS_OF + "address:" + address] if address is not None else [])]
        q = self.q
        got = await self._call(self._room_create, keys, [q.rooms_per_account, q.rooms_per_address, *q.creates,
                                                         token, self.grace, self.keep, PREFIX + ROOM_LEASE])
        if got is None:  # Redis failed: this node's own counts (the room is counted here, not in Redis)
            return await super().room_create(pid, address, now)
        if got:
            refuse({1: "account rooms", 2: "address rooms", 3: "creates"}[got], q)
        return (token, keys[0], keys[3] if address is not None else None)

    def room_opened(self, room_id: str, pid: str, address: str | None, held: object = None) -> None:
        if held is None:
            return super().room_opened(room_id, pid, address)
        token, *sets = held
        keys = [ROOM + room_id, *(k for k in sets if k is not None)]
        self.node.queue_write(lambda: self._room_opened(keys=keys, args=[token, room_id, self.grace, self.keep]))

    def room_not_made(self, held: object) -> None:
        if held is not None:
            token, *sets = held
            for key in (k for k in sets if k is not None):
                self.node.queue_write(lambda key=key: self.redis.zrem(key, token))

    def room_closed(self, room_id: str) -> None:
        """Its count released, in Redis whichever node made it; not when the room only stops here (its
        lease lost or fenced off: it goes on on another node, which releases it when it closes)."""
        super().room_closed(room_id)
        if room_id in self.node.leases:
            self.node.queue_write(lambda: self._room_closed(keys=[ROOM + room_id], args=[room_id]))

    # -- tournaments ----------------------------------------------------------------------------

    async def tournament_create(self, address: str | None, open_ids, organiser: str = "", most: int = 0) -> object:
        """Also the tournaments not over that ``organiser`` organises, at most ``most`` (max_organised)."""
        counted = self.counted(address)
        try:
            still = [r["code"] for r in await self.node.app.store.open_tournament_codes()]
        except StorageError:
            still = None
        token = "+" + secrets.token_hex(8)
        counts = {"organised": (TOURNAMENTS_OF + "organiser:" + organiser, most)} if organiser else {}
        if counted is not None:
            counts["tournaments"] = (TOURNAMENTS_OF + "address:" + counted, self.q.tournaments_per_address)
        if not counts:
            return None
        keys, limits = [k for k, _ in counts.values()], [n for _, n in counts.values()]
        limits += [0] * (2 - len(limits))
        got = None if still is None else await self._call(
            self._t_create, keys, [*limits, token, self.grace, self.keep, *still])
        if got is None:  # Redis or PostgreSQL failed: this node's own counts (the organiser's: events.py)
            return await super().tournament_create(address, open_ids)
        if got[0]:
            refuse(list(counts)[got[0] - 1], self.q, got[1])
        return (token, keys)

    def tournament_opened(self, tid: str, address: str | None, held: object = None) -> None:
        if held is None:
            return super().tournament_opened(tid, address)
        token, keys = held
        self.node.queue_write(lambda: self._t_opened(keys=keys, args=[token, tid, SETTLED, self.keep]))
