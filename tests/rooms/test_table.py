"""Tournament tables (Room.create_table) and the server's system commands: start, 停和 (R98 第十三条3),
can't-win substitutes (tournament.md 2.4), time up (R98 第六条四, tournament.md 2.6), offence entries."""

import pytest

from game import match as gm
from game.actions import PASS, WIN, from_dict
from game.codec import canonical
from game.rules import Rules
from game.shanten import shanten
from game.state import WIN, auto_action, legal_actions
from tests.game.scenario import Table
from tests.game.test_system_actions import WINS_AT_ONCE
from rooms.config import RoomConfig
from rooms.errors import RoomError
from rooms.room import Room

from tests.rooms.support import CODE, SECRET, act, greedy, new_room, random_bot, tidy
from tests.rooms.test_match import same

# The "fan" level (can't-win stand-ins) takes 和 whenever it is legal: if 停和 leaked, they would win.
POL = {"fan": greedy, "random": random_bot(3)}


def table(players=("alice", None, None, None), now=0.0, **kw) -> Room:
    kw.setdefault("hands", 4)
    kw.setdefault("type", "wufan")
    kw.setdefault("bot_delay", 0.5)
    return Room.create_table("t1", RoomConfig(table=True, **kw), list(players), CODE, SECRET, now,
                             bot_policies=POL)


class Run:
    """Drives a room: connected humans play their policies through ``handle``, timers through ``tick``;
    every entry is kept in ``log``."""

    def __init__(self, room: Room, now: float = 0.0, players=None):
        self.room, self.now, self.players = room, now, dict(players or {})
        self.log = room.take_log()

    def take(self):
        self.log += self.room.take_log()

    def system(self, cmd: dict):
        out = self.room.render(self.room.system(cmd, self.now))
        self.take()
        return out

    def until(self, stop=lambda room: False, limit: int = 200_000) -> None:
        room = self.room
        for _ in range(limit):
            if room.phase != "playing" or stop(room):
                return
            for pid, policy in self.players.items():
                m = room.members.get(pid)
                g = room.snapshot(pid)["game"] if m is not None and m.seat is not None else None
                if g is not None and g["to_act"] and room.auto[m.seat] is None:
                    act(room, pid, policy(g), self.now)
                    break
            else:
                self.now = max(self.now, room.next_deadline())
                room.tick(self.now)
            self.take()
            self.now += 0.25
        raise AssertionError("the match did not end")

    def derived(self, k: str) -> list[dict]:
        return [e for e in self.log if e.get("derived") and e["k"] == k]

    def check_replay(self) -> None:
        self.take()
        back = Room.replay(self.log, POL)
        for pid, m in back.members.items():  # connections are not in the log (docs/rooms.md)
            m.connected, m.since = self.room.members[pid].connected, self.room.members[pid].since
        same(self.room, back)


def record_replays(room: Room) -> gm.MatchState:
    """The finished match rebuilt from its record alone (what the server's replay does)."""
    rec = room.records()["matches"][-1]
    rules = Rules(**rec["rules"])
    actions = [(p, from_dict(a)) for p, a in rec["actions"]]
    m = gm.replay(rules, actions, seed=int(rec["seed"]))
    assert canonical(m) == canonical(room.match)
    hands = gm.replay_hands(rules, actions, seed=int(rec["seed"]))
    assert [h["hand"] for h in rec["hands"]] == list(range(len(hands)))
    return m


def rejected(room: Room, code: str, call) -> None:
    rseq = room.rseq
    room.take_log()
    with pytest.raises(RoomError) as e:
        call()
    assert e.value.code == code, e.value.message
    assert room.rseq == rseq and room.take_log() == []  # a rejected command changes nothing


# -- creation, seats, start ---------------------------------------------------------------------


