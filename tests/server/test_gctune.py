"""server.gctune: young collections on a clock, their survivors frozen; a full sweep now and then."""

import asyncio
import gc

from server import gctune


class Node:
    def __init__(self):
        self.other = None


def test_young_frees_young_cycles_and_freezes_what_survives():
    try:
        gc.collect()
        frozen = gc.get_freeze_count()
        keep = [Node() for _ in range(100)]  # alive: frozen by young()
        a, b = Node(), Node()
        a.other, b.other = b, a
        del a, b  # a young cycle, unreachable
        found = gctune.young()
        assert found >= 2
        assert gc.get_freeze_count() >= frozen + 100
        assert gc.get_count()[0] < 50  # nothing young left to walk
        assert all(gc.is_tracked(n) for n in keep)
    finally:
        gc.unfreeze()


async def test_run_collects_the_young_often_and_sweeps_now_and_then(monkeypatch):
    calls = []
    monkeypatch.setattr(gctune, "young", lambda: calls.append("young"))
    monkeypatch.setattr(gctune, "sweep", lambda: calls.append("sweep"))
    task = asyncio.create_task(gctune.run(sweep_every=0.2, young_every=0.02))
    await asyncio.sleep(0.5)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert calls.count("young") >= 8
    assert 1 <= calls.count("sweep") <= 3
