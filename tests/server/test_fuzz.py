"""Thousands of random and mutated frames: each gets a documented error (or a plain answer), the
server stays up and the room does not change."""

import json
import random
import re
from pathlib import Path

import msgpack

from tests.server.client import prompt
from tests.server.conftest import start, stop
from tests.server.test_play import table

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
CODES = set(re.findall(r"`((?:protocol|auth|lobby|chat|room|action|tournament)/[a-z_]+)`", DOC.read_text(encoding="utf-8")))
ANSWERS = {"pong", "rooms", "snapshot", "ok"}  # what a well-formed harmless message may get

TEMPLATES = [
    {"t": "act", "action": {"a": "discard", "tile": 5, "seq": 0}},
    {"t": "act", "action": {"a": "chow", "low": 3, "seq": 1}},
    {"t": "act", "action": {"a": "pass", "seq": 0}},
    {"t": "act", "action": {"a": "win", "seq": 0}},
    {"t": "act", "action": {"a": "concealed_kong", "tile": 30, "seq": 0}},
    {"t": "sit", "seat": 2}, {"t": "ready", "ready": True}, {"t": "start"}, {"t": "add_bot", "seat": 1},
    {"t": "remove_bot", "seat": 3}, {"t": "kick", "player": "p000000000000"}, {"t": "host", "player": "x"},
    {"t": "rematch"}, {"t": "auto", "on": "yes"}, {"t": "join", "code": "ABCD-EFGH"}, {"t": "watch", "room": "r1"},
    {"t": "create", "config": {"hands": 5}}, {"t": "quick", "type": "nope"}, {"t": "quick_cancel"},
    {"t": "resume", "token": "ab"}, {"t": "guest", "name": ""}, {"t": "chat", "text": ""},
    {"t": "snapshot"}, {"t": "rooms"}, {"t": "ping"},
]
# Messages that would change the room if well formed: never sent as they are.
UNSAFE = {"leave"}


def junk(rng: random.Random, depth: int = 0):
    r = rng.random()
    choices = [
        lambda: None, lambda: True, lambda: rng.randrange(-5, 40), lambda: 2**64 - 1, lambda: -2**63,
        lambda: 2**53, lambda: rng.random() * 1e9, lambda: "", lambda: "x" * rng.choice((1, 64, 2000)),
        lambda: rng.choice(["discard", "act", "pass", "\u0000", "🀄", "r0", "p"]),
    ]
    if depth < 8 and r < 0.25:
        return [junk(rng, depth + 1) for _ in range(rng.randrange(4))]
    if depth < 8 and r < 0.4:
        return {rng.choice(["t", "a", "seq", "tile", "x", "action"]): junk(rng, depth + 1) for _ in range(rng.randrange(4))}
    return rng.choice(choices)()


def mutate(rng: random.Random, msg: dict) -> dict:
    msg = json.loads(json.dumps(msg))
    target = msg["action"] if "action" in msg and rng.random() < 0.6 else msg
    keys = list(target)
    op = rng.randrange(5)
    if op == 0:
        target[rng.choice(keys)] = junk(rng)
    elif op == 1:
        target[rng.choice(["zz", "seq", "tile", "id", "t"])] = junk(rng)
    elif op == 2 and len(keys) > 1:
        del target[rng.choice([k for k in keys if k != "t"] or keys)]
    elif op == 3:
        msg["t"] = rng.choice(["", "Act", "act ", "join", "x" * 40, "leave_", "snapshot"])
    else:
        msg = junk(rng)
    return msg


