"""A task's queue that also says when the task's deadline has come.

``next(deadline, now)`` returns the next queue item, or ``("tick",)`` once ``deadline()`` (on the clock
``now()`` reads) has passed with nothing queued. The deadline may move while the task waits; one timer
is kept per queue and moved only when the deadline comes earlier than the time it is set for (a timer per
wait would put a new handle into the loop's heap of thousands of timers for every item); it lives in the
loop's one heap of room timers (server.timerheap), where a move costs no Python comparisons. A timer that
fires for a deadline that has moved later sets itself again without waking the waiting task: every play
moves a room's turn deadline, and those wakes were ~400 task steps a second at 2,500 tables.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from server.timerheap import TimerHeap, timer_heap

TICK = ("tick",)
_WAKE = ("wake",)


class TimedQueue(asyncio.Queue):
    def __init__(self, tick=TICK):
        super().__init__()
        self.tick = tick  # what ``next`` returns when the deadline came
        self.waiting = False  # the task waits on the empty queue (and handles nothing meanwhile)
        self._timer: list | None = None  # its entry in the loop's TimerHeap
        self._heap: TimerHeap | None = None
        self._timer_at = 0.0  # the deadline the timer is set for
        self._clocks: tuple[Callable[[], float | None], Callable[[], float]] | None = None  # next()'s, while waiting

    async def next(self, deadline: Callable[[], float | None], now: Callable[[], float]) -> tuple:
        while True:
            if not self.empty():
                item = self.get_nowait()
            else:
                t, due = now(), deadline()
                if due is not None and due <= t:
                    # Due at once (a room plays a bounded number of automatic entries per tick): let
                    # the other tasks and connections run first.
                    await asyncio.sleep(0)
                    return self.tick
                self.arm(due, t)
                self.waiting, self._clocks = True, (deadline, now)
                try:
                    item = await self.get()
                finally:
                    self.waiting, self._clocks = False, None
            if item is not _WAKE:
                return item

    def stop(self) -> None:
        """Cancel the timer (the task is ending)."""
        if self._timer is not None:
            self._heap.cancel(self._timer)
            self._timer = None

    def arm(self, due: float | None, now: float) -> None:
        """Have the timer wake the waiting task at ``due``, unless it is set for that time or earlier (for
        a deadline that moved while the task waits, without the task)."""
        if due is not None and (self._timer is None or self._timer_at > due):
            heap = self._heap
            if heap is None:
                heap = self._heap = timer_heap()
            elif self._timer is not None:
                heap.cancel(self._timer)
            self._timer_at = due
            self._timer = heap.call_later(max(0.0, due - now), self._wake)

    def _wake(self) -> None:
        self._timer = None
        if self._clocks is not None:  # the task waits: wake it only if its deadline has come
            deadline, now = self._clocks
            try:
                due, t = deadline(), now()
            except Exception:  # a broken room: woken, the task meets the error itself and stops the room
                self.put_nowait(_WAKE)
                return
            if due is None:
                return  # no deadline any more: it waits for an item (arm sets a timer for a new one)
            if due > t:
                self.arm(due, t)
                return
        self.put_nowait(_WAKE)


async def next_item(queue: asyncio.Queue, deadline: float | None, now: float, tick):
    """A task's next queue item, or ``tick`` when ``deadline`` (on the clock ``now`` reads) comes first."""
    try:
        async with asyncio.timeout(None if deadline is None else max(0.0, deadline - now)):
            return await queue.get()
    except TimeoutError:
        return tick
