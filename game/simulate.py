"""Random legal players, for the soak tests, ``guobiao simulate`` and ``bench/selfplay.py``.

The players' randomness is an ``rng`` object with ``randrange`` and ``random`` (a ``random.Random``
instance) owned by the caller, apart from the game, whose own randomness is only the wall generator in
the match state. This module imports no ``random``: game/ never touches the global generator.
"""

from __future__ import annotations

from typing import Any, Callable

from game import match as M
from game.actions import PASS, AddedKong, Chow, ConcealedKong, Discard, Kong, Pung, Win, with_seq
from game.rules import Rules

Policy = Callable[[M.MatchState, int, tuple], object]  # (match, player, legal actions) -> action


def random_policy(rng: Any, take_wins: bool = True) -> Policy:
    """Pick uniformly among the legal actions; ``take_wins``: always declare a win when offered."""

    def choose(m, player, legal: tuple):
        if take_wins and type(legal[0]) is Win:
            return legal[0]
        return legal[rng.randrange(len(legal))]

    return choose


def tidy_policy(rng: Any) -> Policy:
    """Wins, claims and kongs whenever offered; otherwise discards a loosely connected tile. Reaches
    far more wins (robbed kongs, last-tile wins, ...) than uniform play, for the soak tests."""

    def choose(m, player, legal: tuple):
        if type(legal[0]) is Win or len(legal) == 1:
            return legal[0]
        kinds = {type(a) for a in legal}
        claims = [a for a in legal if type(a) in (Pung, Kong, Chow, ConcealedKong, AddedKong)]
        if claims and rng.random() < 0.8:
            return claims[rng.randrange(len(claims))]
        if Discard not in kinds:
            return PASS
        hand = m.hand.concealed[m.seat_of(player)]

        def keep(t: int) -> int:
            v = 3 * hand.count(t)
            if t < 27:
                for d, w in ((1, 2), (2, 1)):
                    for u in (t - d, t + d):
                        if 0 <= u < 27 and u // 9 == t // 9:
                            v += w * (u in hand)
            return v * 8 + rng.randrange(8)

        discards = [a for a in legal if type(a) is Discard]
        return min(discards, key=lambda a: keep(a.tile))

    return choose

def play_match(rules: Rules, seed: int, policy: Policy, rng: Any, log: list | None = None,
               on_step=None) -> M.MatchState:
    """Play a match to its end; seats due to act are served in a random order (``rng``).

    ``log`` collects (player, action) with the seq each action answered; ``on_step(before, player,
    action, after, events)`` sees every transition.
    """
    m, events = M.start_match(rules, seed=seed)
    if on_step is not None:
        on_step(None, None, None, m, events)
    while m.phase != M.FINISHED:
        due = M.pending(m)
        player = due[rng.randrange(len(due))] if len(due) > 1 else due[0]
        action = with_seq(policy(m, player, M.legal_actions(m, player)), m.seq)
        before = m
        m, events = M.step(m, player, action)
        if log is not None:
            log.append((player, action))
        if on_step is not None:
            on_step(before, player, action, m, events)
    return m
