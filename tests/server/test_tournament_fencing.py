"""Fencing of a tournament's log (docs/cluster.md "Fencing"), in both dialects: a cluster node's writes
carry its lease's token, and one from an owner older than the last is refused with nothing written."""

from __future__ import annotations

import pytest

from server.store import open_store
from server.store_sql import Fenced


async def test_a_tournaments_former_owner_cannot_append_to_its_log_or_close_it(db_url):
    old = await open_store(db_url)
    new = await open_store(db_url)
    try:
        tid = await old.add_tournament("tfenced1", None, [{"e": 0}])
        assert await old.fence_tournament(tid, 1)
        await old.write_tournament(tid, 1, [{"e": 1}])
        assert await new.fence_tournament(tid, 2)  # a new owner took the lease over
        with pytest.raises(Fenced):
            await old.write_tournament(tid, 2, [{"e": "stale"}], [("s1t1", "rstale")],
                                       [("rstale", {"hands": 1}, [{"stale": True}])])
        with pytest.raises(Fenced):
            await old.close_tournament(tid)
        assert not await old.fence_tournament(tid, 1)  # an older token never takes it back
        await new.write_tournament(tid, 2, [{"e": 2}])
        assert await new.tournament_log(tid) == [{"e": 0}, {"e": 1}, {"e": 2}]
        assert (await new.open_tournament({"id": tid, "code": "tfenced1"}))["tables"] == {}
        assert await new.open_room("rstale") is None  # the refused write's table room is not there either
        await new.close_tournament(tid)
        assert await new.open_tournament_codes() == []
    finally:
        await old.close()
        await new.close()
