"""GET /api/health and GET /metrics: what they report moves with what the server did (actions and
their latency, commits, HTTP answers, event-loop lag, cut-off connections, storage pauses), and each
App has its own numbers."""

import asyncio
import json
import random
import socket
import sqlite3
import time
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.app import App
from server.store import Store
from tests.server.client import Client, choose, prompt
from tests.server.conftest import FAST, fast_settings, start, stop


def fetch(url: str, headers: dict | None = None):
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=5) as r:
            return r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read()


async def scrape(server) -> dict:
    """Sample name (with its labels) -> value, from GET /metrics."""
    status, ctype, body = await asyncio.to_thread(fetch, f"http://127.0.0.1:{server.port}/metrics")
    assert status == 200 and ctype.startswith("text/plain"), (status, ctype)
    out = {}
    for family in text_string_to_metric_families(body.decode()):
        for s in family.samples:
            key = s.name + "".join(f"{{{k}={v}}}" for k, v in sorted(s.labels.items()))
            out[key] = s.value
    return out


async def health(server) -> tuple[int, dict]:
    status, ctype, body = await asyncio.to_thread(fetch, f"http://127.0.0.1:{server.port}/api/health")
    assert ctype.startswith("application/json")
    return status, json.loads(body)


async def solo_table(server, name: str):
    """One player and three bots in a private room, the match started."""
    c = await server.client(name=name)
    snap = await c.request({"t": "create", "config": {**FAST, "type": "wufan"}})
    for _ in range(3):
        assert (await c.request({"t": "add_bot", "level": "random"}))["t"] == "ok"
    assert (await c.request({"t": "ready"}))["t"] == "ok"
    return c, server.app.rooms[snap["room"]]


async def act_times(c: Client, rng: random.Random, n: int) -> tuple[int, int, float]:
    """Answer ``n`` prompts (bots play the other seats; nobody else sends ``act``); returns the actions
    answered ok, those refused, and the sum of their round trips as the client saw them."""
    ok = refused = 0
    rtt = 0.0
    loop = asyncio.get_running_loop()
    while ok + refused < n:
        m = await c.wait_for(lambda x: prompt(x) is not None, timeout=10)
        legal, seq = prompt(m)
        t0 = loop.time()
        r = await c.request({"t": "act", "action": {**choose(legal, rng), "seq": seq}})
        if r["t"] == "ok":
            ok += 1
            rtt += loop.time() - t0
        else:  # the table moved on before it came (a stale prompt): refused, changes nothing
            assert r["code"] in ("action/stale", "action/not_your_turn"), r
            refused += 1
    return ok, refused, rtt


@pytest.fixture
async def on_each_backend(db_url):
    """A server on SQLite, and on PostgreSQL (the commit metrics come from each backend's group commit)."""
    running = await start(db_url)
    yield running
    await stop(running)


async def test_metrics_count_actions_and_time_them_to_the_last_seat(on_each_backend):
    server = on_each_backend
    c, task = await solo_table(server, "Counted")
    before = await scrape(server)
    ok, refused, rtt = await act_times(c, random.Random(4), 12)
    bad = await c.request({"t": "act", "action": {"a": "discard", "tile": 0, "seq": 10**6}})
    assert bad["t"] == "error"
    refused += 1
    await asyncio.sleep(0.05)  # the last commits' callbacks
    after = await scrape(server)

    def delta(key):
        return after[key] - before.get(key, 0.0)

    assert delta("guobiao_actions_total{result=ok}") == ok > 0
    assert delta("guobiao_actions_total{result=refused}") == refused
    assert delta("guobiao_action_latency_seconds_count") == ok  # accepted actions only
    assert delta("guobiao_action_latency_seconds_bucket{le=+Inf}") == ok
    # Timed on the server from the frame read to the last write: within what the client waited.
    assert 0 < delta("guobiao_action_latency_seconds_sum") <= rtt
    # Each accepted action was written to the log before it was answered, in a group commit.
    assert delta("guobiao_commit_writes_total") >= ok
    assert 1 <= delta("guobiao_commit_seconds_count") <= delta("guobiao_commit_writes_total")
    assert delta("guobiao_commit_seconds_sum") > 0
    assert after["guobiao_rooms"] == 1 and after["guobiao_players"] == 1 and after["guobiao_connections"] == 1


