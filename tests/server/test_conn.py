"""server.conn's idle timer: only the time spent waiting for a frame counts, one wait at a time."""

import asyncio

import msgpack
from server.conn import IdleTimer


async def reader(timeout: float, waits: list[float], handle: float = 0.0):
    """Wait ``waits[i]`` for frame i (a sleep standing in for the wait for a frame), handle each for
    ``handle`` s; returns how it ended: "done", or "idle" and how long the wait that timed out was."""
    loop = asyncio.get_running_loop()
    fired = loop.create_future()
    idle = IdleTimer(loop, lambda: timeout, lambda: fired.set_result(loop.time() - idle.since))
    try:
        for w in waits:
            idle.wait()
            done, _ = await asyncio.wait({fired}, timeout=w)
            if done:
                return "idle", fired.result()
            idle.waiting = False
            await asyncio.sleep(handle)
        return "done", None
    finally:
        idle.stop()


async def test_a_wait_longer_than_the_timeout_is_cut_short():
    how, waited = await reader(0.5, [0.02, 5.0])
    assert how == "idle" and 0.5 <= waited < 2.0


async def test_frames_that_keep_coming_keep_it_open():
    # Twelve waits of 50 ms: 600 ms in all, each well under the 500 ms timeout (so far under it that a
    # loaded machine's late wake-ups do not reach it).
    assert (await reader(0.5, [0.05] * 12))[0] == "done"


async def test_handling_a_frame_is_not_waiting():
    # Each frame takes 600 ms to handle, longer than the timeout; the waits themselves are short.
    assert (await reader(0.5, [0.01] * 3, handle=0.6))[0] == "done"


async def test_a_stopped_timer_never_fires():
    loop = asyncio.get_running_loop()
    fired = []
    idle = IdleTimer(loop, lambda: 0.05, lambda: fired.append(True))
    idle.wait()
    idle.stop()
    await asyncio.sleep(0.2)
    assert fired == [] and idle.handle is None


class FakeTransport:
    def __init__(self, ws):
        self.ws = ws
        self.buffered = 0  # bytes the "kernel" has not taken
        self.aborted = False

    def get_write_buffer_size(self):
        return self.buffered

    def get_extra_info(self, name, default=None):
        return default

    def write(self, data):
        self.ws.writes.append(data)

    def can_write_eof(self):
        return True

    def abort(self):
        self.aborted = True


def unframe(data: bytes) -> list[bytes]:
    """The payloads of the unmasked RFC 6455 frames in ``data`` (each must be a final binary frame)."""
    out, i = [], 0
    while i < len(data):
        first, n = data[i], data[i + 1]
        assert first == 0x82 and n < 128, "a final, unmasked binary frame"
        i += 2
        if n == 126:
            n, i = int.from_bytes(data[i:i + 2], "big"), i + 2
        elif n == 127:
            n, i = int.from_bytes(data[i:i + 8], "big"), i + 8
        out.append(data[i:i + n])
        i += n
    assert i == len(data)
    return out


