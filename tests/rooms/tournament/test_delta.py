"""Tournament deltas: a viewer that starts from a whole view and applies every delta it is sent has, after
every change, exactly the view it would get by asking for it again (players, teams, two Swiss sessions,
late check-in, sanctions and their cancellation, a suspension, unregistering, the end)."""

import json

from rooms.tournament.delta import Deltas, apply, for_viewer

from .support import ORG, REF, deltas_for, hand, make

PLAYERS = [f"p{i}" for i in range(1, 11)]
FAN = "fan"  # follows without taking part
VIEWERS = (ORG, REF, "p1", "p2", "p7", "p10", "late", FAN)  # FAN becomes the referee


def canon(v) -> str:
    return json.dumps(v, sort_keys=True)


class Followers:
    def __init__(self, t):
        self.t = t
        self.deltas = Deltas(t)
        self.views = {p: {**t.view(p), "tseq": t.tseq} for p in VIEWERS}
        self.sent = 0
        self.kinds: set[str] = set()

    def step(self, call) -> None:
        """Make a call on the tournament, then send its delta the way server/tournaments.py does."""
        before = self.t.tseq
        call()
        entries = self.t.take_log()
        if not entries:
            return
        self.kinds |= {e["k"] for e in entries}
        delta, personal, _ = self.deltas.after(self.t, entries)
        msg = {"t": "tournament_delta", "tournament": self.t.id, "from": before, "tseq": self.t.tseq, **delta}
        for p in VIEWERS:
            m = json.loads(json.dumps(for_viewer(self.t, msg, personal, p)))  # as it crosses the wire
            v = apply(self.views[p], m)
            assert v is not None
            assert canon(v) == canon({**self.t.view(p), "tseq": self.t.tseq}), (p, [e["k"] for e in entries])
            self.views[p] = v
            self.sent += len(json.dumps(m))


def _play(f, t, key, now, results):
    seats = t.tables[key].seats
    for i, by in enumerate(results):
        f.step(lambda: t.table_event(key, {"t": "hand_result", "record": hand(i, deltas_for(seats, by))}, now + i))
    f.step(lambda: t.table_event(key, {"t": "match_result", "record": {"match": 1, "hands": []}}, now + 9))


def test_deltas_applied_to_a_view_give_the_whole_view_after_every_change():
    t = make(sessions=2, hands=2, seating="swiss", starts=(10_000.0, None), fill_bots=True)
    t.take_log()
    f = Followers(t)
    for i, p in enumerate(PLAYERS + ["late", "gone"]):
        f.step(lambda: t.handle(p, {"t": "register", "team": "AB"[i % 2]}, 1.0 + i))
    f.step(lambda: t.handle("gone", {"t": "unregister"}, 20.0))
    f.step(lambda: t.handle(ORG, {"t": "referee", "player": FAN}, 21.0))  # an offer (referee_offer)
    f.step(lambda: t.handle(FAN, {"t": "accept_referee"}, 22.0))
    for p in PLAYERS:
        f.step(lambda: t.handle(p, {"t": "checkin"}, 9_000.0))
    f.step(lambda: t.tick(10_000.0))  # session 1 starts; "late" is not there yet
    f.step(lambda: t.handle("late", {"t": "checkin"}, 10_400.0))  # late: a warning and points
    f.step(lambda: t.handle(FAN, {"t": "sanction", "player": "p2", "kind": "warning", "reason": "noise"}, 10_500.0))
    f.step(lambda: t.handle(FAN, {"t": "sanction", "player": "p7", "kind": "notice", "reason": "well played",
                                  "public": True}, 10_510.0))
    f.step(lambda: t.handle(FAN, {"t": "cancel_sanction", "sanction": t.sanctions.records[-1]["id"],
                                  "reason": "mistake"}, 10_520.0))
    for n, key in enumerate(x.key for x in t.sessions[0].tables):
        humans = [p for p in t.tables[key].seats if p is not None]
        _play(f, t, key, 11_000.0 + 100 * n, [{humans[0]: 24, humans[-1]: -24}, {humans[1]: 8, humans[0]: -8}])
    assert t.sessions[0].state == "finished"
    for p in PLAYERS + ["late"]:
        f.step(lambda: t.handle(p, {"t": "checkin"}, 12_100.0))
    f.step(lambda: t.handle(ORG, {"t": "start"}, 12_200.0))
    f.step(lambda: t.handle(FAN, {"t": "sanction", "player": "p10", "kind": "suspend", "reason": "collusion",
                                  "public": True}, 12_300.0))  # a substitute takes the seat
    for n, key in enumerate(x.key for x in t.sessions[1].tables):
        humans = [p for p in t.tables[key].seats if p is not None]
        _play(f, t, key, 13_000.0 + 100 * n, [{humans[-1]: 30, humans[0]: -30}, {}])
    assert t.state == "finished"
    assert f.kinds >= {"register", "unregister", "referee_offer", "referee", "checkin", "session_start", "table_start", "sanction",
                       "cancel_sanction", "hand", "table_end", "session_end", "substitute", "finish"}, f.kinds


