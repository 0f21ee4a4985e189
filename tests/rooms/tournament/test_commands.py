"""Registration, the organiser's commands, permissions, and bad input (rejected, nothing changes)."""

import pytest

from rooms.tournament import Tournament, TournamentConfig, TournamentError
from rooms.tournament import errors as E

from .support import ORG, REF, SECRET, events, make, register

P = ["a", "b", "c", "d", "e"]


def rejected(t, pid, cmd, now, code):
    before = t.view(ORG), t.tseq, len(t._log)
    with pytest.raises(TournamentError) as err:
        t.handle(pid, cmd, now)
    assert err.value.code == code, err.value.message
    assert (t.view(ORG), t.tseq, len(t._log)) == before  # nothing changed


def test_create_checks_its_arguments():
    cfg = TournamentConfig(name="x")
    with pytest.raises(ValueError):
        Tournament.create("t", cfg, ORG, REF, b"short", 0.0)
    with pytest.raises(ValueError):
        Tournament.create("", cfg, ORG, REF, SECRET, 0.0)
    with pytest.raises(TournamentError) as err:
        Tournament.create("t", {"name": "x"}, ORG, REF, SECRET, 0.0)
    assert err.value.code == E.BAD_CONFIG
    t = Tournament.create("t", cfg, ORG, REF, SECRET, 0.0)
    log = t.take_log()
    assert [e["k"] for e in log] == ["create"] and t.take_log() == []
    assert t.view(None)["state"] == "registering"


def test_register_with_team_and_unregister():
    t = make()
    out = t.handle("a", {"t": "register", "team": "Red"}, 1.0)
    assert events(out, "registered")[0].msg["team"] == "Red"
    t.handle("b", {"t": "register"}, 2.0)
    assert [(p["id"], p["team"]) for p in t.view(None)["players"]] == [("a", "Red"), ("b", None)]
    rejected(t, "a", {"t": "register"}, 3.0, E.ALREADY_REGISTERED)
    t.handle("a", {"t": "unregister"}, 4.0)
    rejected(t, "a", {"t": "unregister"}, 5.0, E.NOT_REGISTERED)
    assert [p["id"] for p in t.view(None)["players"]] == ["b"]


def test_register_is_limited():
    t = make(max_players=2, min_players=2)
    register(t, ["a", "b"])
    rejected(t, "c", {"t": "register"}, 2.0, E.FULL)


def test_registration_closes_at_the_first_start():
    t = make(starts=(100.0,), hands=1)
    register(t, P[:4])
    rejected(t, "e", {"t": "register"}, 100.0, E.CLOSED)  # due, even before the server's tick
    rejected(t, "a", {"t": "unregister"}, 100.0, E.STARTED)
    t.tick(100.0)
    rejected(t, "e", {"t": "register"}, 101.0, E.CLOSED)
    rejected(t, "a", {"t": "unregister"}, 101.0, E.STARTED)
    rejected(t, ORG, {"t": "cancel"}, 101.0, E.STARTED)


@pytest.mark.parametrize("cmd", [
    {"t": "register", "team": 5}, {"t": "register", "team": ""}, {"t": "register", "team": "x" * 41},
    {"t": "register", "colour": "red"}, {"t": "dance"}, {"x": 1}, "register", {"t": 1},
])
def test_bad_commands(cmd):
    rejected(make(), "a", cmd, 1.0, E.BAD_COMMAND)


def test_only_the_organiser_starts_cancels_and_names_the_referee():
    t = make(hands=1)
    register(t, P[:4])
    for cmd in ({"t": "start"}, {"t": "cancel"}, {"t": "referee", "player": "a"}):
        rejected(t, "a", cmd, 2.0, E.NOT_ORGANISER)
        rejected(t, REF, cmd, 2.0, E.NOT_ORGANISER)
    out = t.handle(ORG, {"t": "referee", "player": "z"}, 3.0)
    assert events(out, "referee_offered")[0].to == ["z", ORG]
    assert (t.view(None)["referee"], t.view(None)["referee_offer"]) == (REF, "z")  # until z accepts
    out = t.handle("z", {"t": "accept_referee"}, 3.5)
    assert events(out, "referee")[0].msg["referee"] == "z"
    assert (t.view(None)["referee"], t.view(None)["referee_offer"]) == ("z", None)
    rejected(t, REF, {"t": "sanction", "player": "a", "kind": "warning", "reason": "x"}, 4.0, E.NOT_REFEREE)
    t.handle("z", {"t": "sanction", "player": "a", "kind": "warning", "reason": "x"}, 4.0)


def test_cancel_before_the_start():
    t = make()
    register(t, P[:2])
    out = t.handle(ORG, {"t": "cancel", "reason": "venue closed"}, 5.0)
    assert events(out, "cancelled")[0].to == "all"
    v = t.view(None)
    assert (v["state"], v["cancel_reason"]) == ("cancelled", "venue closed")
    rejected(t, "c", {"t": "register"}, 6.0, E.CLOSED)
    rejected(t, ORG, {"t": "start"}, 6.0, E.CLOSED)
    rejected(t, REF, {"t": "sanction", "player": "a", "kind": "warning", "reason": "x"}, 6.0, E.CLOSED)
    assert t.next_deadline() is None


