"""Loops that call Redis end on their task's cancel, even when the call ate it: redis-py returns normally
from a command whose task was cancelled before the command's first wait (seen with XREAD), so a loop
that only waits for a CancelledError goes on forever, and a node's stop waited for it (a test of this
module shows it happen)."""

from __future__ import annotations

import asyncio
import logging
from typing import Awaitable, Callable

from redis.exceptions import RedisError

from server.store_sql import StorageError

log = logging.getLogger("guobiao.cluster")


def end_if_cancelled() -> None:
    """Raise CancelledError when this task was asked to stop (its cancel count stays up when eaten)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


async def every(seconds: float, step: Callable[[], Awaitable], what: str) -> None:
    """Call ``step`` every ``seconds`` until cancelled. A failure of Redis or the database is logged
    (``what`` failed) and tried again next time; any other error is logged with its trace and tried
    again too: a watch that stopped would leave dead nodes' rooms and tournaments unowned."""
    while True:
        await asyncio.sleep(seconds)
        try:
            await step()
            end_if_cancelled()
        except (OSError, RedisError, StorageError) as e:
            end_if_cancelled()
            log.warning("cluster: %s failed (%s)", what, e)
        except Exception:
            log.exception("cluster: %s failed", what)
