"""The state of one hand and its one transition: ``step(state, seat, action) -> (state, events)``.

A state is never changed after it is returned: ``step`` works on a copy, so a rejected action
(``ActionError``) leaves the state as it was. ``legal_actions(state, seat)`` is the only source of
legality; ``step`` accepts exactly what it lists. Seats are table positions 0..3 counterclockwise
(0 → 1 → 2 → 3); the seat wind of a seat is ``(seat - dealer) % 4``.

Draws and flower replacements are not actions: when a claim window closes with no claim, the next
seat draws as part of the same step, and a drawn flower is replaced at once (the server does 补花 for
the player).

Every discard and every added kong opens a claim window (phase CLAIM) that asks all three other seats;
a seat that cannot claim is offered only ``pass``. ``seq`` moves once when the window opens and once
when the last answer closes it, so the numbering and the events are the same whether or not anybody
could claim (docs/state-machine.md).
"""

from __future__ import annotations

import bisect

from game import claims, judge
from game.actions import (
    ADDED_KONGS,
    CONCEALED_KONGS,
    DISCARDS,
    HAND_OVER,
    ILLEGAL,
    MALFORMED,
    NOT_YOUR_TURN,
    READY_DISCARDS,
    STALE,
    SHARED,
    WIN,
    ActionError,
    AddedKong,
    Chow,
    ConcealedKong,
    Discard,
    Kong,
    Pung,
    Win,
    check,
)
from game.records import CHOW, DISCARD_CLAIM, KONG, PUNG, ROB_CLAIM, ClaimWindow, HandResult, MeldRec, fan_lists
from game.rules import Rules
from game.settlement import settle
from game.tiles import is_flower
from game.wall import DEAL_SIZE, build_wall, check_wall

TURN, CLAIM, OVER = "turn", "claim", "over"
SEATS = (0, 1, 2, 3)


class HandState:
    """One hand. Treat as immutable; fields are tuples, per seat where it says so."""

    __slots__ = (
        "rules", "seq", "dealer", "prevalent", "wall", "head", "tail",
        "concealed", "melds", "flowers", "ponds", "blocked", "declared",
        "phase", "turn", "drawn", "kong_draw", "claim", "result", "fouls", "legal_cache",
    )

    rules: Rules
    seq: int  # bumped by every accepted action that moves the hand on (stale-action check)
    dealer: int
    prevalent: int  # prevalent wind 0..3 = E S W N
    wall: tuple  # the whole wall order; the live part is wall[head:tail]
    head: int  # next live draw
    tail: int  # replacements are taken from wall[tail - 1]
    concealed: tuple  # per seat: sorted standing tiles (including a drawn tile)
    melds: tuple  # per seat: MeldRec tuples
    flowers: tuple  # per seat: flowers set aside
    ponds: tuple  # per seat: (tile, claimed) discards in order
    blocked: tuple  # per seat: 停和 (decisions.md item 13)
    declared: tuple  # per seat: 报听
    phase: str  # TURN, CLAIM or OVER
    turn: int  # the seat to play (TURN), the discarder or kong seat (CLAIM)
    drawn: int | None  # the tile the turn seat just drew; None after a chow/pung
    kong_draw: bool  # ``drawn`` is a kong's own replacement (杠上开花)
    claim: object  # ClaimWindow or None
    result: HandResult | None
    fouls: tuple  # (seat, kind, points to each other seat) of false declarations
    # Per seat: its legal actions once asked for (``compute_legal``), None before. Filled by
    # ``legal_actions``, ``checked_step`` and game.match.legal_actions; a copy starts empty.
    legal_cache: list

    @property
    def remaining(self) -> int:
        return self.tail - self.head

    def copy(self) -> HandState:
        n = object.__new__(HandState)
        n.rules = self.rules
        n.seq = self.seq
        n.dealer = self.dealer
        n.prevalent = self.prevalent
        n.wall = self.wall
        n.head = self.head
        n.tail = self.tail
        n.concealed = self.concealed
        n.melds = self.melds
        n.flowers = self.flowers
        n.ponds = self.ponds
        n.blocked = self.blocked
        n.declared = self.declared
        n.phase = self.phase
        n.turn = self.turn
        n.drawn = self.drawn
        n.kong_draw = self.kong_draw
        n.claim = self.claim
        n.result = self.result
        n.fouls = self.fouls
        n.legal_cache = [None, None, None, None]
        return n

    def __repr__(self) -> str:
        return f"<HandState seq={self.seq} phase={self.phase} turn={self.turn} remaining={self.remaining}>"


