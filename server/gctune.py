"""Garbage-collector settings for a process holding thousands of connections and rooms (issue 8).

Every action replaces its room's game state, so at any moment about one state per table is young and
alive. CPython's automatic young collections walked all of them, again and again, and found nothing to
free: what the server makes is freed by reference counting alone, except the few reference cycles
websockets and asyncio leave behind a connection that dropped (docs/performance.md). Walking them all
again and again would cost CPU in proportion to the number of tables, and pauses of milliseconds.

So ``run`` only freezes (``gc.freeze``, constant time) every ``FREEZE_EVERY`` seconds: what was made
since goes out of the collector's sight without being walked. Reference counting still frees it. A cycle
that dies after it was frozen is found only by ``sweep``, a full collection with a pause proportional to
the heap (~1 s at 2,500 tables). The only such cycles known are those ended connections leave (below),
so the sweep runs when the connections that ended since the last one left frozen garbage of about
``SWEEP_SHARE`` of the live heap (``sweep_due``), and at most every ``Limits.gc_every`` seconds: leaked
cycles cost at most about a quarter more memory. Growth alone never calls for a sweep: a server that
goes from idle to 2,500 busy tables grows by a third with nothing to free, and a sweep then would be a
second-long pause for nothing. Automatic collections stay on with a high threshold, as a safety net
for bursts (start-up, mass reconnects) between two freezes.

Every connection that ends leaves two cycles behind that no public API breaks: asyncio's socket
transport holding its own bound read callback, and websockets' protocol holding its parser (a generator
left suspended after the end of the stream, whose frame holds the protocol). ~2.4 KiB of resident size
a connection: a client opening thousands of short HTTP connections a second had all of it frozen, and
the process grew by ~140 MiB in 20 s with no sweep allowed. So ``young`` first collects what was made
since the last freeze (only that is walked: everything older is frozen) when the connections that ended
since (``ended``, counted by server.wsconn) left garbage enough to pay for the walk. A connection made
since the last freeze is then freed at once; one made before it is left to ``sweep`` without a walk
(its cycles are frozen: a walk of the young objects would find nothing).
"""

from __future__ import annotations

import asyncio
import gc
import resource
import time
from collections.abc import Callable

THRESHOLDS = (50_000, 10, 10_000)
FREEZE_EVERY = 0.1  # seconds
CHECK_EVERY = 10.0  # seconds between looks at the frozen garbage, once a sweep is allowed
# ``young`` walks the young objects when the connections that ended since the last freeze left at least
# one object of garbage for every WALK_RATIO young objects: a flood of short connections is collected at
# every freeze (~1 ms at ~150 connections), a busy server that sees few connections end keeps freezing
# without walking (at saturation ~33,000 young objects a freeze, 7-16 ms to walk).
GARBAGE_PER_CONNECTION = 20  # objects in the two cycles and what they hold, about
WALK_RATIO = 10
GARBAGE_BYTES_PER_CONNECTION = 2_400  # their resident size, about (below)
SWEEP_SHARE = 0.25  # frozen garbage, as a share of the live heap, that calls for a sweep

ended = 0  # connections made and lost since the last ``young`` (server.wsconn counts them)
frozen_ended = 0  # connections whose cycles were frozen since the last ``sweep`` (an estimate)
freezes = 0  # ``young`` calls so far: a connection made before the last one has its cycles frozen


def connection_ended(born: int | None = None) -> None:
    """A connection was lost; ``born``: ``freezes`` when it was made (None: taken as made since the last
    freeze). Only a young connection's cycles are worth a walk of the young objects: a mass disconnect
    of long-lived ones would walk everything made since the last freeze and find nothing."""
    global ended, frozen_ended
    if born is None or born == freezes:
        ended += 1
    else:
        frozen_ended += 1


def tune() -> None:
    """At start-up: the thresholds, then everything built so far out of the collector's scans."""
    gc.set_threshold(*THRESHOLDS)
    gc.collect()
    gc.freeze()


def young() -> int:
    """Put everything made since the last call out of the collector's scans; first collect it (walking
    only it: everything older is frozen) if the connections that ended since left enough garbage.
    Returns the number of unreachable objects found (0 when it did not walk)."""
    global ended, frozen_ended, freezes
    found = 0
    if ended and ended * GARBAGE_PER_CONNECTION * WALK_RATIO >= gc.get_count()[0]:
        found = gc.collect(1)
    # What was found is freed; the rest of those connections (the ones older than the last freeze) is frozen.
    frozen_ended += max(0, ended - found // GARBAGE_PER_CONNECTION)
    ended = 0
    gc.freeze()
    freezes += 1
    return found


def sweep() -> int:
    """A full collection of everything, frozen objects included (a cycle that died after it was frozen
    is found only this way), then freeze what is left. One pause proportional to the heap; returns the
    number of unreachable objects found."""
    global frozen_ended
    gc.unfreeze()
    found = gc.collect()
    gc.freeze()
    frozen_ended = 0
    return found


def frozen_garbage() -> int:
    """Bytes of frozen garbage since the last sweep, about: the cycles of the connections that ended."""
    return frozen_ended * GARBAGE_BYTES_PER_CONNECTION


def sweep_due(garbage: int, resident: int, share: float = SWEEP_SHARE) -> bool:
    """Whether ``garbage`` bytes (``frozen_garbage``) in a process of ``resident`` bytes are worth a
    full collection's pause: at least ``share`` of what is alive. How much the process grew does not
    count: live memory is not garbage."""
    return garbage > 0 and garbage >= share * (resident - garbage)


def resident_bytes() -> int:
    """The process's resident size now (Linux), or its peak where /proc is not there."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def watch_pauses(observe: Callable[[int, float], None]) -> Callable[[], None]:
    """Call ``observe(generation, seconds)`` after every collection, automatic or not (the event loop
    stood still that long). Returns the function that stops it."""
    began = 0.0

    def hook(phase: str, info: dict) -> None:
        nonlocal began
        if phase == "start":
            began = time.perf_counter()
        else:
            observe(info["generation"], time.perf_counter() - began)

    gc.callbacks.append(hook)

    def stop() -> None:
        if hook in gc.callbacks:
            gc.callbacks.remove(hook)
    return stop


async def run(sweep_every: float, freeze_every: float = FREEZE_EVERY, check_every: float = CHECK_EVERY,
              size=resident_bytes, share: float = SWEEP_SHARE,
              on_pause: Callable[[int, float], None] | None = None) -> None:
    """The server's collector, until cancelled: ``young`` every ``freeze_every`` seconds; ``sweep`` when
    the frozen garbage is due (``sweep_due``), looked at every ``check_every`` seconds, at most every
    ``sweep_every`` seconds. ``on_pause``: told of every collection meanwhile (``watch_pauses``)."""
    stop = watch_pauses(on_pause) if on_pause is not None else None
    try:
        await _run(sweep_every, freeze_every, check_every, size, share)
    finally:
        if stop is not None:
            stop()


async def _run(sweep_every: float, freeze_every: float, check_every: float, size, share: float) -> None:
    loop = asyncio.get_running_loop()
    check_at = loop.time() + sweep_every
    while True:
        await asyncio.sleep(freeze_every)
        young()
        now = loop.time()
        if now < check_at:
            continue
        if sweep_due(frozen_garbage(), size(), share):
            sweep()
            check_at = loop.time() + sweep_every
        else:
            check_at = now + check_every
