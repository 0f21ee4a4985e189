"""Bot-only 国标馆 hands: how often the bots win, with what, and how long they think.

    python bench/bots.py [--hands 1000] [--seed 1] [--bots fan|random] [--smoke]

Four bots play each hand through ``game.state`` (seeded walls, ``Rules()`` defaults: 8-fan minimum
without flowers, 144 tiles); each seat due to act gets its own view and answers with an action. An
action the state machine rejects aborts the run. Goals (issue 4): at least 40 % of hands end in a
valid win (random bots: ~0 %), median decision under 5 ms, no illegal action.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from game.actions import ActionError  # noqa: E402
from game.fans.table import FLOWER_TILES  # noqa: E402
from game.rules import Rules  # noqa: E402
from game.state import OVER, pending, start_hand, step  # noqa: E402
from game.views import view  # noqa: E402
from rooms.bot import FanBot  # noqa: E402
from rooms.bot_random import RandomBot  # noqa: E402


def make_bots(kind: str, seed: int, min_fan: int) -> list:
    rngs = [random.Random(seed * 4 + seat) for seat in range(4)]
    if kind == "fan":
        return [FanBot(rng, min_fan=min_fan) for rng in rngs]
    return [RandomBot(rng) for rng in rngs]


def play_hand(rules: Rules, seed: int, number: int, bots: list, times: list):
    """One hand; returns the final state. ``times`` collects the seconds of each decision."""
    s, _ = start_hand(rules, seed=seed, dealer=number % 4, prevalent_wind=number // 4 % 4)
    while s.phase != OVER:
        seat = pending(s)[0]
        v = view(s, seat)
        t0 = time.perf_counter()
        action = bots[seat].choose(v)
        times.append(time.perf_counter() - t0)
        try:
            s, _ = step(s, seat, action)
        except ActionError as e:
            raise SystemExit(f"illegal action in hand seed {seed}, seat {seat}: {action!r} ({e.code}: {e.message})\n"
                             f"legal: {v['legal']}\nhand: {v['hand']}")
    return s


def percentile(values: list, q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--bots", choices=("fan", "random"), default="fan")
    p.add_argument("--smoke", action="store_true", help="smallest sizes, a few seconds (tests/test_bench_smoke.py)")
    args = p.parse_args(argv)
    if args.smoke:
        args.hands = 8
    rules = Rules()
    bots = make_bots(args.bots, args.seed, rules.min_fan)
    times: list = []
    wins = draws = fouls = 0
    self_drawn = 0
    fan_counts: Counter = Counter()
    totals, bare = [], []
    forms: Counter = Counter()
    t0 = time.perf_counter()
    for i in range(args.hands):
        s = play_hand(rules, args.seed * 1_000_003 + i, i, bots, times)
        fouls += len(s.fouls)
        w = s.result.win
        if w is None:
            draws += 1
            continue
        wins += 1
        self_drawn += w.self_drawn
        totals.append(w.total)
        flowers = sum(f.points * f.count for f in w.fans if f.id == FLOWER_TILES)
        bare.append(w.total - flowers)
        for f in w.fans:
            if f.id != FLOWER_TILES:
                fan_counts[f.name] += 1
        forms[max((f for f in w.fans if f.id != FLOWER_TILES), key=lambda f: f.points).name] += 1
    wall = time.perf_counter() - t0
    n = args.hands
    print(f"{n} hands, {args.bots} bots, Rules(): min fan {rules.min_fan} without flowers, "
          f"{'144' if rules.flowers else '136'} tiles, seed {args.seed}")
    print(f"win rate: {100 * wins / n:.1f} %; median fans of a win without flowers: "
          f"{statistics.median(bare) if bare else '-'}")
    print(f"wins: {wins} ({100 * wins / n:.1f} %), self-drawn {self_drawn}; exhaustive draws: {draws} "
          f"({100 * draws / n:.1f} %); false declarations: {fouls}; illegal actions: 0")
    if wins:
        print(f"fan total (with flowers): mean {statistics.mean(totals):.1f}, median {statistics.median(totals)}; "
              f"without flowers: mean {statistics.mean(bare):.1f}, median {statistics.median(bare)}")
        print("fans by share of wins:")
        for name, c in fan_counts.most_common(20):
            print(f"  {name:8s} {c:5d}  {100 * c / wins:5.1f} %")
        print("highest fan of each win:")
        for name, c in forms.most_common(12):
            print(f"  {name:8s} {c:5d}  {100 * c / wins:5.1f} %")
    all_t = [t * 1000 for t in times]
    print(f"decisions: {len(all_t)}; think time ms: median {statistics.median(all_t):.3f}, "
          f"p99 {percentile(all_t, 0.99):.2f}, max {max(all_t):.1f}")
    print(f"wall time {wall:.1f} s ({n / wall:.1f} hands/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