def _put(tup: tuple, i: int, value) -> tuple:
    return tup[:i] + (value,) + tup[i + 1:]


def _add(tiles: tuple, t: int) -> tuple:
    i = bisect.bisect_right(tiles, t)
    return tiles[:i] + (t,) + tiles[i:]


def _remove(tiles: tuple, t: int, n: int = 1) -> tuple:
    i = tiles.index(t)
    return tiles[:i] + tiles[i + n:]


# ---------------------------------------------------------------------------------------------
# Starting a hand


def start_hand(
    rules: Rules = Rules(),
    *,
    seed: int | None = None,
    wall=None,
    dealer: int = 0,
    prevalent_wind: int = 0,
    seq: int = 0,
    blocked: tuple = (False, False, False, False),
) -> tuple[HandState, list[dict]]:
    """Deal a hand from a seed or from a given wall order (game.wall describes the layout).
    ``blocked``: seats that start the hand under 停和 (a match's can't-win substitutes)."""
    if (seed is None) == (wall is None):
        raise ValueError("give exactly one of seed and wall")
    wall = build_wall(seed, rules.flowers) if wall is None else check_wall(wall, rules.flowers)
    if dealer not in SEATS or prevalent_wind not in SEATS:
        raise ValueError("dealer and prevalent_wind are 0..3")
    s = object.__new__(HandState)
    s.rules, s.seq, s.dealer, s.prevalent = rules, seq, dealer, prevalent_wind
    s.wall, s.head, s.tail = wall, DEAL_SIZE, len(wall)
    s.melds = ((), (), (), ())
    s.ponds = ((), (), (), ())
    s.blocked = tuple(bool(b) for b in blocked)
    s.declared = (False, False, False, False)
    s.claim, s.result, s.fouls = None, None, ()
    s.kong_draw = False
    s.legal_cache = [None, None, None, None]
    events: list[dict] = [{"t": "start", "dealer": dealer, "prevalent": prevalent_wind, "wall": len(wall), "seq": seq}]
    # decisions.md item 7: deal 13 each and a 14th to the dealer.
    hands = [[], [], [], []]
    for i in range(4):
        hands[(dealer + i) % 4] = list(wall[13 * i:13 * i + 13])
    hands[dealer].append(wall[52])
    seat_order = [(dealer + i) % 4 for i in SEATS]
    for seat in seat_order:
        events.append({"t": "deal", "seat": seat, "tiles": sorted(hands[seat]), "count": len(hands[seat])})
    drawn = wall[52]
    # Initial 补花 (item 7): dealer, south, west, north, each replacing all its flowers from the
    # tail, repeated until nobody holds a flower.
    flowers = [[], [], [], []]
    while any(is_flower(t) for h in hands for t in h):
        for seat in seat_order:
            for t in sorted(x for x in hands[seat] if is_flower(x)):
                hands[seat].remove(t)
                flowers[seat].append(t)
                events.append({"t": "flower", "seat": seat, "tile": t, "source": "deal"})
                s.tail -= 1
                r = wall[s.tail]
                hands[seat].append(r)
                events.append({"t": "draw", "seat": seat, "tile": r, "source": "tail"})
                if seat == dealer and is_flower(drawn) and not is_flower(r):
                    drawn = r
    s.concealed = tuple(tuple(sorted(h)) for h in hands)
    s.flowers = tuple(tuple(f) for f in flowers)
    # The dealer's first turn counts as after a draw (the 14th tile): it may win or declare a kong.
    s.phase, s.turn, s.drawn = TURN, dealer, drawn
    events.append({"t": "turn", "seat": dealer, "seq": s.seq})
    return s, events