def test_table_config_hands_1_to_16_and_creation_checks():
    for h in range(1, 17):
        assert RoomConfig(table=True, hands=h).rules().hands == h
        assert RoomConfig.from_dict(RoomConfig(table=True, hands=h).to_dict()).hands == h
    for h in (0, 17, "4"):
        with pytest.raises(RoomError):
            RoomConfig(table=True, hands=h)
    with pytest.raises(RoomError):
        RoomConfig(hands=1)  # other rooms keep 4/8/16
    with pytest.raises(RoomError) as e:
        Room.create("r1", RoomConfig(table=True), "alice", CODE, SECRET, 0)
    assert e.value.code == "room/bad_config"
    with pytest.raises(RoomError) as e:
        Room.create_table("t1", RoomConfig(), ["alice", None, None, None], CODE, SECRET, 0)
    assert e.value.code == "room/bad_config"
    for players in (["a", "a", None, None], ["a", None, None], ["a", 3, None, None]):
        with pytest.raises(ValueError):
            Room.create_table("t1", RoomConfig(table=True), players, CODE, SECRET, 0)


def test_a_table_waits_for_the_system_start_and_its_seats_are_fixed():
    room = table(("alice", "bob", None, None), now=0)
    info = room.info()
    assert info["table"] and info["host"] is None and info["phase"] == "lobby"
    assert [s and s["id"] for s in info["seats"]] == ["alice", "bob", None, None]
    assert not info["seats"][0]["connected"]  # seated by the tournament, connected when they connect
    room.connect("alice", 1)
    assert room.info()["seats"][0]["connected"]
    assert room.next_deadline() is None and not room.disposable(10**9)  # it waits for the tournament
    for pid, cmd in [("alice", {"t": "ready"}), ("alice", {"t": "start"}), ("alice", {"t": "sit", "seat": 2}),
                     ("alice", {"t": "add_bot", "seat": 2}), ("alice", {"t": "remove_bot", "seat": 2}),
                     ("alice", {"t": "kick", "player": "bob"}), ("alice", {"t": "host", "player": "bob"}),
                     ("alice", {"t": "rematch"}), ("alice", {"t": "watch"}), ("carol", {"t": "join", "code": CODE}),
                     ("carol", {"t": "join", "code": CODE, "seat": 2})]:
        rejected(room, "room/table", lambda: room.handle(pid, cmd, 2))
    room.handle("carol", {"t": "watch", "code": CODE}, 2)  # spectators as in any room
    out = room.render(room.system({"t": "start"}, 3))
    assert room.phase == "playing" and any(m["t"] == "game" for _, m in out)
    seats = room.info()["seats"]
    for i in (2, 3):  # empty seats: unranked bots that cannot win (陪打)
        assert seats[i]["bot"] == "fan" and seats[i]["no_win"] and seats[i]["substitute"]
        assert seats[i]["replaces"] is None and seats[i]["blocked"]
    assert not seats[0]["no_win"] and not seats[0]["blocked"] and not seats[1]["substitute"]
    assert room.match.no_win == (False, False, True, True)
    rejected(room, "room/in_match", lambda: room.system({"t": "start"}, 4))


def test_system_commands_rejected_when_they_do_not_apply():
    normal = new_room()
    rejected(normal, "room/not_table", lambda: normal.system({"t": "start"}, 1))
    rejected(normal, "room/not_table", lambda: normal.system({"t": "stop_win", "player": 0}, 1))
    room = table(("alice", "bob", None, None))
    for cmd, code in [
        ({"t": "launch"}, "room/bad_command"), ("start", "room/bad_command"),
        ({"t": "start", "now": 1}, "room/bad_command"),
        ({"t": "stop_win", "player": 0}, "room/no_match"), ({"t": "time_up"}, "room/no_match"),
        ({"t": "stop_win", "player": 4}, "room/bad_seat"), ({"t": "substitute"}, "room/bad_seat"),
        ({"t": "substitute", "player": 2}, "room/substituted"),  # empty: it gets a stand-in at the start
    ]:
        rejected(room, code, lambda: room.system(cmd, 1))
    run = Run(room, 1)
    run.system({"t": "start"})
    rejected(room, "room/bad_command", lambda: room.system({"t": "time_up", "finish_hand": "yes"}, 2))
    rejected(room, "room/substituted", lambda: room.system({"t": "substitute", "player": 3}, 2))
    run.until(lambda r: r.match.phase == gm.BETWEEN)
    rejected(room, "room/no_hand", lambda: room.system({"t": "stop_win", "player": 0}, run.now))
    run.until()
    assert room.phase == "lobby" and len(room.records()["matches"]) == 1
    for cmd, code in [({"t": "start"}, "room/table"), ({"t": "time_up"}, "room/no_match"),
                      ({"t": "stop_win", "player": 0}, "room/no_match"),
                      ({"t": "substitute", "player": 0}, "room/no_match")]:
        rejected(room, code, lambda: room.system(cmd, run.now))