async def test_metrics_count_http_answers_by_class(server):
    base = f"http://127.0.0.1:{server.port}"
    before = await scrape(server)
    assert (await asyncio.to_thread(fetch, base + "/api/health"))[0] == 200
    assert (await asyncio.to_thread(fetch, base + "/api/nothing"))[0] == 404
    assert (await asyncio.to_thread(fetch, base + "/nothing/here"))[0] == 404
    await server.client(name="Shake")
    after = await scrape(server)
    # The first scrape's own 200 is counted once it was answered: it shows in the second.
    assert after["guobiao_http_requests_total{code=2xx}"] - before["guobiao_http_requests_total{code=2xx}"] == 2
    assert after["guobiao_http_requests_total{code=4xx}"] - before["guobiao_http_requests_total{code=4xx}"] == 2
    assert after["guobiao_http_requests_total{code=5xx}"] == 0
    assert after["guobiao_websocket_handshakes_total"] - before["guobiao_websocket_handshakes_total"] == 1
    assert after["process_resident_memory_bytes"] > 0  # the process collector of the App's registry


async def test_metrics_speak_openmetrics_when_asked(server):
    status, ctype, body = await asyncio.to_thread(
        fetch, f"http://127.0.0.1:{server.port}/metrics", {"Accept": "application/openmetrics-text; version=1.0.0"})
    assert status == 200 and ctype.startswith("application/openmetrics-text")
    assert body.rstrip().endswith(b"# EOF")


async def test_event_loop_lag_is_measured(server):
    """A loop blocked for 1 s: a lag sample (one due every 0.5 s) comes at least 0.5 s late."""
    await asyncio.sleep(0.6)  # the sampler is waiting on its timer, due within 0.5 s from now
    time.sleep(1.0)  # the server runs in this loop: it is blocked too
    await asyncio.sleep(0.1)
    status, h = await health(server)
    assert status == 200 and h["loop_lag_ms"]["max_1m"] >= 400
    m = await scrape(server)
    assert m["guobiao_event_loop_lag_seconds_count"] - m["guobiao_event_loop_lag_seconds_bucket{le=0.25}"] >= 1
    assert m["guobiao_event_loop_lag_seconds_sum"] >= 0.4


async def test_health_reports_rooms_connections_and_a_paused_storage(server, caplog):
    status, h = await health(server)
    assert status == 200 and h["ok"] is True and h["storage"] == {"state": "ok", "reason": None}
    assert (h["rooms"], h["tournaments"], h["connections"], h["players"]) == (0, 0, 0, 0)
    assert h["version"] and h["uptime"] > 0
    c, task = await solo_table(server, "Healthy")
    watcher = await server.client()  # connected, not signed in
    status, h = await health(server)
    assert (h["rooms"], h["connections"], h["players"]) == (1, 2, 1)
    # The disk fills up: the next commit fails, writes are held back, play pauses.
    store = server.app.store
    store.RETRY_FIRST = store._retry_in = 0.2
    real = store._write_batch_sync
    full = [True]

    def full_disk(batch):
        if full[0]:
            raise sqlite3.OperationalError("database or disk is full")
        return real(batch)

    store._write_batch_sync = full_disk
    m = await c.wait_for(lambda x: prompt(x) is not None, timeout=10)
    legal, seq = prompt(m)
    await c.send({"t": "act", "action": {**legal[0], "seq": seq}})
    await c.wait_for(lambda x: x.get("code") == "server/storage", timeout=5)
    status, h = await health(server)
    assert status == 503 and h["ok"] is False and h["storage"]["state"] == "paused"
    assert "disk is full" in h["storage"]["reason"] and h["rooms"] == 1
    assert (await scrape(server))["guobiao_storage_paused"] == 1
    full[0] = False  # room on the disk again: play goes on
    await c.wait_for(lambda x: x.get("t") == "snapshot" and "re" not in x, timeout=5)
    status, h = await health(server)
    assert status == 200 and h["storage"] == {"state": "ok", "reason": None}
    assert (await scrape(server))["guobiao_storage_paused"] == 0
    await watcher.close()
    assert "writes held back" in caplog.text
    caplog.clear()


