"""Every ``tournament_event`` the tournament code emits is one of server/wire_tournament.py's declared
events, field for field: tournaments driven through their whole life (registrations, the referee's
role, check-ins, late arrivals, forfeits, sanctions and their evidence, time limits, hands, ends, a
cancellation, a duplicate session) through the public entry points, every Notify checked."""

from __future__ import annotations

from typing import get_args, get_type_hints

from rooms.tournament import Notify, Tournament, TournamentConfig
from server import wire
from tests.rooms.tournament.support import SECRET, deltas_for, hand
from tests.server.wirecheck import BY_EVENT, problems

ORG, REF, REF2 = "org", "ref", "ref2"
PLAYERS = [f"p{i}" for i in range(1, 9)]
S1, S2 = 10_000.0, 20_000.0
FAR_HAND = {"tiles": [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30], "drawn": 31, "melds": [], "from_ready": 3}


class Driver:
    """A tournament and every Notify its entry points returned."""

    def __init__(self, tid: str, now: float = 0.0, **config):
        self.t = Tournament.create(tid, TournamentConfig(name="Spring Open", **config), ORG, REF, SECRET, now)
        self.notes: list[dict] = []

    def _keep(self, effects) -> list:
        self.notes += [e.msg for e in effects if isinstance(e, Notify)]
        return effects

    def cmd(self, pid, cmd, now):
        return self._keep(self.t.handle(pid, cmd, now))

    def tick(self, now):
        return self._keep(self.t.tick(now))

    def table(self, key, event, now):
        return self._keep(self.t.table_event(key, event, now))

    def play(self, key, n_hands, now, winner_by_hand=None):
        seats = self.t.tables[key].seats
        for i in range(n_hands):
            who = seats[i % 4] or seats[(i + 1) % 4]
            by = {p: (24 if p == who else -8) for p in seats}
            self.table(key, {"t": "hand_result", "record": hand(i, deltas_for(seats, by))}, now + i)
        self.table(key, {"t": "match_result", "record": {"match": 1, "hands": []}, "replay": 7}, now + n_hands)


def standard_life() -> Driver:
    """Two sessions of eight players in two teams, with everything a referee and a clock can do."""
    d = Driver("t1", sessions=2, hands=4, seating="standing", time_limit=60, starts=(S1, S2))
    d.cmd(REF, {"t": "accept_referee"}, 1.0)
    d.cmd(ORG, {"t": "referee", "player": REF2}, 2.0)  # offered to another account, who takes it
    d.cmd(REF2, {"t": "accept_referee"}, 3.0)
    for p in PLAYERS + ["p9"]:
        d.cmd(p, {"t": "register", "team": "A" if p < "p5" else "B"}, 4.0)
    d.cmd("p9", {"t": "unregister"}, 5.0)
    for p in PLAYERS:
        if p != "p6":
            d.cmd(p, {"t": "checkin"}, S1 - 600)
    d.tick(S1)
    d.cmd("p6", {"t": "checkin"}, S1 + 720)  # 12 minutes late: a late record
    d.cmd(REF2, {"t": "sanction", "player": "p4", "kind": "points", "points": 10, "reason": "noise"}, S1 + 700)
    d.cmd(REF2, {"t": "sanction", "player": None, "kind": "notice", "reason": "no phones", "public": True}, S1 + 710)
    d.cmd(REF2, {"t": "sanction", "player": "p1", "kind": "warning", "reason": "slow", "public": True}, S1 + 720)
    d.cmd(REF2, {"t": "cancel_sanction", "sanction": 3, "reason": "wrong player"}, S1 + 730)
    (k1, k2) = sorted(d.t.sessions[0].tables[i].key for i in range(2))
    seat = d.t.tables[k1].seats.index(next(p for p in d.t.tables[k1].seats if p))
    d.table(k1, {"t": "offence", "player": seat, "kind": "false_win", "hand": 0, "points": 30,
                 "foul": "false_win", "evidence": FAR_HAND}, S1 + 740)  # the hand reaches player and referee only
    false_win = d.t.sanctions.records[-1]["id"]
    d.cmd(REF2, {"t": "intentional_false_win", "sanction": false_win, "reason": "bare hand"}, S1 + 750)
    d.tick(S1 + 760)  # the suspended player's seat: a bot that cannot win
    d.play(k1, 4, S1 + 800)
    d.play(k2, 4, S1 + 900)
    for p in PLAYERS:
        if p != "p7" and not d.t.sanctions.suspended(p):
            d.cmd(p, {"t": "checkin"}, S2 - 1000)
    d.tick(S2)
    d.tick(S2 + 901)  # p7 never came: forfeit, substituted
    d.tick(S2 + 3600)  # the time limit
    for s in d.t.sessions[1].tables:
        d.play(s.key, 4, S2 + 3700)
    d.tick(S2 + 9000)
    return d


def cancelled_life() -> Driver:
    d = Driver("t2")
    d.cmd("p1", {"t": "register"}, 1.0)
    d.cmd(ORG, {"t": "cancel", "reason": "the hall is closed"}, 2.0)
    return d


def duplicate_life() -> Driver:
    d = Driver("t3", duplicate=True, checkin_required=False, seating="random", hands=4)
    for p in PLAYERS:
        d.cmd(p, {"t": "register"}, 1.0)
    d.cmd(ORG, {"t": "start"}, 10.0)
    for s in d.t.sessions[0].tables:
        d.play(s.key, 4, 20.0)
    d.tick(100.0)
    return d


def test_every_emitted_tournament_event_is_declared_field_for_field():
    notes = [m for d in (standard_life(), cancelled_life(), duplicate_life()) for m in d.notes]
    bad = [(m["event"], p) for m in notes for p in problems(m, wire.ServerMessage)]
    assert not bad, bad[:10]
    # the lives above reach every declared event: none is declared and never checked
    assert {m["event"] for m in notes} == set(BY_EVENT)
    evidence = [m for m in notes if m["event"] == "sanction" and m["sanction"].get("evidence")]
    assert evidence and not problems(evidence[0], wire.TournamentEventMsg)


def test_an_emitted_field_the_declaration_lacks_is_found():
    """The check above fails when the tournament code sends a field its event's declaration lacks (or
    leaves out one it declares)."""
    (note,) = [m for m in cancelled_life().notes if m["event"] == "cancelled"]
    assert problems(note, wire.ServerMessage) == []
    assert problems({**note, "by": ORG}, wire.ServerMessage) == [".by: not in TevCancelled"]
    short = {k: v for k, v in note.items() if k != "reason"}
    assert problems(short, wire.ServerMessage) == [".reason: missing from TevCancelled"]
    assert problems({**note, "event": "no_such_event"}, wire.ServerMessage) != []


def test_each_event_is_declared_once_with_its_own_tag():
    tags = [get_args(get_type_hints(td)["event"])[0] for td in wire.TOURNAMENT_EVENTS]
    assert len(tags) == len(set(tags))
    assert set(get_args(wire.TournamentEventMsg)) == set(wire.TOURNAMENT_EVENTS)
