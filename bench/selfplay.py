"""Engine-only self-play speed: hands per second with random legal players on one core.

    python bench/selfplay.py [--hands 4000] [--seed 1] [--policy random|tidy] [--min-fan 8] [--no-flowers] [--smoke]

Each hand starts from a seeded wall; the seat to act (a random one when several are asked) picks a
uniformly random legal action, declaring a win whenever one is offered (``--policy tidy``: a player
that keeps connected tiles and claims often, so far more hands are won). The time covers the engine
(start_hand, legal_actions, step) and the trivial players; goal: at least 500 hands/s.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from game.actions import Win  # noqa: E402
from game.rules import Rules  # noqa: E402
from game.state import OVER, legal_actions, pending, start_hand, step  # noqa: E402


def play(rules: Rules, seed: int, rng: random.Random, tidy: bool) -> tuple[int, bool]:
    s, _ = start_hand(rules, seed=seed, dealer=seed % 4, prevalent_wind=seed // 4 % 4)
    steps = 0
    while s.phase != OVER:
        due = pending(s)
        seat = due[rng.randrange(len(due))] if len(due) > 1 else due[0]
        legal = legal_actions(s, seat)
        if type(legal[0]) is Win:
            action = legal[0]
        elif tidy:
            action = _tidy(s.concealed[seat], legal, rng)
        else:
            action = legal[rng.randrange(len(legal))]
        s, _ = step(s, seat, action)
        steps += 1
    return steps, s.result.win is not None


def _tidy(hand: tuple, legal: tuple, rng: random.Random):
    claims = [a for a in legal if a.name not in ("discard", "pass")]
    if claims and rng.random() < 0.8:
        return rng.choice(claims)
    discards = [a for a in legal if a.name == "discard"]
    if not discards:
        return legal[-1]  # pass

    def keep(t: int) -> int:
        v = 3 * hand.count(t)
        if t < 27:
            v += sum(w for d, w in ((1, 2), (2, 1)) for u in (t - d, t + d) if u // 9 == t // 9 and u in hand)
        return v * 8 + rng.randrange(8)

    return min(discards, key=lambda a: keep(a.tile))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=4000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--policy", choices=("random", "tidy"), default="random")
    p.add_argument("--min-fan", type=int, default=8)
    p.add_argument("--no-flowers", action="store_true")
    p.add_argument("--smoke", action="store_true", help="smallest sizes, a few seconds (tests/test_bench_smoke.py)")
    args = p.parse_args(argv)
    if args.smoke:
        args.hands = 100
    rules = Rules(min_fan=args.min_fan, flowers=not args.no_flowers)
    rng = random.Random(args.seed)
    play(rules, 0, random.Random(0), False)  # warm the shape caches
    steps = wins = 0
    t0 = time.process_time()
    for i in range(args.hands):
        n, won = play(rules, args.seed * 1_000_003 + i, rng, args.policy == "tidy")
        steps += n
        wins += won
    cpu = time.process_time() - t0
    print(f"{args.hands} hands, {steps} steps, {wins} wins ({args.policy} players, min fan {rules.min_fan}, "
          f"{'144' if rules.flowers else '136'} tiles)")
    print(f"{args.hands / cpu:.0f} hands/s, {steps / cpu:.0f} steps/s (CPU time, one core)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
