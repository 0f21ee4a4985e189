"""A match (局): 16 hands, or fewer by ``rules.hands``, with seats, winds, deals and running scores.

Players are numbered by their seat in the first round (0..3 = E, S, W, N); hands are played by table
seats (game.state). decisions.md item 8: the dealer never repeats (the deal passes to the next seat
after every hand, win or draw); 4 wind rounds of 4 hands; players change seats between rounds:
initial seat -> seat in rounds 1-4 is E: E,S,N,W · S: S,E,W,N · W: W,N,E,S · N: N,W,S,E. Each round
starts with the dealer in the East seat.

Every hand's wall comes from the splitmix64 generator kept in the match state (or from given walls,
for duplicate tables), so a match is (seed, rules, actions) and ``replay`` rebuilds it exactly.
Between hands each player sends ``Continue``; when all four have, the next hand is dealt.

System actions (``game.actions.StopWin``, ``NoWin``, ``TimeUp``) come from the room for a referee or a
tournament, never from a player: ``step`` accepts them outside ``legal_actions`` and they are logged
like any action, so ``replay`` and ``replay_hands`` rebuild their effect (docs/state-machine.md).
"""

from __future__ import annotations

from game import state as hand_state
from game.actions import (
    CONTINUE,
    PASS,
    ILLEGAL,
    MALFORMED,
    MATCH_OVER,
    HAND_OVER,
    NOT_YOUR_TURN,
    STALE,
    SYSTEM_TYPES,
    ActionError,
    Continue,
    NoWin,
    TimeUp,
    check,
    with_seq,
)
from game.codec import hand_dict, result_dict
from game.rules import Rules
from game.views import project as project_seat
from game.views import project_open
from game.views import view as hand_view
from game.wall import check_wall, full_set, seed_state, shuffled

PLAYING, BETWEEN, FINISHED = "playing", "between", "finished"
# The form of a match's action log. Format 1 logs were written when a claim window asked only the seats
# that could claim: they hold no answers from the others, and their seq numbers are the old ones.
LOG_FORMAT = 2

# decisions.md item 8: SEAT_SCHEME[player][round] = the seat (0..3 = E S W N) of that player.
SEAT_SCHEME = (
    (0, 1, 3, 2),  # E: E, S, N, W
    (1, 0, 2, 3),  # S: S, E, W, N
    (2, 3, 0, 1),  # W: W, N, E, S
    (3, 2, 1, 0),  # N: N, W, S, E
)
# Per round: the player at each seat (MatchState.seats).
_SEATS = tuple(tuple(next(p for p in range(4) if SEAT_SCHEME[p][r] == seat) for seat in range(4)) for r in range(4))