# ---------------------------------------------------------------------------------------------
# Legality


def pending(state: HandState) -> tuple[int, ...]:
    """Seats that must act now: the turn seat, or the seats still to answer a claim window."""
    if state.phase == TURN:
        return (state.turn,)
    if state.phase == CLAIM:
        return state.claim.waiting
    return ()


def legal_actions(state: HandState, seat: int) -> tuple:
    """Every action ``seat`` may take now (the only source of legality)."""
    cached = state.legal_cache[seat]
    if cached is None:
        cached = state.legal_cache[seat] = compute_legal(state, seat)
    return cached


def compute_legal(s: HandState, seat: int) -> tuple:
    """What ``legal_actions`` lists, computed afresh (callers keep it in ``legal_cache``)."""
    if s.phase == CLAIM:
        return claims.legal(s.claim, seat)
    if s.phase != TURN or seat != s.turn:
        return ()
    rules = s.rules
    c = s.concealed[seat]
    out = []
    drawn = s.drawn
    after_draw = drawn is not None
    # Kongs need a replacement tile (item 10), and none is allowed after the last draw (item 11).
    kong_ok = after_draw and s.tail > s.head
    if after_draw and not s.blocked[seat]:
        if rules.false_win_penalty or judge.can_win(s, seat, drawn, judge.SELF):
            out.append(WIN)
    if s.declared[seat] and after_draw:
        # 报听 locks the hand: discard the drawn tile, or a concealed kong that keeps the waits.
        if kong_ok:
            before = judge.waits(_meld_objs(s.melds[seat]), _remove(c, drawn))
            for t in sorted(set(c)):
                if c.count(t) == 4:
                    rest = _remove(c, t, 4)
                    melds = _meld_objs(s.melds[seat]) + (MeldRec(KONG, t, True).meld(),)
                    if judge.waits(melds, rest) == before:
                        out.append(CONCEALED_KONGS[t])
        out.append(DISCARDS[drawn])
        return tuple(out)
    distinct = dict.fromkeys(c)
    if kong_ok:
        # decisions.md item 10: concealed and added kongs only right after a draw.
        if len(c) - len(distinct) >= 3:
            out.extend(CONCEALED_KONGS[t] for t in distinct if c.count(t) == 4)
        for m in s.melds[seat]:
            if m.kind == PUNG and m.tile in distinct:
                out.append(ADDED_KONGS[m.tile])
    out.extend(map(DISCARDS.__getitem__, distinct))
    if rules.declare_ready and not s.declared[seat] and not s.blocked[seat]:
        out.extend(READY_DISCARDS[t] for t in judge.ready_discards(_meld_objs(s.melds[seat]), c))
    return tuple(out)


def auto_action(state: HandState, seat: int, win: bool = True):
    """What the server plays for an absent or timed-out seat (托管, decisions.md item 14): win if it
    can (and ``win``: a tournament's 托管 never wins), otherwise discard the drawn tile (the rightmost
    tile after a claim) and pass on claims. The room logs it as an ordinary action."""
    legal = legal_actions(state, seat)
    if not legal:
        return None
    if state.phase == CLAIM:
        w = state.claim
        how = judge.ROB if w.kind == ROB_CLAIM else judge.DISCARD
        if win and WIN in legal and judge.can_win(state, seat, w.tile, how):
            return WIN
        return claims.PASS
    if win and WIN in legal and judge.can_win(state, seat, state.drawn, judge.SELF):
        return WIN
    tile = state.drawn if state.drawn is not None else state.concealed[seat][-1]
    return DISCARDS[tile]


