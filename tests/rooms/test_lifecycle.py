"""The room lifecycle: create, join by code, seats, ready, start, bots, kick, leave, spectate, host
hand-over, rematch, disposal; and every rejected command changes nothing."""

import copy

import pytest

from rooms.errors import RoomError

from tests.rooms.support import CODE, bots_room, messages_for, new_room, play_human


def fingerprint(room):
    """Everything a rejected command must leave as it was."""
    return (room.rseq, room.info(), {m: room.snapshot(m) for m in room.members}, len(room._log), room.host,
            copy.deepcopy(room.banned))


def rejected(room, pid, cmd, now, code):
    before = fingerprint(room)
    with pytest.raises(RoomError) as e:
        room.handle(pid, cmd, now)
    assert e.value.code == code, e.value.message
    assert fingerprint(room) == before
    return e.value


def test_create_seats_the_host_and_logs_it():
    room = new_room()
    assert room.host == "alice" and room.seats[0].id == "alice" and room.phase == "lobby"
    (entry,) = room.take_log()
    assert entry["k"] == "create" and entry["rseq"] == 1 and room.take_log() == []
    assert room.info()["invite"] == CODE and "invite" not in room.info(member=False)


def test_join_by_code_case_free_and_seat_choice():
    room = new_room()
    out = room.render(room.handle("bob", {"t": "join", "code": "abcd-2345", "seat": 2}, 1))
    assert room.seats[2].id == "bob" and room.members["bob"].seat == 2
    assert {to for to, _ in out} == {"alice", "bob"}
    assert all(m["t"] == "room" and m["rseq"] == room.rseq and m["room"] == "r1" for _, m in out)
    room.handle("carol", {"t": "join", "code": CODE}, 2)
    assert room.seats[1].id == "carol"  # the first free seat


def test_join_rejections():
    room = new_room()
    rejected(room, "bob", {"t": "join", "code": "ZZZZ2345"}, 1, "room/bad_code")
    rejected(room, "bob", {"t": "join"}, 1, "room/bad_code")
    rejected(room, "alice", {"t": "join", "code": CODE}, 1, "room/already_in_room")
    rejected(room, "bob", {"t": "join", "code": CODE, "seat": 0}, 1, "room/seat_taken")
    rejected(room, "bob", {"t": "join", "code": CODE, "seat": 4}, 1, "room/bad_seat")
    rejected(room, "bob", {"t": "join", "code": CODE, "seat": "1"}, 1, "room/bad_seat")
    for pid in ("b", "c", "d"):
        room.handle(pid, {"t": "join", "code": CODE}, 1)
    rejected(room, "e", {"t": "join", "code": CODE}, 1, "room/full")


def test_public_rooms_need_no_code():
    room = new_room(private=False)
    room.handle("bob", {"t": "join"}, 1)
    assert room.members["bob"].seat == 1


def test_bad_commands():
    room = new_room()
    rejected(room, "alice", {"t": "dance"}, 1, "room/bad_command")
    rejected(room, "alice", {"type": "join"}, 1, "room/bad_command")
    rejected(room, "alice", ["join"], 1, "room/bad_command")
    rejected(room, "alice", {"t": "ready", "ready": "yes"}, 1, "room/bad_command")
    rejected(room, "alice", {"t": "ready", "extra": 1}, 1, "room/bad_command")
    rejected(room, "bob", {"t": "ready"}, 1, "room/not_in_room")
    rejected(room, "alice", {"t": "act", "action": {"a": "pass", "seq": 0}}, 1, "room/no_match")


def test_sit_moves_within_the_lobby():
    room = new_room()
    room.handle("alice", {"t": "sit", "seat": 3}, 1)
    assert room.seats[0] is None and room.seats[3].id == "alice"
    rejected(room, "alice", {"t": "sit", "seat": 3}, 1, "room/seat_taken")
    rejected(room, "alice", {"t": "sit"}, 1, "room/bad_command")


