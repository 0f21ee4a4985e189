"""A room's claim window tells nobody who could claim (docs/rooms.md "Claim windows never tell").

Two rooms play the same commands in lockstep. At a discard, their hands are made to differ only in hidden
tiles (tests/game/privacy.py): in room A seat y can claim the discard, in room B it cannot. y passes in
both: as a human answering at a random moment, as a bot, or in 托管; the other humans answer at random
moments (some let the window time out). Every message to everybody but y, the spectator's included
(events, seq, rseq, legal actions, clock and deadlines, hints), the rooms' next deadlines and every
member's snapshot must be the same in both rooms until the window has closed.
"""

import random

import pytest

from game.actions import WIN, Discard
from game.state import TURN
from rooms.config import RoomConfig
from rooms.room import Room

from tests.game.privacy import claim_variants
from tests.rooms.support import CODE, SECRET, tidy

WINDOWS = 300
PLAYERS = ["alice", "bob", "carol", "dave"]
CLOSED = {"draw", "claim", "hand_end", "turn"}  # an event that only comes once the window has closed


def make_room(y: int, mode: str, kind: str) -> Room:
    cfg = RoomConfig(type=kind, hands=4, claim_min=1.0, bot_delay=0.5)
    room = Room.create("r1", cfg, "alice", CODE, SECRET, 0.0, bot_policies={"fan": tidy})
    for i, pid in enumerate(PLAYERS[1:], 1):
        if mode == "bot" and i == y:
            room.handle("alice", {"t": "add_bot", "seat": i, "level": "fan"}, 0.0)
        else:
            room.handle(pid, {"t": "join", "code": CODE, "seat": i}, 0.0)
    room.handle("sam", {"t": "watch", "code": CODE}, 0.0)
    for i, pid in enumerate(PLAYERS):
        if not (mode == "bot" and i == y) and i != 0:
            room.handle(pid, {"t": "ready", "ready": True}, 0.0)
    room.handle("alice", {"t": "ready", "ready": True}, 0.0)
    if mode == "auto":
        room.handle(PLAYERS[y], {"t": "auto", "on": True}, 0.0)
    return room


def humans(room: Room) -> list[str]:
    return [s.id for s in room.seats if s.bot is None and s.id in room.members]


def others(out, y_id: str) -> list:
    return [(to, msg) for to, msg in out if to != y_id]


def snapshots(room: Room, y_id: str) -> list:
    return [room.snapshot(pid) for pid in sorted(room.members) if pid != y_id]


def act(room: Room, pid: str, action: dict, now: float):
    return room.render(room.handle(pid, {"t": "act", "action": {**action, "seq": room.match.seq}}, now))


def play_window(a: Room, b: Room, y: int, x_id: str, t: int, now: float, rng: random.Random) -> float:
    """x discards t in both rooms; every asked human answers at a random moment (y passes); compares."""
    y_id = a.seats[y].id
    out_a, out_b = act(a, x_id, {"a": "discard", "tile": t}, now), act(b, x_id, {"a": "discard", "tile": t}, now)
    assert others(out_a, y_id) == others(out_b, y_id)
    asked = [pid for pid in humans(a) if pid != x_id and (pid != y_id or a.auto[y] is None)]
    # an answer time per human; past claim_time the room answers for them (a timeout pass)
    due = {pid: now + rng.choice([0.0, 0.2, 0.7, 1.0, 1.5, 3.0, 9.0]) for pid in asked}
    for _ in range(50):
        assert a.next_deadline() == b.next_deadline()
        waiting = sorted((when, pid) for pid, when in due.items())
        deadline = a.next_deadline()
        if waiting and (deadline is None or waiting[0][0] < deadline):
            now, pid = waiting[0]
            del due[pid]
            g = a.snapshot(pid)["game"]
            if not g["to_act"]:
                continue
            if pid == y_id:
                answer = {"a": "pass"}
            else:
                assert g["legal"] == b.snapshot(pid)["game"]["legal"]
                answer = rng.choice(g["legal"])
            out_a, out_b = act(a, pid, answer, now), act(b, pid, answer, now)
        else:
            now = deadline
            out_a, out_b = a.render(a.tick(now)), b.render(b.tick(now))
        assert others(out_a, y_id) == others(out_b, y_id)
        assert snapshots(a, y_id) == snapshots(b, y_id)
        if any(e["t"] in CLOSED for to, m in out_a if to == x_id and m["t"] == "game" for e in m["events"]):
            return now
    raise AssertionError("the window did not close")


def lockstep(a: Room, b: Room, now: float, rng: random.Random) -> float:
    """One step of both rooms alike: a human to act acts (randomly), else the timers fire."""
    for pid in humans(a):
        g = a.snapshot(pid)["game"]
        if g and g["to_act"]:
            legal = g["legal"]
            choice = {"a": "win"} if {"a": "win"} in legal else rng.choice(legal)
            act(a, pid, choice, now)
            act(b, pid, choice, now)
            return now + 0.5
    now = max(now, a.next_deadline())
    a.tick(now)
    b.tick(now)
    return now


def swap_in(room: Room, hand) -> None:
    m = room.match.copy()
    m.hand = hand
    room.match = m
    room._settled = None


@pytest.mark.parametrize("mode", ["human", "bot", "auto"])
def test_a_room_s_claim_window_looks_the_same_whether_or_not_anybody_could_claim(mode):
    rng = random.Random(mode)
    done = games = 0
    while done < WINDOWS // 3:
        games += 1
        assert games < 200
        y = rng.randrange(4)
        kind = rng.choice(["wufan", "guobiao"])
        a, b = make_room(y, mode, kind), make_room(y, mode, kind)
        now = 0.0
        while a.phase == "playing" and done < WINDOWS // 3:
            m = a.match
            if m.phase == "playing" and m.hand.phase == TURN and m.hand.drawn is not None:
                x = m.player_at(m.hand.turn)
                x_id = a.seats[x].id
                g = a.snapshot(x_id)["game"] if x_id in a.members else None
                discards = [d["tile"] for d in g["legal"] if d["a"] == "discard"] if g else []
                if x != y and discards and rng.random() < 0.7:
                    t = rng.choice(discards)
                    xs, ys = m.seat_of(x), m.seat_of(y)
                    pair = claim_variants(m.hand, xs, ys, t, rng)
                    if pair is not None and _differs(pair, xs, ys, t):
                        swap_in(a, pair[0])
                        swap_in(b, pair[1])
                        now = play_window(a, b, y, x_id, t, now, rng) + 0.5
                        done += 1
                        b.match, b.actions = a.match, list(a.actions)  # alike again, from room A on
                        b._settled = None
                        continue
            now = lockstep(a, b, now, rng)


def _differs(pair, xs: int, ys: int, t: int) -> bool:
    """Seat y may claim (but not win) in the first hand only."""
    from game.state import step

    can, cannot = (step(h, xs, Discard(t))[0].claim for h in pair)
    options = can.options[ys] if can else ()
    return bool(options) and WIN not in options and not (cannot and cannot.options[ys])