@pytest.mark.parametrize("hands", [1, 3, 6])
def test_a_table_plays_1_to_16_hands(hands):
    run = Run(table(("alice", None, None, None), hands=hands))  # alice never comes: 托管 plays for her
    run.system({"t": "start"})
    run.until()
    (rec,) = run.room.records()["matches"]
    assert len(rec["hands"]) == hands and not rec["void"]
    assert rec["table"] == {"players": ["alice", None, None, None], "substitute": [False, True, True, True],
                            "replaced": [None, None, None, None]}
    assert rec["no_win"] == [False, True, True, True]
    assert all(h["winner"] in (None, 0) for h in rec["hands"])
    assert any(e["k"] == "auto" and e["why"] == "disconnected" for e in run.log)
    assert run.room.disposable(run.now + 1800)  # its match over, a table goes like any idle room
    run.check_replay()
    record_replays(run.room)


# -- 停和 ----------------------------------------------------------------------------------------


def legal_of(out, pid):
    return [m["legal"] for to, m in out if to == pid and m["t"] == "game"][-1]


def test_stop_win_on_the_turn_and_cleared_by_the_next_hand():
    # Training mode (R98 错和/诈和) offers 和 after every draw: 停和 is what takes it away.
    run = Run(table(("alice", None, None, None), false_win_penalty=True, hands=2), players={"alice": tidy})
    room = run.room
    room.connect("alice", 0)
    run.system({"t": "start"})
    g = room.snapshot("alice")["game"]
    assert g["to_act"] and {"a": "win"} in g["legal"]
    seq = g["match"]["seq"]
    out = run.system({"t": "stop_win", "player": 0})
    assert {"a": "win"} not in legal_of(out, "alice") and legal_of(out, "alice")
    assert [m["t"] for to, m in out if to == "alice"].count("room") == 1 and room.info()["seats"][0]["blocked"]
    g = room.snapshot("alice")["game"]
    assert {"a": "win"} not in g["legal"] and g["players"][0]["blocked"] and g["match"]["seq"] == seq
    rejected(room, "action/illegal", lambda: room.handle("alice", {"t": "act", "action": {"a": "win", "seq": seq}}, 1))
    rejected(room, "action/illegal",
             lambda: room.handle("alice", {"t": "act", "action": {"a": "stop_win", "seq": seq}}, 1))
    run.check_replay()
    run.until(lambda r: r.match.number == 1)
    assert not room.info()["seats"][0]["blocked"] and not room.match.hand.blocked[room.match.seat_of(0)]
    assert room.records()["current"][0]["winner"] != 0
    run.until()
    run.check_replay()
    m = record_replays(room)
    assert m.history[0].win is None or gm.player_in(m.history[0].win.winner, 0) != 0


def never_declares(view: dict) -> dict:
    """Continue, pass on claims, discard the drawn tile: never a (false) 和 in training mode."""
    legal = view["legal"]
    if {"a": "continue"} in legal:
        return {"a": "continue"}
    if view["phase"] == "claim":
        return {"a": "pass"}
    t = view["drawn"] if view["drawn"] is not None else view["hand"][-1]
    return {"a": "discard", "tile": t}


def claiming(room) -> bool:
    return room.phase == "playing" and room.match.phase == gm.PLAYING and room.match.hand.phase == "claim"


def open_window_for(run: Run, pid: str, seat: int):
    """Play on until ``pid`` (seat ``seat``) is asked in a claim window with 和 among its options."""
    def asked(room):
        return claiming(room) and WIN in room.match.hand.claim.options[room.match.seat_of(seat)]
    run.until(asked)


