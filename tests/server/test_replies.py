"""Every direct reply echoes the frame's ``id`` as ``re``, errors included, whenever the frame had one."""

import json

from tests.server.conftest import start, stop
from tests.server.test_order import send_together, stall_room


async def test_every_direct_reply_echoes_re_errors_included(server):
    c = await server.client(name="Echo")
    deep = {"a": {"b": {"c": {"d": {"e": {"f": {"g": 1}}}}}}}
    cases = [
        ({"t": 5, "id": 1}, "protocol/bad_message"),
        ({"t": "ping", "id": 2, "x": 2**60}, "protocol/bad_message"),
        ({"t": "ping", "id": "deep", "x": deep}, "protocol/bad_message"),
        ({"t": "ping", "id": 4, "x": ["y" * 1000] * 5}, "protocol/too_large"),
        ({"t": "nope", "id": 5}, "protocol/unknown_type"),
        ({"t": "ready", "id": 6}, "lobby/not_in_room"),
        ({"t": "quick", "type": "nope", "id": 7}, "protocol/bad_field"),
        ({"t": "join", "code": "ZZZZ-ZZZZ", "id": 8}, "lobby/no_room"),
    ]
    for msg, code in cases:
        await c.send(msg)
        m = await c.wait_for(lambda m: m.get("t") == "error")
        assert (m["code"], m.get("re")) == (code, msg["id"]), (msg, m)
    # JSON too, where a map without "t" is a bad message.
    c.strict = False
    await c.send_raw(json.dumps({"id": 9, "x": 1}))
    m = await c.wait_for(lambda m: m.get("t") == "error")
    assert (m["code"], m.get("re")) == ("protocol/bad_message", 9)
    # Not signed in yet: answered with the id as well.
    d = await server.client()
    r = await d.request({"t": "rooms"})
    assert r["code"] == "protocol/not_signed_in" and r["re"] == 1
    # A frame that does not decode has no id to echo; an id that is not valid is not echoed either.
    await c.send_raw(b"\xc1")
    m = await c.wait_for(lambda m: m.get("t") == "error")
    assert m["code"] == "protocol/bad_frame" and "re" not in m
    await c.send({"t": "ping", "id": 1.5})
    m = await c.wait_for(lambda m: m.get("t") == "error")
    assert m["code"] == "protocol/bad_field" and "re" not in m


async def test_rate_limited_errors_echo_re(tmp_path):
    running = await start(str(tmp_path / "g.db"), rate=0.5, burst=2.0)
    try:
        c = await running.client(name="Flood")  # the sign-in takes one token
        send_together(c, *({"t": "ping", "id": i} for i in range(1, 5)))
        got = [await c.wait_for(lambda m: "re" in m) for _ in range(4)]
        assert [(m["re"], m["t"]) for m in got][0] == (1, "pong")
        assert sorted((m["re"], m.get("code")) for m in got[1:]) == [(i, "protocol/rate_limited") for i in (2, 3, 4)]
    finally:
        await stop(running)


async def test_frames_refused_behind_an_unanswered_one_echo_re(server):
    c = await server.client(name="Queue")
    await stall_room(server, c)
    limit = server.app.limits.inbox
    send_together(c, {"t": "ready", "id": 0}, *({"t": "ping", "id": i} for i in range(1, limit + 4)))
    got = [await c.wait_for(lambda m: "re" in m) for _ in range(3)]
    assert [(m["re"], m.get("code")) for m in got] == [(limit + i, "protocol/rate_limited") for i in (1, 2, 3)]
