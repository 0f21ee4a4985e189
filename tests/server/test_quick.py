"""Quick match with bots, a whole match, the served match file and its replay."""

import asyncio
import json
import random
import urllib.request

from server import cli
from tests.server.client import play


def fetch(url: str):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read()


async def test_quick_match_with_bots_whole_match_and_replay(server, tmp_path, capsys):
    c = await server.client("json", name="Solo")
    r = await c.request({"t": "quick", "type": "guobiao", "wait": 0})
    assert r["t"] == "queued", r
    snap = await c.wait_for(lambda m: m.get("t") == "snapshot")
    assert snap["info"]["phase"] == "playing"
    assert sum(s["bot"] is not None for s in snap["info"]["seats"]) == 3
    commitment = next(m for m in c.frames if m.get("t") == "commitment")["commitment"]
    c.inbox.insert(0, snap)  # it may hold the first prompt
    end = await play(c, random.Random(3), lambda m: m.get("t") == "match_result", timeout=60)
    assert len(end["record"]["hands"]) == 4
    reveal = await c.wait_for(lambda m: m.get("t") == "reveal")
    assert reveal["commitment"] == commitment

    # The match file: only once finished; unknown ids are 404.
    url = f"http://127.0.0.1:{server.port}/api/matches/{reveal['id']}"
    status, ctype, body = await asyncio.to_thread(fetch, url)
    assert status == 200 and ctype.startswith("application/json")
    rec = json.loads(body)
    assert rec["commitment"] == commitment and rec["seed"] == reveal["seed"] and rec["salt"] == reveal["salt"]
    assert rec["scores"] == end["record"]["scores"]
    assert "secret" not in body.decode()
    # Seeds beyond 2^53 travel as strings (JavaScript reads larger numbers inexactly).
    for seed in (rec["seed"], reveal["seed"], end["record"]["seed"]):
        assert type(seed) is (str if int(seed) > 2**53 - 1 else int) and int(seed) == int(rec["seed"])
    # Every hand carries the events its replay shows, computed on the server from the log.
    for i, h in enumerate(rec["hands"]):
        ev = h["events"]
        assert ev[0]["t"] == "hand_start" and ev[0]["hand"] == i and all(e["hand"] == i for e in ev)
        assert not {"response", "claim_window", "ready"} & {e["t"] for e in ev}
        assert sorted(e["seat"] for e in ev if e["t"] == "deal" and "tiles" in e) == [0, 1, 2, 3]
        (end_event,) = [e for e in ev if e["t"] == "hand_end"]
        assert [len(x) for x in end_event["hands"]] and len(end_event["hands"]) == 4  # every hand shown
        assert end_event["payments"] == [h["payments"][p] for p in h["seats"]]
    assert rec["hands"][-1]["events"][-1] == {"t": "match_end", "scores": rec["scores"], "hand": 3}
    assert json.loads((await asyncio.to_thread(fetch, url))[2]) == rec  # cached, the same
    status, _, _ = await asyncio.to_thread(fetch, f"http://127.0.0.1:{server.port}/api/matches/999")
    assert status == 404

    f = tmp_path / "match.json"
    f.write_text(json.dumps(rec))
    capsys.readouterr()
    assert cli.main(["replay", str(f), "--walls"]) == 0
    out = capsys.readouterr().out
    assert "commitment" in out and "ok" in out and out.count("wall ") == 4

    # A salt that does not match the commitment is caught; so is a changed result.
    f.write_text(json.dumps({**rec, "salt": "0" * 32}))
    assert cli.main(["replay", str(f)]) == 1
    f.write_text(json.dumps({**rec, "scores": [s + 1 for s in rec["scores"]]}))
    assert cli.main(["replay", str(f)]) == 1
    capsys.readouterr()


async def test_unfinished_match_is_not_served(server):
    c = await server.client(name="Early")
    await c.request({"t": "quick", "wait": 0})
    await c.wait_for(lambda m: m.get("t") == "snapshot")
    status, _, _ = await asyncio.to_thread(fetch, f"http://127.0.0.1:{server.port}/api/matches/1")
    assert status == 404  # the seed stays secret while the match is played


async def test_http_pages(server):
    status, ctype, body = await asyncio.to_thread(fetch, f"http://127.0.0.1:{server.port}/")
    assert status == 200 and ctype.startswith("text/html") and b"<html" in body  # the client or the placeholder
    status, _, body = await asyncio.to_thread(fetch, f"http://127.0.0.1:{server.port}/api/health")
    assert status == 200 and json.loads(body)["ok"] is True
    status, _, _ = await asyncio.to_thread(fetch, f"http://127.0.0.1:{server.port}/../../etc/passwd")
    assert status == 404
