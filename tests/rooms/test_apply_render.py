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
            outs = [r.render(r.handle(who, {"t": "act", "action": action}, now)) for r in rooms]
        elif lead.phase == "playing":
            now = max(now, lead.next_deadline())
            outs = [r.render(r.tick(now)) for r in rooms]
        else:
            outs = [r.render(r.handle(p, {"t": "ready", "ready": True}, now)) for r in rooms for p in PLAYERS[:1]]
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
            room.render(room.handle("b", {"t": "hint", "on": False}, now))
            room.render(room.handle("b", {"t": "hint", "on": True}, now))
        now = drive([room], 1, now, rng)
        log += room.take_log()
    return room, log, now


def test_a_room_numbers_its_log_rows_and_a_replay_counts_them_again():
    """Room.rows (entries and derived records) is where the next stored row goes: the one count of a
    room's log position, which a replay of the log rebuilds."""
    live, log, _ = played_room(400)
    assert any(e.get("derived") for e in log) and live.rows == len(log) and not live.pending_log()
    replayed = Room.replay(log, POLICIES)
    assert (replayed.rows, replayed.rseq) == (live.rows, live.rseq)
    assert Room.restore(log, 500.0, POLICIES).take_log()[0]["k"] == "restore"


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
    monkeypatch.setattr(RoomMessages, "_game_msg", counting("msg", RoomMessages._game_msg))  # adds room, rseq itself
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
        assert live.render(live.connect(p, now)) == replayed.render(replayed.connect(p, now))
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


def test_a_call_builds_no_message_until_its_changes_are_rendered(monkeypatch):
    """A live call returns what it did (rooms.effects.Applied) and builds no message: the server renders
    them once the entries are durable, each from the moment it was committed."""
    built = []
    msg, game_msg = RoomMessages._msg, RoomMessages._game_msg
    monkeypatch.setattr(RoomMessages, "_msg", lambda self, d, rseq: built.append(rseq) or msg(self, d, rseq))
    # (a game message adds the room and rseq itself, without _msg)
    monkeypatch.setattr(RoomMessages, "_game_msg", lambda self, at, *a: built.append(at.rseq) or game_msg(self, at, *a))
    room = quick_room()
    room.take_log()
    now, rng = 0.0, random.Random(5)
    calls = []
    for _ in range(40):
        before = room.rseq
        applied = room.tick(now + 5.0)  # bots' and timers' entries, several per call
        now += 5.0
        if room.phase == "playing" and (who := next((p for p in PLAYERS if room.snapshot(p)["game"]["to_act"]), None)):
            game = room.snapshot(who)["game"]
            applied += room.handle(who, {"t": "act", "action": {**rng.choice(game["legal"]), "seq": game["seq"]}}, now)
        assert built == []
        calls.append((before, room.rseq, applied))
    for before, after, applied in calls:
        out = room.render(applied)
        # Recipients who see the same get one message (built once): compare the moments, not counts.
        assert sorted({m["rseq"] for _, m in out}) == sorted(set(built))
        assert all(before < rseq <= after for rseq in built) and out
        built.clear()


def test_commands_read_the_room_through_its_narrow_interface():
    """rooms/commands.py reads a room only through CommandRoom (no private member, nothing unlisted), and
    Room provides all of it."""
    import ast
    import inspect

    import rooms.commands
    from rooms.commands import CommandRoom

    allowed = set(CommandRoom.__annotations__) | {n for n in vars(CommandRoom) if not n.startswith("_")}
    tree = ast.parse(inspect.getsource(rooms.commands))
    read = {n.attr for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "room"}
    assert read and read <= allowed, read - allowed
    room = quick_room()
    assert all(hasattr(room, name) for name in allowed)


def test_seats_that_see_the_same_get_one_message():
    """Recipients whose game messages come out equal (no event of their own, the same legal actions, no
    new hint) get one message object, which the server then encodes once (server.roomtask._send)."""
    room = quick_room()
    room.take_log()
    seen: list = []
    drive([room], 150, 0.0, random.Random(11), seen)
    shared = 0
    for (out,) in seen:
        games = [m for _, m in out if m["t"] == "game" and "hint" not in m]
        for i, a in enumerate(games):
            for b in games[i + 1:]:
                assert (a == b) == (a is b)
                shared += a is b
    assert shared > 50


def test_moments_and_messages_are_their_named_tuples():
    """Built as plain tuples for speed, they are still the named types, read by name."""
    from rooms.effects import Applied, Moment
    from rooms.messages import Outbound

    room = quick_room()
    applied = room.disconnect("b", 1.0)  # the others hear of it
    assert applied and all(type(a) is Applied and type(a.moment) is Moment for a in applied)
    at = applied[-1].moment
    assert at.rseq == room.rseq and at.phase == room.phase and len(at) == len(Moment._fields)
    out = room.render(applied)
    assert out and all(type(o) is Outbound and o.to in PLAYERS and o.msg["room"] == "q1" for o in out)
