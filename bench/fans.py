"""Speed of our fan engine against the reference calculator, on the same random winning hands.

    python bench/fans.py [--hands 20000] [--seed 1] [--repeat 5] [--chunk 1000] [--smoke]

Hands are generated once (``tests.support.handgen``: valid winning hands of every form) and
converted to the reference's arguments outside the timed loops. Both engines then score the same
hands in the same run, ``--repeat`` times, alternating chunk by chunk (``--chunk`` hands); each
chunk's best time over the repeats counts, and the chunks' best times add up to the figure. Times
are CPU time of this process (``time.process_time``): other processes may share the CPU, and the
best of several runs of a chunk is the one they disturbed least. Prints hands per CPU-second for
both and our fraction of the reference's speed.

Our engine caches intermediate results (functools caches in ``game``). So that a repeat never
profits from having seen the measured hands before, every repeat starts by clearing all of those
caches and scoring a separate set of warm-up hands (another seed), untimed: the small-key caches
(per-suit splits and the like) are then as warm as in a long-running server, while caches on larger
keys only hold hands the measurement does not use (except true repeats of random hands). Every
repeat thus scores chunk k from the same cache state. The cold figure (cleared caches, no warm-up,
one pass) is printed as well.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root, for game.* and tests.*

from MahjongGB import MahjongFanCalculator  # noqa: E402

from game.scoring import score  # noqa: E402
from tests.support.handgen import winning_hands  # noqa: E402
from tests.support.reference import to_reference_args  # noqa: E402

_ARGS = ("pack", "hand", "winTile", "flowerCount", "isSelfDrawn", "is4thTile", "isAboutKong", "isWallLast",
         "seatWind", "prevalentWind")


def _hands(seed: int, n: int) -> tuple[list, list]:
    """(ours, reference's) arguments for n hands both engines accept."""
    ours, theirs = [], []
    for g in winning_hands(seed, n):
        a = to_reference_args(g.hand, g.ctx)
        args = tuple(a[k] for k in _ARGS)
        try:
            MahjongFanCalculator(*args)
        except TypeError:  # the reference rejects it (should not happen for generated hands)
            continue
        ours.append((g.hand, g.ctx))
        theirs.append(args)
    return ours, theirs


def _time_reference(hands: list) -> float:
    calc = MahjongFanCalculator
    start = time.process_time()
    for args in hands:
        calc(*args)
    return time.process_time() - start


def _time_ours(hands: list) -> float:
    start = time.process_time()
    for hand, ctx in hands:
        score(hand, ctx)
    return time.process_time() - start


def _clear_caches() -> None:
    """Empty every functools cache of the engine's modules."""
    for name, module in list(sys.modules.items()):
        if name != "game" and not name.startswith("game."):
            continue
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=1_000)
    parser.add_argument("--smoke", action="store_true", help="smallest sizes, a few seconds (tests/test_bench_smoke.py)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.hands, args.repeat, args.chunk = 300, 1, 100

    ours, theirs = _hands(args.seed, args.hands)
    warm_up, _ = _hands(args.seed + 1_000_003, args.hands)
    n = len(ours)
    chunks = [slice(i, i + args.chunk) for i in range(0, n, args.chunk)]
    _clear_caches()
    cold = _time_ours(ours)
    best_ref = [float("inf")] * len(chunks)
    best_ours = [float("inf")] * len(chunks)
    for _ in range(args.repeat):
        _clear_caches()
        _time_ours(warm_up)
        for k, chunk in enumerate(chunks):
            best_ref[k] = min(best_ref[k], _time_reference(theirs[chunk]))
            best_ours[k] = min(best_ours[k], _time_ours(ours[chunk]))
    ref_rate, our_rate = n / sum(best_ref), n / sum(best_ours)
    print(f"hands      {n:,} (seed {args.seed}; best of {args.repeat} per chunk of {args.chunk:,};"
          f" warm-up {len(warm_up):,} other hands)")
    print(f"reference  {ref_rate:12,.0f} hands/s")
    print(f"ours       {our_rate:12,.0f} hands/s   (cold caches, one pass: {n / cold:,.0f} hands/s)")
    print(f"ratio      {our_rate / ref_rate:12.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
