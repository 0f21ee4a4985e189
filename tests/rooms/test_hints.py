"""The wait hint in a room: sent to a human seat that asked for it, about its own tiles only."""

import pytest

from game.hints import hint_of_view
from tests.support.scripted import T, deal_scripted

from tests.rooms.support import CODE, act, greedy, messages_for, new_room, tidy


@pytest.fixture
def scripted(monkeypatch):
    deal_scripted(monkeypatch)


def table(**kw):
    """alice (seat 0) and bob (seat 1) human, two bots, carol watching."""
    room = new_room(bot_delay=0.5, **kw)
    room.handle("bob", {"t": "join", "code": CODE}, 0)
    for s in (2, 3):
        room.handle("alice", {"t": "add_bot", "seat": s}, 0)
    room.handle("carol", {"t": "watch", "code": CODE}, 0)
    room.handle("bob", {"t": "ready"}, 0)
    return room, room.render(room.handle("alice", {"t": "ready"}, 0))


def hints(out, pid):
    return [m["hint"] for m in messages_for(out, pid) if "hint" in m]


def test_hint_goes_to_its_own_seat_only(scripted):
    room, out = table()
    (h,) = hints(out, "alice")
    assert set(h["discards"]) == {str(T("N")), str(T("1s"))}
    after_n = {w["tile"]: w for w in h["discards"][str(T("N"))]}
    assert set(after_n) == {T("1s"), T("4s")}
    assert after_n[T("1s")]["meets_min"] and after_n[T("1s")]["total"] == 22
    assert "Pure Straight" in {f[2] for f in after_n[T("1s")]["fans"]}
    assert hints(out, "bob") == [{"waits": []}]  # bob's own 13 tiles: not ready
    assert hints(out, "carol") == []  # spectators never get one
    snap = room.snapshot("alice")
    assert snap["game"]["hint"] == h and snap["you"]["hints"] is True
    assert "hint" not in room.snapshot("carol")["game"]

    # After the discard alice waits; the hint is sent again only when her tiles change.
    out = act(room, "alice", {"a": "discard", "tile": T("N")}, 1)
    (h,) = hints(out, "alice")
    assert {w["tile"] for w in h["waits"]} == {T("1s"), T("4s")}
    assert hints(out, "bob") == [] and hints(out, "carol") == []
    seen = [h]
    now = 1.0
    for _ in range(400):
        if room.phase != "playing" or room.match.number > 0:
            break
        now += 0.5
        for pid in ("alice", "bob"):
            v = room.snapshot(pid)["game"]
            if v["to_act"]:
                out = act(room, pid, tidy(v), now)
                break
        else:
            out = room.render(room.tick(now))
        assert hints(out, "carol") == []
        for pid in ("alice", "bob"):
            sent = hints(out, pid)
            if sent:  # the latest is the hint of the seat's own view now
                assert sent[-1] == hint_of_view(room._view(room.members[pid].seat), room.rules)
            if pid == "alice":
                for x in sent:
                    assert x != seen[-1]  # sent again only when it changes
                    seen.append(x)
    assert room.match.number == 1 and len(seen) > 2
    assert None in seen  # once the hand was over


def test_the_hint_switch(scripted):
    room, out = table()
    out = room.render(room.handle("alice", {"t": "hint", "on": False}, 0.1))
    assert hints(out, "alice") == []
    assert "hint" not in room.snapshot("alice")["game"] and room.snapshot("alice")["you"]["hints"] is False
    out = act(room, "alice", {"a": "discard", "tile": T("N")}, 0.2)
    assert hints(out, "alice") == []
    out = room.render(room.handle("alice", {"t": "hint", "on": True}, 0.3))
    (h,) = hints(out, "alice")  # at once, without waiting for the next change
    assert {w["tile"] for w in h["waits"]} == {T("1s"), T("4s")}
    with pytest.raises(Exception) as e:
        room.handle("alice", {"t": "hint", "on": "yes"}, 0.4)
    assert e.value.code == "room/bad_command"
    # The switch is in the log: a restored room keeps it.
    room.handle("bob", {"t": "hint", "on": False}, 0.5)
    from rooms.room import Room

    again = Room.replay(room.take_log())
    assert again.members["bob"].hints is False and again.members["alice"].hints is True