def test_stop_win_in_a_claim_window_and_a_held_win_becomes_a_pass():
    cfg = dict(false_win_penalty=True, hands=1, bot_delay=3, claim_min=1)
    for answered in (False, True):
        run = Run(table(("alice", "bob", None, None), **cfg), players={"alice": never_declares})
        room = run.room
        room.connect("alice", 0)
        room.connect("bob", 0)
        run.system({"t": "start"})
        open_window_for(run, "bob", 1)
        g = room.snapshot("bob")["game"]
        assert {"a": "win"} in g["legal"] and {"a": "pass"} in g["legal"]
        if answered:
            act(room, "bob", {"a": "win"}, run.now)
            run.take()
        out = run.system({"t": "stop_win", "player": 1})
        if answered:
            assert room.match.hand.claim.responses[room.match.seat_of(1)] == PASS and legal_of(out, "bob") == []
        else:
            assert {"a": "win"} not in legal_of(out, "bob") and {"a": "pass"} in legal_of(out, "bob")
            assert WIN not in room.match.hand.claim.options[room.match.seat_of(1)]
        assert room.snapshot("alice")["game"]["players"][1]["blocked"] and room.info()["seats"][1]["blocked"]
        run.check_replay()
        run.until(lambda r: not claiming(r))
        # the voided 和 is not declared: no foul, no penalty, no offence
        assert not any(e["k"] == "offence" and e["kind"] == "false_win" for e in run.log)
        assert room.match.hand.fouls == () or all(f[0] != 1 for f in room.match.hand.fouls)
        run.players["bob"] = never_declares
        run.until()
        run.check_replay()
        record_replays(room)


# -- substitutes ---------------------------------------------------------------------------------


def test_a_substitute_never_wins_over_a_whole_match_and_the_match_completes():
    run = Run(table(("alice", "bob", None, None), hands=16, bot_delay=0), players={"alice": greedy})
    room = run.room
    room.connect("alice", 0)
    room.connect("bob", 0)
    run.system({"t": "start"})
    run.until(lambda r: len(r.hands) >= 1 and claiming(r))  # mid-match, in a claim window
    out = run.system({"t": "substitute", "player": 1})
    assert [m for to, m in out if to == "bob" and m["t"] == "substituted"] != []
    assert room.members["bob"].seat is None  # a spectator now: the spectator's view only
    seat = room.info()["seats"][1]
    assert seat["substitute"] and seat["no_win"] and seat["replaces"] == "bob" and seat["bot"] == "fan"
    assert room.match.no_win == (False, True, True, True)
    rejected(room, "room/table", lambda: room.handle("bob", {"t": "sit", "seat": 1}, run.now))
    rejected(room, "room/substituted", lambda: room.system({"t": "substitute", "player": 1}, run.now))
    run.check_replay()
    run.until()
    (rec,) = room.records()["matches"]
    assert len(rec["hands"]) == 16 and sum(rec["scores"]) == 0
    later = [h for h in rec["hands"] if h["hand"] >= 1]
    assert all(h["winner"] in (None, 0) for h in later)  # only alice may win
    assert any(h["winner"] == 0 for h in later)
    assert rec["table"]["replaced"] == [None, "bob", None, None] and rec["no_win"] == [False, True, True, True]
    assert not any(e.get("by") == "bot_error" for e in run.log)  # the bots never tried to win
    run.check_replay()
    record_replays(room)


def test_a_substitute_before_the_start_and_without_spectators():
    run = Run(table(("alice", "bob", None, None), spectators=False))
    room = run.room
    room.connect("bob", 0)
    out = run.system({"t": "substitute", "player": 1})
    assert [m["t"] for to, m in out if to == "bob"][:1] == ["substituted"]
    assert "bob" not in room.members  # no spectators here: bob leaves the room
    run.system({"t": "start"})
    assert room.match.no_win == (False, True, True, True)
    run.until()
    assert room.records()["matches"][0]["table"]["replaced"] == [None, "bob", None, None]
    run.check_replay()
    record_replays(room)


