"""server.gctune: what the server makes is frozen on a clock without being walked; a full sweep only when
the connections that ended left frozen garbage of about a quarter of the live heap (live growth alone never
calls for one), and not more often than allowed."""

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


def test_sweep_is_not_due_for_live_growth_without_ended_connections():
    """A server going from idle to 2,500 busy tables grows by a third with nothing to free: no sweep
    (a pause of ~1 s at that size). Frozen garbage of a quarter of the live heap calls for one."""
    mib = 1 << 20
    assert not gctune.sweep_due(0, 290 * mib)
    assert not gctune.sweep_due(10 * mib, 290 * mib)
    assert gctune.sweep_due(60 * mib, 290 * mib)  # 60 of 230 MiB alive: a quarter
    assert gctune.sweep_due(1, 0)  # anything when nothing else is there


def test_frozen_garbage_counts_connections_ended_since_the_sweep_but_not_those_freed_young():
    try:
        gctune.young()  # what earlier tests counted as ended
        gctune.sweep()
        assert gctune.frozen_garbage() == 0
        _dropped_cycle()  # a connection that ended after its cycles were frozen
        gctune.young()
        gctune.connection_ended()
        gctune.young()  # walks (a connection ended) but finds nothing: the cycle is frozen
        assert gctune.frozen_garbage() == gctune.GARBAGE_BYTES_PER_CONNECTION
        for _ in range(gctune.GARBAGE_PER_CONNECTION // 2):
            _dropped_cycle()  # a short connection's cycles (two objects each), freed young
        gctune.connection_ended()
        assert gctune.young() >= gctune.GARBAGE_PER_CONNECTION
        assert gctune.frozen_garbage() == gctune.GARBAGE_BYTES_PER_CONNECTION
        assert gctune.sweep() >= 2
        assert gctune.frozen_garbage() == 0
    finally:
        gc.unfreeze()
        gc.collect()


async def _calls_until(monkeypatch, enough, sizes, **kw) -> list[tuple[str, float]]:
    """(call, loop time) of each young() and sweep() the collector makes until ``enough(calls)``: counted,
    not timed, so a loaded machine's late wake-ups make the run longer, not different."""
    loop = asyncio.get_running_loop()
    calls: list[tuple[str, float]] = []
    done = loop.create_future()

    def call(name):
        calls.append((name, loop.time()))
        if enough(calls) and not done.done():
            done.set_result(None)

    monkeypatch.setattr(gctune, "young", lambda: call("young"))
    monkeypatch.setattr(gctune, "sweep", lambda: call("sweep"))
    sizes = iter(sizes)
    task = asyncio.create_task(gctune.run(size=lambda: next(sizes), freeze_every=0.01, **kw))
    try:
        await asyncio.wait_for(asyncio.shield(done), 30)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    return calls


def _names(calls) -> list[str]:
    return [c for c, _ in calls]


async def test_run_does_not_sweep_for_live_growth_without_ended_connections(monkeypatch):
    """The process grows fourfold (tables filling up) and no connection ends: no sweep (30 freezes,
    0.3 s or more, the size looked at every 0.02 s after the first 0.05 s)."""
    monkeypatch.setattr(gctune, "frozen_ended", 0, raising=False)
    growing = await _calls_until(monkeypatch, lambda calls: len(calls) >= 30, [100 << 20] + [400 << 20] * 1000,
                                 sweep_every=0.05, check_every=0.02)
    assert _names(growing) == ["young"] * 30


async def test_run_sweeps_when_ended_connections_left_garbage_at_most_every_sweep_every(monkeypatch):
    mib = 1 << 20
    monkeypatch.setattr(gctune, "frozen_ended", 0, raising=False)
    flat = await _calls_until(monkeypatch, lambda calls: len(calls) >= 30, [100 * mib] * 1000,
                              sweep_every=0.05, check_every=0.02)
    assert _names(flat) == ["young"] * 30  # nothing ended, no pause
    # ~25 MiB of frozen garbage in 100 MiB: due at every look, but only every sweep_every.
    monkeypatch.setattr(gctune, "frozen_ended", 25 * mib // gctune.GARBAGE_BYTES_PER_CONNECTION)
    due = await _calls_until(monkeypatch, lambda calls: _names(calls).count("sweep") >= 3, [100 * mib] * 1000,
                             sweep_every=0.1, check_every=0.02)
    sweeps = [t for c, t in due if c == "sweep"]
    assert all(b - a >= 0.1 for a, b in zip(sweeps, sweeps[1:]))  # on the clock: not counted in freezes


def test_watch_pauses_tells_each_collection_until_stopped():
    seen = []
    stop = gctune.watch_pauses(lambda generation, seconds: seen.append((generation, seconds)))
    try:
        gc.collect(0)
        gc.collect(2)
    finally:
        stop()
    assert [g for g, _ in seen][-2:] == [0, 2]
    assert all(s >= 0 for _, s in seen)
    n = len(seen)
    gc.collect()
    assert len(seen) == n
    stop()  # twice: nothing


def test_young_does_not_walk_for_connections_made_before_the_last_freeze():
    """A mass disconnect of long-lived connections: their cycles are frozen, so a walk of the young
    objects would find nothing (at 10,000 connections it took 120-195 ms). They go to the sweep's count."""
    seen = []
    try:
        gctune.young()
        gctune.sweep()
        born = gctune.freezes
        keep = [Node() for _ in range(100)]  # noqa: F841  what a busy server made since
        gctune.young()  # the connection outlives a freeze
        stop = gctune.watch_pauses(lambda generation, seconds: seen.append(generation))
        try:
            for _ in range(1000):
                gctune.connection_ended(born)
            assert gctune.young() == 0
        finally:
            stop()
        assert seen == []  # not walked
        assert gctune.frozen_garbage() == 1000 * gctune.GARBAGE_BYTES_PER_CONNECTION
    finally:
        gc.unfreeze()
        gc.collect()