def test_four_ready_humans_start_automatically():
    room = new_room()
    for pid in ("b", "c", "d"):
        room.handle(pid, {"t": "join", "code": CODE}, 1)
    for pid in ("alice", "b", "c"):
        room.handle(pid, {"t": "ready"}, 2)
    room.handle("c", {"t": "ready", "ready": False}, 2)
    room.handle("d", {"t": "ready"}, 2)
    assert room.phase == "lobby"
    out = room.render(room.handle("c", {"t": "ready"}, 3))
    assert room.phase == "playing" and room.match_no == 1
    games = messages_for(out, "b")
    assert any(m["t"] == "game" and any(e["t"] == "deal" for e in m["events"]) for m in games)


def test_host_starts_a_full_table_bots_added_and_removed():
    room = new_room()
    rejected(room, "alice", {"t": "start"}, 1, "room/not_full")
    room.handle("bob", {"t": "join", "code": CODE}, 1)
    rejected(room, "bob", {"t": "add_bot"}, 1, "room/not_host")
    room.handle("alice", {"t": "add_bot", "level": "random"}, 1)
    room.handle("alice", {"t": "add_bot", "seat": 3}, 1)
    assert room.seats[2].bot == "random" and room.seats[3].bot == "fan" and room.seats[3].ready
    rejected(room, "alice", {"t": "add_bot", "level": "genius"}, 1, "room/bad_command")
    rejected(room, "alice", {"t": "add_bot"}, 1, "room/full")
    rejected(room, "alice", {"t": "remove_bot", "seat": 1}, 1, "room/not_bot")
    room.handle("alice", {"t": "remove_bot", "seat": 2}, 1)
    assert room.seats[2] is None
    room.handle("alice", {"t": "add_bot"}, 1)
    rejected(room, "bob", {"t": "start"}, 1, "room/not_host")
    room.handle("alice", {"t": "start"}, 2)  # bob is not ready: the host decides
    assert room.phase == "playing"
    rejected(room, "alice", {"t": "add_bot"}, 2, "room/in_match")
    rejected(room, "alice", {"t": "start"}, 2, "room/in_match")
    rejected(room, "zed", {"t": "join", "code": CODE}, 2, "room/in_match")


def test_bots_disabled():
    room = new_room(bots=False)
    rejected(room, "alice", {"t": "add_bot"}, 1, "room/bots_disabled")


def test_bot_level_without_a_module_is_refused():
    room = new_room(policies={})
    # rooms/bot.py may not exist yet; either it is there and used, or the level is refused.
    try:
        room.handle("alice", {"t": "add_bot", "level": "fan"}, 1)
    except RoomError as e:
        assert e.code == "room/bots_disabled"


def test_kick_bans_and_frees_the_seat():
    room = new_room()
    room.handle("bob", {"t": "join", "code": CODE}, 1)
    rejected(room, "bob", {"t": "kick", "player": "alice"}, 1, "room/not_host")
    rejected(room, "alice", {"t": "kick", "player": "alice"}, 1, "room/not_in_room")
    rejected(room, "alice", {"t": "kick", "player": "zed"}, 1, "room/not_in_room")
    out = room.render(room.handle("alice", {"t": "kick", "player": "bob"}, 2))
    assert messages_for(out, "bob") == [{"t": "kicked", "room": "r1", "rseq": room.rseq}]
    assert "bob" not in room.members and room.seats[1] is None
    rejected(room, "bob", {"t": "join", "code": CODE}, 3, "room/banned")


def test_leave_frees_the_seat_and_hands_the_host_over():
    room = new_room()
    room.handle("bob", {"t": "watch", "code": CODE}, 1)  # a spectator, joined first
    room.handle("carol", {"t": "join", "code": CODE}, 2)
    out = room.render(room.handle("alice", {"t": "leave"}, 3))
    assert messages_for(out, "alice")[0]["t"] == "left"
    assert room.seats[0] is None and room.host == "carol"  # seated humans first
    room.handle("carol", {"t": "leave"}, 4)
    assert room.host == "bob"
    assert not room.disposable(5)
    room.handle("bob", {"t": "leave"}, 5)
    assert room.host is None and room.disposable(5)


