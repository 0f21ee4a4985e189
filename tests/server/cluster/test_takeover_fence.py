"""A claim whose fencing token the database refuses (server/cluster/takeover.py, docs/cluster.md
"Fencing"): rooms and tournaments alike give their lease back at once, on the test run's private Redis."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import redis.asyncio as aioredis

from server.cluster.keys import ROOM_LEASE, TOURNAMENT_LEASE
from server.cluster.lease import Lease, holder
from server.cluster.takeover import Takeover
from server.store_sql import StorageError


class Store:
    """The database's answer to a fencing token: written, refused (a newer owner's), or unreachable."""

    def __init__(self, answer):
        self.answer = answer

    async def fence(self, code: str, token: int):
        return self._answer(1, None)  # the room's row id, or None

    async def fence_tournament(self, tid: int, token: int):
        return self._answer(True, False)

    def _answer(self, written, refused):
        if self.answer == "down":
            raise StorageError("database unreachable")
        return written if self.answer == "written" else refused


class Renewer:
    def __init__(self):
        self.leases: list[Lease] = []

    def add(self, lease, lost) -> None:
        self.leases.append(lease)

    def remove(self, lease) -> None:
        self.leases.remove(lease)


@pytest.fixture
async def r(redis_url):
    client = aioredis.Redis.from_url(redis_url)
    yield client
    await client.aclose()


def takeover(r, answer: str) -> Takeover:
    node = SimpleNamespace(id="n1", ttl=30.0, redis=r, renewer=Renewer(), app=SimpleNamespace(store=Store(answer)))
    return Takeover(node)


@pytest.mark.parametrize("answer", ["refused", "down"])
async def test_a_room_or_tournament_claim_whose_token_is_not_written_gives_its_lease_back_at_once(r, answer, caplog):
    t = takeover(r, answer)
    assert not await t.claim("r00000001")
    assert not await t.claim_tournament("T0001", 7)
    said = [rec.getMessage() for rec in caplog.records]
    assert [m.split(":")[0] for m in said] == ["room r00000001", "tournament T0001"]
    assert all(("newer owner" if answer == "refused" else "not written") in m for m in said)
    caplog.clear()  # the refusals are logged as errors on purpose
    assert t.claimed == {} and t.tournaments == {} and t.node.renewer.leases == []
    # Free now, not in 30 s: another node takes both at once.
    for name in (ROOM_LEASE + "r00000001", TOURNAMENT_LEASE + "T0001"):
        assert await holder(r, name) is None
        assert await Lease(r, name, "n2", 30.0).acquire() is not None


async def test_a_room_or_tournament_claim_whose_token_is_written_keeps_and_renews_its_lease(r):
    t = takeover(r, "written")
    assert await t.claim("r00000001")
    assert await t.claim_tournament("T0001", 7)
    assert set(t.claimed) == {"r00000001"} and set(t.tournaments) == {"T0001"}
    assert len(t.node.renewer.leases) == 2
    assert (await holder(r, ROOM_LEASE + "r00000001"))[0] == "n1"
    assert (await holder(r, TOURNAMENT_LEASE + "T0001"))[0] == "n1"
    await t.release("r00000001")
    assert await holder(r, ROOM_LEASE + "r00000001") is None
