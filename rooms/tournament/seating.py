"""Forming the tables of a session (tournament.md §3.1, §3.3).

``seat_tables(method, ranked, rng, first=..., met=...)`` takes the players to seat in standings order
(best first) and returns tables of four, each in seat order East, South, West, North. ``None`` is a
substitute bot (unranked, cannot win) padding the field to a multiple of four. Randomness comes only
from the ``random.Random`` passed in (seeded by the tournament from its secret).

Methods (the first session is always random: there are no standings yet):
- ``random``: shuffled.
- ``standing`` (高高碰): by standings, 1-4, 5-8, …
- ``snake`` (蛇形, summerinsects): with T tables, cut the standings (bots last) into four quarters
  Q1..Q4 of T players; table i (0-based) gets Q1[i], Q2[T-1-i], Q3[i], Q4[T-1-i] — forward, back,
  forward, back — so every table gets one player of each quarter and the quarters balance out.
- ``swiss`` (mahjong-seatings-rust ``seating_swiss.rs``, after mahjongsoft.ru): the highest unseated
  player opens a table; it is filled with the highest players whose previous meetings with those
  already at the table total at most ``allowed``; backtrack when stuck; ``allowed`` starts at 0 and is
  raised by one until a seating exists. So it avoids repeat meetings whenever that is possible. With
  ``lookahead`` (another session follows) it prefers, among the seatings at the lowest level, one after
  which the next session can be seated at that level too (tried on up to 50 seatings).

Bots (``random``, ``standing``, ``swiss``): at most one per table while there are enough tables, on the
last tables (with 5 players: a table of 3 and one of 2 humans, never 4 + 1). ``snake`` puts them at
the bottom of the standings, so they land where the quarters put the last players.

Duplicate events (``duplicate=True``) keep each table in the method's order (best first) and turn
table i's seats by ``shift(i)`` instead of drawing them (``rotate``).
"""

from __future__ import annotations

import random
from typing import Mapping, Sequence

from rooms.tournament.config import SEATINGS

SWISS_BUDGET = 50_000  # search nodes per ``allowed`` level before giving up on it
LOOKAHEAD_TRIES = 50  # seatings tried for the next session's sake before taking the first one
LOOKAHEAD_BUDGET = 5_000  # search nodes per lookahead check


