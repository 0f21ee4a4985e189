"""An external bot as a tournament competitor: the organiser registers the reference bot
(tests/support/botzone_greedy.py) by its bots.toml name; it is seated like a player, plays its table
through the room's external bot path, and is ranked under its name; a client cannot name an unknown
bot or a program, and the bot's ``seats`` cap counts its tournaments."""

from __future__ import annotations

import asyncio
import random

from tests.server.client import play
from tests.server.conftest import stop
from tests.server.test_botzone import spec, start_with
from tests.server.test_tournament import wait_view


async def create(org, **config) -> str:
    # wufan: the reference bot says HU on any complete hand, which a guobiao table (8 fan) may refuse
    r = await org.request({"t": "tournament_create", "config": {
        "name": "Bot Cup", "type": "wufan", "hands": 2, "checkin_required": False, **config}})
    return r["tournament"]["id"]


def cmd(tid: str, **c) -> dict:
    return {"t": "tournament_cmd", "tournament": tid, "cmd": c}


async def test_a_registered_bot_competes_in_a_tournament_and_is_ranked(tmp_path):
    running = await start_with(tmp_path, spec())
    try:
        org = await running.client(name="Org")
        ps = [await running.client(name=f"P{i}") for i in range(3)]
        tid = await create(org)
        assert (await org.request(cmd(tid, t="register_bot", bot="greedy-ok")))["t"] == "ok"
        for c in ps:
            assert (await c.request(cmd(tid, t="register")))["t"] == "ok"
        assert (await org.request(cmd(tid, t="start")))["t"] == "ok"
        rng = random.Random(3)
        done = await asyncio.gather(*(play(c, rng, lambda m: m.get("t") == "match_result", timeout=300) for c in ps))
        room = running.app.rooms[done[0]["room"]].room
        seat = next(s for s in room.info()["seats"] if s["id"] == "bot:greedy-ok")
        assert seat["bot"] == "greedy-ok" and not seat["no_win"]
        assert seat["faults"] == {}  # what the referee sees at the table: no answer replaced
        bot_seat = room.table_players.index("bot:greedy-ok")
        assert any(p == bot_seat for p, _ in room.finished[-1]["actions"])  # it played its own answers
        v = await wait_view(org, lambda v: v["state"] == "finished")
        # the referee (here the organiser) watches the table from the view's rooms and sees the faults
        code = v["rooms"][v["sessions"][0]["tables"][0]["table"]]["code"]
        assert (await org.request({"t": "watch", "code": code}))["t"] == "ok"
        snap = await org.wait_for(lambda m: m.get("t") == "snapshot")
        watched = next(s for s in snap["info"]["seats"] if s["id"] == "bot:greedy-ok")
        assert watched["bot"] == "greedy-ok" and watched["faults"] == {}
        rows = {r["player"]: r for r in v["standings"]}
        assert set(rows) == {"bot:greedy-ok", *(c.player for c in ps)}
        assert v["names"]["bot:greedy-ok"] == "greedy-ok"
        seats = v["sessions"][0]["tables"][0]["seats"]
        mine = next(s for s in seats if s["player"] == "bot:greedy-ok")
        assert not mine["bot"]  # a ranked competitor, not the unranked stand-in
    finally:
        await stop(running)


async def test_a_client_cannot_register_an_unknown_bot_or_a_program(tmp_path):
    one = spec()
    one = type(one)(**{**{f: getattr(one, f) for f in one.__dataclass_fields__}, "seats": 1})
    running = await start_with(tmp_path, one)
    try:
        org = await running.client(name="Org")
        tid = await create(org)
        for bad in ("nosuchbot", "/usr/bin/python3", "python3 bot.py", ["python3", "bot.py"]):
            r = await org.request(cmd(tid, t="register_bot", bot=bad))
            assert r["t"] == "error" and r["code"] in ("tournament/no_bot", "protocol/bad_field"), r
        p = await running.client(name="P")
        r = await p.request(cmd(tid, t="register_bot", bot="greedy-ok"))
        assert r["code"] == "tournament/not_organiser"
        assert (await org.request(cmd(tid, t="register_bot", bot="greedy-ok")))["t"] == "ok"
        # its one seat is held by this tournament: not another, nor a room
        other = await create(org)
        r = await org.request(cmd(other, t="register_bot", bot="greedy-ok"))
        assert r["code"] == "tournament/bot_busy", r
        v = await wait_view(org, lambda v: True)
        assert [r["player"] for r in v["standings"]] == ["bot:greedy-ok"]
    finally:
        await stop(running)


async def test_unregister_bot_frees_the_seat_the_tournament_held(tmp_path):
    one = spec()
    one = type(one)(**{**{f: getattr(one, f) for f in one.__dataclass_fields__}, "seats": 1})
    running = await start_with(tmp_path, one)
    try:
        org = await running.client(name="Org")
        first, other = await create(org), await create(org)
        assert (await org.request(cmd(first, t="register_bot", bot="greedy-ok")))["t"] == "ok"
        assert (await org.request(cmd(other, t="register_bot", bot="greedy-ok")))["code"] == "tournament/bot_busy"
        p = await running.client(name="P")
        r = await p.request(cmd(first, t="unregister_bot", bot="greedy-ok"))
        assert r["code"] == "tournament/not_organiser"
        r = await org.request(cmd(other, t="unregister_bot", bot="greedy-ok"))
        assert r["code"] == "tournament/not_registered"
        assert (await org.request(cmd(first, t="unregister_bot", bot="greedy-ok")))["t"] == "ok"
        v = await wait_view(org, lambda v: v["id"] == first and not v["players"])
        assert v["standings"] == []
        # its one seat is free again: the other tournament may enter it now
        assert (await org.request(cmd(other, t="register_bot", bot="greedy-ok")))["t"] == "ok"
    finally:
        await stop(running)