def block_win(state: HandState, seat: int) -> tuple[HandState, list[dict]]:
    """停和 imposed from outside the hand (a referee; a can't-win substitute): ``seat`` loses the right
    to win for the rest of this hand (R98 第十三条3; tournament.md 1.4: it plays on, may still chow, pung
    and kong — ``rules.blocked_may_claim`` — and still pays). Not a player's action, so not in
    ``legal_actions``; ``seq`` does not move.

    In an open claim window the seat's 和 option goes at once, and an answer already given as 和 becomes
    a pass (the declaration is void; the seat does not get to choose again). The window still waits for
    the same seats, so it closes as it would have.
    """
    if seat.__class__ is not int or not 0 <= seat <= 3:
        raise ActionError(MALFORMED, f"seat must be 0..3, got {seat!r}")
    if state.phase == OVER:
        raise ActionError(HAND_OVER, "the hand is over")
    s = state.copy()
    events: list[dict] = []
    s.blocked = _put(s.blocked, seat, True)
    w = s.claim
    if s.phase == CLAIM and w.options[seat]:
        keep = tuple(a for a in w.options[seat] if type(a) is not Win) if s.rules.blocked_may_claim else ()
        answer = w.responses[seat]
        if answer is not None and answer not in keep:
            answer = claims.PASS
        s.claim = ClaimWindow(w.kind, w.tile, w.seat, _put(w.options, seat, keep), _put(w.responses, seat, answer))
    return s, events


def _meld_objs(melds: tuple) -> tuple:
    return tuple(m.meld() for m in melds)


# ---------------------------------------------------------------------------------------------
# The transition


def step(state: HandState, seat: int, action) -> tuple[HandState, list[dict]]:
    """Apply ``seat``'s action; returns the new state and the events (to project per recipient)."""
    if id(action) not in SHARED:  # the shared instances of game.actions are well formed
        check(action)
        if action.seq is not None and action.seq != state.seq:
            raise ActionError(STALE, f"action answers seq {action.seq}, the hand is at seq {state.seq}")
    return checked_step(state, seat, action)


def checked_step(state: HandState, seat: int, action) -> tuple[HandState, list[dict]]:
    """``step`` for an action already checked (``game.actions.check``) and found to answer the state's
    ``seq`` (game.match.step checks both for the match before it steps the hand)."""
    if seat.__class__ is not int or not 0 <= seat <= 3:
        raise ActionError(MALFORMED, f"seat must be 0..3, got {seat!r}")
    if state.phase == OVER:
        raise ActionError(HAND_OVER, "the hand is over")
    legal = state.legal_cache[seat]
    if legal is None:
        legal = state.legal_cache[seat] = compute_legal(state, seat)
    if not legal:
        raise ActionError(NOT_YOUR_TURN, f"seat {seat} has nothing to do now")
    if action not in legal:
        raise ActionError(ILLEGAL, f"{action!r} is not legal for seat {seat} now")
    s = state.copy()
    events: list[dict] = []
    if s.phase == CLAIM:
        _respond(s, seat, action, events)
    else:
        s.seq += 1
        kind = type(action)
        if kind is Discard:
            _discard(s, seat, action.tile, action.ready, events)
        elif kind is Win:
            _declare_self(s, seat, events)
        elif kind is ConcealedKong:
            _concealed_kong(s, seat, action.tile, events)
        elif kind is AddedKong:
            _added_kong(s, seat, action.tile, events)
        else:  # pragma: no cover - legal_actions lists nothing else on a turn
            raise AssertionError(action)
    if s.phase == TURN and s.seq != state.seq:
        events.append({"t": "turn", "seat": s.turn, "seq": s.seq})
    return s, events


def _discard(s: HandState, seat: int, tile: int, ready: bool, events: list) -> None:
    s.concealed = _put(s.concealed, seat, _remove(s.concealed[seat], tile))
    s.ponds = _put(s.ponds, seat, s.ponds[seat] + ((tile, False),))
    if ready:
        s.declared = _put(s.declared, seat, True)
    s.drawn, s.kong_draw = None, False
    events.append({"t": "discard", "seat": seat, "tile": tile, "ready": ready})
    _open(s, claims.open_window(DISCARD_CLAIM, tile, seat, claims.discard_options(s, seat, tile)), events)


def _open(s: HandState, window, events: list) -> None:
    s.phase, s.claim = CLAIM, window
    events.append({"t": "claim_window", "kind": window.kind, "tile": window.tile, "seat": window.seat, "seq": s.seq})