def test_explicit_host_hand_over():
    room = new_room()
    room.handle("bob", {"t": "join", "code": CODE}, 1)
    rejected(room, "bob", {"t": "host", "player": "bob"}, 1, "room/not_host")
    room.handle("alice", {"t": "host", "player": "bob"}, 1)
    assert room.host == "bob"


def test_spectators():
    room = new_room()
    room.handle("sam", {"t": "watch", "code": CODE}, 1)
    assert room.members["sam"].seat is None and room.spectator_ids() == ["sam"] and room.info()["spectators"] == 1
    rejected(room, "sam", {"t": "watch"}, 1, "room/already_in_room")
    rejected(room, "sam", {"t": "ready"}, 1, "room/not_seated")
    room.handle("sam", {"t": "sit", "seat": 1}, 2)  # a spectator may take a free seat in the lobby
    room.handle("sam", {"t": "watch"}, 3)  # and stand up again
    assert room.seats[1] is None
    closed = new_room(spectators=False)
    rejected(closed, "sam", {"t": "watch", "code": CODE}, 1, "room/no_spectators")


def test_spectators_may_come_during_a_match_and_see_no_concealed_tile():
    room = bots_room(bot_delay=0)
    room.handle("alice", {"t": "start"}, 1)
    room.handle("sam", {"t": "watch", "code": CODE}, 2)
    snap = room.snapshot("sam")
    assert snap["you"]["seat"] is None and "hand" not in snap["game"] and "legal" not in snap["game"]


def test_leaving_during_a_match_hands_the_seat_to_a_bot():
    room = new_room(bot_delay=0)
    room.handle("bob", {"t": "join", "code": CODE}, 0)
    for s in (2, 3):
        room.handle("alice", {"t": "add_bot", "seat": s}, 0)
    room.handle("alice", {"t": "start"}, 0)
    room.handle("bob", {"t": "leave"}, 1)
    assert room.seats[1].bot == "fan" and room.phase == "playing"
    play_human(room, "alice", 2)
    rec = room.records()["matches"][0]
    assert rec["ids"][1].startswith("bot-")


def test_leaving_with_bots_off_leaves_the_seat_to_托管():
    room = new_room(bots=False, bot_delay=0)
    for pid in ("b", "c", "d"):
        room.handle(pid, {"t": "join", "code": CODE}, 0)
    room.handle("alice", {"t": "start"}, 0)
    for pid in ("b", "c", "d"):
        room.handle(pid, {"t": "leave"}, 1)
    assert [s.bot for s in room.seats[1:]] == ["auto"] * 3
    play_human(room, "alice", 2)
    assert room.phase == "lobby" and room.finished


def test_kick_during_a_match():
    room = new_room(bot_delay=0)
    room.handle("bob", {"t": "join", "code": CODE}, 0)
    room.handle("sam", {"t": "watch", "code": CODE}, 0)
    for s in (2, 3):
        room.handle("alice", {"t": "add_bot", "seat": s}, 0)
    room.handle("alice", {"t": "start"}, 0)
    room.handle("alice", {"t": "kick", "player": "bob"}, 1)
    room.handle("alice", {"t": "kick", "player": "sam"}, 1)
    assert room.seats[1].bot == "fan" and "sam" not in room.members


def test_rematch_after_the_match():
    room = bots_room(bot_delay=0)
    rejected(room, "alice", {"t": "rematch"}, 0, "room/no_match")
    room.handle("alice", {"t": "start"}, 0)
    rejected(room, "alice", {"t": "rematch"}, 0, "room/in_match")
    now = play_human(room, "alice", 1)
    assert room.phase == "lobby" and not room.seats[0].ready
    first = room.records()["matches"][0]
    room.handle("alice", {"t": "rematch"}, now)
    assert room.phase == "playing" and room.match_no == 2
    assert room.match.seed != first["seed"]  # each match its own wall
    play_human(room, "alice", now + 1)
    assert len(room.records()["matches"]) == 2


