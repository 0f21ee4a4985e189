"""Whole matches in a room: bots and 托管 via tick/handle, replay of the room log, restore, records."""

import pytest

from game import match as gm
from game.actions import from_dict
from game.codec import canonical
from rooms.room import Room
from rooms.types import rules_for

from tests.rooms.support import CODE, act, bots_room, greedy, play_human, random_bot, tidy

RANDOM = {"fan": greedy, "random": random_bot(3)}


def same(a: Room, b: Room) -> None:
    assert a.rseq == b.rseq and a.info() == b.info()
    assert a.banks == b.banks and a.auto == b.auto and a.records() == b.records()
    assert (a.match is None) == (b.match is None)
    if a.match is not None:
        assert canonical(a.match) == canonical(b.match)
    for pid in a.members:
        sa, sb = a.snapshot(pid), b.snapshot(pid)
        sa["info"]["seats"] = sb["info"]["seats"] = None  # connection state is not in the log
        assert sa == sb


@pytest.mark.parametrize("room_type", ["wufan", "guobiao", "dazhong"])
def test_a_bot_filled_room_plays_a_whole_4_hand_match_by_ticks(room_type):
    room = bots_room(type=room_type, level="random", policies=RANDOM, bot_delay=0.5)
    room.handle("alice", {"t": "start"}, 0)
    room.disconnect("alice", 0)  # alice is away: after the grace period the room plays for her
    now = 0.0
    for _ in range(10_000):
        if room.phase != "playing":
            break
        now = room.next_deadline()
        room.tick(now)
    assert room.phase == "lobby" and room.auto[0] is None
    (rec,) = room.records()["matches"]
    assert len(rec["hands"]) == 4 and sum(rec["scores"]) == 0
    log = room.take_log()
    assert any(e["k"] == "auto" and e["why"] == "disconnected" for e in log)
    bys = {e["by"] for e in log if e["k"] == "act"}
    assert bys <= {"bot", "auto", "timeout"} and "bot" in bys and "auto" in bys


def test_records_per_hand_and_the_ranking():
    room = bots_room(type="wufan", level="fan", policies=RANDOM, bot_delay=0, hands=8)
    room.handle("alice", {"t": "start"}, 0)
    play_human(room, "alice", 1.0, policy=greedy)
    (rec,) = room.records()["matches"]
    rules = rules_for("wufan", hands=8)
    totals = [0, 0, 0, 0]
    wins = 0
    for h in rec["hands"]:
        assert sum(h["payments"]) == 0 and sum(h["deltas"]) == 0
        totals = [t + d for t, d in zip(totals, h["deltas"])]
        assert h["scores"] == totals
        if h["winner"] is not None:
            wins += 1
            # 无番馆: +30 on a self-draw, +10 on a discard, the discarder -10
            if h["self_drawn"]:
                assert h["payments"][h["winner"]] == 30
            else:
                assert h["payments"][h["winner"]] == 10 and h["payments"][h["discarder"]] == -10
            assert h["fans"] == [] and h["total"] == 0  # fans are not counted
        else:
            assert h["payments"] == [0, 0, 0, 0]
    assert wins > 0 and rec["scores"] == totals
    places = [r["place"] for r in rec["ranking"]]
    scores = [r["score"] for r in rec["ranking"]]
    assert scores == sorted(scores, reverse=True) and places[0] == 1
    # the match replays from its record alone (game.match.replay); a seed beyond 2^53 is a string
    seed = rec["seed"]
    assert type(seed) is (str if int(seed) > 2**53 - 1 else int)
    m = gm.replay(rules, [(p, from_dict(a)) for p, a in rec["actions"]], seed=int(seed))
    assert list(m.scores) == rec["scores"] and m.phase == gm.FINISHED
    assert rec["rules"]["settlement"] == "wufan"


def test_guobiao_payments_follow_the_formula():
    room = bots_room(type="guobiao", level="random", policies=RANDOM, bot_delay=0, hands=16)
    room.handle("alice", {"t": "start"}, 0)
    play_human(room, "alice", 1.0)
    rules = rules_for("guobiao")
    for h in room.records()["matches"][0]["hands"]:
        if h["winner"] is not None:
            assert h["total"] - sum(f[3] * f[4] for f in h["fans"] if f[0] == 81) >= rules.min_fan  # without flowers
        assert sum(h["payments"]) == 0


def test_replay_of_the_room_log_is_the_same_room_at_every_point():
    room = bots_room(type="wufan", level="random", policies=RANDOM, bot_delay=0)
    room.handle("sam", {"t": "watch", "code": CODE}, 0)
    room.handle("alice", {"t": "start"}, 0)
    log = room.take_log()
    now = 1.0
    checks = 0
    for i in range(100_000):
        if room.phase != "playing":
            break
        g = room.snapshot("alice")["game"]
        if g["to_act"]:
            a = tidy(g)
            room.handle("alice", {"t": "act", "action": {**a, "seq": g["match"]["seq"]}}, now)
        else:
            now = room.next_deadline()
            room.tick(now)
        log += room.take_log()
        if i % 37 == 0:  # also in the middle of claim windows
            same(room, Room.replay(log, RANDOM))
            checks += 1
        now += 0.25
    log += room.take_log()
    same(room, Room.replay(log, RANDOM))
    assert checks > 5 and any(e.get("derived") for e in log)