@pytest.mark.parametrize("kind, seed", [("guobiao", 1), ("dazhong", 2), ("wufan", 3), ("table", 4)])
def test_the_messages_hint_is_the_hint_of_the_seats_view(kind, seed):
    """Room._seat_hint (what the game messages carry) reads the state directly; it must be what the
    seat's own view gives, on turns, in claim windows (the discard taken out, 报听, 停和) and after."""
    import random

    from rooms.config import RoomConfig
    from rooms.errors import RoomError
    from rooms.room import Room

    from tests.rooms.support import SECRET

    rng = random.Random(seed)
    pids = ["a", "b", "c", "d"]
    now = 0.0
    if kind == "table":
        room = Room.create_table("t1", RoomConfig(table=True, hands=4, type="dazhong", claim_min=0), pids, CODE,
                                 SECRET, now)
        for pid in pids:
            room.connect(pid, now)
        room.system({"t": "start"}, now)
    else:
        room = new_room(host="a", type=kind, hands=4, claim_min=0)
        for pid in pids[1:]:
            room.handle(pid, {"t": "join", "code": CODE}, now)
        for pid in pids:
            room.handle(pid, {"t": "ready"}, now)
    kinds = set()
    for _ in range(5000):
        if room.phase != "playing":
            break
        for p in range(4):
            assert room._seat_hint(p, room.match) == hint_of_view(room._view(p), room.rules)
        h = room._seat_hint(0, room.match)
        claiming = room.match.phase == "playing" and room.match.hand.phase == "claim"
        kinds.add((claiming, None if h is None else next(iter(h))))
        now += 0.5
        # 停和 on ready seats in claim windows (the view shows it at once).
        waiting = [p for p in range(4) if kind == "table" and claiming
                   and not room.match.hand.blocked[room.match.seat_of(p)] and (room._seat_hint(p, room.match) or {}).get("waits")]
        if waiting and rng.random() < 0.5:
            try:
                room.system({"t": "stop_win", "player": rng.choice(waiting)}, now)
            except RoomError:
                pass
            continue
        views = [(pid, room.snapshot(pid)["game"]) for pid in pids]
        ready = [(pid, v) for pid, v in views if v["to_act"]]
        if not ready:
            now = max(now, room.next_deadline())
            room.tick(now)
            continue
        pid, v = rng.choice(ready)
        legal = v["legal"]
        # Mostly toward a ready hand (greedy), so that seats wait and 停和 changes their hints.
        a = {"a": "win"} if {"a": "win"} in legal else greedy(v) if rng.random() < 0.8 else rng.choice(legal)
        act(room, pid, a, now)
    assert room.phase != "playing"
    assert {(False, "discards"), (True, "waits"), (False, None)} <= kinds  # turns, windows, between hands


def test_a_discards_hint_is_read_from_the_hint_before_it_not_scored_again(scripted, monkeypatch):
    import game.hints
    import rooms.messages

    room, out = table()
    (h,) = hints(out, "alice")  # ready after N or 1s: the waits after each discard are listed
    game.hints._waits.cache_clear()  # thousands of tables later, the shared cache no longer has them
    computed = []
    real = rooms.messages.hint_and_shanten
    monkeypatch.setattr(rooms.messages, "hint_and_shanten", lambda *a, **kw: computed.append(a) or real(*a, **kw))
    out = act(room, "alice", {"a": "discard", "tile": T("N")}, 1)
    (after,) = hints(out, "alice")
    assert after == {"waits": h["discards"][str(T("N"))]}
    assert after == hint_of_view(room._view(room.members["alice"].seat), room.rules)
    assert computed == []  # no hint computed again (bob's tiles did not change either)


def test_a_hint_asked_again_of_the_same_tiles_is_the_one_before_and_follows_a_change(scripted, monkeypatch):
    """_seat_hint gives the memo's hint while the seat's inputs are the same; anything of the seat that
    changes (here 停和 on the hand's copy) gives the hint of the new inputs, as the view does."""
    import rooms.messages

    room, _ = table()
    seat = room.members["alice"].seat
    first = room._seat_hint(seat, room.match)
    computed = []
    real = rooms.messages.hint_and_shanten
    monkeypatch.setattr(rooms.messages, "hint_and_shanten", lambda *a, **kw: computed.append(a) or real(*a, **kw))
    assert room._seat_hint(seat, room.match) is first and computed == []
    hand = room.match.hand.copy()
    s = room.match.seat_of(seat)
    hand.blocked = hand.blocked[:s] + (True,) + hand.blocked[s + 1:]
    blocked = room.match.copy()
    blocked.hand = hand
    again = room._seat_hint(seat, blocked)
    assert len(computed) == 1 and again != first
    assert all(not w["meets_min"] for ws in again["discards"].values() for w in ws)


def _after_discard_by_every_removal(last, key):
    """rooms.messages._after_discard as first written: every tile of the hand before tried in turn."""
    (before, *rest), h = last[0], last[1]
    if "discards" not in (h or ()) or tuple(rest) != key[1:] or len(before) != len(key[0]) + 1:
        return None
    a, b = sorted(before), sorted(key[0])
    for i, tile in enumerate(a):
        if a[:i] + a[i + 1:] == b:
            return {"waits": h["discards"].get(str(tile), [])}
    return None


def test_a_discards_hint_finds_the_tile_gone_as_trying_every_tile_does():
    """The tile discarded is found where the hands before and after first differ; over random hands with
    repeated tiles, one tile gone or another change, the answer is that of trying every tile."""
    import random

    from rooms.messages import _after_discard

    rng = random.Random(5)
    found = 0
    for _ in range(3000):
        before = tuple(sorted(rng.choice(range(6)) for _ in range(rng.choice((2, 5, 8, 11, 14)))))
        after = list(before)
        after.pop(rng.randrange(len(after)))
        if rng.random() < 0.2:  # not one tile gone: another tile changed too
            after[rng.randrange(len(after))] = rng.choice(range(7)) if after else 0
        after = tuple(sorted(after))
        rest = (("m",), 1, 0, 0, False, False)
        hint = {"discards": {str(t): [t, t + 1] for t in range(6)}}
        last, key = ((before, *rest), hint, 2), (after, *rest)
        expected = _after_discard_by_every_removal(last, key)
        assert _after_discard(last, key) == expected
        found += expected is not None
    assert 2000 < found < 3000
    # no discards listed, other melds, or not one tile fewer: no hint read from the last one
    last = (((1, 2, 3), *rest), {"discards": {"1": [1]}}, 2)
    assert _after_discard(last, ((1, 2), *rest)) == {"waits": []}
    assert _after_discard(last, ((2, 3), *rest)) == {"waits": [1]}
    assert _after_discard(((((1, 2, 3), *rest)), {"waits": []}, 2), ((1, 2), *rest)) is None
    assert _after_discard(last, ((1, 2), ("p",), *rest[1:])) is None
    assert _after_discard(last, ((1,), *rest)) is None
