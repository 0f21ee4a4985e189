"""The HTTP API's answers are declared in server/wire_api.py (the client's types are generated from it):
real answers of a server that has played a rated match, with open rooms and a tournament, are those
declarations exactly, field for field."""

from __future__ import annotations

import asyncio
import json
import random
import urllib.error
import urllib.request

from server import wire, wire_api
from tests.server.client import play
from tests.server.wirecheck import problems


def http_get(url: str) -> tuple[int, object]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


async def test_every_api_answer_of_a_played_server_matches_its_declaration(server):
    a = await server.client("json", name="Ann")
    assert (await a.request({"t": "quick", "type": "guobiao", "wait": 0}))["t"] == "queued"
    await play(a, random.Random(5), lambda m: m.get("t") == "match_result", timeout=60)
    reveal = await a.wait_for(lambda m: m.get("t") == "reveal")
    await server.app.ratings.settle()
    host = await server.client(name="Hostess")
    code = (await host.request({"t": "create", "config": {"hands": 8, "private": False}}))["info"]["invite"]
    quiet = await server.client(name="Quiet")  # never played: a profile without ratings
    assert (await quiet.request({"t": "privacy", "hide_history": True}))["hide_history"] is True
    r = await a.request({"t": "tournament_create", "config": {"name": "Wire Cup", "hands": 4,
                                                              "starts": [int(server.app.now()) + 3600]}})
    tid = r["tournament"]["id"]
    assert (await host.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}}))["t"] == "ok"

    paths = {
        "/api/health": "/api/health", "/api/rooms": "/api/rooms", "/api/tournaments": "/api/tournaments",
        "/api/tournaments/<id>": f"/api/tournaments/{tid}", "/api/invite/<code>": f"/api/invite/{code}",
        "/api/players/<id>": f"/api/players/{a.player}?page=0",
        "/api/leaderboard/<type>": f"/api/leaderboard/guobiao?player={a.player}",
        "/api/matches/<id>": f"/api/matches/{reveal['id']}",
    }
    assert set(paths) == set(wire_api.ROUTES)  # every declared route is asked
    base = f"http://127.0.0.1:{server.port}"
    got = {}
    for route, path in paths.items():  # over HTTP, as the browser reads them
        status, body = await asyncio.to_thread(http_get, base + path)
        assert status == 200, (path, status, body)
        got[route] = body
        assert problems(body, wire_api.ROUTES[route]) == [], route
    # Not vacuous: the lists and optional parts the declarations describe are there.
    assert got["/api/rooms"]["rooms"] and got["/api/tournaments"]["tournaments"]
    profile = got["/api/players/<id>"]
    assert profile["ratings"]["guobiao"] and profile["matches"]["items"] and profile["curves"]["guobiao"]
    assert got["/api/leaderboard/<type>"]["entries"] and got["/api/leaderboard/<type>"]["you"]
    # A hidden history, a leaderboard without ``player``, and what is not found.
    for path, tp in ((f"/api/players/{quiet.player}", wire_api.PlayerProfile),
                     ("/api/leaderboard/dazhong", wire_api.Leaderboard)):
        status, body = await asyncio.to_thread(http_get, base + path)
        assert status == 200 and problems(body, tp) == [], (path, body)
    for path in ("/api/players/nobody", "/api/invite/ZZZZZZZZ", "/api/matches/999999", "/api/nothing"):
        status, body = await asyncio.to_thread(http_get, base + path)
        assert status == 404 and problems(body, wire_api.ApiError) == [], (path, body)


def test_the_checker_finds_a_wrong_api_answer():
    """A field an answer has and its declaration lacks (or the other way round) is reported."""
    ok = {"type": "guobiao", "page": 0, "per_page": 20, "total": 0, "entries": [], "you": None}
    assert problems(ok, wire_api.Leaderboard) == []
    assert problems({**ok, "top": 100}, wire_api.Leaderboard) == [".top: not in Leaderboard"]
    assert problems({k: v for k, v in ok.items() if k != "you"}, wire_api.Leaderboard) == [
        ".you: missing from Leaderboard"]


def test_the_api_declarations_are_in_the_generated_client_types():
    from server import wire_ts

    text = wire_ts.generate()
    assert "server.wire_api" in wire.MODULES
    for tp in {*wire_api.ROUTES.values(), wire_api.ApiError}:
        assert f"export interface {tp.__name__} {{" in text
