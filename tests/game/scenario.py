"""Helpers for scripted hands: deal given tiles from a given wall order and play named actions."""

from __future__ import annotations

from collections import Counter

from game.actions import PASS, WIN, Chow, Discard, with_seq
from game.codec import canonical
from game.rules import Rules
from game.state import CLAIM, HandState, legal_actions, pending, start_hand, step
from game.tiles import parse_tiles
from game.wall import arrange_wall, full_set, shuffled

NO_FLOWERS = Rules(flowers=False)


def T(text: str) -> int:
    (t,) = parse_tiles(text)
    return t


def tiles(text: str) -> list[int]:
    return parse_tiles(text)


class Table:
    """A hand under test: ``state`` moves on with each call; ``events`` collects every event."""

    def __init__(self, hands, draws="", replacements="", rules: Rules = NO_FLOWERS, dealer=0, prevalent=0,
                 filler=None):
        def seat_tiles(h):
            return tiles(h) if isinstance(h, str) else list(h)

        # ``hands`` are by seat 0..3; the wall lists them from the dealer on.
        by_seat = [seat_tiles(h) for h in hands]
        ordered = [by_seat[(dealer + i) % 4] for i in range(4)]
        placed = Counter(t for h in by_seat for t in h) + Counter(seat_tiles(draws)) + Counter(seat_tiles(replacements))
        if filler is None:
            # Unscripted tiles in a fixed scrambled order (not sorted, which would deal whole sets),
            # flowers last so that they do not disturb the scripted tail.
            rest = sorted((Counter(full_census(rules)) - placed).elements())
            numbers, flowers = shuffled([t for t in rest if t < 34], 7)[0], [t for t in rest if t >= 34]
            filler = list(numbers) + flowers
        wall = arrange_wall(
            ordered, seat_tiles(draws), seat_tiles(replacements), flowers=rules.flowers, filler=seat_tiles(filler),
        )
        self.wall = wall
        self.state, self.events = start_hand(rules, wall=wall, dealer=dealer, prevalent_wind=prevalent)
        self.log: list = []

    def legal(self, seat: int) -> tuple:
        return legal_actions(self.state, seat)

    def act(self, seat: int, action) -> list[dict]:
        before = canonical(self.state)
        new, events = step(self.state, seat, with_seq(action, self.state.seq))
        assert canonical(self.state) == before  # the old state is never touched
        self.state = new
        self.events.extend(events)
        self.log.append((seat, action))
        return events

    def discard(self, seat: int, text: str) -> list[dict]:
        return self.act(seat, Discard(T(text)))

    def win(self, seat: int) -> list[dict]:
        return self.act(seat, WIN)

    def chow(self, seat: int, low: str) -> list[dict]:
        return self.act(seat, Chow(T(low)))

    def pass_all(self) -> None:
        """Every seat still asked in the claim window passes."""
        while self.state.phase == CLAIM:
            self.act(pending(self.state)[0], PASS)

    def drop_drawn(self, seat: int) -> None:
        """``seat`` discards the tile it just drew and everybody asked passes."""
        assert self.state.turn == seat and self.state.drawn is not None
        self.act(seat, Discard(self.state.drawn))
        self.pass_all()

    def cycle_until(self, remaining: int) -> None:
        """Each seat in turn discards its drawn tile (all claims passed) until ``remaining`` tiles are
        left in the wall."""
        while self.state.tail - self.state.head > remaining:
            self.drop_drawn(self.state.turn)

    def replayed(self) -> HandState:
        """The state rebuilt from the wall and the log."""
        from game.state import replay

        return replay(self.state.rules, self.log, wall=self.wall, dealer=self.state.dealer,
                      prevalent_wind=self.state.prevalent)

    @property
    def result(self):
        return self.state.result

    def kinds(self, t: str) -> list[dict]:
        return [e for e in self.events if e["t"] == t]


def tile_census(s: HandState) -> list[int]:
    """Every tile of the hand, wherever it is, sorted (conservation check)."""
    out: list[int] = list(s.wall[s.head:s.tail])
    for seat in range(4):
        out += s.concealed[seat]
        out += s.flowers[seat]
        for m in s.melds[seat]:
            out += m.tiles
        out += [t for t, claimed in s.ponds[seat] if not claimed]
    if s.claim is not None and s.claim.kind == "rob":
        out.append(s.claim.tile)  # the tile being added is in flight during the robbing window
    out.sort()
    return out


def full_census(rules: Rules) -> list[int]:
    return sorted(full_set(rules.flowers))


def check_sizes(s: HandState) -> None:
    """Standing tiles plus 3 per meld: 13, or 14 for the seat to play after a draw or claim (and the winner)."""
    for seat in range(4):
        n = len(s.concealed[seat]) + 3 * len(s.melds[seat])
        if s.phase == "turn" and seat == s.turn:
            assert n == 14, (seat, n)
        elif s.phase == "over" and s.result.win is not None and seat == s.result.win.winner:
            assert n == 14, (seat, n)
        else:
            assert n == 13, (seat, n)


def _shift(t: int) -> int:
    return t if t >= 34 else (t + 1) % 34


def scrambled(s: HandState, seat: int | None) -> HandState:
    """A copy of ``s`` where everything ``seat`` must not know is changed: other seats' concealed
    tiles, drawn tiles and concealed kongs, the whole wall, and other seats' claim options and answers.
    A view built only from what ``seat`` may see is the same for both."""
    from dataclasses import replace

    n = s.copy()
    n.wall = tuple(_shift(t) for t in s.wall)
    n.concealed = tuple(c if b == seat else tuple(sorted(_shift(t) for t in c)) for b, c in enumerate(s.concealed))
    n.melds = tuple(
        ms if b == seat else tuple(replace(m, tile=_shift(m.tile) % 27) if m.concealed else m for m in ms)
        for b, ms in enumerate(s.melds)
    )
    if s.drawn is not None and s.turn != seat:
        n.drawn = _shift(s.drawn)
    if s.claim is not None:
        w = s.claim
        n.claim = replace(
            w,
            options=tuple(o if b == seat else ((PASS,) if o else ()) for b, o in enumerate(w.options)),
            responses=tuple(r if b == seat else None for b, r in enumerate(w.responses)),
        )
    return n
