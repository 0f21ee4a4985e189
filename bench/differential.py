"""Differential benchmark: our fan engine against the reference calculator on random winning hands.

    python bench/differential.py [--hands 1000000] [--seed 1] [--jobs N] [--smoke]

Prints how often totals and fan multisets agree, then the disagreements grouped by class (+id: a fan
only we score or score more often, -id: one only the reference scores; or our error code), each with
its count and one example. Hands come in chunks of 10,000 seeded from (seed, chunk), so results do
not depend on --jobs (default: all cores). Exits 1 when anything disagrees.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.support.*

from game.fans.table import FANS  # noqa: E402
from tests.support.handgen import compare, winning_hands  # noqa: E402

CHUNK = 10_000


def _run_chunk(job: tuple[int, int, int]) -> tuple[int, int, int, Counter, Counter, dict[str, str]]:
    """(hands, totals agreeing, fan multisets agreeing, classes, classes with equal totals, examples)."""
    seed, chunk, n = job
    same_total = same_fans = 0
    classes: Counter = Counter()
    tied: Counter = Counter()
    examples: dict[str, str] = {}
    for g in winning_hands(seed * 1_000_003 + chunk, n):
        d = compare(g.hand, g.ctx)
        if d is None:
            same_total += 1
            same_fans += 1
            continue
        same_total += d.same_total
        same_fans += d.error is None and d.ours == d.ref
        classes[d.kind] += 1
        tied[d.kind] += d.same_total
        examples.setdefault(d.kind, f"form:      {g.form} ({g.theme})\n{d}")
    return n, same_total, same_fans, classes, tied, examples


def _names(kind: str) -> str:
    """``+71 -70`` -> ``+连六 -喜相逢``; error classes unchanged."""
    if kind.startswith("error") or kind == "total only":
        return kind
    return " ".join(f"{tok[0]}{FANS[int(tok[1:])].name}" for tok in kind.split())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--show", type=int, default=30, help="classes printed with an example")
    parser.add_argument("--smoke", action="store_true", help="smallest sizes, a few seconds (tests/test_bench_smoke.py)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.hands, args.jobs = 2_000, 1

    jobs = [(args.seed, i, min(CHUNK, args.hands - i * CHUNK)) for i in range(-(-args.hands // CHUNK))]
    hands = same_total = same_fans = 0
    classes: Counter = Counter()
    tied: Counter = Counter()
    examples: dict[str, str] = {}
    start = time.perf_counter()
    pool = Pool(args.jobs) if args.jobs > 1 else None
    results = pool.imap(_run_chunk, jobs) if pool else map(_run_chunk, jobs)
    try:
        for n, st, sf, cl, ti, ex in results:
            hands += n
            same_total += st
            same_fans += sf
            classes.update(cl)
            tied.update(ti)
            for k, v in ex.items():
                examples.setdefault(k, v)
            print(f"\r{hands:,} hands, {sum(classes.values()):,} disagreements", end="", file=sys.stderr, flush=True)
    finally:
        if pool:
            pool.close()
    elapsed = time.perf_counter() - start
    print(file=sys.stderr)

    def pct(k: int) -> str:
        return f"{k:,} / {hands:,} ({100 * k / hands:.4f}%)" if hands else "0"

    print(f"hands:               {hands:,} (seed {args.seed}) in {elapsed:.1f} s, {hands / elapsed:,.0f} hands/s")
    print(f"totals agree:        {pct(same_total)}")
    print(f"fan multisets agree: {pct(same_fans)}")
    if classes:
        print(f"\n{len(classes)} disagreement classes (+id: only ours, -id: only the reference):")
        for kind, count in classes.most_common():
            print(f"  {count:>8,}  {100 * count / hands:8.4f}%  [{kind}] {_names(kind)}  (same total: {tied[kind]:,})")
        for kind, _ in classes.most_common(args.show):
            print(f"\n--- [{kind}] ×{classes[kind]:,}\n{examples[kind]}")
    return 0 if not classes else 1


if __name__ == "__main__":
    sys.exit(main())
