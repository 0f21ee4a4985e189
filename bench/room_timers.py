"""What moving the room tasks' timers costs, the way a saturated server moves them, without sockets.

    python bench/room_timers.py [--discards 20000] [--rooms 800] [--others 6400] [--smoke]

Per discard a room's timer is set earlier (its claim window ends before the turn would), then it fires
and sets itself for the turn deadline (server.timedqueue); here the firing is a cancel, and the loop
runs between plays. ``--others`` long timers stand for the connections' own (an idle timer and a ping
timer each, server.conn and server.wsconn), which share asyncio's heap. Counted with valgrind at two
sizes (docs/performance.md "A fifth pass"), the difference is the cost of the discards in between.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.timedqueue import TimedQueue  # noqa: E402


async def run(discards: int, rooms: int, others: int) -> float:
    loop = asyncio.get_running_loop()
    handles = [loop.call_later(1000 + i * 0.01, lambda: None) for i in range(others)]
    queues = [TimedQueue() for _ in range(rooms)]
    t0 = loop.time()
    for q in queues:
        q.arm(t0 + 75, t0)
    cpu = time.process_time()
    for i in range(discards):
        q, now = queues[i % rooms], loop.time()
        q.arm(now + 8, now)  # a discard: the claim window's deadline comes before the turn's
        q.stop()  # the timer fired (taken away here) ...
        q.arm(now + 75, now)  # ... and set itself for the turn deadline
        if i % 4 == 0:
            await asyncio.sleep(0)  # the loop runs between plays
    cpu = time.process_time() - cpu
    for q in queues:
        q.stop()
    for h in handles:
        h.cancel()
    return cpu


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--discards", type=int, default=20_000)
    ap.add_argument("--rooms", type=int, default=800)
    ap.add_argument("--others", type=int, default=6_400, help="other timers in the loop's heap")
    ap.add_argument("--smoke", action="store_true", help="smallest sizes (tests/test_bench_smoke.py)")
    args = ap.parse_args(argv)
    if args.smoke:
        args.discards, args.rooms, args.others = 400, 40, 100
    cpu = asyncio.run(run(args.discards, args.rooms, args.others))
    print(f"{args.discards} discards, {args.rooms} rooms, {args.others} other timers: "
          f"{1e6 * cpu / args.discards:.2f} µs CPU per discard")
    return 0


if __name__ == "__main__":
    sys.exit(main())
