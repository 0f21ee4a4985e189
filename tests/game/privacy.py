"""Two hands that differ only in hidden tiles: in one, seat ``y`` can claim the tile seat ``x`` is about
to discard; in the other it cannot. Used by the claim-window privacy tests (game and room level)."""

from __future__ import annotations

import random

from game.state import HandState

HEAD_MARGIN, TAIL_MARGIN = 4, 12  # wall tiles a window and its outcome may draw: never swapped


def _swap(s: HandState, y: int, out: int, pos: int) -> HandState:
    """``s`` with one ``out`` of seat y's concealed tiles exchanged for the wall tile at ``pos``."""
    n = s.copy()
    c = list(s.concealed[y])
    c.remove(out)
    c.append(s.wall[pos])
    wall = list(s.wall)
    wall[pos] = out
    n.concealed = tuple(tuple(sorted(c)) if seat == y else h for seat, h in enumerate(s.concealed))
    n.wall = tuple(wall)
    return n


def _middle(s: HandState) -> range:
    return range(s.head + HEAD_MARGIN, s.tail - TAIL_MARGIN)


def claim_variants(s: HandState, x: int, y: int, t: int, rng: random.Random):
    """(can, cannot) or None: copies of ``s`` (seat x to play and holding ``t``) that differ only in seat
    y's concealed tiles and in live wall tiles no window draws. In ``cannot`` y holds no ``t``; in
    ``can`` it holds two (so it may pung ``t``, unless the rules stop it: the caller checks)."""
    if y == x or t not in s.concealed[x] or t >= 34:
        return None
    cannot = s
    for _ in range(s.concealed[y].count(t)):
        spots = [i for i in _middle(cannot) if cannot.wall[i] != t and cannot.wall[i] < 34]
        if not spots:
            return None
        cannot = _swap(cannot, y, t, rng.choice(spots))
    can = cannot
    for _ in range(2):
        spots = [i for i in _middle(can) if can.wall[i] == t]
        others = [u for u in can.concealed[y] if u != t]
        if not spots or not others:
            return None
        can = _swap(can, y, rng.choice(others), rng.choice(spots))
    return can, cannot

