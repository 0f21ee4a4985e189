"""Benchmark game.shanten against the reference (PyMahjongGB) on the same random hands.

Run: ``.venv/bin/python bench/shanten.py [--hands N] [--seed S] [--rounds R] [--smoke]``. For each pair of functions it
prints calls/s for ours and the reference and the ratio ours/reference. Our caches are warmed on
other random hands first (the steady state of a long-running server), then both sides are timed
on fresh hands, interleaved in chunks, keeping each side's best chunk time to damp machine noise.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from game import shanten as S  # noqa: E402
from game.tiles import to_reference  # noqa: E402

WALL = [t for t in range(34) for _ in range(4)]


def random_hands(rng: random.Random, n: int, melds: int) -> list[tuple[int, ...]]:
    return [tuple(sorted(rng.sample(WALL, 13 - 3 * melds))) for _ in range(n)]


def timed(fn, args_list) -> float:
    start = time.perf_counter()
    for args in args_list:
        fn(*args)
    return time.perf_counter() - start


def compare(name, ours, ours_args, ref, ref_args, rounds: int, chunk: int) -> None:
    best_ours = best_ref = float("inf")
    for _ in range(rounds):
        for lo in range(0, len(ours_args), chunk):
            best_ours = min(best_ours, timed(ours, ours_args[lo : lo + chunk]))
            if ref is not None:
                best_ref = min(best_ref, timed(ref, ref_args[lo : lo + chunk]))
    ours_rate = chunk / best_ours
    line = f"{name:<28} ours {ours_rate:>10,.0f}/s"
    if ref is not None:
        ref_rate = chunk / best_ref
        line += f"   reference {ref_rate:>10,.0f}/s   ratio {ours_rate / ref_rate:5.2f}"
    print(line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--smoke", action="store_true", help="smallest sizes, a few seconds (tests/test_bench_smoke.py)")
    args = ap.parse_args()
    if args.smoke:
        args.hands, args.rounds = 1000, 1
    try:
        import MahjongGB as R
    except ImportError:
        R = None
        print("reference (pymahjonggb) not installed: timing ours only")

    rng = random.Random(args.seed)
    chunk = 1000
    # Warm-up on other hands: cold-cache cost shows up once, then per-suit keys repeat.
    start = time.perf_counter()
    for melds in (0, 1, 2):
        for h in random_hands(rng, args.hands, melds):
            S.useful_tiles(h, melds)
            S.shanten(h, melds)
    print(f"warm-up (cold caches): {3 * args.hands} hands in {time.perf_counter() - start:.2f} s")

    hands = random_hands(rng, args.hands, 0)
    ref_hands = [tuple(to_reference(t) for t in h) for h in hands]
    ours = [(h, 0) for h in hands]
    ref1 = [(h,) for h in ref_hands]
    g = (lambda name: getattr(R, name)) if R else (lambda name: None)
    compare("shanten (all forms)", S.shanten, ours, g("MahjongShanten"), [((), h) for h in ref_hands], args.rounds, chunk)
    compare("regular shanten + useful", S.regular_useful, ours, g("RegularShanten"), ref1, args.rounds, chunk)
    compare("组合龙 shanten + useful", S.knitted_straight_useful, ours, g("KnittedStraightShanten"), ref1, args.rounds, chunk)
    compare("七对 shanten + useful", lambda h, k: S.seven_pairs_useful(h), ours, g("SevenPairsShanten"), ref1, args.rounds, chunk)
    if R:
        forms = (R.RegularShanten, R.SevenPairsShanten, R.ThirteenOrphansShanten,
                 R.HonorsAndKnittedTilesShanten, R.KnittedStraightShanten)

        def ref_all(h):
            return [f(h) for f in forms]
    compare("useful_tiles vs 5 forms", S.useful_tiles, ours, ref_all if R else None, ref1, args.rounds, chunk)

    meld_hands = random_hands(rng, args.hands, 2)
    pack = (("PENG", "F1", 1), ("PENG", "F2", 1))
    compare(
        "shanten, 2 melds", S.shanten, [(h, 2) for h in meld_hands],
        g("MahjongShanten"), [(pack, tuple(to_reference(t) for t in h)) for h in meld_hands], args.rounds, chunk,
    )


if __name__ == "__main__":
    main()