def test_leave_during_a_match_keeps_the_seat_for_the_player():
    run = Run(table(("alice", "bob", None, None)), players={"alice": greedy})
    room = run.room
    room.connect("alice", 0)
    run.system({"t": "start"})
    run.until(lambda r: len(r.actions) > 20)
    room.handle("alice", {"t": "leave"}, run.now)
    run.take()
    assert "alice" not in room.members and room.auto[0] == "left"
    assert room.info()["seats"][0]["id"] == "alice" and room.info()["seats"][0]["bot"] is None
    run.until(lambda r: len(r.actions) > 60)  # 托管 plays the seat
    assert not room.disposable(run.now + 10**6)  # a table plays its match out
    room.handle("alice", {"t": "join"}, run.now)  # back, no invite code needed: the seat is hers
    run.take()
    assert room.members["alice"].seat == 0 and room.auto[0] is None
    run.check_replay()
    run.until()
    run.check_replay()


# -- time up -------------------------------------------------------------------------------------


def test_time_up_voids_the_hand_in_progress():
    run = Run(table(("alice", None, None, None), hands=8))
    run.system({"t": "start"})
    run.until(lambda r: r.match.number == 2 and len(r.actions) > 30 and claiming(r))
    scores = list(room_scores := run.room.match.scores)
    out = run.system({"t": "time_up"})
    room = run.room
    assert room.phase == "lobby" and not claiming(room)
    (rec,) = room.records()["matches"]
    assert len(rec["hands"]) == 3 and rec["void"]
    void = rec["hands"][-1]
    assert void["void"] and void["hand"] == 2 and void["deltas"] == [0, 0, 0, 0] and void["scores"] == scores
    assert rec["scores"] == list(room_scores) and not any(h["void"] for h in rec["hands"][:-1])
    assert [m["t"] for to, m in out if to == "alice"] == []  # alice never connected: nothing sent
    assert [e["k"] for e in run.log if e.get("derived")][-2:] == ["hand_result", "match_result"]
    assert rec["actions"][-1] == [None, {"a": "time_up", "seq": room.match.seq - 1}]
    run.check_replay()
    m = record_replays(room)
    assert m.void and m.number == 2


def test_time_up_with_finish_hand_plays_the_hand_out():
    run = Run(table(("alice", None, None, None), hands=8))
    run.system({"t": "start"})
    run.until(lambda r: r.match.number == 1 and len(r.actions) > 30)
    run.system({"t": "time_up", "finish_hand": True})
    assert run.room.phase == "playing" and run.room.info()["time_up"]
    run.check_replay()
    run.until()
    (rec,) = run.room.records()["matches"]
    assert len(rec["hands"]) == 2 and not rec["void"] and not any(h["void"] for h in rec["hands"])
    run.check_replay()
    record_replays(run.room)


def test_time_up_between_hands_ends_the_match_at_once():
    run = Run(table(("alice", None, None, None), hands=8, between_time=30))
    run.room.connect("alice", 0)  # connected, she does not press continue: the table waits
    run.system({"t": "start"})
    run.until(lambda r: r.match.phase == gm.BETWEEN)
    run.system({"t": "time_up"})
    (rec,) = run.room.records()["matches"]
    assert len(rec["hands"]) == 1 and not rec["void"] and run.room.phase == "lobby"
    run.check_replay()
    record_replays(run.room)


# -- offences ------------------------------------------------------------------------------------


