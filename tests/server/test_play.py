"""Whole hands through the protocol over real sockets."""

import random

from tests.server.conftest import FAST
from tests.server.client import play


async def table(server, encodings=("msgpack",) * 4):
    """Four players at a private room joined by its invite code; the match starts when all are ready."""
    cs = [await server.client(enc, name=f"P{i}") for i, enc in enumerate(encodings)]
    snap = await cs[0].request({"t": "create", "config": FAST})
    assert snap["t"] == "snapshot", snap
    code = snap["info"]["invite"]
    for c in cs[1:]:
        r = await c.request({"t": "join", "code": code.lower()[:4] + "-" + code[4:]})
        assert r["t"] == "ok", r
    last = await cs[3].wait_for(lambda m: m.get("t") == "snapshot")
    assert sorted(last["info"]["names"].values()) == ["P0", "P1", "P2", "P3"]  # display names for the table
    for c in cs:
        r = await c.request({"t": "ready"})
        assert r["t"] == "ok", r
    return cs, snap["room"]


async def test_four_players_play_a_hand(server):
    import asyncio

    cs, room = await table(server, ("msgpack", "msgpack", "msgpack", "json"))
    rng = random.Random(1)
    results = await asyncio.gather(*(play(c, rng, lambda m: m.get("t") == "hand_result") for c in cs))
    assert all(r["record"]["hand"] == 0 for r in results)
    assert len({str(r["record"]) for r in results}) == 1


async def test_nothing_is_sent_before_it_is_written(server):
    """Every room message's rseq is already in the database when it is handed to a connection."""
    app = server.app
    written: dict[int, int] = {}
    write, deliver = app.store.write, app.deliver
    checked = []

    async def recording_write(room_id, start, entries, effects=None):
        await write(room_id, start, entries, effects)
        written[room_id] = max([written.get(room_id, 0)] + [e["rseq"] for e in entries])

    def checking_deliver(pid, msg):
        if "rseq" in msg:
            task = app.rooms[msg["room"]]
            assert msg["rseq"] <= written.get(task.db_id, 0), msg
            checked.append(msg["rseq"])
        deliver(pid, msg)

    app.store.write = recording_write
    app.deliver = checking_deliver
    c = await server.client(name="Careful")
    snap = await c.request({"t": "create", "config": {**FAST, "type": "wufan"}})
    written[app.rooms[snap["room"]].db_id] = snap["rseq"]  # created before the wrappers saw it
    for _ in range(3):
        assert (await c.request({"t": "add_bot", "level": "random"}))["t"] == "ok"
    assert (await c.request({"t": "ready"}))["t"] == "ok"
    await play(c, random.Random(4), lambda m: m.get("t") == "hand_result")
    assert len(checked) > 50
