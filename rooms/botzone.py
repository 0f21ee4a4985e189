"""The Botzone "Chinese Standard Mahjong" protocol (docs/bots.md): our match events as the requests one
external bot expects, and its one-line answers as our actions. Pure: no process, no clock.

A Botzone game is one hand. Per hand a bot gets ``0 <seat> <quan>``, the deal ``1 f0 f1 f2 f3 <13
tiles> <flowers>``, then one request per event of the table (its own draw ``2 t``, others' ``3 s
...``), and answers every request with one line. Seats in requests count from the hand's East
(the dealer). A pung or chow and the discard after it are one answer (``PENG t2``, ``CHI mid t2``)
and one request for the others (``3 s PENG t2``); our game takes them as two actions, so the discard
is kept (``Answer.then``) and played when the claim is granted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from game import match as gm
from game.actions import (ADDED_KONGS, CHOWS, CONCEALED_KONGS, DISCARDS, KONG, PASS, PUNG, WIN, Action,
                          AddedKong, Chow, ConcealedKong, Discard, Kong, Pung, Win)
from game.state import CLAIM, TURN
from game.tiles import NUM_KINDS, from_reference, is_number, rank, to_reference

ANSWER_MAX = 64  # characters: no legal answer is longer ("CHI W2 W9" is 9)


def tile_code(t: int) -> str:
    """W1..W9 万, T1..T9 条, B1..B9 饼, F1..F4 winds, J1..J3 中发白, H1..H8 flowers."""
    return f"H{t - NUM_KINDS + 1}" if t >= NUM_KINDS else to_reference(t)


def code_tile(code: str) -> int | None:
    """A playable tile (0..33) from its code, or None (flowers are never played)."""
    try:
        return from_reference(code)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Request:
    line: str
    seq: int | None = None  # the match's seq when the request asks for a decision; None: answer PASS
    index: int = field(default=-1, compare=False)  # its place among the hand's requests
    hand: tuple | None = field(default=None, compare=False)  # (requests, responses) of its hand, for a restart

    def history(self) -> str:
        """The input of a bot (re)started to answer this request: its hand's requests so far."""
        requests, responses = self.hand
        return history_input(requests[:self.index + 1], responses[:self.index])


@dataclass(frozen=True, slots=True)
class Answer:
    action: Action | None  # None: not usable (``fault`` says why)
    then: int | None = None  # the discard after a pung or chow
    fault: str | None = None  # "malformed" | "illegal"


END = Request("")  # the hand is over: the bot's game ends


