"""A stop that always ends: each step of ``App.stop`` waits within one deadline for the whole stop; a
step still running at it is logged with the tasks still alive (where each one waits) and left behind,
so a stuck task can never keep a server (or a supervisor's restart) waiting forever."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

log = logging.getLogger("guobiao.server")


class Deadline:
    def __init__(self, seconds: float):
        self.end = asyncio.get_running_loop().time() + seconds

    async def within(self, step: str, aw: Awaitable) -> bool:
        """Wait for ``aw`` until the deadline (never less than a moment); False if it had to be left."""
        fut = asyncio.ensure_future(aw)
        left = max(0.05, self.end - asyncio.get_running_loop().time())
        done, _ = await asyncio.wait({fut}, timeout=left)  # (wait_for would wait for a stuck cancel)
        if done:
            fut.result()
            return True
        fut.add_done_callback(_settled)
        fut.cancel()
        log.error("stop: %s did not end in time; going on without it. Still running:\n%s", step, running())
        return False


def _settled(fut: asyncio.Future) -> None:
    if not fut.cancelled():
        fut.exception()  # seen: a step left behind ends as it may, without "never retrieved" noise


def running(frames: int = 3) -> str:
    """Each task still alive but the caller: its name and the innermost lines it waits at."""
    lines = []
    for task in asyncio.all_tasks():
        if task is asyncio.current_task():
            continue
        stack = task.get_stack()[-frames:]
        at = " <- ".join(f"{f.f_code.co_name} ({f.f_code.co_filename.rsplit('/', 1)[-1]}:{f.f_lineno})"
                         for f in reversed(stack))
        lines.append(f"  {task.get_name()}: {at or 'not started'}")
    return "\n".join(sorted(lines))