def test_start_needs_enough_players():
    t = make(min_players=4)
    register(t, P[:3])
    rejected(t, ORG, {"t": "start"}, 5.0, E.TOO_FEW)


def test_too_few_at_a_scheduled_start_cancels_with_a_notice():
    t = make(starts=(100.0,), min_players=4)
    register(t, P[:3])
    out = t.tick(100.0)
    (note,) = events(out, "cancelled")
    assert note.to == "all" and "too few" in note.msg["reason"]
    assert t.view(None)["state"] == "cancelled"


def test_start_while_a_session_runs_and_after_the_last():
    t = make(hands=1, checkin_required=False)
    register(t, P[:4])
    t.handle(ORG, {"t": "start"}, 5.0)
    rejected(t, ORG, {"t": "start"}, 6.0, E.SESSION_RUNNING)
    rejected(t, "a", {"t": "checkin"}, 6.0, E.NOT_OPEN)


def test_summary():
    t = make(sessions=3, starts=(100.0, 200.0, 300.0))
    register(t, P[:2])
    assert t.summary() == {"id": "t1", "name": "Spring Open", "type": "guobiao", "state": "registering",
                           "players": 2, "max_players": 64, "sessions": 3, "session": None,
                           "next_start": 100.0, "organiser": ORG}


def test_notify_messages_carry_the_tournament_and_its_sequence():
    t = make()
    out = t.handle("a", {"t": "register"}, 1.0)
    (n,) = out
    assert n.msg == {"t": "tournament_event", "tournament": "t1", "tseq": 3, "event": "registered", "player": "a",
                     "team": None}
    assert t.tseq == 3


def test_time_never_goes_backwards():
    t = make()
    t.handle("a", {"t": "register"}, 10.0)
    t.handle("b", {"t": "register"}, 5.0)  # a late-delivered command is stamped 10.0
    assert [e["now"] for e in t.take_log()] == [0.0, 0.0, 10.0, 10.0]  # create, accept_referee, ...


def test_a_referee_is_never_a_player_of_their_tournament():
    # 裁判员 judges the players: an organiser who refereed by default and registers as a player
    # stops refereeing; a registered player cannot be named referee.
    t = Tournament.create("t1", TournamentConfig(name="Club night"), ORG, ORG, SECRET, 0.0)
    register(t, P[:3])
    assert t.referee == ORG
    out = t.handle(ORG, {"t": "register"}, 2.0)
    assert events(out, "referee")[0].msg["referee"] is None
    assert t.referee is None and ORG in t.players
    rejected(t, ORG, {"t": "sanction", "player": "a", "kind": "warning", "reason": "x"}, 3.0, E.NOT_REFEREE)
    rejected(t, ORG, {"t": "referee", "player": ORG}, 3.0, E.REFEREE_PLAYS)
    rejected(t, ORG, {"t": "referee", "player": "a"}, 3.0, E.REFEREE_PLAYS)
    assert t.participants() == [*P[:3], ORG]
    # someone who does not play can be named, and referees once they accept
    t.handle(ORG, {"t": "referee", "player": "z"}, 4.0)
    t.handle("z", {"t": "accept_referee"}, 5.0)
    t.handle("z", {"t": "sanction", "player": ORG, "kind": "warning", "reason": "x"}, 6.0)
    # and the referee registering gives the role up
    t.handle("z", {"t": "register"}, 7.0)
    assert t.referee is None


def test_naming_another_account_as_referee_needs_its_acceptance():
    t = Tournament.create("t1", TournamentConfig(name="Club night"), ORG, "z", SECRET, 0.0)
    register(t, P[:4])
    # until z accepts, the organiser referees (the default) and z cannot sanction
    assert (t.referee, t.view(None)["referee_offer"]) == (ORG, "z")
    rejected(t, "z", {"t": "sanction", "player": "a", "kind": "warning", "reason": "x"}, 2.0, E.NOT_REFEREE)
    rejected(t, "y", {"t": "accept_referee"}, 2.0, E.NO_OFFER)
    rejected(t, "a", {"t": "accept_referee"}, 2.0, E.NO_OFFER)
    out = t.handle("z", {"t": "accept_referee"}, 3.0)
    assert events(out, "referee")[0].msg["referee"] == "z" and t.referee == "z"
    rejected(t, "z", {"t": "accept_referee"}, 4.0, E.NO_OFFER)
    rejected(t, ORG, {"t": "sanction", "player": "a", "kind": "warning", "reason": "x"}, 4.0, E.NOT_REFEREE)
    # an offer lapses when the account registers to play instead
    t.handle(ORG, {"t": "referee", "player": "y"}, 5.0)
    t.handle("y", {"t": "register"}, 6.0)
    rejected(t, "y", {"t": "accept_referee"}, 7.0, E.NO_OFFER)
    assert t.referee == "z"
    # replay reaches the same referee
    assert Tournament.replay(t._log).referee == "z"
