"""Rooms apply, then render: a room's attributes all exist from the start, replaying its log builds no
message and no hint, and a replayed room goes on sending what the live one sends."""

from __future__ import annotations

import random
import typing

import rooms.messages
from rooms.effects import Effect, GameEvents, RoomChanged
from rooms.messages import RoomMessages
from rooms.room import Room

from tests.rooms.support import CODE, POLICIES, SECRET, config

PLAYERS = ["a", "b", "c", "d"]


def quick_room() -> Room:
    return Room.create("q1", config(), "a", CODE, SECRET, 0.0, players=PLAYERS, bot_policies=POLICIES)


def drive(rooms: list[Room], steps: int, now: float, rng: random.Random, seen: list | None = None) -> float:
    """Play ``steps`` moves on every room in ``rooms`` alike, chosen from the first room's snapshots: a
    random legal action of the first player to act, else the next timer. ``seen``: the messages each
    step gave, per room."""
    lead = rooms[0]
    for _ in range(steps):
        now += 1.0
        who = next((p for p in PLAYERS if p in lead.members and lead.phase == "playing"
                    and lead.snapshot(p)["game"]["to_act"]), None)
        if who is not None:
            game = lead.snapshot(who)["game"]
            action = {**rng.choice(game["legal"]), "seq": game["seq"]}
            outs = [r.handle(who, {"t": "act", "action": action}, now) for r in rooms]
        elif lead.phase == "playing":
            now = max(now, lead.next_deadline())
            outs = [r.tick(now) for r in rooms]
        else:
            outs = [r.handle(p, {"t": "ready", "ready": True}, now) for r in rooms for p in PLAYERS[:1]]
        if seen is not None:
            seen.append(outs)
    return now


def played_room(steps: int = 120) -> tuple[Room, list[dict], float]:
    room = quick_room()
    log = room.take_log()
    now = 0.0
    rng = random.Random(7)
    for i in range(steps):
        if i == 10:
            room.handle("b", {"t": "hint", "on": False}, now)
            room.handle("b", {"t": "hint", "on": True}, now)
        now = drive([room], 1, now, rng)
        log += room.take_log()
    return room, log, now


def test_every_room_attribute_is_set_when_the_room_is_made():
    live, log, _ = played_room(60)
    assert set(vars(Room())) == set(vars(live))
    assert set(vars(Room())) == set(vars(Room.replay(log, POLICIES)))


def test_replaying_a_log_builds_no_messages_and_no_hints(monkeypatch):
    live, log, _ = played_room()
    built = {"msg": 0, "info": 0, "hint": 0}

    def counting(name, f):
        def wrapper(*a, **kw):
            built[name] += 1
            return f(*a, **kw)
        return wrapper

    monkeypatch.setattr(RoomMessages, "_msg", counting("msg", RoomMessages._msg))
    monkeypatch.setattr(RoomMessages, "info", counting("info", RoomMessages.info))
    monkeypatch.setattr(RoomMessages, "_seat_hint", counting("hint", RoomMessages._seat_hint))
    monkeypatch.setattr(rooms.messages, "hint_of_view", counting("hint", rooms.messages.hint_of_view))
    replayed = Room.replay(log, POLICIES)
    assert built == {"msg": 0, "info": 0, "hint": 0}
    assert replayed._hint_sent == {}
    monkeypatch.undo()
    assert replayed.rseq == live.rseq and replayed.match.seq == live.match.seq
    for p in PLAYERS:
        assert replayed.snapshot(p) == live.snapshot(p)


def test_a_replayed_room_sends_what_the_live_room_sends():
    live, log, now = played_room()
    replayed = Room.replay(log, POLICIES)
    # After a restart every member comes back through connect (and is sent a snapshot).
    for p in PLAYERS:
        assert live.connect(p, now) == replayed.connect(p, now)
    seen: list = []
    drive([live, replayed], 150, now, random.Random(3), seen)
    assert any(outs[0] for outs in seen)
    assert any("hint" in m for outs in seen for _, m in outs[0])
    for live_out, replayed_out in seen:
        assert live_out == replayed_out


def test_applying_an_entry_returns_effects_and_rendering_builds_the_messages():
    live, log, _ = played_room(80)
    kinds = set(typing.get_args(Effect))
    fresh = Room(POLICIES)
    seen = set()
    for entry in log:
        if entry.get("derived"):
            continue
        effects = fresh._apply(entry, entry["now"])
        assert all(type(x) in kinds for x in effects), effects
        seen |= {type(x) for x in effects}
    assert {RoomChanged, GameEvents} <= seen
