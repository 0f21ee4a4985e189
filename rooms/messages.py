"""What a room sends: its snapshot and public info, and the messages each member gets after a change
(room updates, game events as the member's seat sees them, with its legal actions, the clock and its
wait hint). Mixed into ``rooms.room.Room``; everything here reads the room and changes nothing but the
record of the hints already sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from game import match as gm
from game.actions import wire_list
from game.hand import Meld
from game.hints import hint, hint_of_view
from game.state import OVER as HAND_OVER
from game.views import same_for_every_seat
from rooms import clock
from rooms.config import PLAYING
from rooms.effects import Announce, Answered, Effect, GameEvents, HintAsked, Notice, RoomChanged

if TYPE_CHECKING:  # pragma: no cover
    from rooms.room import Member

_UNSENT = object()
_OWN = object()  # _shared: this event is projected for each recipient


class Outbound(NamedTuple):
    to: str  # a player id
    msg: dict


def _shared(events: list) -> list:
    """Per event: its projection when everybody sees the same (built once for all recipients), else _OWN."""
    return [gm.project(ev, None) if same_for_every_seat(ev) else _OWN for ev in events]


class RoomMessages:
    def render(self, effects: list[Effect]) -> list[Outbound]:
        """The members' messages for what a committed entry did (rooms/effects.py), from the room as it
        is now: called once per entry, after ``_apply``."""
        out: list[Outbound] = []
        for x in effects:
            kind = type(x)
            if kind is RoomChanged:
                out += self._room_msgs()
            elif kind is GameEvents:
                out += self._game_msgs(x.events, x.final)
            elif kind is Announce:
                out += self._broadcast(dict(x.msg))
            elif kind is Notice:
                out.append(Outbound(x.to, self._msg(dict(x.msg))))
            elif kind is Answered:
                out.append(Outbound(self.seats[x.player].id, self._game_msg([], x.player)))
            elif kind is HintAsked:
                m = self.members[x.to]
                self._hint_sent.pop(m.id, None)
                if m.hints and self._hints_for(m):
                    out.append(Outbound(m.id, self._add_hint(m, self._game_msg([], m.seat), force=True)))
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
                seats[-1]["faults"] = dict(self.bot_faults[i])
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

    def _msg(self, d: dict) -> dict:
        d["room"] = self.id
        d["rseq"] = self.rseq
        return d

    def _recipients(self):
        return [m for m in self.members.values() if m.connected]

    def _broadcast(self, d: dict) -> list[Outbound]:
        return [Outbound(m.id, self._msg(dict(d))) for m in self._recipients()]

    def _room_msgs(self) -> list[Outbound]:
        return self._broadcast({"t": "room", "room": self.info(True)})

    def _game_msg(self, events: list, player: int | None, clock: dict | None = None,
                  shared: list | None = None, seq: object = _UNSENT) -> dict:
        """``shared``: the events' projections that are the same for everybody (_shared), when the
        caller builds several messages from the same events."""
        if shared is None:
            shared = _shared(events)
        project = gm.project
        projected = [x for x in (project(ev, player) if p is _OWN else p for ev, p in zip(events, shared))
                     if x is not None]
        legal = self._legal(player)
        if seq is _UNSENT:
            seq = None if self.phase != PLAYING else self.match.seq  # what an answer must carry
        return self._msg({"t": "game", "events": projected, "legal": wire_list(legal),
                          "to_act": bool(legal), "seq": seq, "clock": self._clock() if clock is None else clock})

    def _game_msgs(self, events: list, final: tuple | None = None) -> list[Outbound]:
        """``final``: (seq, clock) of the match that these events finished (the room is back in the
        lobby): the seats see them as players still."""
        out = []
        clock = shared = None
        playing = final is not None or self.phase == PLAYING
        seq = _UNSENT if final is None else final[0]
        watching = None  # spectators all get the same message: built once
        for m in self._recipients():
            if clock is None:
                # the same for every recipient (shared: messages are not changed)
                clock = self._clock() if final is None else final[1]
                shared = _shared(events)
            player = m.seat if playing else None
            if player is None:
                if watching is None:
                    watching = self._game_msg(events, None, clock, shared, seq)
                out.append(Outbound(m.id, watching))
                continue
            msg = self._game_msg(events, player, clock, shared, seq)
            out.append(Outbound(m.id, self._add_hint(m, msg, playing=playing)))
        return out

    def _hints_for(self, m: Member, playing: bool | None = None) -> bool:
        """Hints go to a human seat that asked for them, never to spectators (bots get no messages)."""
        if playing is None:
            playing = self.phase == PLAYING
        return (m.hints and m.seat is not None and playing
                and self.seats[m.seat] is not None and self.seats[m.seat].bot is None)

    def _add_hint(self, m: Member, msg: dict, force: bool = False, playing: bool | None = None) -> dict:
        """Put the seat's wait hint into ``msg`` when it differs from the last one sent (or ``force``):
        computed from the seat's own view only, so it tells nothing the seat cannot see."""
        if not self._hints_for(m, playing):
            return msg
        h = self._seat_hint(m.seat)
        last = self._hint_sent.get(m.id, _UNSENT)
        if force or not (h is last or h == last):
            self._hint_sent[m.id] = msg["hint"] = h
        return msg

    def _seat_hint(self, player: int) -> dict | None:
        """``hint_of_view(self._view(player), self.rules)``, read from the state without building the
        view (a whole view per message was most of the room's CPU). tests/rooms/test_hints.py checks
        that the two agree."""
        hand = self.match.hand
        if hand.phase == HAND_OVER:
            return None
        s = self.match.seat_of(player)
        concealed, declared, blocked = hand.concealed[s], hand.declared[s], hand.blocked[s]
        # A seat's hint changes only with its tiles: most messages find the last one's inputs again.
        key = (tuple(concealed), hand.melds[s], (s - hand.dealer) % 4, hand.prevalent, len(hand.flowers[s]),
               declared, blocked)
        last = self._hint_memo.get(player)
        if last is not None and last[0] == key:
            return last[1]
        melds = tuple(Meld(x.kind, x.tile, x.concealed) for x in key[1])
        h = hint(melds, key[0], rules=self.rules, seat_wind=key[2], prevalent=key[3], flowers=key[4],
                 declared=declared, blocked=blocked)
        self._hint_memo[player] = (key, h)
        return h

    def _legal(self, player: int | None) -> tuple:
        if player is None or self.phase != PLAYING:
            return ()
        return gm.legal_actions(self.match, player)

    def _view(self, player: int | None) -> dict:
        """What a seat (or a spectator, None) sees; bots get exactly this. In a claim window it is the
        game's view too (game.views), the same whether or not anybody can claim."""
        return gm.view(self.match, player)

    def _clock(self) -> dict:
        """The public clock: the open decision's deadline, every seat's bank and 托管 state."""
        c = {"decision": None, "deadline": None, "started": None, "free_until": None,
             "banks": list(self.banks), "auto": list(self.auto)}
        if self.phase != PLAYING:
            return c
        cfg = self.config
        if self._claiming():
            c.update(decision="claim", started=self.turn_started, deadline=self.turn_started + cfg.claim_time)
        elif self.match.phase == gm.PLAYING:
            p = gm.pending(self.match)[0]
            free = clock.free_time(cfg, self.turn_first)
            c.update(decision="turn", player=p, started=self.turn_started, free_until=self.turn_started + free,
                     deadline=clock.turn_deadline(self.turn_started, free, self.banks[p]))
        elif self.match.phase == gm.BETWEEN:
            c.update(decision="between", started=self.between_started,
                     deadline=self.between_started + cfg.between_time)
        return c