def test_a_hand_result_delta_is_one_table_and_no_standings():
    """What every online follower gets for a hand result does not grow with the number of players."""
    sizes = {}
    for n in (16, 256):
        t = make(sessions=1, hands=2, seating="swiss", max_players=n, starts=(10_000.0,))
        players = [f"q{i:03d}" for i in range(n)]
        for p in players:
            t.handle(p, {"t": "register"}, 1.0)
            t.handle(p, {"t": "checkin"}, 9_000.0)
        t.tick(10_000.0)
        t.take_log()
        d = Deltas(t)
        key = "1-1"
        t.table_event(key, {"t": "hand_result", "record": hand(0, deltas_for(t.tables[key].seats, {}))}, 10_100.0)
        delta, personal, _ = d.after(t, t.take_log())
        assert set(delta) == {"tables"} and personal == set()
        sizes[n] = len(json.dumps(delta))
    assert sizes[256] == sizes[16]


def test_seat_reports_of_a_session_start_send_a_table_delta_not_a_whole_view():
    """Every table of a starting session reports who took their seat (table events ``seats``, then
    ``seated``): each report is one shared delta of its table, not the whole public view built and sent
    to every follower with their personal part (at 1,024 players: 256 views of ~200 kB times 1,025)."""
    t = make(sessions=1, hands=2, seating="random", fill_bots=True, checkin_required=False)
    t.take_log()
    f = Followers(t)
    for p in PLAYERS:
        f.step(lambda: t.handle(p, {"t": "register"}, 1.0))
    f.step(lambda: t.handle(ORG, {"t": "start"}, 100.0))
    keys = [x.key for x in t.sessions[0].tables]
    for key in keys:  # as the server reports it when it opens the table: nobody seated yet
        entries_before = t.tseq
        f.step(lambda: t.table_event(key, {"t": "seats", "taken": []}, 100.0))
        assert t.tseq == entries_before + 1  # a "seated" entry: from now on its seats are watched
    sent = []
    real_after = f.deltas.after
    f.deltas.after = lambda tour, entries: sent.append(real_after(tour, entries)) or sent[-1]
    for key in keys:
        for seat, pid in enumerate(t.tables[key].seats):
            if pid is not None:
                f.step(lambda: t.table_event(key, {"t": "seated", "player": seat}, 100.0))  # on time
    assert len(sent) == sum(p is not None for k in keys for p in t.tables[k].seats)
    for delta, personal, full in sent:
        assert not full and personal == set() and set(delta) == {"tables"} and len(delta["tables"]) == 1


def test_a_whole_view_delta_ranks_the_players_once(monkeypatch):
    """The standings are the costly part of a session start's delta (every player's results): the public
    view, the team standings and the standings' delta share one computation instead of three."""
    from rooms.tournament import tournament as tmod

    t = make(sessions=1, hands=2, seating="random", fill_bots=True, checkin_required=False)
    for p in PLAYERS:
        t.handle(p, {"t": "register", "team": p[-1]}, 1.0)
    t.take_log()
    deltas = Deltas(t)
    t.handle(ORG, {"t": "start"}, 100.0)
    ranked = []
    real = tmod.standings
    monkeypatch.setattr(tmod, "standings", lambda *a: ranked.append(1) or real(*a))
    delta, _, full = deltas.after(t, t.take_log())
    assert full and len(ranked) == 1 and delta["set"]["teams"] == t.team_standings()