class BotzoneSeat:
    """The requests of one player's bot, fed the match's events step by step (``feed``)."""

    def __init__(self, player: int):
        self.player = player
        self.seat = 0  # our game seat in the hand
        self.dealer = 0
        self.hand = -1  # the hand number the requests are for
        self.requests: list[str] = []  # this hand's requests, for a restart (history replay)
        self.responses: list[str] = []  # what the seat did after each request, in Botzone's words
        self._claimed: tuple[int, Action] | None = None  # (request index, our pung or chow): its discard follows
        self._melding: tuple[int, str, int] | None = None  # (seat, "PENG"/"CHI", chow middle): waits for the discard
        self._dealt = False

    def _b(self, seat: int) -> int:
        """A game seat as Botzone numbers it: 0 is the hand's East."""
        return (seat - self.dealer) % 4

    def feed(self, m: gm.MatchState, events: list[dict]) -> list[Request]:
        """The requests for ``events`` (one step of the match, full and unprojected), ``m`` the state after
        them. The last one asks for a decision when the player must act in the hand; ``END`` when the
        hand is over. Only what this player may see is put into a request."""
        out: list[Request] = []
        for e in events:
            t = e["t"]
            if t == "hand_start":
                self.hand, self._dealt, self._melding, self.requests, self.responses = e["hand"], False, None, [], []
                continue
            if e.get("hand") != self.hand:
                continue
            if t == "start":
                self.dealer = e["dealer"]
                self.seat = gm.seat_in(self.player, self.hand)
                out.append(Request(f"0 {self._b(self.seat)} {e['prevalent']}"))
            elif t == "turn" and not self._dealt:
                self._dealt = True
                out += self._deal(m)
            elif not self._dealt:
                continue  # the deal and its 补花 are told at once, by the deal request
            elif t == "flower":
                out.append(Request(f"3 {self._b(e['seat'])} BUHUA {tile_code(e['tile'])}"))
            elif t == "draw":
                mine = e["seat"] == self.seat
                out.append(Request(f"2 {tile_code(e['tile'])}" if mine else f"3 {self._b(e['seat'])} DRAW"))
            elif t == "discard":
                s = e["seat"]
                code = tile_code(e["tile"])
                meld = self._melding
                self._melding = None
                if meld is not None and meld[0] == s:
                    mid = f" {tile_code(meld[2])}" if meld[1] == "CHI" else ""
                    out.append(Request(f"3 {self._b(s)} {meld[1]}{mid} {code}"))
                else:
                    out.append(Request(f"3 {self._b(s)} PLAY {code}"))
            elif t == "claim":
                if e["kind"] == "kong":
                    out.append(Request(f"3 {self._b(e['seat'])} GANG"))
                else:
                    low = e["meld"]["tile"]
                    self._melding = (e["seat"], "CHI" if e["kind"] == "chow" else "PENG", low + 1)
            elif t == "concealed_kong":
                out.append(Request(f"3 {self._b(e['seat'])} GANG"))  # the tile stays hidden (e["tile"] is not read)
            elif t == "added_kong":
                out.append(Request(f"3 {self._b(e['seat'])} BUGANG {tile_code(e['tile'])}"))
            elif t in ("hand_end", "match_end"):
                self._dealt = False
                self.hand = -1
                return self._record(out) + [END]
        if out and self._deciding(m):
            out[-1] = Request(out[-1].line, m.seq)
        return self._record(out)

    def _record(self, out: list[Request]) -> list[Request]:
        n = len(self.requests)
        hand = (self.requests, self.responses)
        self.requests.extend(r.line for r in out)
        self.responses.extend("PASS" for _ in out)
        return [Request(r.line, r.seq, n + i, hand) for i, r in enumerate(out)]

    def acted(self, action: Action) -> None:
        """The player took ``action`` (its bot's answer or the room's replacement): the response to the
        last request, for a replayed history."""
        if not self.responses:
            return
        i = len(self.responses) - 1
        kind = type(action)
        if kind in (Pung, Chow):
            self._claimed = (i, action)
            return
        claimed, self._claimed = self._claimed, None
        if kind is Discard and claimed is not None and claimed[0] == i:
            self.responses[i] = botzone_answer(claimed[1], action.tile)
        else:
            self.responses[i] = botzone_answer(action)

    def _deal(self, m: gm.MatchState) -> list[Request]:
        h = m.hand
        own = list(h.concealed[self.seat])
        drawn = h.drawn if self.seat == h.turn else None
        if drawn is not None:
            own.remove(drawn)  # the dealer's 14th tile is its first draw for Botzone
        order = [(self.dealer + i) % 4 for i in range(4)]
        counts = " ".join(str(len(h.flowers[s])) for s in order)
        flowers = [tile_code(f) for s in order for f in h.flowers[s]]
        line = " ".join(["1", counts, *map(tile_code, own), *flowers])
        out = [Request(line)]
        out.append(Request(f"2 {tile_code(drawn)}") if drawn is not None else Request(f"3 {self._b(h.turn)} DRAW"))
        return out

    def _deciding(self, m: gm.MatchState) -> bool:
        """The player must act in the hand now and the request just made asks it to."""
        if m.phase != gm.PLAYING:
            return False
        h = m.hand
        if h.phase == CLAIM:
            return self.seat in h.claim.waiting
        return h.phase == TURN and h.turn == self.seat and h.drawn is not None


