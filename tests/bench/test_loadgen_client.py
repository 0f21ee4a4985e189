"""The load generator's own client (bench/loadgen.py) without a server: its frame parser decodes
what the server sends however the reads split it, and a paced table acts in its slot when its timer
fires a little early (uvloop's timers count whole milliseconds)."""

import asyncio
import json

import msgpack

from bench import loadgen


class Transport:
    def __init__(self):
        self.written = []

    def write(self, data):
        self.written.append(bytes(data))

    def is_closing(self):
        return False

    def close(self):
        pass

    def abort(self):
        pass


class Seat:
    def __init__(self):
        self.messages = []

    def on_message(self, msg):
        self.messages.append(msg)

    def on_close(self, conn, code):
        self.messages.append(("closed", code))


def frame(op: int, payload: bytes, fin: bool = True) -> bytes:
    """A server frame (unmasked), with the length form its size needs."""
    n = len(payload)
    head = bytes((0x80 * fin | op,))
    if n < 126:
        head += bytes((n,))
    elif n < 65536:
        head += bytes((126,)) + n.to_bytes(2, "big")
    else:
        head += bytes((127,)) + n.to_bytes(8, "big")
    return head + payload


MESSAGES = [
    {"t": "ok", "re": 7},
    {"t": "game", "n": 1, "rseq": 3, "seq": 9, "room": "r1", "legal": [{"a": "discard", "tile": "1m"}],
     "events": [{"k": "draw"}] * 20, "clock": {"left": 12.5, "per": [1, 2, 3, 4]}, "hint": "x", "to_act": 2},
    {"t": "game", "n": 2, "rseq": 4, "seq": 10, "room": "r1", "events": [{"k": "discard", "pad": "y" * 300}]},
    {"t": "snapshot", "room": "r1", "info": {"phase": "playing", "pad": "z" * 70000}, "you": {"seat": 1}},
]
# What the client keeps of each: the fields no seat reads are skipped in the larger messages.
EXPECTED = [{k: v for k, v in m.items() if len(msgpack.packb(m)) < loadgen.SMALL or k not in loadgen.UNREAD}
            for m in MESSAGES]


def stream() -> tuple[bytes, list]:
    """Binary frames, a ping between them, a JSON text frame and a binary message in two fragments."""
    packed = [msgpack.packb(m, use_bin_type=True) for m in MESSAGES]
    text = {"t": "error", "code": "x"}
    frag = msgpack.packb({"t": "ok", "re": 8}, use_bin_type=True)
    data = (frame(0x2, packed[0]) + frame(0x9, b"pi") + frame(0x2, packed[1]) + frame(0x1, json.dumps(text).encode())
            + frame(0x2, frag[:3], fin=False) + frame(0x0, frag[3:]) + frame(0x2, packed[2]) + frame(0x2, packed[3]))
    return data, [EXPECTED[0], EXPECTED[1], text, {"t": "ok", "re": 8}, EXPECTED[2], EXPECTED[3]]


async def feed(reads: list[bytes]) -> tuple[list, Transport]:
    seat = Seat()
    c = loadgen.WSClient(seat)
    c.transport = Transport()
    c.opened.set_result(True)
    for r in reads:
        c.data_received(r)
    assert not c.buf  # every frame consumed
    return seat.messages, c.transport


def test_frames_decode_the_same_however_the_reads_split_them():
    data, expected = stream()

    async def main():
        whole, t = await feed([data])
        assert whole == expected
        assert len(t.written) == 1 and t.written[0][0] == 0x8A  # the ping answered with a pong
        for cut in range(1, len(data), 97):
            assert (await feed([data[:cut], data[cut:]]))[0] == expected, cut
        head = 200  # byte by byte over the first frames, then the rest in one read
        assert (await feed([data[i:i + 1] for i in range(head)] + [data[head:]]))[0] == expected

    asyncio.run(main())


def test_handshake_then_frames_in_the_same_read():
    async def main():
        seat = Seat()
        c = loadgen.WSClient(seat)
        c.transport = Transport()
        accept = loadgen.base64.b64encode(loadgen.hashlib.sha1(c.key + loadgen.GUID).digest())
        answer = b"HTTP/1.1 101 Switching Protocols\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n"
        data, expected = stream()
        c.data_received(answer[:20])
        c.data_received(answer[20:] + data[:50])
        c.data_received(data[50:])
        assert c.opened.result() is True
        assert seat.messages == expected

    asyncio.run(main())


class Conn:
    closed = False

    def __init__(self):
        self.sent = []

    def send(self, msg):
        self.sent.append(msg)


def test_paced_table_acts_when_its_timer_fires_a_millisecond_early():
    async def main():
        gen = loadgen.Generator(port=1, tables=1, rate=2.0)
        table = gen.tables[0]
        table.state = loadgen.PLAYING
        seat = table.seats[0]
        seat.conn = Conn()
        seat.prompt = ([{"a": "discard", "tile": "1m"}], 5)
        table.next_at = gen.clock() + 10.0
        table.maybe_act(table.next_at - 0.001)  # uvloop's timer for next_at, by time.monotonic()
        assert table.timer is None
        assert seat.conn.sent == [{"t": "act", "action": {"a": "discard", "tile": "1m", "seq": 5}, "id": 1}]
        seat.prompt = ([{"a": "discard", "tile": "2m"}], 6)
        table.inflight = None
        table.maybe_act(table.next_at - 0.1)  # well before the next slot: waits for its timer
        assert table.timer is not None and len(seat.conn.sent) == 1
        table.timer.cancel()

    asyncio.run(main())
