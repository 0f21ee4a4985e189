"""A cluster node's loops end on their task's cancel even when a Redis call eats it (redis-py returns
normally from a command whose task was cancelled before the command's first wait): a node's stop once
waited for its stream reader forever (server.cluster.cancel)."""

import asyncio
import logging

import pytest
import redis.asyncio as aioredis

from server.cluster.cancel import end_if_cancelled
from tests.server.cluster.test_nodes import start_node
from tests.server.conftest import stop

pytestmark = pytest.mark.postgres


async def test_a_loop_of_redis_calls_cancelled_before_it_ran_ends(redis_url):
    r = aioredis.Redis.from_url(redis_url)
    calls = 0

    async def reader() -> None:
        nonlocal calls
        while True:
            calls += 1
            await r.xread({"gb:test:empty": "0-0"}, count=10, block=50)
            end_if_cancelled()

    try:
        task = asyncio.get_running_loop().create_task(reader())
        task.cancel()  # before its first step: the moment a cancel can be eaten
        done, _ = await asyncio.wait({task}, timeout=5)
        assert done and task.cancelled() and calls <= 1
    finally:
        await r.aclose()


async def test_a_node_whose_reader_had_its_cancel_eaten_still_stops(pg_url, redis_url, caplog, monkeypatch):
    from server.cluster.link import Link

    node = await start_node(pg_url, redis_url)
    cluster = node.app.cluster
    real, patched = Link.call, asyncio.Event()

    async def call(self, *args):  # what redis-py does to a cancel at a command's start, every time
        if args[0] != "XREAD":
            return await real(self, *args)
        patched.set()
        try:
            return await real(self, *args)
        except asyncio.CancelledError:
            return None

    monkeypatch.setattr(Link, "call", call)
    await asyncio.wait_for(patched.wait(), 10)  # the reader's call before the patch has returned
    caplog.set_level(logging.WARNING)
    stopping = asyncio.ensure_future(stop(node))
    done, _ = await asyncio.wait({stopping}, timeout=12)  # (the old loop read on: 15 s, then left behind)
    assert done, "the node's stop waits for its reader"
    assert "did not end in time" not in caplog.text
    reader = [t for t in cluster.tasks if t.get_name().endswith(" reader")]
    assert reader and all(t.done() for t in reader)


async def test_a_watch_goes_on_after_failures_and_ends_on_a_cancel_its_step_ate(caplog):
    # The takeover watches of rooms and tournaments share this loop: a failure of Redis, the database or
    # a bug is logged and the next round runs; a cancel ends it even when the step swallowed it.
    from redis.exceptions import ConnectionError as RedisDown

    from server.cluster.cancel import every
    from server.store_sql import StorageError

    rounds = []

    async def step() -> None:
        rounds.append(len(rounds))
        if len(rounds) == 1:
            raise RedisDown("redis is down")
        if len(rounds) == 2:
            raise StorageError("database is down")
        if len(rounds) == 3:
            raise KeyError("a bug")
        if len(rounds) == 5:
            asyncio.current_task().cancel()
            try:
                await asyncio.sleep(1)
            except asyncio.CancelledError:
                pass  # eaten, as redis-py can

    with caplog.at_level(logging.WARNING, logger="guobiao.cluster"):
        task = asyncio.get_running_loop().create_task(every(0.01, step, "looking for things"))
        done, _ = await asyncio.wait({task}, timeout=10)
    assert done and task.cancelled() and len(rounds) == 5
    logged = [r.getMessage() for r in caplog.records]
    assert logged[:2] == ["cluster: looking for things failed (redis is down)",
                          "cluster: looking for things failed (database is down)"]
    assert logged[2] == "cluster: looking for things failed" and caplog.records[2].exc_info
    caplog.clear()  # the ERROR above was the point of the test
