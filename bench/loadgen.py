"""The load generator shared by bench/load.py, bench/soak.py and tests/bench: bot-driven tables of four
websocket clients playing real hands through the protocol (docs/protocol.md), plus the helpers that
start, watch and kill the server process.

    python bench/loadgen.py --smoke [--baseline]

run alone, it checks itself: two closed-loop tables for two seconds against a fresh server (or the
fan-out baseline), printing actions/s, latency and errors.

The clients are plain ``asyncio.Protocol`` objects speaking RFC 6455 themselves (masked binary frames
out, msgpack; pings answered) rather than ``websockets`` connections: one generator process has to
drive 10,000 of them on one core, so a client costs one object and a callback per frame, no task.

Every table has at most one action in flight: a table sends its next action after the previous one
was answered (``ok`` or an error) and, paced, not before its next slot (``rate`` actions a second per
table, phases spread at random); closed loop (``rate=None``) sends as soon as a prompt is there.

Latency of an action: from the moment it is written to the socket to the arrival of the last message
that carries the room sequence number (``rseq``) it produced, over the four seats. The actor learns that
``rseq`` from its own update, which the server sends before the ``ok`` on the same connection.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import random
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections import Counter, deque
from pathlib import Path

import msgpack

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"  # loopback only
GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
# Rooms the tables create: claim windows close on the last answer (claim_min 0), so every state change
# is caused by an action and its latency can be measured; everything else is the default.
ROOM_CONFIG = {"hands": 4, "claim_min": 0, "private": True}

_packb = msgpack.Packer(use_bin_type=True).pack
_unpackb = msgpack.unpackb
# Top-level fields no seat of the generator reads (the events it is told, the clocks, the wait hints):
# skipped undecoded, which takes about a quarter off decoding a ``game`` message (instruction counts)
# and changes nothing measured (``n``, ``rseq``, ``re``, ``legal``, ``seq`` and the rest are decoded).
UNREAD = frozenset(("events", "clock", "hint", "to_act"))
SMALL = 96  # bytes: a message this short (``ok``, most errors) is cheaper decoded whole
# Seconds a paced table may act before its slot: uvloop's timers count whole milliseconds and fire up
# to one early by time.monotonic(); without this slack a table's timer fired a dozen times per action.
EARLY = 0.002


def _mask_ints(payload: bytes, mask: bytes) -> bytes:
    """RFC 6455 5.3: the payload XOR the mask repeated (websockets' C version when it is built)."""
    n = len(payload)
    m = int.from_bytes(mask * ((n + 3) // 4), "little") & ((1 << (8 * n)) - 1)
    return (int.from_bytes(payload, "little") ^ m).to_bytes(n, "little")


try:
    from websockets.speedups import apply_mask as _apply_mask
except ImportError:  # pragma: no cover - websockets without its C extension
    _apply_mask = _mask_ints

_reader = [msgpack.Unpacker(strict_map_key=False)]  # one for every message (a new one each costs more)


def decode(payload: bytes | memoryview, unread: frozenset = UNREAD) -> dict:
    """A msgpack message from the server without its ``unread`` top-level fields."""
    if len(payload) < SMALL or payload[0] & 0xF0 != 0x80:  # not a fixmap: decoded whole
        return _unpackb(payload, strict_map_key=False)
    up = _reader[0]
    up.feed(payload)
    try:
        unpack, skip = up.unpack, up.skip
        msg = {}
        for _ in range(up.read_map_header()):
            key = unpack()
            if key in unread:
                skip()
            else:
                msg[key] = unpack()
    except Exception:
        _reader[0] = msgpack.Unpacker(strict_map_key=False)  # nothing of a bad message is left for the next
        raise
    return msg


# The two messages that make up nearly all of a closed-loop run (3.5 a action), as the server lays
# them out (rooms/messages.py _game_msg, the connection's ``n`` last: server/conn.py): read in place.
_GAME = b"\xa1t\xa4game\xa6events"
_LEGAL, _TO_ACT, _SEQ, _CLOCK, _RSEQ = b"\xa5legal", b"\xa6to_act", b"\xa3seq", b"\xa5clock", b"\xa4rseq"
_OK = b"\x82\xa1t\xa2ok\xa2re"  # {"t": "ok", "re": id}
_BAD = (ValueError, TypeError, KeyError, IndexError, msgpack.UnpackException)


def game_fields(data: bytes, s: int, end: int):
    """(n, rseq, legal, seq) of a ``game`` message at ``data[s:end]`` laid out as the server writes it
    (t, events, legal, to_act, seq, clock, room, rseq[, hint], n), without decoding its events, clock
    or hint; None when it is laid out otherwise (or is another message): decode() reads it then.
    ``legal`` is None when empty (``seq`` then too), else its msgpack bytes (choose() decodes only the
    action it plays). Every slice decoded must be consumed exactly, so a field found at the wrong
    place raises rather than reads a wrong value."""
    keys = data[s] ^ 0x80
    if keys > 15 or not data.startswith(_GAME, s + 1):
        return None
    try:
        k = data.rfind(_TO_ACT, s, end)  # from the end: the events before may name anything
        r = data.rfind(_RSEQ, k, end)
        if k < 0 or r < 0:
            return None
        tail = _unpackb(bytes((0x80 | (keys - 7),)) + data[r:end])  # rseq[, hint], n
        if data[k - 1] == 0x90 and data[k - 7:k - 1] == _LEGAL:  # "legal": []
            return tail["n"], tail["rseq"], None, None
        li = data.rfind(_LEGAL, s, k)
        if li < 0 or not data.startswith(_SEQ, k + 8):
            return None
        seq = _unpackb(data[k + 12:data.index(_CLOCK, k + 12, end)])
        return tail["n"], tail["rseq"], data[li + 6:k], seq  # legal undecoded: choose() reads it
    except _BAD:
        return None


def below(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)`` (the same draws, so a seed plays the same game) without its two Python calls."""
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


_picker = [msgpack.Unpacker()]
_short: dict[bytes, list] = {}  # legal lists of one or two actions (claim windows'), decoded: they repeat


def choose(legal: list | bytes, rng: random.Random) -> dict:
    """The action a seat plays: the first ``win``, else one of ``legal`` at random. ``legal`` as msgpack
    bytes (game_fields): only the chosen action is decoded; decoding a discard's 14 took twice as many
    instructions as skipping to one."""
    if type(legal) is bytes:
        n = legal[0] ^ 0x90  # a fixarray's length
        if b"\xa3win" in legal or not 2 < n < 16:
            got = _short.get(legal) if n <= 2 else None
            if got is None:
                got = _unpackb(legal)
                if n <= 2:
                    if len(_short) > 4096:
                        _short.clear()
                    _short[legal] = got
            legal = got
        else:
            i = below(rng, n)
            up = _picker[0]
            up.feed(legal)
            try:
                start = up.tell()
                up.read_array_header()
                for _ in range(i):
                    up.skip()
                action = up.unpack()
                up.read_bytes(len(legal) - (up.tell() - start))  # nothing left for the next
            except Exception:
                _picker[0] = msgpack.Unpacker()  # nothing of a bad list is left for the next
                raise
            return action
    for a in legal:
        if a["a"] == "win":
            return a
    return legal[below(rng, len(legal))]


def raise_nofile() -> int:
    """Soft open-files limit up to the hard one (10,000 sockets need it); returns the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def pin(cpu: int | None) -> bool:
    """Pin this process to one core when the machine has more than one."""
    if cpu is None or not hasattr(os, "sched_setaffinity") or (os.cpu_count() or 1) < 2:
        return False
    try:
        os.sched_setaffinity(0, {cpu})
        return True
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


# -- the server process --------------------------------------------------------------------------

class ServerProc:
    """The server (ours or the baseline) as a child process, pinned to ``cpu``; CPU and RSS from /proc."""

    def __init__(self, argv: list[str], port: int, log_path: Path, cpu: int | None = 0):
        self.argv, self.port, self.log_path, self.cpu = argv, port, log_path, cpu
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self._cpu_mark = None

    def start(self, timeout: float = 60.0) -> None:
        cpu = self.cpu

        def child():
            raise_nofile()
            pin(cpu)

        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(self.argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                         preexec_fn=child, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.starts += 1
        end = time.monotonic() + timeout
        while time.monotonic() < end:  # bounded: ready when the port accepts
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}; see {self.log_path}")
            try:
                with socket.create_connection((HOST, self.port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError(f"server did not listen on {self.port} within {timeout} s")
        self._cpu_mark = None

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(30)

    def stop(self, timeout: float = 60.0) -> int | None:
        """SIGTERM: a clean shutdown; SIGKILL if it takes longer than ``timeout``."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def cpu_seconds(self) -> float:
        """utime + stime of the whole process (its SQLite thread included)."""
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss(self) -> int:
        """Resident set size in bytes."""
        with open(f"/proc/{self.pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def log_problems(self) -> list[str]:
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return [line for line in text.splitlines() if " ERROR " in line or "Traceback" in line]


def core_times() -> dict[int, tuple[float, float]]:
    """Per core (busy, total) seconds since boot, from /proc/stat: what else ran on the machine."""
    out = {}
    tick = os.sysconf("SC_CLK_TCK")
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu") and line[3].isdigit():
                name, *v = line.split()
                v = [int(x) for x in v[:8]]
                idle = v[3] + v[4]
                out[int(name[3:])] = ((sum(v) - idle) / tick, sum(v) / tick)
    return out


def busy_pct(before: dict, after: dict) -> dict[int, float]:
    return {c: 100 * (after[c][0] - before[c][0]) / max(1e-9, after[c][1] - before[c][1]) for c in after if c in before}


def guobiao_argv(port: int, db: Path, rate: float | None = None, loop: str = "asyncio") -> list[str]:
    argv = [sys.executable, "-m", "server.cli", "serve", "--host", HOST, "--port", str(port), "--db", str(db),
            "--log-level", "WARNING", "--loop", loop]
    if rate is not None:
        argv += ["--rate", str(rate)]
    return argv


def baseline_argv(port: int, loop: str = "asyncio") -> list[str]:
    return [sys.executable, str(ROOT / "bench" / "fanout_server.py"), "--port", str(port), "--loop", loop]


# -- one websocket client ------------------------------------------------------------------------

class WSClient(asyncio.Protocol):
    """A minimal RFC 6455 client: handshake, masked binary frames out, server frames parsed in place."""

    __slots__ = ("seat", "transport", "buf", "opened", "key", "closed", "lost_by_us", "frag")

    def __init__(self, seat):
        self.seat = seat
        self.transport = None
        self.buf = bytearray()
        self.opened: asyncio.Future = asyncio.get_running_loop().create_future()
        self.key = base64.b64encode(os.urandom(16))
        self.closed = False
        self.lost_by_us = False
        self.frag = None

    @classmethod
    async def connect(cls, seat, port: int, timeout: float = 20.0) -> WSClient:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(timeout):
            _, c = await loop.create_connection(lambda: cls(seat), HOST, port)
            await c.opened
        return c

    def connection_made(self, transport):
        self.transport = transport
        transport.write(b"GET /ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (HOST.encode(), self.key))

    def data_received(self, data):
        """Every whole frame of the read handled; a partial one (or the handshake) kept for the next.
        Payloads are read where they lie in ``data`` (no copy): most reads hold whole frames."""
        if self.buf or not self.opened.done():  # a partial frame or the handshake before: buffered
            buf = self.buf
            buf += data
            if not self.opened.done() and not self._handshake(buf):
                return
            data = bytes(buf)
            buf.clear()
        pos, n = 0, len(data)
        seat = self.seat
        while n - pos >= 2:  # the frames, in this function: a call per read less (the common path)
            b0 = data[pos]
            ln = data[pos + 1] & 0x7F
            hdr = 2
            if ln == 126:
                if n - pos < 4:
                    break
                ln = (data[pos + 2] << 8) | data[pos + 3]
                hdr = 4
            elif ln == 127:
                if n - pos < 10:
                    break
                ln = int.from_bytes(data[pos + 2:pos + 10], "big")
                hdr = 10
            end = pos + hdr + ln
            if end > n:
                break
            if b0 == 0x82 and self.frag is None:  # a whole binary frame: the server's usual message
                s = pos + hdr
                if data[s] == 0x82 and data.startswith(_OK, s):  # the byte first: most are game messages
                    seat.on_ok(_unpackb(data[s + 9:end]))  # 9: len(_OK)
                elif (g := game_fields(data, s, end)) is not None:
                    seat.on_game(*g)
                else:
                    seat.on_message(decode(memoryview(data)[s:end]))
            else:
                self._frame(b0 & 0x80, b0 & 0x0F, data[pos + hdr:end])
            pos = end
            if self.closed:
                return
        if pos < n and not self.closed:
            self.buf += data[pos:]

    def _handshake(self, buf: bytearray) -> bool:
        """The server's 101 answer, taken off ``buf``: True when the connection is open."""
        end = buf.find(b"\r\n\r\n")
        if end < 0:
            return False
        head = bytes(buf[:end]).decode("latin-1")
        del buf[:end + 4]
        accept = base64.b64encode(hashlib.sha1(self.key + GUID).digest()).decode()
        if not head.startswith("HTTP/1.1 101") or accept not in head:
            self.opened.set_exception(ConnectionError(f"handshake refused: {head.splitlines()[0]!r}"))
            self.opened.exception()
            self.transport.abort()
            return False
        self.opened.set_result(True)
        return True

    def _frame(self, fin, op, payload):
        if op == 0x9:  # ping
            self._send(0xA, payload)
            return
        if op == 0xA:
            return
        if op == 0x8:  # close: echo the code and hang up
            self._send(0x8, payload[:2])
            self.closed = True
            self.transport.close()
            self.seat.on_close(self, int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005)
            return
        if op in (0x1, 0x2):
            if not fin:
                self.frag = [op, payload]
                return
        elif op == 0x0 and self.frag is not None:
            self.frag[1] += payload
            if not fin:
                return
            op, payload = self.frag
            self.frag = None
        else:
            return
        msg = json.loads(payload) if op == 0x1 else decode(payload)
        self.seat.on_message(msg)

    def _send(self, op: int, payload: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        n = len(payload)
        mask = random.getrandbits(32).to_bytes(4, "little")
        if n < 126:
            head = bytes((0x80 | op, 0x80 | n))
        elif n < 65536:
            head = bytes((0x80 | op, 0x80 | 126)) + n.to_bytes(2, "big")
        else:
            head = bytes((0x80 | op, 0x80 | 127)) + n.to_bytes(8, "big")
        if n:
            payload = _apply_mask(payload, mask)
        self.transport.write(head + mask + payload)

    def send(self, msg: dict) -> None:
        self._send(0x2, _packb(msg))

    def abort(self) -> None:
        """Drop the connection without a close frame (a pulled cable)."""
        self.lost_by_us = True
        self.closed = True
        if self.transport is not None:
            self.transport.abort()

    def close(self) -> None:
        self.lost_by_us = True
        if not self.closed and self.transport is not None:
            self._send(0x8, (1000).to_bytes(2, "big"))
            self.closed = True
            self.transport.close()

    def connection_lost(self, exc):
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(f"lost during handshake: {exc}"))
            self.opened.exception()  # retrieved: connect() may have given up on it already
        was = self.closed
        self.closed = True
        if not was:
            self.seat.on_close(self, 1006)


# -- tables --------------------------------------------------------------------------------------

FORMING, PLAYING, ENDING, STOPPED = "forming", "playing", "ending", "stopped"


class Seat:
    """One player of a table: a guest account and its current connection."""

    __slots__ = ("table", "i", "conn", "pid", "token", "p", "last_rseq", "n", "prompt", "futures", "connected",
                 "reconnecting", "room_seen", "name", "phase")

    def __init__(self, table: Table, i: int):
        self.table, self.i = table, i
        self.conn: WSClient | None = None
        self.pid = self.token = None
        self.name = f"T{table.no}s{i}"
        self.p: int | None = None  # the room's player index (docs/rooms.md: "player" in the log)
        self.last_rseq = 0
        self.n = 0
        self.prompt = None  # (legal, seq) of the last prompt not yet answered
        self.futures: dict[int, asyncio.Future] = {}
        self.connected = asyncio.Event()
        self.reconnecting = False
        self.room_seen = None  # the room named by the last welcome
        self.phase = None  # the room's phase in the last snapshot pushed to this seat

    # connection

    async def open(self, gen: Generator) -> None:
        """Connect and sign in (guest the first time, resume after that); bounded retries."""
        end = time.monotonic() + gen.reconnect_for
        last = None
        for _ in range(1000):
            if time.monotonic() > end or gen.stopping:
                break
            try:
                conn = await WSClient.connect(self, gen.port_for(self))
            except (OSError, TimeoutError, ConnectionError) as e:
                last = e
                await asyncio.sleep(0.2 + random.random() * 0.3)
                continue
            self.conn, self.n = conn, 0
            self.prompt = self.phase = None
            try:
                if self.token is None:
                    r = await self.request({"t": "guest", "name": self.name}, timeout=gen.request_timeout)
                else:
                    r = await self.request({"t": "resume", "token": self.token}, timeout=gen.request_timeout)
            except (ConnectionError, TimeoutError) as e:
                last = e
                conn.abort()
                await asyncio.sleep(0.2 + random.random() * 0.3)
                continue
            if r.get("code") == "server/storage":  # the database busy (a loaded machine): try again
                last = ConnectionError(f"sign-in refused: {r}")
                conn.abort()
                await asyncio.sleep(0.2 + random.random() * 0.3)
                continue
            if r.get("t") != "welcome":
                raise ConnectionError(f"sign-in refused: {r}")
            self.pid, self.token, self.room_seen = r["player"], r["token"], r.get("room")
            self.connected.set()
            return
        raise ConnectionError(f"{self.name}: could not connect: {last!r}")

    def on_close(self, conn: WSClient, code: int) -> None:
        if conn is not self.conn:
            return
        self.connected.clear()
        for f in self.futures.values():
            if not f.done():
                f.set_exception(ConnectionError(f"closed {code}"))
        self.futures.clear()
        self.prompt = None
        t = self.table
        if t.inflight is not None and t.inflight[0] is self:
            t.inflight = None  # unknown whether it was accepted: the database check tells
        gen = t.gen
        if conn.lost_by_us or gen.stopping:
            return
        if gen.expect_drops:
            gen.counts["dropped_by_server"] += 1
            self.start_reconnect(0.0)
        else:
            gen.error(f"connection closed {code}")

    def start_reconnect(self, delay: float) -> None:
        if self.reconnecting or self.table.gen.stopping:
            return
        self.reconnecting = True
        self.table.gen.spawn(self._reconnect(delay))

    async def _reconnect(self, delay: float) -> None:
        gen = self.table.gen
        try:
            if self.conn is not None and not self.conn.closed:
                self.on_close_self()
            await asyncio.sleep(delay)
            await self.open(gen)
            gen.counts["reconnects"] += 1
        except ConnectionError as e:
            gen.error(f"reconnect failed: {e}")
        finally:
            self.reconnecting = False

    def on_close_self(self) -> None:
        """Drop our own connection (as a client whose network went away)."""
        conn = self.conn
        conn.abort()
        self.on_close(conn, 1006)

    # messages

    async def request(self, msg: dict, timeout: float = 30.0) -> dict:
        gen = self.table.gen
        rid = gen.next_id()
        if self.conn is None or self.conn.closed:
            raise ConnectionError("not connected")
        fut = asyncio.get_running_loop().create_future()
        self.futures[rid] = fut
        self.conn.send({**msg, "id": rid})
        try:
            async with asyncio.timeout(timeout):
                return await fut
        finally:
            self.futures.pop(rid, None)

    def on_game(self, n: int, rseq: int, legal: bytes | list | None, seq) -> None:
        """A ``game`` message read by game_fields: what on_message does with one, in fewer steps (the
        generator's CPU per action counts against the server's on a shared machine)."""
        t = self.table
        gen = t.gen
        now = gen.clock()
        gen.msgs_in += 1
        if n != self.n + 1:
            gen.error("message number gap")
        self.n = n
        if rseq > self.last_rseq:
            self.last_rseq = rseq
        t.arrivals[rseq] = now
        self.prompt = None if legal is None else (legal, seq)
        if t.inflight is None:
            t.maybe_act(now)

    def on_ok(self, re) -> None:
        """``{"t": "ok", "re": re}``: an action's or a request's answer, as on_message takes it."""
        t = self.table
        inflight = t.inflight
        if inflight is None or inflight[1] != re or inflight[0] is not self or re in self.futures:
            self.on_message({"t": "ok", "re": re})
            return
        now = t.gen.clock()
        t.gen.msgs_in += 1
        t.on_ack(self, True, now)
        t.maybe_act(now)

    def on_message(self, msg: dict) -> None:
        t = self.table
        gen = t.gen
        now = gen.clock()
        gen.msgs_in += 1
        n = msg.get("n")
        if n is not None:
            if n != self.n + 1:
                gen.error("message number gap")
            self.n = n
        r = msg.get("rseq")
        if r is not None:
            if r > self.last_rseq:
                self.last_rseq = r
            t.arrivals[r] = now
        kind = msg.get("t")
        if kind == "game":
            legal = msg.get("legal")
            self.prompt = (legal, msg["seq"]) if legal else None
        elif kind == "snapshot":
            you = msg.get("you")
            if you and you.get("seat") is not None:
                self.p = you["seat"]
            g = msg.get("game")
            legal = g.get("legal") if g else None
            self.prompt = (legal, g["match"]["seq"] if "match" in g else msg.get("seq")) if legal else None
            info = msg.get("info")
            if info is not None and "re" not in msg:
                self.phase = info.get("phase")
                t.on_snapshot(self, info)
        elif kind == "hand_result":
            if self.i == 0:
                gen.counts["hands"] += 1
        elif kind == "match_result":
            t.on_match_end(self, msg.get("record") or {})
        elif kind == "error" and msg.get("re") not in self.futures:  # a request's error is its caller's
            code = msg.get("code", "?")
            if code == "action/stale":
                gen.counts["stale"] += 1  # harmless (docs/protocol.md): the table moved on
            elif gen.expect_drops and code.startswith("action/"):
                gen.counts["refused_after_fault"] += 1  # a prompt overtaken while a seat was away
            else:
                gen.error(code)
        re = msg.get("re")
        if re is not None:
            fut = self.futures.get(re)
            if fut is not None:
                if not fut.done():
                    fut.set_result(msg)
            elif t.inflight is not None and t.inflight[1] == re and t.inflight[0] is self:
                t.on_ack(self, kind != "error", now)
        t.maybe_act(now)


class Table:
    def __init__(self, gen: Generator, no: int):
        self.gen, self.no = gen, no
        self.seats = [Seat(self, i) for i in range(4)]
        self.rng = random.Random(gen.seed * 100003 + no)
        self.state = FORMING
        self.room: str | None = None
        self.match = 0  # matches finished in this room (the log's act entries are per match)
        self.next_at = 0.0
        self.timer = None
        self.inflight = None  # (seat, id, action, sent at, actor's rseq then, match)
        self.latencies: deque = deque()  # (acked at, sent at, rseq) waiting for the other seats' updates
        self.arrivals: dict[int, float] = {}  # rseq -> last arrival over the seats
        self.ended = asyncio.Event()
        self.rooms_played = 0
        self.last_ended = -1  # the number of the last match of this room whose result came

    # setup

    async def connect(self) -> None:
        for s in self.seats:
            await s.open(self.gen)

    async def form(self) -> None:
        """Create a room, the other three join by invite code, everybody ready: the match starts."""
        gen = self.gen
        s0 = self.seats[0]
        snap = await s0.request({"t": "create", "config": gen.room_config}, timeout=gen.request_timeout)
        if snap.get("t") != "snapshot":
            raise RuntimeError(f"create refused: {snap}")
        self.room, code = snap["room"], snap["info"]["invite"]
        s0.room_seen = self.room
        self.match = 0
        self.last_ended = -1
        self.ended.clear()
        for s in self.seats[1:]:
            r = await s.request({"t": "join", "code": code}, timeout=gen.request_timeout)
            if r.get("t") != "ok":
                raise RuntimeError(f"join refused: {r}")
            s.room_seen = self.room
        self.state = PLAYING
        self.next_at = gen.clock() + (self.rng.random() * gen.interval if gen.interval else 0.0)
        for s in self.seats:
            r = await s.request({"t": "ready"}, timeout=gen.request_timeout)
            if r.get("t") != "ok":
                raise RuntimeError(f"ready refused: {r}")
        self.rooms_played += 1
        gen.counts["rooms"] += 1
        self.maybe_act(gen.clock())

    async def leave(self) -> None:
        """Everybody out of the old room (it closes when empty); 'not in a room' is fine here."""
        for s in self.seats:
            if s.room_seen is not None or self.room is not None:
                r = await s.request({"t": "leave"}, timeout=self.gen.request_timeout)
                if r.get("t") not in ("ok", "error"):
                    raise RuntimeError(f"leave: {r}")
                s.room_seen = None
        self.room = None

    async def run(self) -> None:
        """Soak tables: play a match, leave, form a new room, until stopped (faults make it start over)."""
        gen = self.gen
        for _ in range(100000):
            if gen.stopping:
                return
            try:
                if self.state != PLAYING:
                    await self.all_connected()
                    if await self.resumable():
                        self.ended.clear()
                        self.state = PLAYING  # the match went on through the fault: keep playing it
                        self.next_at = gen.clock()
                        self.maybe_act(self.next_at)
                    else:
                        await self.leave()
                        self.state = FORMING
                        await self.form()
                await self.ended.wait()
                if gen.stopping:
                    return
                self.state = ENDING
                if gen.rematch:
                    await self.all_connected()
                    self.match += 1
                    self.ended.clear()
                    self.state = PLAYING  # the last rematch starts the match: its prompts may come first
                    for s in self.seats:
                        r = await s.request({"t": "rematch"}, timeout=gen.request_timeout)
                        if r.get("t") != "ok":
                            raise RuntimeError(f"rematch refused: {r}")
                    self.maybe_act(gen.clock())
                    continue
            except (ConnectionError, TimeoutError, RuntimeError) as e:
                if gen.stopping:
                    return
                if not gen.expect_drops:
                    gen.error(f"table {self.no}: {e}")
                    return
                gen.counts["table_restarts"] += 1
                if self.state == PLAYING:
                    self.state = ENDING  # start over with a new room
                await asyncio.sleep(0.5)

    async def resumable(self) -> bool:
        """Every seat is (back) in this table's room and that room is playing a match: ask each for a
        fresh snapshot (which also gives it its prompt)."""
        if self.room is None:
            return False
        for s in self.seats:
            r = await s.request({"t": "snapshot"}, timeout=self.gen.request_timeout)
            if r.get("t") != "snapshot" or r.get("room") != self.room or r["info"].get("phase") != "playing":
                return False
        return True

    async def all_connected(self) -> None:
        async with asyncio.timeout(self.gen.reconnect_for + 30):
            for s in self.seats:
                await s.connected.wait()

    def on_snapshot(self, seat: Seat, info: dict) -> None:
        """A pushed snapshot (after a resume): a match that ended meanwhile means starting over."""
        if self.state == PLAYING and info.get("phase") != "playing" and info.get("id", self.room) == self.room:
            self.ended.set()

    def on_match_end(self, seat: Seat, record: dict) -> None:
        k = record.get("match", 0)
        if k <= self.last_ended:
            return  # another seat's copy of a result already seen
        self.last_ended = k
        if self.state == PLAYING and not self.ended.is_set():
            self.gen.counts["matches"] += 1
            self.ended.set()
            self.state = ENDING

    # play

    def maybe_act(self, now: float) -> None:
        if self.inflight is not None or self.state != PLAYING or self.gen.holding:
            return
        if now < self.next_at - EARLY:
            if self.timer is None:
                self.timer = self.gen.loop.call_later(self.next_at - now, self._tick)
            return
        s = ready = None  # the seats with a prompt: a list only when two or more have one (a claim window)
        for x in self.seats:
            if x.prompt is not None and (c := x.conn) is not None and not c.closed:
                if s is None:
                    s = x
                elif ready is None:
                    ready = [s, x]
                else:
                    ready.append(x)
        if s is None:
            return
        if ready is not None:
            s = ready[below(self.rng, len(ready))]
        legal, seq = s.prompt
        s.prompt = None
        action = {**choose(legal, self.rng), "seq": seq}
        gen = self.gen
        rid = gen.next_id()
        self.inflight = (s, rid, action, now, s.last_rseq, self.match)
        s.conn.send({"t": "act", "action": action, "id": rid})
        gen.sent += 1
        if gen.interval:
            nxt = self.next_at + gen.interval
            self.next_at = nxt if nxt > now - gen.interval else now

    def _tick(self) -> None:
        self.timer = None
        self.maybe_act(self.gen.clock())

    def on_ack(self, seat: Seat, ok: bool, now: float) -> None:
        """The answer to the action in flight: ``ok``, or an error (counted in on_message)."""
        s, rid, action, t0, before, match = self.inflight
        self.inflight = None
        gen = self.gen
        if not ok:
            return
        gen.counts["actions_total"] += 1
        if gen.record is not None:
            gen.record.append((self.room, match, s.p, action["seq"], action["a"]))
        if not gen.measuring:
            return
        gen.actions += 1
        r = seat.last_rseq
        if r > before:
            self.latencies.append((now, t0, r))
        else:
            gen.lat.append(now - t0)

    def settle(self, now: float, horizon: float) -> None:
        """Latencies of actions acknowledged more than ``horizon`` ago: every seat's update is in by then."""
        lat = self.latencies
        gen = self.gen
        while lat and lat[0][0] < now - horizon:
            acked, t0, r = lat.popleft()
            gen.lat.append(self.arrivals.get(r, acked) - t0)
        arrivals = self.arrivals
        if len(arrivals) > 64:
            # Oldest first (the order of first arrival): the scan stops at the first one still kept, so a
            # sweep costs what it drops (rebuilding every table's dict was a tenth of the generator's CPU).
            cut = now - 2 * horizon - 5
            old = []
            for k, v in arrivals.items():
                if v > cut:
                    break
                old.append(k)
            for k in old:
                del arrivals[k]

    def check_stall(self, now: float, limit: float) -> None:
        if self.inflight is not None and now - self.inflight[3] > limit:
            self.gen.error("no answer to an action")
            self.inflight = None
            self.maybe_act(now)


# -- the generator -------------------------------------------------------------------------------

class Generator:
    def __init__(self, port: int, tables: int, rate: float | None, seed: int = 1, expect_drops: bool = False,
                 rematch: bool = True, record: bool = False, room_config: dict | None = None,
                 request_timeout: float = 60.0, reconnect_for: float = 90.0):
        self.port = port
        self.loop = asyncio.get_running_loop()
        # Every time stamp, and the pacing: uvloop's loop.time() counts whole milliseconds, too coarse.
        self.clock = time.monotonic
        self.interval = None if not rate else 1.0 / rate
        self.seed = seed
        self.expect_drops = expect_drops
        self.rematch = rematch
        self.record = [] if record else None
        self.room_config = room_config or ROOM_CONFIG
        self.request_timeout = request_timeout
        self.reconnect_for = reconnect_for
        self.tables = [Table(self, i) for i in range(tables)]
        self._id = 0
        self.msgs_in = 0
        self.sent = 0
        self.actions = 0
        self.lat: list[float] = []
        self.measuring = False
        self.errors: Counter = Counter()
        self.counts: Counter = Counter()
        self.stopping = False
        self.tasks: set[asyncio.Task] = set()
        self._sweeper = None
        self.holding = False  # tables formed meanwhile wait for release(): nobody plays

    def port_for(self, seat) -> int:
        """The port a seat connects to (bench/cluster.py spreads seats over nodes)."""
        return self.port

    def next_id(self) -> int:
        self._id += 1
        return self._id

    def error(self, what: str) -> None:
        self.errors[what] += 1

    def spawn(self, coro) -> asyncio.Task:
        task = self.loop.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    @property
    def seats(self):
        return [s for t in self.tables for s in t.seats]

    async def connect_all(self, parallel: int = 200) -> None:
        """Every seat connects and signs in as a guest, ``parallel`` at a time."""
        sem = asyncio.Semaphore(parallel)

        async def one(s):
            async with sem:
                await s.open(self)

        await asyncio.gather(*(one(s) for s in self.seats))

    async def form_all(self, parallel: int = 100) -> None:
        sem = asyncio.Semaphore(parallel)

        async def one(t):
            async with sem:
                await t.form()

        await asyncio.gather(*(one(t) for t in self.tables))

    def release(self) -> None:
        """Every table starts playing, each at a random phase of its first interval."""
        self.holding = False
        now = self.clock()
        for t in self.tables:
            t.next_at = now + (t.rng.random() * self.interval if self.interval else 0.0)
            t.maybe_act(now)

    def start_tables(self) -> None:
        """Tables that re-form after each match (soak) or rematch (load) on their own."""
        for t in self.tables:
            self.spawn(t.run())
        self._sweeper = self.spawn(self._sweep())

    async def _sweep(self) -> None:
        while not self.stopping:
            await asyncio.sleep(0.5)
            now = self.clock()
            for t in self.tables:
                t.settle(now, 1.0)
                t.check_stall(now, 30.0)

    def begin(self) -> None:
        """Start a measurement window: actions acknowledged from now on are counted and timed."""
        self.measuring = True
        self.actions = 0
        self.msgs_in = 0
        self.lat = []
        for t in self.tables:
            t.latencies.clear()

    def end(self) -> None:
        """Close the window (call ``settle_all`` a moment later for the last latencies)."""
        self.measuring = False

    def settle_all(self) -> None:
        now = self.clock()
        for t in self.tables:
            t.settle(now + 10.0, 1.0)

    async def stop(self) -> None:
        self.stopping = True
        for t in self.tables:
            t.ended.set()
            if t.timer is not None:
                t.timer.cancel()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for s in self.seats:
            if s.conn is not None:
                s.conn.close()
        await asyncio.sleep(0.2)


def percentiles(values: list[float]) -> dict:
    if not values:
        return {"p50": None, "p99": None, "p99.9": None, "max": None}
    v = sorted(values)

    def q(x):
        return v[min(len(v) - 1, int(x * len(v)))]

    return {"p50": q(0.5), "p99": q(0.99), "p99.9": q(0.999), "max": v[-1]}


# -- checking the database after a run ------------------------------------------------------------

def check_database(db: Path, acked: list) -> dict:
    """From the SQLite log: no gap or repeat in any room's log, every acknowledged action there exactly
    once, no player action twice, and every match finished or its room still open (it continues)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    problems: list[str] = []
    try:
        rooms = {code: (rid, closed) for rid, code, closed in con.execute("SELECT id, code, closed_at FROM rooms")}
        by_id = {rid: code for code, (rid, _) in rooms.items()}
        logs: dict[str, Counter] = {}
        cur = con.execute("SELECT room_id, n, entry FROM actions ORDER BY room_id, n")
        last_room, expect, live_rseq = None, 0, 0
        match, ended_at = 0, None
        for room_id, n, entry in cur:
            if room_id != last_room:
                last_room, expect, live_rseq, match, ended_at = room_id, 0, 0, 0, None
                logs[by_id[room_id]] = Counter()
            if n != expect:
                problems.append(f"room {by_id[room_id]}: log row {n}, expected {expect}")
            expect = n + 1
            e = json.loads(entry)
            if e.get("derived"):
                # Written while its cause is applied, so before it, with the cause's rseq: the match
                # ends after the entry of that rseq.
                if e["k"] == "match_result":
                    ended_at = e["rseq"]
                continue
            if ended_at is not None and e["rseq"] > ended_at:
                match, ended_at = match + 1, None
            live_rseq += 1
            if e["rseq"] != live_rseq:
                problems.append(f"room {by_id[room_id]}: rseq {e['rseq']}, expected {live_rseq}")
                live_rseq = e["rseq"]
            if e["k"] == "act" and e["by"] == "player":
                logs[by_id[room_id]][(match, e["player"], e["action"]["seq"], e["action"]["a"])] += 1
        duplicated = sum(c - 1 for log in logs.values() for c in log.values() if c > 1)
        missing = 0
        seen = Counter()
        for room, match, p, seq, a in acked:
            seen[(room, match, p, seq, a)] += 1
            if logs.get(room, {}).get((match, p, seq, a), 0) < 1:
                missing += 1
        acked_twice = sum(c - 1 for c in seen.values() if c > 1)
        unfinished_closed = con.execute(
            "SELECT COUNT(*) FROM matches m JOIN rooms r ON r.id = m.room_id"
            " WHERE m.finished_at IS NULL AND r.closed_at IS NOT NULL").fetchone()[0]
        matches = con.execute("SELECT COUNT(*), COUNT(finished_at) FROM matches").fetchone()
        open_rooms = con.execute("SELECT COUNT(*) FROM rooms WHERE closed_at IS NULL").fetchone()[0]
        player_actions = sum(sum(log.values()) for log in logs.values())
    finally:
        con.close()
    return {"rooms": len(rooms), "open_rooms": open_rooms, "matches": matches[0], "matches_finished": matches[1],
            "matches_unfinished_in_closed_rooms": unfinished_closed, "player_actions_logged": player_actions,
            "acked": len(acked), "missing": missing, "duplicated": duplicated, "acked_twice": acked_twice,
            "log_problems": problems[:20], "log_problem_count": len(problems)}


# -- a self-check: python bench/loadgen.py --smoke ---------------------------------------------------

async def smoke(baseline: bool = False, tables: int = 2, seconds: float = 2.0) -> dict:
    """A few closed-loop tables against a fresh server (or the fan-out baseline): the figures of a short run."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="guobiao-loadgen-") as tmp:
        port = free_port()
        argv = baseline_argv(port) if baseline else guobiao_argv(port, Path(tmp) / "smoke.db", rate=1000.0)
        srv = ServerProc(argv, port, Path(tmp) / "server.log", cpu=None)
        srv.start()
        gen = None
        try:
            gen = Generator(port, tables, None)
            await gen.connect_all()
            await gen.form_all()
            gen.start_tables()
            gen.begin()
            await asyncio.sleep(seconds)
            gen.end()
            rss = srv.rss()
            await asyncio.sleep(1.0)
            gen.settle_all()
            errors = dict(gen.errors)
            if srv.log_problems():
                errors["server log ERROR lines"] = len(srv.log_problems())
            return {"server": "baseline" if baseline else "guobiao", "tables": tables, "actions": gen.actions,
                    "actions_per_s": gen.actions / seconds, "latency_ms": {
                        k: None if v is None else round(v * 1000, 2) for k, v in percentiles(gen.lat).items()},
                    "rss_mib": round(rss / 2**20, 1), "errors": errors}
        finally:
            if gen is not None:
                await gen.stop()
            srv.stop()


def smoke_main(argv=None, baseline: bool = False) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="A short self-check of the load generator.")
    ap.add_argument("--smoke", action="store_true", help="run the self-check (the only mode)")
    ap.add_argument("--baseline", action="store_true", default=baseline, help="against bench/fanout_server.py")
    args = ap.parse_args(argv)
    if not args.smoke:
        ap.error("only --smoke: bench/load.py and bench/soak.py are the benchmarks")
    r = asyncio.run(smoke(args.baseline))
    lat = r["latency_ms"]
    print(f"[{r['server']}] {r['tables']} tables, closed loop: {r['actions_per_s']:.1f} actions/s "
          f"({r['actions']} actions); latency ms p50 {lat['p50']} p99 {lat['p99']}; server RSS {r['rss_mib']} MiB")
    print(f"errors: {sum(r['errors'].values())} {r['errors'] or ''}")
    return 0 if r["actions"] > 0 and not r["errors"] else 1


if __name__ == "__main__":
    sys.exit(smoke_main())
