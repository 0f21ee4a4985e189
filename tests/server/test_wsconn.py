"""Messages are handled as they are read (server.wsconn, server.app.on_message): in order even when one
must wait, whole when a client sends them in fragments, and refused with the close codes of RFC 6455."""

import json

import msgpack

from tests.server.test_limits import closed_code


async def test_frames_sent_together_are_answered_in_order(server):
    """The sign-in waits for the database; the pings sent right behind it wait their turn, and so does a
    room command behind a room being created."""
    c = await server.client()
    await c.ws.send(msgpack.packb({"t": "guest", "name": "Quick", "id": 1}))
    await c.ws.send(msgpack.packb({"t": "ping", "id": 2}))
    await c.ws.send(msgpack.packb({"t": "ping", "id": 3}))
    got = [await c.wait_for(lambda m: "re" in m) for _ in range(3)]
    assert [(m["re"], m["t"]) for m in got] == [(1, "welcome"), (2, "pong"), (3, "pong")]
    await c.ws.send(msgpack.packb({"t": "create", "config": {"hands": 4}, "id": 4}))
    await c.ws.send(msgpack.packb({"t": "add_bot", "seat": 1, "id": 5}))
    got = [await c.wait_for(lambda m: "re" in m) for _ in range(2)]
    assert [(m["re"], m["t"]) for m in got] == [(4, "snapshot"), (5, "ok")]


async def test_a_message_in_fragments_is_put_together(server):
    c = await server.client(name="Frag")
    data = msgpack.packb({"t": "ping", "id": 7})
    await c.ws.send([data[:2], data[2:5], data[5:]])  # one binary message, three frames
    assert (await c.wait_for(lambda m: m.get("re") == 7))["t"] == "pong"
    text = json.dumps({"t": "ping", "id": 8})
    c.strict = False  # a text frame is answered in JSON
    await c.ws.send([text[:4], text[4:]])
    assert (await c.wait_for(lambda m: m.get("re") == 8))["t"] == "pong"


async def test_a_message_in_too_many_fragments_closes_the_connection(server):
    c = await server.client(name="Many")
    await c.ws.send([b"\x81"] + [b"x"] * 100)
    assert await closed_code(c) == 1009


async def test_a_text_frame_that_is_not_utf8_closes_the_connection(server):
    c = await server.client(name="Bytes")
    c.ws.protocol.send_text(b"\xff\xfe{}")
    c.ws.send_data()
    assert await closed_code(c) == 1007
