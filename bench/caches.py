"""The in-process caches of game/ and rooms/: how full they get, how often they hit, what they weigh.

    python bench/caches.py [--actions 200000] [--bot-hands 2000] [--seed 1] [--smoke]

Plays bench/room_cpu.py's room (four human seats answering random legal actions, so hints are built
for every seat) for ``--actions`` actions and bench/bots.py's bot-only hands for ``--bot-hands`` hands,
then lists every ``functools.lru_cache`` of the game and rooms packages: entries (and bound), hits,
misses, hit rate and bytes. Bytes are measured, not estimated: tracemalloc's traced memory falls by
that much when the cache is cleared. "full" is the weight at the bound (bytes per entry × bound); the
sum of those is what the caches can ever hold, the figure that bounds the server's resident size.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bots import make_bots, play_hand  # noqa: E402
from bench.room_cpu import RoomDriver  # noqa: E402
from game.rules import Rules  # noqa: E402


def caches() -> list[tuple[str, object]]:
    """Every lru_cache wrapper defined at module level in game/ and rooms/, by qualified name."""
    found = {}
    for name, mod in list(sys.modules.items()):
        if not mod or not name.split(".")[0] in ("game", "rooms"):
            continue
        for attr, fn in vars(mod).items():
            if callable(fn) and hasattr(fn, "cache_info") and getattr(fn, "__module__", None) == name:
                found[f"{name}.{attr}"] = fn
    return sorted(found.items())


def rebound(scale: float) -> None:
    """Every bounded cache re-made with ``scale`` × its bound (an experiment: which bound is enough),
    wherever a module holds it."""
    import functools
    for name, fn in caches():
        bound = fn.cache_info().maxsize
        if bound is None:
            continue
        new = functools.lru_cache(maxsize=max(16, int(bound * scale)))(fn.__wrapped__)
        for mod in list(sys.modules.values()):
            d = getattr(mod, "__dict__", None)
            if d:
                for k, v in list(d.items()):
                    if v is fn:
                        d[k] = new


def weigh(fn) -> int:
    """Bytes the cache holds: the traced memory it frees when cleared."""
    before = tracemalloc.get_traced_memory()[0]
    fn.cache_clear()
    return max(0, before - tracemalloc.get_traced_memory()[0])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--actions", type=int, default=200_000)
    p.add_argument("--bot-hands", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--smoke", action="store_true", help="a few seconds: 2,000 actions and 20 bot hands")
    p.add_argument("--no-weigh", action="store_true", help="skip tracemalloc (CPU figures untraced)")
    p.add_argument("--scale", type=float, default=1.0, help="try every bound × this (an experiment)")
    args = p.parse_args(argv)
    if args.smoke:
        args.actions, args.bot_hands = 2000, 20
    if args.scale != 1.0:
        rebound(args.scale)
    if not args.no_weigh:
        tracemalloc.start()
    t0 = time.perf_counter()
    c0 = time.process_time()
    driver = RoomDriver(args.seed)
    while driver.actions < args.actions:
        driver.step()
    rules = Rules()
    bots = make_bots("fan", args.seed, rules.min_fan)
    times: list = []
    for i in range(args.bot_hands):
        play_hand(rules, args.seed * 1_000_003 + i, i, bots, times)
    played = time.perf_counter() - t0
    cpu = time.process_time() - c0
    print(f"{driver.actions} room actions (random human seats) and {args.bot_hands} bot hands in {played:.0f} s, "
          f"{cpu:.1f} s CPU{'' if args.no_weigh else ' (traced)'}, bounds × {args.scale}")
    print(f"{'cache':44s} {'entries':>8s} {'bound':>8s} {'hit %':>6s} {'KiB':>8s} {'B/entry':>8s} {'full MiB':>9s}")
    total = total_full = 0
    for name, fn in caches():
        info = fn.cache_info()
        size = 0 if args.no_weigh else weigh(fn)
        per = size / info.currsize if info.currsize else 0
        bound = info.maxsize if info.maxsize is not None else None
        full = per * bound if bound else None
        calls = info.hits + info.misses
        rate = 100 * info.hits / calls if calls else 0
        total += size
        total_full += full or size
        print(f"{name:44s} {info.currsize:8d} {bound if bound else 'none':>8} {rate:6.1f} {size / 1024:8.0f} "
              f"{per:8.0f} {(full / 2**20) if full else float('nan'):9.1f}")
    print(f"caches now: {total / 2**20:.1f} MiB; at their bounds: {total_full / 2**20:.1f} MiB "
          f"(unbounded ones counted at their present size)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
