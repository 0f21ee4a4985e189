"""Quotas per account and address, and listings that junk cannot hide honest entries in."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from server import listing
from server.quotas import Quotas
from tests.server.conftest import stop
from tests.server.test_quotas import start_with


async def test_quotas_per_account_and_address_for_accounts_rooms_and_tournaments(tmp_path):
    q = Quotas(timer_minimums={}, accounts=(0.001, 4), rooms_per_account=1, rooms_per_address=3,
               tournaments_per_address=1)
    s = await start_with(str(tmp_path / "q.db"), q, exempt_loopback=False)  # every client: 127.0.0.1
    try:
        a, b, c, d = [await s.client(name=n) for n in "ABCD"]
        e = await s.client()
        assert (await e.request({"t": "guest", "name": "E"}))["code"] == "auth/too_many_accounts"
        r1 = await a.request({"t": "create", "config": {"hands": 4}})
        assert (await b.request({"t": "join", "code": r1["info"]["invite"]}))["t"] == "ok"
        assert (await a.request({"t": "leave"}))["t"] == "ok"  # r1 stays open (B is in it), A's still
        assert (await a.request({"t": "create", "config": {"hands": 4}}))["code"] == "lobby/too_many_rooms"
        assert (await c.request({"t": "create", "config": {"hands": 4}}))["t"] == "snapshot"
        assert (await d.request({"t": "create", "config": {"hands": 4}}))["t"] == "snapshot"
        assert (await b.request({"t": "leave"}))["t"] == "ok"  # r1 closes: A and the address get it back
        for _ in range(1000):
            if r1["room"] not in s.app.rooms:
                break
            await asyncio.sleep(0.01)
        assert (await a.request({"t": "create", "config": {"hands": 4}}))["t"] == "snapshot"
        r = await b.request({"t": "create", "config": {"hands": 4}})  # three open from the address
        assert r["code"] == "lobby/too_many_rooms"
        cfg = {"name": "Cup", "hands": 2, "starts": [int(s.app.now()) + 3600]}
        assert (await b.request({"t": "tournament_create", "config": cfg}))["t"] == "tournament"
        r = await d.request({"t": "tournament_create", "config": {**cfg, "name": "Cup 2"}})
        assert r["code"] == "lobby/too_many_tournaments"
        assert (await e.request({"t": "resume", "token": a.token}))["t"] == "welcome"  # tokens still work
    finally:
        await stop(s)


async def test_listings_rank_honest_live_rooms_first_with_paging_and_search(tmp_path, monkeypatch):
    monkeypatch.setattr(listing, "PAGE", 4)
    s = await start_with(str(tmp_path / "l.db"), Quotas(timer_minimums={}))
    try:
        junk = []
        for i in range(6):
            j = await s.client(name=f"Junk{i}")
            junk.append((await j.request({"t": "create", "config": {"hands": 4, "private": False}}))["room"])
        ghost = await s.client(name="Ghost")  # a room with nobody seated (its host watches)
        g = await ghost.request({"t": "create", "config": {"hands": 4, "private": False}})
        assert (await ghost.request({"t": "watch", "room": g["room"]}))["t"] == "ok"
        gone = [await s.client(name=f"Gone{i}") for i in range(2)]  # two humans seated, both went away
        away = await gone[0].request({"t": "create", "config": {"hands": 4, "private": False}})
        assert (await gone[1].request({"t": "join", "room": away["room"]}))["t"] == "ok"
        for c in gone:
            await c.close()
        while any(c.player in s.app.conns for c in gone):
            await asyncio.sleep(0.01)
        host, friend = await s.client(name="Honest"), await s.client(name="Friendly")
        h = await host.request({"t": "create", "config": {"hands": 4, "private": False}})
        assert (await friend.request({"t": "join", "room": h["room"]}))["t"] == "ok"
        r = await friend.request({"t": "rooms"})
        assert (r["page"], r["pages"], r["total"]) == (0, 3, 9)
        assert r["rooms"][0]["room"] == h["room"]  # created last, listed first: two humans seated
        r1 = await friend.request({"t": "rooms", "page": 1})
        r2 = await friend.request({"t": "rooms", "page": 2})
        assert [x["room"] for x in r1["rooms"][-1:] + r2["rooms"]] == [away["room"], g["room"]]  # not live: last
        assert {x["room"] for x in r["rooms"] + r1["rooms"]} == {*junk, away["room"], h["room"]}
        assert (await friend.request({"t": "rooms", "page": 3}))["rooms"] == []
        for q in ("friendly", h["room"], h["info"]["invite"].lower()[:4] + "-" + h["info"]["invite"][4:]):
            found = await friend.request({"t": "rooms", "q": q})
            assert [x["room"] for x in found["rooms"]] == [h["room"]], q
        assert (await friend.request({"t": "rooms", "q": "nobody"}))["rooms"] == []
        assert (await friend.request({"t": "rooms", "page": -1}))["code"] == "protocol/bad_field"
        status, body = await s.app.api("/api/rooms")
        assert status == 200 and body["rooms"][0]["room"] == h["room"]
    finally:
        await stop(s)


def test_scheduled_events_are_pinned_first_in_the_tournament_list(monkeypatch):
    monkeypatch.setattr(listing, "PAGE", 3)

    def t(i, organiser, state="registering", players=0):
        return SimpleNamespace(summary={"id": f"t{i}", "name": f"Junk {i}" if organiser != "server" else "十分钟赛",
                                        "organiser": organiser, "state": state, "players": players,
                                        "next_start": 1000 + i})
    tasks = [t(i, f"p{i}") for i in range(5)] + [t(5, "p5", "finished", 30), t(6, "p6", players=7), t(7, "server")]
    out = listing.tournaments(tasks)
    assert [x["id"] for x in out["tournaments"]] == ["t7", "t6", "t0"] and (out["pages"], out["total"]) == (3, 8)
    assert listing.tournaments(tasks, page=2)["tournaments"][-1]["id"] == "t5"  # over: last
    assert [x["id"] for x in listing.tournaments(tasks, q="十分钟")["tournaments"]] == ["t7"]
    assert [x["id"] for x in listing.tournaments(tasks, q="JUNK 3")["tournaments"]] == ["t3"]
