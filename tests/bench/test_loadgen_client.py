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

    def on_game(self, n, rseq, legal, seq):
        self.messages.append(("game", n, rseq, legal, seq))

    def on_ok(self, re):
        self.messages.append({"t": "ok", "re": re})

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


# -- the messages read in place (loadgen.game_fields, Seat.on_game / on_ok) --------------------------

LEGAL_MANY = [{"a": "discard", "tile": t} for t in (0, 1, 2, 4, 5, 6, 10, 16, 27, 28, 29, 30, 31, 33)]
CLOCK = {"decision": "turn", "deadline": 1796212051.2297459, "started": 1796211976.2297459,
         "free_until": 1796211991.2297459, "banks": [60.0] * 4, "auto": [None] * 4, "player": 0}
# Events whose values spell the keys looked for: they must not be taken for them.
TRICKY = [{"t": "draw", "seat": 0, "hand": 0, "note": "legal"}, {"t": "x", "to_act": True, "rseq": 7, "n": 3},
          {"t": "y", "legal": [], "seq": 5}]


def game(n, rseq, legal=(), seq=16, hint=None, events=TRICKY) -> dict:
    """A ``game`` message with its fields in the server's order (rooms/messages.py _game_msg, then the
    room's ``room`` and ``rseq``, a wait hint when it changed, the connection's ``n`` last)."""
    d = {"t": "game", "events": list(events), "legal": list(legal), "to_act": bool(legal), "seq": seq,
         "clock": CLOCK, "room": "r13dce608", "rseq": rseq}
    if hint is not None:
        d["hint"] = hint
    d["n"] = n
    return d


def truth(d: dict):
    """What game_fields must give for ``d``: what the seat reads of it (a prompt only with legal actions,
    left as msgpack bytes)."""
    legal = msgpack.packb(d["legal"]) if d["legal"] else None
    return d["n"], d["rseq"], legal, d["seq"] if d["legal"] else None


def fields(d: dict):
    data = frame(0x2, msgpack.packb(d, use_bin_type=True))
    s = 4 if data[1] == 126 else 2
    return loadgen.game_fields(data, s, len(data))


def test_game_messages_in_the_servers_layout_are_read_in_place():
    ints = [0, 5, 127, 128, 255, 256, 70000, 2**33]
    cases = [game(n, r) for n in ints for r in ints]
    cases += [game(300, 40, legal) for legal in ([{"a": "pass"}], LEGAL_MANY[:2], LEGAL_MANY)]
    cases += [game(300, 40, LEGAL_MANY, seq=s) for s in (0, 200, 70000, None)]
    cases += [game(9, 41, LEGAL_MANY, hint={"discards": {"3": [1, 2]}}), game(9, 41, hint={"waits": []}),
              game(1, 2, events=()), game(1, 2, LEGAL_MANY, events=[{"pad": "z" * 400}])]
    for d in cases:
        assert fields(d) == truth(d), d


def test_other_layouts_are_left_to_the_decoder_never_misread():
    """A message not laid out as expected gives None (decode() reads it) or the right fields: never others."""
    import itertools
    import random

    rng = random.Random(5)
    base = [game(70000, 300, LEGAL_MANY, hint={"discards": {}}), game(4, 5), game(200, 7, [{"a": "pass"}])]
    for d in base:
        keys = list(d)
        orders = [keys[:1] + list(p) for p in itertools.islice(itertools.permutations(keys[1:]), 0, None, 97)]
        orders += [rng.sample(keys, len(keys)) for _ in range(50)]
        for order in orders:
            got = fields({k: d[k] for k in order})
            assert got is None or got == truth(d), order
    for other in ({"t": "snapshot", "room": "r", "rseq": 3, "n": 4}, {"t": "hand_result", "rseq": 3, "n": 4},
                  {"t": "game", "n": 1}, {"t": "ok", "re": 7}):
        assert fields(other) is None


def test_the_client_reads_server_layout_messages_and_answers_as_the_decoder_would():
    async def main():
        seat = Seat()
        c = loadgen.WSClient(seat)
        c.transport = Transport()
        c.opened.set_result(True)
        msgs = [game(1, 3), {"t": "ok", "re": 9}, game(2, 4, LEGAL_MANY, seq=17), {"t": "ok", "re": 70000}]
        c.data_received(b"".join(frame(0x2, msgpack.packb(m, use_bin_type=True)) for m in msgs))
        assert seat.messages == [("game", 1, 3, None, None), {"t": "ok", "re": 9},
                                 ("game", 2, 4, msgpack.packb(LEGAL_MANY), 17), {"t": "ok", "re": 70000}]

    asyncio.run(main())


def playing_table(gen):
    table = gen.tables[0]
    table.state, table.room = loadgen.PLAYING, "r1"
    for s in table.seats:
        s.conn = Conn()
    return table


def legal_list(legal):
    return msgpack.unpackb(legal) if isinstance(legal, bytes) else legal