def frames(rng: random.Random, n: int, templates: list):
    for i in range(n):
        kind = rng.randrange(6)
        if kind == 0:
            yield bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60)))
        elif kind == 1:
            yield "".join(rng.choice('{}[]":,0123456789tnull ae\\') for _ in range(rng.randrange(1, 60)))
        elif kind == 2:
            data = msgpack.packb(rng.choice(templates))
            pos = rng.randrange(len(data))
            yield data[:pos] + bytes([rng.randrange(256)]) + data[pos + 1:]
        elif kind == 3:
            ext = [msgpack.ExtType(rng.randrange(128), b"x"), b"bytes", {1: 2}, 1.5, [1] * 100, 2**64 - 1]
            yield msgpack.packb({"t": "act", "action": rng.choice(ext)}, use_bin_type=True)
        else:
            msg = rng.choice(templates)
            msg = mutate(rng, msg) if rng.random() < 0.8 else msg
            if isinstance(msg, dict) and isinstance(msg.get("t"), str) and msg["t"] in UNSAFE:
                continue
            if rng.random() < 0.5:
                yield msgpack.packb(msg, use_bin_type=True)
            else:
                yield json.dumps(msg)
    yield "x" * 5000  # over the frame cap
    yield b"\x81\xa1t\xa4ping" + b"\x00"  # trailing bytes
    yield json.dumps({"t": "ping", "n": float("nan")})
    yield json.dumps({"t": "act", "action": {"a": "discard", "tile": 10**30, "seq": 0}})
    yield json.dumps({"t": "ping", "x": [[[[[[[[["deep"]]]]]]]]]})
    yield "[" * 3000 + "]" * 3000


def pushed(m) -> bool:
    return m.get("t") in ("chat", "room")  # broadcasts, not answers


async def answers_to(c, frame, k):
    """Send one frame, then a probe with id k; what came back besides the probe answered the frame.
    (A room command is answered by the room's task, possibly after the probe: wait for it then.)"""
    await c.send_raw(frame)
    await c.send({"t": "ping", "id": f"probe{k}"})
    got, probed = [], False
    while not probed or not [m for m in got if not pushed(m)]:
        try:
            m = await c._recv(10 if not probed else 2)
        except TimeoutError:
            break
        if m.get("re") == f"probe{k}":
            probed = True
        else:
            got.append(m)
    return got


async def test_fuzz_frames(tmp_path):
    server = await start(str(tmp_path / "f.db"), rate=1e6, burst=1e6)  # the rate limit has its own test
    try:
        cs, room = await table(server)
        dealer_prompt = await cs[0].wait_for(lambda m: prompt(m) is not None)
        legal, seq = prompt(dealer_prompt)
        task = server.app.rooms[room]
        before = (task.room.rseq, task.room.rows, task.room.snapshot(cs[1].player))
        attacker = cs[1]  # seated, not to act: any action of theirs is out of turn
        await attacker.drain(0.3)
        outsider = await server.client()  # never signed in
        attacker.strict = outsider.strict = False  # replies come in each frame's own encoding
        rng = random.Random(20261129)
        seen = set()
        count = 0
        for c in (attacker, outsider):
            current = [{"t": "act", "action": {"a": a, "seq": seq}} for a in ("pass", "win", "pung")]
            for frame in frames(rng, 1500, TEMPLATES + current):
                count += 1
                got = await answers_to(c, frame, count)
                replies = [m for m in got if not pushed(m)]
                assert len(replies) == 1, (frame, got)
                r = replies[0]
                if r["t"] == "error":
                    assert r["code"] in CODES, (frame, r)
                    seen.add(r["code"])
                else:
                    assert r["t"] in ANSWERS or r["t"] == "welcome", (frame, r)
                    if r["t"] == "welcome":  # a lucky valid guest name: stay an outsider on a new socket
                        await c.close()
                        outsider = c = await server.client()
                        c.strict = False
        assert count >= 3000
        assert {"protocol/bad_frame", "protocol/bad_message", "protocol/too_large", "protocol/unknown_type",
                "protocol/not_signed_in", "action/not_your_turn"} <= seen, seen
        # The room is as it was, and still plays.
        assert (task.room.rseq, task.room.rows, task.room.snapshot(cs[1].player)) == before
        assert server.app.rooms[room] is task and not task.task.done()
        discard = next(a for a in legal if a["a"] == "discard")
        r = await cs[0].request({"t": "act", "action": {**discard, "seq": seq}})
        assert r["t"] == "ok", r
        late = await server.client(name="Late")
        assert (await late.request({"t": "ping"}))["t"] == "pong"
    finally:
        await stop(server)


def test_documented_codes_cover_the_code():
    """Every error code the server, the rooms and the tournaments can send is in docs/protocol.md."""
    from game import actions
    from rooms import errors, room
    from rooms.tournament import errors as tournament_errors
    from server import app, codec, frames

    codes = {v for mod in (app, codec, frames, errors, room, tournament_errors, actions) for k, v in vars(mod).items()
             if k.isupper() and isinstance(v, str) and re.fullmatch(r"[a-z]+/[a-z_]+", v)}
    assert codes - CODES == set()