def test_turn_timeouts_are_offences_and_claim_timeouts_are_not():
    run = Run(table(("alice", None, None, None), hands=1, bot_delay=0.5))
    room = run.room
    room.connect("alice", 0)
    run.system({"t": "start"})
    run.until(lambda r: any(e["k"] == "act" and e["by"] == "timeout" for e in run.log))
    (off,) = run.derived("offence")
    assert off == {"k": "offence", "match": 1, "player": 0, "kind": "timeout", "hand": 0, "points": 0,
                   "applied": False, "count": 1, "derived": True, "rseq": off["rseq"], "now": off["now"]}
    # back from 托管; she lets a claim window and then her turn run out
    room.handle("alice", {"t": "auto", "on": False}, run.now)
    run.until(lambda r: len(run.derived("offence")) == 2)
    timeouts = [e for e in run.log if e["k"] == "act" and e["by"] == "timeout"]
    offences = run.derived("offence")
    assert offences[1]["count"] == 2 and offences[1]["hand"] == 0  # her second turn timeout in the hand
    claims = [e for e in timeouts if e["action"]["a"] == "pass"]
    assert claims and len(timeouts) == len(claims) + 2  # claim windows that ran out are no offence
    run.check_replay()


def test_a_false_win_in_training_mode_is_an_offence_already_charged():
    run = Run(table(("alice", None, None, None), hands=1, false_win_penalty=True, type="guobiao"))
    room = run.room
    room.connect("alice", 0)
    run.system({"t": "start"})
    act(room, "alice", {"a": "win"}, 1)  # the dealt hand is not complete: 错和 or 诈和
    run.take()
    (foul,) = room.match.hand.fouls
    (off,) = run.derived("offence")
    assert (off["player"], off["kind"], off["hand"], off["foul"], off["applied"]) == (0, "false_win", 0, foul[1], True)
    assert off["points"] == 3 * foul[2] and foul[2] in (10, 20)
    run.until()
    (h,) = room.records()["matches"][0]["hands"]
    assert h["penalties"][0] == -off["points"]  # the game charged it: the tournament must not again
    run.check_replay()
    # other rooms write no offence entries
    normal = new_room(false_win_penalty=True, policies=POL)
    for s in (1, 2, 3):
        normal.handle("alice", {"t": "add_bot", "seat": s}, 0)
    normal.handle("alice", {"t": "start"}, 0)
    act(normal, "alice", {"a": "win"}, 1)
    assert normal.match.hand.fouls and not any(e["k"] == "offence" for e in normal.take_log())


def test_a_false_win_reports_the_hand_as_evidence():
    # 有意诈和 (R98 第十四条6: two or more tiles from ready) is the referee's judgement: the table
    # reports the hand that was declared, and how far from ready it was.
    run = Run(table(("alice", None, None, None), false_win_penalty=True, hands=1), players={"alice": tidy})
    room = run.room
    room.connect("alice", 0)
    run.system({"t": "start"})
    h = room.match.hand
    seat = room.match.seat_of(0)
    standing = list(h.concealed[seat])
    drawn = h.drawn
    standing.remove(drawn)
    if shanten(standing, 0) <= 0:
        pytest.skip("this wall deals alice a ready hand")
    seq = room.snapshot("alice")["game"]["match"]["seq"]
    room.handle("alice", {"t": "act", "action": {"a": "win", "seq": seq}}, 1)
    run.take()
    (off,) = [e for e in run.derived("offence") if e["kind"] == "false_win"]
    ev = off["evidence"]
    assert sorted(ev["tiles"]) == sorted(standing) and ev["drawn"] == drawn and ev["melds"] == []
    assert ev["from_ready"] == shanten(standing, 0) >= 1
    assert off["foul"] == "false_win"
    run.check_replay()


def test_a_checked_in_player_who_never_sits_down_is_played_by_a_substitute_that_never_wins():
    # tournament.md §4.3: in a tournament the stand-in for an absent player cannot win (as for a
    # forfeit). alice never connects: 托管 plays her seat; given a hand that wins at once, it discards.
    run = Run(table(("alice", None, None, None), hands=1))
    run.system({"t": "start"})
    room = run.room
    p = 0
    win_now = Table([WINS_AT_ONCE, "", "", ""], rules=Rules(flowers=False, min_fan=0)).state
    room.match.hand = win_now
    seat = room.match.seat_of(p)
    assert seat == 0 and WIN in legal_actions(win_now, seat)
    assert type(room._takeover(p)).__name__ == "Discard"
    # outside a tournament 托管 still wins (decisions.md item 14)
    assert auto_action(win_now, seat) == WIN