def test_frames_carry_their_length_in_one_two_or_eight_bytes():
    from server.conn import frame

    for n, head in ((0, b"\x82\x00"), (125, b"\x82\x7d"), (126, b"\x82\x7e\x00\x7e"),
                    (65535, b"\x82\x7e\xff\xff"), (65536, b"\x82\x7f" + (65536).to_bytes(8, "big"))):
        data = bytes(range(256)) * (n // 256) + bytes(n % 256)
        f = frame(data)
        assert f[:len(head)] == head and f[len(head):] == data
        assert unframe(f) == [data]
    assert frame("和") == b"\x81\x03" + "和".encode()  # text: UTF-8, opcode 1


class FakeWS:
    """Frames written straight (one transport write per message, or one for what was corked) or by the
    queue's writer (send). ``wire``: (how, message) in the order they left; ``writes``: the transport
    writes."""

    remote_address = ("127.0.0.1", 0)

    def __init__(self):
        from websockets.protocol import State

        self.transport = FakeTransport(self)
        self.state = State.OPEN
        self.writes: list = []
        self.queued: list = []
        self.drained = asyncio.Event()

    @property
    def wire(self):
        out = []
        for w in self.writes:
            if isinstance(w, tuple):
                out.append(w)
                continue
            out += [("direct", msgpack.unpackb(p)) for p in unframe(w)]
        return out

    async def send(self, data):
        await self.drained.wait()  # as websockets' send waits for the buffer to drain
        self.writes.append(("queued", msgpack.unpackb(data)))


async def test_messages_go_straight_out_until_the_socket_is_full_and_keep_their_order():
    from server.app import Limits
    from server.conn import Conn

    ws = FakeWS()
    conn = Conn(ws, Limits(out_queue=3, write_limit=100), 0.0)
    conn.push({"t": "a"})
    ws.transport.buffered = 101  # the client stopped reading
    conn.push({"t": "b"})
    ws.transport.buffered = 0  # room again, but "b" waits: "c" goes behind it
    conn.push({"t": "c"})
    assert ws.wire == [("direct", {"t": "a", "n": 1})] and len(conn.queue) == 2
    ws.drained.set()
    await conn.writer
    assert ws.wire[1:] == [("queued", {"t": "b", "n": 2}), ("queued", {"t": "c", "n": 3})]
    assert conn.writer is None and not conn.queue
    conn.push({"t": "d"})  # the queue is empty: straight out again
    assert ws.wire[-1] == ("direct", {"t": "d", "n": 4})


async def test_corked_messages_leave_in_one_write_in_order():
    from server.app import Limits
    from server.conn import Conn

    ws = FakeWS()
    conn = Conn(ws, Limits(out_queue=3, write_limit=100), 0.0)
    conn.cork()
    conn.push({"t": "game"})
    conn.send({"t": "ok"})
    assert ws.writes == []
    conn.uncork()
    assert len(ws.writes) == 1 and ws.wire == [("direct", {"t": "game", "n": 1}), ("direct", {"t": "ok"})]
    conn.send({"t": "pong"})  # uncorked: one write per message again
    assert len(ws.writes) == 2
    # The socket filled up meanwhile: what was corked waits in the queue, in order, behind nothing.
    conn.cork()
    conn.push({"t": "x"})
    conn.push({"t": "y"})
    ws.transport.buffered = 1000
    conn.uncork()
    assert len(ws.writes) == 2 and len(conn.queue) == 2
    ws.drained.set()
    await conn.writer
    assert ws.wire[-2:] == [("queued", {"t": "x", "n": 2}), ("queued", {"t": "y", "n": 3})]


async def test_a_client_whose_queue_fills_up_is_cut_off():
    from server.app import Limits
    from server.conn import Conn

    ws = FakeWS()
    conn = Conn(ws, Limits(out_queue=3, write_limit=100), 0.0)
    ws.transport.buffered = 1000
    for i in range(3):
        conn.send({"t": "x", "i": i})
    assert not ws.transport.aborted and len(conn.queue) == 3
    conn.send({"t": "x", "i": 3})
    assert ws.transport.aborted and conn.closed and conn.close_reason == "too slow"


async def test_nothing_is_written_once_the_websocket_is_closing():
    """Written straight only while websockets says OPEN (the state is compared with the member read at
    import): a closing connection gets neither a message nor what was corked; the reader cleans up."""
    from websockets.protocol import State

    from server.app import Limits
    from server.conn import Conn

    ws = FakeWS()
    conn = Conn(ws, Limits(out_queue=3, write_limit=100), 0.0)
    conn.push({"t": "a"})
    ws.state = State.CLOSING
    conn.push({"t": "b"})
    conn.cork()
    conn.send({"t": "ok"})
    conn.uncork()
    assert ws.wire == [("direct", {"t": "a", "n": 1})] and not conn.queue
    ws.state = State.OPEN
    conn.push({"t": "c"})
    assert ws.wire[-1] == ("direct", {"t": "c", "n": 3})
