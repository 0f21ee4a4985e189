"""The shared lobby over HTTP (docs/cluster.md): GET /api/rooms on any node lists every node's public
rooms."""

from __future__ import annotations

import asyncio

import pytest

from server.store import StorageError
from tests.server.cluster.test_nodes import eventually, nodes  # noqa: F401 - a fixture
from tests.server.conftest import FAST

pytestmark = pytest.mark.postgres


async def test_api_rooms_on_any_node_lists_the_public_rooms_of_every_node(nodes):
    a, b = nodes
    room_b = (await (await b.client(name="Bea")).request({"t": "create", "config": {**FAST, "private": False}}))["room"]
    room_a = (await (await a.client(name="Abe")).request({"t": "create", "config": {**FAST, "private": False}}))["room"]
    shy = (await (await b.client(name="Shy")).request({"t": "create", "config": FAST}))["room"]  # private
    for node in (a, b):
        status, found = await node.app.api("/api/rooms")
        assert status == 200
        assert {r["room"] for r in found["rooms"]} == {room_a, room_b}, found
        assert found["total"] == 2 and shy not in {r["room"] for r in found["rooms"]}
    listed = {r["room"]: r for r in (await a.app.api("/api/rooms"))[1]["rooms"]}
    assert listed[room_b]["names"] and "Bea" in listed[room_b]["names"].values()  # as its owner sees it


async def test_every_node_lists_the_tournaments_of_every_node_as_they_change(nodes):
    a, b = nodes
    org = await b.client(name="Org")
    r = await org.request({"t": "tournament_create", "config": {"name": "Bee Cup", "hands": 2,
                                                                 "starts": [int(b.app.now()) + 3600]}})
    tid = r["tournament"]["id"]
    assert tid in b.app.tournaments and tid not in a.app.tournaments  # run by B only
    on_a = await a.client(name="Abe")

    async def listed(players: int) -> bool:
        found = await on_a.request({"t": "tournaments", "q": "bee"})
        return [(t["id"], t["players"]) for t in found["tournaments"]] == [(tid, players)]

    for _ in range(200):
        if await listed(0):
            break
        await asyncio.sleep(0.05)
    assert await listed(0)
    status, found = await a.app.api("/api/tournaments")
    assert status == 200 and [t["id"] for t in found["tournaments"]] == [tid]
    reg = await org.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}})
    assert reg["t"] == "ok", reg
    for _ in range(200):  # the owner's new line reaches every node
        if await listed(1):
            break
        await asyncio.sleep(0.05)
    assert await listed(1)


async def test_an_invite_code_opens_on_any_node_by_api_and_by_join(nodes):
    a, b = nodes
    host = await b.client(name="Host")
    snap = await host.request({"t": "create", "config": FAST})  # private: not in any list
    code = snap["info"]["invite"]
    status, view = await a.app.api(f"/api/invite/{code.lower()}")  # A has no such room of its own
    assert status == 200 and view == (await b.app.api(f"/api/invite/{code}"))[1], view
    assert view["host"] == "Host" and view["seated"] == 1
    guest = await a.client(name="Guest")
    assert (await guest.request({"t": "join", "code": code}))["t"] == "ok"  # by the code, on A

    async def seated() -> int | None:
        status, view = await a.app.api(f"/api/invite/{code}")
        return view["seated"] if status == 200 else None

    for _ in range(200):  # the owner's face of the room follows its seats
        if await seated() == 2:
            break
        await asyncio.sleep(0.05)
    assert await seated() == 2
    for c in (guest, host):
        assert (await c.request({"t": "leave"}))["t"] == "ok"
    for _ in range(200):  # closed: the code opens nothing, on any node
        if await seated() is None:
            break
        await asyncio.sleep(0.05)
    assert await a.app.api(f"/api/invite/{code}") == (404, {"error": "not_found"})


async def test_a_name_a_room_reads_late_reaches_the_shared_lobby(nodes, monkeypatch):
    """A name the room could not read at a change of seats (the database out of reach) and reads before
    a later snapshot is written to the shared lobby as well, not only at the next change of seats."""
    a, b = nodes
    host, away = await b.client(name="LateHost"), await b.client(name="LateAway")
    snap = await host.request({"t": "create", "config": {**FAST, "private": False}})
    room = snap["room"]
    assert (await away.request({"t": "join", "code": snap["info"]["invite"]}))["t"] == "ok"
    task = b.app.rooms[room]
    await away.close()
    await eventually(lambda: away.player not in b.app.conns)
    assert away.player in task.members  # seated, offline: the name comes from the database
    task.names.pop(away.player)  # not known yet, as after a restart

    async def outage(ids):
        raise StorageError("the database cannot be read (connection lost)")

    async def listed_on_a() -> dict:
        status, found = await a.app.api("/api/rooms")
        assert status == 200
        return next(r for r in found["rooms"] if r["room"] == room)

    async def until(check) -> dict:
        for _ in range(200):
            entry = await listed_on_a()
            if check(entry):
                break
            await asyncio.sleep(0.05)
        return entry

    real = b.app.store.player_names
    monkeypatch.setattr(b.app.store, "player_names", outage)
    assert (await host.request({"t": "add_bot", "level": "random"}))["t"] == "ok"  # seats change: listed
    entry = await until(lambda e: sum(s is not None for s in e["seats"]) == 3)
    assert sum(s is not None for s in entry["seats"]) == 3 and away.player not in entry["names"], entry
    monkeypatch.setattr(b.app.store, "player_names", real)  # the database answers again; no seat changes
    s = await host.request({"t": "snapshot"})
    assert s["info"]["names"][away.player] == "LateAway"  # the room knows it
    entry = await until(lambda e: away.player in e["names"])
    assert entry["names"].get(away.player) == "LateAway", entry  # and so does every node's lobby
