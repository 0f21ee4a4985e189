"""Loops that call Redis end on their task's cancel, even when the call ate it: redis-py returns normally
from a command whose task was cancelled before the command's first wait (seen with XREAD), so a loop
that only waits for a CancelledError goes on forever, and a node's stop waited for it (a test of this
module shows it happen)."""

from __future__ import annotations

import asyncio


def end_if_cancelled() -> None:
    """Raise CancelledError when this task was asked to stop (its cancel count stays up when eaten)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
