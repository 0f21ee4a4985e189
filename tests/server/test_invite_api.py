"""GET /api/invite/<code>: the room an invite link opens (type, length, host, seats taken) before the
visitor signs in; strict code parsing, nothing hidden, a rate per address."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

from server.quotas import Quotas
from tests.server.conftest import stop
from tests.server.test_quotas import start_with


def get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


async def test_invite_endpoint_shows_room_type_host_and_seats_taken(server):
    host = await server.client(name="Hostess")
    snap = await host.request({"t": "create", "config": {"type": "dazhong", "hands": 8, "private": True}})
    code = snap["info"]["invite"]
    base = f"http://127.0.0.1:{server.port}/api/invite/"
    status, view = await asyncio.to_thread(get, base + code)
    assert status == 200, view
    assert view == {"code": f"{code[:4]}-{code[4:]}", "type": "dazhong", "hands": 8, "host": "Hostess",
                    "phase": "lobby", "seated": 1, "seats": 4, "spectators": True, "quick": False, "table": False}
    assert host.player not in json.dumps(view)  # names only: no player ids, no room id
    assert snap["room"] not in json.dumps(view)
    guest = await server.client(name="Guest")
    assert (await guest.request({"t": "join", "code": code}))["t"] == "ok"
    # Written as people copy it: lower case, a dash between the halves.
    status, view = await asyncio.to_thread(get, base + f"{code[:4]}-{code[4:]}".lower())
    assert status == 200 and view["seated"] == 2
    assert (await host.request({"t": "leave"}))["t"] == "ok"
    assert (await guest.request({"t": "leave"}))["t"] == "ok"
    for _ in range(100):  # the empty room closes
        if (await asyncio.to_thread(get, base + code))[0] == 404:
            break
        await asyncio.sleep(0.05)
    assert (await asyncio.to_thread(get, base + code)) == (404, {"error": "not_found"})


async def test_invite_endpoint_parses_codes_strictly(server):
    host = await server.client(name="Strict")
    code = (await host.request({"t": "create", "config": {"hands": 4}}))["info"]["invite"]
    assert (await server.app.api(f"/api/invite/{code}"))[0] == 200
    bad = [code[:7], code + "2", code[:4] + "--" + code[4:], code[:3] + "-" + code[3:], code[:4] + "." + code[4:],
           code[:4] + " " + code[4:], code[:7] + "0", code[:7] + "ß", "ABCDEFGß", "ﬀ" + code[2:],
           code[:4] + "％" + code[4:], ""]
    for text in bad:
        assert await server.app.api(f"/api/invite/{text}") == (404, {"error": "not_found"}), text


async def test_invite_lookups_are_rate_limited_per_address(tmp_path):
    s = await start_with(str(tmp_path / "i.db"), Quotas(timer_minimums={}, invites=(0.001, 3)),
                         exempt_loopback=False)
    try:
        host = await s.client(name="Rated")
        code = (await host.request({"t": "create", "config": {"hands": 4}}))["info"]["invite"]
        a, b = "203.0.113.7", "198.51.100.1"
        assert (await s.app.api("/api/invite/ZZZZZZZZ", a))[0] == 404  # a miss counts too: guessing is slow
        assert (await s.app.api(f"/api/invite/{code}", a))[0] == 200
        assert (await s.app.api(f"/api/invite/{code}", a))[0] == 200
        assert await s.app.api(f"/api/invite/{code}", a) == (429, {"error": "too_many_requests"})
        assert (await s.app.api(f"/api/invite/{code}", b))[0] == 200  # another address
    finally:
        await stop(s)
