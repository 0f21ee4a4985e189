"""Limits a room keeps by itself, whatever its config: one call never plays a whole match."""

from __future__ import annotations

import pytest

from rooms.errors import RoomError
from rooms.room import AUTO_PER_CALL, PLAYING
from tests.rooms.support import bots_room

ZERO = dict(bot_delay=0, turn_time=0, first_turn_time=0, bank=0, claim_time=0, claim_min=0, between_time=0)


def test_zero_timers_do_not_run_a_match_inside_start():
    room = bots_room(policies={}, hands=16, **ZERO)  # the real fan bots
    room.take_log()
    room.handle("alice", {"t": "start"}, 0.0)
    log = room.take_log()
    assert room.phase == PLAYING and not room.records()["matches"]
    assert sum(1 for e in log if e["k"] in ("act", "close")) <= AUTO_PER_CALL
    assert room.next_deadline() <= 0.0  # the rest is due at once: the caller ticks again
    ticks = 0
    while room.phase == PLAYING:
        room.tick(0.0)
        ticks += 1
        assert sum(1 for e in room.take_log() if e["k"] in ("act", "close")) <= AUTO_PER_CALL
    (rec,) = room.records()["matches"]
    assert len(rec["hands"]) >= 16 and ticks > 100


def test_zero_timers_do_not_run_a_match_inside_rematch():
    room = bots_room(policies={}, hands=4, **ZERO)
    room.handle("alice", {"t": "start"}, 0.0)
    while room.phase == PLAYING:
        room.tick(0.0)
    room.take_log()
    room.handle("alice", {"t": "rematch"}, 0.0)
    assert room.phase == PLAYING and len(room.records()["matches"]) == 1
    assert sum(1 for e in room.take_log() if e["k"] in ("act", "close")) <= AUTO_PER_CALL


def test_quick_match_host_cannot_kick():
    from rooms.room import Room
    from tests.rooms.support import CODE, POLICIES, SECRET, config

    room = Room.create("q1", config(private=False), "alice", CODE, SECRET, 0.0, players=["alice", "bob"], bots=2,
                       bot_policies=POLICIES)
    assert room.phase == PLAYING and room.host == "alice" and room.info()["quick"]
    rseq = room.rseq
    with pytest.raises(RoomError) as e:
        room.handle("alice", {"t": "kick", "player": "bob"}, 1.0)
    assert e.value.code == "room/quick_match"
    assert "bob" in room.members and "bob" not in room.banned and room.rseq == rseq


def test_spectators_are_capped_and_counted_not_listed():
    from tests.rooms.support import CODE, new_room

    room = new_room(max_spectators=3)
    for i in range(3):
        room.handle(f"w{i}", {"t": "watch", "code": CODE}, 1.0)
    rseq = room.rseq
    with pytest.raises(RoomError) as e:
        room.handle("w3", {"t": "watch", "code": CODE}, 1.0)
    assert e.value.code == "room/too_many_spectators" and room.rseq == rseq and "w3" not in room.members
    room.handle("bob", {"t": "join", "code": CODE}, 1.0)
    with pytest.raises(RoomError):  # standing up makes a spectator too
        room.handle("bob", {"t": "watch"}, 1.0)
    info = room.info()
    assert info["spectators"] == 3 and not any(f"w{i}" in str(info) for i in range(3))
    room.handle("w0", {"t": "leave"}, 2.0)
    assert room.info()["spectators"] == 2
    room.handle("w3", {"t": "watch", "code": CODE}, 2.0)  # room again
    assert room.config.max_spectators == 3 and new_room().config.max_spectators == 50
