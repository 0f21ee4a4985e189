"""A protocol client for the tests: real sockets, msgpack or JSON frames, and a simple player."""

from __future__ import annotations

import asyncio
import json
import random

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from rooms.tournament.delta import apply


class Client:
    def __init__(self, ws, encoding: str = "msgpack"):
        self.ws = ws
        self.encoding = encoding
        self.frames: list[dict] = []  # every message received, decoded, in order
        self.inbox: list[dict] = []  # received and not yet taken by wait_for/request
        self._ids = 0
        self.player = self.token = None
        self.last_game: dict | None = None  # the last game message or snapshot with a prompt
        self.closed = False
        self.strict = True
        self.sent_acts: dict[int, dict] = {}  # request id -> action, from play()
        self.tviews: dict[str, dict] = {}  # tournament id -> its view, kept up to date by the deltas

    @classmethod
    async def open(cls, url: str, encoding: str = "msgpack", **kw) -> Client:
        ws = await connect(url, compression=None, **kw)
        return cls(ws, encoding)

    async def close(self) -> None:
        await self.ws.close()

    def encode(self, msg):
        if self.encoding == "json":
            return json.dumps(msg)
        return msgpack.packb(msg)

    async def send(self, msg: dict) -> None:
        await self.ws.send(self.encode(msg))

    async def send_raw(self, data) -> None:
        await self.ws.send(data)

    async def _recv(self, timeout: float) -> dict:
        data = await asyncio.wait_for(self.ws.recv(), timeout)
        if self.strict:  # everything comes back in the encoding this client speaks
            assert isinstance(data, str if self.encoding == "json" else bytes), data
        msg = json.loads(data) if isinstance(data, str) else msgpack.unpackb(data, strict_map_key=False)
        self.frames.append(msg)
        self._track_tournament(msg)
        return msg

    def _track_tournament(self, msg: dict) -> None:
        if msg.get("t") == "tournament" and isinstance(msg.get("tournament"), dict):
            self.tviews[msg["tournament"]["id"]] = msg["tournament"]
        elif msg.get("t") == "tournament_delta" and msg["tournament"] in self.tviews:
            v = apply(self.tviews[msg["tournament"]], msg)
            assert v is not None, ("a delta that does not follow the view", msg)
            self.tviews[msg["tournament"]] = v

    async def wait_for(self, pred, timeout: float = 10.0) -> dict:
        for i, m in enumerate(self.inbox):
            if pred(m):
                del self.inbox[i]
                return m
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            left = end - loop.time()
            if left <= 0:
                raise TimeoutError(f"no matching message; last: {self.inbox[-3:]}")
            m = await self._recv(left)
            if pred(m):
                return m
            self.inbox.append(m)

    async def request(self, msg: dict, timeout: float = 10.0) -> dict:
        """Send with an id; the reply (or error) that echoes it."""
        self._ids += 1
        rid = self._ids
        await self.send({**msg, "id": rid})
        return await self.wait_for(lambda m: m.get("re") == rid, timeout)

    async def drain(self, timeout: float = 0.05) -> list[dict]:
        out = []
        try:
            while True:
                out.append(await self._recv(timeout))
        except (TimeoutError, asyncio.TimeoutError):
            pass
        self.inbox += out
        return out

    async def guest(self, name: str) -> dict:
        r = await self.request({"t": "guest", "name": name})
        assert r["t"] == "welcome", r
        self.player, self.token = r["player"], r["token"]
        return r


def prompt(m: dict) -> tuple[list, int] | None:
    """(legal actions, seq) of a game message or snapshot that asks this player to act."""
    if m.get("t") == "game" and m.get("legal"):
        return m["legal"], m["seq"]
    if m.get("t") == "snapshot" and m.get("game") and m["game"].get("legal"):
        g = m["game"]
        return g["legal"], g["match"]["seq"]
    return None


def choose(legal: list, rng: random.Random) -> dict:
    for a in legal:
        if a["a"] == "win":
            return a
    return legal[rng.randrange(len(legal))]


async def play(c: Client, rng: random.Random, until, timeout: float = 60.0, on_msg=None) -> dict:
    """Answer every prompt with a random legal action until ``until(msg)``; returns that message."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    pending = list(c.inbox)
    c.inbox.clear()
    while True:
        if pending:
            m = pending.pop(0)
        else:
            left = end - loop.time()
            if left <= 0:
                raise TimeoutError(f"{c.player}: game did not reach the goal")
            try:
                m = await c._recv(left)
            except ConnectionClosed:
                raise
        if on_msg is not None:
            on_msg(m)
        if until(m):
            return m
        if m.get("t") == "error":
            c.sent_acts.pop(m.get("re"), None)
            # A prompt overtaken by the table (another seat's claim) is answered stale: harmless.
            assert m["code"] in ("action/stale", "action/not_your_turn"), m
            continue
        p = prompt(m)
        if p is not None:
            legal, seq = p
            c._ids += 1
            action = {**choose(legal, rng), "seq": seq}
            c.sent_acts[c._ids] = action
            await c.send({"t": "act", "action": action, "id": c._ids})