async def test_a_client_cut_off_for_a_full_queue_is_counted(tmp_path):
    """A client that stops reading (a small receive window) while asking for snapshots: its messages
    queue up past ``out_queue`` and it is cut off; the overflow and the messages dropped are counted."""
    server = await start(str(tmp_path / "g.db"), out_queue=2, write_limit=1024)
    try:
        c, task = await solo_table(server, "Slow")
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        sock.connect(("127.0.0.1", server.port))
        ws = await connect(f"ws://127.0.0.1:{server.port}/ws", sock=sock, compression=None, max_queue=1)
        slow = Client(ws)
        server.clients.append(slow)
        assert (await slow.request({"t": "resume", "token": c.token}))["t"] == "welcome"
        before = await scrape(server)
        for _ in range(400):  # each asks for a snapshot (or an ok, while one is queued) it never reads
            try:
                await slow.send({"t": "snapshot"})
            except ConnectionClosed:
                break
            await asyncio.sleep(0.005)
        for _ in range(100):
            after = await scrape(server)
            if after["guobiao_outgoing_overflows_total"] > before["guobiao_outgoing_overflows_total"]:
                break
            await asyncio.sleep(0.05)
        assert after["guobiao_outgoing_overflows_total"] - before["guobiao_outgoing_overflows_total"] == 1
        # The queue held out_queue messages and one more did not fit: all dropped with the connection.
        assert after["guobiao_outgoing_dropped_total"] - before["guobiao_outgoing_dropped_total"] == 3
    finally:
        await stop(server)


async def test_each_app_has_its_own_metrics(tmp_path):
    """Two servers in one process: what one does does not show in the other's /metrics."""
    a = await start(str(tmp_path / "a.db"))
    b = await start(str(tmp_path / "b.db"))
    try:
        c, _ = await solo_table(a, "OnlyA")
        ok, _, _ = await act_times(c, random.Random(2), 3)
        ma, mb = await scrape(a), await scrape(b)
        assert ma["guobiao_actions_total{result=ok}"] == ok > 0
        assert mb["guobiao_actions_total{result=ok}"] == 0 and mb["guobiao_rooms"] == 0
    finally:
        await stop(a)
        await stop(b)


async def test_metrics_off_answers_404_and_health_stays(tmp_path):
    store = await Store.open(tmp_path / "g.db")
    settings = fast_settings()
    settings.metrics = False
    app = App(store, settings)
    port = await app.start("127.0.0.1", 0)
    try:
        status, _, _ = await asyncio.to_thread(fetch, f"http://127.0.0.1:{port}/metrics")
        assert status == 404
        status, _, body = await asyncio.to_thread(fetch, f"http://127.0.0.1:{port}/api/health")
        assert status == 200 and json.loads(body)["ok"] is True
    finally:
        await app.stop()


def test_serve_metrics_off_flag(tmp_path):
    """``guobiao serve --metrics off``: no /metrics (404); /api/health still answers."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    argv = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", str(tmp_path / "g.db"),
            "--log-level", "WARNING", "--metrics", "off"]
    proc = subprocess.Popen(argv, cwd=Path(__file__).resolve().parents[2], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = proc.stdout.readline()
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        assert fetch(f"http://127.0.0.1:{port}/metrics")[0] == 404
        assert fetch(f"http://127.0.0.1:{port}/api/health")[0] == 200
    finally:
        proc.terminate()
        proc.wait(20)
        proc.stdout.close()


async def test_health_fields_and_metrics_are_the_documented_ones(server):
    """docs/protocol.md "HTTP API" names every /api/health field and every guobiao_ metric, no more."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    start = text.index("\n## HTTP API\n")
    section = text[start:text.index("\n## ", start + 1)]
    health_table, metrics_table = section.split("`GET /metrics`")
    documented = {name for line in health_table.splitlines() if line.startswith("| `")
                  for name in re.findall(r"`(\w+)`", line.split("|")[1])}
    _, body = await health(server)
    assert documented == set(body)
    documented = {re.sub(r"_total$", "", n) for n in re.findall(r"`(guobiao_\w+)", metrics_table)}
    assert documented == {f.name for f in server.app.metrics.collect()}


async def test_metrics_time_every_garbage_collection_by_generation(server):
    """The server's collector tells of every collection (the event loop stands still meanwhile), so a
    pause that makes the latency tail shows in guobiao_gc_pause_seconds, by generation."""
    import gc
    before = await scrape(server)
    gc.collect(1)
    gc.collect()  # the frozen objects stay out of it: a full collection of the rest
    after = await scrape(server)

    def delta(key):
        return after[key] - before.get(key, 0.0)

    assert delta("guobiao_gc_pause_seconds_count{generation=1}") >= 1
    assert delta("guobiao_gc_pause_seconds_count{generation=2}") >= 1
    assert delta("guobiao_gc_pause_seconds_bucket{generation=2}{le=+Inf}") >= 1
    assert delta("guobiao_gc_pause_seconds_sum{generation=2}") > 0
