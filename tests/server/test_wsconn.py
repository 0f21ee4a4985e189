"""Messages are handled as they are read (server.wsconn, server.frames.on_message): in order even when one
must wait, whole when a client sends them in fragments, and refused with the close codes of RFC 6455."""

import asyncio
import gc
import json
import random

import msgpack
from server.wsconn import MAX_FRAGMENTS

from server.wsconn import MessageConnection
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
    """websockets' limit on the frames of one message (docs/protocol.md): a message small enough for
    ``max_size`` but cut into more frames than that is refused."""
    c = await server.client(name="Many")
    await c.ws.send([b"\x81"] + [b"x"] * MAX_FRAGMENTS)
    assert await closed_code(c) == 1009


async def test_a_text_frame_that_is_not_utf8_closes_the_connection(server):
    c = await server.client(name="Bytes")
    c.ws.protocol.send_text(b"\xff\xfe{}")
    c.ws.send_data()
    assert await closed_code(c) == 1007


async def test_a_dropped_connection_is_freed_by_a_full_collection(server):
    """Players who drop (no close frame) leave nothing the server still refers to: what is left of
    their connections (websockets' parser and asyncio's transport keep reference cycles) is all
    freed by one full collection, the one ``server.gctune.sweep`` runs when ended connections left enough."""
    clients = [await server.client(name=f"Drop{i}") for i in range(4)]
    code = (await clients[0].request({"t": "create", "config": {"hands": 4}}))["info"]["invite"]
    for c in clients[1:]:
        assert (await c.request({"t": "join", "code": code}))["t"] == "ok"
    conns = lambda: [o for o in gc.get_objects() if type(o) is MessageConnection]  # noqa: E731
    gc.unfreeze()
    gc.collect()  # what earlier tests left
    assert len(conns()) == 4  # the server's side of each
    clients[0].ws.transport.abort()  # reset
    for c in clients[1:]:
        c.ws.transport.close()  # end of stream
    for _ in range(500):  # until the server has seen all four go
        await asyncio.sleep(0.02)
        if not server.app.conns:
            break
    assert not server.app.conns
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    assert conns() == []


# -- frames as they come off the wire (websockets reads them)

MASK = b"\x11\x22\x33\x44"


def wire(payload: bytes, op: int = 0x2, fin: bool = True, rsv: int = 0, masked: bool = True) -> bytes:
    """One client frame (RFC 6455 5.2)."""
    n = len(payload)
    head = bytes([(0x80 if fin else 0) | rsv | op])
    m = 0x80 if masked else 0
    head += bytes([m | n]) if n < 126 else bytes([m | 126]) + n.to_bytes(2, "big")
    if not masked:
        return head + payload
    return head + MASK + bytes(b ^ MASK[i % 4] for i, b in enumerate(payload))


def ping(i: int) -> bytes:
    return wire(msgpack.packb({"t": "ping", "id": i}))


async def pongs(c, ids) -> list:
    return [(await c.wait_for(lambda m: m.get("re") == i))["t"] for i in ids]


async def test_frames_in_one_write_and_frames_split_across_writes(server):
    c = await server.client(name="Wire")
    c.ws.transport.write(ping(1) + ping(2) + wire(json.dumps({"t": "ping", "id": 3}).encode(), op=0x1))
    c.strict = False
    assert await pongs(c, [1, 2, 3]) == ["pong"] * 3
    data = ping(4) + ping(5) + ping(6)
    for piece in (data[:3], data[3:20], data[20:]):  # cut inside headers and payloads
        c.ws.transport.write(piece)
        await asyncio.sleep(0.02)
    assert await pongs(c, [4, 5, 6]) == ["pong"] * 3
    c.ws.transport.write(ping(7))  # after the split frames, whole ones again
    assert await pongs(c, [7]) == ["pong"]


async def test_a_long_frame_and_a_control_frame_among_data_frames(server):
    c = await server.client(name="Mixed")
    long_ping = msgpack.packb({"t": "ping", "id": 8, "pad": "x" * 300})  # a 16-bit length
    assert len(long_ping) > 125
    control = wire(b"are you there", op=0x9)  # a websocket ping: websockets answers it (the client ignores
    c.ws.transport.write(wire(long_ping) + control + ping(9))  # a pong it did not ask for)
    assert await pongs(c, [8, 9]) == ["error", "pong"]  # ping takes no "pad": protocol/bad_field


async def test_irregular_frames_close_the_connection_as_websockets_does(server):
    for frame, code in [(wire(msgpack.packb({"t": "ping"}), masked=False), 1002),  # a client must mask
                        (wire(msgpack.packb({"t": "ping"}), rsv=0x40), 1002),  # no extension agreed
                        (wire(b"x" * 20_000), 1009)]:  # over the hard limit
        c = await server.client(name="Odd")
        c.ws.transport.write(ping(1))
        assert await pongs(c, [1]) == ["pong"]
        c.ws.transport.write(frame)
        assert await closed_code(c) == code


async def test_random_streams_of_frames_cut_anywhere_are_read_in_order(server):
    """A seeded fuzz of what a client may send: whole and fragmented messages (7- and 16-bit lengths),
    websocket pings between and inside them, the bytes cut into random writes. Every message is
    answered, in order."""
    rng = random.Random(11)
    c = await server.client(name="Fuzz")
    next_id = 1
    for _ in range(60):
        stream, ids = b"", []
        for _ in range(rng.randint(1, 6)):
            pad = rng.choice([0, 1, 50, 130, 300, 1000])
            ids.append(("error" if pad else "pong", next_id))  # ping takes no "pad": protocol/bad_field
            msg = {"t": "ping", "id": next_id}
            payload = msgpack.packb({**msg, "pad": "x" * pad} if pad else msg)
            next_id += 1
            if rng.random() < 0.25:  # in two fragments, maybe with a ping between them
                cut = rng.randint(1, len(payload) - 1)
                middle = wire(b"hi", op=0x9) if rng.random() < 0.5 else b""
                stream += wire(payload[:cut], fin=False) + middle + wire(payload[cut:], op=0x0)
            else:
                stream += wire(payload)
            if rng.random() < 0.2:
                stream += wire(b"hi", op=0x9)
        pos = 0
        while pos < len(stream):
            n = rng.randint(1, len(stream) - pos)
            c.ws.transport.write(stream[pos:pos + n])
            pos += n
            if rng.random() < 0.3:
                await asyncio.sleep(0.002)
        got = [await c.wait_for(lambda m: "re" in m) for _ in ids]
        assert [(m["t"], m["re"]) for m in got] == ids
