"""A cluster node's loops end on their task's cancel even when a Redis call eats it (redis-py returns
normally from a command whose task was cancelled before the command's first wait): a node's stop once
waited for its stream reader forever (server.cluster.cancel)."""

import asyncio
import logging

import pytest
import redis.asyncio as aioredis

from server.cluster.cancel import end_if_cancelled
from server.cluster.node import READ_BLOCK
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


async def test_a_node_whose_reader_had_its_cancel_eaten_still_stops(pg_url, redis_url, caplog):
    node = await start_node(pg_url, redis_url)
    cluster = node.app.cluster
    real = cluster.redis.xread

    async def xread(*args, **kwargs):  # what redis-py does to a cancel at a command's start, every time
        try:
            return await real(*args, **kwargs)
        except asyncio.CancelledError:
            return []

    cluster.redis.xread = xread
    await asyncio.sleep(READ_BLOCK / 1000 + 0.3)  # the reader's call before the patch has returned
    caplog.set_level(logging.WARNING)
    stopping = asyncio.ensure_future(stop(node))
    done, _ = await asyncio.wait({stopping}, timeout=12)  # (the old loop read on: 15 s, then left behind)
    assert done, "the node's stop waits for its reader"
    assert "did not end in time" not in caplog.text
    reader = [t for t in cluster.tasks if t.get_name().endswith(" reader")]
    assert reader and all(t.done() for t in reader)