def _draw(s: HandState, seat: int, events: list, tail: bool = False, kong: bool = False) -> None:
    """Draw for ``seat`` (from the tail for a replacement), replacing flowers; or end in 荒牌."""
    while True:
        if s.tail == s.head:
            _end(s, None, events)  # the final discard went unclaimed: 荒牌 (item 11)
            return
        if tail:
            s.tail -= 1
            t = s.wall[s.tail]
        else:
            t = s.wall[s.head]
            s.head += 1
        if t >= 34:  # a flower
            s.flowers = _put(s.flowers, seat, s.flowers[seat] + (t,))
            events.append({"t": "flower", "seat": seat, "tile": t, "source": "tail" if tail else "wall"})
            if s.tail == s.head:
                # decisions.md item 11: a flower as the last wall tile cannot be replaced: 荒牌.
                _end(s, None, events)
                return
            tail, kong = True, False  # a win on a flower's replacement is only 自摸 (R98 #46)
            continue
        s.concealed = _put(s.concealed, seat, _add(s.concealed[seat], t))
        s.phase, s.turn, s.drawn, s.kong_draw, s.claim = TURN, seat, t, kong, None
        events.append({"t": "draw", "seat": seat, "tile": t, "source": "tail" if tail else "wall"})
        return


def _declare_self(s: HandState, seat: int, events: list) -> None:
    win = judge.evaluate(s, seat, s.drawn, judge.SELF, None)
    if win is not None:
        _end(s, win, events)
    else:
        _foul(s, seat, s.drawn, judge.SELF, events)  # training mode only: play goes on


def _foul(s: HandState, seat: int, tile: int, how: str, events: list) -> None:
    """A false declaration (decisions.md item 12): 错和 10 / 诈和 20 to each other seat, then 停和."""
    kind = judge.false_win_kind(s, seat, tile, how)
    points = judge.FALSE_WIN_POINTS[kind]
    s.blocked = _put(s.blocked, seat, True)
    s.fouls = s.fouls + ((seat, kind, points),)
    events.append({"t": "foul", "seat": seat, "kind": kind, "points": points})


def _concealed_kong(s: HandState, seat: int, tile: int, events: list) -> None:
    s.concealed = _put(s.concealed, seat, _remove(s.concealed[seat], tile, 4))
    s.melds = _put(s.melds, seat, s.melds[seat] + (MeldRec(KONG, tile, True),))
    events.append({"t": "concealed_kong", "seat": seat, "tile": tile})
    _draw(s, seat, events, tail=True, kong=True)


def _added_kong(s: HandState, seat: int, tile: int, events: list) -> None:
    s.concealed = _put(s.concealed, seat, _remove(s.concealed[seat], tile))
    s.drawn, s.kong_draw = None, False
    events.append({"t": "added_kong", "seat": seat, "tile": tile})
    # The added tile may be robbed (抢杠和, item 10): a window for wins only.
    _open(s, claims.open_window(ROB_CLAIM, tile, seat, claims.rob_options(s, seat, tile)), events)


def _complete_added_kong(s: HandState, seat: int, tile: int, events: list) -> None:
    melds = tuple(
        MeldRec(KONG, m.tile, False, m.claimed, m.source, added=True) if m.kind == PUNG and m.tile == tile else m
        for m in s.melds[seat]
    )
    s.melds = _put(s.melds, seat, melds)
    _draw(s, seat, events, tail=True, kong=True)


def _respond(s: HandState, seat: int, action, events: list) -> None:
    w = s.claim
    # Keep the listed instance (no seq) so a stored window is independent of client input.
    for a in w.options[seat] + (claims.PASS,):
        if a == action:
            action = a
            break
    w = ClaimWindow(w.kind, w.tile, w.seat, w.options, _put(w.responses, seat, action))
    s.claim = w
    events.append({"t": "response", "seat": seat, "action": action.name})
    if w.waiting:
        return  # the window stays open: same seq, so the other seats' answers stay current
    s.seq += 1
    _resolve(s, w, events)