def run_messages(via_fast: bool, msgs: list) -> tuple:
    """A table's seats fed ``msgs`` ((seat, message) pairs) through on_game / on_ok or through on_message."""
    async def main():
        gen = loadgen.Generator(port=1, tables=1, rate=None, record=True)
        table = playing_table(gen)
        gen.begin()
        for i, m in msgs:
            seat = table.seats[i]
            if not via_fast:
                seat.on_message(m)
            elif m["t"] == "ok":
                seat.on_ok(m["re"])
            else:
                seat.on_game(*truth(m))
        sent = [(i, s.conn.sent) for i, s in enumerate(table.seats)]
        state = [(s.n, s.last_rseq, s.prompt and (legal_list(s.prompt[0]), s.prompt[1])) for s in table.seats]
        return (sent, state, sorted(table.arrivals), gen.actions, gen.record, dict(gen.errors),
                dict(gen.counts), gen.msgs_in, table.inflight is None)

    return asyncio.run(main())


def test_a_seat_reads_the_fast_path_as_it_reads_a_decoded_message():
    """The same messages, read in place or decoded: the same actions sent, acknowledged, recorded and
    checked (a gap in ``n`` is an error either way)."""
    pass_ = [{"a": "pass"}, {"a": "chow", "tiles": [1, 2, 3]}]
    msgs = [(0, game(1, 1, LEGAL_MANY, seq=16)), (1, game(1, 1)), (2, game(1, 1)), (3, game(1, 1)),
            (0, {"t": "ok", "re": 1}),  # the discard (id 1) answered: seats 1-3 are asked
            (0, game(2, 2)), (1, game(2, 2, pass_, seq=17)), (2, game(2, 2, pass_, seq=17)),
            (3, game(2, 2, pass_, seq=17)), (1, {"t": "ok", "re": 2}), (2, game(4, 3)),  # seat 2: n 3 missing
            (3, {"t": "ok", "re": 99})]  # not the action in flight
    fast, slow = run_messages(True, msgs), run_messages(False, msgs)
    assert fast == slow
    sent, state, arrivals, actions, record, errors, counts, msgs_in, idle = fast
    assert actions == len(record) >= 1 and sum(len(s) for _, s in sent) == actions + (not idle)
    assert errors == {"message number gap": 1}


def test_a_sent_frame_is_masked_as_rfc_6455_says():
    for n in (0, 1, 5, 125, 126, 300, 70000):
        payload = bytes(range(256)) * (n // 256) + bytes(range(n % 256))
        mask = b"\x01\x80\xfe\x37"
        expect = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        assert loadgen._mask_ints(payload, mask) == expect
        if n:
            assert bytes(loadgen._apply_mask(payload, mask)) == expect

    async def main():
        c = loadgen.WSClient(Seat())
        c.transport = Transport()
        c.send({"t": "act", "id": 3})
        (out,) = c.transport.written
        n = out[1] & 0x7F
        assert out[0] == 0x82 and out[1] & 0x80 and n == len(out) - 6
        assert msgpack.unpackb(loadgen._mask_ints(out[6:], out[2:6])) == {"t": "act", "id": 3}

    asyncio.run(main())


def test_settle_drops_old_arrivals_keeps_recent_ones_and_times_from_them():
    async def main():
        gen = loadgen.Generator(port=1, tables=1, rate=None)
        t = gen.tables[0]
        t.arrivals = {r: float(r) for r in range(100)}  # rseq r last arrived at r seconds
        t.latencies.extend([(97.0, 96.5, 98), (99.5, 99.0, 99)])
        t.settle(100.0, 1.0)  # keeps what arrived after 100 - 2 - 5 = 93 s
        assert gen.lat == [98.0 - 96.5]  # the second was acknowledged 0.5 s ago: not yet
        assert t.arrivals == {r: float(r) for r in range(94, 100)}
        # An rseq seen again (a new room numbers from 1 again) keeps its place and holds up the ones
        # after it until it is old too: a later sweep drops them.
        t.arrivals = {r: float(r) for r in range(100)}
        t.arrivals[5] = 95.0
        t.settle(100.0, 1.0)
        assert min(t.arrivals) == 5 and 94 in t.arrivals
        t.settle(103.0, 1.0)
        assert t.arrivals == {r: float(r) for r in range(97, 100)}

    asyncio.run(main())


def test_choose_plays_from_undecoded_legal_actions_as_from_the_list():
    """The same seed gives the same action from the msgpack bytes as from the decoded list: a win first,
    else one at random (only the chosen one decoded), and below() draws as randrange does."""
    import random

    for seed in range(50):
        a, b = random.Random(seed), random.Random(seed)
        assert [loadgen.below(a, n) for n in range(1, 40)] == [b.randrange(n) for n in range(1, 40)]
    lists = [[{"a": "pass"}], [{"a": "pass"}, {"a": "chow", "tiles": [1, 2, 3]}], LEGAL_MANY, LEGAL_MANY[:3],
             LEGAL_MANY + [{"a": "kong", "tile": 5}, {"a": "win"}], [{"a": "pass"}, {"a": "win"}],
             [{"a": "discard", "tile": t} for t in range(20)], [{"a": "pass", "note": "win"}] * 5]
    for legal in lists:
        raw = msgpack.packb(legal)
        for seed in range(30):
            a, b = random.Random(seed), random.Random(seed)
            assert loadgen.choose(raw, a) == loadgen.choose(legal, b), (legal, seed)
            assert a.random() == b.random()  # as many draws
    assert loadgen.choose(msgpack.packb(LEGAL_MANY), random.Random(1)) in LEGAL_MANY
    assert not loadgen._picker[0].tell() or loadgen._picker[0].read_bytes(1) == b""  # nothing left behind
