"""``matches``: a player's own finished matches for the lobby's list, newest first, each with its replay,
also when their public profile hides the history."""

from __future__ import annotations


async def finish_quick(c, hands: int = 4) -> int:
    assert (await c.request({"t": "quick", "type": "wufan", "hands": hands, "wait": 0}))["t"] == "queued"
    await c.wait_for(lambda m: m.get("t") == "snapshot")
    assert (await c.request({"t": "auto", "on": True}))["t"] == "ok"
    reveal = await c.wait_for(lambda m: m.get("t") == "reveal", timeout=120)
    assert (await c.request({"t": "leave"}))["t"] == "ok"
    return reveal["id"]


async def test_my_recent_matches_list_each_with_its_replay_even_when_hidden(server):
    c = await server.client(name="Mia")
    r = await c.request({"t": "matches"})
    assert (r["t"], r["total"], r["items"]) == ("matches", 0, [])
    first = await finish_quick(c)
    second = await finish_quick(c)
    await server.app.ratings.settle()
    r = await c.request({"t": "matches"})
    assert r["total"] == 2 and [m["id"] for m in r["items"]] == [second, first]  # newest first
    m = r["items"][0]
    assert (m["type"], m["hands"], m["bots"], m["others"]) == ("wufan", 4, 3, [])
    assert m["replay"] == f"/api/matches/{second}" and 1 <= m["place"] <= 4
    # Hidden from others, still listed for the player.
    assert (await c.request({"t": "privacy", "hide_history": True}))["t"] == "account"
    status, profile = await server.app.api(f"/api/players/{c.player}")
    assert status == 200 and "matches" not in profile
    assert [m["id"] for m in (await c.request({"t": "matches"}))["items"]] == [second, first]
    assert (await c.request({"t": "matches", "page": 1}))["items"] == []
    # Another player sees only their own.
    d = await server.client(name="Dee")
    assert (await d.request({"t": "matches"}))["total"] == 0


async def test_my_matches_name_the_other_humans(server):
    a, b = await server.client(name="Ann"), await server.client(name="Bob")
    snap = await a.request({"t": "create", "config": {"hands": 4, "claim_min": 0, "bot_delay": 0}})
    assert (await b.request({"t": "join", "code": snap["info"]["invite"]}))["t"] == "ok"
    for _ in range(2):
        assert (await a.request({"t": "add_bot"}))["t"] == "ok"
    for c in (a, b):
        assert (await c.request({"t": "ready"}))["t"] == "ok"
    for c in (a, b):
        await c.wait_for(lambda m: m.get("t") == "room" and m["info"]["phase"] == "playing")
        assert (await c.request({"t": "auto", "on": True}))["t"] == "ok"
    reveal = await a.wait_for(lambda m: m.get("t") == "reveal", timeout=120)
    await server.app.ratings.settle()
    (mine,) = (await a.request({"t": "matches"}))["items"]
    assert mine["id"] == reveal["id"] and mine["others"] == ["Bob"] and mine["bots"] == 2
    assert (await b.request({"t": "matches"}))["items"][0]["others"] == ["Ann"]


async def test_my_matches_page_must_be_a_small_number(server):
    c = await server.client(name="Pag")
    for page in (-1, 10_001):
        r = await c.request({"t": "matches", "page": page})
        assert r["t"] == "error" and r["code"] == "protocol/bad_field", r
    r = await c.request({"t": "matches", "page": "1"})
    assert r["code"] == "protocol/bad_field"