class MatchFeed:
    """Follows a room's match for its external bots: steps its own copy of the match with the room's
    actions, so each step's full events are translated for each bot's player (``BotzoneSeat``)."""

    def __init__(self, players):
        self.seats = {p: BotzoneSeat(p) for p in players}
        self.match_no = 0
        self.m: gm.MatchState | None = None
        self.done = 0  # the room's actions already stepped

    def sync(self, match_no: int, match: gm.MatchState | None, actions: list) -> list[tuple[int, Request]]:
        """The new requests (player, request) since the last call, for the room's match ``match_no``
        (its state ``match``, its actions so far ``actions``)."""
        out: list[tuple[int, Request]] = []
        if match is None or match_no == 0:
            return out
        if match_no != self.match_no or len(actions) < self.done:
            self.match_no, self.done = match_no, 0
            self.m, events = gm.start_match(match.rules, seed=match.seed if match.walls is None else None,
                                            walls=match.walls)
            out += self._feed(events)
        for p, action in actions[self.done:]:
            if p in self.seats:
                self.seats[p].acted(action)
            self.m, events = gm.step(self.m, p, action)
            self.done += 1
            out += self._feed(events)
        return out

    def _feed(self, events: list[dict]) -> list[tuple[int, Request]]:
        return [(p, r) for p, seat in self.seats.items() for r in seat.feed(self.m, events)]

    def legal(self, player: int) -> tuple:
        return () if self.m is None else gm.legal_actions(self.m, player)

    def turn(self, player: int) -> bool:
        """The player's decision is on its own turn (after a draw or a claim), not in a claim window."""
        return self.m is not None and self.m.phase == gm.PLAYING and self.m.hand.phase == TURN


def parse_answer(line, legal, turn: bool) -> Answer:
    """A bot's answer to a decision request as our action, checked against ``legal`` (the seat's legal
    actions). ``turn``: after its own draw (PLAY, GANG t, BUGANG t, HU), else a claim window (PASS, HU,
    PENG t2, GANG, CHI mid t2)."""
    if not isinstance(line, str) or len(line) > ANSWER_MAX:
        return Answer(None, fault="malformed")
    words = line.split()
    if not words:
        return Answer(None, fault="malformed")
    verb, args = words[0], words[1:]
    tiles = [code_tile(w) for w in args]
    if any(t is None for t in tiles):
        return Answer(None, fault="malformed")
    action, then = None, None
    if turn:
        one = {"PLAY": DISCARDS, "GANG": CONCEALED_KONGS, "BUGANG": ADDED_KONGS}
        if verb in one and len(tiles) == 1:
            action = one[verb][tiles[0]]
        elif verb == "HU" and not tiles:
            action = WIN
    elif verb in ("PASS", "HU", "GANG") and not tiles:
        action = {"PASS": PASS, "HU": WIN, "GANG": KONG}[verb]
    elif verb == "PENG" and len(tiles) == 1:
        action, then = PUNG, tiles[0]
    elif verb == "CHI" and len(tiles) == 2:
        mid = tiles[0]
        if not (is_number(mid) and 2 <= rank(mid) <= 8):
            return Answer(None, fault="malformed")
        action, then = CHOWS[mid - 1], tiles[1]
    if action is None:
        return Answer(None, fault="malformed")
    if action not in legal:
        return Answer(None, fault="illegal")
    return Answer(action, then)


def botzone_answer(action: Action, then: int | None = None) -> str:
    """Our action in Botzone's words (the responses of a replayed history)."""
    kind = type(action)
    if kind is Discard:
        return f"PLAY {tile_code(action.tile)}"
    if kind is ConcealedKong:
        return f"GANG {tile_code(action.tile)}"
    if kind is AddedKong:
        return f"BUGANG {tile_code(action.tile)}"
    if kind is Win:
        return "HU"
    if kind is Kong:
        return "GANG"
    if kind is Pung and then is not None:
        return f"PENG {tile_code(then)}"
    if kind is Chow and then is not None:
        return f"CHI {tile_code(action.low + 1)} {tile_code(then)}"
    return "PASS"


def history_input(requests: list[str], responses: list[str]) -> str:
    """A (re)started bot's first input (Botzone's simple interaction): the number of requests, then the
    requests with the responses between them, the last request unanswered."""
    assert len(responses) == len(requests) - 1
    lines = [str(len(requests))]
    for i, r in enumerate(requests):
        lines.append(r)
        if i < len(responses):
            lines.append(responses[i])
    return "\n".join(lines) + "\n"


__all__ = ["BotzoneSeat", "MatchFeed", "Request", "Answer", "END", "parse_answer", "botzone_answer", "history_input",
           "tile_code", "code_tile"]
