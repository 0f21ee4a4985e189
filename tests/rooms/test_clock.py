"""The clock rules with an injected ``now`` (decisions.md item 14, R98): free time, time bank, claim
window, between hands, 托管 after a timeout or a disconnect, and the return of the player."""

import pytest

from rooms import clock
from rooms.config import RoomConfig
from rooms.errors import RoomError

from tests.rooms.support import act, bots_room, tidy


def started(seats=(1, 2, 3), **kw):
    kw.setdefault("bot_delay", 0)
    room = bots_room(seats=seats, **kw)
    room.handle("alice", {"t": "start"}, 0)
    room.take_log()
    return room


def last_acts(room):
    return [e for e in room.take_log() if e["k"] == "act"]


def game(room, pid="alice"):
    return room.snapshot(pid)["game"]


def alice_to_act(room, now):
    """Play on until alice must take a turn; she passes in every claim window meanwhile (she is asked
    after every discard)."""
    while True:
        g = game(room)
        if g["to_act"] and g["phase"] == "turn":
            return now
        if g["to_act"]:
            act(room, "alice", {"a": "pass"}, now)
        else:
            now = room.next_deadline()
            room.tick(now)


def test_pure_functions():
    cfg = RoomConfig()
    assert clock.free_time(cfg, True) == 30 and clock.free_time(cfg, False) == 15
    assert clock.turn_deadline(100, 15, 60) == 175
    assert clock.spend(60, 100, 15, 110) == 60  # within the free time: the bank is untouched
    assert clock.spend(60, 100, 15, 125) == 50
    assert clock.spend(60, 100, 15, 500) == 0


def test_dealer_first_discard_has_30_s_then_the_bank_then_托管():
    room = started()
    c = room.snapshot("alice")["clock"]
    assert c["decision"] == "turn" and c["player"] == 0
    assert (c["started"], c["free_until"], c["deadline"]) == (0, 30, 90)
    assert room.next_deadline() == 90
    room.take_log()
    assert room.tick(89.9) == [] and room.take_log() == []
    room.tick(90)
    (timeout, *_) = last_acts(room)
    assert timeout["player"] == 0 and timeout["by"] == "timeout" and timeout["action"]["a"] in ("discard", "win")
    assert room.banks[0] == 0 and room.auto[0] == "timeout"
    assert room.snapshot("bob" if "bob" in room.members else "alice")["clock"]["auto"][0] == "timeout"


def test_the_bank_is_spent_only_past_the_free_time_and_later_turns_have_15_s():
    room = started()
    act(room, "alice", tidy(game(room)), 40)  # 10 s past the 30 s
    assert room.banks[0] == 50
    now = alice_to_act(room, 40)
    c = room.snapshot("alice")["clock"]
    assert c["free_until"] == c["started"] + 15 and c["deadline"] == c["started"] + 15 + 50
    act(room, "alice", tidy(game(room)), now + 5)  # within the free time
    assert room.banks[0] == 50


def test_托管_after_a_timeout_lasts_until_the_player_acts():
    room = started()
    room.tick(90)
    assert room.auto[0] == "timeout"
    # Now alice's turns are played for her after the bot delay...
    now = 91
    for _ in range(3):
        now = room.next_deadline()
        room.tick(now)
    assert room.auto[0] == "timeout"
    # ...until she acts herself (she still may when it is her turn).
    room2 = started(bot_delay=1)
    room2.tick(90)
    now = 90
    while not game(room2)["to_act"]:
        now = room2.next_deadline()
        room2.tick(now)
    act(room2, "alice", tidy(game(room2)), now)
    assert room2.auto[0] is None


def test_托管_on_request_and_off():
    room = started()
    room.handle("alice", {"t": "auto", "on": True}, 1)
    assert room.auto[0] == "requested"
    room.tick(2)  # her turn is played at once (bot_delay 0); the bots answer claim_min (1 s) later
    assert [e["by"] for e in last_acts(room)][:2] == ["auto", "bot"]
    room.handle("alice", {"t": "auto", "on": False}, 2)
    assert room.auto[0] is None
    with pytest.raises(RoomError):
        room.handle("alice", {"t": "auto", "on": 1}, 2)


