"""The per-answer cost of translating for an external bot (rooms/botzone.py, docs/bots.md): following the
match (``MatchFeed.sync``: stepping our copy of the match and writing the Botzone requests of every
step) plus reading the answer (``parse_answer``, checked against the legal actions), per decision a
bot answers. The subprocess itself is not timed: this is what the server adds to each answer.

Run: ``.venv/bin/python bench/botzone.py [--matches N] [--bots K] [--smoke]``. Matches are played first
by the auto action (game.state.auto_action) with seeds 0..N-1, then replayed through a feed with K
external players, one sync per action as the server does after each commit. The target is < 1 ms.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from game import match as gm  # noqa: E402
from game.actions import CONTINUE  # noqa: E402
from game.rules import Rules  # noqa: E402
from game.state import auto_action  # noqa: E402
from rooms.botzone import END, MatchFeed, botzone_answer, parse_answer  # noqa: E402


def play(rules: Rules, seed: int) -> tuple[gm.MatchState, list]:
    m, _ = gm.start_match(rules, seed=seed)
    start = m
    actions = []
    while m.phase != gm.FINISHED:
        p = gm.pending(m)[0]
        a = CONTINUE if m.phase == gm.BETWEEN else auto_action(m.hand, m.seat_of(p))
        m, _ = gm.step(m, p, a)
        actions.append((p, a))
    return start, actions


def translate(start: gm.MatchState, actions: list, bots: int) -> tuple[float, int, int]:
    """(seconds, decisions answered, requests written) for one match replayed through a feed."""
    feed = MatchFeed(range(bots))
    t0 = time.perf_counter()
    decisions = requests = 0
    pending: dict[int, tuple] = {}
    done = []
    for i in range(len(actions) + 1):
        if i:
            done.append(actions[i - 1])
        for p, r in feed.sync(1, start, done):
            if r is END:
                continue
            requests += 1
            if r.seq is not None and r.seq == feed.m.seq:
                pending[p] = (feed.legal(p), feed.turn(p))
        if i < len(actions):
            p, a = actions[i]
            if p in pending:  # the bot's answer to its decision: what it played, read back
                legal, turn = pending.pop(p)
                got = parse_answer(botzone_answer(a), legal, turn)
                assert got.fault is None or not turn, (a, got)
                decisions += 1
    return time.perf_counter() - t0, decisions, requests


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=20)
    ap.add_argument("--bots", type=int, default=4, help="external players followed (1-4)")
    ap.add_argument("--smoke", action="store_true", help="two matches: a quick check that it runs")
    args = ap.parse_args()
    n = 2 if args.smoke else args.matches
    for flowers in (False, True):
        rules = Rules(flowers=flowers, hands=4 if args.smoke else 16)
        games = [play(rules, seed) for seed in range(n)]
        total = answers = requests = 0
        for start, actions in games:
            s, d, r = translate(start, actions, args.bots)
            total, answers, requests = total + s, answers + d, requests + r
        per = total / max(1, answers) * 1e3
        tiles = 144 if flowers else 136
        print(f"{tiles} tiles, {args.bots} bots, {n} matches: {answers} answers, {requests} requests; "
              f"translation per answer {per:.3f} ms (target < 1 ms), per request {total / max(1, requests) * 1e6:.1f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
