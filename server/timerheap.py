"""Every room task's timer in one heap behind one event-loop timer (server.timedqueue).

A room's timer moves earlier at every discard (the claim window ends before the turn would), about a
quarter of all plays. As an asyncio timer each move made a ``TimerHandle`` (a Python constructor) and
pushed it onto the loop's heap of every connection's and room's timers, whose comparisons are Python
calls (``TimerHandle.__lt__``), ~log2(thousands) of them per push and again per cancelled handle popped.
Here an entry is a list ``[when, n, callback]`` (when on the loop's clock; n unique, so the callback is
never compared): pushes and pops compare in C. Only the earliest entry has a loop timer, moved when an
earlier one comes. Callbacks run at the same loop time as a loop timer of their own would.

A cancelled entry stays in the heap until it is due or until cancelled ones are half the heap, when the
heap is rebuilt without them (as asyncio does with its own).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from heapq import heapify, heappop, heappush

_CANCELLED = None
_REBUILD_MIN = 100  # cancelled entries before a rebuild is worth it


class TimerHeap:
    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.heap: list[list] = []
        self.handle: asyncio.TimerHandle | None = None  # the loop's timer, for the earliest entry
        self.at = math.inf  # when it is set for
        self.n = 0
        self.cancelled = 0

    def call_later(self, delay: float, callback: Callable[[], object]) -> list:
        """``loop.call_later(delay, callback)``; returns the entry that ``cancel`` takes."""
        when = self.loop.time() + delay
        self.n += 1
        entry = [when, self.n, callback]
        heappush(self.heap, entry)
        if when < self.at:
            if self.handle is not None:
                self.handle.cancel()
            self.at = when
            self.handle = self.loop.call_at(when, self._fire)
        return entry

    def cancel(self, entry: list) -> None:
        if entry[2] is not _CANCELLED:
            entry[2] = _CANCELLED
            self.cancelled += 1
            if self.cancelled > _REBUILD_MIN and 2 * self.cancelled > len(self.heap):
                self.heap = [e for e in self.heap if e[2] is not _CANCELLED]
                heapify(self.heap)
                self.cancelled = 0

    def _fire(self) -> None:
        # The loop ran this timer for ``at`` (perhaps a little before its clock reads it): every entry due
        # by then is due now, as its own loop timer would be.
        heap, until = self.heap, max(self.at, self.loop.time())
        self.handle, self.at = None, math.inf
        due = []
        while heap and heap[0][0] <= until:
            entry = heappop(heap)
            if entry[2] is _CANCELLED:
                self.cancelled -= 1
            else:
                due.append(entry[2])
                entry[2] = _CANCELLED  # a cancel after it ran changes nothing
        if heap:
            self.at = heap[0][0]
            self.handle = self.loop.call_at(self.at, self._fire)
        for callback in due:
            try:
                callback()
            except Exception as e:  # as the loop reports a failing callback: the others still run
                self.loop.call_exception_handler({"message": f"timer callback {callback!r} failed",
                                                  "exception": e})


_heaps: dict[asyncio.AbstractEventLoop, TimerHeap] = {}


def timer_heap() -> TimerHeap:
    """The running loop's heap (the heaps of closed loops are dropped here)."""
    loop = asyncio.get_running_loop()
    heap = _heaps.get(loop)
    if heap is None:
        for old in [x for x in _heaps if x.is_closed()]:
            del _heaps[old]
        heap = _heaps[loop] = TimerHeap(loop)
    return heap