def test_disposal_idle_lobby():
    room = new_room(idle_after=100)
    assert not room.disposable(99) and room.next_deadline() == 100
    assert room.disposable(100)
    room.handle("bob", {"t": "join", "code": CODE}, 50)  # activity keeps it alive
    assert not room.disposable(100) and room.disposable(150)


def test_disposal_abandoned_match():
    room = bots_room(abandon_after=600, bot_delay=1)
    room.handle("alice", {"t": "start"}, 0)
    room.disconnect("alice", 10)
    assert not room.disposable(609)
    assert room.disposable(610)
    room.connect("alice", 611)
    assert not room.disposable(2000)


def test_rejected_game_actions_change_nothing():
    room = bots_room(seats=(), bot_delay=0)
    room.handle("bob", {"t": "join", "code": CODE, "seat": 1}, 0)
    room.handle("sam", {"t": "watch", "code": CODE}, 0)
    for s in (2, 3):
        room.handle("alice", {"t": "add_bot", "seat": s}, 0)
    room.handle("alice", {"t": "start"}, 0)
    g = room.snapshot("alice")["game"]
    seq = g["match"]["seq"]
    tile = g["hand"][0]
    missing = next(t for t in range(34) if t not in g["hand"])
    rejected(room, "alice", {"t": "act", "action": {"a": "discard", "tile": tile, "seq": seq + 1}}, 1, "action/stale")
    rejected(room, "alice", {"t": "act", "action": {"a": "discard", "tile": missing, "seq": seq}}, 1, "action/illegal")
    rejected(room, "alice", {"t": "act", "action": {"a": "discard", "tile": tile}}, 1, "action/malformed")
    rejected(room, "alice", {"t": "act", "action": {"a": "fly", "seq": seq}}, 1, "action/malformed")
    rejected(room, "alice", {"t": "act", "action": {"a": "discard", "tile": 99, "seq": seq}}, 1, "action/malformed")
    rejected(room, "bob", {"t": "act", "action": {"a": "pass", "seq": seq}}, 1, "action/not_your_turn")
    rejected(room, "sam", {"t": "act", "action": {"a": "pass", "seq": seq}}, 1, "room/not_seated")
    rejected(room, "alice", {"t": "sit", "seat": 2}, 1, "room/in_match")
    # in the window that follows, the discarder has nothing to answer, and pung is not bob's to choose
    room.handle("alice", {"t": "act", "action": {"a": "discard", "tile": tile, "seq": seq}}, 2)
    w = room.snapshot("bob")["game"]
    assert w["phase"] == "claim" and w["to_act"]
    rejected(room, "alice", {"t": "act", "action": {"a": "pass", "seq": w["seq"]}}, 2, "action/not_your_turn")
    if {"a": "pung"} not in w["legal"]:
        rejected(room, "bob", {"t": "act", "action": {"a": "pung", "seq": w["seq"]}}, 2, "action/illegal")


def test_the_lobby_entries_are_applied_by_membership_and_replay_to_the_same_members():
    from rooms import room as room_module
    from rooms.membership import Member, Membership, Seat

    room = new_room()
    log = room.take_log()
    room.handle("bob", {"t": "join", "code": CODE, "seat": 2}, 1)
    room.handle("sam", {"t": "watch", "code": CODE}, 2)
    room.handle("alice", {"t": "add_bot", "seat": 1}, 3)
    room.handle("alice", {"t": "host", "player": "bob"}, 4)
    room.handle("alice", {"t": "leave"}, 5)
    log += room.take_log()
    for kind in ("join", "watch", "sit", "ready", "add_bot", "remove_bot", "host", "leave", "kick"):
        assert room_module._APPLY[kind] is getattr(Membership, f"_apply_{kind}")
    again = room_module.Room.replay(log)
    assert again.members == room.members and again.seats == room.seats and again.host == room.host == "bob"
    assert all(type(m) is Member for m in room.members.values())
    assert [type(s) for s in room.seats] == [type(None), Seat, Seat, type(None)]
