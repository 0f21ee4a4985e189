"""Replay files: a cache bounded by measured size, a rate per address, built off the event loop."""

from __future__ import annotations

import asyncio
import threading
import urllib.error
import urllib.request

import orjson

from server import replays
from server.quotas import Quotas
from server.replays import SizedCache
from tests.server.conftest import stop
from tests.server.test_quotas import start_with
from tests.server.test_snapshot_limits import bots_room


def test_replay_cache_is_bounded_by_size():
    c = SizedCache(max_bytes=1000, max_entries=10)
    for k in range(5):
        c.put(k, {"k": k}, 300)
    assert len(c) == 3 and c.bytes == 900 and c.get(0) is None and c.get(2) == {"k": 2}
    c.put(5, {"k": 5}, 300)  # 3 was the least recently used (2 was just read)
    assert c.get(3) is None and c.get(2) is not None and c.bytes <= 1000
    c.put(6, {"big": 1}, 5000)  # alone over the bound: served, not kept
    assert c.get(6) is None and c.bytes <= 1000
    c = SizedCache(max_bytes=10**9, max_entries=2)
    for k in range(4):
        c.put(k, k, 1)
    assert len(c) == 2 and c.bytes == 2


async def finished_matches(s, n: int) -> list[int]:
    c, _ = await bots_room(s, "Host")
    ids = []
    for k in range(n):
        assert (await c.request({"t": "rematch" if k else "start"}))["t"] == "ok"
        reveal = await c.wait_for(lambda m: m.get("t") == "reveal", timeout=120)
        ids.append(reveal["id"])
        await c.wait_for(lambda m: m.get("t") == "room" and m["info"]["phase"] == "lobby", timeout=30)
    return ids


async def test_replays_are_rate_limited_per_address_and_cached_by_measured_size(tmp_path, monkeypatch):
    s = await start_with(str(tmp_path / "r.db"), Quotas(timer_minimums={}, rematches=(1e3, 1e3), replays=(0.001, 2)),
                         exempt_loopback=False)
    try:
        ids = await finished_matches(s, 3)
        threads = []
        build = replays._replay_file
        monkeypatch.setattr(replays, "_replay_file", lambda m: (threads.append(threading.current_thread()), build(m))[1])
        a, b = "203.0.113.7", "198.51.100.1"
        assert (await s.app.api(f"/api/matches/{ids[0]}", a))[0] == 200
        assert (await s.app.api(f"/api/matches/{ids[1]}", a))[0] == 200
        assert await s.app.api(f"/api/matches/{ids[2]}", a) == (429, {"error": "too_many_requests"})
        assert (await s.app.api(f"/api/matches/{ids[0]}", a))[0] == 200  # cached: always served
        assert (await s.app.api(f"/api/matches/{ids[2]}", b))[0] == 200  # another address
        assert threads and all(t is not threading.main_thread() for t in threads)  # off the loop
        cache = s.app.replays
        assert len(cache) == 3 and cache.bytes == sum(len(orjson.dumps(cache.get(i))) for i in ids)
        # Over HTTP the address is the client's (loopback is not exempt here): two built, then 429.
        s.app.replays.clear()
        url = f"http://127.0.0.1:{s.port}/api/matches/"

        def get(i):
            try:
                with urllib.request.urlopen(url + str(i), timeout=30) as r:
                    return r.status
            except urllib.error.HTTPError as e:
                return e.code

        assert [await asyncio.to_thread(get, i) for i in ids] == [200, 200, 429]
    finally:
        await stop(s)
