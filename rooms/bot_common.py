"""What both bots share: the seq an answer carries and a seed drawn from the view alone."""

from __future__ import annotations


def answer_seq(view: dict) -> int:
    """The sequence number an action must answer: the match's when the view is a match view."""
    return view["match"]["seq"] if "match" in view else view["seq"]


def view_seed(view: dict) -> int:
    """A seed that depends only on the view (its seq, the seat, its tiles), for the module-level
    ``choose(view)`` of the bots: the same view always gets the same action."""
    seed = answer_seq(view) * 4 + (view.get("seat") or 0)
    for t in view.get("hand") or ():
        seed = seed * 37 + t
    return seed
