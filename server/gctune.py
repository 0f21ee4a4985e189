"""Garbage-collector settings for a process holding thousands of connections and rooms (issue 8).

Every action replaces its room's game state, so at any moment about one state per table is young and
alive: each collection of the young generations walks all of them. With CPython's automatic young
collections that cost up to ~50 ms (generation 0) and ~60-120 ms (generation 1, which found nothing
to free) at 1,000 tables, and those pauses set the p99 latency. Instead ``run`` collects generation 0
every ``YOUNG_EVERY`` seconds, so each pause covers only what the last tenth of a second made,
and then freezes (``gc.freeze``) what survived, so no later collection walks it again. Automatic
collections stay on with a high threshold, as a safety net for bursts (start-up, mass reconnects).

A cycle that dies after it was frozen is found only by ``sweep``: every ``Limits.gc_every`` seconds a
full collection of everything, frozen objects included, then everything left is frozen again. That
is one pause proportional to the heap every 10 minutes. Long-lived cycles (connections, rooms) were
reclaimed only by that sweep before this change too (they reached the oldest generation, whose
automatic collections practically never run).
"""

from __future__ import annotations

import asyncio
import gc

THRESHOLDS = (50_000, 10, 10_000)
# Seconds between young collections (``run``). Each walks what was made since the last one and still
# lives; the longer the wait, the more of it (replaced game states, sent messages) has died by then:
# every 25 ms took ~8 % of the server's CPU under saturation; every 100 ms gives ~5 % more actions a
# second there, with pauses of a few ms at 2,500 tables.
YOUNG_EVERY = 0.1


def tune() -> None:
    """At start-up: the thresholds, then everything built so far out of the collector's scans."""
    gc.set_threshold(*THRESHOLDS)
    gc.collect()
    gc.freeze()


def young() -> int:
    """Collect generation 0, then freeze what survived it; returns the number of unreachable objects
    found. A pause proportional to what was made, and is still alive, since the last call."""
    found = gc.collect(0)
    gc.freeze()
    return found


def sweep() -> int:
    """Now and then (``Limits.gc_every``): a full collection of everything, frozen objects included (a
    cycle that died after it was frozen is found only this way), then freeze what is left. One pause
    proportional to the heap; returns the number of unreachable objects found."""
    gc.unfreeze()
    found = gc.collect()
    gc.freeze()
    return found


async def run(sweep_every: float, young_every: float = YOUNG_EVERY) -> None:
    """The server's collector, until cancelled: ``young`` every ``young_every`` seconds, ``sweep`` every
    ``sweep_every`` seconds."""
    loop = asyncio.get_running_loop()
    next_sweep = loop.time() + sweep_every
    while True:
        await asyncio.sleep(young_every)
        if loop.time() >= next_sweep:
            sweep()
            next_sweep = loop.time() + sweep_every
        else:
            young()
