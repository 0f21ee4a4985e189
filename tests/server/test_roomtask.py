"""The room task's wait for its next item: queue items first, a tick when the room's deadline comes, one
timer re-armed only when the deadline comes earlier than the one it was armed for."""

import asyncio
import logging

from server.roomtask import RoomTask
from server.taskfail import Failures


class FakeRoom:
    def __init__(self, deadline):
        self.deadline = deadline

    def next_deadline(self):
        return self.deadline


def waiting_task(deadline):
    """A RoomTask with only what _next_item uses; the clock is the loop's."""
    loop = asyncio.get_running_loop()
    t = RoomTask.__new__(RoomTask)
    t.app = type("App", (), {"now": staticmethod(loop.time)})()
    t.room = FakeRoom(deadline)
    t.queue = asyncio.Queue()
    t._timer, t._timer_at = None, 0.0
    t.failures = Failures(logging.getLogger("test"), "room", "room", "r")
    armed = []
    real = loop.call_later

    def call_later(delay, cb, *args):
        if cb == t._wake:
            armed.append(delay)
        return real(delay, cb, *args)

    loop.call_later = call_later
    return t, armed


async def test_items_first_then_a_tick_at_the_deadline():
    loop = asyncio.get_running_loop()
    t, armed = waiting_task(loop.time() + 0.1)
    try:
        t.put(("chat", 1))
        assert await t._next_item() == ("chat", 1)  # an item waiting goes before the timer
        start = loop.time()
        assert await t._next_item() == ("tick",)
        assert loop.time() - start >= 0.09 and len(armed) == 1
        t.room.deadline = loop.time() - 1  # overdue: a tick at once, no timer
        assert await t._next_item() == ("tick",) and len(armed) == 1
    finally:
        del loop.call_later


async def test_a_later_deadline_keeps_the_timer_and_an_earlier_one_rearms_it():
    loop = asyncio.get_running_loop()
    t, armed = waiting_task(loop.time() + 0.05)
    try:
        waiting = asyncio.create_task(t._next_item())
        await asyncio.sleep(0.01)
        t.room.deadline = loop.time() + 0.2  # the deadline moved later: the armed timer stays
        t.put(("chat", 1))
        assert await waiting == ("chat", 1)
        start = loop.time()
        assert await t._next_item() == ("tick",)  # woken early once, it waited on for the real deadline
        assert loop.time() - start >= 0.17
        assert len(armed) == 2  # the first timer, and one more after it woke the task early
        t.room.deadline = loop.time() + 5.0
        waiting = asyncio.create_task(t._next_item())
        await asyncio.sleep(0.01)
        t.room.deadline = loop.time() + 0.05  # earlier than armed: armed again at once
        t.put(("chat", 2))
        assert await waiting == ("chat", 2)
        start = loop.time()
        assert await t._next_item() == ("tick",)
        assert loop.time() - start < 1.0 and len(armed) == 4
    finally:
        del loop.call_later