def test_restore_after_a_restart():
    room = bots_room(level="random", policies=RANDOM, bot_delay=1)
    room.handle("alice", {"t": "start"}, 0)
    for t in (1, 2, 3, 4, 5):
        room.tick(t)
    log = room.take_log()
    back = Room.restore(log, 500.0, RANDOM)
    (entry,) = back.take_log()
    assert entry["k"] == "restore" and entry["now"] == 500.0
    assert not back.members["alice"].connected
    # the pending decision's clock starts again at the restore
    c = back.snapshot("alice")["clock"]
    assert c["started"] == 500.0
    assert canonical(back.match) == canonical(room.match)
    same(back, Room.replay(log + [entry], RANDOM))
    back.connect("alice", 501)
    play_human(back, "alice", 501)
    assert back.finished


def test_each_match_seed_comes_from_the_secret():
    from rooms.room import match_seed
    assert match_seed(b"s" * 32, 1) != match_seed(b"s" * 32, 2) != match_seed(b"t" * 32, 2)
    assert match_seed(b"s" * 32, 1) == match_seed(b"s" * 32, 1)


def test_a_broken_bot_never_stops_the_table():
    def broken(view):
        raise RuntimeError("bug")

    def illegal(view):
        return {"a": "discard", "tile": 33 if 33 not in view.get("hand", []) else 0}

    for policy in (broken, illegal):
        room = bots_room(policies={"fan": policy, "random": policy}, bot_delay=0)
        room.handle("alice", {"t": "start"}, 0)
        play_human(room, "alice", 1)
        assert room.finished
        assert any(e.get("by") == "bot_error" for e in room.take_log())


def test_dazhong_payments_are_the_fans():
    room = bots_room(type="dazhong", level="fan", policies=RANDOM, bot_delay=0, hands=8)
    room.handle("alice", {"t": "start"}, 0)
    play_human(room, "alice", 1.0, policy=greedy)
    wins = 0
    for h in room.records()["matches"][0]["hands"]:
        if h["winner"] is None:
            continue
        wins += 1
        assert h["total"] == sum(f[3] * f[4] for f in h["fans"])
        expected = 3 * h["total"] if h["self_drawn"] else h["total"]
        assert h["payments"][h["winner"]] == expected
        if not h["self_drawn"]:
            assert h["payments"][h["discarder"]] == -h["total"]
            assert sorted(h["payments"]).count(0) == 2
    assert wins > 0


@pytest.mark.parametrize("level", ["fan", "random"])
def test_the_real_bots_play_a_match(level):
    room = bots_room(level=level, policies={}, bot_delay=0)
    room.handle("alice", {"t": "start"}, 0)
    play_human(room, "alice", 1)
    assert room.finished and not any(e.get("by") == "bot_error" for e in room.take_log())


def test_create_checks_its_inputs():
    from rooms.config import RoomConfig

    with pytest.raises(ValueError):
        Room.create("r", RoomConfig(), "a", "not-a-code", b"x" * 32, 0)
    with pytest.raises(ValueError):
        Room.create("r", RoomConfig(), "a", "ABCD2345", b"short", 0)


@pytest.mark.parametrize("kind, training, min_fan", [("guobiao", False, 8), ("dazhong", True, 0), ("wufan", False, 0)])
def test_fan_bots_are_told_the_rooms_rules(monkeypatch, kind, training, min_fan):
    """The view carries no rules: the room builds the fan bot with its minimum and training mode."""
    import rooms.bot
    import rooms.bot_random
    from rooms.room import load_bot

    real = rooms.bot.choose
    calls: list = []

    def recording(view, **kw):
        calls.append(kw)
        return real(view, **kw)

    monkeypatch.setattr(rooms.bot, "choose", recording)
    room = bots_room(policies={}, bot_delay=0, type=kind, false_win_penalty=training)
    room.handle("alice", {"t": "start"}, 0)
    for now in range(1, 40):
        view = room.snapshot("alice")["game"]
        if view["to_act"]:
            act(room, "alice", tidy(view), now)
        room.tick(now)
    assert calls and all(kw == {"min_fan": min_fan, "check_wins": training} for kw in calls)
    assert not any(e.get("by") == "bot_error" for e in room.take_log())
    assert load_bot("random", room.rules) is rooms.bot_random.choose  # the random bot needs no rules


def test_memory_plateaus_a_room_keeps_only_its_last_match_whole():
    """A room rematching all day keeps a summary of each earlier match (its history), not every hand
    and action: those are in the database."""
    room = bots_room(type="wufan", level="fan", policies=RANDOM, bot_delay=0, hands=4)
    now = 0.0
    for cmd in ("start", "rematch", "rematch"):
        room.handle("alice", {"t": cmd}, now)
        now = play_human(room, "alice", now + 1.0, policy=greedy)
    first, second, last = room.records()["matches"]
    assert set(first) == set(second) == {"match", "ids", "scores", "ranking", "void"}
    assert len(last["hands"]) == 4 and last["actions"]
    assert [m["match"] for m in (first, second, last)] == [1, 2, 3]
