"""The loop's one heap of room timers (server.timerheap): callbacks at their times, in order, cancelled
ones never; one loop timer for the earliest; cancelled entries rebuilt away."""

import asyncio

from server import timerheap
from server.timerheap import timer_heap


async def test_callbacks_run_at_their_times_in_order_and_cancelled_ones_never():
    loop = asyncio.get_running_loop()
    heap, ran = timer_heap(), []
    start = loop.time()
    heap.call_later(0.06, lambda: ran.append(("c", loop.time())))
    heap.call_later(0.02, lambda: ran.append(("a", loop.time())))
    gone = heap.call_later(0.01, lambda: ran.append(("cancelled", loop.time())))
    heap.call_later(0.04, lambda: ran.append(("b", loop.time())))
    heap.call_later(0.04, lambda: ran.append(("b2", loop.time())))  # same time: in the order set
    heap.cancel(gone)
    while len(ran) < 4:
        await asyncio.sleep(0.01)
    assert [k for k, _ in ran] == ["a", "b", "b2", "c"]
    for (_, t), delay in zip(ran, (0.02, 0.04, 0.04, 0.06)):
        assert t >= start + delay - 0.002  # never early (the loop's own clock resolution aside)
    assert heap.heap == [] and heap.handle is None


async def test_an_earlier_entry_moves_the_one_loop_timer():
    loop = asyncio.get_running_loop()
    heap, ran = timer_heap(), []
    heap.call_later(5.0, lambda: ran.append("late"))
    first = heap.handle
    heap.call_later(0.01, lambda: ran.append("early"))
    assert first.cancelled() and heap.handle.when() < first.when()
    later = heap.handle
    heap.call_later(1.0, lambda: ran.append("between"))
    assert heap.handle is later  # not earlier: the loop timer stays
    while not ran:
        await asyncio.sleep(0.01)
    assert ran == ["early"] and heap.at > loop.time()  # set again, for the next entry
    for entry in list(heap.heap):
        heap.cancel(entry)


async def test_cancelled_entries_are_rebuilt_away_when_they_are_half_the_heap(monkeypatch):
    monkeypatch.setattr(timerheap, "_REBUILD_MIN", 3)
    heap = timer_heap()
    entries = [heap.call_later(10.0 + i, lambda: None) for i in range(10)]
    for e in entries[:5]:
        heap.cancel(e)
    assert len(heap.heap) == 10 and heap.cancelled == 5  # half, not more
    heap.cancel(entries[5])
    assert len(heap.heap) == 4 and heap.cancelled == 0
    assert sorted(e[0] for e in heap.heap) == [e[0] for e in entries[6:]]
    for e in entries[6:]:
        heap.cancel(e)


async def test_a_failing_callback_is_reported_and_the_others_run():
    loop = asyncio.get_running_loop()
    heap, ran, reported = timer_heap(), [], []
    loop.set_exception_handler(lambda loop, ctx: reported.append(ctx["exception"]))
    try:
        def broken():
            raise RuntimeError("broken")

        heap.call_later(0.01, broken)
        heap.call_later(0.01, lambda: ran.append(1))
        while not ran:
            await asyncio.sleep(0.01)
        assert ran == [1] and [str(e) for e in reported] == ["broken"]
    finally:
        loop.set_exception_handler(None)
