"""The wait hint over the wire: to its own seat only, right for a scripted hand, and switchable."""

import pytest

from tests.support.scripted import T, deal_scripted
from tests.server.conftest import FAST


@pytest.fixture
def scripted(monkeypatch):
    deal_scripted(monkeypatch)


def hints(c) -> list:
    out = []
    for m in c.frames:
        if m.get("t") == "game" and "hint" in m:
            out.append(m["hint"])
        elif m.get("t") == "snapshot" and m.get("game") and "hint" in m["game"]:
            out.append(m["game"]["hint"])
    return out


async def test_the_hint_goes_to_its_seat_only_and_is_right(server, scripted):
    a = await server.client("json", name="A")  # JSON: the discards' keys are strings on the wire
    b = await server.client("msgpack", name="B")
    spec = await server.client("msgpack", name="Spec")
    snap = await a.request({"t": "create", "config": {**FAST, "bot_delay": 5}})
    code = snap["info"]["invite"]
    assert snap["you"]["hints"] is True  # on unless the player turns it off
    assert (await b.request({"t": "join", "code": code}))["t"] == "ok"
    assert (await spec.request({"t": "watch", "code": code}))["t"] == "ok"
    for _ in range(2):
        assert (await a.request({"t": "add_bot", "level": "random"}))["t"] == "ok"
    assert (await b.request({"t": "hint", "on": False}))["t"] == "ok"
    for c in (a, b):
        assert (await c.request({"t": "ready"}))["t"] == "ok"
    first = await a.wait_for(lambda m: m.get("t") == "game" and m.get("legal"))
    h = first["hint"]
    assert set(h["discards"]) == {str(T("N")), str(T("1s"))}
    waits = {w["tile"]: w for w in h["discards"][str(T("N"))]}
    assert set(waits) == {T("1s"), T("4s")}
    one = waits[T("1s")]
    assert one["total"] == 22 and one["total_without_flowers"] == 22 and one["meets_min"] is True
    assert [f for f in one["fans"] if f[0] == 28] == [[28, "清龙", "Pure Straight", 16, 1]]

    r = await a.request({"t": "act", "action": {"a": "discard", "tile": T("N"), "seq": first["seq"]}})
    assert r["t"] == "ok", r
    after = hints(a)[-1]
    assert {w["tile"] for w in after["waits"]} == {T("1s"), T("4s")}
    assert {w["tile"]: w["total"] for w in after["waits"]} == {T("1s"): 22, T("4s"): 21}

    await spec.drain()
    await b.drain()
    assert hints(spec) == []  # never to a spectator
    assert hints(b) == []  # B turned it off
    assert (await b.request({"t": "hint", "on": True}))["t"] == "ok"
    await b.drain()
    assert hints(b) == [{"waits": []}]  # B's own 13 tiles, not ready: at once when turned on
    assert all("hint" not in m for m in spec.frames)
