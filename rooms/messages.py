"""What a room sends: its snapshot and public info, and the messages each member gets after a change
(room updates, game events as the member's seat sees them, with its legal actions, the clock and its
wait hint). Mixed into ``rooms.room.Room``; everything here reads the room and changes nothing but the
record of the hints already sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from game import match as gm
from game.match import SEAT_SCHEME
from game.actions import wire_list
from game.hand import Meld
from game.hints import hint_and_shanten, hint_of_view
from game.state import CLAIM as HAND_CLAIM, OVER as HAND_OVER
from game.views import EVENT_FIELDS, project as project_seat
from rooms import clock
from rooms.config import PLAYING
from rooms.effects import Announce, Answered, Applied, Effect, GameEvents, HintAsked, Moment, Notice, RoomChanged

if TYPE_CHECKING:  # pragma: no cover
    from rooms.membership import Member

_UNSENT = object()
_OWN = object()  # _shared: this event is projected for each recipient


class Outbound(NamedTuple):
    to: str  # a player id
    msg: dict


# NamedTuple's own constructor is a Python function: built here as tuples, at half the cost (~3 per action).
_new = tuple.__new__


# What rendering each kind of effect reads of its moment (Room._moment captures only that).
_TO, _HUMANS, _CLOCK, _INFO = 1, 2, 4, 8
_NEEDS = {RoomChanged: _TO | _INFO, GameEvents: _TO | _HUMANS | _CLOCK, Announce: _TO, Notice: 0,
          Answered: _CLOCK, HintAsked: _HUMANS | _CLOCK}


def _hints_for(at: Moment, seat: int | None, playing: bool) -> bool:
    """Hints go to a human seat (bots get no messages, spectators no hints), while a match is played."""
    return seat is not None and playing and at.humans[seat]


def _shared(events: list) -> list:
    """Per event: its projection when everybody sees the same (built once for all recipients), else _OWN."""
    out = []  # a loop, with game.views.same_for_every_seat's test inline: three calls fewer per event
    for ev in events:
        public, own = EVENT_FIELDS[ev["t"]]
        out.append(project_seat(ev, None) if public is not None and not own else _OWN)  # gm.project(ev, None)
    return out


class RoomMessages:
    def _moment(self, effects: list[Effect]) -> Applied:
        """``effects`` with what rendering them will read of the room as it is now (a live commit):
        only what their kinds need (a claim answer, half the plays, needs the clock only)."""
        need = 0
        for x in effects:
            need |= _NEEDS[type(x)]
        return _new(Applied, (effects, _new(Moment, (
            self.rseq, self.phase, self.match,
            tuple([(m.id, m.seat, m.hints) for m in self.members.values() if m.connected]) if need & _TO else (),
            tuple([s is not None and s.bot is None for s in self.seats]) if need & _HUMANS else (),
            self._clock() if need & _CLOCK else None,
            self.info(True) if need & _INFO else None))))

    def render(self, applied: list[Applied]) -> list[Outbound]:
        """The members' messages for committed changes (rooms/effects.py), in order, each from its own
        moment: called once, by the server, after the entries are durable. Changes nothing but the record
        of the hints already sent."""
        out: list[Outbound] = []
        for effects, at in applied:
            for x in effects:
                kind = type(x)
                if kind is RoomChanged:
                    out += self._broadcast({"t": "room", "info": at.info}, at)
                elif kind is GameEvents:
                    out += self._game_msgs(at, x.events, x.final)
                elif kind is Announce:
                    out += self._broadcast(x.msg, at)
                elif kind is Notice:
                    out.append(_new(Outbound, (x.to, self._msg(dict(x.msg), at.rseq))))
                elif kind is Answered:
                    out.append(_new(Outbound, (x.to, self._game_msg(at, [], x.player, at.clock))))
                elif kind is HintAsked:
                    self._hint_sent.pop(x.to, None)
                    if x.on and _hints_for(at, x.seat, at.phase == PLAYING):
                        msg = self._game_msg(at, [], x.seat, at.clock)
                        out.append(Outbound(x.to, self._add_hint(at, x.to, x.seat, msg, force=True)))
        return out

    def snapshot(self, player_id: str) -> dict:
        m = self.member(player_id)
        seat = m.seat
        game = None
        if self.phase == PLAYING:
            game = self._view(seat)
            if self._hints_for(m):  # not recorded as sent: a snapshot may be built and not sent
                game["hint"] = hint_of_view(game, self.rules)
        return {
            "t": "snapshot", "room": self.id, "rseq": self.rseq, "info": self.info(True),
            "you": {"id": player_id, "seat": seat, "host": player_id == self.host, "hints": m.hints},
            "game": game, "clock": self._clock(), "records": self._snapshot_records(),
        }

    def info(self, member: bool = True) -> dict:
        """The public room: type, config, host, phase and seats (the invite code for members only)."""
        members = self.members
        seats = []
        blocked = self._blocked()
        for i, s in enumerate(self.seats):
            if s is None:
                seats.append(None)
                continue
            human = s.bot is None and s.id in members
            # blocked: 停和 now (R98 第十三条3); no_win / substitute: an unranked bot that cannot win
            # plays the seat (tournament.md 2.4), standing in for ``replaces`` (None: an empty seat).
            seats.append({"id": s.id, "bot": s.bot, "ready": s.ready,
                          "connected": human and members[s.id].connected or s.bot is not None,
                          "auto": self.auto[i] if self.phase == PLAYING else None,
                          "blocked": blocked[i], "no_win": self.stand_in[i], "substitute": self.stand_in[i],
                          "replaces": self.replaced[i]})
            if self.external_bot(i) is not None:  # docs/bots.md: answers replaced by a safe action
                seats[-1]["faults"] = dict(self.bot_faults.get(s.id, {}))
        d = {"id": self.id, "type": self.config.type, "config": self.config.to_dict(), "host": self.host,
             "phase": self.phase, "seats": seats, "matches": self.match_no,
             "spectators": len(self.spectator_ids()),  # a count: the list made every message grow with it
             "table": self.table, "quick": self.quick, "time_up": self.phase == PLAYING and self.match.last < self.rules.hands - 1}
        if member:
            d["invite"] = self.invite
        return d

    def _snapshot_records(self) -> dict:
        """The current match only: its hands, and in the lobby after it the match just finished, without
        its action list (GET /api/matches/<id> replays it). Every finished match made each snapshot
        bigger; earlier ones come by id through the server's ``history``."""
        last = self.finished[-1:] if self.phase != PLAYING else []
        return {"matches": [{k: v for k, v in r.items() if k != "actions"} for r in last], "current": list(self.hands)}

    def spectator_ids(self) -> list[str]:
        return [m.id for m in self.members.values() if m.seat is None]

    def _blocked(self) -> list[bool]:
        """Per player: under 停和 in the hand in play (the hand as the table sees it)."""
        m = self.match
        if self.phase != PLAYING or m.phase != gm.PLAYING:
            return [False] * 4
        return [m.hand.blocked[m.seat_of(p)] for p in range(4)]

    def _msg(self, d: dict, rseq: int) -> dict:
        d["room"] = self.id
        d["rseq"] = rseq
        return d

    def _broadcast(self, d: dict, at: Moment) -> list[Outbound]:
        return [_new(Outbound, (pid, self._msg(dict(d), at.rseq))) for pid, _, _ in at.recipients]

    def _game_msg(self, at: Moment, events: list, player: int | None, clock: dict,
                  shared: list | None = None, seq: object = _UNSENT, legal: tuple | None = None) -> dict:
        """``shared``: the events' projections that are the same for everybody (_shared), when the
        caller builds several messages from the same events; ``legal``: the seat's, when known."""
        projected = []
        if events:  # none in a claim answer's own message (half the plays)
            if shared is None:
                shared = _shared(events)
            project = gm.project
            for ev, x in zip(events, shared):
                if x is _OWN:
                    x = project(ev, player)
                if x is not None:
                    projected.append(x)
        playing = at.phase == PLAYING
        if legal is None:
            legal = gm.legal_actions(at.match, player) if playing and player is not None else ()
        if seq is _UNSENT:
            seq = at.match.seq if playing else None  # what an answer must carry
        return {"t": "game", "events": projected, "legal": wire_list(legal), "to_act": bool(legal), "seq": seq,
                "clock": clock, "room": self.id, "rseq": at.rseq}  # as _msg adds them, without its call

    def _game_msgs(self, at: Moment, events: list, final: tuple | None = None) -> list[Outbound]:
        """``final``: (seq, clock) of the match that these events finished (the room is back in the
        lobby): the seats see them as players still.

        A seat sees an event as a spectator does unless the event is its own (game.views.project: own
        fields go to the event's seat only). Recipients whose messages come out equal (no own event, the
        same legal actions, no new hint) get one dict: built once, and the server encodes it once."""
        out = []
        if not at.recipients:
            return out
        playing = final is not None or at.phase == PLAYING
        seq = _UNSENT if final is None else final[0]
        clock = at.clock if final is None else final[1]  # the same for every recipient (messages are not changed)
        shared = _shared(events)
        owners = () if _OWN not in shared else {
            gm.player_in(ev["seat"], ev["hand"]) for ev, x in zip(events, shared) if x is _OWN and "seat" in ev}
        built: dict = {}  # legal actions (by id) -> the message of every seat with these legal actions and no own event
        match = at.match if at.phase == PLAYING else None
        humans = at.humans
        for pid, seat, hints in at.recipients:
            if seat is None or not playing:  # a spectator
                msg = built.get(None)
                if msg is None:
                    msg = built[None] = self._game_msg(at, events, None, clock, shared, seq)
                out.append(_new(Outbound, (pid, msg)))
                continue
            legal = gm.legal_actions(match, seat) if match is not None else ()
            if seat in owners:
                msg = self._game_msg(at, events, seat, clock, shared, seq, legal)
            else:  # a lone action (a claim window's pass) is a shared instance: the tuple around it is not
                key = id(legal[0]) if len(legal) == 1 else id(legal)
                msg = built.get(key)
                if msg is None:
                    msg = built[key] = self._game_msg(at, events, seat, clock, shared, seq, legal)
            if hints and humans[seat]:  # _hints_for, then _new_hint's work without its call
                h, last = self._seat_hint(seat, at.match), self._hint_sent.get(pid, _UNSENT)
                if not (h is last or h == last):
                    self._hint_sent[pid] = h
                    msg = {**msg, "hint": h}
            out.append(_new(Outbound, (pid, msg)))
        return out

    def _hints_for(self, m: Member) -> bool:
        """Hints go to a human seat that asked for them, never to spectators (bots get no messages)."""
        return (m.hints and m.seat is not None and self.phase == PLAYING
                and self.seats[m.seat] is not None and self.seats[m.seat].bot is None)

    def _add_hint(self, at: Moment, pid: str, seat: int, msg: dict, force: bool = False) -> dict:
        """Put the seat's wait hint into ``msg`` when it differs from the last one sent (or ``force``)."""
        h = self._new_hint(at, pid, seat, force)
        if h is not _UNSENT:
            msg["hint"] = h
        return msg

    def _new_hint(self, at: Moment, pid: str, seat: int, force: bool = False):
        """The seat's wait hint when it differs from the last one sent (or ``force``), recorded as sent;
        else _UNSENT. Computed from the seat's own view only, so it tells nothing the seat cannot see."""
        h = self._seat_hint(seat, at.match)
        last = self._hint_sent.get(pid, _UNSENT)
        if force or not (h is last or h == last):
            self._hint_sent[pid] = h
            return h
        return _UNSENT

    def _seat_hint(self, player: int, match) -> dict | None:
        """``hint_of_view(gm.view(match, player), self.rules)``, read from the state without building the
        view (a whole view per message was most of the room's CPU). tests/rooms/test_hints.py checks
        that the two agree."""
        hand = match.hand
        if hand.phase == HAND_OVER:
            return None
        s = SEAT_SCHEME[player][match.number // 4]  # match.seat_of(player), without the call
        concealed, declared, blocked = hand.concealed[s], hand.declared[s], hand.blocked[s]
        # A seat's hint changes only with its tiles: most messages find the last one's inputs again.
        key = (tuple(concealed), hand.melds[s], (s - hand.dealer) % 4, hand.prevalent, len(hand.flowers[s]),
               declared, blocked)
        last = self._hint_memo.get(player)
        if last is not None and last[0] == key:
            return last[1]
        h = floor = None
        if last is not None:
            h = _after_discard(last, key)
            if h is not None:
                floor = last[2]  # a discard never lowers the shanten
            elif last[2] is not None and _one_drawn(last[0], key):
                floor = last[2] - 1  # a tile drawn lowers it by one at most
        if h is None:
            melds = tuple(Meld(x.kind, x.tile, x.concealed) for x in key[1])
            h, floor = hint_and_shanten(melds, key[0], rules=self.rules, seat_wind=key[2], prevalent=key[3],
                                        flowers=key[4], declared=declared, blocked=blocked, floor=floor)
        self._hint_memo[player] = (key, h, floor)
        return h

    def _legal(self, player: int | None) -> tuple:
        """The seat's legal actions now (bots choose from them; messages use their moment's)."""
        if player is None or self.phase != PLAYING:
            return ()
        return gm.legal_actions(self.match, player)

    def _view(self, player: int | None) -> dict:
        """What a seat (or a spectator, None) sees; bots get exactly this. In a claim window it is the
        game's view too (game.views), the same whether or not anybody can claim."""
        return gm.view(self.match, player)

    def _clock(self) -> dict:
        """The public clock: the open decision's deadline, every seat's bank and 托管 state."""
        m = self.match
        c = self._window_clock  # a window's answers (three plays in four) find its clock unchanged
        if (c is not None and m.hand is not None and m.hand.phase == HAND_CLAIM and self.phase == PLAYING
                and m.phase == gm.PLAYING and c["started"] == self.turn_started and c["banks"] == self.banks
                and c["auto"] == self.auto):
            return c
        # Built whole in each case, keys in the same order (a dict and its update() per action cost more).
        banks, auto = list(self.banks), list(self.auto)
        if self.phase != PLAYING or m.phase not in (gm.PLAYING, gm.BETWEEN):
            return {"decision": None, "deadline": None, "started": None, "free_until": None, "banks": banks, "auto": auto}
        cfg = self.config
        if m.phase == gm.BETWEEN:
            started = self.between_started
            return {"decision": "between", "deadline": started + cfg.between_time, "started": started,
                    "free_until": None, "banks": banks, "auto": auto}
        started = self.turn_started
        if m.hand.phase == HAND_CLAIM:  # a claim window is open
            c = self._window_clock = {"decision": "claim", "deadline": started + cfg.claim_time,
                                      "started": started, "free_until": None, "banks": banks, "auto": auto}
            return c
        p = gm.pending(m)[0]
        free = clock.free_time(cfg, self.turn_first)
        return {"decision": "turn", "deadline": clock.turn_deadline(started, free, banks[p]), "started": started,
                "free_until": started + free, "banks": banks, "auto": auto, "player": p}


def _after_discard(last: tuple, key: tuple) -> dict | None:
    """The hint of a seat that just discarded, read from the one it was shown before the discard (which
    listed the waits after each discard: game.hints), or None if the tiles changed otherwise. Scoring a
    ready hand's waits anew costs tens of milliseconds, and game.hints' shared cache does not keep them
    long when thousands of tables play."""
    h = last[1]
    if "discards" not in (h or ()) or last[0][1:] != key[1:] or len(last[0][0]) != len(key[0]) + 1:
        return None
    a, b = sorted(last[0][0]), sorted(key[0])
    i = len(b)  # the tile gone is where the two first differ (of equal tiles, which one does not matter)
    for j, tile in enumerate(b):
        if a[j] != tile:
            i = j
            break
    return {"waits": h["discards"].get(str(a[i]), [])} if a[:i] + a[i + 1:] == b else None


def _one_drawn(last: tuple, key: tuple) -> bool:
    """``key``'s tiles are ``last``'s and one more, with the same melds (the seat drew a tile; what
    else changed does not change the shanten)."""
    before, after = last[0], key[0]
    if len(after) != len(before) + 1 or key[1] != last[1]:
        return False
    for i, tile in enumerate(before):
        if after[i] != tile:
            return after[:i] + after[i + 1:] == before
    return True  # the tile drawn sorts last