def capacities(n: int) -> list[int]:
    """Humans per table for ``n`` players: ceil(n/4) tables, the 4T-n bots on the last tables."""
    if n <= 0:
        return []
    t = -(-n // 4)
    bots = 4 * t - n
    return [4 - (bots // t + (1 if i >= t - bots % t else 0)) for i in range(t)]


def pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def meetings(sessions: Sequence[Sequence[Sequence[str | None]]]) -> dict[tuple[str, str], int]:
    """How often each pair of players sat at one table, over earlier sessions' tables."""
    met: dict[tuple[str, str], int] = {}
    for tables in sessions:
        for table in tables:
            humans = [p for p in table if p is not None]
            for i, a in enumerate(humans):
                for b in humans[i + 1:]:
                    met[pair(a, b)] = met.get(pair(a, b), 0) + 1
    return met


def seat_tables(method: str, ranked: Sequence[str], rng: random.Random, *, first: bool,
                met: Mapping[tuple[str, str], int] | None = None, lookahead: bool = False,
                duplicate: bool = False) -> list[list[str | None]]:
    """The tables of a session; see the module doc. ``ranked``: distinct player ids, best first;
    ``met``: earlier meetings (``meetings``); ``lookahead``: another session follows (Swiss only);
    ``duplicate``: seat by ``rotate`` instead of drawing the seat order within each table."""
    if method not in SEATINGS:
        raise ValueError(f"unknown seating method {method!r}")
    if len(set(ranked)) != len(ranked):
        raise ValueError("players must be distinct")
    caps = capacities(len(ranked))
    if first or method == "random":
        order = list(ranked)
        rng.shuffle(order)
        tables = _fill(order, caps)
    elif method == "standing":
        tables = _fill(list(ranked), caps)
    elif method == "snake":
        tables = _snake(list(ranked))
    else:
        tables = _swiss(list(ranked), caps, met or {}, lookahead)
    if duplicate:
        return rotate(tables)
    for t in tables:
        rng.shuffle(t)  # the seat order within a table (East first) is drawn too (R98 附件2: 抽签)
    return tables


def shift(number: int) -> int:
    """How far the seats of a duplicate session's table ``number`` (1-based) are turned: 0, 1, 2, 3, 0, …"""
    return (number - 1) % 4


def rotate(tables: list[list[str | None]]) -> list[list[str | None]]:
    """Duplicate seating (docs/tournaments.md "Duplicate"): each table comes in slot order (its players
    best first, as the method placed them, bots last) and table i (1-based) puts slot s at room seat
    ``(s - shift(i)) % 4``. Every table deals the same walls to the same room seats, so the tiles that
    slot s holds at table 1 are held by slot s + 1 at table 2, s + 2 at table 3, s + 3 at table 4:
    among any four consecutive tables each hand's tiles reach each slot once."""
    out = []
    for i, t in enumerate(tables, start=1):
        k = shift(i)
        out.append([t[(seat + k) % 4] for seat in range(4)])
    return out


def _fill(order: list[str], caps: list[int]) -> list[list[str | None]]:
    tables, i = [], 0
    for c in caps:
        tables.append(order[i:i + c] + [None] * (4 - c))
        i += c
    return tables


def _snake(ranked: list[str]) -> list[list[str | None]]:
    t = -(-len(ranked) // 4)
    padded: list[str | None] = ranked + [None] * (4 * t - len(ranked))
    q = [padded[k * t:(k + 1) * t] for k in range(4)]
    return [[q[0][i], q[1][t - 1 - i], q[2][i], q[3][t - 1 - i]] for i in range(t)]


def _swiss(ranked: list[str], caps: list[int], met: Mapping[tuple[str, str], int],
           lookahead: bool) -> list[list[str | None]]:
    allowed = 0
    while True:
        first, tries = None, 0
        for tables in _solutions(ranked, caps, met, allowed, SWISS_BUDGET):
            if first is None:
                first = tables
            # One session of lookahead: among the seatings at this level, prefer one after which the
            # next session can still be seated at the same level (else greedy choices in session 3 of
            # 16 players often make a repeat-free session 4 impossible).
            if not lookahead or _feasible(ranked, caps, _plus(met, tables), allowed):
                return [t + [None] * (4 - len(t)) for t in tables]
            tries += 1
            if tries >= LOOKAHEAD_TRIES:
                break
        if first is not None:
            return [t + [None] * (4 - len(t)) for t in first]
        allowed += 1  # terminates: once allowed exceeds every candidate's sum the first path succeeds


def _plus(met: Mapping[tuple[str, str], int], tables: list[list[str]]) -> dict[tuple[str, str], int]:
    out = dict(met)
    for k, v in meetings([tables]).items():
        out[k] = out.get(k, 0) + v
    return out


def _feasible(ranked: list[str], caps: list[int], met, allowed: int) -> bool:
    return next(_solutions(ranked, caps, met, allowed, LOOKAHEAD_BUDGET), None) is not None


def _solutions(ranked: list[str], caps: list[int], met, allowed: int, budget: int):
    """Every seating (greedy order: highest players first) in which each player joining a table has met
    those already there at most ``allowed`` times in all; stops quietly after ``budget`` search nodes.

    A depth-first search with its own stack (one frame per seat taken): a recursive one needed a
    Python frame per seat and hit the recursion limit at about 1,000 players (MAX_PLAYERS is 1,024)."""
    if not caps:
        yield []
        return

    def fits(c: str, table: list[str]) -> bool:
        return sum(met.get(pair(c, x), 0) for x in table) <= allowed

    nodes = 0
    done: list[list[str]] = []  # the full tables on the current path
    # Frames: [candidates, table index, table so far, next candidate to try], or None where a full
    # table was closed (popping it reopens that table: done.pop()).
    stack: list[list | None] = []
    call: tuple | None = (ranked, 0, ranked[:1], 1)
    while True:
        if call is not None:  # enter a search node
            rem, t, table, start = call
            call = None
            nodes += 1
            if nodes > budget:
                return
            if len(table) < caps[t]:
                stack.append([rem, t, table, start])
            elif t + 1 == len(caps):
                yield done + [table]
            else:
                taken = set(table)
                rest = [p for p in rem if p not in taken]
                done.append(table)
                stack.append(None)
                call = (rest, t + 1, rest[:1], 1)
                continue
        while stack:  # resume the innermost frame with a candidate left, popping exhausted ones
            frame = stack[-1]
            if frame is None:
                stack.pop()
                done.pop()
                continue
            rem, t, table, i = frame
            while i < len(rem) and not fits(rem[i], table):
                i += 1
            if i < len(rem):
                frame[3] = i + 1
                call = (rem, t, table + [rem[i]], i + 1)
                break
            stack.pop()
        if call is None:
            return


__all__ = ["seat_tables", "rotate", "shift", "capacities", "meetings", "pair", "SWISS_BUDGET"]