def test_claim_window_times_out_after_8_s_with_a_pass_and_no_托管():
    room = bots_room(seats=(), bot_delay=0)
    room.handle("alice", {"t": "sit", "seat": 1}, 0)
    for s in (0, 2, 3):
        room.handle("alice", {"t": "add_bot", "seat": s}, 0)
    room.handle("alice", {"t": "start"}, 0)  # the dealer bot discards at once
    g = game(room)
    assert g["phase"] == "claim" and g["to_act"] and {"a": "pass"} in g["legal"]
    c = room.snapshot("alice")["clock"]
    assert c["decision"] == "claim" and c["deadline"] == 8
    assert room.next_deadline() == 1  # the bots' answers (claim_min)
    room.tick(7.9)
    assert game(room)["phase"] == "claim" and game(room)["seq"] == g["seq"]
    assert room.next_deadline() == 8
    room.take_log()
    room.tick(8)
    acts = last_acts(room)
    assert acts[0]["player"] == 1 and acts[0]["by"] == "timeout"
    assert room.auto[1] is None  # a missed claim is only a pass
    assert game(room)["phase"] != "claim" or game(room)["seq"] != g["seq"]


def bots_ask_alice(**kw):
    room = bots_room(seats=(), bot_delay=0, **kw)
    room.handle("alice", {"t": "sit", "seat": 1}, 0)
    for s in (0, 2, 3):
        room.handle("alice", {"t": "add_bot", "seat": s}, 0)
    room.handle("alice", {"t": "start"}, 0)  # the dealer bot discards at once: a window for 1, 2, 3
    assert game(room)["phase"] == "claim"
    return room


def test_claim_window_closes_on_the_last_answer_and_bots_answer_after_the_minimum():
    room = bots_ask_alice()
    seq = game(room)["seq"]
    act(room, "alice", {"a": "pass"}, 0.4)
    assert game(room)["phase"] == "claim" and not game(room)["to_act"]  # the bots answer at claim_min, 1 s
    assert room.next_deadline() == 1.0
    room.tick(1.0)
    assert game(room)["seq"] == seq + 1 and room._log[-1]["k"] == "act"


def test_claim_window_answered_after_the_minimum_closes_at_once():
    room = bots_ask_alice()
    seq = game(room)["seq"]
    room.tick(2)  # the bots have answered
    assert game(room)["seq"] == seq
    act(room, "alice", {"a": "pass"}, 3)
    assert game(room)["seq"] == seq + 1


def test_claim_window_without_early_close_lasts_the_claim_time():
    room = bots_ask_alice(claim_early_close=False)
    seq = game(room)["seq"]
    act(room, "alice", {"a": "pass"}, 1)
    room.tick(7.9)
    assert game(room)["seq"] == seq  # the bots answer at claim_time
    room.tick(8)
    assert game(room)["seq"] == seq + 1


def test_between_hands_continue_is_sent_after_30_s_without_托管():
    room = started(type="wufan")
    now = 0.0
    while game(room)["match"]["phase"] != "between":  # the room's view: it may still hold the hand's end
        g = game(room)
        if g["to_act"]:
            act(room, "alice", tidy(g), now)
        else:
            now = room.next_deadline()
            room.tick(now)
    while room.next_deadline() <= now:  # the bots' continues due now (a few automatic moves per call)
        room.tick(now)
    start = room.snapshot("alice")["clock"]
    assert start["decision"] == "between" and start["deadline"] == start["started"] + 30
    assert game(room)["legal"] == [{"a": "continue"}]
    room.take_log()
    room.tick(start["deadline"])
    acts = last_acts(room)
    assert acts[0]["player"] == 0 and acts[0]["by"] == "timeout" and acts[0]["action"]["a"] == "continue"
    assert room.auto[0] is None and room.match.number == 1


def test_disconnect_grace_then_托管_and_the_player_takes_the_seat_back():
    room = started(bot_delay=1)
    room.disconnect("alice", 5)
    assert room.next_deadline() == 25  # grace 20 s, before the 90 s turn deadline
    room.tick(24.9)
    assert room.auto[0] is None
    room.tick(25)
    log = room.take_log()
    assert {"k": "auto", "player": 0, "on": True, "why": "disconnected"}.items() <= log[0].items()
    assert room.auto[0] == "disconnected"
    assert [e for e in log if e["k"] == "act"][0]["by"] == "auto"  # her turn was played at once
    now = 25.0
    for _ in range(12):
        now = room.next_deadline()
        room.tick(now)
    room.connect("alice", now + 0.1)
    assert room.auto[0] is None
    assert room.take_log()[-1]["why"] == "returned"
    now = alice_to_act(room, now + 0.1)
    assert game(room)["to_act"] and room.auto[0] is None


def test_a_short_disconnect_changes_nothing():
    room = started()
    room.disconnect("alice", 5)
    room.connect("alice", 15)
    room.tick(30)
    assert room.auto[0] is None and game(room)["to_act"]
    assert room.next_deadline() == 90