class MatchState:
    """Treat as immutable, like HandState."""

    __slots__ = ("rules", "seed", "rng", "walls", "number", "hand", "scores", "history", "phase", "ready", "seq",
                 "no_win", "last", "void")

    no_win: tuple  # per player: cannot win for the rest of the match (NoWin); 停和 at every deal
    last: int  # the number of the match's final hand: rules.hands - 1, earlier after TimeUp(finish_hand)
    void: bool  # the match ended by TimeUp with a hand in progress: that hand counts for nothing

    def copy(self) -> MatchState:
        n = object.__new__(MatchState)
        n.rules, n.seed, n.rng, n.walls, n.number = self.rules, self.seed, self.rng, self.walls, self.number
        n.hand, n.scores, n.history, n.phase = self.hand, self.scores, self.history, self.phase
        n.ready, n.seq = self.ready, self.seq
        n.no_win, n.last, n.void = self.no_win, self.last, self.void
        return n

    @property
    def round(self) -> int:
        return self.number // 4

    def seat_of(self, player: int) -> int:
        return SEAT_SCHEME[player][self.number // 4]  # self.round, without a property call (hot)

    def player_at(self, seat: int) -> int:
        return self.seats()[seat]

    def seats(self) -> list[int]:
        """The player at each seat this round."""
        return list(_SEATS[self.number // 4])

    def to_dict(self) -> dict:
        return {
            "rules": hand_dict(self.hand)["rules"], "seed": self.seed, "rng": self.rng,
            "walls": None if self.walls is None else [list(w) for w in self.walls],
            "number": self.number, "hand": hand_dict(self.hand), "scores": list(self.scores),
            "history": [result_dict(r) for r in self.history], "phase": self.phase,
            "ready": list(self.ready), "seq": self.seq,
            "no_win": list(self.no_win), "last": self.last, "void": self.void,
        }

    def __repr__(self) -> str:
        return f"<MatchState hand={self.number} phase={self.phase} seq={self.seq} scores={self.scores}>"


def seat_in(player: int, hand_number: int) -> int:
    return SEAT_SCHEME[player][hand_number // 4]


def player_in(seat: int, hand_number: int) -> int:
    """The player at table ``seat`` in hand ``hand_number``."""
    r = hand_number // 4
    return next(p for p in range(4) if SEAT_SCHEME[p][r] == seat)


def start_match(rules: Rules = Rules(), seed: int | None = None, walls=None) -> tuple[MatchState, list[dict]]:
    """A match from a seed, or from one given wall per hand (``walls``)."""
    if (seed is None) == (walls is None):
        raise ValueError("give exactly one of seed and walls")
    if not 1 <= rules.hands <= 16:
        raise ValueError(f"a match has 1..16 hands, got {rules.hands}")
    m = object.__new__(MatchState)
    m.rules, m.seed = rules, seed
    m.rng = None if seed is None else seed_state(seed)
    m.walls = None
    if walls is not None:
        walls = tuple(check_wall(w, rules.flowers) for w in walls)
        if len(walls) < rules.hands:
            raise ValueError(f"{rules.hands} hands need {rules.hands} walls, got {len(walls)}")
        m.walls = walls
    m.number, m.scores, m.history = 0, (0, 0, 0, 0), ()
    m.ready = (False,) * 4
    m.seq = 0
    m.no_win, m.last, m.void = (False,) * 4, rules.hands - 1, False
    events: list[dict] = []
    _deal(m, events)
    return m, events


def _deal(m: MatchState, events: list) -> None:
    """Start hand ``m.number``: the dealer is seat number % 4, the prevalent wind the round."""
    if m.walls is not None:
        wall = m.walls[m.number]
    else:
        wall, m.rng = shuffled(full_set(m.rules.flowers), m.rng)
    m.phase, m.ready = PLAYING, (False,) * 4
    events.append({"t": "hand_start", "hand": m.number, "round": m.round, "seats": m.seats(),
                   "scores": list(m.scores), "seq": m.seq})
    # A can't-win player starts every hand under 停和 (NoWin).
    blocked = tuple(m.no_win[p] for p in m.seats())
    m.hand, hand_events = hand_state.start_hand(
        m.rules, wall=wall, dealer=m.number % 4, prevalent_wind=m.round, seq=m.seq, blocked=blocked
    )
    events.extend(_tag(hand_events, m.number))


def _tag(events: list, number: int) -> list:
    for e in events:
        e["hand"] = number
    return events


def seat_players(m: MatchState) -> tuple[int, ...]:
    """``m.seats()`` as a shared tuple (read only): the player at each seat this round."""
    return _SEATS[m.number // 4]


def legal_actions(m: MatchState, player: int) -> tuple:
    if m.phase == PLAYING:
        seat, legal = SEAT_SCHEME[player][m.number // 4], m.hand.legal_cache  # m.seat_of(player)
        cached = legal[seat]  # hand_state.legal_actions' cache, read and filled here: ~5 calls fewer per play
        if cached is None:
            cached = legal[seat] = hand_state.compute_legal(m.hand, seat)
        return cached
    if m.phase == BETWEEN and not m.ready[player]:
        return (CONTINUE,)
    return ()


def pending(m: MatchState) -> tuple[int, ...]:
    """Players who must act now."""
    if m.phase == PLAYING:
        seats, waiting = _SEATS[m.number // 4], hand_state.pending(m.hand)
        if len(waiting) == 1:  # a turn: the common case
            return (seats[waiting[0]],)
        return tuple(sorted([seats[s] for s in waiting]))
    if m.phase == BETWEEN:
        return tuple(p for p in range(4) if not m.ready[p])
    return ()


def step(m: MatchState, player: int, action) -> tuple[MatchState, list[dict]]:
    """Apply a player's action (players are 0..3 by first-round seat), or a system action (``TimeUp``
    with ``player`` None)."""
    check(action)
    if type(action) in SYSTEM_TYPES:
        return _system(m, player, action)
    if type(player) is not int or not 0 <= player < 4:
        raise ActionError(MALFORMED, f"player must be 0..3, got {player!r}")
    _check_current(m, action)
    if m.phase == PLAYING:
        # check() and _check_current() above: the action is well formed and answers m.seq == m.hand.seq
        hand, events = hand_state.checked_step(m.hand, SEAT_SCHEME[player][m.number // 4], action)  # m.seat_of
        n = m.copy()
        n.hand, n.seq = hand, hand.seq
        _tag(events, n.number)
        if hand.phase == hand_state.OVER:
            _score(n, events)
        return n, events
    # BETWEEN
    if m.ready[player]:
        raise ActionError(NOT_YOUR_TURN, f"player {player} is already ready")
    if type(action) is not Continue:
        raise ActionError(ILLEGAL, "between hands the only action is continue")
    n = m.copy()
    n.ready = tuple(r or p == player for p, r in enumerate(m.ready))
    events = [{"t": "ready", "player": player, "hand": m.number}]
    if all(n.ready):
        n.seq += 1
        n.number += 1
        _deal(n, events)
    return n, events


def _check_current(m: MatchState, action) -> None:
    """The action answers this moment of a match that is still on."""
    if action.seq is not None and action.seq != m.seq:
        raise ActionError(STALE, f"action answers seq {action.seq}, the match is at seq {m.seq}")
    if m.phase == FINISHED:
        raise ActionError(MATCH_OVER, "the match is over")


def _system(m: MatchState, player, action) -> tuple[MatchState, list[dict]]:
    """StopWin and NoWin name a player; TimeUp concerns the table (``player`` None)."""
    kind = type(action)
    if kind is TimeUp:
        if player is not None:
            raise ActionError(MALFORMED, f"time_up concerns the table: player must be None, got {player!r}")
    elif type(player) is not int or not 0 <= player < 4:
        raise ActionError(MALFORMED, f"player must be 0..3, got {player!r}")
    _check_current(m, action)
    n = m.copy()
    events: list[dict] = []
    if kind is TimeUp:
        if action.finish_hand and m.phase == PLAYING:
            n.last = min(n.last, n.number)  # the hand in progress is the last one
            return n, events
        # R98 第六条四: time is called: the match ends now; a hand in progress is void (tournament.md 2.6).
        n.phase, n.void, n.seq = FINISHED, m.phase == PLAYING, m.seq + 1
        end = {"t": "match_end", "scores": list(n.scores), "hand": n.number}
        if n.void:
            end["void"] = True
        return n, [end]
    if kind is NoWin:
        n.no_win = tuple(w or p == player for p, w in enumerate(m.no_win))
    elif m.phase != PLAYING:  # StopWin
        raise ActionError(HAND_OVER, "停和 needs a hand in play")
    if m.phase == PLAYING:
        hand, events = hand_state.block_win(m.hand, m.seat_of(player))
        n.hand, n.seq = hand, hand.seq
        _tag(events, n.number)
        if hand.phase == hand_state.OVER:  # the claim window it closed ended the hand
            _score(n, events)
    return n, events


def _score(n: MatchState, events: list) -> None:
    """Add the hand's payments and penalties to the players' running scores."""
    result = n.hand.result
    seats = n.seats()
    deltas = [0, 0, 0, 0]
    for seat, d in enumerate(result.deltas):
        deltas[seats[seat]] = d
    n.scores = tuple(s + d for s, d in zip(n.scores, deltas))
    n.history = n.history + (result,)
    events.append({"t": "scores", "hand": n.number, "scores": list(n.scores), "deltas": deltas})
    if n.number >= n.last:
        n.phase = FINISHED
        events.append({"t": "match_end", "scores": list(n.scores), "hand": n.number})
    else:
        n.phase = BETWEEN


def replay(rules: Rules, log, seed: int | None = None, walls=None, log_format: int = LOG_FORMAT) -> MatchState:
    """Fold ``step`` over a log of (player, action)."""
    m, _ = start_match(rules, seed=seed, walls=walls)
    for player, action in log:
        m, _ = replay_step(m, player, action, log_format)
    return m


def replay_step(m: MatchState, player, action, log_format: int = LOG_FORMAT) -> tuple[MatchState, list[dict]]:
    """``step`` for a logged action. In a format 1 log, an action that is not an answer to the open claim
    window means the window closed: the seats still to answer pass first (they could not claim, or the
    old window had been decided without them); the action's old seq is not checked."""
    if log_format >= LOG_FORMAT:
        return step(m, player, action)
    events: list[dict] = []
    if (m.phase == PLAYING and m.hand.phase == hand_state.CLAIM and type(action) not in SYSTEM_TYPES
            and action not in legal_actions(m, player)):
        for p in pending(m):
            m, more = step(m, p, PASS)
            events += more
    m, more = step(m, player, with_seq(action, None))
    return m, events + more


def replay_hands(rules: Rules, log, seed: int | None = None, walls=None,
                 log_format: int = LOG_FORMAT) -> list[list[dict]]:
    """A finished match's events, hand by hand, as its replay shows them: every seat's tiles
    (``game.views.project_open``) and, in each ``hand_end``, every seat's final concealed tiles as
    ``hands``. Between-hands ``ready`` events are left out."""
    m, events = start_match(rules, seed=seed, walls=walls)
    hands: list[list[dict]] = []
    for player, action in [(None, None), *log]:
        if action is not None:
            m, events = replay_step(m, player, action, log_format)
        for e in events:
            if e["t"] == "ready":
                continue
            if e["t"] == "hand_start":
                hands.append([])
            out = project_open(e)
            if out is None:
                continue
            if e["t"] == "hand_end":
                out["hands"] = [list(c) for c in m.hand.concealed]
            hands[-1].append(out)
    return hands


def view(m: MatchState, player: int | None) -> dict:
    """A player's (or a spectator's) view: the hand from the player's seat plus the match."""
    seat = None if player is None else m.seat_of(player)
    v = hand_view(m.hand, seat)
    v["match"] = {
        "hand": m.number, "hands": m.rules.hands, "round": m.round, "seats": m.seats(),
        "scores": list(m.scores), "phase": m.phase, "ready": list(m.ready), "player": player, "seq": m.seq,
        "no_win": list(m.no_win), "last": m.last, "void": m.void,
    }
    if m.phase == FINISHED and seat is not None:
        v["legal"], v["to_act"] = [], False  # a void hand is not played on
    if m.phase == BETWEEN and player is not None and not m.ready[player]:
        v["legal"], v["to_act"] = [{"a": "continue"}], True
    return v


def project(event: dict, player: int | None) -> dict | None:
    """The event as a player sees it (hand events are projected for that player's seat then)."""
    seat = None if player is None else seat_in(player, event["hand"])
    return project_seat(event, seat)
