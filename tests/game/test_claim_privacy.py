"""A claim window tells nobody who could claim (docs/state-machine.md "Claim windows").

Seeded random hands: at a discard, two hands that differ only in hidden tiles (seat y's concealed tiles
and live wall tiles the window does not reach), one where y can claim the discard and one where it
cannot; y passes in both, the others answer alike. Every other seat and a spectator must see the same
thing in both: the events as projected for them (seq, order, content) and their whole view after every
step. Added kongs (robbing windows) are checked the same way with a random hidden swap.
"""

import random

from game.actions import PASS, AddedKong, Discard
from game.rules import Rules
from game.state import CLAIM, OVER, TURN, legal_actions, pending, start_hand, step
from game.views import project, view

from tests.game.privacy import _middle, _swap, claim_variants

WINDOWS = 10_000
RULES = (Rules(min_fan=0), Rules(), Rules(min_fan=0, declare_ready=True), Rules(min_fan=0, false_win_penalty=True))


def seen(events: list, state, y: int) -> list:
    """What every seat but y, and a spectator, see of ``events`` and of ``state``."""
    out = []
    for seat in [s for s in range(4) if s != y] + [None]:
        out.append(([e for e in (project(x, seat) for x in events) if e is not None], view(state, seat)))
    return out


def run_window(a, b, x: int, y: int, action, rng: random.Random) -> int:
    """Step ``action`` of seat x on both hands, then every asked seat answers (y passes, the others
    alike); compares the two at every step. Returns the steps compared."""
    a, ea = step(a, x, action)
    b, eb = step(b, x, action)
    assert seen(ea, a, y) == seen(eb, b, y)
    assert a.phase == b.phase == CLAIM and a.seq == b.seq
    order = [s for s in range(4) if s != x]
    rng.shuffle(order)
    n = 1
    for seat in order:
        if seat == y:
            answer = PASS
        else:
            legal = legal_actions(a, seat)
            assert legal == legal_actions(b, seat) and legal
            answer = rng.choice(legal)
        a, ea = step(a, seat, answer)
        b, eb = step(b, seat, answer)
        assert seen(ea, a, y) == seen(eb, b, y), (seat, answer)
        n += 1
    assert a.phase != CLAIM and a.seq == b.seq
    return n


def claims(s, x: int, action) -> tuple:
    """Each seat's claims on x's discard (none at all when no window opens)."""
    after, _ = step(s, x, action)
    return after.claim.options if after.phase == CLAIM else ((), (), (), ())


def walk(seed: int, rules: Rules, budget: list) -> tuple[int, int]:
    """Random play of one hand; at each discard, the privacy check. Returns (windows where y could
    claim in one hand only, of those the ones where nobody else could claim either)."""
    rng = random.Random(seed)
    s, _ = start_hand(rules, seed=seed)
    pairs = alone = 0
    while s.phase != OVER and budget[0] > 0:
        if s.phase == CLAIM:
            p = rng.choice(pending(s))
            legal = legal_actions(s, p)
            s, _ = step(s, p, PASS if rng.random() < 0.85 else rng.choice(legal))
            continue
        assert s.phase == TURN
        x = s.turn
        legal = legal_actions(s, x)
        kongs = [a for a in legal if type(a) is AddedKong]
        discards = [a for a in legal if type(a) is Discard]
        if kongs and rng.random() < 0.5:
            action = kongs[0]
            y = rng.choice([q for q in range(4) if q != x])
            spots = list(_middle(s))
            if spots and s.concealed[y]:
                other = _swap(s, y, rng.choice(s.concealed[y]), rng.choice(spots))
                run_window(s, other, x, y, action, rng)
        else:
            action = rng.choice(discards)
            y = rng.choice([q for q in range(4) if q != x])
            pair = claim_variants(s, x, y, action.tile, rng)
            if pair is not None:
                can, cannot = pair
                ca, cb = claims(can, x, action), claims(cannot, x, action)
                if ca[y] and not cb[y]:
                    run_window(can, cannot, x, y, action, random.Random(rng.random()))
                    pairs += 1
                    budget[0] -= 1
                    alone += not any(cb)
        s, _ = step(s, x, action)
    return pairs, alone


def test_a_claim_window_looks_the_same_whether_or_not_anybody_could_claim():
    budget = [WINDOWS]
    pairs = alone = 0
    seed = 0
    while budget[0] > 0:
        p, a = walk(seed, RULES[seed % len(RULES)], budget)
        pairs, alone = pairs + p, alone + a
        seed += 1
    assert pairs == WINDOWS
    assert alone > WINDOWS // 4  # often nobody else could claim either: the case the old numbering told
