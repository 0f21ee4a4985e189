"""No frame to a seat or a spectator carries another seat's concealed tile or a wall tile.

Every frame each recipient got over whole matches is decoded and checked structurally: the fields
that can hold a concealed tile (a deal's tiles, a draw's tile, a concealed kong's tile, a view's hand
and drawn tile, a face-down kong) must belong to the recipient's own seat; no field may hold the wall
or a long run of tiles; secrets (the room secret, the seed) never appear before the match is over.
"""

import asyncio
import random

import pytest

from tests.server.client import play
from tests.server.conftest import FAST

OWN_ONLY = {"deal": "tiles", "draw": "tile", "concealed_kong": "tile"}  # event type -> its private field
NEVER = {"secret", "walls", "rng", "head", "tail", "options", "responses", "answers", "held"}


def walk(x, path=()):
    yield path, x
    if isinstance(x, dict):
        for k, v in x.items():
            yield from walk(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from walk(v, path + (i,))


def check_frame(m: dict, seat, over: bool) -> None:
    """``seat``: the recipient's seat (round 0: seat = player), None for a spectator; ``over``: the
    match has ended (its seed may be revealed)."""
    t = m.get("t")
    for path, v in walk(m):
        key = path[-1] if path else None
        assert key not in NEVER, (path, m)
        if key == "concealed":
            assert type(v) is bool, (path, m)  # a meld's flag, never the standing tiles
        if key == "wall":
            assert type(v) is int, (path, m)  # a count, never tiles
        if key == "seed":
            assert over, (path, m)  # revealed with the match result, never before
        if key == "hint":
            assert seat is not None and path in (("hint",), ("game", "hint")), (path, m)  # a seat's own
        if key == "hands" and isinstance(v, list) and all(type(x) is list for x in v):
            # every seat's tiles: only once a hand has ended in a draw
            assert path[-2] == "result" or (t == "game" and m["events"][path[1]]["t"] == "hand_end"), (path, m)
            assert m["events"][path[1]]["win"] is None if t == "game" else True, (path, m)
        if isinstance(v, list) and len(v) > 14 and all(type(x) is int for x in v):
            assert key in ("ids",), (path, m)  # no run of tiles longer than a hand
    if t == "game":
        for e in m["events"]:
            field = OWN_ONLY.get(e["t"])
            if field and field in e:
                assert seat is not None and e["seat"] == seat, (e, seat)
            if e["t"] == "response":
                assert e["seat"] == seat, (e, seat)
    if t == "snapshot" and m.get("game"):
        g = m["game"]
        assert g["seat"] == seat
        if seat is None:
            assert "hand" not in g and g.get("drawn") is None and "legal" not in g
        for p in g["players"]:
            assert set(p) <= {"seat", "wind", "melds", "flowers", "discards", "tiles", "blocked", "declared"}
            assert type(p["tiles"]) is int
            if p["seat"] != seat and g["phase"] != "over":
                for meld in p["melds"]:
                    if meld.get("concealed") and meld["kind"] == "kong":
                        assert "tile" not in meld, meld


@pytest.mark.parametrize("room_type", ["wufan", "guobiao"])
async def test_no_leaks_over_whole_matches(server, room_type):
    a = await server.client("msgpack", name="A")
    b = await server.client("json", name="B")
    spec = await server.client("msgpack", name="Spec")
    snap = await a.request({"t": "create", "config": {**FAST, "type": room_type}})
    code = snap["info"]["invite"]
    assert (await b.request({"t": "join", "code": code}))["t"] == "ok"
    assert (await spec.request({"t": "watch", "code": code}))["t"] == "ok"
    assert (await a.request({"t": "add_bot", "level": "random"}))["t"] == "ok"
    assert (await a.request({"t": "add_bot"}))["t"] == "ok"
    for c in (a, b):
        assert (await c.request({"t": "ready"}))["t"] == "ok"
    ends = lambda m: m.get("t") == "match_result"  # noqa: E731
    await asyncio.gather(play(a, random.Random(1), ends), play(b, random.Random(2), ends),
                         spec.wait_for(ends, timeout=60))
    await asyncio.gather(*(c.wait_for(lambda m: m.get("t") == "reveal") for c in (a, b, spec)))
    assert (await spec.request({"t": "snapshot"}))["t"] == "snapshot"
    for c, seat in ((a, 0), (b, 1), (spec, None)):
        over = False
        games = 0
        for m in c.frames:
            if m.get("t") == "match_result":
                over = True
            check_frame(m, seat, over)
            games += m.get("t") == "game"
        assert games > 50  # whole hands went by
    hands = [m for m in spec.frames if m.get("t") == "hand_result"]
    assert len(hands) == 4


def test_the_checker_catches_leaks():
    with pytest.raises(AssertionError):
        check_frame({"t": "game", "events": [{"t": "draw", "seat": 2, "tile": 5}]}, 1, False)
    with pytest.raises(AssertionError):
        check_frame({"t": "game", "events": [{"t": "deal", "seat": 0, "tiles": [1] * 13}]}, None, False)
    with pytest.raises(AssertionError):
        check_frame({"t": "snapshot", "game": {"seat": None, "hand": [1], "players": []}}, None, False)
    with pytest.raises(AssertionError):
        check_frame({"t": "room", "x": {"wall": list(range(20))}}, 0, False)
    with pytest.raises(AssertionError):
        check_frame({"t": "room", "x": list(range(30))}, 0, False)
    with pytest.raises(AssertionError):
        check_frame({"t": "reveal", "seed": 5}, 0, False)
    with pytest.raises(AssertionError):
        check_frame({"t": "game", "events": [], "hint": {"waits": []}}, None, False)
    with pytest.raises(AssertionError):
        check_frame({"t": "game", "events": [{"t": "discard", "hands": [[1]]}]}, 0, False)
    check_frame({"t": "game", "events": [{"t": "draw", "seat": 1, "tile": 5}]}, 1, False)
    check_frame({"t": "game", "events": [], "hint": {"waits": []}}, 1, False)
