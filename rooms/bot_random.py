"""The random bot, for tests: a uniformly random legal action of the seat's view."""

from __future__ import annotations

import random

from game.actions import from_dict
from rooms.bot_common import answer_seq, view_seed


class RandomBot:
    """``choose(view) -> action``: one of the view's legal actions, uniformly, answering its ``seq``.
    ``take_wins``: declare 和 whenever it is legal (off: truly uniform)."""

    def __init__(self, rng, take_wins: bool = False):
        self.rng = rng
        self.take_wins = take_wins

    def choose(self, view: dict):
        """The action for this view; None when the seat has nothing to do."""
        legal = view["legal"]
        if not legal:
            return None
        seq = answer_seq(view)
        if self.take_wins and any(a["a"] == "win" for a in legal):
            return from_dict({"a": "win", "seq": seq})
        return from_dict({**legal[self.rng.randrange(len(legal))], "seq": seq})


def choose(view: dict):
    """The random bot as a function of the view alone (the rooms' bot interface), seeded from it."""
    return RandomBot(random.Random(view_seed(view))).choose(view)
