"""Claim windows never tell who can claim (docs/rooms.md): every discard and added kong opens the game's
window for the three other seats, a seat that cannot claim is offered only pass, and an answer is
acknowledged to the answering seat only."""

import pytest

from game import match as gm
from game.state import CLAIM
from rooms.errors import RoomError

from tests.rooms.support import CODE, act, bots_room, random_bot, tidy



def public(v):
    """A view without what is the viewer's own (its seat, hand and moves)."""
    out = {k: x for k, x in v.items() if k not in ("seat", "hand", "drawn", "legal", "to_act", "match")}
    out["match"] = {k: x for k, x in v["match"].items() if k != "player"}
    return out


def claiming(room) -> bool:
    return room.phase == "playing" and room.match.phase == gm.PLAYING and room.match.hand.phase == CLAIM


def play_and_watch(room, pid, now=1.0, policy=tidy, on_window=None, on_out=None, limit=20_000):
    seen = None
    for _ in range(limit):
        if room.phase != "playing":
            return
        if claiming(room) and room.match.seq != seen:
            seen = room.match.seq
            if on_window:
                on_window(room)
        g = room.snapshot(pid)["game"]
        if g["to_act"]:
            out = act(room, pid, policy(g), now)
        else:
            now = room.next_deadline()
            out = room.render(room.tick(now))
        if on_out:
            on_out(out)
        now += 0.3
    raise AssertionError("no end")


def wufan_room(**kw):
    room = bots_room(type="wufan", bot_delay=0, level="random", policies={"random": random_bot(7), "fan": tidy},
                     **kw)
    room.handle("sam", {"t": "watch", "code": CODE}, 0)
    room.handle("alice", {"t": "start"}, 0)
    return room


def test_every_discard_opens_the_same_window_for_everybody():
    room = wufan_room()
    stats = {"asked": 0, "silent": 0}

    def on_window(room):
        hand = room.match.hand
        w = hand.claim
        if any(r is not None for r in w.responses):
            return  # the bots (bot_delay 0) answered already: look at windows still untouched
        stats["asked" if any(w.options) else "silent"] += 1
        discarder = room.match.player_at(w.seat)
        views = {p: room._view(p) for p in range(4)}
        spectator = room._view(None)
        for p in range(4):
            if p == discarder:
                continue
            v = views[p]
            assert v["phase"] == "claim" and v["claim"] == {"kind": w.kind, "tile": w.tile, "seat": w.seat}
            assert v["to_act"] and {"a": "pass"} in v["legal"]
            if not w.options[room.match.seat_of(p)]:
                assert v["legal"] == [{"a": "pass"}]
            # the public part is the same for everybody, and the same as a spectator's
            assert public(v) == public(spectator)
        assert views[discarder]["legal"] == [] and not views[discarder]["to_act"]

    play_and_watch(room, "alice", on_window=on_window)
    assert stats["asked"] > 5 and stats["silent"] > 20  # both kinds happened, and looked alike


def test_a_discard_message_holds_nothing_after_the_discard():
    room = wufan_room()
    shapes = set()

    def on_out(out):
        for to, msg in out:
            if msg["t"] != "game":
                continue
            kinds = [e["t"] for e in msg["events"]]
            assert "response" not in kinds
            if "discard" in kinds or "added_kong" in kinds:
                shapes.add(tuple(kinds))

    play_and_watch(room, "alice", on_out=on_out)
    assert shapes <= {("discard", "claim_window"), ("added_kong", "claim_window")}
    assert ("discard", "claim_window") in shapes


def test_answers_are_not_shown_to_others():
    room = bots_room(seats=(), bot_delay=0)
    room.handle("alice", {"t": "sit", "seat": 1}, 0)
    room.handle("bob", {"t": "join", "code": CODE, "seat": 2}, 0)
    for s in (0, 3):
        room.handle("alice", {"t": "add_bot", "seat": s}, 0)
    room.handle("alice", {"t": "start"}, 0)  # the dealer bot discards; alice and bob are asked
    out = act(room, "alice", {"a": "pass"}, 0.2)
    assert [to for to, _ in out] == ["alice"]
    assert out[0].msg["events"] == [] and out[0].msg["legal"] == [] and not out[0].msg["to_act"]
    assert room.snapshot("bob")["game"]["to_act"]


