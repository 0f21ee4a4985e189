"""A tiny reference bot for the Botzone "Chinese Standard Mahjong" protocol (docs/bots.md), written for
the tests: greedy, standalone (no project import), simple interaction on stdin/stdout, long-running.

It keeps its own hand from the requests; says HU when its 14 tiles are four sets and a pair (or seven
pairs), pungs honours it holds a pair of, and otherwise discards its least connected tile.

``python botzone_greedy.py [mode]``: mode ``ok`` (the default) plays; the others misbehave on the
first decision after its own draw: ``sleep`` sleeps, ``garbage`` prints nonsense, ``exit`` exits,
``flood`` floods stdout, ``illegal`` discards a tile it does not hold. Every other answer is correct.
"""

from __future__ import annotations

import sys
import time
from collections import Counter

KEEP = ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<"


def is_win(tiles: list[str]) -> bool:
    c = Counter(tiles)
    if len(tiles) == 14 and all(n == 2 for n in c.values()) and len(c) == 7:
        return True

    def sets(c: Counter) -> bool:
        left = sorted(t for t, n in c.items() if n)
        if not left:
            return True
        t = left[0]
        if c[t] >= 3:
            c[t] -= 3
            ok = sets(c)
            c[t] += 3
            if ok:
                return True
        if t[0] in "WTB" and int(t[1]) <= 7:
            a, b = f"{t[0]}{int(t[1]) + 1}", f"{t[0]}{int(t[1]) + 2}"
            if c[a] and c[b]:
                for x in (t, a, b):
                    c[x] -= 1
                ok = sets(c)
                for x in (t, a, b):
                    c[x] += 1
                return ok
        return False

    if len(tiles) % 3 != 2:
        return False
    for t in list(c):
        if c[t] >= 2:
            c[t] -= 2
            ok = sets(c)
            c[t] += 2
            if ok:
                return True
    return False


def worst(hand: list[str]) -> str:
    """The least connected tile: fewest copies and neighbours (honours have none)."""
    c = Counter(hand)

    def score(t: str) -> tuple:
        near = 0
        if t[0] in "WTB":
            n = int(t[1])
            near = sum(c[f"{t[0]}{n + d}"] for d in (-2, -1, 1, 2) if 1 <= n + d <= 9)
        return (c[t] * 3 + near, t)

    return min(hand, key=score)


class Greedy:
    def __init__(self):
        self.seat = 0
        self.hand: list[str] = []
        self.melds = 0
        self.last = None  # the last discarded tile

    def answer(self, request: str) -> str:
        w = request.split()
        kind = w[0]
        if kind == "0":
            self.seat = int(w[1])
        elif kind == "1":
            self.hand = w[5:5 + 13]
        elif kind == "2":
            self.hand.append(w[1])
            if is_win(self.hand):
                return "HU"
            return f"PLAY {worst(self.hand)}"
        elif kind == "3":
            s, verb = int(w[1]), w[2]
            mine = s == self.seat
            if verb in ("PLAY", "PENG", "CHI"):
                if mine:
                    if verb == "PENG":
                        for _ in range(2):
                            self.hand.remove(self.last)
                        self.melds += 1
                    self.hand.remove(w[-1])
                self.last = w[-1]
                if not mine:
                    if is_win(self.hand + [self.last]):
                        return "HU"
                    if self.last[0] in "FJ" and self.hand.count(self.last) >= 2:
                        rest = list(self.hand)
                        rest.remove(self.last)
                        rest.remove(self.last)
                        return f"PENG {worst(rest)}"
        return "PASS"


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    bot = Greedy()
    first = sys.stdin.readline()
    if not first:
        return 0
    n = int(first)
    lines = [sys.stdin.readline().rstrip("\n") for _ in range(2 * n - 1)]
    for r in lines[0::2][:-1]:
        bot.answer(r)  # the history: rebuild the state (our own responses are not needed)
    request = lines[-1]
    while True:
        out = bot.answer(request)
        if mode != "ok" and request.startswith("2 "):
            if mode == "sleep":
                time.sleep(30)
            elif mode == "garbage":
                out = "WHAT \x00 IS THIS"
            elif mode == "exit":
                return 3
            elif mode == "flood":
                sys.stdout.write("x" * 10_000_000)
            elif mode == "illegal":
                out = "PLAY J3" if "J3" not in bot.hand else "PLAY W1" if "W1" not in bot.hand else "CHI W5 W1"
        print(out)
        print(KEEP, flush=True)
        request = sys.stdin.readline()
        if not request:
            return 0
        request = request.rstrip("\n")


if __name__ == "__main__":
    sys.exit(main())