def test_now_never_goes_backwards():
    room = started()
    room.tick(50)
    act(room, "alice", tidy(game(room)), 10)  # a late timestamp counts as 50
    assert room.banks[0] == 40


def test_the_clock_has_one_shape_whatever_the_decision():
    """The lobby's, a turn's and a claim window's clock: the same keys in the same order (a turn adds
    whose it is), with the free time only on a turn."""
    keys = ["decision", "deadline", "started", "free_until", "banks", "auto"]
    lobby = bots_room(seats=(1, 2, 3), bot_delay=0)
    c = lobby.snapshot("alice")["clock"]
    assert list(c) == keys and c["decision"] is None and c["deadline"] is None and c["banks"] == [60.0] * 4
    room = started()
    c = room.snapshot("alice")["clock"]
    assert list(c) == keys + ["player"]
    assert c == {"decision": "turn", "deadline": 90, "started": 0, "free_until": 30, "banks": [60.0] * 4,
                 "auto": [None] * 4, "player": 0}
    act(room, "alice", tidy(game(room)), 40)
    c = room.snapshot("alice")["clock"]
    assert list(c) == keys
    assert c == {"decision": "claim", "deadline": 40 + room.config.claim_time, "started": 40, "free_until": None,
                 "banks": [50.0, 60.0, 60.0, 60.0], "auto": [None] * 4}
    c["banks"][0] = 0  # a copy: the room's own banks are not the message's
    assert room.banks[0] == 50


def test_a_claim_windows_timers_follow_its_waiting_seats():
    """Every answer in a claim window leaves the timeout to the first waiting player (by player order)
    and, with a bot or 托管 among them, one automatic answer at ``claim_min``; asked after each play."""
    import random

    from game import match as gm
    from tests.rooms.support import CODE, act, new_room, tidy

    rng = random.Random(5)
    room = new_room(host="a", hands=4, claim_min=0.5, bot_delay=0.5)
    for pid in ("b", "c"):
        room.handle(pid, {"t": "join", "code": CODE}, 0)
    room.handle("a", {"t": "add_bot", "seat": 3}, 0)
    for pid in ("a", "b", "c"):
        room.handle(pid, {"t": "ready"}, 0)
    now, windows = 0.0, 0
    for _ in range(3000):
        if room.phase != "playing":
            break
        m = room.match
        if m.phase == gm.PLAYING and m.hand.phase == "claim":
            windows += 1
            waiting = sorted(m.seats()[s] for s in m.hand.claim.waiting)
            timers = {t[1]: t for t in room._timers() if t[1] < 20}
            timeout = timers[4 + waiting[0]]
            assert timeout[0] == room.turn_started + room.config.claim_time and timeout[3] == (waiting[0], "timeout")
            auto = [p for p in waiting if room.seats[p].bot is not None or room.auto[p] is not None]
            assert [k for k in timers if k < 4] == auto[:1]
        views = [(pid, room.snapshot(pid)["game"]) for pid in ("a", "b", "c")]
        ready = [(pid, v) for pid, v in views if v["to_act"]]
        now += 0.25
        if not ready:
            now = max(now, room.next_deadline())
            room.tick(now)
            continue
        pid, v = rng.choice(ready)
        act(room, pid, tidy(v), now)
    assert windows > 20


def test_a_claim_window_keeps_its_clock_while_nothing_in_it_changes():
    """A window's clock is built once and found again by its answers (rooms.messages ``_clock``): it is
    always the clock built afresh, and a seat's 托管 changing in the window changes it."""
    room = bots_room(seats=(), bot_delay=1.0)
    room.handle("alice", {"t": "sit", "seat": 1}, 0)
    for s in (0, 2, 3):
        room.handle("alice", {"t": "add_bot", "seat": s}, 0)
    now, reused, changed = 0.0, 0, 0
    room.handle("alice", {"t": "start"}, now)
    for _ in range(600):
        if room.phase != "playing":
            break
        first, again = room._clock(), room._clock()
        room._window_clock = None
        assert first == again == room._clock()
        if again is first:
            reused += 1
            assert first["decision"] == "claim"
            seat = room.match.hand.claim.seat
            was, room.auto[seat] = room.auto[seat], "requested"
            assert room._clock()["auto"][seat] == "requested"
            room.auto[seat] = was
            assert room._clock()["auto"][seat] == was
            changed += 1
        g = room.snapshot("alice")["game"]
        if g["to_act"]:
            act(room, "alice", tidy(g), now)
        else:
            now = room.next_deadline()
            room.tick(now)
        now += 0.3
    assert reused > 10 and changed == reused
