"""server.gctune: what the server makes is frozen on a clock without being walked; a full sweep only when
the process has grown by a quarter since the last one, and not more often than allowed."""

import asyncio
import gc
import weakref

from server import gctune


class Node:
    def __init__(self):
        self.other = None


def test_young_freezes_what_was_made_without_collecting():
    try:
        gc.collect()
        frozen = gc.get_freeze_count()
        keep = [Node() for _ in range(100)]
        gctune.young()
        assert gc.get_freeze_count() >= frozen + 100
        assert gc.get_count()[0] == 0  # nothing young left for an automatic collection to walk
        assert all(gc.is_tracked(n) for n in keep)
    finally:
        gc.unfreeze()


def test_sweep_finds_a_cycle_that_died_after_it_was_frozen():
    try:
        a, b = Node(), Node()
        a.other, b.other = b, a
        gctune.young()
        del a, b
        assert gctune.sweep() >= 2
    finally:
        gc.unfreeze()


def _dropped_cycle() -> weakref.ref:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_young_frees_what_short_connections_left_instead_of_freezing_it():
    """A connection that ended since the last freeze leaves cycles (asyncio's transport, websockets'
    protocol): they are collected at the freeze, not frozen for a sweep that may be minutes away."""
    try:
        gc.collect()
        gctune.young()
        dead = _dropped_cycle()
        gctune.connection_ended()
        assert gctune.young() >= 2
        assert dead() is None
        dead = _dropped_cycle()
        gctune.young()  # no connection ended since: frozen without a walk
        assert dead() is not None
    finally:
        gc.unfreeze()
        gc.collect()


def test_young_does_not_walk_many_young_objects_for_one_connection():
    try:
        gc.collect()
        gctune.young()
        keep = [Node() for _ in range(2 * gctune.GARBAGE_PER_CONNECTION * gctune.WALK_RATIO)]  # noqa: F841
        dead = _dropped_cycle()
        gctune.connection_ended()
        assert gctune.young() == 0
        assert dead() is not None  # frozen: left to the sweep
    finally:
        gc.unfreeze()
        gc.collect()


def test_resident_bytes_is_the_size_of_a_live_process():
    assert 1 << 20 < gctune.resident_bytes() < 1 << 40


async def _calls_in(monkeypatch, seconds: float, sizes, **kw) -> list[str]:
    calls = []
    monkeypatch.setattr(gctune, "young", lambda: calls.append("young"))
    monkeypatch.setattr(gctune, "sweep", lambda: calls.append("sweep"))
    sizes = iter(sizes)
    task = asyncio.create_task(gctune.run(size=lambda: next(sizes), freeze_every=0.01, **kw))
    await asyncio.sleep(seconds)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return calls


async def test_run_freezes_often_and_sweeps_only_after_growth(monkeypatch):
    flat = await _calls_in(monkeypatch, 0.3, [100] * 1000, sweep_every=0.05, check_every=0.02)
    assert flat.count("young") >= 10
    assert "sweep" not in flat  # no growth, no pause
    # 100 at the start; 130 at the first look (a quarter more: sweep), 110 after it; 120 is not enough
    # more than 110, 140 is; every look after that sees 140 (no more growth).
    sizes = [100, 130, 110, 120, 140] + [140] * 1000
    grown = await _calls_in(monkeypatch, 0.5, sizes, sweep_every=0.1, check_every=0.02)
    assert grown.count("sweep") == 2
    first, second = [i for i, c in enumerate(grown) if c == "sweep"]
    assert second - first >= 8  # not before sweep_every has gone by again (0.1 s of 0.01-s freezes)