def _resolve(s: HandState, w, events: list) -> None:
    how = judge.ROB if w.kind == ROB_CLAIM else judge.DISCARD
    for seat in claims.winners(w):
        if s.blocked[seat]:
            continue
        win = judge.evaluate(s, seat, w.tile, how, w.seat)
        if win is not None:
            if how == judge.DISCARD:
                pond = s.ponds[w.seat]
                s.ponds = _put(s.ponds, w.seat, pond[:-1] + ((w.tile, True),))
            s.concealed = _put(s.concealed, seat, _add(s.concealed[seat], w.tile))
            _end(s, win, events)
            return
        _foul(s, seat, w.tile, how, events)
    if w.kind == ROB_CLAIM:
        _complete_added_kong(s, w.seat, w.tile, events)
        return
    claim = claims.meld_claim(w)
    if claim is None:
        _draw(s, (w.seat + 1) % 4, events)
        return
    seat, action = claim
    tile, src = w.tile, w.seat
    pond = s.ponds[src]
    s.ponds = _put(s.ponds, src, pond[:-1] + ((tile, True),))
    c = s.concealed[seat]
    if type(action) is Chow:
        low = action.low
        for t in (low, low + 1, low + 2):
            if t != tile:
                c = _remove(c, t)
        meld = MeldRec(CHOW, low, False, tile, src)
    elif type(action) is Pung:
        c = _remove(c, tile, 2)
        meld = MeldRec(PUNG, tile, False, tile, src)
    else:
        c = _remove(c, tile, 3)
        meld = MeldRec(KONG, tile, False, tile, src)
    s.concealed = _put(s.concealed, seat, c)
    s.melds = _put(s.melds, seat, s.melds[seat] + (meld,))
    s.claim = None
    events.append({"t": "claim", "seat": seat, "kind": meld.kind, "tile": tile, "from": src, "meld": meld.to_dict()})
    if type(action) is Kong:
        _draw(s, seat, events, tail=True, kong=True)
    else:
        # decisions.md item 9: after a chow or pung the claimer must discard (no kong, no win).
        s.phase, s.turn, s.drawn, s.kong_draw = TURN, seat, None, False


def _end(s: HandState, win, events: list) -> None:
    penalties = [0, 0, 0, 0]
    for seat, _kind, points in s.fouls:
        for other in SEATS:
            if other != seat:
                penalties[other] += points
                penalties[seat] -= points
    s.result = HandResult(win, settle(win, s.rules), tuple(penalties))
    s.phase, s.claim, s.drawn = OVER, None, None
    # Concealed kongs are shown at the end of the hand (procedure.md §4.6); a winner lays the hand open.
    kongs = [[m.tile for m in s.melds[seat] if m.concealed] for seat in SEATS]
    event = {"t": "hand_end", "seq": s.seq, "kongs": kongs, "payments": list(s.result.payments),
             "penalties": penalties}
    if win is None:
        event["win"] = None
        # 荒牌: every hand is laid open (R98); a win shows the winner's hand only.
        event["hands"] = [list(c) for c in s.concealed]
    else:
        event["win"] = {
            "seat": win.winner, "from": win.payer, "tile": win.tile, "robbed": win.robbed,
            "self_drawn": win.self_drawn, "tiles": list(win.hand.tiles),
            "fans": fan_lists(win.fans), "total": win.total,
            "kong": win.ctx.kong, "last_tile": win.ctx.last_tile, "fourth_tile": win.ctx.fourth_tile,
        }
    events.append(event)


def replay(rules: Rules, log, *, seed: int | None = None, wall=None, dealer: int = 0, prevalent_wind: int = 0,
           seq: int = 0) -> HandState:
    """Fold ``step`` over a log of (seat, action) from the same start."""
    s, _ = start_hand(rules, seed=seed, wall=wall, dealer=dealer, prevalent_wind=prevalent_wind, seq=seq)
    for seat, action in log:
        s, _ = step(s, seat, action)
    return s


__all__ = ["HandState", "start_hand", "step", "legal_actions", "pending", "auto_action", "replay", "block_win",
           "compute_legal", "TURN", "CLAIM", "OVER"]
