"""A room task's queue (server.timedqueue): queue items first, a tick when the deadline comes, one timer
moved only when the deadline comes earlier than the time it is set for."""

import asyncio

import pytest

from server.timedqueue import TimedQueue
from server.timerheap import timer_heap


@pytest.fixture
async def timed():
    """A queue, the room's deadline (a one-item list the test moves) and the timers the queue set."""
    loop = asyncio.get_running_loop()
    q, deadline, armed = TimedQueue(), [None], []
    heap = timer_heap()  # the loop's heap of room timers, where the queue sets its timer
    real = heap.call_later

    def call_later(delay, cb):
        if getattr(cb, "__self__", None) is q:
            armed.append(delay)
        return real(delay, cb)

    heap.call_later = call_later
    try:
        yield q, deadline, armed, (lambda: q.next(lambda: deadline[0], loop.time))
    finally:
        q.stop()
        del heap.call_later


async def test_items_first_then_a_tick_at_the_deadline(timed):
    q, deadline, armed, next_item = timed
    loop = asyncio.get_running_loop()
    deadline[0] = loop.time() + 0.1
    q.put_nowait(("chat", 1))
    assert await next_item() == ("chat", 1)  # an item waiting goes before the timer
    assert await next_item() == ("tick",)
    assert loop.time() >= deadline[0] - 0.001 and len(armed) == 1  # not before the deadline
    deadline[0] = loop.time() - 1  # overdue: a tick at once, no timer
    assert await next_item() == ("tick",) and len(armed) == 1


async def test_no_deadline_waits_for_an_item_without_a_timer(timed):
    q, deadline, armed, next_item = timed
    waiting = asyncio.create_task(next_item())
    await asyncio.sleep(0.05)
    assert not waiting.done() and q.waiting  # the task waits on the empty queue
    q.put_nowait(("chat", 1))
    assert await waiting == ("chat", 1) and not q.waiting and armed == []


async def test_a_later_deadline_keeps_the_timer_and_an_earlier_one_rearms_it(timed):
    q, deadline, armed, next_item = timed
    loop = asyncio.get_running_loop()
    # (0.5 s: a loaded machine's 0.01 s sleep below still ends long before the first timer)
    deadline[0] = loop.time() + 0.5
    waiting = asyncio.create_task(next_item())
    await asyncio.sleep(0.01)
    deadline[0] = loop.time() + 1.0  # the deadline moved later: the timer set stays
    q.put_nowait(("chat", 1))
    assert await waiting == ("chat", 1)
    assert await next_item() == ("tick",)  # woken early once, it waited on for the real deadline
    assert loop.time() >= deadline[0] - 0.001
    assert len(armed) == 2  # the first timer, and one more after it woke the task early
    deadline[0] = loop.time() + 5.0
    waiting = asyncio.create_task(next_item())
    await asyncio.sleep(0.01)
    deadline[0] = loop.time() + 0.05  # earlier than the timer: set again at once
    q.put_nowait(("chat", 2))
    assert await waiting == ("chat", 2)
    start = loop.time()
    assert await next_item() == ("tick",)
    assert loop.time() - start < 1.0 and len(armed) == 4


async def test_a_timer_for_a_deadline_that_moved_later_does_not_wake_the_waiting_task(timed):
    q, deadline, armed, next_item = timed
    loop = asyncio.get_running_loop()
    gets = []
    real_get = q.get

    async def get():  # every time the waiting task is woken, it calls get again
        gets.append(loop.time())
        return await real_get()

    q.get = get
    first = loop.time() + 0.5
    deadline[0] = first
    waiting = asyncio.create_task(next_item())
    while not q.waiting:
        await asyncio.sleep(0)
    deadline[0] = first + 1.0  # a play moved the turn deadline later: the timer stays set for `first`
    while loop.time() < first + 0.2:  # the first timer has fired meanwhile
        await asyncio.sleep(0.05)
    assert len(armed) == 2 and not waiting.done()  # it set itself again for the new deadline ...
    assert len(gets) == 1  # ... without waking the task
    assert await waiting == ("tick",) and loop.time() >= deadline[0] - 0.001
    assert len(gets) == 1


async def test_a_deadline_that_fails_in_the_timer_is_met_by_the_waiting_task():
    """The room's deadline raising when the timer fires (a bug in the room) reaches the task that waits,
    which stops the room as a bug; it is not lost in the loop's callback log with the task asleep."""
    loop = asyncio.get_running_loop()
    q, calls = TimedQueue(), []

    def deadline():
        calls.append(1)
        if len(calls) > 1:  # fine when the task arms the timer, broken when the timer fires
            raise RuntimeError("room state broken")
        return loop.time() + 0.05

    try:
        with pytest.raises(RuntimeError, match="room state broken"):
            await asyncio.wait_for(q.next(deadline, loop.time), 2.0)
    finally:
        q.stop()