def test_no_message_shows_another_seat_s_concealed_tiles():
    room = wufan_room()
    leaks = []

    def on_out(out):
        for to, msg in out:
            if msg["t"] != "game":
                continue
            me = room.members[to].seat if to in room.members else None
            for e in msg["events"]:
                hand = e.get("hand")
                mine = None if me is None or hand is None else gm.seat_in(me, hand)
                if e["t"] == "deal" and "tiles" in e and e["seat"] != mine:
                    leaks.append(e)
                if e["t"] == "draw" and "tile" in e and e["seat"] != mine:
                    leaks.append(e)
                if e["t"] == "concealed_kong" and "tile" in e and e["seat"] != mine:
                    leaks.append(e)

    play_and_watch(room, "alice", on_out=on_out)
    assert leaks == []


def test_game_messages_carry_the_seq_to_answer():
    room = bots_room(seats=(), bot_delay=0)
    room.handle("alice", {"t": "sit", "seat": 1}, 0)
    for s in (0, 2, 3):
        room.handle("alice", {"t": "add_bot", "seat": s}, 0)
    out = room.render(room.handle("alice", {"t": "start"}, 0))
    last = [m for to, m in out if to == "alice" and m["t"] == "game"][-1]
    assert last["to_act"] and last["seq"] == room.match.seq and claiming(room)
    out = room.render(room.handle("alice", {"t": "act", "action": {"a": "pass", "seq": last["seq"]}}, 2))
    assert out[0].msg["seq"] == last["seq"]  # the acknowledgement: still the window's
    assert [m for to, m in out if to == "alice"][-1]["seq"] == room.match.seq > last["seq"]


def test_an_answer_to_a_window_that_closed_is_stale():
    """alice sits where she is asked after every discard of the seat before her; she lets windows close on
    their timer, then answers them: late (action/stale), whether it is her turn now or nobody's. A
    discard of hers that is wrong stays action/illegal."""
    room = bots_room(seats=(), bot_delay=1.0)  # a bot whose turn follows the window has not acted yet
    room.handle("alice", {"t": "sit", "seat": 1}, 0)
    for s in (0, 2, 3):
        room.handle("alice", {"t": "add_bot", "seat": s}, 0)
    now = 0.0
    room.handle("alice", {"t": "start"}, now)
    codes = set()
    for _ in range(400):
        if room.phase != "playing" or {"her turn", "not hers"} <= codes:
            break
        g = room.snapshot("alice")["game"]
        if claiming(room) and g["to_act"] and not any(room.match.hand.claim.options):
            # nobody could claim: the window closes on its timer and moves seq on all the same
            seq, opened = room.match.seq, room._clock()["started"]
            late = {"a": "pass", "seq": seq}
            now = opened + room.config.claim_time
            room.tick(now)
            assert not claiming(room) or room.match.seq != seq
            with pytest.raises(RoomError) as e:
                room.handle("alice", {"t": "act", "action": late}, now)
            assert e.value.code == "action/stale", e.value.message
            her_turn = bool(room.snapshot("alice")["game"]["to_act"])
            codes.add("her turn" if her_turn else "not hers")
            # an answer carrying the current seq that is not hers to give is wrong, not late
            with pytest.raises(RoomError) as e:
                room.handle("alice", {"t": "act", "action": {"a": "pung", "seq": room.match.seq}}, now)
            assert e.value.code == ("action/illegal" if her_turn else "action/not_your_turn"), e.value.message
            continue
        if g["to_act"]:
            act(room, "alice", tidy(g), now)
        else:
            now = room.next_deadline()
            room.tick(now)
    assert "her turn" in codes
