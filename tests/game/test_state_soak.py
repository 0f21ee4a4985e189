"""Seeded soak: 2,000 hands of random legal play under several rule sets, with invariants at every step.

- the 144 (or 136) tiles are all somewhere at every step, and hand sizes are legal;
- every hand settles zero-sum (payments and penalties) and the match scores add up;
- every win is re-scored independently by the reference calculator (PyMahjongGB) and agrees, and its
  context flags agree with the table;
- no view of seat A depends on seat B's concealed tiles or on the wall (sampled steps), no projected
  event shows another seat's secrets;
- replaying each match's action log reproduces its final state byte for byte.
"""

import random

import pytest

from game import match as M
from game.actions import WIN
from game.codec import canonical
from game.rules import Rules
from game.scoring import score
from game.simulate import play_match, random_policy, tidy_policy
from game.state import OVER, auto_action
from game.views import project, view

from tests.game.scenario import check_sizes, full_census, scrambled, tile_census
from tests.support.reference import reference_fans

SECRET = {"deal": {"tiles"}, "draw": {"tile"}, "concealed_kong": {"tile"}}


def training_policy(rng):
    """Declares real wins, and now and then a false one (training mode offers 和 everywhere)."""
    tidy = tidy_policy(rng)

    def choose(m, player, legal):
        if legal[0] == WIN:
            seat = m.seat_of(player)
            if auto_action(m.hand, seat) == WIN or rng.random() < 0.02:
                return WIN
            legal = legal[1:]
        return tidy(m, player, legal)

    return choose


# (rules, matches, policy): 2,000 hands in all.
PLANS = [
    (Rules(), 50, tidy_policy),
    (Rules(min_fan=0), 25, tidy_policy),
    (Rules(flowers=False), 20, random_policy),
    (Rules(false_win_penalty=True, blocked_may_claim=False), 15, training_policy),
    (Rules(min_fan=0, declare_ready=True, declared_ready_points=1), 15, tidy_policy),
]


def _visible(s, tile: int) -> int:
    n = sum(1 for pond in s.ponds for t, claimed in pond if t == tile and not claimed)
    return n + sum(m.tiles.count(tile) for ms in s.melds for m in ms if not m.concealed)


class Checker:
    def __init__(self, rules: Rules, rng: random.Random):
        self.rules, self.rng = rules, rng
        self.census = full_census(rules)
        self.steps = self.wins = self.hands = 0

    def __call__(self, before, player, action, m, events):
        s = m.hand
        self.steps += 1
        assert tile_census(s) == self.census
        check_sizes(s)
        for e in events:
            for seat in (0, 1, 2, 3, None):
                out = project(e, seat)
                if out is not None and not (seat is not None and e.get("seat") == seat):
                    assert not SECRET.get(e["t"], set()) & set(out)
                    assert e["t"] != "response"
        if s.phase != OVER and self.rng.random() < 0.1:
            for seat in (self.rng.randrange(4), None):
                assert view(s, seat) == view(scrambled(s, seat), seat)
        if any(e["t"] == "hand_end" for e in events):
            self.hand_over(s)

    def hand_over(self, s):
        self.hands += 1
        r = s.result
        assert sum(r.payments) == 0 and sum(r.penalties) == 0
        w = r.win
        if w is None:
            return
        self.wins += 1
        extra = self.rules.declared_ready_points if s.declared[w.winner] else 0
        assert score(w.hand, w.ctx).total + extra == w.total
        ref_total, _ = reference_fans(w.hand, w.ctx)
        assert ref_total + extra == w.total, (str(w.hand), w.ctx)
        ctx = w.ctx
        assert ctx.self_drawn == (w.payer is None) and ctx.kong >= w.robbed
        assert ctx.last_tile == (s.remaining == 0 and not w.robbed)
        assert ctx.seat_wind == (w.winner - s.dealer) % 4 and ctx.prevalent_wind == s.prevalent
        assert ctx.flowers == len(s.flowers[w.winner])
        fourth = not w.robbed and w.tile not in w.hand.tiles and _visible(s, w.tile) == 3
        assert ctx.fourth_tile == fourth


@pytest.mark.parametrize("rules,matches,policy", PLANS, ids=["default", "min_fan_0", "no_flowers_random",
                                                              "training", "declare_ready"])
def test_soak(rules, matches, policy):
    hands = wins = 0
    for k in range(matches):
        seed = 1000 * k + 7
        rng = random.Random(seed)
        check = Checker(rules, random.Random(seed + 1))
        log: list = []
        m = play_match(rules, seed, policy(rng), rng, log, on_step=lambda *a: a[0] and check(*a))
        assert m.phase == M.FINISHED and sum(m.scores) == 0
        assert canonical(M.replay(rules, log, seed=seed)) == canonical(m)
        hands += check.hands
        wins += check.wins
    assert hands == matches * rules.hands
    if policy is not random_policy:
        assert wins > hands // 4  # the soak really exercises wins
