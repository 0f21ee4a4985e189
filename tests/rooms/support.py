"""Helpers for room tests: stand-in bots (until rooms/bot.py and rooms/bot_random.py exist) that
choose from the seat's view only, and a room factory."""

from __future__ import annotations

import random

from game.shanten import shanten
from rooms.config import RoomConfig
from rooms.room import Room

SECRET = bytes(range(32))
CODE = "ABCD2345"


def tidy(view: dict) -> dict:
    """auto_action from the view: win if offered, continue, pass on claims, else discard the drawn tile."""
    legal = view["legal"]
    if {"a": "win"} in legal:
        return {"a": "win"}
    if {"a": "continue"} in legal:
        return {"a": "continue"}
    if view["phase"] == "claim":
        return {"a": "pass"}
    t = view["drawn"] if view["drawn"] is not None else view["hand"][-1]
    return {"a": "discard", "tile": t}


def random_bot(seed: int = 0):
    """A random legal player (wins whenever it can), seeded."""
    rng = random.Random(seed)

    def choose(view: dict) -> dict:
        legal = view["legal"]
        if {"a": "win"} in legal:
            return {"a": "win"}
        return dict(rng.choice(legal))

    return choose


def greedy(view: dict) -> dict:
    """Win when offered, pass on claims, else discard toward the lowest shanten (a test stand-in that
    completes hands often enough for 无番馆 and 大众馆)."""
    legal = view["legal"]
    if {"a": "win"} in legal:
        return {"a": "win"}
    if {"a": "continue"} in legal:
        return {"a": "continue"}
    if view["phase"] == "claim":
        return {"a": "pass"}
    hand = list(view["hand"])
    melds = len(view["players"][view["seat"]]["melds"])
    best = None
    for a in legal:
        if a["a"] != "discard" or a.get("ready"):
            continue
        rest = list(hand)
        rest.remove(a["tile"])
        key = (shanten(rest, melds), a["tile"] != view["drawn"])
        if best is None or key < best[0]:
            best = (key, a)
    return dict(best[1]) if best else tidy(view)


POLICIES = {"fan": tidy, "random": random_bot(1)}


def config(**kw) -> RoomConfig:
    kw.setdefault("hands", 4)
    return RoomConfig(**kw)


def new_room(host="alice", now=0.0, policies=POLICIES, **kw) -> Room:
    return Room.create("r1", config(**kw), host, CODE, SECRET, now, bot_policies=policies)


def bots_room(now=0.0, policies=POLICIES, seats=(1, 2, 3), level="fan", **kw) -> Room:
    """alice hosts, bots in ``seats``."""
    room = new_room(now=now, policies=policies, **kw)
    for s in seats:
        room.handle("alice", {"t": "add_bot", "seat": s, "level": level}, now)
    return room


def act(room: Room, pid: str, action: dict, now: float):
    """Send ``action`` answering the current seq of pid's view; the messages it makes."""
    view = room.snapshot(pid)["game"]
    return room.render(room.handle(pid, {"t": "act", "action": {**action, "seq": view["match"]["seq"]}}, now))


def play_human(room: Room, pid: str, now: float, policy=tidy, step: float = 0.5, limit: int = 100_000) -> float:
    """Play the match to its end: ``pid`` plays ``policy`` through handle, timers through tick."""
    for _ in range(limit):
        if room.phase != "playing":
            return now
        view = room.snapshot(pid)["game"]
        if view["to_act"]:
            act(room, pid, policy(view), now)
        else:
            d = room.next_deadline()
            assert d is not None, "a match in progress always has a next deadline"
            now = max(now, d)
            room.tick(now)
        now += step
    raise AssertionError("match did not end")


def messages_for(out, pid):
    return [m for to, m in out if to == pid]
